package postgres_test

import (
	"context"
	"os"
	"strconv"
	"testing"
)

// BenchmarkPackedLayoutBytes measures what the packed frontier layout
// (docs/design/frontier-layout.md) would take on PostgreSQL, which keeps a
// row a URL: its tables alone, filled as merges would fill them. The URLs
// (ACRAWLER_BENCH_LAYOUT_URLS, 1,000,000 by default) come in ten merges,
// each its random 64-bit IDs in ID order, into a seen set with each
// URL's run and into one with the IDs alone; their runs hold 64 URLs at
// the 29 bytes a URL internal/urlrun measured, incompressible. It reports
// each table's bytes a URL, indexes included, after VACUUM:
//
//	ACRAWLER_TEST_POSTGRES=... go test -run '^$' -bench BenchmarkPackedLayoutBytes -benchtime 1x ./internal/store/postgres
func BenchmarkPackedLayoutBytes(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("ACRAWLER_BENCH_LAYOUT_URLS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 6400 {
			b.Fatalf("ACRAWLER_BENCH_LAYOUT_URLS=%q: want a number of URLs, at least 6,400", s)
		}
	}
	const merges, runURLs, urlBytes = 10, 64, 29
	ctx := context.Background()
	for b.Loop() {
		dsn, schema := freshSchema(b)
		conn := schemaConn(b, dsn, schema)
		exec := func(q string, args ...any) {
			b.Helper()
			if _, err := conn.Exec(ctx, q, args...); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
		exec(`CREATE TABLE seen (id bigint PRIMARY KEY, run bigint NOT NULL)`)
		exec(`CREATE TABLE seen_ids (id bigint PRIMARY KEY)`)
		exec(`CREATE TABLE queue_runs (id bigint PRIMARY KEY, host_id bigint NOT NULL, top integer NOT NULL, data bytea NOT NULL)`)
		exec(`CREATE INDEX queue_runs_host ON queue_runs (host_id, top DESC, id)`)
		per := n / merges
		for m := range merges {
			first := int64(m * per / runURLs) // the merge's first run
			exec(`CREATE TEMP TABLE merge AS SELECT (random() * 1.8e19 - 9.2e18)::bigint AS id, g AS k FROM generate_series(1, $1::bigint) g`, per)
			exec(`INSERT INTO seen SELECT id, $1::bigint + k / $2 FROM merge ORDER BY id ON CONFLICT DO NOTHING`, first, runURLs)
			exec(`INSERT INTO seen_ids SELECT id FROM merge ORDER BY id ON CONFLICT DO NOTHING`)
			// md5 gives 16 incompressible bytes: a run's data is
			// runURLs*urlBytes of them.
			exec(`INSERT INTO queue_runs SELECT $1::bigint + r, (random() * 1e6)::bigint, 0,
				(SELECT string_agg(decode(md5(random()::text || r || i), 'hex'), ''::bytea) FROM generate_series(1, $3::int) i)
				FROM generate_series(0, $2::bigint - 1) r`, first, per/runURLs, runURLs*urlBytes/16)
			exec(`DROP TABLE merge`)
		}
		for _, t := range []string{"seen", "seen_ids", "queue_runs"} {
			exec(`VACUUM ANALYZE ` + t)
			var size int64
			if err := conn.QueryRow(ctx, `SELECT pg_total_relation_size($1::regclass)`, t).Scan(&size); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(size)/float64(n), t+"-B/URL")
		}
		conn.Close(ctx)
	}
}
