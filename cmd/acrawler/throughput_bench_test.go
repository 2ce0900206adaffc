package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/testweb"
)

// BenchmarkThroughput measures the crawler against the limit of its
// hardware: a bare Go loop that fetches and tokenizes the same pages. The
// web is uniform (testweb.Uniform): 100 hosts of 200 pages, 10 KB of HTML
// and 30 links each (20 to the same host, 8 to other hosts, the next page
// of the host and the same page of the next host), served on loopback
// through the proxy interface, politeness delay 0, 64 workers, no sitemaps.
// Run it with:
//
//	go test -run '^$' -bench BenchmarkThroughput -benchtime 1x -timeout 60m ./cmd/acrawler
//
// Sub-benchmarks:
//
//   - bare: the loop alone (4 workers, each page fetched once, its body
//     read whole and tokenized with x/net/html).
//   - sqlite/default, sqlite/lean (--warc off --main-text=false) and
//     postgres/default (with ACRAWLER_TEST_POSTGRES; a server on this
//     machine reports its CPU per page too): the crawler as a
//     program of its own, right after a bare loop in the same run, so that
//     the ratio holds however loaded the machine is. They report pages/s
//     end to end and for the crawl phase (until the frontier is exhausted),
//     the end-of-crawl pass's seconds (PageRank, anchor text, search tier),
//     CPU per page for each phase and peak RSS, all of the crawler's
//     process alone, and the ratios to the bare loop; and, on Linux, how
//     busy the whole machine was in each phase (machine-busy-%, every
//     process's share of the cores: near 100 the crawl has no core to
//     spare).
//   - sqlite/default-stages: the default crawl in this process under the
//     CPU profiler, its samples split by stage (fetch, parse, extract, main
//     text, WARC, frontier, write, end-of-crawl pass, GC); the test web's
//     own samples are left out. Under go test -cpuprofile it reports the
//     phases only.
//
// ACRAWLER_THROUGHPUT_HOSTS and ACRAWLER_THROUGHPUT_PAGES shrink the web
// for a quick run; ACRAWLER_THROUGHPUT_FLAGS adds crawl flags to every
// crawl (e.g. "--warc off" to see what the archive costs);
// ACRAWLER_THROUGHPUT_PROFILE names a file to keep the stages run's CPU
// profile in; ACRAWLER_THROUGHPUT_TRACE names a file to record the stages
// run's execution trace in, and has it report where the committing
// goroutine's time went (writer-…-%: running, runnable waiting for a
// processor, in system calls, waiting for results or locks);
// ACRAWLER_THROUGHPUT_BASELINE names the tree of an earlier
// commit (`git archive COMMIT | tar -x -C DIR`) whose program each crawl
// sub-benchmark also runs, right after its own crawl, reporting its figures
// as base-… and the ratio as x-base: on a shared machine only such
// same-run comparisons tell what a change gained.
func BenchmarkThroughput(b *testing.B) {
	web := testweb.NewUniform(testweb.UniformConfig{Seed: 1,
		Hosts: envInt("ACRAWLER_THROUGHPUT_HOSTS", 100), Pages: envInt("ACRAWLER_THROUGHPUT_PAGES", 200)})
	srv := httptest.NewServer(web)
	defer srv.Close()
	bin := filepath.Join(b.TempDir(), "acrawler")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	baseBin := ""
	if dir := os.Getenv("ACRAWLER_THROUGHPUT_BASELINE"); dir != "" {
		baseBin = filepath.Join(b.TempDir(), "acrawler-baseline")
		cmd := exec.Command("go", "build", "-o", baseBin, "./cmd/acrawler")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build the baseline in %s: %v\n%s", dir, err, out)
		}
	}
	cfg := web.Config()
	b.Logf("uniform web: %d hosts × %d pages, %d bytes each, %d links", cfg.Hosts, cfg.Pages, cfg.PageBytes, web.LinkCount())
	b.Run("bare", func(b *testing.B) {
		var r throughputRun
		for range b.N {
			r.add(bareLoop(b, srv.URL, cfg))
		}
		r.report(b, "")
	})
	lean := []string{"--warc", "off", "--main-text=false"}
	for _, v := range []struct {
		name  string
		be    apptest.Backend
		flags []string
	}{
		{"sqlite/default", apptest.Backends[0], nil},
		{"sqlite/lean", apptest.Backends[0], lean},
		{"postgres/default", apptest.Backends[1], nil},
	} {
		b.Run(v.name, func(b *testing.B) {
			var bare, r, base throughputRun
			crawl := func(bin string) throughputRun {
				db := v.be.NewDB(b) // skips postgres without ACRAWLER_TEST_POSTGRES
				pg0 := postgresCPU(db)
				run := crawlProcess(b, bin, throughputArgs(b, db, srv.URL, web, v.flags))
				if pg0 >= 0 {
					run.serverCPU = postgresCPU(db) - pg0
				}
				return run
			}
			for range b.N {
				bare.add(bareLoop(b, srv.URL, cfg))
				r.add(crawl(bin))
				if baseBin != "" {
					base.add(crawl(baseBin))
				}
			}
			r.report(b, "")
			bare.report(b, "bare-")
			if baseBin != "" {
				base.report(b, "base-")
				b.ReportMetric(r.pagesPerSec()/base.pagesPerSec(), "x-base")
			}
			b.ReportMetric(100*r.pagesPerSec()/bare.pagesPerSec(), "%-of-bare")
			b.ReportMetric(r.cpuPerPage()/bare.cpuPerPage(), "cpu-x-bare")
		})
	}
	b.Run("sqlite/default-stages", func(b *testing.B) {
		for range b.N {
			crawlStages(b, throughputArgs(b, apptest.Backends[0].NewDB(b), srv.URL, web, nil))
		}
	})
}

// throughputArgs returns the crawl command for the uniform web.
func throughputArgs(b *testing.B, db, proxy string, web *testweb.Uniform, flags []string) []string {
	args := []string{"crawl", "--db", db, "--proxy", proxy, "--delay", "0", "--max-crawl-delay", "1ms",
		"--max-depth", "0", "--progress", "off", "--log-level", "error", "--workers", "64", "--no-sitemaps",
		"--robots-retry", "50ms", "--retry-base", "50ms"}
	if !containsFlag(flags, "--warc") {
		args = append(args, "--warc", filepath.Join(b.TempDir(), "warc"))
	}
	args = append(args, flags...)
	args = append(args, strings.Fields(os.Getenv("ACRAWLER_THROUGHPUT_FLAGS"))...)
	return append(args, web.Seeds()...)
}

func containsFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// throughputRun is the figures of one or more runs of the bare loop or of
// a crawl.
type throughputRun struct {
	pages                 int64
	elapsed, crawl        time.Duration // end to end; the crawl phase
	cpu, crawlCPU         time.Duration
	serverCPU             time.Duration // PostgreSQL's processes, when local
	peakRSS, crawlRSS     int64
	diskBytes, linkBytes  int64     // SQLite: the database and WAL; the tables and indexes of links
	links                 int64     // links recorded
	phases                bool      // crawl and crawlCPU are measured
	crawlTicks, passTicks busyTicks // the machine's, in each phase (Linux)
	runs                  int
	minRate, maxRate      float64
	minCPUPage, maxCPUPg  float64
}

func (r *throughputRun) add(o throughputRun) {
	rate := float64(o.pages) / o.elapsed.Seconds()
	cpuPage := float64(o.cpu.Microseconds()) / float64(max(o.pages, 1))
	if r.runs == 0 || rate < r.minRate {
		r.minRate = rate
	}
	r.maxRate = max(r.maxRate, rate)
	if r.runs == 0 || cpuPage < r.minCPUPage {
		r.minCPUPage = cpuPage
	}
	r.maxCPUPg = max(r.maxCPUPg, cpuPage)
	r.runs++
	r.pages += o.pages
	r.elapsed += o.elapsed
	r.crawl += o.crawl
	r.cpu += o.cpu
	r.serverCPU += o.serverCPU
	r.crawlCPU += o.crawlCPU
	r.peakRSS = max(r.peakRSS, o.peakRSS)
	r.crawlRSS = max(r.crawlRSS, o.crawlRSS)
	r.diskBytes += o.diskBytes
	r.linkBytes += o.linkBytes
	r.links += o.links
	r.phases = o.phases
	r.crawlTicks = r.crawlTicks.plus(o.crawlTicks)
	r.passTicks = r.passTicks.plus(o.passTicks)
}

func (r *throughputRun) pagesPerSec() float64 { return float64(r.pages) / r.elapsed.Seconds() }
func (r *throughputRun) cpuPerPage() float64 {
	return float64(r.cpu.Microseconds()) / float64(max(r.pages, 1))
}

func (r *throughputRun) report(b *testing.B, prefix string) {
	pages := float64(max(r.pages, 1))
	b.ReportMetric(r.pagesPerSec(), prefix+"pages/s")
	b.ReportMetric(r.cpuPerPage(), prefix+"cpu-µs/page")
	b.ReportMetric(float64(r.peakRSS)/(1<<20), prefix+"peak-RSS-MiB")
	if r.diskBytes > 0 {
		b.ReportMetric(float64(r.diskBytes)/pages, prefix+"disk-B/page")
	}
	if r.linkBytes > 0 && r.links > 0 {
		b.ReportMetric(float64(r.linkBytes)/float64(r.links), prefix+"link-B/link")
	}
	if r.serverCPU > 0 {
		b.ReportMetric(float64(r.serverCPU.Microseconds())/pages, prefix+"postgres-cpu-µs/page")
	}
	if r.phases {
		pass := r.elapsed - r.crawl
		b.ReportMetric(pages/r.crawl.Seconds(), prefix+"crawl-phase-pages/s")
		b.ReportMetric(float64(r.crawlCPU.Microseconds())/pages, prefix+"crawl-phase-cpu-µs/page")
		b.ReportMetric(pass.Seconds()/float64(r.runs), prefix+"end-pass-s")
		b.ReportMetric(float64((r.cpu-r.crawlCPU).Microseconds())/pages, prefix+"end-pass-cpu-µs/page")
		b.ReportMetric(float64(r.crawlRSS)/(1<<20), prefix+"crawl-phase-peak-RSS-MiB")
		// Every process's share of the machine: whether the cores had
		// time to spare (the test web's server is in it too).
		if r.crawlTicks.total > 0 && r.passTicks.total > 0 {
			b.ReportMetric(r.crawlTicks.percent(), prefix+"crawl-phase-machine-busy-%")
			b.ReportMetric(r.passTicks.percent(), prefix+"end-pass-machine-busy-%")
		}
	}
	if prefix == "" {
		b.ReportMetric(pages/float64(r.runs), "pages/run")
	}
	if r.runs > 1 {
		b.Logf("%s%d runs: %.0f-%.0f pages/s, %.0f-%.0f CPU µs/page", prefix, r.runs, r.minRate, r.maxRate, r.minCPUPage, r.maxCPUPg)
	}
}

// bareLoop runs the bare fetch-and-tokenize loop as a process of its own
// (this test binary, running TestThroughputBareLoop), so that its CPU time
// and peak RSS are its own and not the test web's.
func bareLoop(b *testing.B, proxy string, cfg testweb.UniformConfig) throughputRun {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestThroughputBareLoop$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "ACRAWLER_THROUGHPUT_BARE="+proxy,
		fmt.Sprintf("ACRAWLER_THROUGHPUT_HOSTS=%d", cfg.Hosts), fmt.Sprintf("ACRAWLER_THROUGHPUT_PAGES=%d", cfg.Pages))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("bare loop: %v\n%s", err, out.String())
	}
	elapsed := time.Since(start)
	var pages, links int64
	if i := strings.Index(out.String(), "bare loop:"); i < 0 {
		b.Fatalf("bare loop printed no figures:\n%s", out.String())
	} else if _, err := fmt.Sscanf(out.String()[i:], "bare loop: %d pages, %d links", &pages, &links); err != nil {
		b.Fatalf("bare loop output: %v\n%s", err, out.String())
	}
	if want := int64(cfg.Hosts * cfg.Pages); pages != want {
		b.Fatalf("bare loop fetched %d pages, want %d", pages, want)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return throughputRun{pages: pages, elapsed: elapsed,
		cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), peakRSS: ru.Maxrss << 10}
}

// TestThroughputBareLoop is the bare loop of BenchmarkThroughput, run in a
// process of its own; it does nothing unless ACRAWLER_THROUGHPUT_BARE names
// the test web's proxy.
func TestThroughputBareLoop(t *testing.T) {
	proxy := os.Getenv("ACRAWLER_THROUGHPUT_BARE")
	if proxy == "" {
		t.Skip("the bare loop of BenchmarkThroughput")
	}
	pu, err := url.Parse(proxy)
	if err != nil {
		t.Fatal(err)
	}
	web := testweb.NewUniform(testweb.UniformConfig{Seed: 1,
		Hosts: envInt("ACRAWLER_THROUGHPUT_HOSTS", 100), Pages: envInt("ACRAWLER_THROUGHPUT_PAGES", 200)})
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{Proxy: http.ProxyURL(pu), MaxIdleConnsPerHost: 8}}
	urls := make(chan string)
	var pages, links atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for u := range urls {
				n, err := fetchTokenize(client, u)
				if err != nil {
					errs <- err
					return
				}
				pages.Add(1)
				links.Add(int64(n))
			}
		})
	}
	for _, u := range web.URLs() {
		select {
		case urls <- u:
		case err := <-errs:
			t.Fatal(err)
		}
	}
	close(urls)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	fmt.Printf("bare loop: %d pages, %d links\n", pages.Load(), links.Load())
}

// fetchTokenize fetches a page and tokenizes it, counting its links.
func fetchTokenize(client *http.Client, u string) (int, error) {
	resp, err := client.Get(u)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	z := html.NewTokenizer(resp.Body)
	n := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return n, nil
			}
			return n, fmt.Errorf("GET %s: %w", u, z.Err())
		case html.StartTagToken:
			if name, attr := z.TagName(); len(name) == 1 && name[0] == 'a' && attr {
				for {
					k, _, more := z.TagAttr()
					if string(k) == "href" {
						n++
					}
					if !more {
						break
					}
				}
			}
		}
	}
}

// crawlProcess runs the crawl as a program of its own. The end of the
// crawl phase is when the crawl prints its summary, before the end-of-crawl
// pass; the process's CPU time and peak RSS then are read from /proc.
func crawlProcess(b *testing.B, bin string, args []string) throughputRun {
	cmd := exec.Command(bin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	t0, _ := machineTicks()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var r throughputRun
	t1 := t0
	var out bytes.Buffer
	br := bufio.NewReader(stdout)
	if line, err := br.ReadString('\n'); err == nil {
		r.crawl = time.Since(start)
		r.crawlCPU, r.crawlRSS, r.phases = procCPU(cmd.Process.Pid)
		t1, _ = machineTicks()
		out.WriteString(line)
	}
	io.Copy(&out, br)
	if err := cmd.Wait(); err != nil {
		b.Fatalf("%v\n%s\n%s", err, out.String(), errb.String())
	}
	r.elapsed = time.Since(start)
	t2, _ := machineTicks()
	r.crawlTicks, r.passTicks = t1.minus(t0), t2.minus(t1)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r.peakRSS = ru.Maxrss << 10
	r.pages = crawledPages(b, args[2])
	r.diskBytes, r.linkBytes, r.links = diskUse(b, args[2])
	if lines := strings.SplitN(out.String(), "\n", 3); len(lines) > 1 {
		b.Logf("%s", strings.TrimSpace(lines[1]))
	}
	return r
}

// busyTicks are the machine's clock ticks of work and in all, from the
// first line of /proc/stat.
type busyTicks struct{ busy, total uint64 }

func (t busyTicks) plus(o busyTicks) busyTicks  { return busyTicks{t.busy + o.busy, t.total + o.total} }
func (t busyTicks) minus(o busyTicks) busyTicks { return busyTicks{t.busy - o.busy, t.total - o.total} }
func (t busyTicks) percent() float64            { return 100 * float64(t.busy) / float64(max(t.total, 1)) }

// machineTicks reads the machine's ticks so far; ok is false where
// /proc/stat cannot be read.
func machineTicks() (busyTicks, bool) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return busyTicks{}, false
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	return parseCPUTicks(line)
}

// parseCPUTicks reads the "cpu" line of /proc/stat: user, nice, system,
// idle, iowait, irq, softirq and steal ticks (guest time is counted in
// user already); idle and iowait are the ticks without work.
func parseCPUTicks(line string) (busyTicks, bool) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return busyTicks{}, false
	}
	var t busyTicks
	for i, v := range f[1:9] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return busyTicks{}, false
		}
		t.total += n
		if i != 3 && i != 4 {
			t.busy += n
		}
	}
	return t, true
}

// procCPU returns a running process's CPU time and peak RSS so far, from
// /proc (Linux); ok is false elsewhere.
func procCPU(pid int) (cpu time.Duration, rss int64, ok bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The fields after the command name: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	var utime, stime int64
	if len(f) < 13 {
		return 0, 0, false
	}
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	const ticks = 100 // USER_HZ on Linux
	cpu = time.Duration(utime+stime) * time.Second / ticks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return cpu, 0, true
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			rss = kb << 10
		}
	}
	return cpu, rss, true
}

// postgresCPU returns the CPU time used so far by the PostgreSQL server
// that db names, when it runs on this machine: the sum over the processes
// called postgres of their own and their waited-for children's time, so
// that backends that have exited still count. It is -1 for a SQLite
// database, a remote server or where /proc is not. The server's other
// clients count too: on a shared server the figure is an upper bound.
func postgresCPU(db string) time.Duration {
	if !apptest.IsPostgres(db) {
		return -1
	}
	if u, err := url.Parse(db); err != nil || !(u.Hostname() == "localhost" || strings.HasPrefix(u.Hostname(), "127.") || u.Hostname() == "::1") {
		return -1
	}
	procs, err := filepath.Glob("/proc/[0-9]*/comm")
	if err != nil || len(procs) == 0 {
		return -1
	}
	var ticks int64
	for _, comm := range procs {
		name, err := os.ReadFile(comm)
		if err != nil || strings.TrimSpace(string(name)) != "postgres" {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(comm), "stat"))
		if err != nil {
			continue
		}
		// utime, stime, cutime, cstime: fields 14 to 17.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 15 {
			continue
		}
		for _, v := range f[11:15] {
			var n int64
			fmt.Sscan(v, &n)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// crawledPages counts the pages a crawl recorded, and fails the benchmark
// if one was recorded twice.
func crawledPages(b *testing.B, db string) int64 {
	d := apptest.OpenDB(b, db)
	defer d.Close()
	if dup := apptest.QueryInt(b, d, `SELECT count(*) - count(DISTINCT url) FROM pages`); dup != 0 {
		b.Fatalf("%d pages recorded twice", dup)
	}
	return apptest.QueryInt(b, d, `SELECT count(*) FROM pages`)
}

// linkTables are the tables and indexes that hold links, in every
// schema so far: rows with links_target, then compact rows with inlinks
// and the URL text of targets the crawl did not take.
var linkTables = []string{"links", "links_target", "outlinks", "inlinks", "link_urls"}

// diskUse returns, for a SQLite database, its bytes on disk (with its
// write-ahead log), the bytes of the b-trees holding links (dbstat) and
// the links recorded; zeros for PostgreSQL.
func diskUse(b *testing.B, db string) (disk, links, n int64) {
	if apptest.IsPostgres(db) {
		return 0, 0, 0
	}
	for _, f := range []string{db, db + "-wal"} {
		if fi, err := os.Stat(f); err == nil {
			disk += fi.Size()
		}
	}
	d := apptest.OpenDB(b, db)
	defer d.Close()
	n = apptest.QueryInt(b, d, `SELECT value FROM counters WHERE name = 'links'`)
	for _, t := range linkTables {
		var size sql.NullInt64
		if err := d.QueryRow(`SELECT sum(pgsize) FROM dbstat WHERE name = ?`, t).Scan(&size); err != nil {
			b.Logf("link bytes: %v", err)
			return disk, 0, n
		}
		if size.Valid && n > 0 {
			b.Logf("%s: %d bytes, %.1f a link", t, size.Int64, float64(size.Int64)/float64(n))
		}
		links += size.Int64
	}
	return disk, links, n
}

// phaseWriter notes when the crawl writes its first byte to stdout: the
// summary, printed when the crawl phase ends.
type phaseWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	at  time.Time
	cpu time.Duration
}

func (w *phaseWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at.IsZero() {
		w.at, w.cpu = time.Now(), cputime.Process()
	}
	return w.buf.Write(p)
}

// crawlStages runs the crawl in this process under the CPU profiler and
// reports its CPU per page split by stage.
func crawlStages(b *testing.B, args []string) {
	prof := filepath.Join(b.TempDir(), "cpu.pprof")
	if keep := os.Getenv("ACRAWLER_THROUGHPUT_PROFILE"); keep != "" {
		prof = keep
	}
	f, err := os.Create(prof)
	if err != nil {
		b.Fatal(err)
	}
	profiling := pprof.StartCPUProfile(f) == nil
	if !profiling {
		b.Logf("CPU profiler already running (go test -cpuprofile): phases only")
	}
	var out phaseWriter
	var errb bytes.Buffer
	stopTrace := traceWriter(b)
	cpu0, start := cputime.Process(), time.Now()
	err = Run(context.Background(), args, &out, &errb)
	elapsed, cpu := time.Since(start), cputime.Process()-cpu0
	if profiling {
		pprof.StopCPUProfile()
	}
	stopTrace()
	f.Close()
	if err != nil {
		b.Fatalf("%v\n%s\n%s", err, out.buf.String(), errb.String())
	}
	pages := crawledPages(b, args[2])
	fp := float64(max(pages, 1))
	b.ReportMetric(fp/elapsed.Seconds(), "pages/s")
	crawlPhase := out.at.Sub(start)
	b.ReportMetric(fp/crawlPhase.Seconds(), "crawl-phase-pages/s")
	b.ReportMetric((elapsed - crawlPhase).Seconds(), "end-pass-s")
	b.ReportMetric(float64(cpu.Microseconds())/fp, "cpu-µs/page-with-web")
	if !profiling {
		return
	}
	stages, err := profileStages(prof)
	if err != nil {
		b.Fatal(err)
	}
	var total, crawler time.Duration
	for _, s := range stageOrder {
		total += stages[s]
		if s != stageWeb {
			crawler += stages[s]
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "CPU by stage, %d pages (%d µs/page sampled for the crawler, %d for the test web):\n",
		pages, crawler.Microseconds()/max(pages, 1), stages[stageWeb].Microseconds()/max(pages, 1))
	for _, s := range stageOrder {
		if stages[s] == 0 {
			continue
		}
		us := float64(stages[s].Microseconds()) / fp
		fmt.Fprintf(&table, "  %-36s %6.0f µs/page %5.1f%%\n", s, us, 100*float64(stages[s])/float64(max(crawler, 1)))
		if s != stageWeb {
			b.ReportMetric(us, stageMetric(s))
		}
	}
	// Printed whole: a benchmark's log is cut at ten lines without -v.
	fmt.Print(table.String())
}

func stageMetric(s string) string {
	name, _, _ := strings.Cut(s, " (")
	name = strings.NewReplacer(": ", "-", " ", "-", ",", "").Replace(name)
	return name + "-µs/page"
}

// The stages a CPU sample is counted under; the first rule whose pattern
// is in one of the sample's frames decides.
const (
	stageWeb        = "test web (server, not counted)"
	stageEndPass    = "end-of-crawl pass (rank, close)"
	stageFTS        = "write: full-text index"
	stageIndexBuild = "index: segments built"
	stageLinks      = "write: link rows"
	stagePages      = "write: page rows"
	stageInlinks    = "write: inlink counts"
	stageTxCommit   = "write: commit, checkpoints, syscalls"
	stageWriteOther = "write: URLs, frontier state, other"
	stageMainText   = "main text"
	stageWARC       = "WARC (record, gzip, write)"
	stageTokenize   = "parse: HTML tokenize"
	stageURLs       = "extract: URLs (normalize, scope)"
	stageExtract    = "extract: metadata, hashes, other"
	stageFrontier   = "frontier, dispatch, store reads"
	stageFetch      = "fetch (HTTP client, net)"
	stageGC         = "GC (background)"
	stageOther      = "other (runtime, start-up)"
	commitLoopFunc  = "internal/engine.(*Engine).commitLoop"
	parseFunc       = "internal/engine.(*Engine).parse"
)

var stageOrder = []string{stageFetch, stageTokenize, stageURLs, stageExtract, stageMainText, stageWARC,
	stageFrontier, stageFTS, stageLinks, stagePages, stageInlinks, stageTxCommit, stageWriteOther,
	stageIndexBuild, stageEndPass, stageGC, stageOther, stageWeb}

type stageRule struct {
	stage  string
	within string // a frame the sample must also hold, if not empty
	any    []string
}

var stageRules = []stageRule{
	{stageWeb, "", []string{"net/http.(*conn).serve", "internal/testweb."}},
	{stageEndPass, "", []string{".computeRanks", "sqlite.readDocsOn"}}, // the pass and its reader
	{stagePages, "", []string{"sqlite.(*DB).PrepareResult"}},           // a page row's texts, compressed in the workers
	{stageEndPass, ".crawlOrRecrawl", []string{"sqlite.(*DB).Close", "postgres.(*DB).Close"}},
	// The index's segments are built on goroutines of their own, in the
	// end-of-crawl pass for the pages that waited for the index delay, in
	// commits for those indexed at once; and the log is copied back to the
	// database by a goroutine of its own: neither has its caller's frames.
	{stageIndexBuild, "", []string{"sqlite.(*segWriter).buildTexts"}},
	{stageTxCommit, "", []string{"sqlite.(*DB).checkpoints"}},
	{stageFTS, commitLoopFunc, []string{"flushFTS", "fts5", "Fts5", "sqlite.(*segWriter)", "sqlite.(*txn).indexDocs"}},
	{stageLinks, commitLoopFunc, []string{"insertLinks"}},
	{stagePages, commitLoopFunc, []string{"savePage"}},
	{stageInlinks, commitLoopFunc, []string{"countInlinks"}},
	{stageTxCommit, commitLoopFunc, []string{"Tx).Commit", "syscall."}},
	{stageWriteOther, "", []string{commitLoopFunc}},
	{stageMainText, "", []string{"internal/maintext."}},
	{stageWARC, "", []string{"internal/warc.", "gowarc", "(*Engine).archive"}},
	{stageURLs, parseFunc, []string{"internal/urlnorm.", "internal/scope.", "(*Engine).offer", "net/url."}},
	{stageTokenize, parseFunc, []string{"internal/htmlx.", "golang.org/x/net/html."}},
	{stageExtract, "", []string{parseFunc}},
	{stageFrontier, "", []string{"internal/frontier.", "(*Engine).dispatch"}},
	{stageFetch, "", []string{"internal/fetch.", "net/http.", "(*Engine).fetchPage", "(*Engine).fetchRobots", "net.(*", "internal/poll."}},
	{stageGC, "", []string{"runtime.gcBgMarkWorker"}},
}

// profileStages reads a CPU profile (through go tool pprof -traces) and
// adds its samples up by stage.
func profileStages(prof string) (map[string]time.Duration, error) {
	out, err := exec.Command("go", "tool", "pprof", "-traces", prof).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof -traces %s: %w", prof, err)
	}
	stages := map[string]time.Duration{}
	for _, block := range strings.Split(string(out), "-----------+-------------------------------------------------------") {
		var value time.Duration
		var frames []string
		for line := range strings.Lines(block) {
			f := strings.Fields(line)
			if len(f) == 0 || strings.HasSuffix(f[0], ":") {
				continue // header lines and labels
			}
			if d, err := time.ParseDuration(f[0]); err == nil && len(f) >= 2 && value == 0 && len(frames) == 0 {
				value, f = d, f[1:]
			}
			frames = append(frames, f[0])
		}
		if value == 0 {
			continue
		}
		stages[classify(frames)] += value
	}
	return stages, nil
}

func classify(frames []string) string {
	has := func(pat string) bool {
		for _, f := range frames {
			if strings.Contains(f, pat) {
				return true
			}
		}
		return false
	}
	for _, r := range stageRules {
		if r.within != "" && !has(r.within) {
			continue
		}
		for _, p := range r.any {
			if has(p) {
				return r.stage
			}
		}
	}
	return stageOther
}

// TestClassifyStage checks the stage rules on stacks as the profiler
// reports them, leaf first.
func TestClassifyStage(t *testing.T) {
	const (
		worker = "github.com/acrawler/acrawler/internal/engine.(*Engine).handle"
		fetch  = "github.com/acrawler/acrawler/internal/engine.(*Engine).fetchPage"
		parse  = "github.com/acrawler/acrawler/internal/engine.(*Engine).parse"
		commit = "github.com/acrawler/acrawler/internal/engine.(*Engine).commitLoop"
	)
	for _, c := range []struct {
		name   string
		frames []string
		want   string
	}{
		{"tokenizer", []string{"github.com/acrawler/acrawler/internal/htmlx.Parse", "github.com/acrawler/acrawler/internal/extract.(*Extractor).HTML", parse, fetch, worker}, stageTokenize},
		{"main text inside the tokenizer", []string{"github.com/acrawler/acrawler/internal/maintext.(*Builder).Result", "github.com/acrawler/acrawler/internal/htmlx.Parse", parse, fetch, worker}, stageMainText},
		{"URL normalization", []string{"github.com/acrawler/acrawler/internal/urlnorm.(*Normalizer).Normalize", "github.com/acrawler/acrawler/internal/engine.(*Engine).offer", parse, fetch, worker}, stageURLs},
		{"fingerprint", []string{"github.com/acrawler/acrawler/internal/fingerprint.SimHash", "github.com/acrawler/acrawler/internal/extract.(*Extractor).HTML", parse, fetch, worker}, stageExtract},
		{"HTTP client", []string{"internal/runtime/syscall/linux.Syscall6", "net.(*conn).Read", "net/http.(*persistConn).readLoop"}, stageFetch},
		{"WARC gzip", []string{"github.com/klauspost/compress/flate.(*fastEncL5).Encode", "github.com/acrawler/acrawler/internal/warc.(*Writer).Write", "github.com/acrawler/acrawler/internal/engine.(*Engine).archive", fetch, worker}, stageWARC},
		{"FTS5 in a commit", []string{"modernc.org/sqlite/lib._fts5UnicodeTokenize", "github.com/acrawler/acrawler/internal/store/sqlite.(*txn).flushFTS", commit}, stageFTS},
		{"WAL write in a commit", []string{"internal/runtime/syscall/linux.Syscall6", "modernc.org/libc.Xpwrite", "database/sql.(*Tx).Commit", commit}, stageTxCommit},
		{"links in a commit", []string{"modernc.org/sqlite/lib._sqlite3BtreeIndexMoveto", "github.com/acrawler/acrawler/internal/store/sqlite.(*committer).insertLinks", commit}, stageLinks},
		{"other commit work", []string{"modernc.org/sqlite/lib._sqlite3VdbeExec", "github.com/acrawler/acrawler/internal/store/sqlite.(*txn).addURLs", commit}, stageWriteOther},
		{"rank pass", []string{"modernc.org/sqlite/lib._fts5UnicodeTokenize", "github.com/acrawler/acrawler/internal/store/sqlite.(*txn).refreshAnchors", "main.computeRanks", "main.crawlOrRecrawl"}, stageEndPass},
		{"rank pass's reader", []string{"modernc.org/libc.Xpread", "github.com/acrawler/acrawler/internal/store/sqlite.readDocsOn", "github.com/acrawler/acrawler/internal/store/sqlite.(*txn).readDocs.func1"}, stageEndPass},
		{"texts compressed in a worker", []string{"github.com/klauspost/compress/s2.Encode", "github.com/acrawler/acrawler/internal/store/sqlite.packText", "github.com/acrawler/acrawler/internal/store/sqlite.(*DB).PrepareResult", worker}, stagePages},
		{"segments built", []string{"github.com/acrawler/acrawler/internal/postings.(*Builder).Add", "github.com/acrawler/acrawler/internal/store/sqlite.(*segWriter).buildTexts.func1", "sync.(*WaitGroup).Go.func1"}, stageIndexBuild},
		{"background checkpoint", []string{"modernc.org/libc.Xpwrite", "github.com/acrawler/acrawler/internal/store/sqlite.(*DB).checkpoint", "github.com/acrawler/acrawler/internal/store/sqlite.(*DB).checkpoints"}, stageTxCommit},
		{"last checkpoint", []string{"modernc.org/sqlite/lib._walCheckpoint", "github.com/acrawler/acrawler/internal/store/sqlite.(*DB).Close", "main.crawlOrRecrawl"}, stageEndPass},
		{"test web", []string{"github.com/acrawler/acrawler/internal/testweb.(*Uniform).Page", "net/http.(*conn).serve"}, stageWeb},
		{"frontier", []string{"modernc.org/sqlite/lib._sqlite3VdbeExec", "github.com/acrawler/acrawler/internal/frontier.(*Frontier).next", "github.com/acrawler/acrawler/internal/engine.(*Engine).dispatch"}, stageFrontier},
		{"GC", []string{"runtime.scanobject", "runtime.gcBgMarkWorker"}, stageGC},
		{"scheduler", []string{"runtime.findRunnable", "runtime.schedule", "runtime.mcall"}, stageOther},
	} {
		if got := classify(c.frames); got != c.want {
			t.Errorf("%s: classify = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestParseCPUTicks checks the reading of /proc/stat's first line: the
// ticks without work are idle and iowait, and guest time (in user
// already) is not counted twice.
func TestParseCPUTicks(t *testing.T) {
	for _, c := range []struct {
		line        string
		busy, total uint64
		ok          bool
	}{
		{"cpu  100 5 30 800 40 2 3 1 50 0", 141, 981, true},
		{"cpu 1 2 3 4 5 6 7 8", 27, 36, true},
		{"cpu0 100 5 30 800 40 2 3 1 0 0", 0, 0, false},
		{"cpu 1 2 3", 0, 0, false},
		{"cpu 1 2 3 x 5 6 7 8", 0, 0, false},
		{"", 0, 0, false},
	} {
		got, ok := parseCPUTicks(c.line)
		if ok != c.ok || got != (busyTicks{c.busy, c.total}) {
			t.Errorf("parseCPUTicks(%q) = %+v, %v; want {%d %d}, %v", c.line, got, ok, c.busy, c.total, c.ok)
		}
	}
	if p := (busyTicks{141, 981}).minus(busyTicks{41, 481}).percent(); p != 20 {
		t.Errorf("busy share of the difference = %v, want 20", p)
	}
	if t1, ok := machineTicks(); ok && (t1.total == 0 || t1.busy > t1.total) {
		t.Errorf("machineTicks() = %+v", t1)
	}
}
