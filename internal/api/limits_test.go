package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// gated is a backend whose searches for "block…" wait until gate closes
// (or their context ends), counting how many wait; other searches go to
// the store.
type gated struct {
	api.Backend
	gate    chan struct{}
	mu      sync.Mutex
	waiting int
	cond    *sync.Cond
}

func newGated(b api.Backend) *gated {
	g := &gated{Backend: b, gate: make(chan struct{})}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *gated) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	if !strings.HasPrefix(r.Query, "block") {
		return g.Backend.Search(ctx, r)
	}
	g.mu.Lock()
	g.waiting++
	g.cond.Broadcast()
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.waiting--
		g.cond.Broadcast()
		g.mu.Unlock()
	}()
	select {
	case <-g.gate:
		return crawl.SearchResult{}, nil
	case <-ctx.Done():
		return crawl.SearchResult{}, ctx.Err()
	}
}

// waitFor waits until n searches wait at the gate.
func (g *gated) waitFor(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.waiting != n {
		g.cond.Wait()
	}
}

// With every slot taken, one more request is answered 503 with
// Retry-After (JSON or a page) once it has waited, /readyz says busy,
// /healthz still searches; once the slots are free, requests are answered.
func TestBusy(t *testing.T) {
	t.Parallel() // it waits (for a slot, for the browser) more than it computes
	g := newGated(api.StoreBackend(collection(t), 0))
	s, err := api.New(api.Config{Backend: g, MaxSearches: 2})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for range 2 {
		wg.Go(func() { codes <- get(t, s, "/search?q=block").Code })
	}
	g.waitFor(2)

	for _, path := range []string{"/search?q=crawling", "/?q=crawling", "/documents?url=" + url.QueryEscape(urlSurvey), "/dashboard"} {
		w := get(t, s, path)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), "busy") {
			t.Errorf("GET %s with every slot taken = %d (Retry-After %q) %.200s, want 503 saying busy", path, w.Code, w.Header().Get("Retry-After"), w.Body)
		}
	}
	if w := get(t, s, "/readyz"); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"busy"`) {
		t.Errorf("GET /readyz with every slot taken = %d %s, want 503 busy", w.Code, w.Body)
	}
	if w := get(t, s, "/healthz"); w.Code != http.StatusOK {
		t.Errorf("GET /healthz with every slot taken = %d %s, want 200: search works", w.Code, w.Body)
	}
	if w := get(t, s, "/"); w.Code != http.StatusOK {
		t.Errorf("GET / (no search) with every slot taken = %d, want the landing page", w.Code)
	}

	close(g.gate)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a search that held a slot = %d, want 200", c)
		}
	}
	if res := search(t, s, url.Values{"q": {uniquePhrase}}); len(res.Results) != 1 {
		t.Errorf("after the rush: %v, want the survey", urls(res))
	}
	if w := get(t, s, "/readyz"); w.Code != http.StatusOK {
		t.Errorf("GET /readyz when idle = %d %s", w.Code, w.Body)
	}
	if body := get(t, s, "/metrics").Body.String(); !strings.Contains(body, "acrawler_api_busy_total 4") ||
		!strings.Contains(body, "acrawler_api_store_requests_max 2") {
		t.Errorf("/metrics does not count the 4 busy answers:\n%s", body)
	}
	if _, err := api.New(api.Config{Backend: g, MaxSearches: -1}); err == nil {
		t.Error("New accepted MaxSearches -1")
	}
}

// Costly searches hold at most a quarter of the slots: with those taken,
// one more costly search is answered 503, an ordinary one is answered.
func TestCostlySearchesShareAQuarter(t *testing.T) {
	t.Parallel() // it waits (for a slot, for the browser) more than it computes
	g := newGated(api.StoreBackend(collection(t), 0))
	s, err := api.New(api.Config{Backend: g, MaxSearches: 4})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	go func() { done <- get(t, s, "/search?q="+url.QueryEscape("block ab*")).Code }()
	g.waitFor(1)
	for _, q := range []url.Values{
		{"q": {"crawling ab*"}},         // a short prefix
		{"q": {"crawl* focus*"}},        // two prefixes
		{"q": {manyWords(9)}},           // many words
		{"q": {"x"}, "offset": {"100"}}, // a deep page
	} {
		if w := get(t, s, "/search?"+q.Encode()); w.Code != http.StatusServiceUnavailable {
			t.Errorf("costly search %v with the costly slot taken = %d, want 503", q, w.Code)
		}
	}
	if w := get(t, s, "/dashboard"); w.Code != http.StatusServiceUnavailable {
		t.Errorf("the dashboard with the costly slot taken = %d, want 503", w.Code)
	}
	for _, q := range []url.Values{{"q": {uniquePhrase}}, {"q": {"crawl*"}}, {"q": {"crawling"}, "offset": {"90"}}} {
		if w := get(t, s, "/search?"+q.Encode()); w.Code != http.StatusOK {
			t.Errorf("ordinary search %v with the costly slot taken = %d, want 200", q, w.Code)
		}
	}
	close(g.gate)
	if c := <-done; c != http.StatusOK {
		t.Errorf("the costly search = %d", c)
	}
}

// A client (the address requests come from) holds at most
// MaxClientSearches slots: with its share taken, its next request gets
// 503 whatever its port, another address's is answered, and once its
// requests end it is answered again.
func TestClientSearchesCapped(t *testing.T) {
	t.Parallel() // it waits for a slot more than it computes
	g := newGated(api.StoreBackend(collection(t), 0))
	s, err := api.New(api.Config{Backend: g, MaxSearches: 4, MaxClientSearches: 2})
	if err != nil {
		t.Fatal(err)
	}
	from := func(addr, target string) int {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w.Code
	}
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for port := range 2 {
		wg.Go(func() { codes <- from(fmt.Sprintf("192.0.2.1:%d", 4000+port), "/search?q=block") })
	}
	g.waitFor(2)
	if c := from("192.0.2.1:5000", "/search?q=crawling"); c != http.StatusServiceUnavailable {
		t.Errorf("a third search of a client holding its 2 slots = %d, want 503", c)
	}
	for _, addr := range []string{"192.0.2.2:4000", "[2001:db8::1]:4000"} {
		if c := from(addr, "/search?q=crawling"); c != http.StatusOK {
			t.Errorf("a search from %s while another client holds its share = %d, want 200", addr, c)
		}
	}
	close(g.gate)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a search that held a client's slot = %d, want 200", c)
		}
	}
	if c := from("192.0.2.1:5000", "/search?q=crawling"); c != http.StatusOK {
		t.Errorf("the client's search once its others ended = %d, want 200", c)
	}
	if _, err := api.New(api.Config{Backend: g, MaxClientSearches: -1}); err == nil {
		t.Error("New accepted MaxClientSearches -1")
	}
}

// tooBroad is a backend that refuses every search as query.Check does.
type tooBroad struct{ api.Backend }

func (tooBroad) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	return crawl.SearchResult{}, fmt.Errorf("store: search: %w", query.ErrTooBroad)
}

// A query whose work has no useful bound is the client's to change: a 400
// that names q and says why, on the API and the search page; never a 500.
func TestTooBroadIsBadRequest(t *testing.T) {
	s, logs := newServer(t)
	for _, tc := range []struct{ q, want string }{
		{"r*", `prefix "r"* is shorter than 2 letters`},
		{"ab* cd* ef* gh* ij* kl*", "6 prefixes"},
		{manyWords(query.MaxWords + 1), fmt.Sprintf("%d words", query.MaxWords+1)},
	} {
		w := get(t, s, "/search?"+url.Values{"q": {tc.q}}.Encode())
		var body struct{ Error, Parameter string }
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusBadRequest || body.Parameter != "q" || !strings.Contains(body.Error, tc.want) {
			t.Errorf("GET /search?q=%.30q = %d %s, want 400 naming q and saying %q", tc.q, w.Code, w.Body, tc.want)
		}
		w = get(t, s, "/?"+url.Values{"q": {tc.q}}.Encode())
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "too broad") || !strings.Contains(w.Body.String(), `role="search"`) {
			t.Errorf("GET /?q=%.30q = %d, want the search page with the problem", tc.q, w.Code)
		}
	}
	// A backend with its own, stricter bounds.
	b, _ := newServerFor(t, tooBroad{api.StoreBackend(collection(t), 0)})
	if w := get(t, b, "/search?q=crawling"); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "too broad") || strings.Contains(w.Body.String(), "store:") {
		t.Errorf("GET /search on a backend refusing the query = %d %s, want 400 without the backend's words", w.Code, w.Body)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a too broad query was logged as an error:\n%s", logs)
	}
}

// searchFails is a backend whose searches fail while its other reads work.
type searchFails struct{ api.Backend }

func (searchFails) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	return crawl.SearchResult{}, errors.New("no such table: snippets")
}

// /healthz fails when search fails, even when the store answers other
// reads; /readyz says whether the store answers at all.
func TestHealthSearches(t *testing.T) {
	s, _ := newServerFor(t, searchFails{api.StoreBackend(collection(t), 0)})
	if w := get(t, s, "/healthz"); w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "snippets") {
		t.Errorf("GET /healthz when search fails = %d %s, want 503 without the cause", w.Code, w.Body)
	}
	if w := get(t, s, "/readyz"); w.Code != http.StatusOK {
		t.Errorf("GET /readyz when the store answers lookups = %d %s, want 200", w.Code, w.Body)
	}
	down, _ := newServerFor(t, failing{Backend: api.StoreBackend(collection(t), 0), err: errors.New("disk on fire")})
	if w := get(t, down, "/readyz"); w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "fire") {
		t.Errorf("GET /readyz with a failing store = %d %s, want 503 without the cause", w.Code, w.Body)
	}
	ok, _ := newServer(t)
	if w := get(t, ok, "/healthz"); w.Code != http.StatusOK {
		t.Errorf("GET /healthz = %d %s", w.Code, w.Body)
	}

	// Checks in a row share a search: /healthz is no way around the cap.
	c := &counting{Backend: api.StoreBackend(collection(t), 0)}
	cs, _ := newServerFor(t, c)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if w := get(t, cs, "/healthz"); w.Code != http.StatusOK {
				t.Errorf("GET /healthz = %d %s", w.Code, w.Body)
			}
		})
	}
	wg.Wait()
	if n := c.searches.Load(); n < 1 || n >= 20 {
		t.Errorf("20 health checks ran %d searches, want one per second", n)
	}
}

// counting is a backend that counts its searches.
type counting struct {
	api.Backend
	searches atomic.Int64
}

func (c *counting) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	c.searches.Add(1)
	return c.Backend.Search(ctx, r)
}

// A request whose client goes away, while it searches or while it waits
// for a slot, is neither logged as an error nor counted as a 5xx.
func TestCanceledRequests(t *testing.T) {
	g := newGated(api.StoreBackend(collection(t), 0))
	var logs bytes.Buffer
	s, err := api.New(api.Config{Backend: g, MaxSearches: 1, Log: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	for range 2 { // one searching, one waiting for the slot
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/search?q=block", nil)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	g.waitFor(1)
	time.Sleep(50 * time.Millisecond) // lets the second request queue; the test holds either way
	cancel()
	for range 2 {
		if err := <-errs; err == nil {
			t.Error("a canceled request got an answer")
		}
	}
	g.waitFor(0)
	close(g.gate)
	if w := get(t, s, "/search?q=block"); w.Code != http.StatusOK {
		t.Errorf("after the cancellations: %d", w.Code)
	}
	// The handlers count a request once it is over: wait for the first.
	var body string
	for i := 0; i < 500 && !strings.Contains(body, `code="499"`); i++ {
		if i > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		body = get(t, s, "/metrics").Body.String()
	}
	if strings.Contains(body, `code="5`) || !strings.Contains(body, `code="499"`) {
		t.Errorf("canceled requests counted as:\n%s", grepLines(body, "acrawler_api_requests_total"))
	}
	if l := logs.String(); strings.Contains(l, "level=ERROR") || strings.Contains(l, "level=WARN") {
		t.Errorf("canceled requests were logged as problems:\n%s", l)
	}
}

// manyWords is a query of n different words.
func manyWords(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("word%d", i)
	}
	return strings.Join(ws, " ")
}

func grepLines(s, sub string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A request over its time budget on the real store ends cleanly: a 503
// with Retry-After saying so, never a 500, and the store answers right
// afterwards.
func TestTimeBudgetOnRealStore(t *testing.T) {
	st := collection(t)
	queries := []string{"crawling", "focused crawling", `"web archiving"`, "crawl* repor*", uniquePhrase}
	over := 0
	// Budgets that end searches before they start and in their midst.
	for _, budget := range []time.Duration{time.Microsecond, 100 * time.Microsecond, 500 * time.Microsecond, 2 * time.Millisecond} {
		tight, err := api.New(api.Config{Backend: api.StoreBackend(st, 0), Timeout: budget})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			for _, path := range []string{"/search", "/"} {
				w := get(t, tight, path+"?"+url.Values{"q": {q}}.Encode())
				switch w.Code {
				case http.StatusOK:
				case http.StatusServiceUnavailable:
					over++
					if w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "took too long") {
						t.Errorf("GET %s?q=%s over its budget = 503 %s (Retry-After %q)", path, q, w.Body, w.Header().Get("Retry-After"))
					}
				default:
					t.Errorf("GET %s?q=%s with a %v budget = %d %.200s, want 200 or 503", path, q, budget, w.Code, w.Body)
				}
			}
		}
	}
	if over == 0 {
		t.Error("no request went over its budget")
	}
	s, _ := newServer(t)
	if res := search(t, s, url.Values{"q": {uniquePhrase}}); len(res.Results) != 1 || res.Results[0].URL != urlSurvey || res.Results[0].Snippet == "" {
		t.Errorf("after the interrupted searches: %+v, want the survey with its snippet", res.Results)
	}
}
