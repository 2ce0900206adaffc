package htmlx

import (
	"encoding/binary"
	"sync"
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
	b       []byte
	pooled  bool // b came from textPool, and goes back at String
	max     int
	sep     int  // pending separator
	oneLine bool // line breaks become spaces
	full    bool // max reached: everything further is dropped
	// joins: the last character written is of a script that ZWJ and
	// ZWNJ shape (Arabic, Indic, emoji, ...), so that one that follows
	// is kept.
	joins bool
}

// textPool holds the buffers of pages' texts: a page's text is written
// into one and copied out once at its exact length, where a buffer of its
// own grew (each time a copy and a cleared allocation) and kept its spare
// room for as long as the text lived.
var textPool sync.Pool // of *[]byte

// maxPooledText is the largest buffer textPool keeps.
const maxPooledText = 1 << 20

// reset empties t for text of at most max bytes. With a capHint, the bytes
// are written into a buffer of textPool of at least capHint bytes.
func (t *textBuf) reset(max, capHint int, oneLine bool) {
	t.b = t.b[:0]
	if capHint > 0 && !t.pooled {
		if v, _ := textPool.Get().(*[]byte); v != nil && cap(*v) >= capHint {
			t.b = (*v)[:0]
		} else {
			t.b = make([]byte, 0, capHint)
		}
		t.pooled = true
	}
	t.max = max
	t.sep = sepNone
	t.oneLine = oneLine
	t.full = false
	t.joins = false
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
	if len(t.b) > 0 && t.sep != sepNone {
		sep = 1
	}
	if len(t.b)+sep+len(p) > t.max {
		// Keep what fits, at a character boundary, then stop.
		room := t.max - len(t.b) - sep
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
				t.b = append(t.b, p[:n]...)
			}
		}
		t.full = true
		return
	}
	t.writeSep(sep)
	t.b = append(t.b, p...)
	t.joins = false
	if c := p[len(p)-1]; c >= utf8.RuneSelf {
		r, _ := utf8.DecodeLastRune(p)
		t.joins = r >= joinerScripts
	}
}

// joinerScripts is where the scripts that ZWJ and ZWNJ shape start
// (Hebrew, Arabic, Syriac, the Indic scripts, ..., emoji); in Latin,
// Greek and Cyrillic they only break ligatures, or words apart.
const joinerScripts = 0x0590

func (t *textBuf) writeSep(sep int) {
	if sep != 0 {
		if t.sep == sepLine {
			t.b = append(t.b, '\n')
		} else {
			t.b = append(t.b, ' ')
		}
	}
	t.sep = sepNone
}

var replacementChar = []byte("\uFFFD")

// write appends text, collapsing runs of whitespace into one space.
func (t *textBuf) write(s []byte) {
	for i := 0; i < len(s) && !t.full; {
		c := s[i]
		if printable(c) || c >= utf8.RuneSelf && plainRune(s[i:]) > 0 {
			// A run of printable ASCII and other characters written as
			// they are, with single spaces between ASCII inside, is
			// written at once.
			j := i
		run:
			for j < len(s) {
				if j += ASCIIRun(s[j:]); j == len(s) {
					break
				}
				switch c := s[j]; {
				case printable(c):
					j++
				case c == ' ' && j+1 < len(s) && printable(s[j+1]):
					j += 2
				default:
					n := 0
					if c >= utf8.RuneSelf {
						n = plainRune(s[j:])
					}
					if n == 0 {
						break run
					}
					j += n
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
		case invisible(r):
			// Not seen, and not to split words.
		case (r == 0x200c || r == 0x200d) && (!t.joins || t.sep != sepNone):
			// ZWNJ and ZWJ stay where they change how a script is
			// written (Persian, Devanagari, emoji sequences), but not
			// after Latin letters or a space, where they split words.
		default:
			t.put(s[i : i+size])
		}
		i += size
	}
}

// invisible reports whether r is a character that text leaves out: C1
// controls, soft hyphen, bidi marks, embeddings and isolates, Mongolian
// vowel separator, zero-width space, word joiner and invisible operators,
// BOM, tags.
func invisible(r rune) bool {
	switch {
	case r < 0xa0, r == 0xad, r == 0x61c, r == 0x180e, r == 0x200b, r == 0x200e, r == 0x200f,
		0x202a <= r && r <= 0x202e, 0x2060 <= r && r <= 0x2064, 0x2066 <= r && r <= 0x2069,
		r == 0xfeff, 0xe0000 <= r && r <= 0xe007f:
		return true
	}
	return false
}

// plainRune returns the size of the character that s starts with if
// write writes it as it is (not a space, an invalid byte, an invisible
// character, ZWNJ or ZWJ), else 0.
func plainRune(s []byte) int {
	r, size := utf8.DecodeRune(s)
	if r == utf8.RuneError && size == 1 || r == 0x200c || r == 0x200d || unicode.IsSpace(r) || invisible(r) {
		return 0
	}
	return size
}

// ASCIIRun returns the length of the longest prefix of s made of visible
// ASCII characters, each space in it followed by one of them: the bytes a
// step of one visible character, or of a space and a visible character,
// takes at a time. Text collapsing whitespace copies such a run as it is.
// Eight bytes are tested at a time.
func ASCIIRun(s []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	j := 0
	for len(s)-j >= 8 {
		x := binary.LittleEndian.Uint64(s[j : j+8])
		// The spaces, exactly while every byte is below 0x80: y's zero
		// bytes, y+0x7f having the high bit clear only there.
		y := x ^ (' ' * ones)
		sp := ^((y + 0x7f*ones) | y) & highs
		// A byte below 0x20 (adding 0x60 leaves its high bit clear) or
		// from 0x7f up (adding 1 sets it; 0xff plus 0x60 leaves it
		// clear), two spaces in a row, or a space last. The first such
		// byte is always flagged, the bytes before it carrying nothing
		// into it; where every byte is visible or a space, sp is exact.
		bad := ((x+ones)|^(x+0x60*ones))&highs | sp&(sp>>8|1<<63)
		if bad == 0 {
			j += 8
			continue
		}
		// A space last takes the next byte, which must be visible.
		if bad == 1<<63 && s[j+7] == ' ' && len(s)-j > 8 && printable(s[j+8]) {
			j += 9
			continue
		}
		break
	}
	return asciiSteps(s, j)
}

// asciiSteps goes on with ASCIIRun's run from s[j], a step at a time, and
// returns where it ends.
func asciiSteps(s []byte, j int) int {
	for j < len(s) {
		if printable(s[j]) {
			j++
		} else if s[j] == ' ' && j+1 < len(s) && printable(s[j+1]) {
			j += 2
		} else {
			break
		}
	}
	return j
}

// printable reports whether c is a visible ASCII character.
func printable(c byte) bool { return ' ' < c && c < 0x7f }

// String returns the text written so far. A buffer of textPool goes back
// to it: t is then empty until its next reset.
func (t *textBuf) String() string {
	s := string(t.b)
	if t.pooled {
		if cap(t.b) <= maxPooledText {
			b := t.b[:0]
			textPool.Put(&b)
		}
		t.b, t.pooled, t.full = nil, false, true
	}
	return s
}

// Len returns the length of the text written so far.
func (t *textBuf) Len() int { return len(t.b) }

// collapse returns s with whitespace collapsed and trimmed, at most max bytes.
func collapse(s []byte, max int) string {
	var t textBuf
	t.reset(max, 0, true)
	t.write(s)
	return t.String()
}
