package crawl

import (
	"strings"
	"testing"
	"unicode"
)

func TestHighlighted(t *testing.T) {
	for _, tc := range []struct {
		in    string
		text  string
		words []string
	}{
		{"", "", nil},
		{"plain  text\n here ", "plain text here", nil},
		{"a \x01word\x02 & <b>", "a word & <b>", []string{"word"}},
		{"\x01Zoë\x02\x01 Keating\x02", "Zoë Keating", []string{"Zoë", "Keating"}},
		{"x \x01\x02 y", "x y", nil},                   // empty match
		{"x \x01open", "x open", nil},                  // unclosed
		{"x close\x02 y", "x close y", nil},            // close without open
		{"\x01a\x01b\x02c\x02", "abc", []string{"ab"}}, // marker inside a match
		{"  \x01 lead\x02", "lead", []string{"lead"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			text, marks := Highlighted(tc.in, "\x01", "\x02")
			if text != tc.text || strings.Join(Marked(text, marks), "|") != strings.Join(tc.words, "|") {
				t.Errorf("Highlighted(%q) = %q, %v (%q), want %q, %q", tc.in, text, marks, Marked(text, marks), tc.text, tc.words)
			}
		})
	}
}

// FuzzHighlighted: the text holds no marker and no run of white space, the
// marks are ordered ranges of it, and without markers the input's words
// are the text's.
func FuzzHighlighted(f *testing.F) {
	for _, s := range []string{"a \x01b\x02 c", "\x01\x01x\x02\x02", "é\x01 \x02ü", "\x02\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, marks := Highlighted(s, "\x01", "\x02")
		if strings.ContainsAny(text, "\x01\x02") || strings.Contains(text, "  ") || strings.TrimFunc(text, unicode.IsSpace) != text {
			t.Fatalf("Highlighted(%q) = %q: markers or loose white space left", s, text)
		}
		end := 0
		for _, m := range marks {
			if m[0] < end || m[1] <= m[0] || m[1] > len(text) {
				t.Fatalf("Highlighted(%q) = %q, %v: mark %v is not an ordered range", s, text, marks, m)
			}
			end = m[1]
		}
		plain := strings.NewReplacer("\x01", "", "\x02", "").Replace(s)
		if got, want := strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(plain), " "); got != want && !strings.ContainsAny(s, "\x01\x02") {
			t.Fatalf("Highlighted(%q) = %q, want the words %q", s, got, want)
		}
	})
}
