package score

import (
	"strings"
	"testing"
	"time"
)

func TestScoreSignals(t *testing.T) {
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url, anchor string
		depth       int
		want        int
	}{
		{"http://a.test/", "", 0, 0},
		// An avoided page ranks below a plain page even on a host valued
		// for its research (up to about +16 above a host not known): a
		// research site's news are no research.
		{"http://a.test/about", "About us", 1, -2 - 16}, // site furniture
		{"http://a.test/haberler/2024/05/yeni-bir-sey", "", 1, -2 - 16},
		{"http://a.test/2024/05/notes-on-crawling/", "", 1, -2 - 16}, // a dated post
		{"http://a.test/2024/13/x", "", 1, -2},                       // no month
		{"http://a.test/issues/2024/5", "", 1, -2},                   // no date
		{"http://a.test/publications/news/", "", 1, 3 + 6 - 2 - 16},
		{"http://a.test/research/", "", 1, 3 - 2},
		{"http://a.test/x", "Research publications", 1, 2*2 - 2},
		{"http://a.test/publications/paper-1", "", 2, 2*3 + 6 - 4},
		{"http://a.test/node/12", "About us", 1, -2 - 16}, // a menu's entry names it
		{"http://a.test/node/13", "Über-Uns", 1, -2 - 16},
		{"http://a.test/node/14", "HAKKIMIZDA", 1, -2 - 16},
		{"http://a.test/node/15", " Actualités ", 1, -2 - 16},
		{"http://a.test/news/", "News", 1, -2 - 16},                        // once
		{"http://a.test/node/16", "About the news of research", 1, -2 + 2}, // a title
		{"http://a.test/files/x.PDF", "", 2, 6 - 8 - 4},                    // a file: after its landing page
		{"http://a.test/bitstream/123/456/1/x", "", 2, 6 - 8 - 4},
		{"http://a.test/arastirma/yayinlar", "Araştırma Yayınları", 1, 2*3 + 2*2 - 2},
		{"http://a.test/ara%C5%9Ft%C4%B1rma/", "", 1, 3 - 2},
		{"http://a.test/publicaciones/", "", 1, 3 + 6 - 2},
		{"http://a.test/handle/123/456", "", 1, 6 - 2}, // a repository record
		{"http://a.test/forschung/publikationen", "", 1, 2*3 - 2},
		{"http://a.test/label/syllabus", "doing", 1, -2}, // no word inside a longer token
		{"http://a.test/labs/doi/10.1/x", "", 1, 2*3 + 6 - 2},
		{"http://a.test/research/research/research", "", 0, 3}, // a word counts once
		{"http://a.test/paper/thesis/journal/article/lab", "", 0, 3*3 + 6},
	}
	for _, tt := range tests {
		if got := p.Score(tt.url, tt.anchor, tt.depth); got != tt.want {
			t.Errorf("Score(%q, %q, %d) = %d, want %d", tt.url, tt.anchor, tt.depth, got, tt.want)
		}
	}
}

// TestContext: a page's links to its own host gain from the page's path:
// a publication listing's links rank higher, a news listing's or a dated
// post's lower, a plain page's as they are; bfs ignores it.
func TestContext(t *testing.T) {
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		page string
		want int
	}{
		{"http://a.test/publications/?page=2", 3},
		{"http://a.test/yayinlar/", 3},
		{"http://a.test/handle/123/4", 3},
		{"http://a.test/news/", -8},
		{"http://a.test/2024/05/a-post/", -8},
		{"http://a.test/", 0},
		{"http://a.test/node/12", 0},
		{"http://a.test", 0},
		{"http://publications.test/", 0}, // the host says nothing of the page
	} {
		if got := p.Context(tt.page); got != tt.want {
			t.Errorf("Context(%q) = %d, want %d", tt.page, got, tt.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Order = OrderBFS
	bfs, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := bfs.Context("http://a.test/publications/"); got != 0 {
		t.Errorf("bfs: Context = %d, want 0", got)
	}
}

func TestOrders(t *testing.T) {
	for _, o := range []Order{OrderBFS, OrderDFS} {
		cfg := DefaultConfig()
		cfg.Order = o
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		shallow, deep := p.Score("http://a.test/research", "paper", 1), p.Score("http://a.test/x", "", 3)
		if (o == OrderBFS) != (shallow > deep) {
			t.Errorf("%s: depth 1 scores %d, depth 3 scores %d", o, shallow, deep)
		}
	}
	if _, err := ParseOrder("random"); err == nil {
		t.Error("ParseOrder(random) succeeded")
	}
}

func TestAcademicSignals(t *testing.T) {
	p, _ := New(DefaultConfig())
	if !p.AcademicSignals("http://a.test/x.pdf", "") || !p.AcademicSignals("http://a.test/x", "Makaleler") {
		t.Error("academic URL or anchor not recognised")
	}
	if p.AcademicSignals("http://shop.test/catalog?sort=price", "Buy now") {
		t.Error("shop URL recognised as academic")
	}
}

func FuzzScore(f *testing.F) {
	f.Add("http://a.test/ara%C5%9F", "Yayınlar", 3)
	f.Add("%", "%C5", 0)
	p, _ := New(DefaultConfig())
	f.Fuzz(func(t *testing.T, url, anchor string, depth int) {
		if depth < 0 || depth > 1000 {
			return
		}
		s := p.Score(url, anchor, depth)
		max := 3*3 + 3*2 + 6
		if s > max || s < -2*depth {
			t.Fatalf("Score = %d out of [%d, %d]", s, -2*depth, max)
		}
	})
}

func BenchmarkScore(b *testing.B) {
	p, _ := New(DefaultConfig())
	urls := []string{
		"https://www.northfield-university.test/publications/2024/deep-crawling-of-academic-web",
		"https://news.city-daily.test/world/story-123?a=1&b=2",
		"https://www.karadeniz-universitesi.test/arastirma/yayinlar/makale-17",
	}
	anchors := []string{"Research publications", "Read more", "Araştırma Yayınları"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Score(urls[i%3], anchors[i%3], 2)
	}
}

// TestScoreTokens covers tokenizing: percent-encoded separators split words
// and do not glue their hex digits to the next one, a token longer than the
// buffer matches nothing, and a word listed twice keeps its own bit.
func TestScoreTokens(t *testing.T) {
	p, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 127)
	tests := []struct {
		url  string
		want int
	}{
		{"http://a.test/my%20research%20paper", 2 * 3},
		{"http://a.test/x/%2Fresearch", 3},
		{"http://a.test/caf%C3%A9%2Dresearch", 3},
		{"http://a.test/" + long + "şresearch", 0},
		{"http://a.test/" + long + "research", 0},
		{"http://a.test/" + long + "/research", 3},
	}
	for _, tt := range tests {
		if got := p.Score(tt.url, "", 0); got != tt.want {
			t.Errorf("Score(%q) = %d, want %d", tt.url, got, tt.want)
		}
	}

	cfg := DefaultConfig()
	cfg.Words = []string{"araştırma", "arastirma", "Research", "research", "paper"}
	p, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Score("http://a.test/research/paper", "", 0); got != 2*3 {
		t.Errorf("with duplicate words, Score(research/paper) = %d, want %d", got, 2*3)
	}
	// Letters that are not folded still match themselves, in any case.
	cfg.Words = []string{"thèse", "Forschungsprojekt"}
	if p, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	if got := p.Score("http://a.test/th%C3%A8ses/", "THÈSE FORSCHUNGSPROJEKT", 0); got != 3+2*2 {
		t.Errorf("Score(thèses, THÈSE ...) = %d, want %d", got, 3+2*2)
	}
	if got := p.Score("http://a.test/thxse/", "thése", 0); got != 0 {
		t.Errorf("Score(thxse, thése) = %d, want 0", got)
	}

	cfg.Words = []string{strings.Repeat("a", 65)}
	if _, err := New(cfg); err == nil {
		t.Error("New accepted a 65-byte topic word")
	}
}

// TestScorePatternsFolded checks that path patterns are matched the way
// Config documents: case-insensitively, Turkish letters folded, also in
// percent-encoded paths, without allocating.
func TestScorePatternsFolded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Words = []string{"zzz"}
	cfg.Patterns = []string{"/yayınlar/", ".PDF", "/café/"}
	cfg.Files = nil
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{
		"http://a.test/yay%C4%B1nlar/1", "http://a.test/YAYINLAR/1", "http://a.test/yayınlar/1",
		"http://a.test/yayinlar/1", "http://a.test/Files/A.Pdf", "http://a.test/CAF%C3%89/",
	} {
		if got := p.Score(url, "", 0); got != 6 {
			t.Errorf("Score(%q) = %d, want the pattern bonus 6", url, got)
		}
		if !p.AcademicSignals(url, "") {
			t.Errorf("AcademicSignals(%q) = false", url)
		}
		if a := testing.AllocsPerRun(10, func() { p.Score(url, "Über uns", 1) }); a != 0 {
			t.Errorf("Score(%q) allocates %v times", url, a)
		}
	}
	for _, url := range []string{"http://a.test/yayin/1", "http://a.test/cafe/", "http://a.test/x.pd"} {
		if got := p.Score(url, "", 0); got != 0 {
			t.Errorf("Score(%q) = %d, want 0", url, got)
		}
	}
}

func TestLastModBonus(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, days := range []int{30, 400, 200_000, 1 << 40} {
		cfg := DefaultConfig()
		cfg.RecentDays = days
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.LastModBonus(now.Add(-24*time.Hour), now); got != cfg.RecentBonus {
			t.Errorf("RecentDays %d: LastModBonus(a day ago) = %d, want %d", days, got, cfg.RecentBonus)
		}
	}
}
