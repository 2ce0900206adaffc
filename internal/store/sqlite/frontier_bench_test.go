package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// benchSizes reads a list of sizes from the environment variable name
// ("20000,1000000"), or returns def.
func benchSizes(b *testing.B, name string, def ...int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("%s: %q is not a list of sizes", name, v)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkClaimHosts measures choosing hosts among many, in the steady
// state of a crawl: every host has a URL queued; an op is one ClaimHosts
// of 64 hosts at a clock advancing 100 ms an op, and their release with a
// next fetch time half a cycle on, where a cycle is hosts/640 s, so that
// as many hosts come due in an op as are claimed. The next fetch times
// start spread over a cycle around now (half the hosts due), the best
// priorities over 0–9. Sizes (hosts) come from ACRAWLER_BENCH_HOSTS, 20,000
// by default:
//
//	ACRAWLER_BENCH_HOSTS=20000,1000000 go test -run '^$' -bench BenchmarkClaimHosts -benchtime 2000x ./internal/store/sqlite
//
// The hosts and URLs are written straight with SQL.
func BenchmarkClaimHosts(b *testing.B) {
	for _, hosts := range benchSizes(b, "ACRAWLER_BENCH_HOSTS", 20_000) {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "claim.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			now := time.Unix(1_800_000_000, 0)
			spread := int64(hosts) * 1000 / 640 // ms
			for _, q := range []string{
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
				 INSERT INTO hosts (id, key, queued, admitted, top_priority, next_fetch_at)
				 SELECT i, 'http://h' || i || '.test', 1, 1, i * 7919 % 10, ?2 - ?3 / 2 + (i * 104729 % ?3) FROM n`,
				// As ReleaseHosts and claims leave them.
				`UPDATE hosts SET due = next_fetch_at <= ?2`,
				`INSERT INTO urls (id, url, host_id, depth, priority, state, via, seq, discovered_at)
				 SELECT id << 32, key || '/', id, 0, top_priority, 0, 'seed', id, 0 FROM hosts`,
				`UPDATE counters SET value = ?1 WHERE name IN ('queued', 'seq')`,
			} {
				if _, err := db.w.ExecContext(ctx, q, hosts, now.UnixMilli(), spread); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := db.w.ExecContext(ctx, `ANALYZE`); err != nil {
				b.Fatal(err)
			}
			rel := func(hs []crawl.Host) []crawl.HostRelease {
				out := make([]crawl.HostRelease, len(hs))
				for j, h := range hs {
					out[j] = crawl.HostRelease{ID: h.ID, HostUpdate: crawl.HostUpdate{NextFetchAt: now.Add(time.Duration(spread/2) * time.Millisecond), Delay: time.Second}}
				}
				return out
			}
			// The first claim sets the due flags of hosts written
			// straight with SQL (as the first claim after the migration
			// that adds them does): not part of the measure.
			start := time.Now()
			hs, err := db.ClaimHosts(ctx, "bench", 64, time.Minute, now)
			if err != nil || len(hs) != 64 {
				b.Fatalf("first claim: %d hosts, %v", len(hs), err)
			}
			if err := db.ReleaseHosts(ctx, "bench", rel(hs)); err != nil {
				b.Fatal(err)
			}
			b.Logf("first claim and release: %s", time.Since(start).Round(time.Millisecond))
			var inClaim time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				hs, err = db.ClaimHosts(ctx, "bench", 64, time.Minute, now)
				inClaim += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if len(hs) != 64 {
					b.Fatalf("claimed %d hosts, want 64", len(hs))
				}
				if err := db.ReleaseHosts(ctx, "bench", rel(hs)); err != nil {
					b.Fatal(err)
				}
				now = now.Add(100 * time.Millisecond)
			}
			b.StopTimer()
			b.ReportMetric(float64(inClaim.Microseconds())/float64(b.N), "µs/claim")
		})
	}
}
