package scholar

import (
	"bytes"
	"os"
	"testing"

	"github.com/acrawler/acrawler/internal/cputime"
)

// articlePage50K returns the journal article page grown to about 50 KB with
// more body paragraphs, with its text and links.
func articlePage50K(b *testing.B) ([]byte, string, []string) {
	b.Helper()
	page, err := os.ReadFile("testdata/journal-article.html")
	if err != nil {
		b.Fatal(err)
	}
	start := bytes.Index(page, []byte(`<section class="item body">`))
	end := bytes.Index(page, []byte(`<section class="item references">`))
	if start < 0 || end < 0 {
		b.Fatal("testdata/journal-article.html has no body section")
	}
	var buf bytes.Buffer
	buf.Write(page[:end])
	for buf.Len()+len(page)-end < 50<<10 {
		buf.Write(page[start:end])
	}
	buf.Write(page[end:])
	body := buf.Bytes()
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
