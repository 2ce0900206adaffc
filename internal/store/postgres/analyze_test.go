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
// and not again until they grow more.
func TestGrownTablesAnalyzed(t *testing.T) {
	testDSN(t)
	defer postgres.SetAnalyzeEvery(500)()
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
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
	add(400, 2000)
	db.WaitAnalyzed()
	if n := relpages("urls"); n == 0 {
		t.Fatal("urls not analyzed after 2,000 URLs added")
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
}
