package postgres_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/indextest"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// indexPages records pages (200 text/html answers unless set, their URL as
// content hash) on fresh URLs in one commit, with links per source URL,
// and releases their hosts.
func indexPages(t testing.TB, s crawl.Store, links map[string][]crawl.Link, pages ...*crawl.Page) {
	t.Helper()
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	var urls []crawl.NewURL
	for _, p := range pages {
		urls = append(urls, storetest.U(p.URL, 0, 0))
	}
	if _, err := s.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, err := s.ClaimHosts(ctx, "index", 1000, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	claimed := map[string]crawl.ClaimedURL{}
	var rel []crawl.HostRelease
	for _, h := range hs {
		rel = append(rel, crawl.HostRelease{ID: h.ID})
		cs, _, err := s.ClaimURLs(ctx, "index", h.ID, len(pages), crawl.Limits{}, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			claimed[c.URL] = c
		}
	}
	var rs []crawl.Result
	for _, p := range pages {
		c, ok := claimed[p.URL]
		if !ok {
			t.Fatalf("%s was not claimed", p.URL)
		}
		if p.Status == 0 {
			p.Status = 200
		}
		if p.ContentType == "" {
			p.ContentType = "text/html"
		}
		if p.FetchedAt.IsZero() {
			p.FetchedAt = now
		}
		if p.ContentHash == nil {
			p.ContentHash = []byte(p.URL)
		}
		rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p, Links: links[p.URL]})
	}
	if _, err := s.Commit(ctx, rs, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseHosts(ctx, "index", rel); err != nil {
		t.Fatal(err)
	}
}

// linkTo is a link to target with an anchor text.
func linkTo(target, anchor string) crawl.Link {
	return crawl.Link{TargetID: crawl.URLID(target), Target: target, Anchor: anchor}
}

func search(t testing.TB, s crawl.Store, r crawl.SearchRequest) crawl.SearchResult {
	t.Helper()
	res, err := s.Search(context.Background(), r)
	if err != nil {
		t.Fatalf("Search(%+v): %v", r, err)
	}
	return res
}

func urlsOf(res crawl.SearchResult) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.URL)
	}
	return out
}

// TestIndexConformance runs the index conformance suite on the embedded
// index, written through the store's commit path.
func TestIndexConformance(t *testing.T) {
	indextest.Run(t, indextest.Features{Folding: true}, func(t *testing.T) crawl.Index {
		dsn, schema := freshSchema(t)
		return storetest.EmbeddedIndex(open(t, dsn, schema))
	})
}

// TestSearchIndexesLongPages: the longest titles and texts, of the words
// that take the most room in a tsvector, are recorded, their beginnings
// indexed.
func TestSearchIndexesLongPages(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	ctx := context.Background()
	// Words of one 4-byte character, all distinct, a hyphen or a space
	// between them: the densest text, each character a lexeme of its own.
	dense := func(chars int) string {
		var b strings.Builder
		for i := 0; b.Len() < 5*chars/2; i++ {
			if i > 0 {
				if i%300 == 0 {
					b.WriteByte(' ')
				} else {
					b.WriteByte('-')
				}
			}
			b.WriteRune(rune(0x20000 + i))
		}
		return b.String()
	}
	body := "needle " + dense(150_000) + " beyond"
	anchor := dense(5_000)
	links := map[string][]crawl.Link{}
	var pages []*crawl.Page
	for i := range 3 {
		u := fmt.Sprintf("http://a.test/hub%d", i)
		links[u] = []crawl.Link{{TargetID: crawl.URLID("http://a.test/long"), Target: "http://a.test/long", Anchor: anchor + fmt.Sprint(i)}}
		pages = append(pages, &crawl.Page{URL: u, Title: "hub", Text: "hub"})
	}
	indexPages(t, db, links, pages...)
	indexPages(t, db, nil, &crawl.Page{URL: "http://a.test/long", Title: dense(20_000), Text: body, MainText: body})
	if err := db.SetRanks(ctx, nil); err != nil {
		t.Fatalf("SetRanks: %v", err)
	}
	var size int
	if err := queryRow(t, dsn, schema, `SELECT pg_column_size(search || ''::tsvector) FROM pages WHERE url_id = $1`,
		[]any{int64(crawl.URLID("http://a.test/long"))}, &size); err != nil || size < 600_000 {
		t.Errorf("the long page's tsvector takes %d bytes (%v), want over 600,000 uncompressed: the test text is not dense enough", size, err)
	}
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "needle"})); len(got) != 1 {
		t.Errorf("Search(needle) = %v, want the long page", got)
	}
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "beyond"})); len(got) != 0 {
		t.Errorf("Search(beyond) = %v, want nothing: words after the first 100,000 characters are not indexed", got)
	}
}

// TestSearchWordsPostgreSQLDrops: a query whose words PostgreSQL's parser
// finds no lexeme in matches nothing, even beside exclusions (which alone
// TestSearchWordsOfEveryKind: characters PostgreSQL's parser reads as no
// word ("²", private-use characters) are words as query.Lexemes reads
// them: found where a page holds them, alone or beside exclusions, and
// nowhere else.
func TestSearchWordsOfEveryKind(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	indexPages(t, db, nil, &crawl.Page{URL: "http://a.test/1", Title: "one", Text: "crawling"},
		&crawl.Page{URL: "http://a.test/2", Title: "two", Text: "other"},
		&crawl.Page{URL: "http://a.test/3", Title: "three", Text: "m² of \ue000 area"},
		// The longest word a tsvector holds, and one too long, which is
		// left out.
		&crawl.Page{URL: "http://a.test/4", Title: "four", Text: strings.Repeat("ş", 1023) + " " + strings.Repeat("q", 2047) + " findme"})
	for _, q := range []string{"m²", "m² -crawling", "\ue000 -crawling", "m²*"} {
		if got := urlsOf(search(t, db, crawl.SearchRequest{Query: q})); len(got) != 1 || got[0] != "http://a.test/3" {
			t.Errorf("Search(%q) = %v, want page 3", q, got)
		}
	}
	for _, q := range []string{"²", "m²² -crawling", "m²²*"} {
		if res := search(t, db, crawl.SearchRequest{Query: q}); res.Total != 0 || len(res.Hits) != 0 {
			t.Errorf("Search(%q) = %v (total %d), want nothing", q, urlsOf(res), res.Total)
		}
	}
	if res := search(t, db, crawl.SearchRequest{Query: "two -crawling"}); res.Total != 1 {
		t.Errorf("Search(two -crawling) = %v (total %d), want page 2", urlsOf(res), res.Total)
	}
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "findme"})); len(got) != 1 || got[0] != "http://a.test/4" {
		t.Errorf("Search(findme) = %v, want page 4", got)
	}
}

// TestSearchWordsRebuiltOnOpen: vectors PostgreSQL's parser built before
// migration 0023 (a compound such as an e-mail address a lexeme of its
// own, its words none) are rebuilt when the store is next opened for
// writing, once, which the open logs: a page is then found by the
// compound's words, and the task is gone.
func TestSearchWordsRebuiltOnOpen(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	indexPages(t, db, map[string][]crawl.Link{"http://a.test/1": {{TargetID: crawl.URLID("http://a.test/2"),
		Target: "http://a.test/2", Anchor: "see docs.example.net/guide"}}},
		&crawl.Page{URL: "http://a.test/1", Title: "one", Text: "write to jane.doe@example.org"},
		&crawl.Page{URL: "http://a.test/2", Title: "two", Text: "other"})
	if err := db.SetRanks(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// The vectors as the parser built them, and the task 0023 records.
	exec(t, dsn, schema, `UPDATE pages SET search = setweight(to_tsvector('simple', acrawler_fold(title)), 'A') ||
			setweight(to_tsvector('simple', acrawler_fold(text)), 'C') || setweight(to_tsvector('simple', acrawler_fold(anchors)), 'B')
		WHERE search IS NOT NULL;
		INSERT INTO maintenance (task) VALUES ('reindex')`)
	ro, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := urlsOf(search(t, ro, crawl.SearchRequest{Query: "jane doe"})); len(got) != 0 {
		t.Fatalf("Search(jane doe) before the rebuild = %v, want nothing: the test's vectors are not the parser's", got)
	}
	ro.Close()
	var logged strings.Builder
	db, err = postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, want := range []string{`level=INFO msg="rebuilding the search index, once, for the upgraded schema" db=`,
		`level=INFO msg="search index rebuilt" db=`, ` documents=2 took=`} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the open logged\n%s\nwithout %q", logged.String(), want)
		}
	}
	if strings.Contains(logged.String(), "upgrading") {
		t.Errorf("the open logged an upgrade of a schema at the latest version:\n%s", logged.String())
	}
	for q, want := range map[string]string{"jane doe": "http://a.test/1", "example org": "http://a.test/1",
		"jane.doe@example.org": "http://a.test/1", `"example net guide"`: "http://a.test/2"} {
		if got := urlsOf(search(t, db, crawl.SearchRequest{Query: q})); len(got) != 1 || got[0] != want {
			t.Errorf("Search(%s) after the rebuild = %v, want %s", q, got, want)
		}
	}
	var tasks int
	if err := queryRow(t, dsn, schema, `SELECT count(*) FROM maintenance`, nil, &tasks); err != nil || tasks != 0 {
		t.Errorf("%d maintenance tasks left (%v), want none", tasks, err)
	}
}

// TestMaintenanceWaitsForAnotherProcess: an open that finds the
// maintenance lock held by another process (one rebuilding the index)
// logs that it waits, waits, and then does what is still to do.
func TestMaintenanceWaitsForAnotherProcess(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	indexPages(t, db, nil, &crawl.Page{URL: "http://a.test/1", Title: "one", Text: "words"})
	db.Close()
	exec(t, dsn, schema, `INSERT INTO maintenance (task) VALUES ('reindex')`)
	ctx := context.Background()
	holder := schemaConn(t, dsn, schema)
	defer holder.Close(ctx)
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock($1)`, postgres.MaintainLockForTest(schema)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), nil))
	text := func() string {
		mu.Lock()
		defer mu.Unlock()
		return logged.String()
	}
	done := make(chan error, 1)
	go func() {
		db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, Log: log})
		if err == nil {
			err = db.Close()
		}
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(text(), `msg="waiting for the search index rebuild another process is running"`); {
		if time.Now().After(deadline) {
			t.Fatalf("no wait logged in 10 s:\n%s", text())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Open returned (%v) while another process held the lock", err)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock($1)`, postgres.MaintainLockForTest(schema)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open did not return in 30 s after the lock was released")
	}
	if !strings.Contains(text(), `msg="search index rebuilt"`) || !strings.Contains(text(), " documents=1 ") {
		t.Errorf("the open logged\n%s\nwithout the rebuild of the one document", text())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestSearchFiltersOutOfRange: filters no page can match give no result,
// never an error.
func TestSearchFiltersOutOfRange(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	indexPages(t, db, nil, &crawl.Page{URL: "http://a.test/1", Title: "one", Text: "crawling",
		Meta: &crawl.Metadata{Year: 2020, Type: "article"}})
	for _, r := range []crawl.SearchRequest{
		{Query: "crawling", YearFrom: math.MaxInt, YearTo: math.MinInt},
		{Query: "crawling", YearFrom: math.MinInt},
		{Query: "crawling", Host: "\x00\xff", Type: "\x00", Lang: "\xff"},
		{Query: "crawling", Offset: -5, Limit: math.MaxInt, PageRankWeight: math.NaN()},
		{Query: "crawling", Offset: math.MaxInt},
	} {
		if _, err := db.Search(context.Background(), r); err != nil {
			t.Errorf("Search(%+v): %v", r, err)
		}
	}
	if res := search(t, db, crawl.SearchRequest{Query: "crawling", YearFrom: math.MinInt, Offset: -5,
		PageRankWeight: math.Inf(1)}); res.Total != 1 || len(res.Hits) != 1 || math.IsNaN(res.Hits[0].Score) {
		t.Errorf("Search with a negative offset and an infinite rank weight = %+v, want the page", res)
	}
}

// xmin returns the transaction that wrote the current version of a page
// row.
func xmin(t *testing.T, dsn, schema string, u string) string {
	t.Helper()
	var x string
	if err := queryRow(t, dsn, schema, `SELECT xmin::text FROM pages WHERE url_id = $1`, []any{int64(crawl.URLID(u))}, &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// TestSetRanksRewritesChanges: a page is indexed with the anchors of the
// links already recorded to it; SetRanks adds those of later links,
// rewrites only the pages whose anchors changed, and records ranks apart.
func TestSetRanksRewritesChanges(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	ctx := context.Background()
	x, hub, late := "http://a.test/x", "http://a.test/hub", "http://b.test/late"
	indexPages(t, db, map[string][]crawl.Link{hub: {linkTo(x, "Decoherence")}},
		&crawl.Page{URL: hub, Title: "Hub", Text: "links"}, &crawl.Page{URL: x, Title: "Report", Text: "results"})
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "decoherence"})); len(got) != 1 || got[0] != x {
		t.Errorf("Search(decoherence) = %v, want x, indexed with the anchors of the links of its batch", got)
	}
	xv, hv := xmin(t, dsn, schema, x), xmin(t, dsn, schema, hub)
	if err := db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if xmin(t, dsn, schema, x) != xv || xmin(t, dsn, schema, hub) != hv {
		t.Errorf("SetRanks without changes rewrote pages")
	}
	if err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(x): 2, crawl.URLID(hub): 0}); err != nil {
		t.Fatal(err)
	}
	// Ranks are rows of their own: a page whose rank alone changed is
	// not rewritten.
	if xmin(t, dsn, schema, x) != xv || xmin(t, dsn, schema, hub) != hv {
		t.Errorf("SetRanks rewrote pages whose rank alone changed: x (new rank) %v, hub (rank 0) %v",
			xmin(t, dsn, schema, x) != xv, xmin(t, dsn, schema, hub) != hv)
	}
	var rank float64
	if err := queryRow(t, dsn, schema, `SELECT rank FROM ranks WHERE url_id = $1`, []any{int64(crawl.URLID(x))}, &rank); err != nil || rank != 2 {
		t.Errorf("x's rank recorded as %v (%v), want 2", rank, err)
	}
	indexPages(t, db, map[string][]crawl.Link{late: {linkTo(x, "Quantum")}}, &crawl.Page{URL: late, Title: "Late", Text: "more"})
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "quantum"})); len(got) != 0 {
		t.Errorf("Search(quantum) = %v before SetRanks, want nothing", got)
	}
	hv = xmin(t, dsn, schema, hub)
	if err := db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "quantum decoherence results"})); len(got) != 1 || got[0] != x {
		t.Errorf("Search(quantum decoherence results) = %v after SetRanks, want x", got)
	}
	if xmin(t, dsn, schema, hub) != hv {
		t.Errorf("SetRanks rewrote the hub, whose anchors and rank did not change")
	}
	// Ranks that are no numbers are recorded as 0.
	err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(x): math.NaN(), crawl.URLID(hub): math.Inf(1), crawl.URLID(late): -1})
	if err != nil {
		t.Fatal(err)
	}
	var ranks float64
	if err := queryRow(t, dsn, schema, `SELECT coalesce(sum(rank), 0) FROM ranks`, nil, &ranks); err != nil || ranks != 0 {
		t.Errorf("ranks after NaN, +Inf and -1 sum to %v (%v), want 0", ranks, err)
	}
}

// TestSearchFollowsReparse: a reparsed page is indexed with its new text,
// and leaves the index when it is no longer indexable.
func TestSearchFollowsReparse(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	ctx := context.Background()
	u := "http://a.test/p"
	indexPages(t, db, nil, &crawl.Page{URL: u, Title: "Alpha", Text: "first version"})
	if err := db.Reparse(ctx, &crawl.Page{ID: crawl.URLID(u), Title: "Beta", Text: "second version", ContentHash: []byte(u)}, nil); err != nil {
		t.Fatal(err)
	}
	for q, n := range map[string]int{"alpha": 0, "first": 0, "beta": 1, "second": 1} {
		if got := search(t, db, crawl.SearchRequest{Query: q}); got.Total != n {
			t.Errorf("Search(%s) after Reparse = %v, want %d hits", q, urlsOf(got), n)
		}
	}
	if err := db.Reparse(ctx, &crawl.Page{ID: crawl.URLID(u), Title: "Beta", Text: "second version", NoIndex: true}, nil); err != nil {
		t.Fatal(err)
	}
	if got := search(t, db, crawl.SearchRequest{Query: "beta"}); got.Total != 0 {
		t.Errorf("Search(beta) after a noindex Reparse = %v, want nothing", urlsOf(got))
	}
}

// TestMigrateIndexesRecordedPages: migrating a crawl recorded before the
// search index indexes its indexable pages with their hosts and anchors.
func TestMigrateIndexesRecordedPages(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	for _, f := range []string{"0001_init.sql", "0002_crawl_list.sql", "0003_content.sql"} {
		b, err := os.ReadFile("migrations/" + f)
		if err != nil {
			t.Fatal(err)
		}
		exec(t, dsn, schema, string(b))
	}
	// IDs as crawl.URLID gives them, which migration 0007 leaves as they
	// are (it gives links' targets the IDs of their texts).
	id := func(u string) int64 { return int64(crawl.URLID(u)) }
	article := "http://a.test/article"
	exec(t, dsn, schema, fmt.Sprintf(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
		INSERT INTO schema_migrations (version) VALUES (1), (2), (3);
		INSERT INTO pages (url_id, url, status, content_type, title, text, main_text, fetched_at, metadata, noindex, duplicate_of, canonical) VALUES
			(%d, 'http://a.test/article', 200, 'text/html', 'Focused crawling', 'menu', 'main text', 1, NULL, false, 0, ''),
			(%d, 'https://b.test:8443', 200, 'application/pdf', '', 'crawling in a PDF', '', 1, '{"title": "Metadata title"}', false, 0, ''),
			(%d, 'http://a.test/noindex', 200, 'text/html', 'crawling', 'x', '', 1, NULL, true, 0, ''),
			(%d, 'http://a.test/dup', 200, 'text/html', 'crawling', 'x', '', 1, NULL, false, %d, ''),
			(%d, 'http://a.test/alias', 200, 'text/html', 'crawling', 'x', '', 1, NULL, false, 0, 'http://a.test/article'),
			(%d, 'http://a.test/404', 404, 'text/html', 'crawling', 'x', '', 1, NULL, false, 0, ''),
			(%d, 'http://a.test/image', 200, 'image/png', 'crawling', 'x', '', 1, NULL, false, 0, '');
		INSERT INTO links (source_id, target_id, target, anchor) VALUES (%d, %d, 'http://a.test/article', 'Survey');`,
		id(article), id("https://b.test:8443"), id("http://a.test/noindex"), id("http://a.test/dup"), id(article),
		id("http://a.test/alias"), id("http://a.test/404"), id("http://a.test/image"), id("http://a.test/noindex"), id(article)))
	if _, _, err := postgres.Migrate(ctx, dsn, postgres.Options{Schema: schema}); err != nil {
		t.Fatal(err)
	}
	db := open(t, dsn, schema)
	res := search(t, db, crawl.SearchRequest{Query: "crawling"})
	if got := urlsOf(res); len(got) != 2 || got[0] != "http://a.test/article" || got[1] != "https://b.test:8443" {
		t.Fatalf("Search(crawling) after migration = %v, want the article (title) then the PDF", got)
	}
	if h := res.Hits[1]; h.Host != "https://b.test:8443" || h.Title != "Metadata title" || res.Hits[0].Host != "http://a.test" {
		t.Errorf("hits after migration = %+v", res.Hits)
	}
	for _, q := range []string{"survey", "metadata", "main"} {
		if res := search(t, db, crawl.SearchRequest{Query: q}); res.Total != 1 {
			t.Errorf("Search(%s) after migration = %v, want one page", q, urlsOf(res))
		}
	}
	if res := search(t, db, crawl.SearchRequest{Query: "menu"}); res.Total != 0 {
		t.Errorf("Search(menu) after migration = %v, want nothing: the main text is indexed", urlsOf(res))
	}
}

// TestSetRanksWhileCommitting: SetRanks runs beside commits of pages that
// link to the pages it rewrites, in another process; when both are done,
// one more SetRanks leaves every page with the anchors of all its links.
func TestSetRanksWhileCommitting(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	db, other := open(t, dsn, schema), open(t, dsn, schema)
	const n = 60
	target := func(i int) string { return fmt.Sprintf("http://t%d.test/%d", i%4, i) }
	var pages []*crawl.Page
	for i := range n {
		pages = append(pages, &crawl.Page{URL: target(i), Title: "target", Text: fmt.Sprint("page ", i)})
	}
	indexPages(t, db, nil, pages...)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	wg.Go(func() {
		for range 4 {
			if err := other.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(target(0)): 1}); err != nil {
				errs <- err
				return
			}
		}
	})
	targets := make([]map[string]bool, 8) // per batch
	for b := range 8 {
		targets[b] = map[string]bool{}
		links := map[string][]crawl.Link{}
		var ps []*crawl.Page
		for i := range 10 {
			u := fmt.Sprintf("http://s%d.test/%d", i%3, b*10+i)
			for j := range 5 {
				tu := target((b*10 + i + j*7) % n)
				targets[b][tu] = true
				links[u] = append(links[u], crawl.Link{TargetID: crawl.URLID(tu), Target: tu, Anchor: fmt.Sprint("anchor", b)})
			}
			ps = append(ps, &crawl.Page{URL: u, Title: "source", Text: "links"})
		}
		indexPages(t, db, links, ps...)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("SetRanks beside commits: %v", err)
	}
	if err := db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for b := range 8 {
		res := search(t, db, crawl.SearchRequest{Query: fmt.Sprint("anchor", b), Limit: 100})
		if res.Total != len(targets[b]) {
			t.Errorf("Search(anchor%d) = %d pages, want the %d targets of batch %d", b, res.Total, len(targets[b]), b)
		}
	}
}

// FuzzSearch: whatever the query and filters, Search answers without an
// error, with at most Limit hits, best first, out of its total, whose
// snippets are escaped text with balanced <mark> elements; a query with no
// positive word finds nothing.
func FuzzSearch(f *testing.F) {
	dsn, schema := freshSchema(f)
	db, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, MaxConns: 2})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	indexPages(f, db, nil,
		&crawl.Page{URL: "http://a.test/1", Title: "Focused crawling <survey>", Text: "A polite crawler & its \x01budget\x02.",
			Meta: &crawl.Metadata{Type: "article", Year: 2021}},
		&crawl.Page{URL: "http://a.test/2", Title: "Notes", Text: "Crawling: e-mail, 10.1000/xyz, title:foo, C++ and ÇAĞ İstanbul."},
		&crawl.Page{URL: "http://b.test/3", Title: "Tez", Text: "Odaklı tarama ² ³ \ue000 yöntemleri"})
	for _, q := range []string{"crawling", `"polite crawler"`, "crawl* -notes", `"`, "AND (", "*", ":", "'; DROP TABLE pages;--",
		"\x00\xff", "² -crawling", "e-mail", "c++", "çağ", "i̇stanbul", `\'`, "a:*", "!x", "x <-> y", "&|"} {
		f.Add(q, "", 0, 10)
	}
	f.Add("crawling", "http://a.test", 2020, 1)
	f.Fuzz(func(t *testing.T, q, host string, year, limit int) {
		r := crawl.SearchRequest{Query: q, Host: host, YearFrom: year, Limit: limit % 100, PageRankWeight: 1}
		res, err := db.Search(context.Background(), r)
		if err != nil {
			t.Fatalf("Search(%+v): %v", r, err)
		}
		want := r.Limit
		if want <= 0 {
			want = 10
		}
		if len(res.Hits) > want || len(res.Hits) > res.Total || res.Total > 3 {
			t.Fatalf("Search(%+v) = %d hits of %d, limit %d", r, len(res.Hits), res.Total, want)
		}
		if query.Parse(q).IsEmpty() && res.Total != 0 {
			t.Fatalf("Search(%+v) found %d pages for a query without positive words", r, res.Total)
		}
		for i, h := range res.Hits {
			if i > 0 && h.Score > res.Hits[i-1].Score {
				t.Fatalf("Search(%+v): hit %d scores %v, above the one before (%v)", r, i, h.Score, res.Hits[i-1].Score)
			}
			if strings.ContainsAny(h.Snippet, "\x01\x02") {
				t.Fatalf("Search(%+v): snippet %q holds markers", r, h.Snippet)
			}
			end := 0
			for _, m := range h.Marks {
				if m[0] < end || m[1] <= m[0] || m[1] > len(h.Snippet) {
					t.Fatalf("Search(%+v): snippet %q marked %v: not ordered ranges of it", r, h.Snippet, h.Marks)
				}
				end = m[1]
			}
		}
	})
}

// TestSearchRanksBestLinkedOfManyMatches: when more than 1,000 pages
// match, the text ranks the 1,000 of highest link-graph rank; the total
// and facets still count every match, and a search matching fewer ranks
// them all.
func TestSearchRanksBestLinkedOfManyMatches(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	ctx := context.Background()
	const n = 1050
	var pages []*crawl.Page
	ranks := map[crawl.ID]float64{}
	for i := range n {
		p := &crawl.Page{URL: fmt.Sprintf("http://h%d.test/p%d", i%2, i), Title: "Paper", Text: "a common word and others"}
		if i == 0 {
			// The best text match, with the lowest link-graph rank.
			p.Title, p.Text = "Common common common", "common common common"
		}
		pages = append(pages, p)
		ranks[crawl.URLID(p.URL)] = float64(i)
	}
	indexPages(t, db, nil, pages...)
	if err := db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	best := pages[0].URL
	res := search(t, db, crawl.SearchRequest{Query: "common", Limit: 5})
	if res.Total != n || res.Facets.Host["http://h0.test"] != n/2 || res.Facets.Host["http://h1.test"] != n/2 {
		t.Errorf("total %d, hosts %v; want every one of the %d matches counted", res.Total, res.Facets.Host, n)
	}
	got := urlsOf(res)
	if len(got) != 5 || slices.Contains(got, best) {
		t.Errorf("Search(common) = %v; want 5 of the 1,000 best-linked pages, not %s (the least linked)", got, best)
	}
	for i := 1; i < len(res.Hits); i++ {
		if res.Hits[i].Score > res.Hits[i-1].Score {
			t.Errorf("hits not in score order: %v", res.Hits)
		}
	}
	// On one host, 525 pages match: all are ranked, the best text first.
	res = search(t, db, crawl.SearchRequest{Query: "common", Host: "http://h0.test", Limit: 5})
	if got := urlsOf(res); len(got) == 0 || got[0] != best || res.Total != n/2 {
		t.Errorf("Search(common on h0) = %v (total %d); want %s first of %d", got, res.Total, best, n/2)
	}
	// Past the 1,000 come the other matches, best first; the pages of
	// results do not overlap.
	res = search(t, db, crawl.SearchRequest{Query: "common", Limit: 10, Offset: 995})
	if got := urlsOf(res); len(got) != 10 || got[5] != best {
		t.Errorf("results 996-1005 of Search(common) = %v; want %s 1,001st", got, best)
	}
	seen := map[string]bool{}
	for off := 0; off < n; off += 100 {
		for _, u := range urlsOf(search(t, db, crawl.SearchRequest{Query: "common", Limit: 100, Offset: off})) {
			if seen[u] {
				t.Fatalf("%s on two pages of results", u)
			}
			seen[u] = true
		}
	}
	if len(seen) != n {
		t.Errorf("paging through Search(common) gave %d pages, want %d", len(seen), n)
	}
}

// BenchmarkBroadQueries measures queries whose work grows with their
// terms (repeated and distinct prefixes, many words) on a collection of a
// few hundred pages:
//
//	go test -run '^$' -bench BenchmarkBroadQueries -benchtime 3x ./internal/store/postgres
func BenchmarkBroadQueries(b *testing.B) {
	dsn, schema := freshSchema(b)
	storetest.BenchBroadQueries(b, open(b, dsn, schema), 287)
}

// TestFoldSQL: acrawler_fold, the SQL function the search column is built
// with (migration 0008), folds every character as query.Fold does, which
// folds the queries; and the migration defines it as query.FoldSQL says.
func TestFoldSQL(t *testing.T) {
	dsn, schema := freshSchema(t)
	open(t, dsn, schema).Close()
	var in []string
	for r := rune(0x20); r <= 0x2ffff; r++ {
		if unicode.Is(unicode.Cs, r) || r >= 0x3400 && r < 0xa000 || r >= 0xac00 && r < 0xd7a4 || r >= 0x20000 {
			continue // surrogates; CJK ideographs and Hangul syllables, which nothing folds, sampled below
		}
		in = append(in, string(r))
	}
	in = append(in, "中", "한", "Zoë Hoffmann", "Mu\u0308ller", "İSTANBUL ışık", "Straße ẞ", "ﬁnance", "e\u0301\u0301x", "한국어 हिन्दी")
	var out []string
	if err := queryRow(t, dsn, schema, `SELECT array_agg(acrawler_fold(s) ORDER BY i) FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i)`,
		[]any{in}, &out); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, s := range in {
		if want := query.Fold(s); out[i] != want {
			if bad++; bad <= 20 {
				t.Errorf("acrawler_fold(%q %U) = %q, query.Fold = %q", s, []rune(s)[0], out[i], want)
			}
		}
	}
	if bad > 20 {
		t.Errorf("… %d of %d strings in all", bad, len(in))
	}
	var def string
	if err := queryRow(t, dsn, schema, `SELECT prosrc FROM pg_proc WHERE proname = 'acrawler_fold' AND pronamespace = $1::regnamespace`,
		[]any{schema}, &def); err != nil {
		t.Fatal(err)
	}
	if def, want := strings.TrimSpace(def), query.FoldSQL(); def != want {
		t.Errorf("acrawler_fold is\n%s\nquery.FoldSQL gives\n%s", def, want)
	}
}

// BenchmarkFoldSQL times acrawler_fold on the server, which folds what the
// writer does not (snippets, anchor texts, a reindex): 500 texts of about
// 5 KB of words, some capitalized, in English (ascii) and with a word in
// ten carrying a diacritic or a letter spelled out (diacritics); an op is
// the 500.
//
//	go test -run '^$' -bench BenchmarkFoldSQL -benchtime 5x ./internal/store/postgres
func BenchmarkFoldSQL(b *testing.B) {
	dsn, schema := freshSchema(b)
	open(b, dsn, schema).Close()
	ctx := context.Background()
	conn := schemaConn(b, dsn, schema)
	defer conn.Close(ctx)
	words := strings.Fields("the of and research university department journal article paper study analysis data results method")
	marked := strings.Fields("Zürich Müller café naïve Straße résumé İstanbul Kraków Ærø Łódź")
	for _, mode := range []string{"ascii", "diacritics"} {
		rnd := rand.New(rand.NewPCG(1, 2))
		texts := make([]string, 500)
		for i := range texts {
			var t strings.Builder
			for t.Len() < 5000 {
				w := words[rnd.IntN(len(words))]
				if mode == "diacritics" && rnd.IntN(10) == 0 {
					w = marked[rnd.IntN(len(marked))]
				} else if rnd.IntN(7) == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
				t.WriteString(w + " ")
			}
			texts[i] = t.String()
		}
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				var n int64
				if err := conn.QueryRow(ctx, `SELECT sum(length(acrawler_fold(s))) FROM unnest($1::text[]) s`, texts).Scan(&n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(texts)), "µs/text")
		})
	}
}

// TestFoldMigration: a database whose search column was built before
// migration 0008, from the text as it is, is indexed again folded, and
// "zoe" then finds "Zoë" in its title, text and anchor texts.
func TestFoldMigration(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	links := map[string][]crawl.Link{"http://a.test/hub": {{TargetID: crawl.URLID("http://a.test/c"), Target: "http://a.test/c", Anchor: "Ærø Œuvre"}}}
	indexPages(t, db, links, &crawl.Page{URL: "http://a.test/a", Title: "Zoë Müller", Text: "plain words"},
		&crawl.Page{URL: "http://a.test/b", Title: "Ankara", Text: "Straße, plain words"},
		&crawl.Page{URL: "http://a.test/hub", Title: "hub", Text: "hub"})
	indexPages(t, db, nil, &crawl.Page{URL: "http://a.test/c", Title: "c", Text: "c"})
	if err := db.SetRanks(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// The search column as the store wrote it before 0008.
	exec(t, dsn, schema, `UPDATE pages p SET search =
		setweight(to_tsvector('simple', p.title), 'A') || setweight(to_tsvector('simple', p.text), 'C') ||
		setweight(to_tsvector('simple', p.anchors), 'B') WHERE p.search IS NOT NULL`)
	db = open(t, dsn, schema)
	if n := search(t, db, crawl.SearchRequest{Query: "zoe"}).Total; n != 0 {
		t.Fatalf("before the migration, zoe found %d pages: the test does not make the old index", n)
	}
	db.Close()
	exec(t, dsn, schema, `DELETE FROM schema_migrations WHERE version >= 8`)
	db = open(t, dsn, schema)
	for q, want := range map[string][]string{
		"zoe":         {"http://a.test/a"},
		"MÜLLER":      {"http://a.test/a"},
		"strasse":     {"http://a.test/b"},
		"aero oeuvre": {"http://a.test/c"},
		"plain":       {"http://a.test/a", "http://a.test/b"},
	} {
		got := urlsOf(search(t, db, crawl.SearchRequest{Query: q}))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("after the migration, %s found %v, want %v", q, got, want)
		}
	}
}

// TestSearchColumnFoldedByWriter: the search column a commit and a
// reparse write, from the title and text the writer folds with
// query.Fold, is what the server builds from the stored row with
// acrawler_fold (as migration 0008 and a rebuild do): for titles and
// texts with diacritics, capitals and ligatures, a title taken from the
// metadata, main text before text, invalid UTF-8 and NUL, a text cut at
// 100,000 characters amid multibyte ones, and anchors of earlier links.
func TestSearchColumnFoldedByWriter(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	var urls []crawl.NewURL
	for i := range 6 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	cs := claimAll(t, db, now, urls...)
	long := strings.Repeat("Ünïcødé ", 12_499) + "ÆØÅ-ﬁx İSTANBUL ışık Straße " + strings.Repeat("é", 50)
	pages := []*crawl.Page{
		{Title: "Zoë Hoffmann — İSTANBUL ﬁnance", Text: "Mu\u0308ller Straße ẞ ĳ œuvre"},
		{Meta: &crawl.Metadata{Title: "Título Ñandú ÅNGSTRÖM"}, Text: "plain text"},
		{Title: "main", MainText: "Main Text Çedille", Text: "not indexed Ŧext"},
		{Title: "caf\xe9 \x00x", Text: "\xff\xfe Élan\x00vital"},
		{Title: strings.Repeat("Ŧ", 10_050), Text: long},
		{Title: "a page linked to", Text: "target"},
	}
	var results []crawl.Result
	for i, p := range pages {
		c := cs[urls[i].URL]
		p.URL, p.Status, p.ContentType, p.FetchedAt = c.URL, 200, "text/html", now
		r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p}
		if i == 0 {
			target := urls[5].URL
			r.Links = []crawl.Link{{TargetID: crawl.URLID(target), Target: target, Anchor: "Ánchor Tëxt ﬂow"}}
		}
		results = append(results, r)
	}
	// The linked page is committed after the link, so that it is indexed
	// with the link's anchor text.
	for _, batch := range [][]crawl.Result{results[:5], results[5:]} {
		if _, err := db.Commit(ctx, batch, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	re := *pages[2]
	re.Title, re.MainText = "Reparsed TÍTLE", "Ŋew Main Text"
	if err := db.Reparse(ctx, &re, nil); err != nil {
		t.Fatal(err)
	}
	var indexed, differ int
	var anchors string
	if err := queryRow(t, dsn, schema, `SELECT count(*) FILTER (WHERE search IS NOT NULL),
			count(*) FILTER (WHERE search IS DISTINCT FROM
				setweight(to_tsvector('simple', acrawler_words(left(CASE WHEN title <> '' THEN title ELSE coalesce(metadata::jsonb->>'title', '') END, 10000))), 'A') ||
				setweight(to_tsvector('simple', acrawler_words(left(CASE WHEN main_text <> '' THEN main_text ELSE text END, 100000))), 'C') ||
				setweight(to_tsvector('simple', acrawler_words(anchors)), 'B')),
			max(anchors)
		FROM pages`, nil, &indexed, &differ, &anchors); err != nil {
		t.Fatal(err)
	}
	if indexed != len(pages) || differ != 0 || anchors == "" {
		t.Errorf("%d pages indexed, %d of them with a search column other than the server's (anchors %q); want %d and 0, and the anchor text",
			indexed, differ, anchors, len(pages))
	}
}

// TestFreshLinks: the links of a page first recorded keep one row a
// target, the first link's, as before, and a commit whose page has a link
// recorded after all (here a row written behind the store's back) runs
// again and keeps that row.
func TestFreshLinks(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	a, b := "http://a.test/a", "http://a.test/b"
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0)}
	cs := claimAll(t, db, now, urls...)
	exec(t, dsn, schema, `INSERT INTO links (source_id, target_id, target, anchor) VALUES ($1, $2, $3, 'recorded')`,
		int64(crawl.URLID(urls[1].URL)), int64(crawl.URLID(a)), a)
	var results []crawl.Result
	for _, u := range urls {
		p := &crawl.Page{URL: u.URL, Status: 200, ContentType: "text/html", FetchedAt: now, Title: "page", Text: "text"}
		results = append(results, crawl.Result{URL: cs[u.URL], Outcome: crawl.OutcomeDone, Page: p, Links: []crawl.Link{
			{TargetID: crawl.URLID(a), Target: a, Anchor: "first"}, {TargetID: crawl.URLID(a), Target: a, Anchor: "second"},
			{TargetID: crawl.URLID(b), Target: b, Anchor: "b"}}})
	}
	if _, err := db.Commit(ctx, results, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]string{urls[0].URL: "b,first", urls[1].URL: "b,recorded"} {
		var got string
		if err := queryRow(t, dsn, schema, `SELECT string_agg(anchor, ',' ORDER BY anchor) FROM links WHERE source_id = $1`,
			[]any{int64(crawl.URLID(u))}, &got); err != nil || got != want {
			t.Errorf("anchors of %s's links = %q (%v), want %q", u, got, err, want)
		}
	}
}

// TestRanksMigration: migration 0024 moves the pages' ranks into ranks
// (those that are not 0), drops the column, and grants ranks to a role
// granted pages.
func TestRanksMigration(t *testing.T) {
	ctx := context.Background()
	dsn, schema := freshSchema(t)
	migrateBelow(t, dsn, schema, 24)
	role, hasRole := grantedReader(t, dsn, schema, "SELECT", "pages")
	exec(t, dsn, schema, `INSERT INTO pages (url_id, url, status, fetched_at, pagerank) VALUES (1, 'http://a.test/1', 200, 1, 3.5), (2, 'http://a.test/2', 200, 1, 0)`)
	if _, _, err := postgres.Migrate(ctx, dsn, postgres.Options{Schema: schema}); err != nil {
		t.Fatal(err)
	}
	var ranks string
	var column, granted bool
	if err := queryRow(t, dsn, schema, `SELECT
		(SELECT string_agg(url_id || '=' || rank, ' ' ORDER BY url_id) FROM ranks),
		EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = 'pages' AND column_name = 'pagerank'),
		CASE WHEN $2 THEN has_table_privilege($1, 'ranks', 'SELECT') ELSE false END`, []any{role, hasRole}, &ranks, &column, &granted); err != nil {
		t.Fatal(err)
	}
	if ranks != "1=3.5" || column {
		t.Errorf("ranks %q, pages.pagerank still there: %v; want 1=3.5 and no column", ranks, column)
	}
	if hasRole && !granted {
		t.Errorf("%s, granted pages, was not granted ranks", role)
	}
}

// TestSetRanksLooksAtMarkedPages: the rank pass refreshes the anchor texts
// of the pages whose inbound links changed since it last ran (links a
// commit recorded, links a reparse replaced), as anchorsOf gives them, and
// reads no other page's: a page planted with a wrong anchor text and no
// mark keeps it, until a link to it is recorded.
func TestSetRanksLooksAtMarkedPages(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	ctx := context.Background()
	u := func(i int) string { return fmt.Sprintf("http://h%d.test/p%d", i%3, i) }
	link := func(i int, anchor string) crawl.Link { return linkTo(u(i), anchor) }
	// Forty pages, each linking to the next two: enough pages for a few
	// marks to be looked at alone (anchorsFullShare).
	var pages []*crawl.Page
	links := map[string][]crawl.Link{}
	for i := range 40 {
		pages = append(pages, &crawl.Page{URL: u(i), Title: "Page", Text: "body"})
		links[u(i)] = []crawl.Link{link((i+1)%40, fmt.Sprintf("alpha%d", i)), link((i+2)%40, fmt.Sprintf("beta%d", i))}
	}
	indexPages(t, db, links, pages...)
	// wrong lists the pages whose indexed anchor text is not anchorsOf's.
	wrong := func() []string {
		t.Helper()
		var got []string
		if err := queryRow(t, dsn, schema, `SELECT coalesce(array_agg(h.key || u.url ORDER BY p.url_id), '{}') FROM pages p
			JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id
			WHERE p.search IS NOT NULL AND p.anchors <> `+postgres.AnchorsOf("p.url_id"), nil, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if w := wrong(); len(w) > 0 {
		t.Fatalf("after the first pass, pages with anchor texts that are not anchorsOf's: %v", w)
	}
	planted := u(0)
	exec(t, dsn, schema, `UPDATE pages SET anchors = 'planted' WHERE url_id = $1`, int64(crawl.URLID(planted)))
	// A new page links to pages 3 and 4; page 5 is reparsed with one link,
	// to page 4, instead of its two (to 6 and 7).
	indexPages(t, db, map[string][]crawl.Link{u(40): {link(3, "gamma"), link(4, "delta")}},
		&crawl.Page{URL: u(40), Title: "New", Text: "body"})
	p5, err := db.Page(ctx, crawl.URLID(u(5)))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Reparse(ctx, p5, []crawl.Link{link(4, "epsilon")}); err != nil {
		t.Fatal(err)
	}
	before := wrong()
	if err := db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(before, u(3)) || !slices.Contains(before, u(6)) || !slices.Contains(before, u(7)) {
		t.Errorf("before the pass, pages with anchor texts that are not anchorsOf's: %v; want 3, 6 and 7 among them", before)
	}
	if w := wrong(); !slices.Equal(w, []string{planted}) {
		t.Errorf("after the pass, pages with anchor texts that are not anchorsOf's: %v, want only the planted %s", w, planted)
	}
	for q, want := range map[string]string{"gamma": u(3), "epsilon": u(4), "delta": u(4)} {
		if got := urlsOf(search(t, db, crawl.SearchRequest{Query: q})); !slices.Contains(got, want) {
			t.Errorf("Search(%s) = %v, want %s among them", q, got, want)
		}
	}
	// A link recorded to the planted page marks it.
	indexPages(t, db, map[string][]crawl.Link{u(41): {link(0, "zeta")}}, &crawl.Page{URL: u(41), Title: "Newer", Text: "body"})
	if err := db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if w := wrong(); len(w) > 0 {
		t.Errorf("after a link to the planted page, pages with anchor texts that are not anchorsOf's: %v", w)
	}
	var marks int
	if err := queryRow(t, dsn, schema, `SELECT (SELECT count(*) FROM anchors_sources) + (SELECT count(*) FROM anchors_stale)`, nil, &marks); err != nil || marks != 0 {
		t.Errorf("%d marks left after the pass (%v)", marks, err)
	}
}

// BenchmarkPassAfterSmallCrawl measures the rank pass of a small crawl
// into a large store (storetest.BenchPassAfterSmallCrawl):
//
//	ACRAWLER_TEST_POSTGRES=... ACRAWLER_PASS_DOCS=50000 go test -run '^$' -bench BenchmarkPassAfterSmallCrawl -benchtime 5x -timeout 30m ./internal/store/postgres
func BenchmarkPassAfterSmallCrawl(b *testing.B) {
	dsn, schema := freshSchema(b)
	storetest.BenchPassAfterSmallCrawl(b, open(b, dsn, schema))
}

// TestSetRanksQueuesEachPageOnce: with an outbox, the rank pass queues
// one upsert of a page's external document when both its anchor text and
// its rank changed (they are written apart), and one for a page whose
// rank alone changed.
func TestSetRanksQueuesEachPageOnce(t *testing.T) {
	dsn, schema := freshSchema(t)
	db, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, Outbox: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	x, hub, late := "http://a.test/x", "http://a.test/hub", "http://b.test/late"
	indexPages(t, db, map[string][]crawl.Link{hub: {linkTo(x, "Decoherence")}},
		&crawl.Page{URL: hub, Title: "Hub", Text: "links"}, &crawl.Page{URL: x, Title: "Report", Text: "results"})
	indexPages(t, db, map[string][]crawl.Link{late: {linkTo(x, "Quantum")}}, &crawl.Page{URL: late, Title: "Late", Text: "more"})
	exec(t, dsn, schema, `DELETE FROM outbox`)
	if err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(x): 2, crawl.URLID(hub): 1, crawl.URLID(late): 0.5}); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := queryRow(t, dsn, schema, `SELECT coalesce(array_agg(h.key || u.url || ' ' || n ORDER BY 1), '{}') FROM
		(SELECT url_id, count(*) AS n FROM outbox WHERE op = 'upsert' GROUP BY url_id) o
		JOIN urls u ON u.id = o.url_id JOIN hosts h ON h.id = u.host_id`, nil, &got); err != nil {
		t.Fatal(err)
	}
	want := []string{hub + " 1", x + " 1", late + " 1"}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("upserts queued by the pass, by page: %v, want %v", got, want)
	}
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "quantum"})); !slices.Equal(got, []string{x}) {
		t.Errorf("Search(quantum) = %v after the pass, want x", got)
	}
	// A pass that changes a rank and no anchor text queues that page.
	exec(t, dsn, schema, `DELETE FROM outbox`)
	if err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(x): 2, crawl.URLID(hub): 3, crawl.URLID(late): 0.5}); err != nil {
		t.Fatal(err)
	}
	var queued []int64
	if err := queryRow(t, dsn, schema, `SELECT coalesce(array_agg(url_id ORDER BY id), '{}') FROM outbox WHERE op = 'upsert'`, nil, &queued); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(queued, []int64{int64(crawl.URLID(hub))}) {
		t.Errorf("upserts queued by a pass that changed the hub's rank alone: %v, want the hub's (%d)", queued, crawl.URLID(hub))
	}
}
