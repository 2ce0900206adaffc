package scholar

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// testwebPage fetches a page of the synthetic web and returns what Extract
// takes: the UTF-8 body, its visible text and its links.
func testwebPage(t testing.TB, w *testweb.Web, u string) (body []byte, text string, links []string) {
	t.Helper()
	rec := httptest.NewRecorder()
	w.ServeHTTP(rec, httptest.NewRequest("GET", u, nil))
	body, _, err := htmlx.Decode(rec.Body.Bytes(), rec.Header().Get("Content-Type"))
	if err != nil {
		t.Fatalf("Decode %s: %v", u, err)
	}
	n, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := htmlx.Parse(body, u, htmlx.Options{Resolver: n})
	if err != nil {
		t.Fatalf("Parse %s: %v", u, err)
	}
	for _, l := range doc.Links {
		links = append(links, l.URL)
	}
	return body, doc.Text, links
}

// TestTestweb checks Extract against the ground truth of the synthetic web:
// every publication page's citation, and the kind of every academic page.
func TestTestweb(t *testing.T) {
	w := testweb.New(testweb.Config{Seed: 1})
	counts := map[string]int{}
	wrong := map[string]int{}
	for _, p := range w.Pages() {
		if p.Status != 200 || !strings.HasPrefix(p.ContentType, "text/html") {
			continue
		}
		want := map[string][]string{
			"publication": {TypeArticle, TypeThesis, TypeProceedings, TypePreprint, TypeBook},
			"person":      {TypePerson},
			"listing":     {TypeListing, TypeNews, TypeOther},
			"news":        {TypeNews},
			"home":        {TypeOther, TypeNews},
			"product":     {TypeOther},
		}[p.Kind]
		if want == nil {
			continue
		}
		body, text, links := testwebPage(t, w, p.URL)
		md := Extract(body, p.URL, text, links)
		counts[p.Kind+" → "+md.Type+" by "+md.TypeRule]++
		if p.Kind == "listing" && md.Type == TypeOther {
			t.Logf("listing as other: %s %q", p.URL, p.Title)
		}
		if !has(want, md.Type) {
			wrong[p.Kind+" → "+md.Type]++
			t.Errorf("%s (%s): Type = %q (%s), want one of %q", p.URL, p.Kind, md.Type, md.TypeRule, want)
		}
		c := p.Citation
		if c == nil {
			continue
		}
		check := func(field, got, want string) {
			if got != want {
				t.Errorf("%s: %s = %q, want %q", p.URL, field, got, want)
			}
		}
		check("Title", md.Title, c.Title)
		var authors []string // the web repeats some authors; Extract drops exact repeats
		for _, a := range c.Authors {
			authors = appendUnique(authors, a, MaxAuthors)
		}
		check("Authors", strings.Join(md.Authors, "; "), strings.Join(authors, "; "))
		check("Date", md.Date, c.Date)
		check("Venue", md.Venue, c.Venue)
		wantDOI, _ := NormalizeDOI(c.DOI)
		check("DOI", md.DOI, wantDOI)
		check("PDFURL", md.PDFURL, c.PDF)
	}
	for k, n := range counts {
		t.Logf("%4d %s", n, k)
	}
}
