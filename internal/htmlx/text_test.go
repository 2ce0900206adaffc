package htmlx

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/cputime"
)

// TestInvisible checks that characters that are not seen, and would split
// words for search, are left out of the text, the title, the h1, the
// description and anchors, while the joiners that shape a script stay.
func TestInvisible(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Infor&shy;mation", "Information"},
		{"Infor\u00admation", "Information"},
		{"Infor&#173;mation", "Information"},
		{"Infor\u200bmation", "Information"},
		{"Infor\u2060mation", "Information"},
		{"Infor\ufeffmation", "Information"},
		{"Infor\u180emation", "Information"},
		{"Infor\u061cmation", "Information"},
		{"\u2068Infor\u2069mation\u2066", "Information"},
		{"Infor\U000e0020mation", "Information"},
		{"Auf\u200clage", "Auflage"},
		{"Auf&zwnj;la&zwj;ge", "Auflage"},
		{"Ab<b>\u200c</b>cd", "Abcd"},
		{"\u200cstart \u200dword", "start word"},
		{"Ελλη\u200cνικά кир\u200dилл", "Ελληνικά кирилл"},
		// The joiners of Persian, Devanagari and emoji stay.
		{"می\u200cخواهم", "می\u200cخواهم"},
		{"क्\u200dष", "क्\u200dष"},
		{"👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},
	}
	for _, tt := range tests {
		for _, wrap := range []string{"<p>%s</p>", "<title>%s</title>", "<h1>%s</h1>", "<a href=/x>%s</a>", "<meta name=description content='%s'>"} {
			if strings.Contains(tt.in, "<") && wrap != "<p>%s</p>" {
				continue // markup: only in an element's content
			}
			in := strings.Replace(wrap, "%s", tt.in, 1)
			doc := mustParse(t, in, Options{})
			var got string
			switch {
			case strings.HasPrefix(wrap, "<title"):
				got = doc.Title
			case strings.HasPrefix(wrap, "<h1"):
				got = doc.H1
			case strings.HasPrefix(wrap, "<a"):
				if len(doc.Links) == 1 {
					got = doc.Links[0].Anchor
				}
			case strings.HasPrefix(wrap, "<meta"):
				got = doc.Description
			default:
				got = doc.Text
			}
			if got != tt.want {
				t.Errorf("Parse(%q) gives %q, want %q", in, got, tt.want)
			}
		}
	}
}

func BenchmarkInvisible(b *testing.B) {
	// A page of German with soft hyphens in its long words, as
	// hyphenation plugins leave it.
	word := "Forschungs&shy;ergebnisse der Sprach&shy;verarbeitung und Informations&shy;extraktion\u200b "
	body := []byte("<p>" + strings.Repeat(word, 2000) + "</p>")
	opts := Options{Resolver: hostResolver{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := Parse(body, pageURL, opts); err != nil {
			b.Fatal(err)
		}
	}
	cputime.ReportPerOp(b, cpu)
}

// TestWriteRuns checks that write, which writes a run of characters at
// once, gives what putting the characters one by one gives (spaces
// collapsed, controls, invisible characters and joiners after Latin
// dropped, invalid bytes replaced), on texts of
// ASCII, spaces, other scripts, joiners, invisible characters and
// invalid bytes.
func TestWriteRuns(t *testing.T) {
	pool := []string{"a", "Z", "!", " ", "  ", "\t", "\n", "\r", "\x01", "\x7f", "é", "ж", "中", "ش", "क", "👨", "\u00a0",
		"\u2003", "\u200b", "\u200c", "\u200d", "\u00ad", "\ufeff", "\u0085", "\xff", "\xe4\xb8", "\xc3"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var sb strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			sb.WriteString(pool[rng.IntN(len(pool))])
		}
		s := []byte(sb.String())
		var whole, one textBuf
		whole.reset(1<<20, 0, true)
		one.reset(1<<20, 0, true)
		whole.write(s)
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRune(s[i:])
			switch c := s[i]; {
			case printable(c):
				one.put(s[i : i+1])
			case c < utf8.RuneSelf:
				if c == ' ' || '\t' <= c && c <= '\r' {
					one.brk(sepSpace)
				}
			case r == utf8.RuneError && size == 1:
				one.put(replacementChar)
			case unicode.IsSpace(r):
				one.brk(sepSpace)
			case invisible(r), (r == 0x200c || r == 0x200d) && (!one.joins || one.sep != sepNone):
			default:
				one.put(s[i : i+size])
			}
			i += size
		}
		if whole.String() != one.String() {
			t.Fatalf("write(%q) = %q; one character at a time: %q", s, whole.String(), one.String())
		}
	}
}

// asciiRunByByte is ASCIIRun's definition, a step at a time from the
// start.
func asciiRunByByte(s []byte) int { return asciiSteps(s, 0) }

// TestASCIIRun holds ASCIIRun's eight-byte steps to the byte-at-a-time
// definition: every string of up to ten bytes over an alphabet of the
// bytes at the edges of each test (space, controls, 0x7f, high bytes),
// then random strings of those and letters, at every offset.
func TestASCIIRun(t *testing.T) {
	alphabet := []byte{' ', 'a', '~', '!', 0x1f, 0x7f, 0x80, 0xff, '\n'}
	var b []byte
	var walk func(n int)
	walk = func(n int) {
		if got, want := ASCIIRun(b), asciiRunByByte(b); got != want {
			t.Fatalf("ASCIIRun(%q) = %d, want %d", b, got, want)
		}
		if n == 0 {
			return
		}
		// All letters beyond the first four bytes keep the walk small
		// while reaching the eight-byte steps.
		letters := alphabet
		if len(b) >= 2 && len(b) < 6 {
			letters = alphabet[:3]
		}
		for _, c := range letters {
			b = append(b, c)
			walk(n - 1)
			b = b[:len(b)-1]
		}
	}
	walk(10)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := rng.IntN(64)
		s := make([]byte, n)
		for i := range s {
			switch r := rng.IntN(20); {
			case r < 4:
				s[i] = ' '
			case r == 4:
				s[i] = alphabet[rng.IntN(len(alphabet))]
			case r == 5:
				s[i] = byte(rng.IntN(256))
			default:
				s[i] = byte('a' + rng.IntN(26))
			}
		}
		for i := range s {
			if got, want := ASCIIRun(s[i:]), asciiRunByByte(s[i:]); got != want {
				t.Fatalf("ASCIIRun(%q) = %d, want %d", s[i:], got, want)
			}
		}
	}
}
