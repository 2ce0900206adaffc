package api_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/api/apitest"
)

// TestBrowser drives headless Chromium through the web pages served on
// 127.0.0.1: a search typed in the box, a facet clicked, and screenshots
// of the search, document and dashboard pages at desktop and phone widths.
func TestBrowser(t *testing.T) {
	t.Parallel() // it waits (for a slot, for the browser) more than it computes
	s, _ := newServer(t)
	srv := httptest.NewServer(s)
	defer srv.Close()

	got := apitest.Browse(t, srv.URL, apitest.Search{Query: "crawling", Want: urlPrint, Facet: "type", Screenshot: "search-desktop.png"})
	t.Logf("results %v; filtered by type %s: %v", got.Results, got.Facet, got.Filtered)
	apitest.Browse(t, srv.URL, apitest.Search{Query: "focused crawling", Want: urlSurvey, Facet: "host", Screenshot: "search-phone.png", Width: 390, Height: 844})

	b := apitest.NewBrowser(t)
	b.Screenshot(srv.URL+"/", "main", "landing-phone.png", 390, 844)
	b.Screenshot(srv.URL+"/dashboard", "main svg", "dashboard-desktop.png", 1280, 900)
	b.Screenshot(srv.URL+"/dashboard", "main svg", "dashboard-phone.png", 390, 844)
	b.Screenshot(srv.URL+"/doc?url="+url.QueryEscape(urlSurvey), "main", "document-desktop.png", 1280, 900)
	b.CheckConsole()
	// A 404 logs its failed load: looked at, not checked.
	b.Screenshot(srv.URL+"/nowhere", "main", "notfound-phone.png", 390, 844)
}

// TestBrowserWorks searches in Chromium: the results are one per work,
// each listing its copies with their kinds and open access marked; the
// Cite menu of a result, and that of the work's page, lead to BibTeX
// (a text that starts with '@').
func TestBrowserWorks(t *testing.T) {
	t.Parallel() // it waits (for a slot, for the browser) more than it computes
	s, _ := newServerFor(t, api.StoreBackend(fill(t, workPages(), nil), 0))
	srv := httptest.NewServer(s)
	defer srv.Close()
	b := apitest.NewBrowser(t)
	b.Viewport(1280, 900)
	b.Load(srv.URL+"/?q=polite", "#total")
	page := b.Main()
	hits := apitest.Find(page, "li", "class", "hit")
	if len(hits) != 5 {
		t.Fatalf("%d results, want 5: 2 works and 3 pages of no work:\n%s", len(hits), apitest.Text(page))
	}
	works := 0
	var kinds []string
	for _, h := range hits {
		if apitest.Attr(h, "data-work") == "" {
			continue
		}
		works++
		for _, c := range apitest.Find(h, "li", "data-kind", "pdf") {
			if !strings.Contains(apitest.Text(c), "open access") {
				t.Errorf("a PDF copy is not marked open access: %s", apitest.Text(c))
			}
		}
		for _, ul := range apitest.Find(h, "ul", "class", "copies") {
			for _, k := range []string{"landing", "pdf", "repository"} {
				for _, c := range apitest.Find(ul, "li", "data-kind", k) {
					kinds = append(kinds, apitest.Text(c))
				}
			}
		}
	}
	if works != 2 || len(kinds) != 5 {
		t.Errorf("%d works with copies %q; want 2 works with 5 copies in all", works, kinds)
	}
	got := b.Follow(`li.hit[data-work] details.cite summary`, `li.hit[data-work] details.cite a[href$="format=bibtex"]`)
	if !strings.HasPrefix(got, "@") {
		t.Errorf("the BibTeX link of a result shows %q, want a record that starts with '@'", got)
	}
	b.Load(srv.URL+"/?q=polite", "#total")
	b.Follow(`li.hit[data-work] h3 a`)
	if got := b.Follow(`details.cite summary`, `details.cite a[href$="format=bibtex"]`); !strings.HasPrefix(got, "@") {
		t.Errorf("the BibTeX link of the work's page shows %q, want a record that starts with '@'", got)
	}
	b.Fit(srv.URL+"/?q=polite", "#total", "works-search-phone.png", 390, 844)
	b.CheckConsole()
}
