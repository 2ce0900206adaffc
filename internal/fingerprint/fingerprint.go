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
	var buf [512]byte
	out := buf[:0]
	space := false
	wrote := false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		if unicode.IsSpace(r) {
			space = wrote
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		} else if r >= utf8.RuneSelf {
			r = unicode.ToLower(r)
		}
		out = utf8.AppendRune(out, r)
		wrote = true
		if len(out) > len(buf)-8 {
			h.Write(out)
			out = out[:0]
		}
	}
	if !wrote {
		return nil
	}
	h.Write(out)
	return h.Sum(nil)
}
