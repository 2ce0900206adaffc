package snippet_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/snippet"
)

func newMaker(t testing.TB) *snippet.Maker {
	m, err := snippet.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// longText is about n bytes of words drawn from a small vocabulary, with
// "Zoë Müller" once, near the end.
func longText(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"crawler", "search", "index", "the", "of", "and", "paper", "university", "research", "data"}
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > n*9/10 && !strings.Contains(b.String()[n*9/10:], "Zoë") {
			b.WriteString("a letter from Zoë Müller about it ")
		}
		fmt.Fprintf(&b, "%s%d ", vocab[r.IntN(len(vocab))], r.IntN(500))
	}
	return b.String()
}

// TestOf: the passage holding the query's words, deep in a long text, in
// the page's spelling; the title's words marked in the title's snippet;
// a text the query does not match gets its start, unmarked.
func TestOf(t *testing.T) {
	m := newMaker(t)
	ctx := context.Background()
	body := longText(100_000)
	text, title, err := m.Of(ctx, query.Parse("zoe muller"), "Letters of Zoe Muller", body, "")
	if err != nil {
		t.Fatal(err)
	}
	var h crawl.SearchHit
	h.Title = "Letters of Zoe Muller"
	snippet.Set(&h, text, title)
	if got := crawl.Marked(h.Snippet, h.Marks); !slices.Equal(got, []string{"Zoë", "Müller"}) {
		t.Errorf("snippet %q marks %v, want Zoë and Müller", h.Snippet, got)
	}
	if n := len(strings.Fields(h.Snippet)); n > snippet.Words+1 {
		t.Errorf("snippet of %d words, want at most %d", n, snippet.Words)
	}
	if got := crawl.Marked(h.Title, h.TitleMarks); !slices.Equal(got, []string{"Zoe", "Muller"}) {
		t.Errorf("title %q marks %v, want Zoe and Muller", h.Title, got)
	}
	// A word only the anchors hold matches; the text's start is shown.
	text, _, err = m.Of(ctx, query.Parse("okapi"), "A title", "one two three", "the okapi page")
	if err != nil || text != "one two three" {
		t.Errorf("Of(okapi in the anchors) = %q, %v; want the text unmarked", text, err)
	}
	// Not matched at all: the first words of the text.
	text, title, err = m.Of(ctx, query.Parse("absent"), "A title", body, "")
	if err != nil || strings.Contains(text, snippet.Open) || len(strings.Fields(text)) != snippet.Words || title != "A title" {
		t.Errorf("Of(absent) = %q, %q, %v; want the text's first %d words and the title", text, title, err, snippet.Words)
	}
}

// TestOfCancelled: a snippet whose context ended fails with it, and the
// snippets after it are made as before (its connection, which may hold
// the document, is not reused).
func TestOfCancelled(t *testing.T) {
	m := newMaker(t)
	body := longText(100_000)
	match := query.Parse("zoe")
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := m.Of(ctx, match, "", body, ""); err == nil {
			t.Fatal("Of with an ended context did not fail")
		}
	}
	text, _, err := m.Of(context.Background(), match, "", body, "")
	if err != nil || !strings.Contains(text, snippet.Open+"Zoë"+snippet.Close) {
		t.Errorf("Of after cancelled ones = %q, %v; want Zoë marked", text, err)
	}
}

// BenchmarkOf: a snippet of a 100 KB text, as of a long PDF's: of two
// words found once near its end (rare), and of two prefixes that begin a
// fifth of its words (common), whose instances FTS5's snippet function
// scores each against all the others.
func BenchmarkOf(b *testing.B) {
	m := newMaker(b)
	body := longText(100_000)
	for _, c := range []struct{ name, q string }{{"rare", "zoe muller"}, {"common", "the* data*"}} {
		b.Run(c.name, func(b *testing.B) {
			q := query.Parse(c.q)
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, _, err := m.Of(context.Background(), q, "A title", body, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzOf: any query and texts give snippets without an error, of at most
// Words words (and an ellipsis), in valid UTF-8 when the texts are, with
// marks inside the snippet, in order and apart.
func FuzzOf(f *testing.F) {
	f.Add("zoe muller", "Letters of Zoe Muller", "a letter from Zoë Müller about it", "")
	f.Add(`"exact phrase" -not OR site:a.test ti:word`, "A title", "an exact phrase here", "the okapi page")
	f.Add(`NEAR(a b) "unterminated * ^ :`, "\x01\x02", "\x01 word \x02 \xff\xfe word", "word")
	f.Add("r*", "", strings.Repeat("research ", 300), "")
	m := newMaker(f)
	f.Fuzz(func(t *testing.T, q, title, body, anchors string) {
		if len(q) > 1000 || len(title) > 1000 || len(body) > 64<<10 || len(anchors) > 4000 {
			return
		}
		text, tsnip, err := m.Of(context.Background(), query.Parse(q), title, body, anchors)
		if err != nil {
			t.Fatalf("Of(%q): %v", q, err)
		}
		h := crawl.SearchHit{Title: title}
		snippet.Set(&h, text, tsnip)
		if n := len(strings.Fields(h.Snippet)); n > snippet.Words+2 {
			t.Errorf("snippet of %d words: %q", n, h.Snippet)
		}
		if utf8.ValidString(title) && utf8.ValidString(body) && !utf8.ValidString(h.Snippet) {
			t.Errorf("snippet not UTF-8: %q", h.Snippet)
		}
		for _, marks := range []struct {
			s     string
			marks [][2]int
		}{{h.Snippet, h.Marks}, {h.Title, h.TitleMarks}} {
			end := 0
			for _, mk := range marks.marks {
				if mk[0] < end || mk[1] <= mk[0] || mk[1] > len(marks.s) {
					t.Fatalf("marks %v of %q", marks.marks, marks.s)
				}
				end = mk[1]
			}
		}
	})
}
