package pdf

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// hyphenMark is what PDFium's FPDFText_GetText puts in place of a hyphen
// that ends a line in the middle of a word; the line break after it is
// left out.
const hyphenMark = '\uFFFE'

// line is one line of a page's text as PDFium reports it (a word
// hyphenated at its end continues it on the next visual line). When geo
// is set, x0 and y0 are the left edge and baseline of its first
// character, x1 and y1 the right edge and baseline of its last, and size
// the font size of its first, all in points with y growing upwards.
type line struct {
	text   string
	x0, y0 float64
	x1, y1 float64
	size   float64
	geo    bool
}

// layoutPage joins the lines of one page into paragraphs, one per
// returned string.
//
// Lines of a paragraph are joined with a space, or with nothing when the
// first ends with a hyphen that splits a word: PDFium's hyphen mark, or a
// "-" after a letter followed by a lower-case letter (so a compound like
// "near-duplicates" broken after its hyphen loses it, as with pdftotext).
// A new paragraph starts at a line that is indented against the line
// before it in the same column (or, at the top of a column, against the
// line after it), after a vertical gap of more than 1.5 times the font
// size, or at a change of font size; without positions every line is a
// paragraph of its own. A last line that holds only a page number is
// dropped.
func layoutPage(lines []line) []string {
	ls := make([]line, 0, len(lines))
	for _, l := range lines {
		l.text = cleanLine(l.text)
		if l.text != "" {
			ls = append(ls, l)
		}
	}
	if n := len(ls); n > 1 && isPageNumber(ls[n-1].text) {
		ls = ls[:n-1]
	}
	var paras []string
	var b []byte
	for i, l := range ls {
		if i > 0 {
			prev := ls[i-1]
			switch {
			case newParagraph(ls, i):
				paras = append(paras, finishParagraph(string(b)))
				b = b[:0]
			case strings.HasSuffix(prev.text, string(hyphenMark)):
			case endsInHyphen(prev.text) && startsLower(l.text):
				b = b[:len(b)-1]
			default:
				b = append(b, ' ')
			}
		}
		b = append(b, l.text...)
	}
	if len(b) > 0 {
		paras = append(paras, finishParagraph(string(b)))
	}
	return paras
}

// finishParagraph removes the hyphen marks inside p, joining the halves of
// hyphenated words, and turns a trailing one (a word hyphenated across a
// page break) into a plain hyphen.
func finishParagraph(p string) string {
	if t, ok := strings.CutSuffix(p, string(hyphenMark)); ok {
		p = t + "-"
	}
	return strings.ReplaceAll(p, string(hyphenMark), "")
}

// newParagraph reports whether ls[i] starts a paragraph; i > 0.
func newParagraph(ls []line, i int) bool {
	prev, cur := ls[i-1], ls[i]
	if !prev.geo || !cur.geo {
		return true
	}
	size := max(prev.size, cur.size)
	if size <= 0 || size > 1000 {
		size = 10
	}
	if sizeChanged(prev.size, cur.size) {
		return true
	}
	if sameColumn(prev, cur, size) {
		if prev.y1-cur.y0 > 1.5*size || isListItem(cur.text) {
			return true
		}
		return indented(cur, prev, size)
	}
	// The first line of a new column (or of a block placed out of order):
	// compare its indentation with the line below it.
	if i+1 < len(ls) && ls[i+1].geo && sameColumn(cur, ls[i+1], size) {
		return indented(cur, ls[i+1], size)
	}
	return false
}

// sameColumn reports whether b is the line below a in the same column:
// lower on the page, but not by more than a few lines, and overlapping
// horizontally.
func sameColumn(a, b line, size float64) bool {
	dy := a.y1 - b.y0
	return dy > 0.2*size && dy < 4*size && b.x0 < a.x1 && a.x0 < b.x1
}

// indented reports whether l starts a paragraph indent to the right of
// ref: by more than half an em, but less than a centred line would.
func indented(l, ref line, size float64) bool {
	if isListItem(ref.text) {
		return false
	}
	d := l.x0 - ref.x0
	return d > 0.5*size && d < 4*size
}

func sizeChanged(a, b float64) bool {
	if a <= 0 || b <= 0 {
		return false
	}
	return a > 1.15*b || b > 1.15*a
}

// isListItem reports whether s starts with a bullet or an enumeration
// label such as "1." or "(a)", after which continuation lines are
// indented.
func isListItem(s string) bool {
	label, _, ok := strings.Cut(s, " ")
	switch label {
	case "•", "◦", "▪", "‣", "∙", "·", "–", "—", "-", "*":
		return true
	}
	if !ok || len(label) > 5 {
		return false
	}
	label = strings.TrimLeft(label, "(")
	label = strings.TrimRight(label, ".)")
	if label == "" {
		return false
	}
	for _, c := range label {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' && len(label) == 1) {
			return false
		}
	}
	return true
}

// isPageNumber reports whether s is only a page number.
func isPageNumber(s string) bool {
	if len(s) == 0 || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// endsInHyphen reports whether s ends with a letter and a hyphen.
func endsInHyphen(s string) bool {
	t, ok := strings.CutSuffix(s, "-")
	if !ok {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return unicode.IsLetter(r)
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// ligatures maps the Latin ligature code points to their letters.
var ligatures = map[rune]string{
	'\uFB00': "ff",
	'\uFB01': "fi",
	'\uFB02': "fl",
	'\uFB03': "ffi",
	'\uFB04': "ffl",
	'\uFB05': "st",
	'\uFB06': "st",
	'\u0132': "IJ",
	'\u0133': "ij",
}

// cleanLine returns s in NFC with ligatures expanded, soft hyphens, byte
// order marks, noncharacters (except the hyphen mark) and control
// characters removed, tabs and other spaces turned into plain spaces,
// runs of spaces collapsed and the ends trimmed. Invalid UTF-8 is
// dropped. The result has no line breaks.
func cleanLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case r == hyphenMark:
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), r == '\u00AD', r == '\uFEFF', r == '\uFFFF',
			unicode.Is(unicode.Noncharacter_Code_Point, r),
			'\u200B' <= r && r <= '\u200D', r == '\u2060':
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if l, ok := ligatures[r]; ok {
			b.WriteString(l)
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if !norm.NFC.IsNormalString(out) {
		out = norm.NFC.String(out)
	}
	return out
}

// cleanField returns a metadata string cleaned like a line of text and
// cut to at most maxField bytes.
func cleanField(s string) string {
	s = cleanLine(strings.ReplaceAll(s, string(hyphenMark), ""))
	return truncate(s, maxField)
}

// maxField is the largest metadata value kept, in bytes.
const maxField = 1024

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// splitLines splits the text of a page as PDFium's FPDFText_GetText
// returns it ("\r\n" between lines) into lines, remembering for each the
// index of its first UTF-16 code unit, which is the index of its first
// character in the text page.
func splitLines(text string) (lines []string, starts []int) {
	unit := 0
	begin, beginUnit := 0, 0
	for i, r := range text {
		if r == '\r' || r == '\n' {
			if i > begin {
				lines = append(lines, text[begin:i])
				starts = append(starts, beginUnit)
			}
			begin, beginUnit = i+1, unit+1
		}
		unit += utf16Len(r)
	}
	if begin < len(text) {
		lines = append(lines, text[begin:])
		starts = append(starts, beginUnit)
	}
	return lines, starts
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= unicode.MaxRune {
		return 2
	}
	return 1
}

// Bounds of heading.
const (
	headingLines = 40  // lines at the top of a page looked at
	headingMax   = 4   // lines a heading may take
	headingBytes = 400 // bytes of a heading
)

// heading returns the text set in the largest type among the first lines
// of a page, as a title page sets its title: the first run of lines (at
// most four, one below the other) in a font at least a fifth larger than
// most of the page's text; "" if the page has no such text or no
// positions. Lines that are not horizontal (the arXiv stamp in the margin)
// and lines without letters are passed over.
func heading(lines []line) string {
	var ls []line
	for _, l := range lines {
		l.text = cleanLine(l.text)
		if l.text == "" || !l.geo || l.size <= 0 || l.size > 1000 {
			continue
		}
		if d := l.y1 - l.y0; d > l.size || -d > l.size {
			continue // vertical or slanted
		}
		if strings.HasPrefix(strings.ToLower(l.text), "arxiv:") {
			continue
		}
		ls = append(ls, l)
	}
	// The body size: the size of most of the page's characters.
	bySize := map[float64]int{}
	body, most := 0.0, 0
	for _, l := range ls {
		s := math.Round(l.size*2) / 2
		bySize[s] += len(l.text)
		if bySize[s] > most {
			body, most = s, bySize[s]
		}
	}
	top := ls[:min(len(ls), headingLines)]
	big := 0.0
	for _, l := range top {
		if l.size > big && strings.ContainsFunc(l.text, unicode.IsLetter) {
			big = l.size
		}
	}
	if body <= 0 || big < 1.2*body {
		return ""
	}
	var b []byte
	var prev line
	n := 0
	for _, l := range top {
		if n == 0 {
			if l.size < big*0.95 || !strings.ContainsFunc(l.text, unicode.IsLetter) {
				continue
			}
		} else if l.size < big*0.95 || l.size > big*1.05 || n >= headingMax || prev.y1-l.y0 > 2.5*l.size || prev.y1-l.y0 < 0.2*l.size {
			break
		}
		switch {
		case n == 0:
		case strings.HasSuffix(prev.text, string(hyphenMark)):
		case endsInHyphen(prev.text) && startsLower(l.text):
			b = b[:len(b)-1]
		default:
			b = append(b, ' ')
		}
		b = append(b, l.text...)
		prev = l
		n++
	}
	return truncate(finishParagraph(string(b)), headingBytes)
}
