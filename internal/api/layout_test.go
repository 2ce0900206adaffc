package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/api/apitest"
	"github.com/acrawler/acrawler/internal/crawl"
)

// Documents of the layout collection: everything as long as pages in the
// wild make it.
var (
	longHost = "https://department-of-computational-linguistics-and-information-science.graduate-school.northfield-university-of-applied-research.example.edu"
	longURL  = longHost + "/repository/bitstream/handle/20.500.12345/67890/" +
		strings.Repeat("Dissertation_Final_Version_Approved_By_Committee_", 4) + "2024.pdf?sequence=1&isAllowed=y&utm_source=" + strings.Repeat("x", 80)
	longDOI   = "10.1000/ISSN.1234-5678.JOURNAL-OF-EXTREMELY-LONG-IDENTIFIERS.2024.VOL-17.ISSUE-3.ARTICLE-000123456789"
	longTitle = "Pneumonoultramicroscopicsilicovolcanoconiosis" + strings.Repeat("AndOtherWordsWithoutSpaces", 6) +
		": a crawling study of " + strings.Repeat("very ", 20) + "long titles"
	linksURL = "https://links.example.org/hub"
)

// longCorpus is a collection whose titles, URLs, DOIs, hosts, authors,
// anchors and link lists are as long as real ones get, over thirty years,
// for the layout tests: a page must fit its window whatever it shows.
func longCorpus() ([]*crawl.Page, map[string][]crawl.Link) {
	pages := []*crawl.Page{
		{URL: longURL, Title: longTitle, Lang: "en",
			MainText: "A thesis about crawling. " + strings.Repeat("Supercalifragilisticexpialidocious", 8) + " ends here.\n\nSee " + longURL + " for the data.",
			Meta: &crawl.Metadata{Type: "thesis", Year: 2024, DOI: longDOI, PDFURL: longURL + "&download=1", Publisher: strings.Repeat("Publisher", 12),
				Venue:    "Proceedings of the " + strings.Repeat("International", 10) + " Conference on Crawling",
				Authors:  []string{"Maximiliane Wolfeschlegelsteinhausenbergerdorff", "Hubert Blaine Wolfeschlegelsteinhausenbergerdorff", "A. N. Other"},
				Abstract: "We crawl. " + strings.Repeat("Antidisestablishmentarianism", 6)}},
		{URL: linksURL, Title: "A hub about crawling with many links", Lang: "en", MainText: "Links about crawling."},
	}
	hosts := []string{longHost, "https://www.example-research-infrastructure-consortium-for-open-scholarly-communication.example.org", "https://x.example"}
	for i := range 30 {
		pages = append(pages, &crawl.Page{
			URL:      fmt.Sprintf("%s/articles/%d/%s", hosts[i%3], i, strings.Repeat("segment-", 8)),
			Title:    fmt.Sprintf("Crawling report %d", i),
			MainText: fmt.Sprintf("Crawling report number %d, with a long word %s.", i, strings.Repeat("z", 90)),
			Lang:     "en",
			Meta:     &crawl.Metadata{Type: []string{"article", "preprint", "proceedings-paper-with-a-long-type"}[i%3], Year: 1995 + i, DOI: fmt.Sprintf("%s.%d", longDOI, i)},
		})
	}
	// A work of two copies, a landing page and its PDF, with long URLs.
	workURL := longHost + "/journal/article/view/" + strings.Repeat("volume-seventeen-", 6) + "123456"
	workMeta := crawl.Metadata{Title: longTitle, Authors: []string{strings.Repeat("Bartholomew", 4) + " Featherstonehaugh-Cholmondeley"},
		Year: 2024, DOI: longDOI + ".W", PDFURL: workURL + "/download.pdf", Type: "article", Sources: []string{"highwire"}}
	pdfMeta := workMeta
	pdfMeta.PDFURL, pdfMeta.Sources = "", nil
	pages = append(pages,
		&crawl.Page{URL: workURL, Title: longTitle, Lang: "en", MainText: "A crawling study, its landing page.", Meta: &workMeta},
		&crawl.Page{URL: workURL + "/download.pdf", ContentType: "application/pdf", Title: longTitle, MainText: "A crawling study, its PDF.", Meta: &pdfMeta})
	links := map[string][]crawl.Link{}
	for _, p := range pages[2:] {
		links[linksURL] = append(links[linksURL], crawl.Link{TargetID: crawl.URLID(p.URL), Target: p.URL, Anchor: p.Title + " " + strings.Repeat("ANCHOR", 15)})
		links[p.URL] = append(links[p.URL], crawl.Link{TargetID: crawl.URLID(longURL), Target: longURL, Anchor: strings.Repeat("Anchorwithoutspaces", 6)})
	}
	links[longURL] = append(links[longURL], crawl.Link{TargetID: crawl.URLID(linksURL), Target: linksURL, Anchor: "the hub"},
		crawl.Link{TargetID: crawl.URLID(longURL + "#x"), Target: longURL + "/unfetched/" + strings.Repeat("deeper-", 20), NoFollow: true})
	return pages, links
}

// TestLayoutFits loads every kind of page, with the layout collection's
// long titles, URLs and DOIs, in Chromium at a 390 px phone and a 1280 px
// desktop with scrollbars shown, and checks that none scrolls sideways or
// has a part cut off at the right edge. The screenshots are kept (see
// apitest.ArtifactDir).
func TestLayoutFits(t *testing.T) {
	t.Parallel() // it waits (for a slot, for the browser) more than it computes
	pages, links := longCorpus()
	s, _ := newServerFor(t, failingSearchFor("broken", fill(t, pages, links)))
	srv := httptest.NewServer(s)
	defer srv.Close()

	doc := func(u string) string { return "/doc?url=" + url.QueryEscape(u) }
	browser := apitest.NewBrowser(t) // one for the pages, one page at a time
	for _, p := range []struct{ name, path, sel string }{
		{"landing", "/", "main"},
		{"results", "/?q=crawling", "#total"},
		{"results-filtered", "/?q=crawling&type=thesis&host=" + url.QueryEscape(longHost), "ul.chips"},
		{"results-page2", "/?q=crawling&limit=5&offset=10", "#total"},
		{"results-works", "/?q=study", "li.hit[data-work] .copies"},
		{"results-by-page", "/?q=crawling&group=page", "#total"},
		{"work", "/works/1?format=html", "article.work"},
		{"no-results", "/?q=" + url.QueryEscape(strings.Repeat("nothingmatches", 30)), ".empty"},
		{"document", doc(longURL), "article"},
		{"document-links", doc(linksURL), "article"},
		{"dashboard", "/dashboard", "main svg"},
		{"bad-request", "/?limit=" + strings.Repeat("9", 200), ".problem"},
		{"not-found", doc(longURL + "/nowhere"), ".error"},
		{"no-page", "/" + strings.Repeat("nowhere/", 40), ".error"},
		{"internal-error", "/?q=broken", ".error"},
	} {
		t.Run(p.name, func(t *testing.T) {
			b := browser.For(t)
			for _, size := range []struct {
				name          string
				width, height int
			}{{"phone", 390, 844}, {"desktop", 1280, 900}} {
				w := b.Fit(srv.URL+p.path, p.sel, "layout-"+p.name+"-"+size.name+".png", size.width, size.height)
				t.Logf("%s at %d px: scrollWidth %d, innerWidth %d, clientWidth %d", p.name, size.width, w.Scroll, w.Window, w.Client)
			}
		})
	}
}

// failingSearchFor serves st, but a search for q fails as a broken
// backend does: an internal error.
func failingSearchFor(q string, st crawl.Store) api.Backend {
	return failingQuery{Backend: api.StoreBackend(st, 0), WorkStore: st.(crawl.WorkStore), q: q}
}

type failingQuery struct {
	api.Backend
	crawl.WorkStore
	q string
}

func (f failingQuery) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	if r.Query == f.q {
		return crawl.SearchResult{}, errors.New("disk on fire")
	}
	return f.Backend.Search(ctx, r)
}
