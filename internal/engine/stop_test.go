package engine

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A reached page budget ends the crawl once what is in flight is done,
// even when a host's robots.txt keeps failing and its next attempt is far
// off: the budget lets nothing new start, robots.txt retries included.
func TestPageBudgetEndsCrawlDespiteRobotsRetry(t *testing.T) {
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		if r.Host == "b.test" {
			if r.URL.Path == "/robots.txt" {
				http.Error(rw, "unavailable", http.StatusInternalServerError)
				return
			}
			html(rw, `b`)
			return
		}
		switch r.URL.Path {
		case "/robots.txt":
			rw.Write([]byte("User-agent: *\nAllow: /\n"))
		default:
			var links strings.Builder
			for i := range 20 {
				fmt.Fprintf(&links, `<a href="/p%d">page %d</a> `, i, i)
			}
			html(rw, links.String())
		}
	}, "http://a.test/", "http://b.test/")
	tc.cfg.NoSitemaps = true
	tc.cfg.RobotsRetry = time.Hour // the next robots.txt attempt is far off
	tc.cfg.RobotsTries = 5
	tc.cfg.Limits.MaxPages = 5
	sum := tc.crawl(30 * time.Second)
	if sum.Reason != StopPages {
		t.Errorf("stop reason %q, want %q", sum.Reason, StopPages)
	}
	if n := tc.web.requests("http://b.test/robots.txt"); n != 1 {
		t.Errorf("b.test/robots.txt requested %d times, want 1", n)
	}
}
