// Package fingerprint computes content fingerprints used to recognise the
// same text under different URLs.
package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
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
		if c < utf8.RuneSelf {
			if exactASCII[c] == exactSpace {
				space = wrote
				i++
				continue
			}
			if space {
				buf[n] = ' '
				n++
				space = false
			}
			wrote = true
			// ASCII that is not a space: eight bytes at a time as long
			// as they hash as they are lowercased, then a byte.
			j := i
			for {
				k, full := exactBlocks(buf[n:], text[j:])
				n += k
				j += k
				if !full {
					break
				}
				h.Write(buf[:n])
				n = 0
			}
			if j == i {
				buf[n] = exactASCII[c]
				n++
				j++
			}
			i = j
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

// exactBlocks writes to dst the bytes of s as Exact hashes them
// (lowercased, each space as ' '), eight at a time, from the first on to
// the first byte that is not ASCII, is a control character other than a
// space, or is a space followed by another or by the end of s; a space
// just before that byte is left out too, the byte after it deciding what
// it is. It returns how many bytes it wrote, and whether it stopped only
// for want of room in dst. The bytes are tested in a 64-bit word, without
// carries between them: a byte's sums carry into the next only from a byte
// from 0x80 up, the first of which its high bit alone flags.
func exactBlocks(dst []byte, s string) (k int, full bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for m := min(len(s), len(dst)); m-k >= 8; {
		b := s[k : k+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		// Per byte below 0x80, the high bit of ^(b + 0x80 - v) is set
		// when b < v.
		below := func(v uint64) uint64 { return ^(x + (0x80-v)*ones) & highs }
		lt21 := below(0x21)
		sp := lt21 & (x << 2) // 0x20 is the only one with bit 5
		ctl := lt21 &^ sp
		ws09 := ctl & below(0x0e) &^ below(0x09) // \t \n \v \f \r
		ws := sp | ws09
		bad := (x|(x+ones))&highs | ctl&^ws09 | ws&(ws>>8|1<<63)
		upper := below(0x5b) &^ below(0x41)
		binary.LittleEndian.PutUint64(dst[k:], (x|upper>>2)&^(ws09>>7*0xff)|ws09>>2)
		if bad == 0 {
			k += 8
			continue
		}
		if bad == 1<<63 && b[7] < 0x80 && ws>>63 != 0 && len(s)-k > 8 && ' ' < s[k+8] && s[k+8] < 0x7f {
			// A space last (below 0x80, so every byte was tested
			// exactly), followed by a visible character.
			k += 8
			continue
		}
		j := bits.TrailingZeros64(bad) / 8
		if j > 0 && ws>>(8*j-1)&1 != 0 {
			j--
		}
		return k + j, false
	}
	return k, len(dst)-k < 8 && len(s)-k >= 8
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
