package maintext

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dropTags are elements that are never main content.
var dropTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Svg: true, atom.Canvas: true, atom.Button: true, atom.Select: true,
	atom.Textarea: true, atom.Input: true, atom.Label: true, atom.Nav: true, atom.Aside: true,
	atom.Footer: true, atom.Dialog: true, atom.Menu: true,
}

// dropRoles are ARIA roles of boilerplate.
var dropRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "dialog": true, "alertdialog": true, "menu": true, "menubar": true,
}

// dropWords are words that, as a whole class or id or as a part of one
// joined by "-" or "_" ("cookie-banner", "kvkk_bar"), mark boilerplate.
var dropWords = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true, "kvkk": true, "cerez": true,
	"breadcrumb": true, "breadcrumbs": true, "skip": true, "share": true, "sharing": true,
	"social": true, "comments": true, "comment": true, "sidebar": true, "navbar": true,
	"pagination": true, "pager": true, "related": true, "masthead": true, "newsletter": true,
}

// prune removes the subtrees of doc that are boilerplate by their markup
// alone, and returns the number of elements left. An element that holds
// the page's <main>, an <article>, an <h1> or role=main is never removed,
// so that a wrapper with an unlucky class ("has-sidebar") cannot take the
// content with it; neither is <html>, <head> or <body>.
func prune(doc *html.Node) int {
	count := 0
	var walk func(n *html.Node) (protected bool)
	walk = func(n *html.Node) bool {
		protected := false
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if walk(c) {
				protected = true
			}
			c = next
		}
		if n.Type == html.CommentNode {
			n.Parent.RemoveChild(n)
			return false
		}
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Main, atom.Article, atom.H1:
			protected = true
		case atom.Html, atom.Head, atom.Body:
			count++
			return protected
		}
		if attr(n, "role") == "main" {
			protected = true
		}
		if !protected && n.Parent != nil && isBoilerplate(n) {
			n.Parent.RemoveChild(n)
			return false
		}
		count++
		return protected
	}
	walk(doc)
	return count
}

// isBoilerplate reports whether an element is boilerplate by its tag, role,
// class, id or visibility.
func isBoilerplate(n *html.Node) bool {
	if dropTags[n.DataAtom] {
		return true
	}
	if n.DataAtom == atom.Header && !inside(n, atom.Article, atom.Main) {
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "role":
			if dropRoles[strings.ToLower(strings.TrimSpace(a.Val))] {
				return true
			}
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(a.Val, "true") {
				return true
			}
		case "style":
			if s := strings.ToLower(strings.ReplaceAll(a.Val, " ", "")); strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		case "class", "id":
			for _, tok := range strings.Fields(strings.ToLower(a.Val)) {
				if dropWords[tok] {
					return true
				}
				for _, part := range strings.FieldsFunc(tok, isJoiner) {
					if dropWords[part] {
						return true
					}
				}
			}
		}
	}
	return false
}

// inside reports whether n has an ancestor of one of the tags.
func inside(n *html.Node, tags ...atom.Atom) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		for _, t := range tags {
			if p.DataAtom == t {
				return true
			}
		}
	}
	return false
}

func isJoiner(r rune) bool { return r == '-' || r == '_' }
