package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// refusingWeb serves two hosts: refuses.test, whose home page links to 25
// pages that all answer 200 with a captcha, and open.test, an ordinary
// site of five pages. It counts the requests per path.
type refusingWeb struct {
	mu   sync.Mutex
	reqs map[string]int
}

func (w *refusingWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	w.reqs[r.Host+r.URL.Path]++
	w.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		rw.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(rw, "User-agent: *\nDisallow:\n")
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case r.URL.Path == "/":
		var b strings.Builder
		fmt.Fprintf(&b, `<!DOCTYPE html><html lang="en"><head><title>%s</title></head><body>
<p>The research group publishes its papers, datasets and theses here. Browse the reports below.</p>`, r.Host)
		n := 25
		if r.Host == "open.test" {
			n = 5
		}
		for i := range n {
			fmt.Fprintf(&b, `<a href="/report-%d">Report %d</a> `, i, i)
		}
		fmt.Fprint(rw, b.String()+"</body></html>")
	case r.Host == "refuses.test":
		fmt.Fprint(rw, `<!DOCTYPE html><html><head><title>Just a moment</title></head><body>
<p>Please complete the CAPTCHA below to prove you are not a robot.</p></body></html>`)
	default:
		fmt.Fprintf(rw, `<!DOCTYPE html><html lang="en"><head><title>Report %s</title></head><body>
<p>An ordinary report of the group, %s, with enough text to be a page of its own about its research.</p></body></html>`, r.URL.Path, r.URL.Path)
	}
}

func (w *refusingWeb) requests(prefix string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for p, c := range w.reqs {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// TestSoftBlockingHostIsPaused: a host that keeps answering with captcha
// pages is slowed down after three in a row and left alone after ten: its
// other URLs are skipped, not fetched; the pause is reported by stats as
// the host's flag and still holds when the crawl is run again. Other hosts
// are crawled as usual.
func TestSoftBlockingHostIsPaused(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls")
	}
	t.Parallel()
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		web := &refusingWeb{reqs: map[string]int{}}
		srv := httptest.NewServer(web)
		defer srv.Close()
		db := be.NewDB(t)
		args := []string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off", "--log-level", "warn",
			"--no-pdf", "--no-sitemaps", "--scope", "any", "--max-depth", "1",
			// Back-off doubles from 1s per soft block after the third in a
			// row; the cap keeps the test short.
			"--max-backoff", "50ms",
			"--warc", filepath.Join(t.TempDir(), "warc")}
		_, logs, err := runCmd(t, append(args, "http://refuses.test/", "http://open.test/")...)
		if err != nil {
			t.Fatalf("crawl: %v\n%s", err, logs)
		}
		if n := web.requests("refuses.test/report-"); n != 10 {
			t.Errorf("%d captcha pages requested, want 10 (the host is paused after 10 soft blocks)", n)
		}
		if n := web.requests("open.test/report-"); n != 5 {
			t.Errorf("%d pages of the ordinary host requested, want 5", n)
		}
		if !strings.Contains(logs, "host keeps refusing the crawler") {
			t.Errorf("the pause is not logged:\n%s", logs)
		}
		d := apptest.OpenDB(t, db)
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM `+d.URLs()+` AS urls WHERE url LIKE 'http://refuses.test/report-%' AND error = 'host soft-blocks the crawler'`); n != 15 {
			t.Errorf("%d URLs of the paused host recorded as skipped for soft blocks, want 15", n)
		}
		h := clHostRow(t, d, "http://refuses.test")
		if h.blocked != 10 || h.backoff < 1 || !strings.HasPrefix(h.trap, "soft blocks: 10 pages refused") {
			t.Errorf("paused host: %d soft blocks, back-off %d, flag %q; want 10, slowed down, the pause recorded", h.blocked, h.backoff, h.trap)
		}
		r := clStatsJSON(t, db)
		if len(r.Traps) != 1 || r.Traps[0].Host != "http://refuses.test" || r.Traps[0].SoftBlocks != 10 {
			t.Errorf("stats trap suspects = %+v, want the paused host with its 10 soft blocks", r.Traps)
		}

		// Run again with a new URL of the paused host: it is skipped, not
		// fetched, because the recorded flag pauses the host at once.
		_, logs, err = runCmd(t, append(args, "http://refuses.test/report-new")...)
		if err != nil {
			t.Fatalf("second crawl: %v\n%s", err, logs)
		}
		if n := web.requests("refuses.test/report-new"); n != 0 {
			t.Errorf("a paused host's new URL was fetched %d times after a restart", n)
		}
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM `+d.URLs()+` AS urls WHERE url = 'http://refuses.test/report-new' AND error = 'host soft-blocks the crawler'`); n != 1 {
			t.Errorf("the paused host's new URL is not recorded as skipped for soft blocks")
		}
	})
}

func TestSoftBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testSoftBlocks)
}

// testSoftBlocks fetches the blog's three captcha pages (200
// answers that refuse the crawler) and, for comparison, three ordinary
// pages of the same host.
func testSoftBlocks(t *testing.T, be apptest.Backend) {
	run := func(paths ...string) (*apptest.DB, string) {
		web := apptest.NewWeb(t, testweb.Config{Seed: 4, PagesPerSite: 10})
		db := be.NewDB(t)
		// Seeds go first: the page budget keeps the crawl to them.
		args := web.CrawlArgs(db, "--delay", "0", "--no-sitemaps", "--max-pages", strconv.Itoa(len(paths)))
		for _, p := range paths {
			args = append(args, clBlog+p)
		}
		mustCrawl(t, args...)
		if n := len(clHostRequests(web, clBlog)); n != len(paths) {
			t.Fatalf("%d pages requested, want %d", n, len(paths))
		}
		return apptest.OpenDB(t, db), db
	}

	d, db := run("/protected/report-1", "/protected/report-2", "/protected/report-3")
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE status = 200 AND blocked`); n != 3 {
		t.Errorf("%d captcha pages recorded as soft blocks, want 3", n)
	}
	h := clHostRow(t, d, clBlog)
	if h.blocked != 3 {
		t.Errorf("host counts %d soft blocks, want 3", h.blocked)
	}
	// Three in a row slow the host down.
	if h.backoff < 1 {
		t.Errorf("host back-off %d after 3 soft blocks in a row, want the host slowed down", h.backoff)
	}
	r := clStatsJSON(t, db)
	if r.Figures.SoftBlocks != 3 || r.Figures.Useful != 0 || r.Figures.Fetched != 3 {
		t.Errorf("stats: %d fetched, %d useful, %d soft blocks; want 3 fetched, 0 useful, 3 soft blocks", r.Figures.Fetched,
			r.Figures.Useful, r.Figures.SoftBlocks)
	}
	if len(r.Hosts) != 1 || r.Hosts[0].SoftBlocks != 3 {
		t.Errorf("stats hosts = %+v, want the blog with 3 soft blocks", r.Hosts)
	}

	// Ordinary pages of the same host: successes, no slowing down.
	d, db = run("/", "/about", "/archive/")
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE blocked`); n != 0 {
		t.Errorf("%d ordinary pages recorded as soft blocks", n)
	}
	if h := clHostRow(t, d, clBlog); h.blocked != 0 || h.backoff != 0 {
		t.Errorf("ordinary pages: host blocked %d, back-off %d; want 0 and 0", h.blocked, h.backoff)
	}
	if r := clStatsJSON(t, db); r.Figures.SoftBlocks != 0 || r.Figures.Useful != 3 {
		t.Errorf("ordinary pages: stats %d useful, %d soft blocks; want 3 and 0", r.Figures.Useful, r.Figures.SoftBlocks)
	}
}
