package maintext

import (
	"bytes"
	"os"
	"testing"

	"github.com/acrawler/acrawler/internal/cputime"
)

// articlePage50K returns internal/scholar's journal article page grown to
// about 50 KB with more body paragraphs.
func articlePage50K(b *testing.B) []byte {
	b.Helper()
	page, err := os.ReadFile("../scholar/testdata/journal-article.html")
	if err != nil {
		b.Fatal(err)
	}
	start := bytes.Index(page, []byte(`<section class="item body">`))
	end := bytes.Index(page, []byte(`<section class="item references">`))
	if start < 0 || end < 0 {
		b.Fatal("journal-article.html has no body section")
	}
	var buf bytes.Buffer
	buf.Write(page[:end])
	for buf.Len()+len(page)-end < 50<<10 {
		buf.Write(page[start:end])
	}
	buf.Write(page[end:])
	return buf.Bytes()
}

func BenchmarkExtract50K(b *testing.B) {
	body := articlePage50K(b)
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
	body := bytes.Replace(articlePage50K(b), []byte(`lang="en"`), nil, 1)
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
	res, err := Extract(articlePage50K(b), "", "")
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
