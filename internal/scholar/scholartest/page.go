// Package scholartest provides the test pages of the scholarly-metadata
// benchmarks to the packages that measure the same page (scholar,
// maintext, extract).
package scholartest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// ArticlePage50K returns internal/scholar's journal article page
// (testdata/journal-article.html) grown to about 50 KB with more body
// paragraphs.
func ArticlePage50K(tb testing.TB) []byte {
	tb.Helper()
	_, here, _, _ := runtime.Caller(0)
	name := filepath.Join(filepath.Dir(here), "..", "testdata", "journal-article.html")
	page, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	start := bytes.Index(page, []byte(`<section class="item body">`))
	end := bytes.Index(page, []byte(`<section class="item references">`))
	if start < 0 || end < 0 {
		tb.Fatalf("%s has no body section", name)
	}
	var buf bytes.Buffer
	buf.Write(page[:end])
	for buf.Len()+len(page)-end < 50<<10 {
		buf.Write(page[start:end])
	}
	buf.Write(page[end:])
	return buf.Bytes()
}
