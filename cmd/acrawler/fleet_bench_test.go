package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// BenchmarkFleet measures what one PostgreSQL server carries: 1, 2, 4 and
// 8 crawl processes (this test binary run as the program, each a process
// of its own) crawl one crawl in one schema of the server named by
// ACRAWLER_TEST_POSTGRES, on the uniform test web (testweb.Uniform: 10 KB
// pages, 30 links each) served on loopback through the proxy interface,
// politeness delay 0, no WARC files, no main-text extraction, 16 workers
// a process. Run it with:
//
//	ACRAWLER_TEST_POSTGRES=... go test -run '^$' -bench BenchmarkFleet -benchtime 1x -timeout 60m ./cmd/acrawler
//
// The figures are those of the steady part of each crawl, from the
// moment a tenth of the web's pages are recorded to the moment nine tenths
// are (sampled every 200 ms): pages/s (pages claimed, fetched and
// committed by the fleet), the server's write transactions per second
// (xact_commit of the database), the server's CPU time per page and its
// share of the machine (CPU seconds per second of wall time over the
// machine's cores), and the crawl processes' and the test web's CPU per
// page. The server's CPU is read from /proc: the postmaster's own and its
// reaped children's time plus its live children's, so it needs the server
// on this machine (and is 0 otherwise); it counts every client of the
// server, so the figures are the fleet's only on a server of its own.
//
// ACRAWLER_FLEET_PROCS lists the fleet sizes (default 1,2,4,8),
// ACRAWLER_FLEET_HOSTS and ACRAWLER_FLEET_PAGES size the web (default 400
// hosts of 50 pages), ACRAWLER_FLEET_WORKERS the workers of a process, and
// ACRAWLER_FLEET_FLAGS adds crawl flags to every process.
func BenchmarkFleet(b *testing.B) {
	pgtest.DSN(b) // skips without ACRAWLER_TEST_POSTGRES
	web := testweb.NewUniform(testweb.UniformConfig{Seed: 1,
		Hosts: envInt("ACRAWLER_FLEET_HOSTS", 400), Pages: envInt("ACRAWLER_FLEET_PAGES", 50)})
	srv := httptest.NewServer(web)
	defer srv.Close()
	bin, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	sizes := []int{1, 2, 4, 8}
	if v := os.Getenv("ACRAWLER_FLEET_PROCS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("ACRAWLER_FLEET_PROCS: %q is not a list of process counts", v)
			}
			sizes = append(sizes, n)
		}
	}
	cfg := web.Config()
	b.Logf("uniform web: %d hosts × %d pages, %d links", cfg.Hosts, cfg.Pages, web.LinkCount())
	for _, n := range sizes {
		b.Run(fmt.Sprintf("procs=%d", n), func(b *testing.B) {
			var sum fleetRun
			for range b.N {
				sum.add(runFleet(b, bin, srv.URL, web, n))
			}
			sum.report(b)
		})
	}
}

// fleetSample is the state of a fleet's crawl at one moment.
type fleetSample struct {
	at        time.Time
	pages     int64
	xacts     int64
	server    time.Duration // the PostgreSQL server's CPU time so far
	crawlers  time.Duration // the crawl processes' CPU time so far
	benchSelf time.Duration // this process's (the test web's) CPU time so far
}

// fleetRun is the steady window of one or more fleet crawls.
type fleetRun struct {
	elapsed                   time.Duration
	pages, xacts              int64
	server, crawlers, webCPU  time.Duration
	total, totalPages, totalN int64 // whole crawls: wall ms, pages, runs
}

func (r *fleetRun) add(o fleetRun) {
	r.elapsed += o.elapsed
	r.pages += o.pages
	r.xacts += o.xacts
	r.server += o.server
	r.crawlers += o.crawlers
	r.webCPU += o.webCPU
	r.total += o.total
	r.totalPages += o.totalPages
	r.totalN += o.totalN
}

func (r *fleetRun) report(b *testing.B) {
	pages := float64(max(r.pages, 1))
	secs := r.elapsed.Seconds()
	b.ReportMetric(pages/secs, "pages/s")
	b.ReportMetric(float64(r.xacts)/secs, "xacts/s")
	b.ReportMetric(float64(r.server.Microseconds())/pages, "pg-cpu-µs/page")
	b.ReportMetric(100*r.server.Seconds()/secs/float64(runtime.NumCPU()), "pg-%-of-machine")
	b.ReportMetric(float64(r.crawlers.Microseconds())/pages, "crawlers-cpu-µs/page")
	b.ReportMetric(float64(r.webCPU.Microseconds())/pages, "web-cpu-µs/page")
	if all := r.server + r.crawlers + r.webCPU; all > 0 {
		b.ReportMetric(100*r.server.Seconds()/all.Seconds(), "pg-%-of-cpu")
	}
	b.ReportMetric(float64(r.totalPages)*1000/float64(max(r.total, 1)), "whole-crawl-pages/s")
}

// runFleet crawls the web with n processes at once on a fresh schema and
// returns the figures of the steady window.
func runFleet(b *testing.B, bin, proxy string, web *testweb.Uniform, n int) fleetRun {
	db := pgtest.SchemaDSN(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	cfg := web.Config()
	want := int64(cfg.Hosts * cfg.Pages)
	workers := strconv.Itoa(envInt("ACRAWLER_FLEET_WORKERS", 16))
	procs := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	done := make(chan error, n)
	start := time.Now()
	for i := range procs {
		args := []string{"crawl", "--db", db, "--proxy", proxy, "--delay", "0", "--max-crawl-delay", "1ms",
			"--max-depth", "0", "--progress", "off", "--log-level", "error", "--workers", workers, "--no-sitemaps",
			"--robots-retry", "50ms", "--retry-base", "50ms", "--warc", "off", "--main-text=false"}
		args = append(args, strings.Fields(os.Getenv("ACRAWLER_FLEET_FLAGS"))...)
		args = append(args, web.Seeds()...)
		procs[i] = programCommand(bin, args...)
		outs[i] = &bytes.Buffer{}
		procs[i].Stdout, procs[i].Stderr = outs[i], outs[i]
		if err := procs[i].Start(); err != nil {
			b.Fatal(err)
		}
		go func() { done <- procs[i].Wait() }()
	}
	defer func() {
		for _, p := range procs {
			if p.ProcessState == nil {
				p.Process.Kill()
			}
		}
	}()
	sample := func() fleetSample {
		s := fleetSample{at: time.Now()}
		if err := conn.QueryRow(ctx, `SELECT coalesce(sum(pages), 0)::bigint FROM counters`).Scan(&s.pages); err != nil &&
			!strings.Contains(err.Error(), "does not exist") { // before the first process created the tables
			b.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`).Scan(&s.xacts); err != nil {
			b.Fatal(err)
		}
		s.server = serverCPU(ctx, conn)
		for _, p := range procs {
			if c, _, ok := procCPU(p.Process.Pid); ok {
				s.crawlers += c
			}
		}
		s.benchSelf, _, _ = procCPU(os.Getpid())
		return s
	}
	var samples []fleetSample
	running := n
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Minute)
	for running > 0 {
		select {
		case err := <-done:
			running--
			if err != nil {
				b.Fatalf("crawl process: %v\n%s", err, joinOutputs(outs))
			}
		case <-tick.C:
			s := sample()
			samples = append(samples, s)
		case <-deadline:
			b.Fatalf("the fleet did not finish in 30 minutes\n%s", joinOutputs(outs))
		}
	}
	total := time.Since(start)
	pages := crawledPages(b, db)
	if pages < want*9/10 {
		b.Fatalf("the fleet recorded %d pages of %d\n%s", pages, want, joinOutputs(outs))
	}
	// The steady window: from the first sample with a tenth of the pages
	// to the first with nine tenths.
	var from, to *fleetSample
	for i := range samples {
		s := &samples[i]
		if from == nil && s.pages >= want/10 {
			from = s
		}
		if to == nil && s.pages >= want*9/10 {
			to = s
		}
	}
	if from == nil || to == nil || to == from {
		b.Fatalf("no steady window in %d samples (crawl of %s)", len(samples), total)
	}
	// Processes that exited before the window's end no longer show their
	// CPU time: the crawlers' figure is a lower bound then.
	return fleetRun{elapsed: to.at.Sub(from.at), pages: to.pages - from.pages, xacts: to.xacts - from.xacts,
		server: to.server - from.server, crawlers: to.crawlers - from.crawlers, webCPU: to.benchSelf - from.benchSelf,
		total: total.Milliseconds(), totalPages: pages, totalN: 1}
}

func joinOutputs(outs []*bytes.Buffer) string {
	var sb strings.Builder
	for i, o := range outs {
		fmt.Fprintf(&sb, "--- process %d\n%s\n", i, o.String())
	}
	return sb.String()
}

// serverCPU returns the CPU time used so far by the PostgreSQL server conn
// is connected to, when it runs on this machine: its postmaster's own and
// reaped children's time plus its live children's (backends, background
// workers). 0 when /proc does not show it.
func serverCPU(ctx context.Context, conn *pgx.Conn) time.Duration {
	var backend int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return 0
	}
	f := statFields(backend)
	if len(f) < 2 {
		return 0
	}
	pm, _ := strconv.Atoi(f[1]) // ppid: the postmaster
	ticks := statTicks(pm, true)
	children, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pm))
	for _, c := range children {
		list, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		for _, p := range strings.Fields(string(list)) {
			pid, _ := strconv.Atoi(p)
			ticks += statTicks(pid, false)
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// statTicks returns a process's user and system time in clock ticks, with
// its reaped children's if reaped is set.
func statTicks(pid int, reaped bool) int64 {
	f := statFields(pid)
	if len(f) < 15 {
		return 0
	}
	last := 13
	if reaped {
		last = 15
	}
	var ticks int64
	for _, v := range f[11:last] {
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return ticks
}

// statFields returns the fields of /proc/PID/stat after the command name
// (state first), or nil.
func statFields(pid int) []string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
}
