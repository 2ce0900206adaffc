package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/testweb"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// testWeb serves a synthetic web for one test, as an HTTP proxy.
type testWeb struct {
	*testweb.Web
	proxy string
	dir   string // for the crawls' WARC archives
}

func newTestWeb(t *testing.T, cfg testweb.Config) *testWeb {
	t.Helper()
	w := testweb.New(cfg)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	return &testWeb{Web: w, proxy: srv.URL, dir: t.TempDir()}
}

// crawlArgs are the flags every test crawl uses: through the test web's
// proxy, fast politeness and retry settings, no live progress line.
func (w *testWeb) crawlArgs(db string, extra ...string) []string {
	return append([]string{"crawl", "--db", db, "--proxy", w.proxy, "--progress", "off", "--warc", filepath.Join(w.dir, "warc"),
		"--log-level", "warn", "--timeout", "1s", "--robots-retry", "50ms", "--retry-base", "50ms"}, extra...)
}

func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err = Run(ctx, args, &out, &errb)
	return out.String(), errb.String(), err
}

func mustCrawl(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("acrawler %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errs)
	}
	return out
}

// backend is a store a test crawl can run on.
type backend struct {
	name  string
	newDB func(t testing.TB) string // a fresh, empty --db value
}

var backends = []backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "crawl.db") }},
	{"postgres", func(t testing.TB) string { return pgtest.SchemaDSN(t) }},
}

// forEachBackend runs a test on SQLite and on PostgreSQL (which skips,
// with a message, when no test server is configured).
func forEachBackend(t *testing.T, fn func(t *testing.T, be backend)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { fn(t, be) })
	}
}

// testDB reads a crawl database with SQL, whichever backend holds it.
type testDB struct {
	*sql.DB
	pg bool
}

func openDB(t testing.TB, db string) *testDB {
	t.Helper()
	driver, src := "sqlite", "file:"+db+"?mode=ro"
	if isPostgres(db) {
		driver, src = "pgx", db
	}
	d, err := sql.Open(driver, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return &testDB{DB: d, pg: isPostgres(db)}
}

// rebind turns ? placeholders into PostgreSQL's $n.
func (d *testDB) rebind(q string) string {
	if !d.pg {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (d *testDB) row(q string, args ...any) *sql.Row { return d.QueryRow(d.rebind(q), args...) }

func queryStrings(t testing.TB, d *testDB, q string, args ...any) []string {
	t.Helper()
	rows, err := d.Query(d.rebind(q), args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func queryInt(t testing.TB, d *testDB, q string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := d.row(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

// counters reads the crawl-wide counters through the store interface.
func counters(t testing.TB, db string) crawl.Counters {
	t.Helper()
	st, err := openStore(context.Background(), db, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Counters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// allSeeds are the home pages of every named site of the test web.
func allSeeds(w *testWeb) []string { return w.Seeds() }

func TestCrawlIsPolite(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web with real delays")
	}
	forEachBackend(t, testCrawlIsPolite)
}

func testCrawlIsPolite(t *testing.T, be backend) {
	web := newTestWeb(t, testweb.Config{Seed: 3, PagesPerSite: 8, Slow: 300 * time.Millisecond})
	db := be.newDB(t)
	const delay = 150 * time.Millisecond
	args := web.crawlArgs(db, "--delay", delay.String(), "--scope", "any", "--max-depth", "3", "--workers", "8",
		"--max-pages-per-host", "12") // Crawl-delay 1s on one host makes this the long pole
	mustCrawl(t, append(args, allSeeds(web)...)...)

	reqs := web.Requests()
	if len(reqs) < 100 {
		t.Fatalf("only %d requests reached the web", len(reqs))
	}
	byHost := map[string][]testweb.Request{}
	for _, r := range reqs {
		if r.Method == "CONNECT" {
			continue // https to hosts off the test web: refused by the proxy
		}
		byHost[r.Host] = append(byHost[r.Host], r)
	}
	crawlDelay := map[string]time.Duration{}
	for _, s := range web.Sites() {
		switch s.Host {
		case "www.karadeniz-universitesi.test":
			crawlDelay[s.Host] = time.Second
		case "news.city-daily.test":
			crawlDelay[s.Host] = 500 * time.Millisecond
		}
	}
	checked := 0
	for host, rs := range byHost {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Time.Before(rs[j].Time) })
		// No page before robots.txt.
		if !strings.HasPrefix(rs[0].Path, "/robots") {
			t.Errorf("%s: first request %s, want robots.txt", host, rs[0].Path)
		}
		want := delay
		if d, ok := crawlDelay[host]; ok {
			want = d
		}
		for i := 1; i < len(rs); i++ {
			// robots.txt redirects are followed within one fetch.
			if strings.HasPrefix(rs[i-1].Path, "/robots") && strings.HasPrefix(rs[i].Path, "/robots") {
				continue
			}
			if gap := rs[i].Time.Sub(rs[i-1].Time); gap < want {
				t.Errorf("%s: %s then %s only %v apart, want ≥ %v", host, rs[i-1].Path, rs[i].Path, gap, want)
			}
			checked++
		}
		// No disallowed URL fetched.
		for _, r := range rs {
			if info, ok := web.Lookup("http://" + host + r.Path); ok && info.Disallowed {
				t.Errorf("%s%s was fetched but robots.txt disallows it", host, r.Path)
			}
		}
	}
	if checked < 60 {
		t.Errorf("only %d request gaps checked", checked)
	}
	// The shop's robots.txt answers 500: nothing else of it may be fetched.
	for _, r := range byHost["shop.campus-store.test"] {
		if !strings.HasPrefix(r.Path, "/robots") {
			t.Errorf("shop.campus-store.test%s fetched although its robots.txt is unavailable", r.Path)
		}
	}
	// The acrawler group of northfield applies, not the * group.
	d := openDB(t, db)
	if n := queryInt(t, d, `SELECT count(*) FROM urls WHERE state = 4`); n == 0 {
		t.Error("no URL recorded as disallowed by robots.txt")
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	badConfig := filepath.Join(dir, "bad.toml")
	os.WriteFile(badConfig, []byte("max_depth = \"deep\"\n"), 0o644)
	unknownKey := filepath.Join(dir, "unknown.toml")
	os.WriteFile(unknownKey, []byte("max_dept = 3\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"malformed seed", []string{"crawl", "--db", db, "http://exa mple.com:99999/"}, 2, "seed"},
		{"unsupported seed", []string{"crawl", "--db", db, "mailto:x@y.org"}, 2, "seed"},
		{"missing config", []string{"crawl", "--db", db, "--config", filepath.Join(dir, "none.toml"), "http://a.test/"}, 2, "none.toml"},
		{"bad config value", []string{"crawl", "--db", db, "--config", badConfig, "http://a.test/"}, 2, "bad.toml"},
		{"unknown config key", []string{"crawl", "--db", db, "--config", unknownKey, "http://a.test/"}, 2, "max_dept"},
		{"bad flag", []string{"crawl", "--db", db, "--max-depth", "x", "http://a.test/"}, 2, "max-depth"},
		{"bad size", []string{"crawl", "--db", db, "--max-bytes", "2 parsecs", "http://a.test/"}, 2, "max-bytes"},
		{"bad scope", []string{"crawl", "--db", db, "--scope", "planet", "http://a.test/"}, 2, "scope"},
		{"near distance beyond the bands", []string{"crawl", "--db", db, "--near-distance", "4", "http://a.test/"}, 2, "near-distance"},
		{"bad exclude", []string{"crawl", "--db", db, "--exclude", "(", "http://a.test/"}, 2, "exclude"},
		{"missing seeds file", []string{"crawl", "--db", db, "--seeds", filepath.Join(dir, "seeds.txt")}, 2, "seeds.txt"},
		{"no seeds", []string{"crawl", "--db", db}, 2, "no seed"},
		{"unknown command", []string{"crawlx"}, 2, "unknown command"},
		{"unopenable db", []string{"crawl", "--db", filepath.Join(dir, "missing", "dir", "x.db"), "http://a.test/"}, 1, "x.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, tt.args...)
			var stderr bytes.Buffer
			if code := exitCode(err, &stderr); code != tt.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tt.code)
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tt.msg) {
				t.Errorf("error %q, want one line naming %q", msg, tt.msg)
			}
		})
	}
	// Nothing was written by the failed runs, except where no seed was
	// given (the database is opened to look for a queue to resume).
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "bad.toml" && n != "unknown.toml" && !strings.HasPrefix(n, "x.db") {
			t.Errorf("unexpected file %s left behind", n)
		}
	}
	if _, err := os.Stat(db); err == nil {
		d := openDB(t, db)
		if n := queryInt(t, d, `SELECT count(*) FROM urls`); n != 0 {
			t.Errorf("%d URLs written by failed runs", n)
		}
	}
}

func TestConfigFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "crawl.toml")
	os.WriteFile(file, []byte(`
db = "from-file.db"
max_depth = 2
delay = "750ms"
max_bytes = "2GB"
exclude = ["/private/"]
`), 0o644)
	cfg, rest, err := parseArgs("crawl", []string{"--config", file, "--max-depth", "4", "http://a.test/"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DB != "from-file.db" || cfg.MaxDepth != 4 || time.Duration(cfg.Delay) != 750*time.Millisecond ||
		cfg.MaxBytes != 2e9 || len(cfg.Exclude) != 1 || len(rest) != 1 {
		t.Errorf("config = %+v, rest %v: want file values with the flag winning for max-depth", cfg, rest)
	}
	t.Setenv("ACRAWLER_DB", "from-env.db")
	cfg, _, _ = parseArgs("crawl", []string{"--config", file}, &bytes.Buffer{})
	if cfg.DB != "from-env.db" {
		t.Errorf("db = %q, want the environment over the file", cfg.DB)
	}
	cfg, _, _ = parseArgs("crawl", []string{"--config", file, "--db", "flag.db"}, &bytes.Buffer{})
	if cfg.DB != "flag.db" {
		t.Errorf("db = %q, want the flag over the environment", cfg.DB)
	}
}

func TestByteSizes(t *testing.T) {
	for in, want := range map[string]int64{"2GB": 2e9, "5MiB": 5 << 20, "512k": 512 << 10, "100": 100, "1.5KB": 1500} {
		got, err := parseByteSize(in)
		if err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "5 parsecs", "1e99TB"} {
		if _, err := parseByteSize(bad); err == nil {
			t.Errorf("parseByteSize(%q) succeeded", bad)
		}
	}
}

var errStop = errors.New("stop")

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func diff(a, b []string) (onlyA, onlyB []string) {
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	for _, x := range a {
		if !mb[x] {
			onlyA = append(onlyA, x)
		}
	}
	for _, x := range b {
		if !ma[x] {
			onlyB = append(onlyB, x)
		}
	}
	return
}

func short(xs []string) string {
	if len(xs) > 10 {
		return fmt.Sprint(xs[:10], "...")
	}
	return fmt.Sprint(xs)
}

// buildBinary compiles acrawler once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "acrawler-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "acrawler")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// pageURLs lists the URLs with a final state in a crawl database.
func finalURLs(t *testing.T, db string) []string {
	t.Helper()
	d := openDB(t, db)
	return queryStrings(t, d, `SELECT url FROM urls WHERE state IN (2, 3, 4, 5) ORDER BY url`)
}

func TestResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and crawls twice")
	}
	forEachBackend(t, testResumeAfterKill)
}

func testResumeAfterKill(t *testing.T, be backend) {
	bin := buildBinary(t)
	cfg := testweb.Config{Seed: 11, PagesPerSite: 40}
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/", "http://lab.quantum-optics-institute.test/"}

	// The reference: one uninterrupted crawl of its own copy of the web.
	ref := newTestWeb(t, cfg)
	refDB := be.newDB(t)
	mustCrawl(t, append(ref.crawlArgs(refDB, "--delay", "0", "--max-depth", "0"), seeds...)...)
	want := finalURLs(t, refDB)
	if len(want) < 150 {
		t.Fatalf("reference crawl recorded only %d URLs", len(want))
	}

	// The same crawl, killed with SIGKILL part way and run again.
	web := newTestWeb(t, cfg)
	db := be.newDB(t)
	// A restarted process is a new lease owner: with PostgreSQL it waits
	// for the dead one's leases to expire.
	args := append(web.crawlArgs(db, "--delay", "15ms", "--max-depth", "0", "--lease", "2s"), seeds...)
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for len(web.Requests()) < len(want)/3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the crawl made only %d requests in a minute\n%s", len(web.Requests()), stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill() // SIGKILL: no chance to clean up
	cmd.Wait()
	atKill := map[string]bool{}
	for _, u := range finalURLs(t, db) {
		atKill[u] = true
	}
	if len(atKill) == 0 || len(atKill) >= len(want) {
		t.Fatalf("at the kill %d URLs were final, want part of %d", len(atKill), len(want))
	}
	requestsBefore := len(web.Requests())

	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	}
	got := finalURLs(t, db)
	if onlyRef, onlyResumed := diff(want, got); len(onlyRef)+len(onlyResumed) > 0 {
		t.Errorf("resumed crawl differs from the uninterrupted one: %d only in the reference %s, %d only in the resumed %s",
			len(onlyRef), short(onlyRef), len(onlyResumed), short(onlyResumed))
	}

	// No page fetched twice, except those in flight at the kill (requested
	// but not yet recorded).
	seen := map[string]int{}
	inFlight := 0
	for i, r := range web.Requests() {
		if strings.HasPrefix(r.Path, "/robots") || r.Method == "CONNECT" || r.Status >= 500 || r.Status == 429 {
			continue
		}
		u := "http://" + r.Host + r.Path
		seen[u]++
		if seen[u] == 2 {
			if i < requestsBefore || atKill[u] {
				t.Errorf("%s fetched twice although it was recorded before the kill", u)
			} else {
				inFlight++
			}
		}
	}
	t.Logf("reference %d URLs; %d final at the kill; %d fetched again (in flight at the kill); %d requests before, %d after",
		len(want), len(atKill), inFlight, requestsBefore, len(web.Requests())-requestsBefore)
	if inFlight > 64 {
		t.Errorf("%d pages fetched again after the restart: more than could have been in flight", inFlight)
	}
}

// pageRequests returns the page requests (not robots.txt, not CONNECT) a
// web served, as URLs.
func pageRequests(w *testWeb) []string {
	var out []string
	for _, r := range w.Requests() {
		if r.Method == "CONNECT" || strings.HasPrefix(r.Path, "/robots") {
			continue
		}
		out = append(out, "http://"+r.Host+r.Path)
	}
	return out
}

func TestBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testBudgets)
}

func testBudgets(t *testing.T, be backend) {
	cfg := testweb.Config{Seed: 5, PagesPerSite: 30, Slow: 200 * time.Millisecond}
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/",
		"http://lab.quantum-optics-institute.test/", "http://blog.deep-archive.test/"}
	crawlWith := func(t *testing.T, extra ...string) (*testWeb, *testDB, string, string) {
		web := newTestWeb(t, cfg)
		db := be.newDB(t)
		args := append(web.crawlArgs(db, append([]string{"--delay", "0"}, extra...)...), seeds...)
		out := mustCrawl(t, args...)
		return web, openDB(t, db), out, db
	}
	t.Run("max-pages", func(t *testing.T) {
		web, db, out, _ := crawlWith(t, "--max-pages", "40")
		if n := len(pageRequests(web)); n > 40 || n < 35 {
			t.Errorf("%d pages requested under --max-pages 40", n)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM pages`); n > 40 {
			t.Errorf("%d pages recorded under --max-pages 40", n)
		}
		if !strings.Contains(out, "page budget reached") {
			t.Errorf("summary does not report the page budget:\n%s", out)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM urls WHERE state = 0`); n == 0 {
			t.Error("nothing left queued: the budget stopped nothing")
		}
	})
	t.Run("max-pages-per-host", func(t *testing.T) {
		_, db, out, _ := crawlWith(t, "--max-pages-per-host", "15")
		if n := queryInt(t, db, `SELECT max(admitted) FROM hosts`); n != 15 {
			t.Errorf("most URLs admitted on a host = %d, want 15", n)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM (SELECT host_id FROM urls GROUP BY host_id HAVING count(*) > 15) AS t`); n != 0 {
			t.Errorf("%d hosts hold more than 15 URLs", n)
		}
		if !strings.Contains(out, "reached --max-pages-per-host 15") {
			t.Errorf("summary does not report the per-host budget:\n%s", out)
		}
	})
	t.Run("max-depth", func(t *testing.T) {
		_, db, out, _ := crawlWith(t, "--max-depth", "2")
		if n := queryInt(t, db, `SELECT max(depth) FROM urls`); n != 2 {
			t.Errorf("deepest URL at depth %d, want 2", n)
		}
		if !regexpMatch(`[1-9]\d* over depth 2`, out) {
			t.Errorf("summary does not report URLs refused over depth:\n%s", out)
		}
	})
	t.Run("max-bytes", func(t *testing.T) {
		web, _, out, db := crawlWith(t, "--max-bytes", "150KB")
		if !strings.Contains(out, "byte budget reached") {
			t.Errorf("summary does not report the byte budget:\n%s", out)
		}
		var sent int64
		for _, r := range web.Requests() {
			sent += r.Bytes
		}
		// In-flight fetches may finish past the budget: one page per host.
		if n := counters(t, db).Bytes; n < 150e3 || n > 150e3+200e3 {
			t.Errorf("%d bytes counted under a 150KB budget (%d bytes served)", n, sent)
		}
	})
	t.Run("max-duration", func(t *testing.T) {
		start := time.Now()
		_, db, out, _ := crawlWith(t, "--max-duration", "700ms", "--delay", "100ms")
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("a 700ms crawl ran %v", el)
		}
		if !strings.Contains(out, "duration budget reached") {
			t.Errorf("summary does not report the duration budget:\n%s", out)
		}
		if n := queryInt(t, db, `SELECT count(*) FROM urls WHERE state = 1`); n != 0 {
			t.Errorf("%d URLs left in flight after a clean stop", n)
		}
	})
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

func TestTrapsAndFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testTrapsAndFaults)
}

func testTrapsAndFaults(t *testing.T, be backend) {
	web := newTestWeb(t, testweb.Config{Seed: 9, PagesPerSite: 20, Slow: 300 * time.Millisecond})
	db := be.newDB(t)
	seeds := []string{"http://www.northfield-university.test/", "http://news.city-daily.test/",
		"http://blog.deep-archive.test/", "http://faults.test/"}
	args := append(web.crawlArgs(db, "--delay", "0", "--max-depth", "6", "--max-url-length", "1024", "--scope", "domain"), seeds...)
	mustCrawl(t, args...)
	d := openDB(t, db)
	reqs := pageRequests(web)

	// Calendar: excluded by the default patterns, never fetched.
	for _, u := range reqs {
		if strings.Contains(u, "/events/calendar") {
			t.Errorf("calendar trap fetched: %s", u)
		}
	}
	// Repeated path segments: the trap grows without end; the repeated
	// segment limit (3) stops it, within the depth budget.
	trapURLs := queryStrings(t, d, `SELECT url FROM urls WHERE url LIKE 'http://blog.deep-archive.test/a/%'`)
	if len(trapURLs) == 0 {
		t.Error("the /a/b/a/b/ trap was not entered at all")
	}
	for _, u := range trapURLs {
		for _, seg := range []string{"/a/", "/b/"} {
			if n := strings.Count(u+"/", seg); n > 3 {
				t.Errorf("%s admitted with %q %d times, over --max-path-repeats 3", u, seg, n)
			}
		}
	}
	if n := queryInt(t, d, `SELECT max(depth) FROM urls`); n > 6 {
		t.Errorf("URL admitted at depth %d, beyond --max-depth 6", n)
	}
	// Long URLs: refused by --max-url-length.
	for _, u := range reqs {
		if len(u) > 1024 {
			t.Errorf("URL of %d bytes fetched", len(u))
		}
	}
	// Tracking parameters, session ids, messy spellings: one page, one URL;
	// and no URL fetched more often than it was attempted (retries).
	byPage := map[string]map[string]int{}
	for _, u := range reqs {
		if info, ok := web.Lookup(u); ok {
			if byPage[info.URL] == nil {
				byPage[info.URL] = map[string]int{}
			}
			byPage[info.URL][u]++
		}
	}
	for page, us := range byPage {
		if len(us) > 1 {
			t.Errorf("%s fetched under %d URLs: %v", page, len(us), us)
		}
		for u, n := range us {
			var attempts int
			d.row(`SELECT attempts FROM urls WHERE url = ?`, u).Scan(&attempts)
			if n > max(attempts, 1) {
				t.Errorf("%s fetched %d times in %d attempts", u, n, attempts)
			}
		}
	}
	// Faults end in the right state.
	state := func(u string) (int, int, string) {
		var st, status int
		var errText sql.NullString
		err := d.row(`SELECT u.state, coalesce(p.status, 0), u.error FROM urls u LEFT JOIN pages p ON p.url_id = u.id WHERE u.url = ?`, u).Scan(&st, &status, &errText)
		if err != nil {
			t.Errorf("%s: %v", u, err)
		}
		return st, status, errText.String
	}
	for _, tc := range []struct {
		url    string
		state  int
		status int
		err    string
	}{
		{"http://faults.test/missing", 2, 404, ""},
		{"http://faults.test/gone", 2, 410, ""},
		{"http://faults.test/error", 2, 500, ""}, // after the retries
		{"http://faults.test/flaky", 2, 200, ""}, // 503, 503, then 200
		{"http://faults.test/busy", 2, 200, ""},  // 429 with Retry-After, then 200
		{"http://faults.test/slow", 2, 200, ""},  // slower than nothing, faster than --timeout
		{"http://faults.test/drip", 3, 0, "timeout"},
		{"http://faults.test/huge", 3, 0, "too large"},
		{"http://faults.test/bomb", 3, 0, "too large"},
		{"http://faults.test/malformed", 2, 200, ""},
		{"http://faults.test/landing", 2, 200, ""}, // end of the redirect chain
	} {
		st, status, errText := state(tc.url)
		if st != tc.state || status != tc.status || !strings.Contains(errText, tc.err) {
			t.Errorf("%s: state %d status %d error %q; want state %d status %d error containing %q",
				tc.url, st, status, errText, tc.state, tc.status, tc.err)
		}
	}
	// The redirect loop ends: each hop fetched once, and recorded.
	loops := queryStrings(t, d, `SELECT redirect_to FROM pages WHERE url LIKE 'http://faults.test/loop/%'`)
	if len(loops) != 2 {
		t.Errorf("redirect loop recorded %d hops, want 2", len(loops))
	}
	// /error is retried up to --max-attempts (3) times, no more.
	n := 0
	for _, u := range reqs {
		if u == "http://faults.test/error" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("/error requested %d times, want 3 attempts", n)
	}
	// The huge robots.txt: its rule beyond 500 KiB is ignored, the early one kept.
	var before, after bool
	for _, u := range reqs {
		before = before || strings.Contains(u, "/before-cap/")
		after = after || strings.Contains(u, "/after-cap/")
	}
	if before {
		t.Error("a URL under /before-cap/ was fetched although robots.txt disallows it")
	}
	if !after {
		t.Error("no URL under /after-cap/ was fetched: the rule past 500 KiB was applied")
	}
}

func TestPasswordNeverShown(t *testing.T) {
	// Unreachable server: the error names host and port, not the password.
	_, stderr, err := runCmd(t, "crawl", "--db", "postgres://crawler:hunter2@127.0.0.1:1/acrawler", "http://a.test/")
	var msg strings.Builder
	if code := exitCode(err, &msg); code != 1 {
		t.Fatalf("exit %d (%v), want 1", code, err)
	}
	if !strings.Contains(msg.String(), "127.0.0.1:1") || strings.Contains(msg.String()+stderr, "hunter2") {
		t.Errorf("error %q (log %q): want host and port named, password hidden", msg.String(), stderr)
	}
	// A working crawl with a password in its DSN (the test server trusts
	// any password) logs the DSN without it.
	dsn := pgtest.SchemaDSN(t)
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(u.User.Username(), "hunter2")
	web := newTestWeb(t, testweb.Config{Seed: 1, PagesPerSite: 5})
	args := web.crawlArgs(u.String(), "--delay", "0", "--max-pages", "5", "http://www.northfield-university.test/")
	args = append(args[:len(args)-1], "--log-level", "debug", args[len(args)-1])
	out, logs, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
	if strings.Contains(out+logs, "hunter2") || !strings.Contains(logs, "xxxxx") {
		t.Errorf("the password shows in the output or the DSN is not logged redacted:\n%s", logs)
	}
}

func TestMigrateCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	out, _, err := runCmd(t, "migrate", "--db", db)
	if err != nil || !strings.Contains(out, fmt.Sprintf("from version 0 to %d", sqlite.SchemaVersion())) {
		t.Fatalf("first migrate: %v %q", err, out)
	}
	out, _, err = runCmd(t, "migrate", "--db", db)
	if err != nil || !strings.Contains(out, "nothing to do") {
		t.Fatalf("second migrate: %v %q", err, out)
	}
	pg := pgtest.SchemaDSN(t)
	t.Setenv("ACRAWLER_DB", pg)
	out, _, err = runCmd(t, "migrate")
	if err != nil || !strings.Contains(out, fmt.Sprintf("to %d", postgres.SchemaVersion())) {
		t.Fatalf("migrate on PostgreSQL via ACRAWLER_DB: %v %q", err, out)
	}
}
