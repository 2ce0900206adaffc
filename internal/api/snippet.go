package api

import (
	"strings"

	"golang.org/x/net/html"
)

// markOnly returns s as HTML that holds only text and <mark> elements: the
// form search snippets promise (escaped text with the matching words
// marked). Other tags, comments and doctypes are dropped, text is escaped
// again, marks are never nested and always closed. It is idempotent, so a
// backend that already keeps the promise gets its snippet back unchanged.
func markOnly(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	b.Grow(len(s) + 16)
	open := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			if open {
				b.WriteString("</mark>")
			}
			return b.String()
		case html.TextToken:
			b.WriteString(html.EscapeString(string(z.Text())))
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "mark" && !open {
				b.WriteString("<mark>")
				open = true
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "mark" && open {
				b.WriteString("</mark>")
				open = false
			}
		}
	}
}
