package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
)

// TestWork serves a work recorded by a real store: its copies (a landing
// page, its PDF, a repository record) joined, as JSON, as a page and as
// BibTeX, RIS and CSL-JSON.
func TestWork(t *testing.T) {
	const landing, pdf = "http://journal.test/article/7", "http://journal.test/article/7.pdf"
	pages := []*crawl.Page{
		{URL: landing, Status: 200, ContentType: "text/html", Title: "Polite Crawling at Scale", Text: "landing", Meta: &crawl.Metadata{
			Title: "Polite Crawling at Scale", Authors: []string{"Jamal Sato", "Ayşe Demir"}, Date: "2020-05-01", Year: 2020,
			Venue: "Journal of Applied Crawling", DOI: "10.5555/jac.7", PDFURL: pdf, Type: "article", Sources: []string{"highwire"}}},
		{URL: pdf, Status: 200, ContentType: "application/pdf", Title: "Polite Crawling at Scale", Text: "pdf", Meta: &crawl.Metadata{
			Title: "Polite Crawling at Scale", Authors: []string{"J. Sato"}, Year: 2020, DOI: "10.5555/jac.7"}},
		{URL: "http://repository.test/handle/1/7", Status: 200, ContentType: "text/html", Title: "Polite crawling at scale", Text: "repo",
			Meta: &crawl.Metadata{Title: "Polite crawling at scale", Authors: []string{"Sato, J."}, Year: 2020, Type: "article",
				Abstract: "We crawl & we are polite.", Sources: []string{"dublincore"}}},
	}
	st := fill(t, pages, nil)
	wk, err := st.WorkOf(context.Background(), crawl.URLID(landing))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServerFor(t, api.StoreBackend(st, 0))
	path := "/works/" + strconv.FormatInt(wk.ID, 10)

	w := get(t, s, path)
	var got crawl.Work
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &got) != nil {
		t.Fatalf("GET %s = %d %s", path, w.Code, w.Body)
	}
	if got.Title != "Polite Crawling at Scale" || len(got.Copies) != 3 || got.DOI != "10.5555/jac.7" || !got.OpenAccess ||
		got.Fields["title"].Source != "citation" || got.Abstract != "We crawl & we are polite." {
		t.Errorf("GET %s: %+v", path, got)
	}
	for format, want := range map[string][]string{
		"html":     {"<h1>Polite Crawling at Scale</h1>", "repository", "open access", "We crawl &amp; we are polite.", "?format=bibtex"},
		"bibtex":   {"@article{sato2020polite,", "doi = {10.5555/jac.7}", "We crawl \\& we are polite."},
		"ris":      {"TY  - JOUR", "AU  - Sato, Jamal", "DO  - 10.5555/jac.7"},
		"csl-json": {`"type": "article-journal"`, `"DOI": "10.5555/jac.7"`},
	} {
		w := get(t, s, path+"?format="+format)
		if w.Code != http.StatusOK {
			t.Errorf("format %s: %d %s", format, w.Code, w.Body)
			continue
		}
		for _, s := range want {
			if !strings.Contains(w.Body.String(), s) {
				t.Errorf("format %s: no %q in\n%s", format, s, w.Body)
			}
		}
	}
	// Search: one result per work, listing its copies; group=page lists
	// the pages.
	type result struct {
		URL  string `json:"url"`
		Work *struct {
			ID     int64            `json:"id"`
			Copies []crawl.WorkCopy `json:"copies"`
		} `json:"work"`
	}
	var res struct{ Results []result }
	for group, want := range map[string]int{"": 1, "work": 1, "page": 3} {
		w := get(t, s, "/search?q=polite&group="+group)
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &res) != nil {
			t.Fatalf("search, group %q: %d %s", group, w.Code, w.Body)
		}
		if len(res.Results) != want {
			t.Errorf("search, group %q: %d results, want %d: %s", group, len(res.Results), want, w.Body)
			continue
		}
		if r := res.Results[0]; group != "page" && (r.Work == nil || r.Work.ID != wk.ID || len(r.Work.Copies) != 3) {
			t.Errorf("search, group %q: result %+v, want work %d with 3 copies", group, r, wk.ID)
		}
	}
	// Search results as citations: one per work.
	for format, marker := range map[string]string{"bibtex": "@article{sato2020polite,", "ris": "TY  - JOUR", "csl-json": `"citation-key"`} {
		w := get(t, s, "/search?q=polite&format="+format)
		if w.Code != http.StatusOK || strings.Count(w.Body.String(), marker) != 1 {
			t.Errorf("search, format %s: %d, %d records (%q), want 1:\n%s", format, w.Code, strings.Count(w.Body.String(), marker), marker, w.Body)
		}
	}
	if w := get(t, s, "/search?q=polite&format=endnote"); w.Code != http.StatusBadRequest {
		t.Errorf("search, format=endnote: %d, want 400", w.Code)
	}
	if w := get(t, s, "/search?q=polite&group=host"); w.Code != http.StatusBadRequest {
		t.Errorf("search, group=host: %d, want 400", w.Code)
	}
	for target, code := range map[string]int{
		"/works/999999":          http.StatusNotFound,
		"/works/x":               http.StatusNotFound,
		path + "?format=endnote": http.StatusBadRequest,
	} {
		if w := get(t, s, target); w.Code != code {
			t.Errorf("GET %s = %d, want %d", target, w.Code, code)
		}
	}
}
