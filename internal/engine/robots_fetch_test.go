package engine

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestRedirectHopsKeepDelay: every request to a host keeps its delay,
// the hops of a robots.txt redirect and of a page redirect included.
func TestRedirectHopsKeepDelay(t *testing.T) {
	t.Parallel()
	const delay = 200 * time.Millisecond
	var (
		mu    sync.Mutex
		times []time.Time
		paths []string
	)
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times, paths = append(times, time.Now()), append(paths, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			http.Redirect(rw, r, "/robots-moved.txt", http.StatusMovedPermanently)
		case "/robots-moved.txt":
			http.Redirect(rw, r, "/robots-real.txt", http.StatusFound)
		case "/robots-real.txt":
			rw.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(rw, "User-agent: *\nDisallow: /private\n")
		case "/":
			http.Redirect(rw, r, "/home", http.StatusMovedPermanently)
		case "/home":
			html(rw, `<a href="/private">p</a> <a href="/page">page</a>`)
		default:
			html(rw, "page")
		}
	}, "http://a.test/")
	tc.cfg.NoSitemaps = true
	tc.cfg.Frontier.Delay = delay
	tc.crawl(20 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/robots.txt", "/robots-moved.txt", "/robots-real.txt", "/", "/home", "/page"}; !slices.Equal(paths, want) {
		t.Fatalf("requests %v, want %v", paths, want)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < delay {
			t.Errorf("%s requested %v after %s, want at least the %v delay", paths[i], gap, paths[i-1], delay)
		}
	}
}

// TestRobotsRedirects: RFC 9309 2.3.1.2. Five redirects are followed; a
// robots.txt not reached after them, or behind a redirect loop, is
// "unavailable" (everything allowed, as for a 404), at once and for good.
func TestRobotsRedirects(t *testing.T) {
	t.Parallel()
	var robotsHits sync.Map // host → *atomic.Int32
	chain := func(rw http.ResponseWriter, r *http.Request, n int) {
		// /robots.txt → /r1 → ... → /r<n>, which disallows /private.
		i := 0
		if p, ok := strings.CutPrefix(r.URL.Path, "/r"); ok {
			i, _ = strconv.Atoi(p)
		}
		if i < n {
			http.Redirect(rw, r, "/r"+strconv.Itoa(i+1), http.StatusMovedPermanently)
			return
		}
		rw.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(rw, "User-agent: *\nDisallow: /private\n")
	}
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		host := r.Host
		if r.URL.Path == "/robots.txt" {
			c, _ := robotsHits.LoadOrStore(host, new(atomic.Int32))
			c.(*atomic.Int32).Add(1)
		}
		switch {
		case r.URL.Path == "/robots.txt" || strings.HasPrefix(r.URL.Path, "/r"):
			switch host {
			case "five.test":
				chain(rw, r, 5)
			case "six.test":
				chain(rw, r, 6)
			case "loop.test":
				if r.URL.Path == "/robots.txt" {
					http.Redirect(rw, r, "/r1", http.StatusFound)
				} else {
					http.Redirect(rw, r, "/robots.txt", http.StatusFound)
				}
			}
		case r.URL.Path == "/":
			html(rw, `<a href="/private">private</a>`)
		default:
			html(rw, "private")
		}
	}, "http://five.test/", "http://six.test/", "http://loop.test/")
	tc.cfg.NoSitemaps = true
	tc.cfg.Frontier.RobotsRetry = time.Hour // a retry would hold the crawl open
	tc.crawl(20 * time.Second)
	for _, tt := range []struct {
		host         string
		privateState crawl.State
	}{
		{"five.test", crawl.StateDisallowed}, // the file reached after five redirects applies
		{"six.test", crawl.StateDone},        // not reached: everything allowed
		{"loop.test", crawl.StateDone},
	} {
		if p := tc.page("http://" + tt.host + "/"); p == nil || p.Status != 200 {
			t.Errorf("%s/ not fetched: %+v", tt.host, p)
		}
		if rec, ok := tc.url("http://" + tt.host + "/private"); !ok || rec.State != tt.privateState {
			t.Errorf("%s/private: %+v, want state %v", tt.host, rec, tt.privateState)
		}
		c, _ := robotsHits.Load(tt.host)
		if n := c.(*atomic.Int32).Load(); n != 1 {
			t.Errorf("%s/robots.txt requested %d times, want once (no retry; a loop is left when it comes back)", tt.host, n)
		}
	}
}
