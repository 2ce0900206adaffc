package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// workPages are two papers with several copies each (a landing page, its
// PDF, a repository record; a landing page and its PDF) and three pages
// of no work, all found by "polite".
func workPages() []*crawl.Page {
	const landing, pdf = "http://journal.test/article/7", "http://journal.test/article/7.pdf"
	const landing2, pdf2 = "http://press.test/b/12", "http://press.test/b/12.pdf"
	return []*crawl.Page{
		{URL: landing, Title: "Polite Crawling at Scale", Text: "A polite crawler.", Meta: &crawl.Metadata{
			Title: "Polite Crawling at Scale", Authors: []string{"Jamal Sato", "Ayşe Demir"}, Year: 2020,
			Venue: "Journal of Applied Crawling", DOI: "10.5555/jac.7", PDFURL: pdf, Type: "article", Sources: []string{"highwire"}}},
		{URL: pdf, ContentType: "application/pdf", Title: "Polite Crawling at Scale", Text: "polite polite polite: the paper", Meta: &crawl.Metadata{
			Title: "Polite Crawling at Scale", Authors: []string{"J. Sato"}, Year: 2020, DOI: "10.5555/jac.7"}},
		{URL: "http://repository.test/handle/1/7", Title: "Polite crawling at scale", Text: "polite polite deposit", Meta: &crawl.Metadata{
			Title: "Polite crawling at scale", Authors: []string{"Sato, J."}, Year: 2020, Type: "article", Sources: []string{"dublincore"}}},
		{URL: landing2, Title: "Politeness Budgets for Focused Crawlers", Text: "Being polite costs time.", Meta: &crawl.Metadata{
			Title: "Politeness Budgets for Focused Crawlers", Authors: []string{"Mei Chen"}, Year: 2022, DOI: "10.5555/pb.12", PDFURL: pdf2,
			Type: "article", Sources: []string{"highwire"}}},
		{URL: pdf2, ContentType: "application/pdf", Title: "Politeness Budgets for Focused Crawlers", Text: "polite crawlers, the paper",
			Meta: &crawl.Metadata{Title: "Politeness Budgets for Focused Crawlers", Authors: []string{"M. Chen"}, Year: 2022, DOI: "10.5555/pb.12"}},
		{URL: "http://news.test/1", Title: "Crawlers should be polite", Text: "News about polite crawling.", Meta: &crawl.Metadata{Type: "news", Year: 2022}},
		{URL: "http://journal.test/about", Title: "About the journal", Text: "We are a polite journal."},
		{URL: "http://blog.test/polite", Title: "A polite blog post", Text: "Polite, politer, politest."},
	}
}

// record records pages in a store as a crawl does.
func record(t testing.TB, st crawl.Store, pages []*crawl.Page) {
	t.Helper()
	ctx := context.Background()
	byURL := map[string]*crawl.Page{}
	var add []crawl.NewURL
	for _, p := range pages {
		byURL[p.URL] = p
		add = append(add, newURL(p.URL))
	}
	if _, err := st.AddURLs(ctx, add, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		hs, err := st.ClaimHosts(ctx, "fill", 20, time.Minute, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 {
			return
		}
		var rel []crawl.HostRelease
		for _, h := range hs {
			cs, _, err := st.ClaimURLs(ctx, "fill", h.ID, 500, crawl.Limits{}, fixedNow)
			if err != nil {
				t.Fatal(err)
			}
			var rs []crawl.Result
			for _, c := range cs {
				rs = append(rs, result(c, byURL[c.URL], nil))
			}
			if _, err := st.Commit(ctx, rs, crawl.Limits{}); err != nil {
				t.Fatal(err)
			}
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		if err := st.ReleaseHosts(ctx, "fill", rel); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("the pages were not all claimed")
}

// stores runs f on the work pages recorded in each store backend:
// SQLite, and PostgreSQL when ACRAWLER_TEST_POSTGRES names one.
func stores(t *testing.T, f func(t *testing.T, st crawl.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		record(t, st, workPages())
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), pgtest.SchemaDSN(t), postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		record(t, st, workPages())
		f(t, st)
	})
}

type workResults struct {
	Total   int    `json:"total"`
	Group   string `json:"group"`
	Counts  string `json:"counts"`
	Results []struct {
		URL  string `json:"url"`
		Host string `json:"host"`
		Work *struct {
			ID     int64            `json:"id"`
			Copies []crawl.WorkCopy `json:"copies"`
		} `json:"work"`
	} `json:"results"`
	Facets struct {
		Host map[string]int `json:"host"`
		Type map[string]int `json:"type"`
		Year map[string]int `json:"year"`
	} `json:"facets"`
}

func searchWorks(t *testing.T, h http.Handler, params string) workResults {
	t.Helper()
	w := get(t, h, "/search?"+params)
	var res workResults
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &res) != nil {
		t.Fatalf("GET /search?%s = %d %s", params, w.Code, w.Body)
	}
	return res
}

// pageThrough pages through every result of a search, limit at a time,
// and returns each result's key (its work, or its URL), failing when one
// comes twice or a page is short before the end.
func pageThrough(t *testing.T, h http.Handler, params string, limit int) (keys []string, total int) {
	t.Helper()
	seen := map[string]string{}
	for off := 0; off < 100; off += limit {
		res := searchWorks(t, h, fmt.Sprintf("%s&limit=%d&offset=%d", params, limit, off))
		total = res.Total
		for _, r := range res.Results {
			k := r.URL
			if r.Work != nil {
				k = fmt.Sprint("work ", r.Work.ID)
			}
			if seen[k] != "" {
				t.Errorf("%s: %s shown twice (%s, then %s at offset %d)", params, k, seen[k], r.URL, off)
			}
			seen[k] = r.URL
			keys = append(keys, k)
		}
		if len(res.Results) < limit {
			return keys, total
		}
	}
	t.Fatalf("%s: more than 100 results", params)
	return nil, 0
}

// TestSearchByWork: /search gives one result per work by default, and
// limit counts results: a page holds limit of them however many copies
// each has, paging shows each once, and the total and every facet value
// count what the grouped list and its filtered searches show, on both
// stores. group=page gives the pages.
func TestSearchByWork(t *testing.T) {
	stores(t, func(t *testing.T, st crawl.Store) {
		s, _ := newServerFor(t, api.StoreBackend(st, 0))
		res := searchWorks(t, s, "q=polite&limit=2")
		if res.Group != "work" || res.Counts != "works" || res.Total != 5 || len(res.Results) != 2 {
			t.Fatalf("q=polite&limit=2: group %q, counts %q, total %d, %d results; want works, 5 in all, 2 here",
				res.Group, res.Counts, res.Total, len(res.Results))
		}
		for _, limit := range []int{1, 2, 3, 10} {
			keys, total := pageThrough(t, s, "q=polite", limit)
			if len(keys) != 5 || total != 5 {
				t.Errorf("q=polite, %d at a time: %d results %v, total %d; want 5", limit, len(keys), keys, total)
			}
		}
		copies := 0
		for _, r := range searchWorks(t, s, "q=polite").Results {
			if r.Work != nil {
				copies += len(r.Work.Copies)
			}
		}
		if copies != 5 {
			t.Errorf("the works found list %d copies, want 5", copies)
		}
		// Every facet value counts the results its filter gives.
		check := func(filter string, n int) {
			t.Helper()
			keys, total := pageThrough(t, s, "q=polite&"+filter, 2)
			if len(keys) != n || total != n {
				t.Errorf("facet %s counts %d; filtered by it: %d results, total %d", filter, n, len(keys), total)
			}
		}
		f := res.Facets
		if f.Host["http://journal.test"] != 2 || f.Year["2020"] != 1 || f.Type["article"] != 2 {
			t.Errorf("facets %+v: want journal.test 2 (a work of two copies there and a page), 2020 1, article 2", f)
		}
		for h, n := range f.Host {
			check(url.Values{"host": {h}}.Encode(), n)
		}
		for ty, n := range f.Type {
			check(url.Values{"type": {ty}}.Encode(), n)
		}
		for y, n := range f.Year {
			check("year_from="+y+"&year_to="+y, n)
		}
		byPage := searchWorks(t, s, "q=polite&group=page&limit=20")
		if byPage.Group != "page" || byPage.Counts != "pages" || byPage.Total != 8 || len(byPage.Results) != 8 || byPage.Facets.Host["http://journal.test"] != 3 {
			t.Errorf("group=page: group %q, counts %q, total %d, %d results, host facets %v; want the 8 pages",
				byPage.Group, byPage.Counts, byPage.Total, len(byPage.Results), byPage.Facets.Host)
		}
	})
}

// pagesOnly is an index that cannot group by work, as OpenSearch: it
// answers pages whatever the request asks.
type pagesOnly struct{ crawl.Searcher }

func (p pagesOnly) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	r.ByWork = false
	return p.Searcher.Search(ctx, r)
}

// TestSearchByWorkOnPageIndex: with an index that answers pages, the API
// groups them by work itself, reading page hits in rounds: limit still
// counts works and paging shows each once; the total and the facets
// count pages, and the answer says so.
func TestSearchByWorkOnPageIndex(t *testing.T) {
	st := fill(t, workPages(), nil)
	s, err := api.New(api.Config{Backend: api.StoreBackend(st, 0), Index: pagesOnly{st}})
	if err != nil {
		t.Fatal(err)
	}
	res := searchWorks(t, s, "q=polite&limit=2")
	if res.Group != "work" || res.Counts != "pages" || res.Total != 8 || len(res.Results) != 2 {
		t.Fatalf("q=polite&limit=2: group %q, counts %q, total %d, %d results; want 2 works, 8 pages in all",
			res.Group, res.Counts, res.Total, len(res.Results))
	}
	for _, limit := range []int{1, 2, 3, 10} {
		if keys, _ := pageThrough(t, s, "q=polite", limit); len(keys) != 5 {
			t.Errorf("q=polite, %d at a time: %d results %v, want 5", limit, len(keys), keys)
		}
	}
}

// TestSearchPageByWork: the search page shows one result per work with
// its copies (kind, open access) and a menu to cite it, and links to the
// page's works as citations and to every page.
func TestSearchPageByWork(t *testing.T) {
	s, _ := newServerFor(t, api.StoreBackend(fill(t, workPages(), nil), 0))
	body := get(t, s, "/?q=polite").Body.String()
	if n := strings.Count(body, `class="hit"`); n != 5 {
		t.Errorf("the search page shows %d results, want 5 (2 works, 3 pages)", n)
	}
	for _, want := range []string{`data-work="`, `<li data-kind="pdf"><span class="tag">PDF</span> <span class="tag oa">open access</span>`,
		`<span class="tag">repository record</span>`, `<span class="tag">landing page</span>`, `<summary>Cite</summary>`,
		`?format=bibtex" rel="nofollow">BibTeX</a>`, `?format=ris" rel="nofollow">RIS</a>`, `?format=csl-json" rel="nofollow">CSL-JSON</a>`,
		`Export these results`, `/search?q=polite&amp;format=bibtex`, `group=page`} {
		if !strings.Contains(body, want) {
			t.Errorf("the search page has no %s", want)
		}
	}
	if n := strings.Count(get(t, s, "/?q=polite&group=page").Body.String(), `class="hit"`); n != 8 {
		t.Errorf("the search page by page shows %d results, want 8", n)
	}
	if w := get(t, s, "/search?q=polite&format=bibtex"); strings.Count("\n"+w.Body.String(), "\n@") != 2 {
		t.Errorf("the page's works as BibTeX: want 2 records:\n%s", w.Body)
	}
}
