package scholar

import (
	"testing"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/scholar/scholartest"
)

// articlePage50K returns the 50 KB journal article page, with its text and
// links.
func articlePage50K(b *testing.B) ([]byte, string, []string) {
	b.Helper()
	body := scholartest.ArticlePage50K(b)
	text, links := parsePage(b, body, "https://jwas.example.org/article/view/1287")
	return body, text, links
}

func BenchmarkExtract50K(b *testing.B) {
	body, text, links := articlePage50K(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		Extract(body, "https://jwas.example.org/article/view/1287", text, links)
	}
	cputime.ReportPerOp(b, start)
}

func BenchmarkFindDOIs(b *testing.B) {
	_, text, _ := articlePage50K(b)
	b.SetBytes(int64(len(text)))
	start := cputime.Process()
	for b.Loop() {
		FindDOIs(text)
	}
	cputime.ReportPerOp(b, start)
}
