package extract

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"github.com/acrawler/acrawler/internal/fingerprint"
	"github.com/acrawler/acrawler/internal/maintext"
	"github.com/acrawler/acrawler/internal/pdf"
	"github.com/acrawler/acrawler/internal/scholar"
)

// TestHTMLOnePass checks that the page's one pass of the tokenizer, shared
// by htmlx, scholar and maintext, gives what each package gives reading
// the page on its own, on the golden pages of internal/scholar.
func TestHTMLOnePass(t *testing.T) {
	pages, _ := filepath.Glob("../scholar/testdata/*.html")
	if len(pages) < 5 {
		t.Fatalf("%d testdata pages", len(pages))
	}
	x := newTestExtractor(t, true)
	plain := newTestExtractor(t, false)
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		const pageURL = "https://www.example.org/records/1"
		r := x.HTML(body, "text/html; charset=utf-8", pageURL, nil)
		if r.Error != "" || r.Text == "" {
			t.Fatalf("%s: error %q, %d bytes of text", p, r.Error, len(r.Text))
		}
		mt, err := maintext.Extract(body, pageURL, "")
		if err != nil || r.MainText != mt.Text || r.MainText == "" {
			t.Errorf("%s: main text %.80q, maintext.Extract gives %.80q, %v", p, r.MainText, mt.Text, err)
		}
		links := make([]string, len(r.Links))
		for i, l := range r.Links {
			links[i] = l.URL
		}
		sm := scholar.Extract(body, pageURL, r.Text, links)
		sm.Type, sm.TypeRule = scholar.Classify(sm, pageURL, r.Title, r.Text)
		if want := fromScholar(sm); !reflect.DeepEqual(r.Meta, want) {
			t.Errorf("%s: metadata %+v, scholar.Extract gives %+v", p, r.Meta, want)
		}
		if !bytes.Equal(r.ContentHash, fingerprint.Exact(r.Text)) || r.SimHash != fingerprint.SimHash(r.MainText) {
			t.Errorf("%s: fingerprints not those of the text and main text", p)
		}
		// Without main text, the rest is the same.
		r2 := plain.HTML(body, "text/html; charset=utf-8", pageURL, nil)
		if r2.MainText != "" || r2.Text != r.Text || !reflect.DeepEqual(r2.Meta, r.Meta) || r2.SimHash != fingerprint.SimHash(r.Text) {
			t.Errorf("%s: without main text: main text %q, text or metadata differ", p, r2.MainText)
		}
	}
}

// TestHTMLLegacyEncoding checks that a page in windows-1254 is decoded
// once, for all of the extraction.
func TestHTMLLegacyEncoding(t *testing.T) {
	page, err := os.ReadFile("../scholar/testdata/turkish-article.html")
	if err != nil {
		t.Fatal(err)
	}
	page = bytes.Replace(page, []byte(`charset="utf-8"`), []byte(`charset="windows-1254"`), 1)
	enc, err := charmap.Windows1254.NewEncoder().Bytes(page)
	if err != nil {
		t.Fatal(err)
	}
	x := newTestExtractor(t, true)
	r := x.HTML(enc, "text/html; charset=windows-1254", "https://dergi.karadeniz-uni.example/tr/pub/ksbd/makale/103344", nil)
	want := "Üniversitelerin web sitelerinde yayımlanan duyurular"
	if !bytes.Contains([]byte(r.MainText), []byte(want)) || r.Lang != "tr" || r.Meta == nil || r.Meta.Title == "" {
		t.Errorf("windows-1254 page: lang %q, title %q, main text %.120q; want %q in it", r.Lang, r.Meta.Title, r.MainText, want)
	}
}

// pdfText is a PDF extractor that reads every document as the same text.
type pdfText string

func (p pdfText) Extract(context.Context, []byte) (*pdf.Document, error) {
	return &pdf.Document{Text: string(p)}, nil
}

// A PDF says noindex or nofollow only through X-Robots-Tag: PDF applies
// it, for the crawl and for reparse alike.
func TestPDFRobotsHeader(t *testing.T) {
	x := newTestExtractor(t, false)
	x.opts.PDF = pdfText("a paper")
	for _, tc := range []struct {
		header            http.Header
		noIndex, noFollow bool
	}{
		{nil, false, false},
		{http.Header{"X-Robots-Tag": {"noindex"}}, true, false},
		{http.Header{"X-Robots-Tag": {"otherbot: nofollow", "acrawler: noindex, nofollow"}}, true, true},
		{http.Header{"X-Robots-Tag": {"otherbot: noindex"}}, false, false},
	} {
		r := x.PDF(context.Background(), []byte("%PDF-1.7"), "https://example.org/a.pdf", tc.header)
		if r.Text != "a paper" || r.NoIndex != tc.noIndex || r.NoFollow != tc.noFollow {
			t.Errorf("PDF with %v: text %q, noindex %v, nofollow %v; want %v, %v", tc.header, r.Text, r.NoIndex, r.NoFollow, tc.noIndex, tc.noFollow)
		}
	}
}

// A page with little text gets main text like any other: what maintext
// finds, or all of its visible text when it finds nothing.
func TestHTMLShortPageMainText(t *testing.T) {
	x := newTestExtractor(t, true)
	for _, tc := range []struct{ name, page, want string }{
		{"paragraph", `<html><head><title>Contact</title></head><body><nav><a href="/">Home</a></nav><h1>Contact</h1><p>Write to the office at office@example.org.</p></body></html>`, "Write to the office at office@example.org."},
		{"only a heading", `<html><body><h1>Seminar moved to room 204</h1></body></html>`, "Seminar moved to room 204"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := x.HTML([]byte(tc.page), "text/html; charset=utf-8", "https://www.example.org/contact", nil)
			if len(r.Text) >= shortText {
				t.Fatalf("text of %d bytes, want a short page", len(r.Text))
			}
			if !strings.Contains(r.MainText, tc.want) {
				t.Errorf("HTML(%s): main text %q, want it to hold %q (text %q)", tc.name, r.MainText, tc.want, r.Text)
			}
		})
	}
}

// A page with more markup than the parser reads is kept with its text so
// far, and says it was cut.
func TestHTMLTruncatedPage(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>Long list</title></head><body><p>The start of a very long page.</p>")
	for b.Len() < 3<<20 {
		b.WriteString("<i>a</i>")
	}
	b.WriteString("<p>The end, never read.</p></body></html>")
	x := newTestExtractor(t, true)
	r := x.HTML([]byte(b.String()), "text/html; charset=utf-8", "http://a.test/long", nil)
	if r.ErrorKind != "html truncated" || r.Error == "" {
		t.Errorf("error of a page past the token limit = %q (%q), want kind html truncated", r.Error, r.ErrorKind)
	}
	if !strings.Contains(r.Text, "The start of a very long page.") || strings.Contains(r.Text, "never read") {
		t.Errorf("text of a cut page: %.80q ... %.80q", r.Text, r.Text[max(0, len(r.Text)-80):])
	}
	short := x.HTML([]byte("<p>A short page.</p>"), "text/html", "http://a.test/short", nil)
	if short.Error != "" {
		t.Errorf("error of a short page = %q", short.Error)
	}
}
