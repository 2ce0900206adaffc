package score

import (
	"fmt"
	"testing"
)

// scoreCase is a URL as the crawler scores it: with the anchor of the link
// it was found by ("" for a seed) and its depth.
type scoreCase struct {
	url, anchor string
	depth       int
}

// seedCases are URLs shaped like a large seed list's: a host each, a plain
// path with no topic word, no anchor, depth 0.
func seedCases(n int) []scoreCase {
	cs := make([]scoreCase, n)
	for i := range cs {
		cs[i] = scoreCase{url: fmt.Sprintf("http://www.inst%06d.edu/dept-%d/abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq/page-%d.html", i*7919%1000000, i%10, i)}
	}
	return cs
}

// linkCases are links found on academic and other pages: topic words,
// publication and avoided paths, dates, files, percent-encoded and
// non-ASCII paths, with and without anchors.
var linkCases = []scoreCase{
	{"https://www.cs.northfield-university.test/publications/", "Publications", 1},
	{"https://www.cs.northfield-university.test/people/jane-doe/", "Jane Doe", 1},
	{"https://www.cs.northfield-university.test/news/2024/05/new-lab-opens", "New lab opens", 2},
	{"https://www.cs.northfield-university.test/research/groups/machine-learning", "Machine learning", 1},
	{"https://www.cs.northfield-university.test/publications/2023/deep-crawling-of-the-academic-web.pdf", "PDF", 2},
	{"https://www.cs.northfield-university.test/about/", "About us", 1},
	{"https://www.cs.northfield-university.test/events/seminar-series?year=2024", "Events", 1},
	{"https://arxiv.test/abs/2405.01234", "arXiv:2405.01234", 2},
	{"https://repository.test/bitstream/handle/11234/5678/thesis.pdf?sequence=1&isAllowed=y", "Download", 3},
	{"https://repository.test/handle/11234/5678", "Deep crawling of the academic web: a survey", 2},
	{"https://dergipark.test/tr/pub/makale/123456", "Makale", 2},
	{"https://www.karadeniz-universitesi.test/arastirma/yayinlar/makale-17", "Araştırma Yayınları", 1},
	{"https://www.universite.test/%C3%BCniversite/ara%C5%9Ft%C4%B1rma/yay%C4%B1nlar/", "", 1},
	{"https://www.universite.test/hakk%C4%B1m%C4%B1zda", "Hakkımızda", 1},
	{"https://www.uni-beispiel.test/forschung/publikationen/", "Publikationen", 1},
	{"https://www.uni-beispiel.test/über-uns/kontakt", "Über uns", 1},
	{"https://www.univ-exemple.test/actualités/événements/", "Événements", 1},
	{"https://www.univ-exemple.test/recherche/th%C3%A8ses", "Thèses", 2},
	{"https://www.uni-ejemplo.test/investigacion/publicaciones?page=2", "Siguiente »", 2},
	{"https://shop.example.test/products/12345?color=red&size=m", "Buy now", 1},
	{"https://blog.example.test/?p=1234", "Read more", 2},
	{"https://www.example.test/tag/science/page/2", "2", 3},
	{"https://www.example.test/", "Home", 1},
	{"https://cdn.example.test/assets/img/logo-2x.png", "", 1},
	{"https://journal.test/doi/10.1145/3589334.3645701", "https://doi.org/10.1145/3589334.3645701", 2},
	{"https://journal.test/article/view/4567/8910", "", 2},
	{"https://www.lab.test/~jdoe/papers/icml24.pdf", "[pdf]", 3},
	{"https://www.lab.test/~jdoe/", "", 2},
}

// BenchmarkScoreMix scores seed-shaped URLs and academic links under the
// default policy.
func BenchmarkScoreMix(b *testing.B) {
	p, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name  string
		cases []scoreCase
	}{{"seeds", seedCases(64)}, {"links", linkCases}} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				c := bm.cases[i%len(bm.cases)]
				p.Score(c.url, c.anchor, c.depth)
			}
		})
	}
}

// fuzzConfigs are the policies FuzzScoreReference compares under: the
// default one, and patterns, words and anchors of other shapes (starting
// with a letter or a digit, beyond ASCII, upper case, a single byte).
func fuzzConfigs() []Config {
	custom := DefaultConfig()
	custom.Words = []string{"thèse", "Forschungsprojekt", "a", "x1", "ÇALIŞMA", "日本語", "doi"}
	custom.Patterns = []string{"/yayınlar/", ".PDF", "/café/", "abs", "2024", "ü", "%", "日本", "ß", "\u212a", "i\u0307"}
	custom.Avoid = []string{"News", "é", "/", "?", "İ", "ev"}
	custom.AvoidAnchors = []string{"Ana Sayfa", "x", "ÉVÉNEMENTS"}
	custom.Files = []string{"pdf", "Ş", "/bitstream/", ".Tar.GZ"}
	custom.PatternBonus, custom.AvoidPenalty, custom.FilePenalty = 7, 11, 5
	none := DefaultConfig()
	none.Patterns, none.Avoid, none.Files, none.AvoidAnchors = nil, nil, nil, nil
	return []Config{DefaultConfig(), custom, none}
}

// FuzzScoreReference checks that Score, Context and AcademicSignals answer
// as the reference code does under fixed policies.
func FuzzScoreReference(f *testing.F) {
	addReferenceSeeds(f)
	var pols []*Policy
	var refs []*refPolicy
	for _, cfg := range fuzzConfigs() {
		p, err := New(cfg)
		if err != nil {
			f.Fatal(err)
		}
		pols, refs = append(pols, p), append(refs, newRefPolicy(p, cfg))
	}
	f.Fuzz(func(t *testing.T, url, anchor string, depth int, _ string) {
		for i, p := range pols {
			compareReference(t, p, refs[i], url, anchor, depth)
		}
	})
}

// FuzzScoreReferencePattern checks the same under the default policy with
// the fuzzed pattern added as a topic word, a path pattern, an avoided
// pattern and anchor, and a file pattern.
func FuzzScoreReferencePattern(f *testing.F) {
	addReferenceSeeds(f)
	f.Fuzz(func(t *testing.T, url, anchor string, depth int, pat string) {
		if pat == "" {
			return
		}
		cfg := DefaultConfig()
		cfg.Words = append(cfg.Words, pat)
		cfg.Patterns = append(cfg.Patterns, pat)
		cfg.Avoid = append(cfg.Avoid, pat)
		cfg.AvoidAnchors = append(cfg.AvoidAnchors, pat)
		cfg.Files = []string{pat}
		p, err := New(cfg)
		if err != nil {
			cfg.Words = cfg.Words[:len(cfg.Words)-1] // the word New refuses
			cfg.AvoidAnchors = cfg.AvoidAnchors[:len(cfg.AvoidAnchors)-1]
			if p, err = New(cfg); err != nil {
				t.Fatalf("New with pattern %q: %v", pat, err)
			}
		}
		compareReference(t, p, newRefPolicy(p, cfg), url, anchor, depth)
	})
}

func addReferenceSeeds(f *testing.F) {
	for _, c := range append(seedCases(2), linkCases...) {
		f.Add(c.url, c.anchor, c.depth, "/publications/")
	}
	f.Add("http://a.test/ara%C5%9F", "Yayınlar", 3, "/arş")
	f.Add("http://a.test/%C4%B0%c5%9f%C3", "%C5", 0, "%c4")
	f.Add("http://a.test/2024/05/x", "", 1, "/2024/")
	f.Add("http://a.test/\xffab\xc5/K", "\xc5\x9f", 1, "\xff")
	f.Add("http://a.test/Caf%C3%A9/x", "About", 2, "é/")
}

func compareReference(t *testing.T, p *Policy, ref *refPolicy, url, anchor string, depth int) {
	t.Helper()
	if got, want := p.Score(url, anchor, depth), ref.refScore(url, anchor, depth); got != want {
		t.Errorf("Score(%q, %q, %d) = %d, the reference %d", url, anchor, depth, got, want)
	}
	if got, want := p.Context(url), ref.refContext(url); got != want {
		t.Errorf("Context(%q) = %d, the reference %d", url, got, want)
	}
	if got, want := p.AcademicSignals(url, anchor), ref.refAcademicSignals(url, anchor); got != want {
		t.Errorf("AcademicSignals(%q, %q) = %v, the reference %v", url, anchor, got, want)
	}
}
