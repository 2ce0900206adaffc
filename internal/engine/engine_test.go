package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/pdf"
	"github.com/acrawler/acrawler/internal/schedule"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/score"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// web is a test web served through an HTTP proxy: the handler sees the
// crawled host names (a.test, b.test, ...) in r.Host.
type web struct {
	mu   sync.Mutex
	reqs map[string]int // absolute URL → requests
	h    http.HandlerFunc
}

func (w *web) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	u := "http://" + r.Host + r.URL.RequestURI()
	w.mu.Lock()
	if w.reqs == nil {
		w.reqs = map[string]int{}
	}
	w.reqs[u]++
	w.mu.Unlock()
	w.h(rw, r)
}

func (w *web) requests(u string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reqs[u]
}

// testCrawl is an engine over a real SQLite store and a test web.
type testCrawl struct {
	t     *testing.T
	db    string
	web   *web
	proxy string
	cfg   Config
	store *sqlite.DB
}

func newTestCrawl(t *testing.T, h http.HandlerFunc, seeds ...string) *testCrawl {
	t.Helper()
	w := &web{h: h}
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	tc := &testCrawl{t: t, db: filepath.Join(t.TempDir(), "crawl.db"), web: w, proxy: srv.URL}
	norm, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var normSeeds []string
	for _, s := range seeds {
		u, err := norm.Normalize(s)
		if err != nil {
			t.Fatal(err)
		}
		normSeeds = append(normSeeds, u)
	}
	sc, err := scope.New(scope.Host, normSeeds, nil, scope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := score.New(score.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	client, err := fetch.New(fetch.Config{UserAgent: "acrawler-test/1.0", Timeout: 5 * time.Second, Proxy: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	tc.cfg = Config{
		Seeds:      normSeeds,
		Scope:      sc,
		Normalizer: norm,
		Score:      pol,
		Fetcher:    client,
		Workers:    2,
		RetryBase:  20 * time.Millisecond,
		Frontier: frontier.Config{
			Token:       "acrawler",
			Lease:       time.Minute,
			RobotsRetry: 50 * time.Millisecond,
			MaxBackoff:  200 * time.Millisecond,
		},
	}
	return tc
}

func (tc *testCrawl) open() *sqlite.DB {
	tc.t.Helper()
	if tc.store == nil {
		st, err := sqlite.Open(context.Background(), tc.db, sqlite.Options{})
		if err != nil {
			tc.t.Fatal(err)
		}
		tc.store = st
		tc.t.Cleanup(func() { st.Close() })
	}
	return tc.store
}

func (tc *testCrawl) close() {
	if tc.store != nil {
		tc.store.Close()
		tc.store = nil
	}
}

// run crawls until the frontier is exhausted (or ctx ends) and returns
// the summary.
func (tc *testCrawl) run(ctx context.Context) Summary {
	tc.t.Helper()
	return tc.runOn(ctx, tc.open())
}

// runOn is run on the store st.
func (tc *testCrawl) runOn(ctx context.Context, st Store) Summary {
	tc.t.Helper()
	e, err := New(st, tc.cfg)
	if err != nil {
		tc.t.Fatal(err)
	}
	sum, err := e.Run(ctx)
	if err != nil {
		tc.t.Fatal(err)
	}
	return sum
}

// ended is how a crawl run in the background ended (runLater).
type ended struct {
	sum Summary
	err error
}

// runLater runs e until ctx ends, in a goroutine of its own; how it ended
// comes on the channel.
func runLater(ctx context.Context, e *Engine) <-chan ended {
	done := make(chan ended, 1)
	go func() {
		sum, err := e.Run(ctx)
		done <- ended{sum, err}
	}()
	return done
}

// crawl runs a crawl bounded by limit and fails the test if it takes that
// long.
func (tc *testCrawl) crawl(limit time.Duration) Summary {
	tc.t.Helper()
	return tc.crawlOn(tc.open(), limit)
}

// crawlOn is crawl on the store st.
func (tc *testCrawl) crawlOn(st Store, limit time.Duration) Summary {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	sum := tc.runOn(ctx, st)
	if ctx.Err() != nil {
		tc.t.Fatalf("the crawl did not end within %v: %+v", limit, sum)
	}
	return sum
}

func (tc *testCrawl) url(u string) (crawl.URLRecord, bool) {
	tc.t.Helper()
	rec, err := tc.open().URL(context.Background(), crawl.URLID(u))
	if errors.Is(err, crawl.ErrNotFound) {
		return rec, false
	}
	if err != nil {
		tc.t.Fatal(err)
	}
	return rec, true
}

func (tc *testCrawl) page(u string) *crawl.Page {
	tc.t.Helper()
	p, err := tc.open().Page(context.Background(), crawl.URLID(u))
	if errors.Is(err, crawl.ErrNotFound) {
		return nil
	}
	if err != nil {
		tc.t.Fatal(err)
	}
	return p
}

func html(rw http.ResponseWriter, body string) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !strings.Contains(body, "<html") {
		body = "<!doctype html><html><head><title>Test page</title></head><body>" + body + "</body></html>"
	}
	rw.Write([]byte(body))
}

func xmlBody(rw http.ResponseWriter, body string) {
	rw.Header().Set("Content-Type", "application/xml")
	rw.Write([]byte(body))
}

func urlset(urls ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, u := range urls {
		b.WriteString("<url><loc>" + u + "</loc></url>")
	}
	b.WriteString("</urlset>")
	return b.String()
}

// sitemapSite serves a.test with a robots.txt naming the sitemap at path
// sitemap, a home page without links, a page /listed, and routes; anything
// else is 404.
func sitemapSite(sitemap string, routes map[string]http.HandlerFunc) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			rw.Write([]byte("User-agent: *\nAllow: /\nSitemap: http://a.test" + sitemap + "\n"))
		case "/":
			html(rw, `home, no links`)
		case "/listed":
			html(rw, `listed in the sitemap only`)
		default:
			if h := routes[r.URL.Path]; h != nil {
				h(rw, r)
				return
			}
			http.NotFound(rw, r)
		}
	}
}

// The harness itself: a seed, a link, a redirect.
func TestHarnessCrawlsLinksAndRedirects(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			html(rw, `<a href="/old">old</a>`)
		case "/old":
			http.Redirect(rw, r, "/new#top", http.StatusMovedPermanently)
		case "/new":
			html(rw, `new page`)
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.crawl(20 * time.Second)
	if p := tc.page("http://a.test/old"); p == nil || p.Status != 301 || p.RedirectTo != "http://a.test/new" {
		t.Fatalf("/old: %+v", p)
	}
	if p := tc.page("http://a.test/new"); p == nil || p.Status != 200 {
		t.Fatalf("/new: %+v", p)
	}
}

// A sitemap named in robots.txt that redirects (http to https, an old
// name to a new one: common) is a new URL like any other redirect target,
// and is read as a sitemap.
func TestSitemapRedirectIsFollowed(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, sitemapSite("/old-sitemap.xml", map[string]http.HandlerFunc{
		"/old-sitemap.xml": func(rw http.ResponseWriter, r *http.Request) {
			http.Redirect(rw, r, "/sitemap-new.xml", http.StatusMovedPermanently)
		},
		"/sitemap-new.xml": func(rw http.ResponseWriter, r *http.Request) {
			xmlBody(rw, urlset("http://a.test/listed"))
		},
	}), "http://a.test/")
	tc.crawl(20 * time.Second)
	if p := tc.page("http://a.test/old-sitemap.xml"); p == nil || p.RedirectTo != "http://a.test/sitemap-new.xml" {
		t.Errorf("the sitemap's redirect was not recorded: %+v", p)
	}
	if n := tc.web.requests("http://a.test/sitemap-new.xml"); n != 1 {
		t.Errorf("the sitemap's redirect target was requested %d times, want 1", n)
	}
	if p := tc.page("http://a.test/listed"); p == nil || p.Status != 200 {
		t.Errorf("the page listed in the redirected sitemap was not fetched: %+v", p)
	}
}

// A sitemap answering 503 (or 500) is retried like a page, within
// --max-attempts, instead of being recorded as read with nothing in it.
func TestSitemapServerErrorIsRetried(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	tc := newTestCrawl(t, sitemapSite("/sitemap.xml", map[string]http.HandlerFunc{
		"/sitemap.xml": func(rw http.ResponseWriter, r *http.Request) {
			switch calls.Add(1) {
			case 1:
				rw.Header().Set("Retry-After", "0")
				http.Error(rw, "busy", http.StatusServiceUnavailable)
			case 2:
				http.Error(rw, "oops", http.StatusInternalServerError)
			default:
				xmlBody(rw, urlset("http://a.test/listed"))
			}
		},
	}), "http://a.test/")
	tc.crawl(20 * time.Second)
	if n := calls.Load(); n != 3 {
		t.Errorf("the sitemap was requested %d times, want 3 (503, 500, 200)", n)
	}
	if p := tc.page("http://a.test/listed"); p == nil || p.Status != 200 {
		t.Errorf("the page listed in the sitemap was not fetched: %+v", p)
	}
	rec, _ := tc.url("http://a.test/sitemap.xml")
	if rec.State != crawl.StateDone || rec.Attempts != 3 {
		t.Errorf("sitemap: state %v, %d attempts; want done after 3", rec.State, rec.Attempts)
	}
}

// A sitemap that keeps failing is recorded with its last answer after
// --max-attempts, not retried forever.
func TestSitemapServerErrorIsBounded(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	tc := newTestCrawl(t, sitemapSite("/sitemap.xml", map[string]http.HandlerFunc{
		"/sitemap.xml": func(rw http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			http.Error(rw, "oops", http.StatusBadGateway)
		},
	}), "http://a.test/")
	tc.crawl(20 * time.Second)
	if n := calls.Load(); n != 3 {
		t.Errorf("the sitemap was requested %d times, want 3", n)
	}
	if p := tc.page("http://a.test/sitemap.xml"); p == nil || p.Status != 502 {
		t.Errorf("sitemap page: %+v", p)
	}
}

// A Retry-After longer than --max-backoff slows the host down by at most
// --max-backoff (as the README says): the URL's own retry waits no longer,
// or a single server asking for a day keeps the whole crawl open for a day.
func TestRetryAfterCappedByMaxBackoff(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			if calls.Add(1) == 1 {
				rw.Header().Set("Retry-After", "86400")
				http.Error(rw, "come back tomorrow", http.StatusTooManyRequests)
				return
			}
			html(rw, `home`)
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.Frontier.MaxBackoff = 300 * time.Millisecond
	tc.crawl(20 * time.Second)
	if p := tc.page("http://a.test/"); p == nil || p.Status != 200 {
		t.Errorf("home: %+v", p)
	}
	if rec, _ := tc.url("http://a.test/"); rec.State != crawl.StateDone || rec.Attempts != 2 {
		t.Errorf("home: state %v after %d attempts", rec.State, rec.Attempts)
	}
}

// A crawl stopped while a robots.txt is being fetched records nothing
// about it: the host's robots.txt was not unreachable, and a resumed crawl
// fetches it at once (not after --robots-retry, and a few interruptions
// must not add up to the host being given up).
func TestInterruptDuringRobotsLosesNothing(t *testing.T) {
	t.Parallel()
	var robotsCalls atomic.Int32
	hit := make(chan struct{}, 1)
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			if robotsCalls.Add(1) == 1 {
				hit <- struct{}{}
				<-r.Context().Done() // hangs until the crawler gives up
				return
			}
			rw.Write([]byte("User-agent: *\nAllow: /\n"))
		case "/":
			html(rw, `home`)
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.Frontier.RobotsRetry = time.Hour
	tc.cfg.NoSitemaps = true

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-hit:
		case <-time.After(10 * time.Second):
		}
		cancel() // Ctrl-C
	}()
	if sum := tc.run(ctx); sum.Reason != StopInterrupt {
		t.Fatalf("first run: %s", sum.Reason)
	}
	if n := robotsCalls.Load(); n != 1 {
		t.Fatalf("robots.txt requested %d times in the interrupted run", n)
	}
	hosts, err := tc.open().HostStats(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if h.Robots != 0 {
			t.Errorf("host %s: robots.txt status %d recorded by an interrupted fetch", h.Key, h.Robots)
		}
	}
	tc.close()

	tc.cfg.Seeds = nil // resume
	tc.crawl(15 * time.Second)
	if p := tc.page("http://a.test/"); p == nil || p.Status != 200 {
		t.Errorf("home after resuming: %+v", p)
	}
}

// blockingPDF is a PDF extractor that is still busy when the crawl stops.
type blockingPDF struct{ started chan struct{} }

func (b blockingPDF) Extract(ctx context.Context, data []byte) (*pdf.Document, error) {
	select {
	case b.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// A crawl stopped while a PDF's text is being extracted puts the PDF back
// in the queue: it is not recorded as a broken PDF without its text.
func TestInterruptDuringPDFExtractionLosesNothing(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			html(rw, `<a href="/paper.pdf">paper</a>`)
		case "/paper.pdf":
			rw.Header().Set("Content-Type", "application/pdf")
			rw.Write([]byte("%PDF-1.4\n% not really\n%%EOF\n"))
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.NoSitemaps = true
	started := make(chan struct{}, 1)
	tc.cfg.PDF = blockingPDF{started}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
		}
		cancel()
	}()
	sum := tc.run(ctx)
	if sum.Reason != StopInterrupt {
		t.Fatalf("run: %s", sum.Reason)
	}
	if sum.ParseErrors != 0 {
		t.Errorf("summary counts %d parse errors after a stop during a PDF's extraction, want 0", sum.ParseErrors)
	}
	rec, ok := tc.url("http://a.test/paper.pdf")
	if !ok {
		t.Fatal("the PDF was never queued")
	}
	if rec.State != crawl.StateQueued {
		t.Errorf("PDF: state %v (error %q) after an interruption during its extraction; want queued", rec.State, rec.Error)
	}
	if p := tc.page("http://a.test/paper.pdf"); p != nil {
		t.Errorf("PDF recorded by an interrupted extraction: status %d, error %q", p.Status, p.Error)
	}
}

// textPDF is a PDF extractor that finds some text in any document.
type textPDF struct{}

func (textPDF) Extract(ctx context.Context, data []byte) (*pdf.Document, error) {
	return &pdf.Document{Text: "A paper about crawling the web politely, with results.", Pages: 1, Title: "A paper"}, nil
}

// X-Robots-Tag is the only way a PDF can say noindex or nofollow: it
// applies to PDFs as it does to HTML pages (for robots and for the
// crawler's own token, over several header lines).
func TestXRobotsTagAppliesToPDFs(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		pdfBody := func(tags ...string) {
			for _, v := range tags {
				rw.Header().Add("X-Robots-Tag", v)
			}
			rw.Header().Set("Content-Type", "application/pdf")
			rw.Write([]byte("%PDF-1.4\n%%EOF\n"))
		}
		switch r.URL.Path {
		case "/":
			html(rw, `<a href="/a.pdf">a</a> <a href="/b.pdf">b</a> <a href="/c.pdf">c</a> <a href="/d.pdf">d</a>`)
		case "/a.pdf":
			pdfBody("noindex")
		case "/b.pdf":
			pdfBody("otherbot: nofollow", "acrawler: noindex")
		case "/c.pdf":
			pdfBody("otherbot: noindex")
		case "/d.pdf":
			pdfBody()
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.NoSitemaps = true
	tc.cfg.PDF = textPDF{}
	tc.crawl(20 * time.Second)
	for u, want := range map[string]bool{"/a.pdf": true, "/b.pdf": true, "/c.pdf": false, "/d.pdf": false} {
		p := tc.page("http://a.test" + u)
		if p == nil || p.Status != 200 || p.Text == "" {
			t.Errorf("%s: %+v", u, p)
			continue
		}
		if p.NoIndex != want {
			t.Errorf("%s: noindex %v, want %v", u, p.NoIndex, want)
		}
	}
}

// A server error between two 404s says nothing about the page's removal:
// the 404s in a row are counted across it, so that a dying site that
// answers 404 and 503 in turn is still found gone. Nor does the error
// stretch the interval as an unchanged page would.
func TestRevisitServerErrorKeepsMisses(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	pol := schedule.DefaultPolicy() // 3 misses remove a page
	e := &Engine{cfg: Config{Schedule: pol, Now: func() time.Time { return now }}}
	prev := &crawl.PrevFetch{Interval: 24 * time.Hour, Misses: 0, ContentHash: []byte{1}}
	visit := func(status int) *crawl.Revisit {
		r := crawl.Result{URL: crawl.ClaimedURL{URL: "http://a.test/p", Prev: prev}, Outcome: crawl.OutcomeDone,
			Page: &crawl.Page{URL: "http://a.test/p", Status: status}}
		e.revisit(&r)
		rv := r.Revisit
		prev = &crawl.PrevFetch{Interval: rv.Interval, Misses: rv.Misses, ContentHash: []byte{1}}
		return rv
	}
	visit(404)
	rv := visit(503)
	if rv.Misses != 1 || rv.Gone != crawl.Active || !rv.NotModified {
		t.Errorf("503 after a 404: misses %d, gone %v, not modified %v; want 1 miss kept, active, record kept", rv.Misses, rv.Gone, rv.NotModified)
	}
	if rv.Interval != 2*24*time.Hour {
		t.Errorf("503: interval %v, want the 404's interval kept (48h)", rv.Interval)
	}
	visit(404)
	if rv = visit(500); rv.Misses != 2 {
		t.Errorf("500 after 404, 503, 404: misses %d, want 2", rv.Misses)
	}
	if rv = visit(404); rv.Misses != 3 || rv.Gone != crawl.Removed {
		t.Errorf("third 404 (with server errors between): misses %d, gone %v; want 3, removed", rv.Misses, rv.Gone)
	}

	// A redirect is an answer: the page moved, it was not found missing.
	prev = &crawl.PrevFetch{Interval: 24 * time.Hour, Misses: 2}
	if rv = visit(301); rv.Misses != 0 || !rv.NotModified {
		t.Errorf("301 after two 404s: misses %d, not modified %v", rv.Misses, rv.NotModified)
	}
}

// Every kind of redirect answer ends recorded, each hop once, nothing
// followed blindly.
func TestRedirectAnswers(t *testing.T) {
	t.Parallel()
	redirect := func(rw http.ResponseWriter, status int, loc string) {
		rw.Header()["Location"] = []string{loc} // as sent, not cleaned
		rw.WriteHeader(status)
	}
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/":
			var b strings.Builder
			for _, l := range []string{"/s301", "/s302", "/s303", "/s307", "/s308", "/self", "/loop/a", "/out", "/mailto",
				"/nolocation", "/malformed", "/frag", "/chain/1"} {
				fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
			}
			html(rw, b.String())
		case strings.HasPrefix(p, "/s3"):
			st, _ := strconv.Atoi(p[2:])
			redirect(rw, st, "target"+p[2:]) // relative
		case strings.HasPrefix(p, "/target"):
			html(rw, "target "+p)
		case p == "/self":
			redirect(rw, 302, "/self#again")
		case p == "/loop/a":
			redirect(rw, 301, "/loop/b")
		case p == "/loop/b":
			redirect(rw, 301, "http://a.test/loop/a")
		case p == "/out":
			redirect(rw, 301, "http://elsewhere.test/")
		case p == "/mailto":
			redirect(rw, 302, "mailto:someone@a.test")
		case p == "/nolocation":
			rw.WriteHeader(http.StatusFound)
		case p == "/malformed":
			redirect(rw, 301, "http://[::1/broken")
		case p == "/frag":
			redirect(rw, 301, "/landing#section-2")
		case p == "/landing":
			html(rw, "landing")
		case strings.HasPrefix(p, "/chain/"):
			n, _ := strconv.Atoi(p[len("/chain/"):])
			redirect(rw, 302, "/chain/"+strconv.Itoa(n+1))
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.NoSitemaps = true
	tc.cfg.Frontier.Limits.MaxDepth = 3
	tc.crawl(60 * time.Second)

	for _, st := range []string{"301", "302", "303", "307", "308"} {
		src, dst := "http://a.test/s"+st, "http://a.test/target"+st
		if p := tc.page(src); p == nil || p.Status != atoi(st) || p.RedirectTo != dst {
			t.Errorf("%s: %+v", src, p)
		}
		if p := tc.page(dst); p == nil || p.Status != 200 {
			t.Errorf("%s: %+v", dst, p)
		}
		if rec, _ := tc.url(dst); rec.Via != crawl.ViaRedirect || rec.Parent != crawl.URLID(src) {
			t.Errorf("%s: via %q from %d", dst, rec.Via, rec.Parent)
		}
	}
	if p := tc.page("http://a.test/self"); p == nil || p.RedirectTo != "http://a.test/self" || tc.web.requests("http://a.test/self") != 1 {
		t.Errorf("/self: %+v, %d requests", p, tc.web.requests("http://a.test/self"))
	}
	for _, u := range []string{"http://a.test/loop/a", "http://a.test/loop/b"} {
		if n := tc.web.requests(u); n != 1 {
			t.Errorf("%s requested %d times", u, n)
		}
	}
	if p := tc.page("http://a.test/out"); p == nil || p.RedirectTo != "http://elsewhere.test/" {
		t.Errorf("/out: %+v", p)
	}
	if _, ok := tc.url("http://elsewhere.test/"); ok {
		t.Error("a redirect out of scope was queued")
	}
	if p := tc.page("http://a.test/frag"); p == nil || p.RedirectTo != "http://a.test/landing" {
		t.Errorf("/frag: %+v", p)
	}
	// A redirect that cannot be followed says so.
	for _, u := range []string{"/mailto", "/nolocation", "/malformed"} {
		p := tc.page("http://a.test" + u)
		if p == nil || p.RedirectTo != "" || p.ErrorKind != "bad redirect" || p.Error == "" {
			t.Errorf("%s: recorded as %+v; want an error of kind %q", u, p, "bad redirect")
		}
	}
	// A chain of redirects stops after maxRedirectHops hops (depth does
	// not grow along it, so --max-depth would never end it), and the
	// last hop records why.
	hops := 0
	for n := 1; n < 100; n++ {
		if tc.web.requests("http://a.test/chain/"+strconv.Itoa(n)) > 0 {
			hops = n
		}
	}
	if hops != maxRedirectHops+1 {
		t.Errorf("a redirect chain was followed to /chain/%d; want it to end at /chain/%d", hops, maxRedirectHops+1)
	}
	last := tc.page("http://a.test/chain/" + strconv.Itoa(maxRedirectHops+1))
	if last == nil || last.ErrorKind != "redirects" || last.RedirectTo == "" {
		t.Errorf("last hop of the chain: %+v", last)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// leaseLosingStore loses the lease of one URL's first result: the store
// ignores it (Stale) and the URL is back in the queue, as when a host's
// lease expired while the page was fetched and the host was claimed again.
type leaseLosingStore struct {
	crawl.Store
	mu   sync.Mutex
	url  string
	lost bool
}

func (s *leaseLosingStore) Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error) {
	s.mu.Lock()
	stale := 0
	batch := make([]crawl.Result, 0, len(results))
	for _, r := range results {
		if !s.lost && r.URL.URL == s.url && r.Outcome == crawl.OutcomeDone {
			s.lost, stale = true, 1
			// Back in the queue, as the next claim of its host finds it.
			batch = append(batch, crawl.Result{URL: r.URL, Outcome: crawl.OutcomeRelease})
			continue
		}
		batch = append(batch, r)
	}
	s.mu.Unlock()
	st, err := s.Store.Commit(ctx, batch, lim)
	st.Stale += stale
	return st, err
}

// The links of a page whose result the store ignored (its lease was lost)
// are offered again when the page is fetched again: the in-memory seen
// filter, which took them when they were first offered, must not keep
// them from the store for good.
func TestLinksOfStaleResultNotLost(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			html(rw, `<a href="/only-here">only linked from the home page</a>`)
		case "/only-here":
			html(rw, `a leaf`)
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.NoSitemaps = true
	tc.crawlOn(&leaseLosingStore{Store: tc.open(), url: "http://a.test/"}, 20*time.Second)
	if n := tc.web.requests("http://a.test/"); n != 2 {
		t.Fatalf("home requested %d times, want 2 (the stale result, then again)", n)
	}
	if p := tc.page("http://a.test/only-here"); p == nil || p.Status != 200 {
		t.Errorf("/only-here, linked from a page whose first result was stale: %+v", p)
	}
}

// TestChainDoesNotWaitForBatches: a result is committed at once when no
// other is on its way, so a crawl whose next URL is known only once the
// last page's links are recorded (a chain of pages) goes on without
// waiting for a batch to fill or its time to pass (here an hour).
func TestChainDoesNotWaitForBatches(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p"))
		if err != nil {
			http.NotFound(rw, r)
			return
		}
		if n < 9 {
			html(rw, fmt.Sprintf(`<a href="/p%d">next</a>`, n+1))
			return
		}
		html(rw, `the end`)
	}, "http://a.test/p0")
	tc.cfg.commitEvery = time.Hour
	tc.crawl(20 * time.Second)
	for n := range 10 {
		if p := tc.page(fmt.Sprintf("http://a.test/p%d", n)); p == nil || p.Status != 200 {
			t.Fatalf("/p%d: %+v", n, p)
		}
	}
}

// TestCrawlEndsOnceSettled: when the last results are recorded, the hosts
// whose claims found nothing while results were on their way look again
// at once instead of after ClaimEvery (an hour here), and the crawl ends.
func TestCrawlEndsOnceSettled(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			html(rw, `<a href="/a">a</a> <a href="/b">b</a>`)
		case "/a", "/b":
			html(rw, `a leaf`)
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.Frontier.ClaimEvery = time.Hour
	sum := tc.crawl(20 * time.Second)
	if sum.Reason != StopDone {
		t.Fatalf("the crawl stopped for %q, want %q", sum.Reason, StopDone)
	}
	for _, u := range []string{"http://a.test/", "http://a.test/a", "http://a.test/b"} {
		if p := tc.page(u); p == nil || p.Status != 200 {
			t.Fatalf("%s: %+v", u, p)
		}
	}
}

// sitemapFailingStore fails the first fails adds that hold a sitemap, as
// a store that went away would.
type sitemapFailingStore struct {
	crawl.Store
	mu     sync.Mutex
	fails  int
	failed int
}

func (s *sitemapFailingStore) AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	s.mu.Lock()
	fail := s.failed < s.fails && slices.ContainsFunc(urls, func(u crawl.NewURL) bool { return u.Kind == crawl.KindSitemap })
	if fail {
		s.failed++
	}
	s.mu.Unlock()
	if fail {
		return crawl.AddStats{}, errOutage
	}
	return s.Store.AddURLs(ctx, urls, lim)
}

// A host's sitemaps that could not be queued when its robots.txt was read
// (the store away, past --store-outage) are offered again: robots.txt is
// not recorded as read, so it is fetched again and the sitemap read.
func TestSitemapsOfferedAgainAfterAFailedAdd(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, sitemapSite("/sitemap.xml", map[string]http.HandlerFunc{
		"/sitemap.xml": func(rw http.ResponseWriter, r *http.Request) {
			xmlBody(rw, urlset("http://a.test/listed"))
		},
	}), "http://a.test/")
	// Two failures: the add is tried again once before it is given up.
	tc.cfg.StoreOutage = time.Millisecond
	st := &sitemapFailingStore{Store: tc.open(), fails: 2}
	tc.crawlOn(st, 20*time.Second)
	if st.failed != 2 {
		t.Fatalf("%d adds of sitemaps failed, want 2", st.failed)
	}
	if p := tc.page("http://a.test/listed"); p == nil || p.Status != 200 {
		t.Errorf("the page listed in the sitemap was not fetched: %+v", p)
	}
	if n := tc.web.requests("http://a.test/robots.txt"); n != 2 {
		t.Errorf("robots.txt was requested %d times, want 2", n)
	}
}
