package sqlite

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/engine"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/score"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// BenchmarkCrawlWorks is the cost of works to a crawl: the engine crawls
// the default test web (PagesPerSite 60, about a third of its pages
// copies of papers; HTML only, delay 0, 16 workers) into a fresh SQLite
// store, with works (works) and without (no-works), in turn. It reports
// pages/s and the process's CPU per page; only the ratio of the two runs
// means much on a shared machine.
//
//	go test -run '^$' -bench BenchmarkCrawlWorks -benchtime 2x -count 3 ./internal/store/sqlite
func BenchmarkCrawlWorks(b *testing.B) {
	web := testweb.New(testweb.Config{Seed: 5, NoFaults: true})
	srv := httptest.NewServer(web)
	defer srv.Close()
	for _, off := range []bool{false, true} {
		name := "works"
		if off {
			name = "no-works"
		}
		b.Run(name, func(b *testing.B) {
			noWorks = off
			defer func() { noWorks = false }()
			var pages int64
			var elapsed, cpu time.Duration
			for b.Loop() {
				n, e, c := crawlOnce(b, web, srv.URL)
				pages, elapsed, cpu = pages+n, elapsed+e, cpu+c
			}
			b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(pages), "cpu-µs/page")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func crawlOnce(b *testing.B, web *testweb.Web, proxy string) (pages int64, elapsed, cpu time.Duration) {
	b.StopTimer()
	ctx := context.Background()
	norm, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	var seeds []string
	for _, s := range web.Seeds() {
		u, err := norm.Normalize(s)
		if err != nil {
			b.Fatal(err)
		}
		seeds = append(seeds, u)
	}
	sc, err := scope.New(scope.Host, seeds, nil, scope.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	pol, err := score.New(score.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	client, err := fetch.New(fetch.Config{UserAgent: "acrawler-bench/1.0", Timeout: 10 * time.Second, Proxy: proxy})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "crawl.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	e, err := engine.New(db, engine.Config{Seeds: seeds, Scope: sc, Normalizer: norm, Score: pol, Fetcher: client, Workers: 16,
		RetryBase: 20 * time.Millisecond, MainText: true,
		Frontier: frontier.Config{Token: "acrawler", Lease: time.Minute, MaxCrawlDelay: time.Millisecond, RobotsRetry: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}})
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	start, startCPU := time.Now(), cputime.Process()
	sum, err := e.Run(ctx)
	elapsed, cpu = time.Since(start), cputime.Process()-startCPU
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	n, err := db.WorkCount(ctx)
	if err != nil || (n == 0) != noWorks {
		b.Fatalf("%d works (%v) with works off = %v", n, err, noWorks)
	}
	b.StartTimer()
	return sum.Fetched, elapsed, cpu
}
