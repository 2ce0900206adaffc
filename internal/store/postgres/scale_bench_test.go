package postgres_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// BenchmarkClaimLarge measures the claim cycle in a large frontier
// (storetest.RunClaimLarge), the URLs and hosts written straight with SQL:
//
//	ACRAWLER_TEST_POSTGRES=... ACRAWLER_BENCH_FRONTIER=10000000:1000000 ACRAWLER_BENCH_OWNERS=1,4 go test -run '^$' -bench BenchmarkClaimLarge -benchtime 30000x -timeout 60m ./internal/store/postgres
func BenchmarkClaimLarge(b *testing.B) {
	urlLow := strconv.FormatInt(1<<(64-crawl.URLHostBits)-1, 10) // the bits of a URL ID that are the URL's
	storetest.RunClaimLarge(b, func(b *testing.B, urls, hosts, owners int) []crawl.Store {
		dsn, schema := freshSchema(b)
		ctx := context.Background()
		open(b, dsn, schema) // migrates the schema
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		for _, q := range []string{
			`SET search_path TO ` + schema,
			`SET maintenance_work_mem = '256MB'`,
			`INSERT INTO hosts (id, key, queued, admitted, top_priority, next_fetch_at, due)
			 SELECT i, 'http://h' || i || '.test', $2, $2, 9, 0, true FROM generate_series(1, $1::bigint) i`,
			// The URL IDs of SQLite's benchmark: the host's ID in the
			// high bits (0 for these small host IDs), a hash of the URL
			// below, so that the pages a commit inserts fall where a
			// crawl's do (pages is keyed by URL ID), not in ID order.
			`INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
			 SELECT (h & ~` + urlLow + `) | (hashtextextended('http://h' || h || '.test/papers/' || j || '/a-page-of-research', 0) & ` + urlLow + `),
			        'http://h' || h || '.test/papers/' || j || '/a-page-of-research', h, 1,
			        CASE WHEN j = 1 THEN 9 ELSE (h * 7919 + j * 31) % 9 END, 0, 'link', 0
			 FROM generate_series(1, $1::bigint) h, generate_series(1, $2::bigint) j`,
			`UPDATE counters SET queued = $1::bigint * $2, hosts = $1 WHERE slot = 0`,
			`ANALYZE`,
		} {
			var args []any
			if strings.Contains(q, "$1") {
				args = []any{hosts, urls / hosts}
			}
			if _, err := conn.Exec(ctx, q, args...); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
		stores := make([]crawl.Store, owners)
		for w := range stores {
			db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 2})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			stores[w] = db
		}
		return stores
	})
}
