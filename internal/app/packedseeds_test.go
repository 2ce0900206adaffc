package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// A seeds file large enough for a store to pack its URLs into runs (the
// stores' packMin: 100,000 offers in a merge) is crawled as a short one
// is, on either store: the crawl claims packed URLs and fetches them, a
// page's links to packed seeds make them rows that count the links, and
// a second crawl of the database goes on where the first ended, fetching
// no URL again.
func TestPackedSeedsCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("stages 100,000 seeds")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testPackedSeedsCrawl)
}

func testPackedSeedsCrawl(t *testing.T, be apptest.Backend) {
	web := apptest.NewWeb(t, testweb.Config{Seed: 5, PagesPerSite: 10})
	dir := t.TempDir()
	db := be.NewDB(t)
	// The web's pages (which link to one another), then pages of its
	// sites that are not there (404) up to 110,000 (some are out of scope).
	var lines []string
	for _, p := range web.Pages() {
		lines = append(lines, p.URL)
	}
	sites := web.Sites()
	for i := 0; len(lines) < 110_000; i++ {
		lines = append(lines, fmt.Sprintf("http://%s/archive/%d/item-%d.html", sites[i%len(sites)].Host, i%50, i))
	}
	file := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	crawl := func(pages int) {
		mustCrawl(t, web.CrawlArgs(db, "--seeds", file, "--delay", "0", "--max-pages", fmt.Sprint(pages), "--no-sitemaps",
			"--workers", "16", "--scope", "any")...)
	}
	crawl(300)
	d := apptest.OpenDB(t, db)
	// The hosts' cap (--max-pages-per-host) admits some of the seeds.
	packed, rows := apptest.QueryInt(t, d, packedURLs(d)), apptest.QueryInt(t, d, `SELECT count(*) FROM urls`)
	if admitted := apptest.QueryInt(t, d, `SELECT sum(admitted) FROM hosts`); packed < 50_000 || packed+rows != admitted {
		t.Fatalf("%d URLs packed, %d rows, %d admitted: want the seeds packed, each admitted stored once", packed, rows, admitted)
	}
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages p JOIN `+d.URLs()+` u ON u.id = p.url_id
		WHERE u.url LIKE '%/archive/%'`); n == 0 {
		t.Error("no packed seed was fetched")
	}
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM `+d.URLs()+` AS u WHERE state = 0 AND via = 'seed' AND attempts = 0 AND inlinks > 0`); n == 0 {
		t.Error("no queued seed counts an inbound link: links to packed seeds were not counted")
	}
	first := counters(t, db)
	if first.Reserved == 0 || first.Reserved > 300 {
		t.Fatalf("the first crawl claimed %d URLs, want some, at most its budget of 300", first.Reserved)
	}
	// The second crawl claims more (not its whole budget: hosts that
	// answer nothing but 404 have their URLs skipped, packed or not).
	crawl(600)
	if c := counters(t, db); c.Reserved <= first.Reserved || c.Reserved > 600 || c.InFlight != 0 {
		t.Fatalf("after the second crawl: %+v, want more claimed than the first crawl's %d, at most 600, none in flight", c, first.Reserved)
	}
	// A URL that answers 404 is fetched once: none of them twice over the
	// two crawls.
	fetched := map[string]int{}
	for _, u := range apptest.PageRequests(web) {
		if strings.Contains(u, "/archive/") {
			fetched[u]++
		}
	}
	for u, n := range fetched {
		if n > 1 {
			t.Errorf("%s fetched %d times", u, n)
		}
	}
	if len(fetched) == 0 {
		t.Error("the crawls fetched none of the packed seeds")
	}
	if after := apptest.QueryInt(t, d, packedURLs(d)); after >= packed {
		t.Errorf("%d URLs packed after the second crawl, %d after the first: want fewer", after, packed)
	}
}

// packedURLs counts the URLs that the runs of the store d reads hold:
// seen keeps the entry of a URL that left its run for a row of urls
// (PostgreSQL's seen many to a row).
func packedURLs(d *apptest.DB) string {
	if d.PG {
		return `SELECT count(*) FROM seen, unnest(ids) AS s(id) WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = s.id)`
	}
	return `SELECT count(*) FROM seen s WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = s.id)`
}
