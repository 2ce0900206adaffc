package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
	forEachBackend(t, func(t *testing.T, be backend) {
		web := &refusingWeb{reqs: map[string]int{}}
		srv := httptest.NewServer(web)
		defer srv.Close()
		db := be.newDB(t)
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
		d := openDB(t, db)
		if n := queryInt(t, d, `SELECT count(*) FROM urls WHERE url LIKE 'http://refuses.test/report-%' AND error = 'host soft-blocks the crawler'`); n != 15 {
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
		if n := queryInt(t, d, `SELECT count(*) FROM urls WHERE url = 'http://refuses.test/report-new' AND error = 'host soft-blocks the crawler'`); n != 1 {
			t.Errorf("the paused host's new URL is not recorded as skipped for soft blocks")
		}
	})
}
