package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/report"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/prometheus/client_golang/prometheus"
)

// prometheusRegistryWith is a registry holding one gauge.
func prometheusRegistryWith(t *testing.T, name string) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "A test value."})
	g.Set(42)
	reg.MustRegister(g)
	return reg
}

// shared is the test corpus in a read-only store, filled once for the
// package (TestMain removes it).
var shared struct {
	once sync.Once
	dir  string
	st   *sqlite.DB
	err  error
}

// collection returns the shared test collection.
func collection(t testing.TB) crawl.Store {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "api-test-"); shared.err != nil {
			return
		}
		pages, links := corpus()
		shared.st, shared.err = fillStore(shared.dir, pages, links, true)
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.st
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.st != nil {
		shared.st.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// newServer serves the test collection.
func newServer(t *testing.T) (*api.Server, *bytes.Buffer) {
	t.Helper()
	return newServerFor(t, api.StoreBackend(collection(t), 0))
}

func newServerFor(t *testing.T, b api.Backend) (*api.Server, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	s, err := api.New(api.Config{Backend: b, Normalize: normalizer(t), Log: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s, &logs
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

// get answers one GET through the handler.
func get(t *testing.T, h http.Handler, target string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w
}

type searchJSON struct {
	Query   string  `json:"query"`
	Total   int     `json:"total"`
	TookMS  float64 `json:"took_ms"`
	Results []struct {
		URL, Title, Snippet, Host, Type, DOI, Lang string
		SnippetText                                string   `json:"snippet_text"`
		Marks                                      [][2]int `json:"marks"`
		Score                                      float64
		Authors                                    []string
		Year                                       int
		FetchedAt                                  time.Time `json:"fetched_at"`
	} `json:"results"`
	Facets struct {
		Host map[string]int `json:"host"`
		Type map[string]int `json:"type"`
		Year map[string]int `json:"year"`
	} `json:"facets"`
}

func search(t *testing.T, h http.Handler, params url.Values) searchJSON {
	t.Helper()
	w := get(t, h, "/search?"+params.Encode())
	if w.Code != http.StatusOK {
		t.Fatalf("GET /search?%s = %d %s, want 200", params.Encode(), w.Code, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want JSON", ct)
	}
	var res searchJSON
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
		t.Fatalf("GET /search?%s: %v\n%s", params.Encode(), err, w.Body)
	}
	if res.Results == nil {
		t.Errorf("GET /search?%s: results is null, want a list", params.Encode())
	}
	return res
}

func urls(res searchJSON) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.URL)
	}
	return out
}

func TestSearchRanking(t *testing.T) {
	s, _ := newServer(t)
	res := search(t, s, url.Values{"q": {uniquePhrase}})
	if len(res.Results) != 1 || res.Results[0].URL != urlSurvey || res.Total != 1 {
		t.Fatalf("search %q = %v (total %d), want only the survey", uniquePhrase, urls(res), res.Total)
	}
	top := res.Results[0]
	if top.Title != "A survey of focused crawling strategies" || top.Type != "article" || top.Year != 2021 || top.DOI != "10.1234/fc.2021" ||
		!slices.Equal(top.Authors, []string{"Ada Lovelace", "Alan Turing"}) || top.Host != hostA || top.Lang != "en" || top.FetchedAt.IsZero() {
		t.Errorf("top hit = %+v", top)
	}
	if !strings.Contains(top.Snippet, "<mark>zymurgical</mark>") {
		t.Errorf("snippet %q does not mark the matched words", top.Snippet)
	}
	if words := crawl.Marked(top.SnippetText, top.Marks); !slices.Contains(words, "zymurgical") || strings.Contains(top.SnippetText, "<") {
		t.Errorf("snippet_text %q marked %v (%q), want plain text with zymurgical marked", top.SnippetText, top.Marks, words)
	}
	if res.Query != uniquePhrase || res.TookMS < 0 {
		t.Errorf("query %q, took %v ms", res.Query, res.TookMS)
	}

	// The title match outranks the body match.
	res = search(t, s, url.Values{"q": {"focused crawling"}})
	got := urls(res)
	if len(got) != 2 || got[0] != urlSurvey || got[1] != urlNotes {
		t.Errorf("search \"focused crawling\" = %v, want the survey (title) before the notes (body), and no noindex or 404 page", got)
	}
	if res.Results[0].Score <= res.Results[1].Score {
		t.Errorf("scores %v, %v: want the title match higher", res.Results[0].Score, res.Results[1].Score)
	}
}

func TestSearchFiltersAndFacets(t *testing.T) {
	s, _ := newServer(t)
	all := search(t, s, url.Values{"q": {"crawling"}, "limit": {"100"}})
	if all.Total < 25 || len(all.Results) != all.Total {
		t.Fatalf("search crawling: total %d, %d results", all.Total, len(all.Results))
	}
	if all.Facets.Host[hostA] == 0 || all.Facets.Host[hostB] == 0 || all.Facets.Type["thesis"] == 0 || all.Facets.Year["2021"] != 1 {
		t.Errorf("facets = %+v", all.Facets)
	}
	sum := 0
	for _, n := range all.Facets.Host {
		sum += n
	}
	if sum != all.Total {
		t.Errorf("host facet counts add up to %d, want the total %d", sum, all.Total)
	}
	for _, tc := range []struct {
		params url.Values
		check  func(r searchJSON, i int) bool
		want   int // results expected, from the facets
	}{
		{url.Values{"host": {hostB}}, func(r searchJSON, i int) bool { return r.Results[i].Host == hostB }, all.Facets.Host[hostB]},
		{url.Values{"type": {"thesis"}}, func(r searchJSON, i int) bool { return r.Results[i].Type == "thesis" }, all.Facets.Type["thesis"]},
		{url.Values{"lang": {"de"}}, func(r searchJSON, i int) bool { return r.Results[i].Lang == "de" }, -1},
		{url.Values{"year_from": {"2021"}, "year_to": {"2021"}}, func(r searchJSON, i int) bool { return r.Results[i].Year == 2021 }, all.Facets.Year["2021"]},
		{url.Values{"year_from": {"2019"}}, func(r searchJSON, i int) bool { return r.Results[i].Year >= 2019 }, -1},
		{url.Values{"year_to": {"2016"}}, func(r searchJSON, i int) bool { return r.Results[i].Year != 0 && r.Results[i].Year <= 2016 }, -1},
	} {
		t.Run(tc.params.Encode(), func(t *testing.T) {
			tc.params.Set("q", "crawling")
			tc.params.Set("limit", "100")
			res := search(t, s, tc.params)
			if len(res.Results) == 0 || len(res.Results) >= all.Total {
				t.Fatalf("%d results of %d, want a non-empty subset", len(res.Results), all.Total)
			}
			if tc.want >= 0 && res.Total != tc.want {
				t.Errorf("total %d, want %d as the facet said", res.Total, tc.want)
			}
			for i := range res.Results {
				if !tc.check(res, i) {
					t.Errorf("result %+v does not match the filter", res.Results[i])
				}
			}
		})
	}
}

func TestSearchPagination(t *testing.T) {
	s, _ := newServer(t)
	all := urls(search(t, s, url.Values{"q": {"crawling"}, "limit": {"100"}}))
	var paged []string
	for off := 0; off < len(all)+7; off += 7 {
		res := search(t, s, url.Values{"q": {"crawling"}, "limit": {"7"}, "offset": {strconv.Itoa(off)}})
		if res.Total != len(all) {
			t.Errorf("offset %d: total %d, want %d", off, res.Total, len(all))
		}
		if want := min(7, max(0, len(all)-off)); len(res.Results) != want {
			t.Errorf("offset %d: %d results, want %d", off, len(res.Results), want)
		}
		paged = append(paged, urls(res)...)
	}
	if !slices.Equal(paged, all) {
		t.Errorf("pages of 7 = %v\nwant the full list %v", paged, all)
	}
	if res := search(t, s, url.Values{"q": {"crawling"}}); len(res.Results) != api.DefaultLimit {
		t.Errorf("default limit: %d results, want %d", len(res.Results), api.DefaultLimit)
	}
}

// Anything a user types is searched as text: never an error page.
func TestSearchHostileQueries(t *testing.T) {
	s, logs := newServer(t)
	for _, q := range []string{`"`, `AND (`, `*`, `:`, `crawling:`, `'; DROP TABLE pages;--`, `NEAR(a b)`, `-`, `""""`, "\x00\xff",
		`title:x`, `^`, `OR`, `crawling OR`, `(crawling`, `{}`, `\`, `%`, `%%`, `<script>alert(1)</script>`, `"focused crawling`, `-crawling`,
		`crawl* -"web archiving"`, "\u202e", strings.Repeat("a ", 250), strings.Repeat("\"", 500), "", "   "} {
		t.Run(q, func(t *testing.T) {
			for _, path := range []string{"/search", "/"} {
				w := get(t, s, path+"?"+url.Values{"q": {q}}.Encode())
				if w.Code != http.StatusOK {
					t.Errorf("GET %s?q=%q = %d, want 200\n%s", path, q, w.Code, w.Body)
				}
			}
		})
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("hostile queries logged errors:\n%s", logs)
	}
	if got := urls(search(t, s, url.Values{"q": {`crawl* -"focused crawling"`}, "limit": {"100"}})); slices.Contains(got, urlSurvey) || len(got) == 0 {
		t.Errorf("search with exclusion = %v", got)
	}
}

func TestSearchBadParameters(t *testing.T) {
	s, _ := newServer(t)
	long := strings.Repeat("x", 501)
	for _, tc := range []struct{ query, param string }{
		{"q=" + long, "q"},
		{"q=a&limit=0", "limit"},
		{"q=a&limit=101", "limit"},
		{"q=a&limit=ten", "limit"},
		{"q=a&limit=-1", "limit"},
		{"q=a&limit=99999999999999999999999", "limit"},
		{"q=a&offset=-1", "offset"},
		{"q=a&offset=10001", "offset"},
		{"q=a&offset=1.5", "offset"},
		{"q=a&year_from=999", "year_from"},
		{"q=a&year_to=2101", "year_to"},
		{"q=a&year_to=20x", "year_to"},
		{"q=a&year_from=2020&year_to=2010", "year_from"},
		{"q=a&host=" + strings.Repeat("h", 301), "host"},
		{"q=a&type=" + strings.Repeat("t", 41), "type"},
		{"q=a&lang=" + strings.Repeat("l", 36), "lang"},
	} {
		t.Run(tc.query[:min(len(tc.query), 40)], func(t *testing.T) {
			w := get(t, s, "/search?"+tc.query)
			var body struct{ Error, Parameter string }
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusBadRequest || body.Parameter != tc.param || body.Error == "" {
				t.Errorf("GET /search?%s = %d %s, want 400 naming %q", tc.query, w.Code, w.Body, tc.param)
			}
			// The web page refuses it too, with a page.
			w = get(t, s, "/?"+tc.query)
			if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), tc.param) || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
				t.Errorf("GET /?%s = %d, want a 400 page naming %q", tc.query, w.Code, tc.param)
			}
		})
	}
	// At the bounds, it answers.
	for _, q := range []string{"q=" + long[:500], "q=a&limit=1", "q=a&limit=100", "q=a&offset=10000", "q=a&year_from=0&year_to=2100",
		"q=a&year_from=1000", "q=a&year_from=2000&year_to=2000", "q=a&limit=&offset="} {
		if w := get(t, s, "/search?"+q); w.Code != http.StatusOK {
			t.Errorf("GET /search?%s = %d %s, want 200", q, w.Code, w.Body)
		}
	}
}

type documentJSON struct {
	URL, Title, Lang, Canonical string
	MainText                    string `json:"main_text"`
	Status                      int
	NoIndex                     bool `json:"noindex"`
	Indexed                     bool
	FetchedAt                   time.Time       `json:"fetched_at"`
	Metadata                    *crawl.Metadata `json:"metadata"`
	Outlinks                    []struct {
		URL, Anchor string
		NoFollow    bool
	}
	OutlinksTotal int            `json:"outlinks_total"`
	Inlinks       []crawl.Inlink `json:"inlinks"`
}

func TestDocuments(t *testing.T) {
	s, _ := newServer(t)
	// Given in a form the normalizer rewrites to the stored one.
	w := get(t, s, "/documents?"+url.Values{"url": {"HTTPS://Uni-A.example.edu:443/papers/focused-crawling#top"}}.Encode())
	if w.Code != http.StatusOK {
		t.Fatalf("GET /documents = %d %s", w.Code, w.Body)
	}
	var d documentJSON
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.URL != urlSurvey || d.Title != "A survey of focused crawling strategies" || d.Status != 200 || !d.Indexed || d.Lang != "en" ||
		!strings.Contains(d.MainText, uniquePhrase) || d.FetchedAt.IsZero() {
		t.Errorf("document = %+v", d)
	}
	if m := d.Metadata; m == nil || m.DOI != "10.1234/fc.2021" || m.Year != 2021 || m.Type != "article" || m.TypeRule != "highwire" ||
		m.Venue != "Journal of Web Studies" || !slices.Equal(m.Authors, []string{"Ada Lovelace", "Alan Turing"}) {
		t.Errorf("metadata = %+v", d.Metadata)
	}
	if len(d.Outlinks) != 3 || d.OutlinksTotal != 3 {
		t.Errorf("outlinks = %+v, want 3", d.Outlinks)
	}
	var nofollow bool
	for _, l := range d.Outlinks {
		if l.URL == urlPrint {
			nofollow = l.NoFollow && l.Anchor == "budgeted crawling"
		}
	}
	if !nofollow {
		t.Errorf("outlinks = %+v, want the preprint link with its anchor, nofollow", d.Outlinks)
	}
	var in []string
	for _, l := range d.Inlinks {
		in = append(in, l.URL+" "+l.Anchor)
	}
	slices.Sort(in)
	if want := []string{urlPrint + " the survey", urlNotes + " survey of focused crawling"}; !slices.Equal(in, want) {
		t.Errorf("inlinks = %v, want %v", in, want)
	}

	// A page that is recorded but not indexed is still a document.
	w = get(t, s, "/documents?url="+url.QueryEscape(urlHidden))
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != http.StatusOK || !d.NoIndex || d.Indexed {
		t.Errorf("GET /documents noindex page = %d %s", w.Code, w.Body)
	}

	for _, tc := range []struct {
		query  string
		status int
	}{
		{"url=" + url.QueryEscape("https://uni-a.example.edu/never-crawled"), http.StatusNotFound},
		{"url=" + url.QueryEscape("https://unknown.example/"), http.StatusNotFound},
		{"", http.StatusBadRequest},
		{"url=", http.StatusBadRequest},
		{"url=" + url.QueryEscape("ftp://example.org/x"), http.StatusBadRequest},
		{"url=" + url.QueryEscape("not a url"), http.StatusBadRequest},
	} {
		w := get(t, s, "/documents?"+tc.query)
		var body struct{ Error, Parameter string }
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != tc.status || body.Error == "" {
			t.Errorf("GET /documents?%s = %d %s, want %d with an error message", tc.query, w.Code, w.Body, tc.status)
		}
		if tc.status == http.StatusBadRequest && body.Parameter != "url" {
			t.Errorf("GET /documents?%s names parameter %q, want url", tc.query, body.Parameter)
		}
	}
}

func TestStatsHealthMetrics(t *testing.T) {
	s, _ := newServer(t)
	w := get(t, s, "/stats")
	var rep report.Report
	if err := json.Unmarshal(w.Body.Bytes(), &rep); err != nil || w.Code != http.StatusOK {
		t.Fatalf("GET /stats = %d %v", w.Code, err)
	}
	if rep.Counters.Pages < 30 || len(rep.Hosts) < 4 || len(rep.Traps) != 1 || len(rep.Series) != 12 {
		t.Errorf("report: %d pages, %d hosts, %d traps, %d intervals", rep.Counters.Pages, len(rep.Hosts), len(rep.Traps), len(rep.Series))
	}

	w = get(t, s, "/healthz")
	if w.Code != http.StatusOK || strings.TrimSpace(w.Body.String()) != `{"status":"ok"}` {
		t.Errorf("GET /healthz = %d %s", w.Code, w.Body)
	}
	down, _ := newServerFor(t, failing{Backend: api.StoreBackend(collection(t), 0), err: errors.New("disk on fire")})
	if w := get(t, down, "/healthz"); w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "fire") {
		t.Errorf("GET /healthz with a failing backend = %d %s, want 503 without the cause", w.Code, w.Body)
	}

	get(t, s, "/search?q=crawling")
	get(t, s, "/search?q=crawling&limit=0")
	w = get(t, s, "/metrics")
	body := w.Body.String()
	for _, want := range []string{
		`acrawler_api_requests_total{code="200",route="search"} 1`,
		`acrawler_api_requests_total{code="400",route="search"} 1`,
		`acrawler_api_request_duration_seconds_bucket{route="search"`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /metrics lacks %q:\n%.2000s", want, body)
		}
	}
}

func TestMetricsWithGatherer(t *testing.T) {
	reg := prometheusRegistryWith(t, "acrawler_test_value")
	s, err := api.New(api.Config{Backend: api.StoreBackend(collection(t), 0), Gatherer: reg})
	if err != nil {
		t.Fatal(err)
	}
	get(t, s, "/healthz")
	body := get(t, s, "/metrics").Body.String()
	if !strings.Contains(body, "acrawler_test_value") || !strings.Contains(body, `acrawler_api_requests_total{code="200",route="healthz"} 1`) {
		t.Errorf("GET /metrics with a gatherer:\n%s", body)
	}
}

// failing is a backend whose searches, pages and reports fail with err
// (or panic, when err is nil).
type failing struct {
	api.Backend
	err error
}

func (f failing) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	if f.err == nil {
		panic("search exploded")
	}
	return crawl.SearchResult{}, f.err
}

func (f failing) Page(ctx context.Context, id crawl.ID) (*crawl.Page, error) { return nil, f.err }

func (f failing) Report(ctx context.Context) (*report.Report, error) { return nil, f.err }

// slow is a backend whose searches wait until their context ends, then
// fail with err (nil: the context's error).
type slow struct {
	api.Backend
	err error
}

func (s slow) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	<-ctx.Done()
	if s.err != nil {
		return crawl.SearchResult{}, s.err
	}
	return crawl.SearchResult{}, ctx.Err()
}

func TestErrors(t *testing.T) {
	b := api.StoreBackend(collection(t), 0)
	broken, logs := newServerFor(t, failing{Backend: b, err: errors.New("secret cause: disk on fire")})
	for _, path := range []string{"/search?q=x", "/?q=x", "/documents?url=" + url.QueryEscape(urlSurvey), "/doc?url=" + url.QueryEscape(urlSurvey), "/stats", "/dashboard"} {
		w := get(t, broken, path)
		if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "secret") {
			t.Errorf("GET %s on a failing backend = %d %s, want 500 without the cause", path, w.Code, w.Body)
		}
	}
	if !strings.Contains(logs.String(), "secret cause") {
		t.Errorf("the cause was not logged:\n%s", logs)
	}
	if w := get(t, broken, "/search?q=x"); w.Body.String() != "{\"error\":\"internal error\"}\n" {
		t.Errorf("500 body = %q", w.Body)
	}

	panicky, logs := newServerFor(t, failing{Backend: b})
	if w := get(t, panicky, "/search?q=x"); w.Code != http.StatusInternalServerError {
		t.Errorf("a panicking search = %d, want 500", w.Code)
	}
	if !strings.Contains(logs.String(), "search exploded") {
		t.Errorf("the panic was not logged:\n%s", logs)
	}

	for _, err := range []error{nil, errors.New("interrupted")} {
		timeout, err2 := api.New(api.Config{Backend: slow{b, err}, Timeout: 20 * time.Millisecond})
		if err2 != nil {
			t.Fatal(err2)
		}
		for _, path := range []string{"/search?q=x", "/?q=x"} {
			if w := get(t, timeout, path); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
				t.Errorf("GET %s over its time, failing with %v = %d %s, want 503 with Retry-After", path, err, w.Code, w.Body)
			}
		}
	}

	s, _ := newServer(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		for _, path := range []string{"/search", "/"} {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(m, path, strings.NewReader("q=x")))
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s = %d (Allow %q), want 405", m, path, w.Code, w.Header().Get("Allow"))
			}
		}
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodHead, "/search?q=crawling", nil))
	if w.Code != http.StatusOK {
		t.Errorf("HEAD /search = %d", w.Code)
	}
	if w := get(t, s, "/no/such/page"); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "Not found") {
		t.Errorf("GET /no/such/page = %d, want a 404 page", w.Code)
	}

	for _, cfg := range []api.Config{{}, {Backend: b, Timeout: -1}, {Backend: b, PageRankWeight: -1}} {
		if _, err := api.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	s, _ := newServer(t)
	for _, path := range []string{"/", "/?q=crawling", "/search?q=crawling", "/doc?url=" + url.QueryEscape(urlSurvey), "/dashboard", "/stats", "/static/style.css", "/nowhere", "/search?limit=x"} {
		w := get(t, s, path)
		h := w.Header()
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no X-Content-Type-Options: nosniff", path)
		}
		if h.Get("Content-Type") == "" {
			t.Errorf("GET %s: no Content-Type", path)
		}
	}
}

// snippety is a backend whose search returns a hit with hostile markup in
// its snippet and title, and marks that are not ranges of the snippet.
type snippety struct{ api.Backend }

func (snippety) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	return crawl.SearchResult{Total: 1, Hits: []crawl.SearchHit{{
		URL: "javascript:alert(1)", Title: "<b>bold</b>", Host: "x", DOI: `10.1/"><script>`,
		Snippet: `a b <img src=x onerror=alert(1)>c <script>alert(2)</script>`,
		Marks:   [][2]int{{2, 3}, {1, 3}, {32, 33}, {40, 400}},
	}}}, nil
}

func TestHostileContentIsEscaped(t *testing.T) {
	s, _ := newServer(t)
	// A hostile query.
	w := get(t, s, "/?q="+url.QueryEscape(`<script>alert(1)</script>`))
	body := w.Body.String()
	if w.Code != http.StatusOK || strings.Contains(body, "<script>alert(1)") || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("GET /?q=<script>: %d, the query is not escaped:\n%s", w.Code, body)
	}
	// A stored page with a hostile title and text.
	body = get(t, s, "/?q=quotes").Body.String()
	if strings.Contains(body, `<script>alert("title")`) || !strings.Contains(body, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt; Tricky &amp;") {
		t.Errorf("the hostile title is not escaped in the results:\n%s", body)
	}
	body = get(t, s, "/doc?url="+url.QueryEscape(urlHostile)).Body.String()
	if strings.Contains(body, "<script>") || strings.Contains(body, "<img") || strings.Contains(body, "<b>") {
		t.Errorf("the document view lets markup through:\n%s", body)
	}

	// A backend that breaks the snippet promise.
	b, _ := newServerFor(t, snippety{api.StoreBackend(collection(t), 0)})
	body = get(t, b, "/?q=x").Body.String()
	for _, bad := range []string{"<img", "<script", "<b>", `href="javascript:`, `"><script>`} {
		if strings.Contains(body, bad) {
			t.Errorf("results page holds %q:\n%s", bad, body)
		}
	}
	const want = "a <mark>b</mark> &lt;img src=x onerror=alert(1)&gt;<mark>c</mark> &lt;script&gt;alert(2)&lt;/script&gt;"
	if !strings.Contains(body, want) {
		t.Errorf("the snippet lost its marks:\n%s", body)
	}
	res := search(t, b, url.Values{"q": {"x"}})
	if res.Results[0].Snippet != want {
		t.Errorf("JSON snippet = %q, want %q", res.Results[0].Snippet, want)
	}
}

func TestSearchPage(t *testing.T) {
	s, _ := newServer(t)
	w := get(t, s, "/")
	if body := w.Body.String(); w.Code != http.StatusOK || !strings.Contains(body, `name="q"`) || !strings.Contains(body, "Search the academic web") ||
		!strings.Contains(body, `name="viewport"`) || strings.Contains(body, `class="hits"`) {
		t.Errorf("GET / (landing) = %d:\n%s", w.Code, body)
	}

	w = get(t, s, "/?q=crawling")
	body := w.Body.String()
	for _, want := range []string{
		`<ol class="hits" start="1">`,
		`href="/doc?url=` + url.QueryEscape(urlPrint) + `"`,  // the title links to the document view
		`href="` + urlPrint + `"`,                            // and to the source
		"<mark>Crawling</mark> the academic web on a budget", // the title's match marked
		`<mark>`,
		`data-facet="type"`,
		`href="/?q=crawling&amp;type=thesis"`, // a facet link adds its filter
		`href="/?host=` + url.QueryEscape(hostB) + `&amp;q=crawling"`, // host facets use host keys
		`href="/?q=crawling&amp;year_from=2021&amp;year_to=2021"`,
		`rel="next"`, `href="/?offset=10&amp;q=crawling"`, `aria-current="page">1<`,
		`doi:10.48550/arXiv.2401.00001`, `href="https://doi.org/10.48550/arXiv.2401.00001"`,
		"Results 1–10 of ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /?q=crawling lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("body:\n%s", body)
	}

	// With filters: chips that remove them, a selected facet, the filters
	// kept in the search form, the results filtered.
	w = get(t, s, "/?q=crawling&type=thesis&year_from=2016&offset=0")
	body = w.Body.String()
	for _, want := range []string{
		`Type: thesis`, `href="/?q=crawling&amp;year_from=2016"`, // the chip removing the type
		`Since 2016`, `href="/?q=crawling&amp;type=thesis"`, // the chip removing the year
		`class="selected"`, `<input type="hidden" name="type" value="thesis">`,
		`data-type="thesis"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /?q=crawling&type=thesis&year_from=2016 lacks %q", want)
		}
	}
	if strings.Contains(body, `data-type="article"`) {
		t.Errorf("the type filter let an article through")
	}

	// Second page, and no results.
	body = get(t, s, "/?q=crawling&offset=10").Body.String()
	if !strings.Contains(body, `<ol class="hits" start="11">`) || !strings.Contains(body, `rel="prev"`) {
		t.Errorf("page 2 lacks its numbering or previous link")
	}
	body = get(t, s, "/?q=nothingmatchesthis").Body.String()
	if !strings.Contains(body, "No documents match") {
		t.Errorf("an empty result lacks its message:\n%s", body)
	}
}

func TestDocumentAndDashboardPages(t *testing.T) {
	s, _ := newServer(t)
	w := get(t, s, "/doc?url="+url.QueryEscape(urlSurvey))
	body := w.Body.String()
	for _, want := range []string{"A survey of focused crawling strategies", uniquePhrase, "Ada Lovelace; Alan Turing", "Journal of Web Studies",
		"a thesis on web archiving", "survey of focused crawling", "the survey", "&lt;not fetched&gt;", "nofollow", "highwire",
		`href="/doc?url=` + url.QueryEscape(urlNotes) + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /doc lacks %q", want)
		}
	}
	if w.Code != http.StatusOK || t.Failed() {
		t.Fatalf("GET /doc = %d:\n%s", w.Code, body)
	}
	if w := get(t, s, "/doc?url="+url.QueryEscape("https://uni-a.example.edu/nope")); w.Code != http.StatusNotFound ||
		!strings.Contains(w.Body.String(), "No document with this URL") {
		t.Errorf("GET /doc for an unknown URL = %d", w.Code)
	}
	if w := get(t, s, "/doc"); w.Code != http.StatusBadRequest {
		t.Errorf("GET /doc without url = %d, want 400", w.Code)
	}

	w = get(t, s, "/dashboard")
	body = w.Body.String()
	if w.Code != http.StatusOK || strings.Count(body, "<svg") != 4 || strings.Contains(body, "No data yet") {
		t.Errorf("GET /dashboard = %d with %d charts", w.Code, strings.Count(body, "<svg"))
	}
	for _, want := range []string{"<polyline", `class="s0"`, "uni-a.example.edu", "calendar: unbounded ?day= parameter", "Trap suspects", "Discovery rate",
		"mirror of uni-a.example.edu"} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /dashboard lacks %q", want)
		}
	}

	// An empty crawl still has a dashboard.
	empty, err := fillStore(t.TempDir(), nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	es, _ := newServerFor(t, api.StoreBackend(empty, 0))
	if w := get(t, es, "/dashboard"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "<svg") {
		t.Errorf("GET /dashboard on an empty crawl = %d", w.Code)
	}
}

// A query string that cannot be decoded is refused, naming the parameter,
// rather than searched without the pair Go's parser drops (which answered
// "100%" as an empty search).
func TestMalformedQueryString(t *testing.T) {
	s, _ := newServer(t)
	for _, tc := range []struct{ query, param string }{
		{"q=100%", "q"},
		{"q=crawling%zz", "q"},
		{"q=a;b", "q"},
		{"q=crawling&limit=5&type=%G1", "type"},
		{"q=crawling&%zz=1", "%zz"},
	} {
		w := get(t, s, "/search?"+tc.query)
		var body struct{ Error, Parameter string }
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusBadRequest || body.Parameter != tc.param || body.Error == "" {
			t.Errorf("GET /search?%s = %d %s, want 400 naming %q", tc.query, w.Code, w.Body, tc.param)
		}
		w = get(t, s, "/?"+tc.query)
		if w.Code != http.StatusBadRequest || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || !strings.Contains(w.Body.String(), "URL-encoded") {
			t.Errorf("GET /?%s = %d, want a 400 page saying what is wrong", tc.query, w.Code)
		}
	}
	for _, path := range []string{"/documents", "/doc"} {
		if w := get(t, s, path+"?url=https://uni-a.example.edu/100%"); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "URL-encoded") {
			t.Errorf("GET %s with a malformed url parameter = %d %s, want 400", path, w.Code, w.Body)
		}
	}
}
