package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/testweb"
)

// BenchmarkCrawl crawls the 20,000-page test web, on each backend, (100 generated sites of
// 200 pages, served in-process through the proxy interface on loopback)
// with politeness delay 0 and everything persisted to SQLite, once per
// iteration. Run it with:
//
//	go test -run '^$' -bench BenchmarkCrawl -benchtime 1x ./cmd/acrawler
//
// (the PostgreSQL run needs ACRAWLER_TEST_POSTGRES).
//
// It reports pages/s, CPU time per page (crawler and test web together, as
// they share the process) and the process's peak RSS.
func BenchmarkCrawl(b *testing.B) {
	for _, be := range backends {
		// full: everything on (main text, metadata, PDFs, WARC); lean: the
		// crawl pipeline alone (fetch, parse, links, store), as issue 2
		// specifies it.
		b.Run(be.name+"/full", func(b *testing.B) { benchmarkCrawl(b, be) })
		b.Run(be.name+"/lean", func(b *testing.B) {
			benchmarkCrawl(b, be, "--no-pdf", "--main-text=false", "--warc", "off")
		})
	}
}

func benchmarkCrawl(b *testing.B, be backend, extra ...string) {
	web := testweb.New(testweb.Config{Seed: 1, Sites: 100, PagesPerSite: 120, NoFaults: true})
	srv := httptest.NewServer(web)
	defer srv.Close()
	var seeds []string
	for _, s := range web.Sites() {
		if strings.Contains(s.Host, "uni-") || strings.Contains(s.Host, "journal-0") || strings.Contains(s.Host, "journal-1") || strings.Contains(s.Host, "lab-") {
			seeds = append(seeds, s.Origin+"/")
		}
	}
	var pages int64
	var cpu time.Duration
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		db := be.newDB(b)
		if d := os.Getenv("ACRAWLER_BENCH_DIR"); d != "" && be.name == "sqlite" {
			db = filepath.Join(d, fmt.Sprintf("bench-%d-%d.db", os.Getpid(), i))
		}
		args := append([]string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--max-crawl-delay", "1ms",
			"--max-depth", "0", "--progress", "off", "--log-level", "error", "--workers", "32",
			"--warc", filepath.Join(b.TempDir(), "warc")}, extra...)
		args = append(args, seeds...)
		var out, errb bytes.Buffer
		cpu0 := cpuTime()
		start := time.Now()
		if err := Run(context.Background(), args, &out, &errb); err != nil {
			b.Fatalf("%v\n%s\n%s", err, out.String(), errb.String())
		}
		elapsed += time.Since(start)
		cpu += cpuTime() - cpu0
		d := openDB(b, db)
		pages += queryInt(b, d, `SELECT count(*) FROM pages`)
		if dup := queryInt(b, d, `SELECT count(*) - count(DISTINCT url) FROM pages`); dup != 0 {
			b.Fatalf("%d pages recorded twice", dup)
		}
		if i == 0 {
			b.Logf("%d seeds; %s", len(seeds), strings.SplitN(out.String(), "\n", 3)[1])
		}
	}
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(pages), "cpu-µs/page")
	b.ReportMetric(float64(maxRSS())/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(pages)/float64(b.N), "pages/crawl")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func maxRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss << 10 // kilobytes on Linux
}
