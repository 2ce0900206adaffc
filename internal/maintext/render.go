package maintext

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/atom"

	"github.com/acrawler/acrawler/internal/htmlx"
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
	cur   []byte          // the paragraph being written
	space bool            // a space is due before the next word
	max   int
	full  bool
	b     *Builder

	root         int32 // the root being written
	content      int32 // visible bytes of all the roots
	contentLinks int32 // the part of them inside links

	// A heading is held back until a paragraph follows it or a heading
	// of a lower rank does: one that ends the content or is followed by
	// a heading of its own rank or above titled something left out (a
	// list of related links, a share bar).
	level    int    // rank of the heading being written (1-6), 0 if none
	held     []byte // the heading held back
	heldRank int
	item     bool   // the paragraph being written is a list item
	prose    bool   // a paragraph of prose was written
	titled   bool   // the first paragraph was seen (see write)
	title    []byte // the first paragraph, if it is the page's title
	lastLong int    // length of the text up to the end of its last prose paragraph (see isProse)
}

// maxTail is the length under which the lines after the last paragraph
// of prose are left out (if they are under a third of the text before them).
const maxTail = 400

// isProse reports whether a paragraph is prose rather than a line of
// boilerplate: at least 150 bytes, or five words or more with a sentence
// in them (ending in '.', '!', '?' or '…', before any closing quotes and
// brackets, or followed by another).
func isProse(p []byte) bool {
	return len(p) >= 150 || bytes.Count(p, space) >= 4 && (endsSentence(p) || bytes.Contains(p, stop))
}

var space, stop = []byte(" "), []byte(". ")

// endsSentence reports whether a paragraph ends a sentence: '.', '!', '?'
// or '…', then perhaps closing quotes and brackets.
func endsSentence(p []byte) bool {
	for len(p) > 0 {
		r, size := utf8.DecodeLastRune(p)
		switch r {
		case '.', '!', '?', '…':
			return true
		case '"', '\'', ')', ']', '»', '«', '“', '”', '„', '’', '‘':
			p = p[:len(p)-size]
		default:
			return false
		}
	}
	return false
}

// render writes the text of the subtrees of the given nodes, in order:
// see Result.Text.
func (b *Builder) render(roots []int32, max int) string {
	w := &textWriter{max: max, b: b}
	size := 0
	for _, i := range roots {
		size += int(b.nodes[i].chars)
		w.contentLinks += b.nodes[i].linkChars
	}
	w.out.Grow(min(max, size+size/4+16))
	w.content = int32(size)
	for _, i := range roots {
		w.root = i
		w.node(i, false)
	}
	w.flush()
	if w.out.Len() == 0 && len(w.title) > 0 {
		// The title was all there was.
		w.write(w.title)
	}
	if len(w.held) > 0 && (w.out.Len() == 0 || w.heldRank == 0 && !opens(w.held)) {
		// A heading at the end titled something left out, and so did
		// a label that opens what should follow it ("Contact:"); the
		// other labels are short lines like those after the text (see
		// below).
		w.write(w.held)
	}
	if tail := w.out.Len() - w.lastLong; w.prose && tail < maxTail && tail*3 < w.lastLong {
		// The short lines after the last prose: a source, a date, a
		// "more on this" line, a tag list.
		return w.out.String()[:w.lastLong]
	}
	return w.out.String()
}

func (w *textWriter) node(i int32, pre bool) {
	if w.full {
		return
	}
	n := &w.b.nodes[i]
	if n.text {
		w.text(w.b.text[n.start:n.stop], pre)
		return
	}
	if n.flags&(fSkip|fDropped) != 0 || i != w.root && (n.linkBlock(w.content, w.contentLinks) || w.b.labelledLink(i, w.content, w.contentLinks) || n.minorNegative(w.content) || n.imageNote() || w.prose && n.teaser(w.content, w.contentLinks)) {
		if n.props&pBlock != 0 && n.chars > 0 && n.linkChars*2 >= n.chars {
			// The heading or label held back titled these links
			// ("Related articles", "Read also:").
			w.held = w.held[:0]
		}
		return
	}
	switch n.atom {
	case atom.Br:
		w.newline()
		return
	case atom.Td, atom.Th:
		if len(w.cur) > 0 {
			w.cur = append(w.cur, " |"...)
			w.space = true
		}
	case atom.Pre:
		pre = true
	}
	block := n.props&pBlock != 0
	if block {
		w.flush()
	}
	level := headingRank(n.atom)
	if level > 0 {
		w.level = level
	}
	if n.atom == atom.Li {
		w.item = true
	}
	for j := i + 1; j < n.end; j = w.b.nodes[j].end {
		w.node(j, pre)
	}
	if block {
		w.flush()
	}
	if level > 0 {
		w.level = 0
	}
}

// headingRank is 1 to 6 for h1 to h6, 0 for other elements.
func headingRank(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// text writes a text node, collapsing whitespace (or, in <pre>, keeping
// line breaks).
func (w *textWriter) text(s []byte, pre bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if ' ' < c && c < 0x7f {
			// A run of printable ASCII with single spaces inside is
			// written at once.
			j := i + 1 + htmlx.ASCIIRun(s[i+1:])
			if w.space {
				w.cur = append(w.cur, ' ')
				w.space = false
			}
			w.cur = append(w.cur, s[i:j]...)
			i = j
			continue
		}
		if c == ' ' || '\t' <= c && c <= '\r' && (c != '\n' || !pre) {
			w.space = len(w.cur) > 0 && w.cur[len(w.cur)-1] != '\n'
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(s[i:])
		}
		i += size
		switch {
		case r == '\n' && pre:
			w.newline()
		case unicode.IsSpace(r) || r == '\u200b':
			w.space = len(w.cur) > 0 && w.cur[len(w.cur)-1] != '\n'

		case r == utf8.RuneError || unicode.IsControl(r) || invisible(r):
		default:
			if w.space {
				w.cur = append(w.cur, ' ')
				w.space = false
			}
			w.cur = utf8.AppendRune(w.cur, r)
		}
	}
}

// newline ends a line within the paragraph.
func (w *textWriter) newline() {
	if len(w.cur) > 0 && w.cur[len(w.cur)-1] != '\n' {
		w.cur = append(w.cur, '\n')
	}
	w.space = false
}

// flush ends the paragraph being written.
func (w *textWriter) flush() {
	p := bytes.TrimSpace(w.cur)
	w.cur = w.cur[:0]
	w.space = false
	if len(p) == 0 || w.full {
		return
	}
	if w.level > 0 {
		if len(w.held) > 0 && w.level > w.heldRank {
			w.write(w.held)
		}
		w.held = append(w.held[:0], p...)
		w.heldRank = w.level
		return
	}
	if isCredit(p) {
		return
	}
	if len(w.held) > 0 {
		w.write(w.held)
		w.held = w.held[:0]
	}
	if !w.item && isLabel(p) {
		// A label is held back as a heading is, below every rank.
		w.held = append(w.held, p...)
		w.heldRank = 0
		return
	}
	w.write(p)
}

// minTitleLine is the length from which a first paragraph that the
// page's <title> holds is the title (see textWriter.write).
const minTitleLine = 10

// inTitle reports whether a paragraph (its spaces collapsed) is in the
// page's title, spaces aside.
func inTitle(title, p []byte) bool {
	if len(title) < len(p) {
		return false
	}
	var buf [maxTitle]byte
	t := buf[:0]
	space := false
	for _, c := range bytes.TrimSpace(title) {
		if isSpaceByte(c) {
			space = true
			continue
		}
		if space {
			t = append(t, ' ')
			space = false
		}
		t = append(t, c)
	}
	return bytes.Contains(t, p)
}

// opens reports whether a paragraph ends in a colon or a question mark:
// it opens something that should follow it.
func opens(p []byte) bool {
	r, _ := utf8.DecodeLastRune(p)
	return r == ':' || r == '?'
}

// creditWords are the words that begin the line of an image's credit or
// a text's source ("Photo: …", "Quelle: …"), in lower case.
var creditWords = map[string]bool{"photo": true, "foto": true, "fotos": true, "bild": true, "titelbild": true,
	"image": true, "credit": true, "source": true, "quelle": true, "fuente": true, "crédito": true, "crédit": true,
	"źródło": true, "zdjęcie": true, "fot.": true}

// isCredit reports whether a paragraph is the line of an image's credit
// or a text's source: under maxLabelLine bytes, not a sentence, and
// beginning with © or with a word of creditWords and a colon.
func isCredit(p []byte) bool {
	if len(p) >= maxLabelLine || endsSentence(p) {
		return false
	}
	if bytes.HasPrefix(p, []byte("©")) {
		return true
	}
	i := bytes.IndexByte(p, ':')
	return i > 0 && i <= 12 && creditWords[strings.ToLower(string(bytes.TrimSpace(p[:i])))]
}

// maxLabelLine is the length under which a paragraph may be a label
// (see isLabel).
const maxLabelLine = 100

// isLabel reports whether a paragraph is a label of what follows it
// rather than text: under maxLabelLine bytes with a letter, and of up to
// seven words ending in a colon, six ending in a question mark, or four
// without a sentence's end ("Read also:", "Did you see this?", "More on
// this").
func isLabel(p []byte) bool {
	if len(p) >= maxLabelLine || !bytes.ContainsFunc(p, unicode.IsLetter) {
		return false
	}
	r, _ := utf8.DecodeLastRune(p)
	words := bytes.Count(p, space) + 1
	return r == ':' && words <= 7 || r == '?' && words <= 6 || words <= 4 && !endsSentence(p)
}

// write adds a paragraph to the text. The first, if the page's <title>
// holds it (the page's title, which is recorded apart), is held back
// until another follows.
func (w *textWriter) write(p []byte) {
	if w.full {
		return
	}
	if w.out.Len() == 0 && !w.titled {
		w.titled = true
		if len(p) >= minTitleLine && inTitle(w.b.title, p) {
			w.title = p
			return
		}
	}
	sep := 0
	if w.out.Len() > 0 {
		sep = 2
	}
	if w.out.Len()+sep+len(p) > w.max {
		w.full = true
		p = cutUTF8(p, w.max-w.out.Len()-sep)
		if len(p) == 0 {
			return
		}
	}
	if sep > 0 {
		w.out.WriteString("\n\n")
	}
	w.out.Write(p)
	prose := isProse(p)
	w.prose = w.prose || prose
	if prose || w.item {
		// A list's last items (a publication list's, a recipe's)
		// are kept however short.
		w.lastLong = w.out.Len()
	}
	w.item = false
}

// cutUTF8 cuts s to at most n bytes on a character boundary.
func cutUTF8(s []byte, n int) []byte {
	if n <= 0 {
		return nil
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return bytes.TrimSpace(s[:n])
}

// invisible reports whether a character is one that shows nothing and
// joins nothing: a soft hyphen, a word joiner, a byte order mark, a
// direction mark. (Zero-width joiners and non-joiners, which shape
// emoji and the words of some scripts, are kept.)
func invisible(r rune) bool {
	switch r {
	case '\u00ad', '\u2060', '\ufeff', '\u200e', '\u200f', '\u180e', '\u034f':
		return true
	}
	return false
}
