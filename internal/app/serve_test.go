package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/api/apitest"
	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// startServe runs `acrawler serve` on a free loopback port and returns its
// base URL.
func startServe(t *testing.T, db string, extra ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		var out, errb strings.Builder
		done <- run(ctx, append([]string{"serve", "--db", db, "--addr", addr, "--log-level", "warn"}, extra...), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type apiResult struct {
	Total   int `json:"total"`
	Results []struct {
		URL, Title, Snippet, Type, Host string
		Year                            int
		Authors                         []string
		Work                            *apiWork `json:"work"`
	} `json:"results"`
	Facets struct {
		Host map[string]int `json:"host"`
		Type map[string]int `json:"type"`
	} `json:"facets"`
}

// apiWork is a search result's work, with its copies.
type apiWork struct {
	Copies []struct{ URL string } `json:"copies"`
}

// hasCopy reports whether a search result's work lists u among its copies.
func hasCopy(w *apiWork, u string) bool {
	if w == nil {
		return false
	}
	for _, c := range w.Copies {
		if c.URL == u {
			return true
		}
	}
	return false
}

func getSearch(t *testing.T, base string, params url.Values) (int, apiResult) {
	t.Helper()
	resp, err := http.Get(base + "/search?" + params.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r apiResult
	if resp.StatusCode == 200 {
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, r
}

// TestSearchAfterCrawl crawls the test web, serves it, and searches it
// through the real HTTP server: on each backend, and in a real browser.
func TestSearchAfterCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) { testSearchAfterCrawl(t, be, true) })
}

// TestSearchAfterCrawlSegments is TestSearchAfterCrawl on SQLite with the
// segments engine of the embedded index.
func TestSearchAfterCrawlSegments(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	testSearchAfterCrawl(t, apptest.Backends[0], false, "--index-engine", "segments")
}

// testSearchAfterCrawl crawls with the extra flags, then searches; in a
// browser too when browse is set and the backend is SQLite.
func testSearchAfterCrawl(t *testing.T, be apptest.Backend, browse bool, extra ...string) {
	web := apptest.NewWeb(t, testweb.Config{Seed: 17, PagesPerSite: 30})
	db := be.NewDB(t)
	mustCrawl(t, append(web.CrawlArgs(db, append([]string{"--delay", "0", "--max-depth", "0", "--no-pdf", "--max-crawl-delay", "1ms"}, extra...)...),
		"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/")...)
	if slices.Contains(extra, "segments") {
		d := apptest.OpenDB(t, db)
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM index_segments WHERE retired = 0 AND docs > 0`); n == 0 {
			t.Fatal("the crawl wrote no segment")
		}
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages_fts`); n != 0 {
			t.Fatalf("the crawl wrote %d FTS5 rows", n)
		}
	}
	base := startServe(t, db)

	// A known publication, found by its title: first, and by title.
	var pub testweb.PageInfo
	for _, p := range web.Pages() {
		if p.Kind == "publication" && p.Citation != nil && strings.HasPrefix(p.URL, "http://www.northfield-university.test/publications/") {
			pub = p
			break
		}
	}
	if pub.URL == "" {
		t.Fatal("no publication on the test web")
	}
	code, r := getSearch(t, base, url.Values{"q": {`"` + pub.Citation.Title + `"`}})
	if code != 200 || len(r.Results) == 0 {
		t.Fatalf("search for the title of %s: %d %+v", pub.URL, code, r)
	}
	if got := r.Results[0].URL; got != pub.URL && !hasCopy(r.Results[0].Work, pub.URL) {
		// The publication has copies (a repository record): the first
		// result stands for its work, the publication among its copies;
		// or a copy fetched first stands for the others, which are
		// recorded as its duplicates and not indexed apart.
		d := apptest.OpenDB(t, db)
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages p JOIN `+d.URLs()+` u ON u.id = p.url_id
			JOIN `+d.URLs()+` f ON f.id = p.near_duplicate_of OR f.id = p.duplicate_of WHERE u.url = ? AND f.url = ?`, pub.URL, got); n != 1 {
			t.Fatalf("search for the title of %s: first %s, which is not the page nor the copy it duplicates: %+v", pub.URL, got, r)
		}
	}
	top := r.Results[0]
	if top.Type != "article" && top.Type != "proceedings" && top.Type != "preprint" && top.Type != "thesis" || len(top.Authors) == 0 || top.Year == 0 {
		t.Errorf("top hit metadata: %+v", top)
	}
	// Pages that name it in their text (listings, profiles) come after.
	if r.Total < 2 {
		t.Errorf("the title appears on %d pages, want the page and others that link or list it", r.Total)
	}
	// Filters and pagination.
	_, all := getSearch(t, base, url.Values{"q": {"research"}, "limit": {"5"}})
	_, p2 := getSearch(t, base, url.Values{"q": {"research"}, "limit": {"5"}, "offset": {"5"}})
	if all.Total < 10 || len(all.Results) != 5 || len(p2.Results) != 5 || p2.Total != all.Total {
		t.Fatalf("pagination: %d results of %d, then %d of %d", len(all.Results), all.Total, len(p2.Results), p2.Total)
	}
	for _, a := range all.Results {
		for _, b := range p2.Results {
			if a.URL == b.URL {
				t.Errorf("%s on both pages", a.URL)
			}
		}
	}
	for typ := range all.Facets.Type {
		_, f := getSearch(t, base, url.Values{"q": {"research"}, "type": {typ}, "limit": {"100"}})
		if f.Total != all.Facets.Type[typ] {
			t.Errorf("type=%s: %d results, the facet said %d", typ, f.Total, all.Facets.Type[typ])
		}
		for _, h := range f.Results {
			if h.Type != typ {
				t.Errorf("type=%s returned a %s", typ, h.Type)
			}
		}
	}
	_, byHost := getSearch(t, base, url.Values{"q": {"research"}, "host": {"http://journal-of-applied-crawling.test"}, "limit": {"100"}})
	for _, h := range byHost.Results {
		if h.Host != "http://journal-of-applied-crawling.test" {
			t.Errorf("host filter returned %s", h.URL)
		}
	}
	// Hostile queries: results or an empty list, never an error page.
	for _, q := range []string{`"`, `AND (`, `*`, `:`, `'; DROP TABLE pages; --`, `<script>alert(1)</script>`, `-`, `NEAR(`, "\x00", strings.Repeat("a", 600)} {
		code, _ := getSearch(t, base, url.Values{"q": {q}})
		if code != 200 && code != 400 {
			t.Errorf("q=%.20q: status %d", q, code)
		}
	}
	for _, bad := range []url.Values{{"q": {"x"}, "limit": {"1000"}}, {"q": {"x"}, "offset": {"-1"}}, {"q": {"x"}, "year_from": {"abc"}}} {
		if code, _ := getSearch(t, base, bad); code != 400 {
			t.Errorf("%v: status %d, want 400", bad, code)
		}
	}
	// The document view.
	resp, err := http.Get(base + "/documents?url=" + url.QueryEscape(pub.URL))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if resp.StatusCode != 200 || doc["title"] == "" || doc["inlinks"] == nil {
		t.Errorf("/documents: %d %v", resp.StatusCode, doc)
	}
	// And in a real browser (skips without Chromium unless CI requires it).
	if browse && be.Name == "sqlite" {
		shot := apitest.Browse(t, base, apitest.Search{Query: "research", Facet: "type", Screenshot: "search-after-crawl.png"})
		t.Logf("browser: %+v", shot)
		// The crawl's pages fit a phone and a desktop: the home page has
		// links from most pages, with long URLs.
		b := apitest.NewBrowser(t)
		for _, p := range []struct{ name, path, sel string }{
			{"search", "/?q=research", "#total"},
			{"document", "/doc?url=" + url.QueryEscape("http://www.northfield-university.test/"), "article"},
			{"publication", "/doc?url=" + url.QueryEscape(pub.URL), "article"},
			{"dashboard", "/dashboard", "main svg"},
		} {
			for _, width := range []int{390, 1280} {
				b.Fit(base+p.path, p.sel, fmt.Sprintf("after-crawl-%s-%d.png", p.name, width), width, 900)
			}
		}
		if dir := os.Getenv("ACRAWLER_ARTIFACTS"); dir != "" {
			t.Logf("screenshots kept in %s", dir)
		}
	}
	_ = fmt.Sprint
}

// serveDone runs serveUntilDone for h on a loopback port and returns its
// base URL and the channel its result comes on.
func serveDone(t *testing.T, ctx context.Context, h http.Handler, grace time.Duration) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serveUntilDone(ctx, &http.Server{Handler: h}, ln, grace) }()
	return "http://" + ln.Addr().String(), done
}

// serveUntilDone returns only once the requests in progress are over, so
// that the store they read is closed after them: Serve returns at the
// start of Shutdown, which was too early.
func TestServeUntilDoneWaitsForRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started, returned := make(chan struct{}), make(chan struct{})
	var early atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		// The request outlives the start of the shutdown; serveUntilDone
		// must not return meanwhile.
		select {
		case <-returned:
			early.Store(true)
		case <-time.After(300 * time.Millisecond):
		}
		fmt.Fprint(w, "done")
	})
	base, done := serveDone(t, ctx, h, 10*time.Second)
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	<-started
	cancel()
	err := <-done
	close(returned)
	if err != nil {
		t.Errorf("serveUntilDone = %v", err)
	}
	if body := <-got; body != "done" { // the handler is over
		t.Errorf("the request in progress got %q, want its answer", body)
	}
	if early.Load() {
		t.Error("serveUntilDone returned while a request was in progress")
	}
}

// A request that outlasts the grace period is canceled, and the shutdown
// says so; serveUntilDone still waits for its handler.
func TestServeUntilDoneGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	var over atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
		over.Store(true)
	})
	base, done := serveDone(t, ctx, h, 50*time.Millisecond)
	go func() {
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "canceled") {
			t.Errorf("serveUntilDone after the grace period = %v, want the shutdown's error", err)
		}
		if !over.Load() {
			t.Error("serveUntilDone returned before the canceled handler")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serveUntilDone did not return after its grace period")
	}
}

// serve says it is stopping in its own words, answers /healthz and
// /readyz meanwhile, and refuses flags that would leave no capacity.
func TestServeStopsInItsOwnWords(t *testing.T) {
	db := filepath.Join(t.TempDir(), "crawl.db")
	if err := run(context.Background(), []string{"migrate", "--db", db}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"--max-searches", "0"}, {"--max-client-searches", "-1"}, {"--timeout", "0s"}, {"--grace", "-1s"}} {
		err := run(context.Background(), append([]string{"serve", "--db", db}, bad...), io.Discard, io.Discard)
		var u UsageError
		if !errors.As(err, &u) {
			t.Errorf("serve %v = %v, want a usage error", bad, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", db, "--addr", addr, "--max-searches", "3", "--max-client-searches", "2", "--grace", "1s"}, &out, &errb)
	}()
	var ready string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ready = string(b)
		break
	}
	if !strings.Contains(ready, `"max_store_requests":3`) || !strings.Contains(ready, `"max_store_requests_per_client":2`) {
		t.Errorf("/readyz = %q, want the --max-searches and --max-client-searches capacities", ready)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if got := out.String(); !strings.Contains(got, "acrawler serve: no new connections; requests in progress have 1s to finish") || strings.Contains(got+errb.String(), "in-flight URLs") {
		t.Errorf("serve printed on its stop:\n%s%s", got, errb.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
