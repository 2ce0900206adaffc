package htmlx

import (
	"strings"
	"testing"

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
