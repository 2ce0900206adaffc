package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/acrawler/acrawler/internal/htmlx"
)

// Title evaluation: on the benchmark's pages whose <title> carries the
// site's name, is the title the crawl records the page's own title?
//
// The rule, written apart from internal/title so that it does not grade
// itself: the <title> (decoded as the crawl decodes the page) is split
// into parts at " | ", "|", " - ", " – ", " — ", " · ", " • ", " » ",
// " « ", " › ", " / ", " :: ", " : " and " ǀ ". A part names the site if,
// letters and digits in lower case without spaces, it is the
// og:site_name, or is of four words or less and begins or ends with the
// host's name (its longest label of four letters or more other than
// "www" and the top-level domain), or is an end part of the <title> of another page of the same
// host (a section or a site name the site repeats). Such parts are taken
// off the end, then off the start, while another part is left; a first
// part "Site: …" is split at its colon when "Site" is the og:site_name
// or the host's name. A page
// with a part taken off "carries a site name", and the rest is its own
// title. A recorded title is right if it reads the same (letters and
// digits in lower case) as that rest, or as the rest without one-word
// parts at its ends (a section: "News"), or as the page's og:title or
// first <h1> when that is inside the rest ("News | Title | Site" named
// "Title").

// titleSeps split a <title> into parts.
var titleSeps = []string{" | ", "|", " - ", " – ", " — ", " · ", " • ", " » ", " « ", " › ", " / ", " :: ", " : ", " ǀ "}

// pageNames are the names a page gives itself.
type pageNames struct {
	title, og, site, h1 string
}

// namesOf reads the <title>, og:title, og:site_name and first <h1> of a
// page.
func namesOf(body []byte) pageNames {
	var n pageNames
	if dec, _, err := htmlx.Decode(body, ""); err == nil {
		body = dec
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return n
	}
	var walk func(x *html.Node)
	walk = func(x *html.Node) {
		if x.Type == html.ElementNode {
			switch x.DataAtom {
			case atom.Title:
				if n.title == "" && !inSVG(x) {
					n.title = textOf(x)
				}
				return
			case atom.Meta:
				prop, content := "", ""
				for _, a := range x.Attr {
					switch a.Key {
					case "property", "name":
						prop = strings.ToLower(a.Val)
					case "content":
						content = a.Val
					}
				}
				switch {
				case prop == "og:title" && n.og == "":
					n.og = strings.TrimSpace(content)
				case prop == "og:site_name" && n.site == "":
					n.site = strings.TrimSpace(content)
				}
			case atom.H1:
				if n.h1 == "" {
					n.h1 = textOf(x)
				}
				return
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				return
			}
		}
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return n
}

func inSVG(x *html.Node) bool {
	for p := x.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Svg {
			return true
		}
	}
	return false
}

func textOf(x *html.Node) string {
	var sb strings.Builder
	var walk func(x *html.Node)
	walk = func(x *html.Node) {
		if x.Type == html.TextNode {
			sb.WriteString(x.Data)
			sb.WriteByte(' ')
		}
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(x)
	return strings.Join(strings.Fields(sb.String()), " ")
}

// norm is what two spellings of a name have in common: letters and
// digits in lower case, words separated by one space.
func norm(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		} else if r != '\'' && r != '’' && !unicode.Is(unicode.Cf, r) {
			space = true
		}
	}
	return b.String()
}

func squash(s string) string { return strings.ReplaceAll(norm(s), " ", "") }

// titleParts splits a <title> at titleSeps.
func titleParts(t string) []string {
	parts := []string{t}
	for _, sep := range titleSeps {
		var next []string
		for _, p := range parts {
			next = append(next, strings.Split(p, sep)...)
		}
		parts = next
	}
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); norm(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// hostName is the longest label of a host of four letters or more, other
// than www and its top-level domain.
func hostName(host string) string {
	labels := strings.Split(strings.ToLower(host), ".")
	best := ""
	for i, l := range labels {
		if i == len(labels)-1 && len(labels) > 1 || strings.HasPrefix(l, "www") {
			continue
		}
		if len(l) >= 4 && len(l) > len(best) {
			best = l
		}
	}
	return squash(best)
}

// titleCase is one page of the title evaluation.
type titleCase struct {
	file, host string
	names      pageNames
	parts      []string
}

// ownTitle returns the parts of the title left when those naming the
// site are taken off (see the rule above) and whether any was; endsOf
// is, by host, the squashed end parts of the titles of the host's pages,
// with how many pages have each.
func (c titleCase) ownTitle(endsOf map[string]map[string]int) ([]string, bool) {
	site, host := squash(c.names.site), hostName(c.host)
	names := func(p string) bool {
		s := squash(p)
		hostly := host != "" && (strings.HasPrefix(s, host) || strings.HasSuffix(s, host)) && len(strings.Fields(norm(p))) <= 4
		return s != "" && (s == site || hostly || endsOf[c.host][s] > 1)
	}
	parts := c.parts
	if len(parts) > 0 {
		if pre, rest, ok := strings.Cut(parts[0], ": "); ok && (squash(pre) == site || squash(pre) == host) && norm(rest) != "" {
			parts = append([]string{pre, rest}, parts[1:]...)
		}
	}
	i, j := 0, len(parts)
	for j-1 > i && names(parts[j-1]) {
		j--
	}
	for i < j-1 && names(parts[i]) {
		i++
	}
	return parts[i:j], i > 0 || j < len(parts)
}

// evalTitles scores the titles of pages whose <title> carries the site's
// name; got gives the title the crawl records for a page. With list, it
// prints each page got wrong.
func evalTitles(w io.Writer, pages []page, got func(p page) string, list bool) {
	var cases []titleCase
	endsOf := map[string]map[string]int{}
	for _, p := range pages {
		c := titleCase{file: p.file, host: strings.ToLower(p.url.Hostname()), names: namesOf(p.body)}
		c.parts = titleParts(c.names.title)
		cases = append(cases, c)
		if len(c.parts) > 1 && c.host != "web.archive.org" {
			m := endsOf[c.host]
			if m == nil {
				m = map[string]int{}
				endsOf[c.host] = m
			}
			m[squash(c.parts[0])]++
			if last := squash(c.parts[len(c.parts)-1]); last != squash(c.parts[0]) {
				m[last]++
			}
		}
	}
	carry, right := 0, 0
	for k, c := range cases {
		own, ok := c.ownTitle(endsOf)
		if !ok {
			continue
		}
		carry++
		g := norm(got(pages[k]))
		rest := norm(strings.Join(own, " "))
		right1 := g == rest
		// Without one-word sections at its ends.
		i, j := 0, len(own)
		for i < j-1 && !strings.Contains(norm(own[i]), " ") {
			i++
		}
		for j-1 > i && !strings.Contains(norm(own[j-1]), " ") {
			j--
		}
		right1 = right1 || g == norm(strings.Join(own[i:j], " "))
		for _, alt := range []string{c.names.og, c.names.h1} {
			if a := norm(alt); a != "" && g == a && strings.Contains(rest, a) {
				right1 = true
			}
		}
		if right1 {
			right++
		} else if list {
			fmt.Fprintf(w, "%s\n\ttitle: %q\n\town:   %q\n\tgot:   %q\n\tog: %q h1: %q site: %q\n", c.file, c.names.title,
				strings.Join(own, " … "), got(pages[k]), c.names.og, c.names.h1, c.names.site)
		}
	}
	fmt.Fprintf(w, "titles: %d pages of %d carry a site name in <title>; %d of them (%.1f%%) named by their own title\n",
		carry, len(pages), right, 100*ratio(right, carry))
}
