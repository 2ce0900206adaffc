package fingerprint

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

func TestExact(t *testing.T) {
	same := [][2]string{
		{"Hello World", "hello world"},
		{"Hello   World", "hello\n\tworld"},
		{"  Hello World  ", "Hello World"},
		{"ÖĞRENCİ Yayın", "öğrenci yayın"},
		{strings.Repeat("word ", 400), strings.Repeat("WORD\n", 400)},
	}
	for _, p := range same {
		if !bytes.Equal(Exact(p[0]), Exact(p[1])) {
			t.Errorf("Exact(%.20q) != Exact(%.20q), want equal", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"Hello World", "HelloWorld"},
		{"a b", "a c"},
		{strings.Repeat("x", 600) + "a", strings.Repeat("x", 600) + "b"},
	}
	for _, p := range differ {
		if bytes.Equal(Exact(p[0]), Exact(p[1])) {
			t.Errorf("Exact(%.20q) == Exact(%.20q), want different", p[0], p[1])
		}
	}
	for _, empty := range []string{"", "   ", "\n\t "} {
		if Exact(empty) != nil {
			t.Errorf("Exact(%q) = non-nil, want nil", empty)
		}
	}
	if n := len(Exact("x")); n != 32 {
		t.Errorf("len(Exact) = %d, want 32", n)
	}
}

func FuzzExact(f *testing.F) {
	f.Add("Hello World")
	f.Add("\xff\xfe ı İ")
	f.Add("Ab cd\nef GH\tij  kl\x7fmn op\u00a0qr st")
	f.Add(strings.Repeat("Hello World\n", 20))
	f.Fuzz(func(t *testing.T, s string) {
		a := Exact(s)
		b := Exact("  " + strings.ToUpper(s) + "\n")
		// Uppercasing can change some runes' lowercase form (e.g. 'ı' → 'I' → 'i'),
		// so only ASCII inputs must be stable under it.
		ascii := true
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				ascii = false
			}
		}
		if ascii && !bytes.Equal(a, b) {
			t.Fatalf("Exact changed under case and surrounding space for %q", s)
		}
		if want := exactRef(s); !bytes.Equal(a, want) {
			t.Fatalf("Exact(%q) = %x, the reference definition gives %x", s, a, want)
		}
	})
}

// exactRef is Exact as first written, rune by rune: fingerprints are
// stored, so a faster Exact must give the same hashes.
func exactRef(text string) []byte {
	var norm []rune
	space := false
	for _, r := range text {
		if unicode.IsSpace(r) {
			space = len(norm) > 0
			continue
		}
		if space {
			norm = append(norm, ' ')
			space = false
		}
		norm = append(norm, unicode.ToLower(r))
	}
	if len(norm) == 0 {
		return nil
	}
	sum := sha256.Sum256([]byte(string(norm)))
	return sum[:]
}

func TestExactReference(t *testing.T) {
	for _, s := range []string{"", " ", "Hello, World", "\x00\x7f \t\v\f\r\n", "ÖĞRENCİ\u00a0Yayın\u2003x", "\xff\xfe a\xc3",
		strings.Repeat("Ab cD\u0130 ", 1000), strings.Repeat("x", 5000) + "\u0085y"} {
		if got, want := Exact(s), exactRef(s); !bytes.Equal(got, want) {
			t.Errorf("Exact(%.40q) = %x, want %x", s, got, want)
		}
	}
}

// exactAlphabet holds the bytes and runes at the edges of Exact's classes
// of bytes: spaces of every kind, the capitals' ends and their
// neighbours, control characters, DEL, bytes of broken UTF-8, and runes
// whose lower case or spacing differs.
var exactAlphabet = []string{"a", "A", "Z", "z", "@", "[", "`", "{", "!", "~", "0", " ", "\n", "\t", "\r", "\v", "\f",
	"\x00", "\x08", "\x0e", "\x1f", "\x7f", "\x80", "\xc3", "\xff", "\u0085", "\u00a0", "\u2003", "İ", "Ö"}

// TestExactEdges holds Exact to exactRef on every string of up to three
// of exactAlphabet after each prefix of up to ten bytes and before a few
// endings (so at every place in a block of eight bytes), and on random
// strings of the alphabet, and around the end of Exact's buffer.
func TestExactEdges(t *testing.T) {
	const prefix = "Ab cd eF g"
	suffixes := []string{"", "x", " y", "Yz ab cd", "\nAB  cd\t\tef gh"}
	check := func(s string) {
		t.Helper()
		if got, want := Exact(s), exactRef(s); !bytes.Equal(got, want) {
			t.Fatalf("Exact(%q) = %x, want %x", s, got, want)
		}
	}
	var short []string
	var grow func(s string, n int)
	grow = func(s string, n int) {
		short = append(short, s)
		if n > 0 {
			for _, a := range exactAlphabet {
				grow(s+a, n-1)
			}
		}
	}
	grow("", 3)
	for _, w := range short {
		for p := range len(prefix) + 1 {
			for _, suf := range suffixes {
				check(prefix[:p] + w + suf)
			}
		}
	}
	// Around the end of Exact's buffer of 4096 bytes, at every offset.
	for p := range 24 {
		for _, w := range []string{"Ab\ncd  EF gh ij kl mn op", "a b c d e f g h i j k", "\u00a0ĞH \t\tx"} {
			check(strings.Repeat("x", 4080+p) + w)
			check(strings.Repeat("ab ", 1360) + strings.Repeat("y", p) + w)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			if r.IntN(3) == 0 {
				b.WriteString(exactAlphabet[r.IntN(len(exactAlphabet))])
			} else {
				b.WriteByte("abcXY "[r.IntN(6)])
			}
		}
		check(b.String())
	}
}
