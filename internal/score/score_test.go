package score

import (
	"testing"
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
		{"http://a.test/about", "About us", 1, -2},
		{"http://a.test/research/", "", 1, 3 - 2},
		{"http://a.test/x", "Research publications", 1, 2*2 - 2},
		{"http://a.test/publications/paper-1", "", 2, 2*3 + 6 - 4},
		{"http://a.test/files/x.PDF", "", 2, 6 - 4},
		{"http://a.test/arastirma/yayinlar", "Araştırma Yayınları", 1, 2*3 + 2*2 - 2},
		{"http://a.test/ara%C5%9Ft%C4%B1rma/", "", 1, 3 - 2},
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
