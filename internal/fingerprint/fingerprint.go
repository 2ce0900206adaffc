// Package fingerprint computes content fingerprints used to recognise the
// same text under different URLs.
package fingerprint

import (
	"crypto/sha256"
	"unicode"
	"unicode/utf8"
)

// Exact returns the SHA-256 of text lowercased with every run of whitespace
// collapsed to one space and leading/trailing whitespace dropped, so that
// two pages differing only in case or layout whitespace share it. It
// returns nil for text with no non-space characters: empty pages are not
// duplicates of one another.
func Exact(text string) []byte {
	h := sha256.New()
	var buf [4096]byte
	n := 0 // bytes in buf
	space := false
	wrote := false
	for i := 0; i < len(text); {
		if n > len(buf)-8 {
			h.Write(buf[:n])
			n = 0
		}
		c := text[i]
		if c < utf8.RuneSelf && exactASCII[c] == c {
			// A run of ASCII that stays as it is (no capital, no space
			// but single ones inside), copied at once.
			j := i + 1
			for j < len(text) {
				if d := text[j]; d < utf8.RuneSelf && exactASCII[d] == d {
					j++
				} else if d == ' ' && j+1 < len(text) && text[j+1] < utf8.RuneSelf && exactASCII[text[j+1]] == text[j+1] {
					j += 2
				} else {
					break
				}
			}
			if space {
				buf[n] = ' '
				n++
				space = false
			}
			wrote = true
			for run := text[i:j]; len(run) > 0; {
				k := copy(buf[n:], run)
				n += k
				run = run[k:]
				if n == len(buf) {
					h.Write(buf[:n])
					n = 0
				}
			}
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			// Other ASCII: a capital or a space.
			if l := exactASCII[c]; l != exactSpace {
				if space {
					buf[n] = ' '
					n++
					space = false
				}
				buf[n] = l
				n++
				wrote = true
			} else {
				space = wrote
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if unicode.IsSpace(r) {
			space = wrote
			continue
		}
		if space {
			buf[n] = ' '
			n++
			space = false
		}
		n += utf8.EncodeRune(buf[n:], unicode.ToLower(r))
		wrote = true
	}
	if !wrote {
		return nil
	}
	h.Write(buf[:n])
	return h.Sum(nil)
}

// exactASCII maps an ASCII byte to what Exact hashes for it: exactSpace
// for a space (as unicode.IsSpace has it), the lower case of a letter, the
// byte itself otherwise.
const exactSpace = 0xff

var exactASCII = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case unicode.IsSpace(rune(c)):
			t[c] = exactSpace
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c + 'a' - 'A')
		default:
			t[c] = byte(c)
		}
	}
	return t
}()
