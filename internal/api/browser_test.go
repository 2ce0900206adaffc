package api_test

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/acrawler/acrawler/internal/api/apitest"
)

// TestBrowser drives headless Chromium through the web pages served on
// 127.0.0.1: a search typed in the box, a facet clicked, and screenshots
// of the search, document and dashboard pages at desktop and phone widths.
func TestBrowser(t *testing.T) {
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
