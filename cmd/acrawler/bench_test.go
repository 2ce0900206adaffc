package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/cputime"
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
// they share the process) and the process's peak RSS. The lean-process
// variant runs the crawler as a program of its own (built once with go
// build), so that its CPU time and peak RSS are the crawler's alone.
// ACRAWLER_BENCH_FLAGS adds crawl flags to the lean variants (e.g.
// "--no-rank" to leave out the PageRank pass at the end).
func BenchmarkCrawl(b *testing.B) {
	for _, be := range apptest.Backends {
		// full: everything on (main text, metadata, PDFs, WARC); lean: the
		// crawl pipeline alone (fetch, parse, links, store).
		b.Run(be.Name+"/full", func(b *testing.B) { benchmarkCrawl(b, be) })
		lean := append([]string{"--no-pdf", "--main-text=false", "--warc", "off"}, strings.Fields(os.Getenv("ACRAWLER_BENCH_FLAGS"))...)
		b.Run(be.Name+"/lean", func(b *testing.B) { benchmarkCrawl(b, be, lean...) })
		b.Run(be.Name+"/lean-process", func(b *testing.B) { benchmarkCrawl(b, be, append([]string{processFlag}, lean...)...) })
		// lean-bfs: the lean crawl in breadth-first order, without the
		// priority scoring, to measure what prioritization costs.
		b.Run(be.Name+"/lean-bfs", func(b *testing.B) {
			benchmarkCrawl(b, be, "--no-pdf", "--main-text=false", "--warc", "off", "--order", "bfs")
		})
	}
}

// processFlag, first among benchmarkCrawl's extra arguments, runs the
// crawl as a child process.
const processFlag = "(process)"

func benchmarkCrawl(b *testing.B, be apptest.Backend, extra ...string) {
	process := len(extra) > 0 && extra[0] == processFlag
	var bin string
	if process {
		extra = extra[1:]
		bin = filepath.Join(b.TempDir(), "acrawler")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	var childRSS int64
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
		db := be.NewDB(b)
		if d := os.Getenv("ACRAWLER_BENCH_DIR"); d != "" && be.Name == "sqlite" {
			db = filepath.Join(d, fmt.Sprintf("bench-%d-%d.db", os.Getpid(), i))
		}
		args := append([]string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--max-crawl-delay", "1ms",
			"--max-depth", "0", "--progress", "off", "--log-level", "error", "--workers", "32",
			"--robots-retry", "50ms", "--retry-base", "50ms",
			"--warc", filepath.Join(b.TempDir(), "warc")}, extra...)
		args = append(args, seeds...)
		var out, errb bytes.Buffer
		cpu0 := cputime.Process()
		start := time.Now()
		if process {
			cmd := exec.Command(bin, args...)
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				b.Fatalf("%v\n%s\n%s", err, out.String(), errb.String())
			}
			elapsed += time.Since(start)
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			childRSS = max(childRSS, ru.Maxrss<<10)
		} else {
			if err := Run(context.Background(), args, &out, &errb); err != nil {
				b.Fatalf("%v\n%s\n%s", err, out.String(), errb.String())
			}
			elapsed += time.Since(start)
			cpu += cputime.Process() - cpu0
		}
		d := apptest.OpenDB(b, db)
		pages += apptest.QueryInt(b, d, `SELECT count(*) FROM pages`)
		if dup := apptest.QueryInt(b, d, `SELECT count(*) - count(DISTINCT url) FROM pages`); dup != 0 {
			b.Fatalf("%d pages recorded twice", dup)
		}
		if i == 0 {
			b.Logf("%d seeds; %s", len(seeds), strings.SplitN(out.String(), "\n", 3)[1])
		}
	}
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(pages), "cpu-µs/page")
	if process {
		b.ReportMetric(float64(childRSS)/(1<<20), "crawler-peak-RSS-MiB")
	} else {
		b.ReportMetric(float64(maxRSS())/(1<<20), "peak-RSS-MiB")
	}
	b.ReportMetric(float64(pages)/float64(b.N), "pages/crawl")
}

func maxRSS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss << 10 // kilobytes on Linux
}

// BenchmarkRecrawl measures what a recrawl costs next to a full re-crawl:
// it crawls a 1,500-page test web, moves the web to its next state (about
// 10% of content pages changed, 3% removed, 5% added, and the listings and
// sitemaps that link to them updated), recrawls every page with
// conditional requests (recrawl --all), then crawls the new state from
// scratch into a fresh database. Run it with:
//
//	go test -run '^$' -bench BenchmarkRecrawl -benchtime 1x ./cmd/acrawler
//
// It reports the recrawl's body bytes and requests as a percentage of the
// full re-crawl's, the share of revisits answered 304, and the share of
// the first crawl's pages the advance changed. Bytes are response bodies:
// a 304 costs its headers alone.
func BenchmarkRecrawl(b *testing.B) {
	for _, be := range apptest.Backends {
		b.Run(be.Name, func(b *testing.B) { benchmarkRecrawl(b, be) })
	}
}

func benchmarkRecrawl(b *testing.B, be apptest.Backend) {
	var bytesPct, reqPct, notModPct, changedPct, revisitPct, newPct float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		web := testweb.New(testweb.Config{Seed: 7, Sites: 25, PagesPerSite: 60, NoFaults: true})
		srv := httptest.NewServer(web)
		var seeds []string
		for _, s := range web.Sites() {
			seeds = append(seeds, s.Origin+"/")
		}
		// crawlOnce runs a command and returns the body bytes it received
		// per URL, its requests and how many were answered 304.
		crawlOnce := func(cmd, db string, extra ...string) (bytes map[string]int64, reqs int, notMod int) {
			web.ResetRequests()
			args := append([]string{cmd, "--db", db, "--proxy", srv.URL, "--delay", "0", "--max-crawl-delay", "1ms",
				"--max-depth", "0", "--progress", "off", "--log-level", "error", "--workers", "16",
				"--robots-retry", "50ms", "--retry-base", "50ms",
				"--warc", filepath.Join(b.TempDir(), "warc")}, extra...)
			var out, errb strings.Builder
			if err := Run(context.Background(), args, &out, &errb); err != nil {
				b.Fatalf("acrawler %s: %v\n%s\n%s", cmd, err, out.String(), errb.String())
			}
			bytes = map[string]int64{}
			for _, r := range web.Requests() {
				if r.Method == "CONNECT" {
					continue
				}
				bytes[r.Host+r.Path] += r.Bytes
				reqs++
				if r.Status == 304 {
					notMod++
				}
			}
			return bytes, reqs, notMod
		}
		sum := func(m map[string]int64, keep func(string) bool) (n int64) {
			for k, v := range m {
				if keep(k) {
					n += v
				}
			}
			return n
		}
		all := func(string) bool { return true }
		db := be.NewDB(b)
		before, _, _ := crawlOnce("crawl", db, seeds...)
		known := func(k string) bool { _, ok := before[k]; return ok }
		unknown := func(k string) bool { return !known(k) }
		first := apptest.OpenDB(b, db)
		pages := apptest.QueryInt(b, first, `SELECT count(*) FROM pages`)
		web.Advance()
		changed, _, _ := web.Changes()
		b.StartTimer()
		rbs, rr, nm := crawlOnce("recrawl", db, "--all")
		b.StopTimer()
		first.Close()
		fbs, fr, _ := crawlOnce("crawl", be.NewDB(b), seeds...)
		srv.Close()
		rb, fb := sum(rbs, all), sum(fbs, all)
		bytesPct += 100 * float64(rb) / float64(fb)
		reqPct += 100 * float64(rr) / float64(fr)
		notModPct += 100 * float64(nm) / float64(rr)
		changedPct += 100 * float64(len(changed)) / float64(pages)
		// The URLs the first crawl knew (revisited with conditional
		// requests) apart from the pages that appeared since (fetched whole
		// by any crawl).
		revisitPct += 100 * float64(sum(rbs, known)) / float64(sum(fbs, known))
		newPct += 100 * float64(sum(rbs, unknown)) / float64(fb)
		if i == 0 {
			b.Logf("%d pages; %d changed by the advance; recrawl: %d requests, %d answered 304, %d body bytes (%d on new URLs); full re-crawl: %d requests, %d body bytes",
				pages, len(changed), rr, nm, rb, sum(rbs, unknown), fr, fb)
		}
	}
	n := float64(b.N)
	b.ReportMetric(bytesPct/n, "bytes-%-of-full")
	b.ReportMetric(revisitPct/n, "revisit-bytes-%-of-full")
	b.ReportMetric(newPct/n, "new-url-bytes-%-of-full")
	b.ReportMetric(reqPct/n, "requests-%-of-full")
	b.ReportMetric(notModPct/n, "304-%")
	b.ReportMetric(changedPct/n, "changed-%")
}

// BenchmarkReparse crawls a 1,500-page test web with everything on (main
// text, metadata, PDFs, WARC), then times `acrawler reparse`, which
// re-runs extraction on every archived response and rewrites the pages:
//
//	go test -run '^$' -bench BenchmarkReparse -benchtime 3x ./cmd/acrawler
func BenchmarkReparse(b *testing.B) {
	web := testweb.New(testweb.Config{Seed: 5, Sites: 25, PagesPerSite: 60, NoFaults: true})
	srv := httptest.NewServer(web)
	defer srv.Close()
	var seeds []string
	for _, s := range web.Sites() {
		seeds = append(seeds, s.Origin+"/")
	}
	db, warcDir := apptest.Backends[0].NewDB(b), filepath.Join(b.TempDir(), "warc")
	var out, errb strings.Builder
	args := append([]string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--max-crawl-delay", "1ms",
		"--max-depth", "0", "--progress", "off", "--log-level", "error", "--workers", "16",
		"--robots-retry", "50ms", "--retry-base", "50ms", "--warc", warcDir}, seeds...)
	if err := Run(context.Background(), args, &out, &errb); err != nil {
		b.Fatalf("crawl: %v\n%s", err, errb.String())
	}
	b.ResetTimer()
	var pages int
	for i := 0; i < b.N; i++ {
		out.Reset()
		if err := Run(context.Background(), []string{"reparse", "--db", db, "--warc", warcDir}, &out, &errb); err != nil {
			b.Fatalf("reparse: %v\n%s\n%s", err, out.String(), errb.String())
		}
		var n int
		if _, err := fmt.Sscanf(out.String(), "reparsed %d pages", &n); err != nil || n == 0 {
			b.Fatalf("reparse output %q", out.String())
		}
		pages += n
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}
