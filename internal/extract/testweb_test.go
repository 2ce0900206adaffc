package extract

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestTestwebTitles checks the recorded titles of the synthetic web's HTML
// pages against its ground truth: a page whose <title> carries the site's
// name ("Deep learning for X | Northfield University") is recorded under
// its own title, and one whose <title> is its own title keeps it.
func TestTestwebTitles(t *testing.T) {
	w := testweb.New(testweb.Config{Seed: 1})
	x := newTestExtractor(t, false)
	var suffixed, stripped, plain, kept int
	for _, p := range w.Pages() {
		if p.Status != 200 || !strings.HasPrefix(p.ContentType, "text/html") || p.Title == "" || p.Kind == "fault" || p.Kind == "trap" {
			continue
		}
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest("GET", p.URL, nil))
		ct := rec.Header().Get("Content-Type")
		r := x.HTML(rec.Body.Bytes(), ct, p.URL, nil)
		utf8, _, err := htmlx.Decode(rec.Body.Bytes(), ct)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := htmlx.Parse(utf8, p.URL, htmlx.Options{Resolver: x.opts.Resolver})
		if err != nil {
			t.Fatal(err)
		}
		raw := doc.Title
		if raw == p.Title {
			plain++
			if r.Title == p.Title {
				kept++
			} else {
				t.Errorf("%s: title %q recorded as %q", p.URL, raw, r.Title)
			}
			continue
		}
		if !strings.HasPrefix(raw, p.Title) {
			continue // not a title the ground truth names
		}
		suffixed++
		if r.Title == p.Title {
			stripped++
		} else if testing.Verbose() {
			t.Logf("%s: title %q recorded as %q, want %q", p.URL, raw, r.Title, p.Title)
		}
	}
	t.Logf("%d of %d titles with the site's name recorded without it; %d of %d plain titles kept", stripped, suffixed, kept, plain)
	if suffixed < 100 || stripped*100 < suffixed*90 {
		t.Errorf("%d of %d titles with the site's name recorded without it, want at least 90%%", stripped, suffixed)
	}
}
