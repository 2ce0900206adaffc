package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
)

// BenchmarkClaimLarge measures the claim cycle in a large frontier: URLs
// over hosts written straight with SQL (every host with the same number of
// URLs queued, priorities 0–9, every host due), then crawl owners, each
// with a pool of its own as if in a process of its own, running the cycle
// a crawl process runs: ClaimHosts (64), ClaimURLsOf (up to 4 a host), one
// Commit of the fetched results (pages without links), ReleaseHosts with a
// next fetch time a minute on, the clock advancing 100 ms a cycle. An op is
// one URL claimed and committed. Sizes are URLS:HOSTS pairs from
// ACRAWLER_BENCH_FRONTIER (1000000:100000 by default), owners from
// ACRAWLER_BENCH_OWNERS (1 by default):
//
//	ACRAWLER_TEST_POSTGRES=... ACRAWLER_BENCH_FRONTIER=10000000:1000000 ACRAWLER_BENCH_OWNERS=1,4 go test -run '^$' -bench BenchmarkClaimLarge -benchtime 20000x -timeout 60m ./internal/store/postgres
//
// It reports URLs claimed and committed per second and the milliseconds a
// ClaimHosts call took on average.
func BenchmarkClaimLarge(b *testing.B) {
	sizes := [][2]int{{1_000_000, 100_000}}
	if v := os.Getenv("ACRAWLER_BENCH_FRONTIER"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			u, h, ok := strings.Cut(strings.TrimSpace(f), ":")
			nu, err1 := strconv.Atoi(u)
			nh, err2 := strconv.Atoi(h)
			if !ok || err1 != nil || err2 != nil || nu < nh || nh <= 0 {
				b.Fatalf("ACRAWLER_BENCH_FRONTIER: %q is not a list of URLS:HOSTS", v)
			}
			sizes = append(sizes, [2]int{nu, nh})
		}
	}
	owners := []int{1}
	if v := os.Getenv("ACRAWLER_BENCH_OWNERS"); v != "" {
		owners = owners[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("ACRAWLER_BENCH_OWNERS: %q is not a list of counts", v)
			}
			owners = append(owners, n)
		}
	}
	for _, size := range sizes {
		for _, n := range owners {
			b.Run(fmt.Sprintf("urls=%d/hosts=%d/owners=%d", size[0], size[1], n), func(b *testing.B) {
				benchClaimLarge(b, size[0], size[1], n)
			})
		}
	}
}

func benchClaimLarge(b *testing.B, urls, hosts, owners int) {
	if b.N > urls {
		b.Fatalf("%d ops: more than the %d URLs to claim", b.N, urls)
	}
	dsn, schema := freshSchema(b)
	ctx := context.Background()
	open(b, dsn, schema) // migrates the schema
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	perHost := urls / hosts
	start := time.Now()
	for _, q := range []string{
		`SET search_path TO ` + schema,
		`SET maintenance_work_mem = '256MB'`,
		// Host IDs in the high bits of the URL IDs, as crawl.URLID lays them out.
		`INSERT INTO hosts (id, key, queued, admitted, top_priority, next_fetch_at, due)
		 SELECT i, 'http://h' || i || '.test', $2, $2, 9, 0, true FROM generate_series(1, $1::bigint) i`,
		`INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
		 SELECT (h << 24) | j, 'http://h' || h || '.test/papers/' || j || '/a-page-of-research', h, 1,
		        CASE WHEN j = 1 THEN 9 ELSE (h * 7919 + j * 31) % 9 END, 0, 'link', 0
		 FROM generate_series(1, $1::bigint) h, generate_series(1, $2::bigint) j`,
		`UPDATE counters SET queued = $1::bigint * $2, hosts = $1 WHERE slot = 0`,
		`ANALYZE`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = []any{hosts, perHost}
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	b.Logf("%d URLs over %d hosts written in %s", hosts*perHost, hosts, time.Since(start).Round(time.Second))
	dbs := make([]*postgres.DB, owners)
	for w := range dbs {
		db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 2})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		dbs[w] = db
	}
	var clock atomic.Int64
	clock.Store(time.Unix(1_800_000_000, 0).UnixMilli())
	var claimed, claims, inClaim atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	for w, db := range dbs {
		wg.Go(func() {
			owner := fmt.Sprintf("bench%d", w)
			for claimed.Load() < int64(b.N) {
				now := time.UnixMilli(clock.Add(100))
				t0 := time.Now()
				hs, err := db.ClaimHosts(ctx, owner, 64, time.Minute, now)
				inClaim.Add(int64(time.Since(t0)))
				claims.Add(1)
				if err != nil {
					failed.Store(err)
					return
				}
				if len(hs) == 0 {
					continue // none due yet: the clock moves on
				}
				n, err := claimRound(ctx, db, owner, hs, 4, crawl.Limits{}, now, now.Add(time.Minute), func(string) []crawl.Link { return nil })
				if err != nil {
					failed.Store(err)
					return
				}
				claimed.Add(int64(n))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(claimed.Load())/b.Elapsed().Seconds(), "urls/s")
	b.ReportMetric(float64(inClaim.Load())/float64(claims.Load())/1e6, "ms/ClaimHosts")
}
