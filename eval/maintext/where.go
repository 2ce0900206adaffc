package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// where prints, for each snippet a page's text gets wrong, the chain of
// elements (tag.class#id) above the page's texts that hold it: a view of
// the markup that an extractor must tell apart.
func where(w io.Writer, p page, text string) {
	doc, err := html.Parse(bytes.NewReader(p.body))
	if err != nil {
		return
	}
	for _, m := range missesOf(p, text) {
		parts := strings.SplitN(m, "\t", 3)
		snippet := strings.Trim(parts[2], `"`)
		fmt.Fprintf(w, "%s %s\n", parts[1], parts[2])
		found := 0
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if found >= 2 {
				return
			}
			if n.Type == html.TextNode && strings.Contains(strings.Join(strings.Fields(n.Data), " "), firstWords(snippet)) {
				found++
				fmt.Fprintf(w, "   %s\n", chain(n))
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	}
}

func firstWords(s string) string {
	f := strings.Fields(s)
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

func chain(n *html.Node) string {
	var parts []string
	for a := n.Parent; a != nil && a.Type == html.ElementNode; a = a.Parent {
		s := a.Data
		for _, at := range a.Attr {
			switch at.Key {
			case "class":
				s += "." + strings.Join(strings.Fields(at.Val), ".")
			case "id", "role":
				s += "#" + at.Val
			}
		}
		if len(s) > 70 {
			s = s[:70]
		}
		parts = append(parts, s)
		if len(parts) == 6 {
			break
		}
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, " > ")
}
