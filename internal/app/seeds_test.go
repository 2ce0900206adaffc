package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// clCDX is a CDX server for one domain: two answers joined by a resume key.
type clCDX struct {
	mu   sync.Mutex
	reqs []url.Values
}

func (c *clCDX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.reqs = append(c.reqs, r.URL.Query())
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	head := `[["original","timestamp","statuscode","mimetype"],`
	if r.URL.Query().Get("resumeKey") == "" {
		fmt.Fprint(w, head+`
["`+clOrphan+`","20190301000000","200","text/html"],
["`+clJournal+`/about?utm_source=newsletter","20190302000000","200","text/html"],
["http://www.northfield-university.test/about","20190303000000","200","text/html"],
[],
["journal-of-applied-crawling.test/about 20190302000000"]]`)
		return
	}
	fmt.Fprint(w, head+`
["http://JOURNAL-of-Applied-Crawling.test:80/about","20200101000000","200","text/html"],
["`+clJournal+`/cart","20200102000000","200","text/html"],
["`+clJournal+`/static/img/cover.png","20200103000000","200","image/png"],
["`+clJournal+`/retracted-notice","20200104000000","200","text/html"]]`)
}

func TestSeedArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testSeedArchive)
}

func testSeedArchive(t *testing.T, be apptest.Backend) {
	cfg := testweb.Config{Seed: 4, PagesPerSite: 10}

	t.Run("seeds", func(t *testing.T) {
		cdx := &clCDX{}
		srv := httptest.NewServer(cdx)
		defer srv.Close()
		web := apptest.NewWeb(t, cfg)
		db := be.NewDB(t)
		// No sitemaps, and depth 1 (archive URLs are at depth 1): only what
		// the archive names is fetched.
		mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-depth", "1", "--no-sitemaps", "--no-pdf",
			"--seed-archive", "journal-of-applied-crawling.test", "--cdx-endpoint", srv.URL+"/cdx")...)

		cdx.mu.Lock()
		reqs := cdx.reqs
		cdx.mu.Unlock()
		if len(reqs) != 2 || reqs[0].Get("url") != "journal-of-applied-crawling.test" || reqs[0].Get("matchType") != "domain" ||
			reqs[1].Get("resumeKey") == "" {
			t.Errorf("CDX requests %v: want the domain asked for, then the resume key followed", reqs)
		}
		d := apptest.OpenDB(t, db)
		got := apptest.QueryStrings(t, d, `SELECT url FROM `+d.URLs()+` AS urls WHERE via = 'archive' ORDER BY url`)
		want := []string{clJournal + "/about", clOrphan, clJournal + "/retracted-notice"}
		if strings.Join(got, " ") != strings.Join(sortedCopy(want), " ") {
			t.Errorf("archive URLs queued %v, want %v (normalized, deduplicated, in scope, not excluded)", got, sortedCopy(want))
		}
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM `+d.URLs()+` AS urls WHERE url LIKE '%northfield%' OR url LIKE '%/cart' OR url LIKE '%.png'`); n != 0 {
			t.Errorf("%d out-of-scope or excluded archive URLs queued", n)
		}
		// The orphan page is crawled; a page gone from the web is recorded.
		for u, status := range map[string]int{clOrphan: 200, clJournal + "/about": 200, clJournal + "/retracted-notice": 404} {
			if got := apptest.QueryInt(t, d, `SELECT p.status FROM pages p JOIN `+d.URLs()+` u ON u.id = p.url_id WHERE u.url = ?`, u); got != int64(status) {
				t.Errorf("%s: status %d, want %d", u, got, status)
			}
		}
		if n := len(clHostRequests(web, clJournal)); n != 3 {
			t.Errorf("%d journal pages requested, want the 3 from the archive: %v", n, clHostRequests(web, clJournal))
		}
	})

	// An archive that answers garbage, or is down, is logged and recorded
	// as an error of that source (stats shows it); the crawl goes on.
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>Service temporarily unavailable [[[</body></html>")
	}))
	defer garbage.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // its address now refuses connections
	for name, endpoint := range map[string]string{"garbage": garbage.URL + "/cdx", "down": down.URL + "/cdx"} {
		t.Run(name, func(t *testing.T) {
			web := apptest.NewWeb(t, cfg)
			db := be.NewDB(t)
			out, logs, err := runCmd(t, web.CrawlArgs(db, "--delay", "0", "--max-pages", "5", "--seed-archive", "journal-of-applied-crawling.test",
				"--cdx-endpoint", endpoint, clJournal+"/")...)
			if err != nil {
				t.Fatalf("crawl with a broken archive: %v\n%s", err, logs)
			}
			if !strings.Contains(logs, "web archive seeding failed") || !strings.Contains(out, "5 pages fetched") {
				t.Errorf("want the archive failure logged and the crawl done:\n%s\n%s", logs, out)
			}
			r := clStatsJSON(t, db)
			if len(r.Sources) != 1 || r.Sources[0].Kind != "archive" || r.Sources[0].Source != "journal-of-applied-crawling.test" ||
				r.Sources[0].URL != endpoint || r.Sources[0].Error == "" || r.Sources[0].URLs != 0 {
				t.Errorf("stats --json source_errors = %+v, want the archive's failure for the domain at %s", r.Sources, endpoint)
			}
			text, errs, err := runCmd(t, "stats", "--db", db)
			if err != nil || !strings.Contains(text, "source errors") || !strings.Contains(text, "archive journal-of-applied-crawling.test") {
				t.Errorf("stats does not show the source error: %v\n%s\n%s", err, text, errs)
			}
		})
	}
}
