package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/app"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
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

// pageURLs lists the URLs with a final state in a crawl database.
func finalURLs(t *testing.T, db string) []string {
	t.Helper()
	d := openDB(t, db)
	return queryStrings(t, d, `SELECT url FROM urls WHERE state IN (2, 3, 4, 5) ORDER BY url`)
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

// isPostgres reports whether a --db value is a PostgreSQL DSN.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// counters reads the crawl-wide counters through the store interface.
func counters(t testing.TB, db string) crawl.Counters {
	t.Helper()
	st, err := app.OpenStore(context.Background(), db, 2)
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
