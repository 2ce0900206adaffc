package maintext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockTags start and end a paragraph of their own.
var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Caption: true, atom.Center: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
	atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true,
	atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true,
	atom.Section: true, atom.Summary: true, atom.Table: true, atom.Tbody: true, atom.Tfoot: true,
	atom.Thead: true, atom.Tr: true, atom.Ul: true, atom.Body: true,
}

// skipTags have no readable text.
var skipTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Title: true, atom.Svg: true, atom.Math: true, atom.Object: true,
	atom.Iframe: true, atom.Canvas: true, atom.Audio: true, atom.Video: true, atom.Img: true,
}

// textWriter builds the text of a tree paragraph by paragraph.
type textWriter struct {
	out   strings.Builder // finished paragraphs, separated by "\n\n"
	cur   strings.Builder // the paragraph being written
	space bool            // a space is due before the next word
	max   int
	full  bool
}

// render returns the text of the tree under n: see Result.Text.
func render(n *html.Node, max int) string {
	w := &textWriter{max: max}
	w.node(n, false)
	w.flush()
	return w.out.String()
}

func (w *textWriter) node(n *html.Node, pre bool) {
	if w.full {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.text(n.Data, pre)
		return
	case html.ElementNode:
		if skipTags[n.DataAtom] {
			return
		}
		switch n.DataAtom {
		case atom.Br:
			w.newline()
			return
		case atom.Td, atom.Th:
			if w.cur.Len() > 0 {
				w.cur.WriteString(" |")
				w.space = true
			}
		case atom.Pre:
			pre = true
		}
	case html.DocumentNode:
	default:
		return
	}
	block := n.Type == html.ElementNode && blockTags[n.DataAtom]
	if block {
		w.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, pre)
	}
	if block {
		w.flush()
	}
}

// text writes a text node, collapsing whitespace (or, in <pre>, keeping
// line breaks).
func (w *textWriter) text(s string, pre bool) {
	for _, r := range s {
		switch {
		case r == '\n' && pre:
			w.newline()
		case unicode.IsSpace(r) || r == '\u200b':
			w.space = w.cur.Len() > 0 && !strings.HasSuffix(w.cur.String(), "\n")
		case r == utf8.RuneError || unicode.IsControl(r):
		default:
			if w.space {
				w.cur.WriteByte(' ')
				w.space = false
			}
			w.cur.WriteRune(r)
		}
	}
}

// newline ends a line within the paragraph.
func (w *textWriter) newline() {
	if w.cur.Len() > 0 && !strings.HasSuffix(w.cur.String(), "\n") {
		w.cur.WriteByte('\n')
	}
	w.space = false
}

// flush ends the paragraph being written.
func (w *textWriter) flush() {
	p := strings.TrimSpace(w.cur.String())
	w.cur.Reset()
	w.space = false
	if p == "" || w.full {
		return
	}
	sep := 0
	if w.out.Len() > 0 {
		sep = 2
	}
	if w.out.Len()+sep+len(p) > w.max {
		w.full = true
		p = cutUTF8(p, w.max-w.out.Len()-sep)
		if p == "" {
			return
		}
	}
	if sep > 0 {
		w.out.WriteString("\n\n")
	}
	w.out.WriteString(p)
}

// cutUTF8 cuts s to at most n bytes on a character boundary.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimSpace(s[:n])
}
