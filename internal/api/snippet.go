package api

import (
	"html"
	"strings"
)

// renderMarks returns text as HTML: escaped, with the byte ranges marks
// in <mark> elements. It is the one place search snippets become HTML:
// backends give plain text and offsets. A mark that is not a range of
// text after the one before it (out of bounds, empty, overlapping, or
// inside a UTF-8 character) is left out, so the output always holds
// text and balanced, unnested <mark> elements only.
func renderMarks(text string, marks [][2]int) string {
	var b strings.Builder
	b.Grow(len(text) + 13*len(marks) + 16)
	end := 0
	for _, m := range marks {
		if m[0] < end || m[1] <= m[0] || m[1] > len(text) || !boundary(text, m[0]) || !boundary(text, m[1]) {
			continue
		}
		b.WriteString(html.EscapeString(text[end:m[0]]))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(text[m[0]:m[1]]))
		b.WriteString("</mark>")
		end = m[1]
	}
	b.WriteString(html.EscapeString(text[end:]))
	return b.String()
}

// boundary reports whether byte i of s starts a character (or is its end).
func boundary(s string, i int) bool {
	return i == len(s) || s[i]&0xC0 != 0x80
}
