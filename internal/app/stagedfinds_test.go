package app

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// A crawl into a SQLite store that already holds a million URLs stages
// its pages' discoveries and the inbound links of URLs not yet rows
// (the store's commits do from that size on), and merges them when the
// stage is large beside the queue or no host is ready: stopped by its
// budget and resumed, it fetches what a crawl of an empty store
// fetches, each page once, and records the same inbound-link counts and
// the same URLs admitted and discovered.
func TestStagedFindsCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a million URLs")
	}
	t.Parallel()
	// The same web twice, one for each store's crawl.
	cfg := testweb.Config{Seed: 9, PagesPerSite: 12}
	empty, web := apptest.NewWeb(t, cfg), apptest.NewWeb(t, cfg)
	dir := t.TempDir()
	args := func(web *apptest.Web, db string, extra ...string) []string {
		return web.CrawlArgs(db, append([]string{"--delay", "0", "--max-crawl-delay", "1ms", "--no-sitemaps", "--workers", "8"},
			append(extra, allSeeds(web)...)...)...)
	}
	plain, full := filepath.Join(dir, "plain.db"), filepath.Join(dir, "full.db")
	mustCrawl(t, args(empty, plain)...)

	apptest.FillSQLite(t, full, 1_000_000)
	_, stderr, err := apptest.Run(t, run, args(web, full, "--max-pages", "40", "--log-level", "debug")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "staged URLs merged") || !strings.Contains(stderr, "discovered=true") {
		t.Fatalf("the budgeted crawl merged no discoveries staged: the commits added them at once\n%s", apptest.FirstLines(stderr, 20))
	}
	mustCrawl(t, args(web, full)...)

	fetched := func(db string) []string {
		d := apptest.OpenDB(t, db)
		return apptest.QueryStrings(t, d, `SELECT u.url || ' ' || u.inlinks FROM pages p
			JOIN `+d.URLs()+` u ON u.id = p.url_id ORDER BY 1`)
	}
	a, b := fetched(plain), fetched(full)
	if len(a) < 50 {
		t.Fatalf("the crawl fetched %d pages: the web is too small to tell", len(a))
	}
	if onlyPlain, onlyFull := apptest.Diff(a, b); len(onlyPlain)+len(onlyFull) > 0 {
		t.Errorf("pages and inbound links, only in the empty store's crawl: %s; only in the large one's: %s",
			apptest.Short(onlyPlain), apptest.Short(onlyFull))
	}
	// Which host is credited with a URL two hosts' pages link to follows
	// the crawl's order; how many URLs pages discovered does not.
	admitted := func(db string) []string {
		return apptest.QueryStrings(t, apptest.OpenDB(t, db), `SELECT key || ' ' || admitted FROM hosts
			UNION ALL SELECT 'discovered ' || sum(discovered) FROM hosts ORDER BY 1`)
	}
	if x, y := admitted(plain), admitted(full); !slices.Equal(x, y) {
		t.Errorf("hosts' admitted and discovered counts differ: empty store %v, large store %v", x, y)
	}
	for _, n := range []string{`SELECT count(*) FROM offers`, `SELECT count(*) FROM inlink_counts`} {
		if c := apptest.QueryInt(t, apptest.OpenDB(t, full), n); c != 0 {
			t.Errorf("%s: %d after the crawl ended", n, c)
		}
	}
	// A page was fetched once over the two crawls of the large store (the
	// web's fault pages are tried again by design).
	requests := map[string]int{}
	for _, u := range apptest.PageRequests(web) {
		requests[u]++
	}
	d := apptest.OpenDB(t, full)
	for _, u := range apptest.QueryStrings(t, d, `SELECT u.url FROM pages p JOIN `+d.URLs()+` u ON u.id = p.url_id
		WHERE u.url NOT LIKE 'http://faults.test/%'`) {
		if requests[u] != 1 {
			t.Errorf("%s fetched %d times", u, requests[u])
		}
	}
}
