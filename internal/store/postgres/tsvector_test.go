package postgres

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/acrawler/acrawler/internal/query"
)

func TestDocVector(t *testing.T) {
	v := docVector(query.Fold("Zoë — Zoë"), query.Fold("zoe ALPHA-beta x.org zoe"))
	got := map[string]string{}
	for _, l := range v.Lexemes {
		var b strings.Builder
		for _, p := range l.Positions {
			b.WriteString(p.String() + " ")
		}
		got[l.Word] = strings.TrimSpace(b.String())
	}
	want := map[string]string{"zoe": "1A 2A 3C 8C", "alpha": "4C", "beta": "5C", "x": "6C", "org": "7C"}
	if !v.Valid || len(got) != len(want) {
		t.Fatalf("docVector = %v, want %v", got, want)
	}
	for w, ps := range want {
		if got[w] != ps {
			t.Errorf("positions of %q = %q, want %q", w, got[w], ps)
		}
	}
	// The bounds: a word too long is not indexed, a word keeps its first
	// maxPositions, positions stop at maxPosition.
	long := strings.Repeat("y", maxLexeme)
	v = docVector("", long+" "+strings.Repeat("w ", maxPosition+10)+"last")
	for _, l := range v.Lexemes {
		switch l.Word {
		case long:
			t.Errorf("a word of %d bytes is indexed", len(long))
		case "w":
			if len(l.Positions) != maxPositions || l.Positions[0].Position != 1 {
				t.Errorf("w has %d positions from %d, want %d from 1", len(l.Positions), l.Positions[0].Position, maxPositions)
			}
		case "last":
			if len(l.Positions) != 1 || l.Positions[0].Position != maxPosition {
				t.Errorf("last at %v, want %d", l.Positions, maxPosition)
			}
		}
	}
}

// FuzzDocVector: for any title and text, the vector holds exactly the
// words query.Lexemes finds in them (those short enough), sorted and
// distinct, each with increasing positions within the bounds, weighted A
// in the title and C in the text.
func FuzzDocVector(f *testing.F) {
	f.Add("Zoë", "zoe ALPHA-beta x.org zoe")
	f.Add("", "\xff\x00 m² \ue000 a\u0301b")
	f.Fuzz(func(t *testing.T, title, body string) {
		title, body = query.Fold(title), query.Fold(body)
		v := docVector(title, body)
		want := map[string]bool{}
		titleWords := 0 // the positions of the title's words are 1 to titleWords
		for i, text := range []string{title, body} {
			for w := range query.Lexemes(text) {
				if len(w) < maxLexeme {
					want[w] = true
					if i == 0 {
						titleWords++
					}
				}
			}
		}
		if !v.Valid || len(v.Lexemes) != len(want) {
			t.Fatalf("docVector has %d lexemes, want %d", len(v.Lexemes), len(want))
		}
		for i, l := range v.Lexemes {
			if !want[l.Word] || !utf8.ValidString(l.Word) || strings.ContainsRune(l.Word, 0) {
				t.Fatalf("lexeme %q is not a word of the texts", l.Word)
			}
			if i > 0 && v.Lexemes[i-1].Word >= l.Word {
				t.Fatalf("lexemes %q and %q out of order", v.Lexemes[i-1].Word, l.Word)
			}
			if len(l.Positions) == 0 || len(l.Positions) > maxPositions {
				t.Fatalf("lexeme %q has %d positions", l.Word, len(l.Positions))
			}
			for j, p := range l.Positions {
				if p.Position < 1 || p.Position > maxPosition || j > 0 && p.Position <= l.Positions[j-1].Position {
					t.Fatalf("lexeme %q has positions %v", l.Word, l.Positions)
				}
				// Past the last position, title and text share it.
				weight := pgtype.TSVectorWeightC
				switch pos := int(p.Position); {
				case pos == maxPosition && titleWords >= maxPosition:
					weight = p.Weight
				case pos <= titleWords:
					weight = pgtype.TSVectorWeightA
				}
				if p.Weight != weight {
					t.Fatalf("lexeme %q at %d weighs %c, want %c (%d title words)", l.Word, p.Position, p.Weight, weight, titleWords)
				}
			}
		}
		if slices.ContainsFunc(v.Lexemes, func(l pgtype.TSVectorLexeme) bool { return l.Word == "" }) {
			t.Fatal("an empty lexeme")
		}
	})
}

// BenchmarkDocVector: the crawler's cost of a page's vector, for a text
// of about 7 KB (the uniform test web's pages).
func BenchmarkDocVector(b *testing.B) {
	words := strings.Fields("the crawler fetches pages politely and extracts titles authors abstracts and links from each research page of the university")
	var text strings.Builder
	for i := 0; text.Len() < 7000; i++ {
		text.WriteString(words[(i*7)%len(words)])
		text.WriteString(" ")
		if i%13 == 0 {
			text.WriteString("w" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + " ")
		}
	}
	body := query.Fold(text.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		docVector("A study of focused crawling", body)
	}
}
