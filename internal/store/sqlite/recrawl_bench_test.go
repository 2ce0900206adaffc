package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkScheduleDue measures choosing the due pages among 1,000,000
// stored pages of 1,000 hosts, whose revisit times are spread over 30
// days, in batches of 10,000: one op is one ScheduleDue call that queues
// the 10,000 pages due first.
//
//	go test -run '^$' -bench BenchmarkScheduleDue -benchtime 20x ./internal/store/sqlite
//
// The pages are written straight with SQL (the crawl would take hours to
// record a million pages); only the columns the choice reads are filled.
func BenchmarkScheduleDue(b *testing.B) {
	const pages, hosts, batch = 1_000_000, 1_000, 10_000
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "due.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	now := time.Unix(1_800_000_000, 0)
	window := int64(30 * 24 * time.Hour / time.Millisecond)
	start := time.Now()
	for _, q := range []string{
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
		 INSERT INTO hosts (id, key) SELECT i, 'http://h' || i || '.test' FROM n`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
		 INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
		 SELECT i, '/p/' || i, i % ?1 + 1, 1, 0, 2, 0, 0 FROM n`,
		// Next check times: a permutation of the window, so that the due
		// pages are scattered over hosts and IDs.
		`INSERT INTO pages (url_id, url, status, fetched_at, checked_at, next_check_at, interval_ms)
		 SELECT u.id, h.key || u.url, 200, ?3, ?3, ?3 + (u.id * 7919 % ?2) * (?4 / ?2), 86400000
		 FROM urls u JOIN hosts h ON h.id = u.host_id`,
		`UPDATE counters SET value = ?2 WHERE name = 'done'`,
	} {
		if _, err := db.w.ExecContext(ctx, q, hosts, pages, now.Add(-24*time.Hour).UnixMilli(), window); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.w.ExecContext(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d pages written in %s", pages, time.Since(start).Round(time.Millisecond))
	// Every page is due within the window: each call takes the earliest.
	at := now.Add(31 * 24 * time.Hour)
	queued := 0
	b.ResetTimer()
	for i := 0; i < b.N && queued+batch <= pages; i++ {
		n, err := db.ScheduleDue(ctx, at, false, batch)
		if err != nil {
			b.Fatal(err)
		}
		if n != batch {
			b.Fatalf("ScheduleDue queued %d pages, want %d", n, batch)
		}
		queued += n
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(max(queued/batch, 1)), "ms/batch")
}
