package htmlx

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Separators a textBuf may hold back until the next visible character, in
// increasing strength.
const (
	sepNone = iota
	sepSpace
	sepLine
)

// textBuf accumulates visible text with whitespace collapsed. Separators are
// held back and written only before the next visible character, so the text
// never starts or ends with whitespace and never holds two separators in a
// row. It drops control and invisible format characters, turns invalid UTF-8
// into U+FFFD, and stops at max bytes, cutting at a character boundary.
type textBuf struct {
	b       strings.Builder
	max     int
	sep     int  // pending separator
	oneLine bool // line breaks become spaces
	full    bool // max reached: everything further is dropped
}

// reset empties t for text of at most max bytes, reserving room for
// capHint bytes.
func (t *textBuf) reset(max, capHint int, oneLine bool) {
	t.b.Reset()
	if capHint > 0 {
		t.b.Grow(capHint)
	}
	t.max = max
	t.sep = sepNone
	t.oneLine = oneLine
	t.full = false
}

// brk asks for a separator before the next visible character.
func (t *textBuf) brk(sep int) {
	if t.oneLine && sep == sepLine {
		sep = sepSpace
	}
	if sep > t.sep {
		t.sep = sep
	}
}

// put appends p, a run of visible characters, after any pending separator.
func (t *textBuf) put(p []byte) {
	if t.full {
		return
	}
	sep := 0
	if t.b.Len() > 0 && t.sep != sepNone {
		sep = 1
	}
	if t.b.Len()+sep+len(p) > t.max {
		// Keep what fits, at a character boundary, then stop.
		room := t.max - t.b.Len() - sep
		if room > 0 {
			n := 0
			for n < len(p) {
				_, size := utf8.DecodeRune(p[n:])
				if n+size > room {
					break
				}
				n += size
			}
			for n > 0 && p[n-1] == ' ' {
				n--
			}
			if n > 0 {
				t.writeSep(sep)
				t.b.Write(p[:n])
			}
		}
		t.full = true
		return
	}
	t.writeSep(sep)
	t.b.Write(p)
}

func (t *textBuf) writeSep(sep int) {
	if sep != 0 {
		if t.sep == sepLine {
			t.b.WriteByte('\n')
		} else {
			t.b.WriteByte(' ')
		}
	}
	t.sep = sepNone
}

var replacementChar = []byte("\uFFFD")

// write appends text, collapsing runs of whitespace into one space.
func (t *textBuf) write(s []byte) {
	for i := 0; i < len(s) && !t.full; {
		c := s[i]
		if printable(c) {
			// A run of printable ASCII with single spaces inside is
			// written at once.
			j := i + 1
			for j < len(s) {
				if printable(s[j]) {
					j++
				} else if s[j] == ' ' && j+1 < len(s) && printable(s[j+1]) {
					j += 2
				} else {
					break
				}
			}
			t.put(s[i:j])
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			if c == ' ' || '\t' <= c && c <= '\r' {
				t.brk(sepSpace)
			}
			// Other controls are dropped.
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			t.put(replacementChar)
		case unicode.IsSpace(r):
			t.brk(sepSpace)
		case r < 0xa0, r == 0xad, r == 0x200b, r == 0x200e, r == 0x200f,
			0x202a <= r && r <= 0x202e, 0x2060 <= r && r <= 0x2064, r == 0xfeff:
			// C1 controls, soft hyphen, zero-width space, bidi marks and
			// embeddings, word joiner and invisible operators, BOM: not
			// seen. (ZWJ and ZWNJ stay: they change how scripts such as
			// Persian or Devanagari are written.)
		default:
			t.put(s[i : i+size])
		}
		i += size
	}
}

// printable reports whether c is a visible ASCII character.
func printable(c byte) bool { return ' ' < c && c < 0x7f }

// String returns the text written so far.
func (t *textBuf) String() string { return t.b.String() }

// Len returns the length of the text written so far.
func (t *textBuf) Len() int { return t.b.Len() }

// collapse returns s with whitespace collapsed and trimmed, at most max bytes.
func collapse(s []byte, max int) string {
	var t textBuf
	t.reset(max, 0, true)
	t.write(s)
	return t.String()
}
