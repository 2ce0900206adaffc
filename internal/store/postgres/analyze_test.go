package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestGrownTablesAnalyzed checks that a store handle analyzes the tables
// it grew (a generic plan made on the empty tables of a new crawl would
// otherwise read them whole for the connection's life), once they grew,
// and not again until they double.
func TestGrownTablesAnalyzed(t *testing.T) {
	testDSN(t)
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema, postgres.AnalyzeEvery(500))
	ctx := context.Background()
	relpages := func(table string) int64 {
		t.Helper()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int64
		if err := conn.QueryRow(ctx, `SELECT relpages FROM pg_class WHERE oid = to_regclass($1)`, schema+"."+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	add := func(from, to int) {
		t.Helper()
		var urls []crawl.NewURL
		for i := from; i < to; i++ {
			urls = append(urls, storetest.U(fmt.Sprintf("http://h%03d.test/a-long-enough-path/%d", i%50, i), 1, 0))
		}
		if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, 400) // below analyzeEvery: no look
	db.WaitAnalyzed()
	if n := relpages("urls"); n != 0 {
		t.Fatalf("urls analyzed after 400 rows written (relpages %d), want no look yet", n)
	}
	add(400, 900) // 900 rows: past this handle's 500, short of the default 1,000
	db.WaitAnalyzed()
	if n := relpages("urls"); n == 0 {
		t.Fatal("urls not analyzed after 900 URLs added, with a look every 500 rows")
	}
	got, err := db.AnalyzeGrown(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, schema+".urls") || slices.Contains(got, "urls") {
		t.Errorf("urls analyzed again with no growth: %v", got)
	}
	before := relpages("urls")
	add(2000, 6000)
	db.WaitAnalyzed()
	if n := relpages("urls"); n <= before {
		t.Errorf("urls relpages %d after it grew, was %d: not analyzed again", n, before)
	}
	// Grown by half, not doubled: not analyzed again, in the background
	// or when asked.
	before = relpages("urls")
	add(6000, 9000)
	db.WaitAnalyzed()
	got, err = db.AnalyzeGrown(ctx)
	if n := relpages("urls"); err != nil || n != before || slices.Contains(got, schema+".urls") || slices.Contains(got, "urls") {
		t.Errorf("urls analyzed again after growing by half: relpages %d, was %d; analyzed %v, %v", n, before, got, err)
	}
}

// TestSearchVectorsNotAnalyzed: an analysis of pages keeps statistics of
// its columns but none of the search vectors, whose statistics cost
// nearly all of it and which no plan reads (migration 0022), nor of the
// metadata, which no plan reads either (migration 0025).
func TestSearchVectorsNotAnalyzed(t *testing.T) {
	testDSN(t)
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	var pages []*crawl.Page
	for i := range 40 {
		pages = append(pages, &crawl.Page{URL: fmt.Sprintf("http://a.test/%d", i), Title: "okapi", Text: fmt.Sprintf("okapi habitat and range %d", i),
			Meta: &crawl.Metadata{Title: fmt.Sprintf("Okapi %d", i)}})
	}
	indexPages(t, db, nil, pages...)
	exec(t, dsn, schema, `ANALYZE pages`)
	var cols []string
	if err := queryRow(t, dsn, schema, `SELECT coalesce(array_agg(attname::text ORDER BY attname), '{}') FROM pg_stats
		WHERE schemaname = current_schema() AND tablename = 'pages' AND attname IN ('metadata', 'search', 'title', 'url_id')`, nil, &cols); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cols, []string{"title", "url_id"}) {
		t.Errorf("columns of pages with statistics: %v; want title and url_id, not search or metadata", cols)
	}
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "habitat", Limit: 50})); len(got) != 40 {
		t.Errorf("Search(habitat) found %d pages, want 40", len(got))
	}
}
