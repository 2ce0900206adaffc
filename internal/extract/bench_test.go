package extract

import (
	"testing"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/scholar/scholartest"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

func newTestExtractor(tb testing.TB, mainText bool) *Extractor {
	tb.Helper()
	n, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return New(Options{Resolver: n, MaxLinks: 1000, Token: "acrawler", MainText: mainText},
		func() htmlx.Resolver { return n.PageResolver() })
}

// BenchmarkHTML50K is the whole extraction of a 50 KB HTML page, as the
// crawl and reparse run it: decoding, htmlx parse (text, links, robots),
// main text, language, scholarly metadata and classification, content
// hash and SimHash; the throughput aim leaves it well under 1 ms.
func BenchmarkHTML50K(b *testing.B) {
	for _, bm := range []struct {
		name     string
		mainText bool
	}{{"full", true}, {"no-main-text", false}} {
		b.Run(bm.name, func(b *testing.B) {
			x := newTestExtractor(b, bm.mainText)
			body := scholartest.ArticlePage50K(b)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			start := cputime.Process()
			for b.Loop() {
				r := x.HTML(body, "text/html; charset=utf-8", "https://jwas.example.org/article/view/1287", nil)
				if r.Error != "" || (bm.mainText && r.MainText == "") {
					b.Fatalf("HTML(50 KB page): error %q, %d bytes of main text", r.Error, len(r.MainText))
				}
			}
			cputime.ReportPerOp(b, start)
		})
	}
}

// BenchmarkHTMLUniform is the whole extraction of a page of the uniform
// test web (10 KB, 30 links), the page BenchmarkThroughput crawls.
func BenchmarkHTMLUniform(b *testing.B) {
	x := newTestExtractor(b, true)
	body := testweb.NewUniform(testweb.UniformConfig{}).Page(3, 17)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		r := x.HTML(body, "text/html; charset=utf-8", "http://host-003.test/p/17", nil)
		if r.Error != "" || r.MainText == "" {
			b.Fatalf("HTML(uniform page): error %q, %d bytes of main text", r.Error, len(r.MainText))
		}
	}
	cputime.ReportPerOp(b, start)
}
