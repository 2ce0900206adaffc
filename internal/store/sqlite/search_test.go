package sqlite_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/indextest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// searchCorpus is a small collection for the search strategy's tests:
// every page has "common" in its text; one in ten has it in its title
// too; "middle" is in 30 pages, "rare" in 3. Pages are spread over 4
// hosts.
type searchCorpus struct {
	db    *sqlite.DB
	pages map[string]*crawl.Page  // by URL
	links map[string][]crawl.Link // the links committed with a page, by its URL
}

func docURL(i int) string { return fmt.Sprintf("http://h%d.test/doc/%d", i%4, i) }

func newSearchCorpus(t *testing.T, n int) *searchCorpus {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, migratedFile(t), sqlite.Options{Engine: sqlite.EngineFTS5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c := &searchCorpus{db: db, pages: map[string]*crawl.Page{}}
	var pages []*crawl.Page
	for i := range n {
		title, text := fmt.Sprintf("Page %d", i), fmt.Sprintf("Some common filler text number %d.", i)
		if i%10 == 0 {
			title = fmt.Sprintf("A common topic %d", i)
		}
		if i%13 == 0 && i < 13*30 {
			text += " A middle word."
		}
		if i == 7 || i == 8 || i == 9 {
			text += " A rare word."
		}
		pages = append(pages, &crawl.Page{URL: docURL(i), Title: title, Text: text})
	}
	c.commit(t, pages...)
	return c
}

// commit records pages as fetched (status 200 unless set).
func (c *searchCorpus) commit(t *testing.T, pages ...*crawl.Page) {
	t.Helper()
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	var urls []crawl.NewURL
	for _, p := range pages {
		urls = append(urls, storetest.U(p.URL, 1, 0))
		c.pages[p.URL] = p
	}
	if _, err := c.db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	// Pages fetched before go back to the queue.
	if _, err := c.db.ScheduleDueURLs(ctx, idsOf(pages), now.Add(1000*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for {
		hs, err := c.db.ClaimHosts(ctx, "t", 100, time.Minute, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 {
			return
		}
		var rs []crawl.Result
		var rel []crawl.HostRelease
		for _, h := range hs {
			cs, _, err := c.db.ClaimURLs(ctx, "t", h.ID, 1000, crawl.Limits{}, now)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range cs {
				p := *c.pages[u.URL]
				p.ContentType, p.FetchedAt, p.Lang = "text/html", now, "en"
				if p.Status == 0 {
					p.Status = 200
				}
				p.ContentHash = []byte(fmt.Sprintf("%032x", crawl.HashID(u.URL+p.Title+p.Text+fmt.Sprint(p.Status))))
				rv := &crawl.Revisit{Interval: time.Hour, NextCheck: now.Add(time.Hour), Changed: true}
				if p.Status == 410 {
					rv = &crawl.Revisit{Gone: crawl.Removed}
				}
				rs = append(rs, crawl.Result{URL: u, Outcome: crawl.OutcomeDone, Page: &p, Links: c.links[u.URL], Revisit: rv})
			}
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		if _, err := c.db.Commit(ctx, rs, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		if err := c.db.ReleaseHosts(ctx, "t", rel); err != nil {
			t.Fatal(err)
		}
	}
}

func idsOf(pages []*crawl.Page) []crawl.ID {
	var out []crawl.ID
	for _, p := range pages {
		out = append(out, crawl.URLID(p.URL))
	}
	return out
}

func (c *searchCorpus) search(t *testing.T, r crawl.SearchRequest) crawl.SearchResult {
	t.Helper()
	res, err := c.db.Search(context.Background(), r)
	if err != nil {
		t.Fatalf("Search(%+v): %v", r, err)
	}
	return res
}

// all pages through every result of r, checking that no page comes twice.
func (c *searchCorpus) all(t *testing.T, r crawl.SearchRequest) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	r.Limit = 37
	for r.Offset = 0; ; r.Offset += r.Limit {
		res := c.search(t, r)
		if len(res.Hits) == 0 {
			return out
		}
		for _, h := range res.Hits {
			if seen[h.URL] {
				t.Fatalf("Search(%q): %s on two pages", r.Query, h.URL)
			}
			seen[h.URL] = true
			out = append(out, h.URL)
		}
	}
}

func facetSum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func TestSearchSmallResultSetsAreExact(t *testing.T) {
	defer sqlite.SetSearchLimitsForTest(40, 1, 60, 30, 10)()
	c := newSearchCorpus(t, 400)
	res := c.search(t, crawl.SearchRequest{Query: "middle", Limit: 10})
	if res.Estimated || res.Total != 30 || len(res.Hits) != 10 || facetSum(res.Facets.Host) != 30 {
		t.Errorf(`"middle": total %d (estimated %v), %d hits, host facets %v; want exactly 30`, res.Total, res.Estimated, len(res.Hits), res.Facets.Host)
	}
	// A word in every page gives bm25 no weight: the ranking leaves it
	// out (and it still filters), with FTS5's scores all the same.
	res = c.search(t, crawl.SearchRequest{Query: "common middle", Limit: 100})
	if res.Estimated || res.Total != 30 || len(res.Hits) != 30 {
		t.Errorf(`"common middle": total %d (estimated %v), %d hits; want 30`, res.Total, res.Estimated, len(res.Hits))
	}
	bm25, err := c.db.BM25ForTest(context.Background(), `"common" AND "middle"`)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range res.Hits {
		if want, ok := bm25[h.ID]; !ok || math.Abs(h.Score-want) > 1e-5 || i > 0 && h.Score > res.Hits[i-1].Score {
			t.Errorf(`"common middle" hit %d = %s with score %v, FTS5's bm25 %v (found %v)`, i, h.URL, h.Score, want, ok)
		}
	}
	if got := c.all(t, crawl.SearchRequest{Query: "middle -common"}); len(got) != 0 {
		t.Errorf(`"middle -common" found %v`, got)
	}
	res = c.search(t, crawl.SearchRequest{Query: "common rare"})
	if got := c.all(t, crawl.SearchRequest{Query: "common rare"}); res.Estimated || res.Total != 3 || len(got) != 3 {
		t.Errorf(`"common rare": total %d (estimated %v), hits %v`, res.Total, res.Estimated, got)
	}
}

func TestSearchLargeResultSets(t *testing.T) {
	defer sqlite.SetSearchLimitsForTest(40, 1, 60, 60, 10)()
	const n = 400
	c := newSearchCorpus(t, n)
	ctx := context.Background()
	// The tier: the 60 pages of highest rank, 20 title matches (i%20 == 0)
	// and 40 others; the other 20 title matches (i%20 == 10) are outside.
	ranks := map[crawl.ID]float64{}
	for i := range n {
		switch {
		case i%20 == 0:
			ranks[crawl.URLID(docURL(i))] = 5
		case i%10 != 0 && i < 45:
			ranks[crawl.URLID(docURL(i))] = 4
		}
	}
	if err := c.db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	tier, err := c.db.SearchTierForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tier) != 60 {
		t.Fatalf("tier of %d pages, want 60", len(tier))
	}
	for id := range ranks {
		if !tier[id] {
			t.Fatalf("page %d of rank %v is not in the tier", id, ranks[id])
		}
	}

	res := c.search(t, crawl.SearchRequest{Query: "common", Limit: 20})
	if !res.Estimated || res.Total < n*2/3 || res.Total > n*3/2 {
		t.Errorf(`"common": total %d (estimated %v), want an estimate near %d`, res.Total, res.Estimated, n)
	}
	if sum := facetSum(res.Facets.Host); sum < res.Total*9/10 || sum > res.Total*11/10 {
		t.Errorf(`"common": host facets %v sum to %d, want about the total %d`, res.Facets.Host, sum, res.Total)
	}
	// The tier's 20 title matches, then the rest.
	for i, h := range res.Hits {
		if !tier[h.ID] || !strings.Contains(c.pages[h.URL].Title, "common") {
			t.Errorf(`"common" hit %d = %s (%q), want a title match in the tier`, i, h.URL, c.pages[h.URL].Title)
		}
	}

	// Every match once, the tier's first, also when the tier is ranked in
	// parts.
	for _, scored := range []int{60, 25} {
		sqlite.SetSearchLimitsForTest(40, 1, 60, scored, 10)
		got := c.all(t, crawl.SearchRequest{Query: "common"})
		if len(got) != n {
			t.Errorf(`"common" (tier ranked %d at a time): %d results, want %d`, scored, len(got), n)
			continue
		}
		for i, u := range got {
			if in := tier[crawl.URLID(u)]; in != (i < 60) {
				t.Errorf(`"common" (tier ranked %d at a time): result %d %s in the tier: %v`, scored, i, u, in)
			}
		}
	}
	sqlite.SetSearchLimitsForTest(40, 1, 60, 60, 10)

	// Exclusions and filters still hold.
	for _, u := range c.all(t, crawl.SearchRequest{Query: "common -rare"}) {
		if strings.Contains(c.pages[u].Text, "rare") {
			t.Errorf(`"common -rare" found %s`, u)
		}
	}
	// h1: 11 of its 100 pages in the tier.
	h1 := crawl.SearchRequest{Query: "common", Host: "http://h1.test", Limit: 10}
	res = c.search(t, h1)
	if !res.Estimated || len(res.Hits) != 10 {
		t.Errorf(`"common" on h1: total %d (estimated %v), %d hits`, res.Total, res.Estimated, len(res.Hits))
	}
	got := c.all(t, h1)
	if len(got) != n/4 {
		t.Errorf(`"common" on h1: %d results, want %d`, len(got), n/4)
	}
	for _, u := range got {
		if !strings.HasPrefix(u, "http://h1.test/") {
			t.Errorf(`"common" on h1 found %s`, u)
		}
	}
	// Too few of h2's matches in the tier (9 of 100, no title match): all
	// are ranked, so its title matches (outside the tier) come first.
	res = c.search(t, crawl.SearchRequest{Query: "common", Host: "http://h2.test", Limit: 10})
	var titles []string
	for _, h := range res.Hits {
		titles = append(titles, c.pages[h.URL].Title)
	}
	if len(titles) != 10 || slices.ContainsFunc(titles, func(s string) bool { return !strings.Contains(s, "common") }) {
		t.Errorf(`"common" on h2 with a thin tier: titles %q, want 10 title matches`, titles)
	}
}

func TestSearchTierFollowsTheIndex(t *testing.T) {
	defer sqlite.SetSearchLimitsForTest(40, 1, 5, 5, 2)()
	ctx := context.Background()
	c := newSearchCorpus(t, 8)
	tier, err := c.db.SearchTierForTest(ctx)
	if err != nil || len(tier) != 0 {
		t.Fatalf("tier before a rank pass: %v, %v; want none", tier, err)
	}
	// Ranks choose the tier.
	ranks := map[crawl.ID]float64{}
	for i := range 8 {
		ranks[crawl.URLID(docURL(i))] = float64(i)
	}
	if err := c.db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	want := func(is ...int) {
		t.Helper()
		tier, err := c.db.SearchTierForTest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []crawl.ID
		for _, i := range is {
			ids = append(ids, crawl.URLID(docURL(i)))
		}
		if len(tier) != len(ids) || slices.ContainsFunc(ids, func(id crawl.ID) bool { return !tier[id] }) {
			t.Errorf("tier %v, want pages %v", tier, is)
		}
	}
	want(3, 4, 5, 6, 7)
	// A page in the tier is rewritten with its page, leaves with it.
	p := *c.pages[docURL(7)]
	p.Title = "A renamed page"
	c.commit(t, &p)
	want(3, 4, 5, 6, 7)
	gone := *c.pages[docURL(6)]
	gone.Status = 410
	c.commit(t, &gone)
	want(3, 4, 5, 7)
	// A new page waits for the next rank pass.
	c.commit(t, &crawl.Page{URL: docURL(8), Title: "Page 8", Text: "Some common text."})
	want(3, 4, 5, 7)
	if err := c.db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(docURL(8)): 0}); err != nil {
		t.Fatal(err)
	}
	want(2, 3, 4, 5, 7)
	if _, err := c.db.RebuildIndex(ctx); err != nil {
		t.Fatal(err)
	}
	want(2, 3, 4, 5, 7)
}

// TestSearchTierJoinsWithNewAnchors: a page that joins the search tier in
// the rank pass that also gives it new anchor texts is written into the
// tier with them, as into the main index.
func TestSearchTierJoinsWithNewAnchors(t *testing.T) {
	defer sqlite.SetSearchLimitsForTest(40, 1, 5, 5, 2)()
	ctx := context.Background()
	c := newSearchCorpus(t, 8)
	ranks := map[crawl.ID]float64{}
	for i := range 8 {
		ranks[crawl.URLID(docURL(i))] = float64(i)
	}
	if err := c.db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	// A new page links to page 0, which the next pass ranks first.
	target := docURL(0)
	c.links = map[string][]crawl.Link{docURL(8): {{Target: target, TargetID: crawl.URLID(target), Anchor: "zebra stripes"}}}
	c.commit(t, &crawl.Page{URL: docURL(8), Title: "Page 8", Text: "Some common text."})
	ranks[crawl.URLID(target)] = 100
	if err := c.db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	// The tier's rows have the main index's token counts, anchors included.
	tier, err := c.db.SearchTierForTest(ctx)
	if err != nil || !tier[crawl.URLID(target)] {
		t.Fatalf("tier %v, %v; want page 0 in it, as in the main index", tier, err)
	}
	res, err := c.db.Search(ctx, crawl.SearchRequest{Query: "zebra"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].URL != target {
		t.Fatalf("search zebra = %+v, %v; want page 0", res.Hits, err)
	}
}

// openFileCorpus opens an empty corpus in a database file of its own, for
// the migration tests to close and open again.
func openFileCorpus(t *testing.T) (c *searchCorpus, file string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "s.db")
	db, err := sqlite.Open(context.Background(), file, sqlite.Options{Engine: sqlite.EngineFTS5})
	if err != nil {
		t.Fatal(err)
	}
	return &searchCorpus{db: db, pages: map[string]*crawl.Page{}}, file
}

func TestSearchTierMigration(t *testing.T) {
	ctx := context.Background()
	c, file := openFileCorpus(t)
	db := c.db
	for i := range 20 {
		c.commit(t, &crawl.Page{URL: docURL(i), Title: fmt.Sprintf("Page %d", i), Text: "Some common text."})
	}
	// The database as it was before migration 0008.
	if err := db.ExecForTest(ctx, `DROP TABLE pages_top; DROP TABLE search_tier; DROP INDEX pages_search; PRAGMA user_version = 7`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tier, err := db.SearchTierForTest(ctx)
	if err != nil || len(tier) != 2 {
		t.Fatalf("tier after the migration: %d pages, %v; want one page in 10, 2", len(tier), err)
	}
	if res, err := db.Search(ctx, crawl.SearchRequest{Query: "common"}); err != nil || res.Total != 20 {
		t.Errorf("search after the migration: %+v, %v", res, err)
	}
}

// TestIndexConformance runs the index conformance suite on the embedded
// index, written through the store's commit path.
func TestIndexConformance(t *testing.T) {
	indextest.Run(t, indextest.Features{Folding: true}, func(t *testing.T) crawl.Index {
		db, err := sqlite.Open(context.Background(), migratedFile(t), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return storetest.EmbeddedIndex(db)
	})
}

// TestSearchSnippetsConcurrently: many searches at once share the few
// connections snippets are made in; each waits its turn and gets its
// highlighted snippets.
func TestSearchSnippetsConcurrently(t *testing.T) {
	c := newSearchCorpus(t, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			for range 5 {
				res, err := c.db.Search(ctx, crawl.SearchRequest{Query: "filler", Limit: 10})
				if err == nil && (len(res.Hits) != 10 || !slices.Contains(crawl.Marked(res.Hits[0].Snippet, res.Hits[0].Marks), "filler")) {
					err = fmt.Errorf("%d hits %+v, want 10 with the word marked", len(res.Hits), res.Hits)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestFoldMigration: a database indexed before migration 0012, whose index
// holds Turkish "İ" as SQLite's tokenizer leaves it, is reindexed at the
// next open, and "istanbul" then finds "İSTANBUL".
func TestFoldMigration(t *testing.T) {
	ctx := context.Background()
	c, file := openFileCorpus(t)
	db := c.db
	c.commit(t, &crawl.Page{URL: docURL(1), Title: "İSTANBUL", Text: "plain words"},
		&crawl.Page{URL: docURL(2), Title: "Ankara", Text: "plain words"})
	// The index as it was before migration 0012: the text as it is.
	if err := db.ExecForTest(ctx, `INSERT INTO pages_fts (pages_fts) VALUES ('delete-all');
		INSERT INTO pages_fts (rowid, title, body, anchors) SELECT key, title, 'plain words', anchors FROM search_docs;
		PRAGMA user_version = 11`); err != nil {
		t.Fatal(err)
	}
	search := func(q string) int {
		t.Helper()
		res, err := db.Search(ctx, crawl.SearchRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if n := search("istanbul"); n != 0 {
		t.Fatalf("before the migration, istanbul found %d pages: the test does not make the old index", n)
	}
	db.Close()
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for q, want := range map[string]int{"istanbul": 1, "İSTANBUL": 1, "ankara": 1, "plain": 2} {
		if n := search(q); n != want {
			t.Errorf("after the migration, %s found %d pages, want %d", q, n, want)
		}
	}
}

// TestFoldDiacriticsMigration: a database indexed before migration 0013,
// whose index holds words with their diacritics, is reindexed at the next
// open, which logs the upgrade and the rebuild, and "zoe" then finds "Zoë".
func TestFoldDiacriticsMigration(t *testing.T) {
	ctx := context.Background()
	c, file := openFileCorpus(t)
	db := c.db
	c.commit(t, &crawl.Page{URL: docURL(1), Title: "Zoë Müller", Text: "plain words"},
		&crawl.Page{URL: docURL(2), Title: "Ankara", Text: "plain words"})
	// The index as it was before migration 0013: the text lowercased by
	// the tokenizer alone.
	if err := db.ExecForTest(ctx, `INSERT INTO pages_fts (pages_fts) VALUES ('delete-all');
		INSERT INTO pages_fts (rowid, title, body, anchors) SELECT key, title, 'plain words', anchors FROM search_docs;
		PRAGMA user_version = 12`); err != nil {
		t.Fatal(err)
	}
	search := func(q string) int {
		t.Helper()
		res, err := db.Search(ctx, crawl.SearchRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if n := search("zoe"); n != 0 {
		t.Fatalf("before the migration, zoe found %d pages: the test does not make the old index", n)
	}
	db.Close()
	var logged strings.Builder
	db, err := sqlite.Open(ctx, file, sqlite.Options{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, want := range []string{`level=INFO msg="upgrading the database schema" db=` + file + ` migration=0013_fold_diacritics.sql from=12`,
		`level=INFO msg="rebuilding the search index, once, for the upgraded schema" db=` + file,
		`level=INFO msg="search index rebuilt" db=` + file + ` documents=2 took=`} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the open logged\n%s\nwithout %q", logged.String(), want)
		}
	}
	for q, want := range map[string]int{"zoe": 1, "Zoë": 1, "muller": 1, "MÜLLER": 1, `"zoe muller"`: 1, "ankara": 1, "plain": 2} {
		if n := search(q); n != want {
			t.Errorf("after the migration, %s found %d pages, want %d", q, n, want)
		}
	}
}

// TestSearchByWorkLargeResultSets: past exactLimit matches, a search by
// work ranks more matches in rounds until its page holds limit works, and
// paging through the results shows every work once; the total and the
// facets estimate results, not pages.
func TestSearchByWorkLargeResultSets(t *testing.T) {
	defer sqlite.SetSearchLimitsForTest(40, 1, 60, 60, 10)()
	const n, copies = 300, 3
	c := newSearchCorpus(t, 0)
	var pages []*crawl.Page
	for i := range n {
		w := i / copies // copies of a work are on different hosts
		title := fmt.Sprintf("Work number %d", w)
		pages = append(pages, &crawl.Page{URL: docURL(i), Title: title, Text: fmt.Sprintf("Some common text, copy %d.", i),
			Meta: &crawl.Metadata{Title: title, Type: "article", DOI: fmt.Sprintf("10.5555/w.%d", w), Year: 2000 + w%3}})
	}
	c.commit(t, pages...)
	workOf := func(u string) int64 {
		w, err := c.db.WorkOf(context.Background(), crawl.URLID(u))
		if err != nil {
			t.Fatalf("WorkOf(%s): %v", u, err)
		}
		return w.ID
	}
	r := crawl.SearchRequest{Query: "common", ByWork: true, Limit: 7}
	res := c.search(t, r)
	if !res.ByWork || !res.Estimated || len(res.Hits) != 7 {
		t.Fatalf("by work: %d hits (estimated %v, by work %v), want 7 estimated", len(res.Hits), res.Estimated, res.ByWork)
	}
	if want := n / copies; res.Total < want*2/3 || res.Total > want*3/2 {
		t.Errorf("by work: total %d, want an estimate near %d works", res.Total, want)
	}
	if sum := facetSum(res.Facets.Host); sum < n*2/3 || sum > n*3/2 {
		// Each work's copies are on three hosts: it counts on each.
		t.Errorf("by work: host facets %v sum to %d, want about %d", res.Facets.Host, sum, n)
	}
	seen := map[int64]string{}
	for _, u := range c.all(t, r) {
		w := workOf(u)
		if seen[w] != "" {
			t.Errorf("work %d twice: %s and %s", w, seen[w], u)
		}
		seen[w] = u
	}
	if len(seen) != n/copies {
		t.Errorf("paging by work found %d works, want %d", len(seen), n/copies)
	}
}
