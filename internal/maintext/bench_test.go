package maintext

import (
	"bytes"
	"testing"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/scholar/scholartest"
)

func BenchmarkExtract50K(b *testing.B) {
	body := scholartest.ArticlePage50K(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		if _, err := Extract(body, "https://jwas.example.org/article/view/1287", ""); err != nil {
			b.Fatal(err)
		}
	}
	cputime.ReportPerOp(b, start)
}

// BenchmarkExtract50KDetect is Extract on a page without a declared
// language, which adds detection.
func BenchmarkExtract50KDetect(b *testing.B) {
	body := bytes.Replace(scholartest.ArticlePage50K(b), []byte(`lang="en"`), nil, 1)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		if _, err := Extract(body, "https://jwas.example.org/article/view/1287", ""); err != nil {
			b.Fatal(err)
		}
	}
	cputime.ReportPerOp(b, start)
}

func BenchmarkDetectLanguage(b *testing.B) {
	res, err := Extract(scholartest.ArticlePage50K(b), "", "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		DetectLanguage(res.Text)
	}
	cputime.ReportPerOp(b, start)
}
