// Package api is the HTTP side of `acrawler serve`: a JSON search API over
// the collection (/search, /documents, /stats), health and Prometheus
// endpoints, and server-rendered web pages — search with facets, a document
// view and the crawl dashboard with inline SVG charts — that need no
// JavaScript and no resources from elsewhere.
//
// Every response carries a strict Content-Security-Policy; only GET and
// HEAD are served. Each request's cost is bounded: a time budget, a cap on
// the requests that read the store at once (one more waits a moment, then
// is answered 503 with Retry-After), and queries whose work has no useful
// bound (query.ErrTooBroad) are refused. Errors are mapped to statuses in
// one place (Server.fail): a bad parameter or an over-broad query is a 400
// that names it, an unknown document a 404, a request over its time budget
// or beyond the cap a 503, a request whose client went away is not answered
// (logged at debug level, counted as 499), anything else a 500 whose cause
// goes to the log only.
package api

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/report"
)

// Backend is what the server reads. A Store has every method but Report;
// StoreBackend adds it.
type Backend interface {
	// Search answers a search; SearchRequest.Query is what the user typed.
	Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error)
	// Page returns the page recorded for a URL ID, or crawl.ErrNotFound.
	Page(ctx context.Context, id crawl.ID) (*crawl.Page, error)
	// Links returns a page's outlinks, in no particular order.
	Links(ctx context.Context, source crawl.ID) ([]crawl.Link, error)
	// Inlinks returns up to limit links to a page from recorded pages.
	Inlinks(ctx context.Context, target crawl.ID, limit int) ([]crawl.Inlink, error)
	// Report computes the crawl's figures.
	Report(ctx context.Context) (*report.Report, error)
}

// Store is what the server reads from a store: searches of its embedded
// index (crawl.SearchStore), pages and links (crawl.PageStore) and what
// the report reads (report.Store). Every crawl.Store has it.
type Store interface {
	crawl.Searcher
	Page(ctx context.Context, id crawl.ID) (*crawl.Page, error)
	Links(ctx context.Context, source crawl.ID) ([]crawl.Link, error)
	Inlinks(ctx context.Context, target crawl.ID, limit int) ([]crawl.Inlink, error)
	report.Store
}

var _ Store = crawl.Store(nil)

// StoreBackend serves a store, its report built by report.Build with at
// most hosts rows of per-host outcomes (0: all).
func StoreBackend(st Store, hosts int) Backend { return storeBackend{st, hosts} }

type storeBackend struct {
	Store
	hosts int
}

func (b storeBackend) Report(ctx context.Context) (*report.Report, error) {
	return report.Build(ctx, b.Store, b.hosts)
}

// Config configures a Server.
type Config struct {
	// Backend answers every request. Required.
	Backend Backend
	// Index answers searches instead of Backend when set: an external
	// index (the store keeps answering everything else).
	Index crawl.Searcher
	// Normalize turns the URL given to /documents and /doc into the form
	// the store keys pages by (urlnorm.Normalizer.Normalize). Nil: the URL
	// is looked up as given.
	Normalize func(raw string) (string, error)
	// PageRankWeight is how much link-graph rank moves search scores
	// (crawl.SearchRequest.PageRankWeight); 0: none.
	PageRankWeight float64
	// Timeout bounds each request's work; 0: 10 seconds.
	Timeout time.Duration
	// MaxSearches caps the requests that read the store at once: searches,
	// documents, the dashboard and /stats. One more waits up to a second
	// for a free slot, then is answered 503 with Retry-After. Costly
	// requests (see costly) hold at most a quarter of the slots (at least
	// one), so that a flood of them leaves the rest to ordinary searches.
	// 0: DefaultMaxSearches().
	MaxSearches int
	// MaxClientSearches caps the slots one client holds at once, a
	// client being the address a request comes from: its requests beyond
	// it wait as for a slot, so that one address sending many requests
	// leaves the other slots to other clients. 0: no cap. Behind a
	// reverse proxy every user has the proxy's address, so leave it 0
	// there (or as large as MaxSearches).
	MaxClientSearches int
	// Gatherer supplies the metrics /metrics shows besides the server's own
	// request metrics. Nil: the Go runtime and process collectors.
	Gatherer prometheus.Gatherer
	// Log receives internal errors and panics; nil: discarded.
	Log *slog.Logger
}

// Server serves the API and the web pages. It is safe for concurrent use.
type Server struct {
	backend    Backend
	index      crawl.Searcher // Config.Index, or the backend
	normalize  func(string) (string, error)
	rankWeight float64
	timeout    time.Duration
	slots      chan struct{} // one token per request reading the store
	costly     chan struct{} // one token per costly request, which also holds a slot
	clients    *clientSlots  // the slots each client holds (Config.MaxClientSearches); nil: no cap
	log        *slog.Logger
	metrics    http.Handler
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	busy       prometheus.Counter
	pages      map[string]*template.Template

	// probe is the last query that found something quickly; /healthz
	// searches it again (see handleHealth).
	probeMu sync.Mutex
	probe   string
	// health holds the token of the one health check running, and the
	// last check's time and outcome, shared by the checks within
	// healthFresh of it.
	health   chan struct{}
	healthAt time.Time
	healthOK bool
}

// DefaultTimeout bounds a request's work when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// healthTimeout bounds the backend check of /healthz and /readyz.
const healthTimeout = 2 * time.Second

// queueWait is how long a request waits for a free slot when
// Config.MaxSearches are already reading the store.
const queueWait = time.Second

// DefaultMaxSearches is the number of requests that read the store at once
// when Config.MaxSearches is zero: two per core the Go runtime uses, so
// that one waiting on the disk leaves the core to another.
func DefaultMaxSearches() int { return 2 * runtime.GOMAXPROCS(0) }

// New checks cfg and builds a server.
func New(cfg Config) (*Server, error) {
	if cfg.Backend == nil {
		return nil, errors.New("api: new: no backend")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("api: new: negative timeout %v", cfg.Timeout)
	}
	if cfg.MaxSearches < 0 {
		return nil, fmt.Errorf("api: new: negative MaxSearches %d", cfg.MaxSearches)
	}
	if cfg.MaxSearches == 0 {
		cfg.MaxSearches = DefaultMaxSearches()
	}
	if cfg.MaxClientSearches < 0 {
		return nil, fmt.Errorf("api: new: negative MaxClientSearches %d", cfg.MaxClientSearches)
	}
	if math.IsNaN(cfg.PageRankWeight) || math.IsInf(cfg.PageRankWeight, 0) || cfg.PageRankWeight < 0 {
		return nil, fmt.Errorf("api: new: page rank weight %v is not a finite number ≥ 0", cfg.PageRankWeight)
	}
	s := &Server{
		backend:    cfg.Backend,
		index:      cfg.Index,
		normalize:  cfg.Normalize,
		rankWeight: cfg.PageRankWeight,
		timeout:    cfg.Timeout,
		slots:      make(chan struct{}, cfg.MaxSearches),
		health:     make(chan struct{}, 1),
		costly:     make(chan struct{}, max(1, cfg.MaxSearches/4)),
		log:        cfg.Log,
	}
	if cfg.MaxClientSearches > 0 {
		s.clients = &clientSlots{each: cfg.MaxClientSearches, held: map[string]*clientTokens{}}
	}
	if s.index == nil {
		s.index = cfg.Backend
	}
	if s.timeout == 0 {
		s.timeout = DefaultTimeout
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if s.pages, err = parseTemplates(); err != nil {
		return nil, fmt.Errorf("api: new: %w", err)
	}

	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "acrawler_api_requests_total",
		Help: "HTTP requests answered by the search server, by route and status code.",
	}, []string{"route", "code"})
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "acrawler_api_request_duration_seconds",
		Help:    "Time to answer an HTTP request of the search server, by route.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	s.busy = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "acrawler_api_busy_total",
		Help: "Requests answered 503 because the maximum number of requests were reading the store.",
	})
	inFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "acrawler_api_store_requests_in_flight",
		Help: "Requests reading the store now (at most acrawler_api_store_requests_max).",
	}, func() float64 { return float64(len(s.slots)) })
	maxInFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "acrawler_api_store_requests_max",
		Help: "The most requests that read the store at once (serve --max-searches).",
	}, func() float64 { return float64(cap(s.slots)) })
	own := prometheus.NewRegistry()
	own.MustRegister(s.requests, s.latency, s.busy, inFlight, maxInFlight)
	var g prometheus.Gatherer = own
	if cfg.Gatherer != nil {
		g = prometheus.Gatherers{cfg.Gatherer, own}
	} else {
		own.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	s.metrics = promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorLog: promLogger{s.log}})
	return s, nil
}

// promLogger passes promhttp's errors to slog.
type promLogger struct{ log *slog.Logger }

func (l promLogger) Println(v ...any) { l.log.Warn("metrics", "err", fmt.Sprint(v...)) }

// route is one endpoint. The name labels metrics; json says whether errors
// are answered as JSON or as a page.
type route struct {
	name string
	json bool
	h    func(s *Server, w http.ResponseWriter, r *http.Request) error
}

var (
	routeSearch    = route{"search", true, (*Server).handleSearch}
	routeDocuments = route{"documents", true, (*Server).handleDocument}
	routeStats     = route{"stats", true, (*Server).handleStats}
	routeHealth    = route{"healthz", true, (*Server).handleHealth}
	routeReady     = route{"readyz", true, (*Server).handleReady}
	routeMetrics   = route{"metrics", false, (*Server).handleMetrics}
	routeHome      = route{"home", false, (*Server).handleHome}
	routeDoc       = route{"doc", false, (*Server).handleDocPage}
	routeDashboard = route{"dashboard", false, (*Server).handleDashboard}
	routeStatic    = route{"static", false, (*Server).handleStatic}
	routeWork      = route{"work", true, (*Server).handleWork}
	routeFavicon   = route{"static", false, func(_ *Server, w http.ResponseWriter, _ *http.Request) error {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.WriteHeader(http.StatusNoContent)
		return nil
	}}
	routeOther = route{"other", false, func(*Server, http.ResponseWriter, *http.Request) error { return errNoPage }}
)

func routeOf(path string) route {
	if strings.HasPrefix(path, "/works/") {
		return routeWork
	}
	switch path {
	case "/search":
		return routeSearch
	case "/documents":
		return routeDocuments
	case "/stats":
		return routeStats
	case "/healthz":
		return routeHealth
	case "/readyz":
		return routeReady
	case "/metrics":
		return routeMetrics
	case "/":
		return routeHome
	case "/doc":
		return routeDoc
	case "/dashboard":
		return routeDashboard
	case cssPath:
		return routeStatic
	case "/favicon.ico":
		// Asked for by a browser showing a page that names no icon (a
		// citation as text): nothing, rather than a 404 in its console.
		return routeFavicon
	}
	return routeOther
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rt := routeOf(r.URL.Path)
	sw := &statusWriter{ResponseWriter: w}
	h := sw.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("api: panic", "route", rt.name, "url", r.URL.String(), "panic", v)
			if !sw.wrote {
				s.fail(sw, r, rt, errors.New("panic"))
			}
		}
		s.requests.WithLabelValues(rt.name, strconv.Itoa(sw.code())).Inc()
		s.latency.WithLabelValues(rt.name).Observe(time.Since(start).Seconds())
	}()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		s.fail(sw, r, rt, errMethod)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
	defer cancel()
	ctx = context.WithValue(ctx, clientKey{}, clientOf(r))
	if err := rt.h(s, sw, r.WithContext(ctx)); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded) {
			// The backend may report its interruption in its own words.
			err = fmt.Errorf("%w (%w)", context.DeadlineExceeded, err)
		}
		s.fail(sw, r, rt, err)
	}
}

// statusWriter remembers the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.status, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) code() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}

// acquire takes one of the slots of the requests that read the store,
// and first one of its client's (Config.MaxClientSearches) and for a
// costly request one of the costly slots, waiting up to queueWait in all;
// release gives them back. It fails with errBusy when none came free in
// time, or with ctx's error.
func (s *Server) acquire(ctx context.Context, costly bool) (release func(), err error) {
	t := time.NewTimer(queueWait)
	defer t.Stop()
	take := func(c chan struct{}) error {
		select {
		case c <- struct{}{}:
			return nil
		default:
		}
		select {
		case c <- struct{}{}:
			return nil
		case <-t.C:
			s.busy.Inc()
			return errBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var client *clientTokens
	if s.clients != nil {
		addr, _ := ctx.Value(clientKey{}).(string)
		client = s.clients.enter(addr)
		if err := take(client.ch); err != nil {
			s.clients.leave(client)
			return nil, err
		}
		defer func() {
			if err != nil {
				s.clients.give(client)
			}
		}()
	}
	if costly {
		if err := take(s.costly); err != nil {
			return nil, err
		}
	}
	if err := take(s.slots); err != nil {
		if costly {
			<-s.costly
		}
		return nil, err
	}
	return func() {
		<-s.slots
		if costly {
			<-s.costly
		}
		if client != nil {
			s.clients.give(client)
		}
	}, nil
}

// clientKey is the context key of a request's client address (clientOf).
type clientKey struct{}

// clientOf is the address a request comes from: the connection's remote
// host, without its port.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// clientSlots are the slots each client holds (Config.MaxClientSearches):
// a client has an entry while one of its requests holds or waits for a
// slot, so the map is as large as the requests in progress.
type clientSlots struct {
	each int
	mu   sync.Mutex
	held map[string]*clientTokens
}

// clientTokens holds one token per slot its client holds, and counts the
// requests using the entry.
type clientTokens struct {
	addr  string
	ch    chan struct{}
	users int
}

// enter returns addr's entry, made if it has none, counted as used.
func (c *clientSlots) enter(addr string) *clientTokens {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.held[addr]
	if t == nil {
		t = &clientTokens{addr: addr, ch: make(chan struct{}, c.each)}
		c.held[addr] = t
	}
	t.users++
	return t
}

// give gives back the slot a request of t's client held, and ends its
// use of the entry.
func (c *clientSlots) give(t *clientTokens) {
	<-t.ch
	c.leave(t)
}

// leave ends a use of an entry, dropping it after its last.
func (c *clientSlots) leave(t *clientTokens) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.users--; t.users == 0 {
		delete(c.held, t.addr)
	}
}

// Costly searches: what makes a search read much of the index.
const (
	costlyPrefix = 4   // a prefix shorter than this matches many words
	costlyWords  = 8   // more words than this
	costlyDepth  = 100 // offset+limit beyond this ranks many matches
)

// costly says whether a search's work is large for its kind: several
// prefixes or a short one, many words, or a deep page.
func costly(r crawl.SearchRequest, q query.Query) bool {
	if r.Offset+r.Limit > costlyDepth {
		return true
	}
	prefixes, words := 0, 0
	for _, t := range q.Terms {
		words += len(t.Words)
		if t.Prefix {
			prefixes++
			if utf8.RuneCountInString(t.Words[len(t.Words)-1]) < costlyPrefix {
				return true
			}
		}
	}
	return prefixes > 1 || words > costlyWords
}

// Errors the handlers return, mapped to statuses by fail.
var (
	errBusy     = errors.New("too many requests reading the store")
	errMethod   = errors.New("method not allowed")
	errNoPage   = errors.New("no such page")
	errNotFound = errors.New("no document with this URL in the collection")
)

// paramError is a request parameter that is missing or out of bounds.
type paramError struct {
	param, msg string
}

func (e *paramError) Error() string { return e.param + " " + e.msg }

// badRequest says whether err is the client's to fix, and how: a bad
// parameter, or a query too broad to answer (query.ErrTooBroad, whose
// reason names the part to change).
func badRequest(err error) (*paramError, bool) {
	var pe *paramError
	if errors.As(err, &pe) {
		return pe, true
	}
	if !errors.Is(err, query.ErrTooBroad) {
		return nil, false
	}
	msg := fmt.Sprintf("is too broad: write prefixes of %d letters or more (%d at most) and at most %d words",
		query.MinPrefix, query.MaxPrefixes, query.MaxWords)
	for e := err; e != nil; e = errors.Unwrap(e) {
		// query.Check's own error gives the reason after ErrTooBroad's text;
		// a backend's wrapping of it would show internal words.
		if reason, ok := strings.CutPrefix(e.Error(), query.ErrTooBroad.Error()+": "); ok && errors.Unwrap(e) == query.ErrTooBroad {
			msg = "is too broad: " + reason
			break
		}
	}
	return &paramError{"q", msg}, true
}

// fail answers a request whose handler failed, mapping the error to a
// status. Only a bad parameter's message reaches the client; other causes
// go to the log.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, rt route, err error) {
	pe, bad := badRequest(err)
	status, msg, param := http.StatusInternalServerError, "internal error", ""
	switch {
	case bad:
		status, msg, param = http.StatusBadRequest, pe.Error(), pe.param
	case errors.Is(err, errMethod):
		status, msg = http.StatusMethodNotAllowed, "only GET and HEAD are served"
	case errors.Is(err, errNoPage):
		status, msg = http.StatusNotFound, "no such page"
	case errors.Is(err, errNotFound) || errors.Is(err, crawl.ErrNotFound):
		status, msg = http.StatusNotFound, errNotFound.Error()
	case r.Context().Err() != nil:
		// The client went away: nobody reads the answer.
		s.log.Debug("api: request canceled", "route", rt.name, "err", err)
		status, msg = 499, "request canceled"
	case errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("api: request timed out", "route", rt.name, "url", r.URL.String(), "timeout", s.timeout, "err", err)
		status, msg = http.StatusServiceUnavailable, "the request took too long; try again or narrow it"
	case errors.Is(err, errBusy):
		// Counted in acrawler_api_busy_total; a log line each would flood.
		s.log.Debug("api: busy", "route", rt.name, "url", r.URL.String())
		status, msg = http.StatusServiceUnavailable, "the server is busy; try again in a moment"
	default:
		s.log.Error("api: internal error", "route", rt.name, "url", r.URL.String(), "err", err)
	}
	if status == 499 {
		w.WriteHeader(status)
		return
	}
	if status == http.StatusServiceUnavailable {
		retry := "5"
		if errors.Is(err, errBusy) {
			retry = "1"
		}
		w.Header().Set("Retry-After", retry)
	}
	if rt.json {
		body := map[string]string{"error": msg}
		if param != "" {
			body["parameter"] = param
		}
		s.writeJSON(w, status, body)
		return
	}
	if pe != nil {
		msg = fmt.Sprintf("the parameter %q %s", pe.param, pe.msg)
	}
	s.errorPage(w, r, status, msg)
}
