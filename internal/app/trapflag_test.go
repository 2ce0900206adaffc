package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrapFlagOnTheLastPage: a host of 30 pages, 29 of them the same page
// under different URLs, is flagged as an auto-generated space by the
// commit of its 30th page, its last: the flag is recorded all the same
// (it used to wait for a later result of the host, which never came).
func TestTrapFlagOnTheLastPage(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			var b strings.Builder
			b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Calendar Lab</title></head><body><p>The lab's calendar of seminars.</p>`)
			for i := range 29 {
				fmt.Fprintf(&b, `<a href="/day/%d">Day %d</a> `, i, i)
			}
			fmt.Fprint(w, b.String()+"</body></html>")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Seminars</title></head><body>
<p>No seminar is planned on this day. The lab's seminars resume next term with talks on research methods.</p></body></html>`)
		}
	}))
	defer srv.Close()
	forEachBackend(t, func(t *testing.T, be backend) {
		db := be.newDB(t)
		mustCrawl(t, "crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off", "--log-level", "warn",
			"--no-pdf", "--no-sitemaps", "--max-depth", "1", "--warc", filepath.Join(t.TempDir(), "warc"), "http://calendar-lab.test/")
		d := openDB(t, db)
		if n := queryInt(t, d, `SELECT count(*) FROM pages`); n != 30 {
			t.Fatalf("%d pages fetched, want 30", n)
		}
		if h := clHostRow(t, d, "http://calendar-lab.test"); !strings.HasPrefix(h.trap, "duplicate content:") {
			t.Errorf("host flag %q, want the duplicate-content flag its last page raised", h.trap)
		}
	})
}
