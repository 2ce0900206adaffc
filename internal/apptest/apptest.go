// Package apptest is what the end-to-end tests of the application
// (internal/app) and of the program (cmd/acrawler) share: the test web
// served as a proxy, the stores a crawl can run on, commands run with a
// deadline, and SQL reads of a crawl database whichever store holds it.
// Only tests import it.
package apptest

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/testweb"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// Web serves a synthetic web for one test, as an HTTP proxy.
type Web struct {
	*testweb.Web
	Proxy string // the proxy's URL, for --proxy
	Dir   string // for the crawls' WARC archives
}

// NewWeb serves the test web of cfg until the test ends.
func NewWeb(t testing.TB, cfg testweb.Config) *Web {
	t.Helper()
	w := testweb.New(cfg)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	return &Web{Web: w, Proxy: srv.URL, Dir: t.TempDir()}
}

// CrawlArgs are the arguments of a test crawl of db: through the web's
// proxy, fast politeness and retry settings, no live progress line, then
// extra.
func (w *Web) CrawlArgs(db string, extra ...string) []string {
	return append([]string{"crawl", "--db", db, "--proxy", w.Proxy, "--progress", "off", "--warc", filepath.Join(w.Dir, "warc"),
		"--log-level", "warn", "--timeout", "1s", "--robots-retry", "50ms", "--retry-base", "50ms"}, extra...)
}

// PageRequests returns the page requests (not robots.txt, not CONNECT) a
// web served, as URLs.
func PageRequests(w *Web) []string {
	var out []string
	for _, r := range w.Requests() {
		if r.Method == "CONNECT" || strings.HasPrefix(r.Path, "/robots") {
			continue
		}
		out = append(out, "http://"+r.Host+r.Path)
	}
	return out
}

// Main runs a package's tests with n of them at once (-parallel n),
// unless the command line says how many: the end-to-end tests wait on
// politeness delays, time-outs, sockets and other processes more than
// they compute, so more of them than there are cores (go test's default)
// can run at once. It returns m.Run's exit code.
func Main(m *testing.M, n int) int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", fmt.Sprint(n)); err != nil {
			panic(err)
		}
	}
	return m.Run()
}

// Runner runs one command of the program: args[0] is the command.
type Runner func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Run runs a command with a deadline of three minutes and returns what
// it wrote.
func Run(t testing.TB, run Runner, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err = run(ctx, args, &out, &errb)
	return out.String(), errb.String(), err
}

// MustRun runs a command as Run does and fails the test if it fails.
func MustRun(t testing.TB, run Runner, args ...string) string {
	t.Helper()
	out, errs, err := Run(t, run, args...)
	if err != nil {
		t.Fatalf("acrawler %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errs)
	}
	return out
}

// Backend is a store a test crawl can run on.
type Backend struct {
	Name  string
	NewDB func(t testing.TB) string // a fresh, empty --db value
}

// Backends are SQLite, then PostgreSQL (which skips, with a message, when
// no test server is configured).
var Backends = []Backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "crawl.db") }},
	{"postgres", func(t testing.TB) string { return pgtest.SchemaDSN(t) }},
}

// ForEachBackend runs a test on each of Backends, one after the other.
func ForEachBackend(t *testing.T, fn func(t *testing.T, be Backend)) {
	for _, be := range Backends {
		t.Run(be.Name, func(t *testing.T) { fn(t, be) })
	}
}

// IsPostgres reports whether a --db value is a PostgreSQL DSN.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// DB reads a crawl database with SQL, whichever backend holds it.
type DB struct {
	*sql.DB
	PG bool
}

// OpenDB opens a crawl database (SQLite read-only) until the test ends.
func OpenDB(t testing.TB, db string) *DB {
	t.Helper()
	driver, src := "sqlite", "file:"+db+"?mode=ro"
	if IsPostgres(db) {
		driver, src = "pgx", db
	}
	d, err := sql.Open(driver, src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return &DB{DB: d, PG: IsPostgres(db)}
}

// Rebind turns ? placeholders into PostgreSQL's $n.
func (d *DB) Rebind(q string) string {
	if !d.PG {
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

// Row runs a query written with ? placeholders for one row.
func (d *DB) Row(q string, args ...any) *sql.Row { return d.QueryRow(d.Rebind(q), args...) }

// QueryStrings returns the one column of a query's rows.
func QueryStrings(t testing.TB, d *DB, q string, args ...any) []string {
	t.Helper()
	rows, err := d.Query(d.Rebind(q), args...)
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

// QueryInt returns the one value of a query (0 for NULL).
func QueryInt(t testing.TB, d *DB, q string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := d.Row(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

// FinalURLs lists the URLs with a final state in a crawl database.
func FinalURLs(t testing.TB, db string) []string {
	t.Helper()
	d := OpenDB(t, db)
	return QueryStrings(t, d, `SELECT url FROM `+d.URLs()+` AS urls WHERE state IN (2, 3, 4, 5) ORDER BY url`)
}

// URLs is the urls table for a query that reads URLs' text and ways:
// each row's url is the whole URL, via the way's name, and arrival
// orders a host's URLs as they were admitted. Both stores keep the text
// without its host's origin, hosts.key (the stores' fullURLSQL), or, for
// a URL that does not begin with its host's key, whole behind a "!";
// SQLite keeps a way as a number (sqlite.ViaNameSQL).
func (d *DB) URLs() string {
	via, arrival := "u.via", "u.seq"
	if !d.PG {
		via, arrival = sqlite.ViaNameSQL("u.via"), "u.rowid"
	}
	return `(SELECT u.id, CASE WHEN substr(u.url, 1, 1) = '!' THEN substr(u.url, 2) ELSE coalesce(h.key, '') || u.url END AS url,
		u.host_id, u.depth, u.priority, u.state, ` + via + ` AS via, u.parent_id, ` + arrival + ` AS arrival, u.attempts, u.retry_at, u.discovered_at,
		u.fetched_at, u.error, u.kind, u.lastmod, u.changefreq, u.inlinks
		FROM urls u LEFT JOIN hosts h ON h.id = u.host_id)`
}

// Counters reads the crawl-wide counters of db through the store open
// gives.
func Counters(t testing.TB, open func(ctx context.Context, db string, pgConns int) (crawl.Store, error), db string) crawl.Counters {
	t.Helper()
	st, err := open(context.Background(), db, 2)
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

// Diff returns what is only in a and what is only in b.
func Diff(a, b []string) (onlyA, onlyB []string) {
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

// Short prints at most ten of xs.
func Short(xs []string) string {
	if len(xs) > 10 {
		return fmt.Sprint(xs[:10], "...")
	}
	return fmt.Sprint(xs)
}

// FirstLines returns the first n lines of s.
func FirstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.TrimSuffix(strings.Join(lines[:min(n, len(lines))], ""), "\n")
}

// FillSQLite makes db a SQLite crawl database holding n URLs fetched
// long ago, of a host no web of the tests has and without a hosts row:
// their text is "/old/N". It makes the store as large as a crawl's that
// has seen n URLs, quickly.
func FillSQLite(t testing.TB, db string, n int) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	w, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
		SELECT -i, '/old/' || i, -1, 0, 0, 2, 1, 1 FROM n`, n); err != nil {
		t.Fatal(err)
	}
}
