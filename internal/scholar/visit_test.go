package scholar

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/htmlx"
)

// extractShared reads a page as the crawl does: a Scanner given the
// page's tokens by htmlx.Parse.
func extractShared(t testing.TB, body []byte, pageURL, text string, links []string) *Metadata {
	t.Helper()
	s := NewScanner()
	if _, err := htmlx.Parse(body, pageURL, htmlx.Options{Resolver: resolver, Visitors: []htmlx.Visitor{s}}); err != nil {
		t.Fatal(err)
	}
	return s.Metadata(pageURL, text, links)
}

// TestScannerShared checks that the golden pages give the same metadata
// read in htmlx.Parse's pass as read by Extract's own.
func TestScannerShared(t *testing.T) {
	pages, _ := filepath.Glob("testdata/*.html")
	if len(pages) == 0 {
		t.Fatal("no testdata pages")
	}
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		const pageURL = "https://www.example.org/records/1"
		text, links := parsePage(t, body, pageURL)
		want := Extract(body, pageURL, text, links)
		got := extractShared(t, body, pageURL, text, links)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: shared pass gives %+v, Extract %+v", p, got, want)
		}
		if want.Title == "" && !strings.Contains(p, "publications") {
			t.Errorf("%s: no title: the comparison proves little", p)
		}
	}
}

// A <title> inside inline SVG or MathML names the drawing: it is never
// taken as the page's <title>, whether the page has one or not.
func TestSVGTitleIsNotThePageTitle(t *testing.T) {
	for _, tc := range []struct{ page, want string }{
		{`<html><body><svg><title>Search icon</title><path d="M0"/></svg><p>Text</p></body></html>`, ""},
		{`<html><body><svg><title/></svg><math><title>Formula</title></math><p>Text</p></body></html>`, ""},
		{`<html><head><title>Page</title></head><body><svg><title>Icon</title></svg></body></html>`, "Page"},
		{`<html><body><svg><title>Icon</title></svg></body><title>Late page title</title></html>`, "Late page title"},
	} {
		s := NewScanner()
		if _, err := htmlx.Parse([]byte(tc.page), "http://a.test/", htmlx.Options{Resolver: resolver, Visitors: []htmlx.Visitor{s}}); err != nil {
			t.Fatal(err)
		}
		if got := s.finish().title; got != tc.want {
			t.Errorf("title of %q = %q, want %q", tc.page, got, tc.want)
		}
	}
}
