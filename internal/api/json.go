package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/report"
)

// Document limits: how much of a page /documents and /doc show.
const (
	maxText     = 64 << 10 // bytes of main text
	maxOutlinks = 500
	maxInlinks  = 500
)

// writeJSON answers with v as JSON. It encodes into a buffer first, so
// that an encoding failure is still a clean 500.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		s.log.Error("api: encode JSON", "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"internal error"}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// searchResponse is the JSON answer of /search. TotalEstimated is set
// when total and the facet counts are estimates (or lower bounds), not
// exact counts (see crawl.SearchResult).
type searchResponse struct {
	Query          string  `json:"query"`
	Total          int     `json:"total"`
	TotalEstimated bool    `json:"total_estimated"`
	TookMS         float64 `json:"took_ms"`
	Limit          int     `json:"limit"`
	Offset         int     `json:"offset"`
	// Group is what a result is: "work" (a work, or a page of no work)
	// or "page"; Counts what Total and Facets count: "works" (such
	// results) or "pages" (from an index that cannot group).
	Group   string       `json:"group"`
	Counts  string       `json:"counts"`
	Results []jsonHit    `json:"results"`
	Facets  crawl.Facets `json:"facets"`
}

// jsonHit is a hit as the JSON API gives it: snippet_text and marks (the
// byte ranges of the matching words in it) as the index gave them, and
// snippet, the same as HTML: escaped text with the matches in <mark>.
type jsonHit struct {
	crawl.SearchHit
	Snippet string   `json:"snippet"`
	Work    *workRef `json:"work,omitempty"` // by work: the work it is a copy of
}

// search runs a search for a request's parameters, with nil lists and
// maps made empty. A query too broad
// to answer (query.Check) is refused before it waits for a slot.
func (s *Server) search(ctx context.Context, req crawl.SearchRequest) (crawl.SearchResult, error) {
	q := query.Parse(req.Query)
	if err := q.Check(); err != nil {
		return crawl.SearchResult{}, fmt.Errorf("api: search: %w", err)
	}
	release, err := s.acquire(ctx, costly(req, q))
	if err != nil {
		return crawl.SearchResult{}, fmt.Errorf("api: search: %w", err)
	}
	defer release()
	req.PageRankWeight = s.rankWeight
	if req.YearTo != 0 && req.YearFrom == 0 {
		// Backends read year 0 as "unknown" and let it pass an upper
		// bound alone; "until 2016" means dated pages.
		req.YearFrom = MinYear
	}
	start := time.Now()
	res, err := s.index.Search(ctx, req)
	if err != nil {
		return res, fmt.Errorf("api: search: %w", err)
	}
	if res.Took == 0 {
		res.Took = time.Since(start)
	}
	if len(res.Hits) > 0 && res.Took < probeMaxTook {
		s.setProbe(req.Query)
	}
	if res.Hits == nil {
		res.Hits = []crawl.SearchHit{}
	}
	for i := range res.Hits {
		h := &res.Hits[i]
		if h.Marks == nil {
			h.Marks = [][2]int{}
		}
		if h.Authors == nil {
			h.Authors = []string{}
		}
	}
	if res.Facets.Host == nil {
		res.Facets.Host = map[string]int{}
	}
	if res.Facets.Type == nil {
		res.Facets.Type = map[string]int{}
	}
	if res.Facets.Year == nil {
		res.Facets.Year = map[int]int{}
	}
	return res, nil
}

func jsonHits(hits []crawl.SearchHit) []jsonHit {
	out := make([]jsonHit, len(hits))
	for i, h := range hits {
		out[i] = jsonHit{SearchHit: h, Snippet: renderMarks(h.Snippet, h.Marks)}
	}
	return out
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) error {
	v, err := queryParams(r)
	if err != nil {
		return err
	}
	req, err := parseSearch(v)
	if err != nil {
		return err
	}
	format, err := citeFormat(v)
	if err != nil {
		return err
	}
	f, err := s.searchWorks(r.Context(), req, format != "")
	if err != nil {
		return err
	}
	if format != "" {
		return writeCitations(w, r, format, "search", citesOf(f.Works))
	}
	resp := searchResponse{
		Query: req.Query, Total: f.Total, TotalEstimated: f.Estimated, TookMS: math.Round(f.Took.Seconds()*1e5) / 100,
		Limit: req.Limit, Offset: req.Offset, Group: "page", Counts: "pages", Results: jsonHits(f.Hits), Facets: f.Facets,
	}
	if req.ByWork {
		resp.Group = "work"
		if f.ByWork {
			resp.Counts = "works"
		}
		for i := range resp.Results {
			resp.Results[i].Work = refOf(f.Works[i])
		}
	}
	s.writeJSON(w, http.StatusOK, resp)
	return nil
}

// document is a recorded page as /documents shows it.
type document struct {
	URL               string          `json:"url"`
	Canonical         string          `json:"canonical,omitempty"`
	RedirectTo        string          `json:"redirect_to,omitempty"`
	Status            int             `json:"status"`
	ContentType       string          `json:"content_type"`
	Title             string          `json:"title"`
	MainText          string          `json:"main_text"`
	MainTextTruncated bool            `json:"main_text_truncated,omitempty"`
	Metadata          *crawl.Metadata `json:"metadata,omitempty"`
	Lang              string          `json:"lang"`
	FetchedAt         time.Time       `json:"fetched_at"`
	DuplicateOf       string          `json:"duplicate_of,omitempty"`
	NearDuplicateOf   string          `json:"near_duplicate_of,omitempty"`
	NoIndex           bool            `json:"noindex"`
	Blocked           bool            `json:"soft_block,omitempty"`
	Indexed           bool            `json:"indexed"` // a search result of its own (crawl.Indexable)
	Outlinks          []outlink       `json:"outlinks"`
	OutlinksTotal     int             `json:"outlinks_total"`
	Inlinks           []crawl.Inlink  `json:"inlinks"`
	InlinksTruncated  bool            `json:"inlinks_truncated,omitempty"` // more than the maxInlinks listed
}

// outlink is a link found on a document.
type outlink struct {
	URL      string `json:"url"`
	Anchor   string `json:"anchor"`
	NoFollow bool   `json:"nofollow,omitempty"`
}

// loadDocument finds the page of a URL, normalized as the crawler stores
// it, with its links.
func (s *Server) loadDocument(ctx context.Context, raw string) (*document, error) {
	release, err := s.acquire(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("api: document: %w", err)
	}
	defer release()
	norm := raw
	if s.normalize != nil {
		n, err := s.normalize(raw)
		if err != nil {
			return nil, &paramError{"url", "is not a URL the crawler can store: " + err.Error()}
		}
		norm = n
	}
	p, err := s.backend.Page(ctx, crawl.URLID(norm))
	if errors.Is(err, crawl.ErrNotFound) && norm != raw {
		p, err = s.backend.Page(ctx, crawl.URLID(raw))
	}
	if errors.Is(err, crawl.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("api: document %s: %w", norm, err)
	}
	d := &document{URL: p.URL, Canonical: p.Canonical, RedirectTo: p.RedirectTo, Status: p.Status, ContentType: p.ContentType,
		Title: p.Title, Metadata: p.Meta, Lang: p.Lang, FetchedAt: p.FetchedAt, NoIndex: p.NoIndex, Blocked: p.Blocked,
		Indexed: crawl.Indexable(p)}
	if d.Title == "" && p.Meta != nil {
		d.Title = p.Meta.Title
	}
	text := p.MainText
	if text == "" {
		text = p.Text
	}
	d.MainText, d.MainTextTruncated = truncateText(text, maxText)
	if d.DuplicateOf, err = s.urlOf(ctx, p.DuplicateOf); err != nil {
		return nil, err
	}
	if d.NearDuplicateOf, err = s.urlOf(ctx, p.NearDuplicateOf); err != nil {
		return nil, err
	}

	links, err := s.backend.Links(ctx, p.ID)
	if err != nil {
		return nil, fmt.Errorf("api: outlinks of %s: %w", p.URL, err)
	}
	slices.SortStableFunc(links, func(a, b crawl.Link) int { return strings.Compare(a.Target, b.Target) })
	d.OutlinksTotal = len(links)
	d.Outlinks = make([]outlink, 0, min(len(links), maxOutlinks))
	for _, l := range links[:min(len(links), maxOutlinks)] {
		d.Outlinks = append(d.Outlinks, outlink{URL: l.Target, Anchor: l.Anchor, NoFollow: l.NoFollow})
	}
	in, err := s.backend.Inlinks(ctx, p.ID, maxInlinks+1)
	if err != nil {
		return nil, fmt.Errorf("api: inlinks of %s: %w", p.URL, err)
	}
	if len(in) > maxInlinks {
		in, d.InlinksTruncated = in[:maxInlinks], true
	}
	if in == nil {
		in = []crawl.Inlink{}
	}
	d.Inlinks = in
	return d, nil
}

// urlOf is the URL of a recorded page, "" for ID 0 or a page no longer
// recorded.
func (s *Server) urlOf(ctx context.Context, id crawl.ID) (string, error) {
	if id == 0 {
		return "", nil
	}
	p, err := s.backend.Page(ctx, id)
	if errors.Is(err, crawl.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("api: page %d: %w", id, err)
	}
	return p.URL, nil
}

// truncateText cuts s to at most n bytes, at a space when one is near,
// never inside a UTF-8 sequence.
func truncateText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexAny(s[:cut], " \n"); i > 0 && i > n-200 {
		cut = i
	}
	return s[:cut], true
}

func (s *Server) handleDocument(w http.ResponseWriter, r *http.Request) error {
	v, err := queryParams(r)
	if err != nil {
		return err
	}
	u, err := documentURL(v)
	if err != nil {
		return err
	}
	d, err := s.loadDocument(r.Context(), u)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.report(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, rep)
	return nil
}

// report builds the crawl's report in one of the slots of the requests
// that read the store, a costly one.
func (s *Server) report(ctx context.Context) (*report.Report, error) {
	release, err := s.acquire(ctx, true) // a report reads every host
	if err != nil {
		return nil, fmt.Errorf("api: report: %w", err)
	}
	defer release()
	rep, err := s.backend.Report(ctx)
	if err != nil {
		return nil, fmt.Errorf("api: report: %w", err)
	}
	return rep, nil
}

// Health probes.
const (
	// defaultProbe is what /healthz searches until a search has found
	// something quickly.
	defaultProbe = "research"
	// probeMaxTook is how quick a search must be for /healthz to repeat it.
	probeMaxTook = 100 * time.Millisecond
)

func (s *Server) setProbe(q string) {
	s.probeMu.Lock()
	s.probe = q
	s.probeMu.Unlock()
}

func (s *Server) getProbe() string {
	s.probeMu.Lock()
	defer s.probeMu.Unlock()
	if s.probe == "" {
		return defaultProbe
	}
	return s.probe
}

// healthFresh is how long a health check's outcome answers the checks
// after it: /healthz runs at most one search per healthFresh, however
// often it is asked.
const healthFresh = time.Second

// handleHealth answers whether search works: it runs a real search, for
// one result (snippet and all), of the last query that found something
// quickly (else of "research"), outside the cap on requests reading the
// store and within healthTimeout. A failing or slow search is a 503. One
// check runs at a time, and its outcome answers the checks of the next
// healthFresh.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	select {
	case s.health <- struct{}{}:
	case <-ctx.Done():
		if r.Context().Err() != nil {
			return r.Context().Err()
		}
		s.writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "the health check is slow"})
		return nil
	}
	defer func() { <-s.health }()
	if time.Since(s.healthAt) >= healthFresh {
		q := s.getProbe()
		_, err := s.index.Search(ctx, crawl.SearchRequest{Query: q, Limit: 1})
		if err != nil && r.Context().Err() != nil {
			return err
		}
		if err != nil {
			s.log.Warn("api: health check: search failed", "query", q, "err", err)
		}
		s.healthAt, s.healthOK = time.Now(), err == nil
	}
	if !s.healthOK {
		s.writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "search failed"})
		return nil
	}
	s.writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readiness is the answer of /readyz.
type readiness struct {
	Status      string `json:"status"`
	Reason      string `json:"reason,omitempty"`
	StoreInUse  int    `json:"store_requests_in_flight"`
	MaxSearches int    `json:"max_store_requests"`
	// MaxClient is Config.MaxClientSearches, when set.
	MaxClient int `json:"max_store_requests_per_client,omitempty"`
}

// handleReady answers whether the server can take more work now: the
// store answers a cheap lookup (a page by ID: found or not found are both
// answers), and not every slot of the requests that read the store is
// taken (a balancer may send the next request elsewhere). /healthz says
// whether search works at all.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	v := readiness{Status: "ok", StoreInUse: len(s.slots), MaxSearches: cap(s.slots)}
	if s.clients != nil {
		v.MaxClient = s.clients.each
	}
	if _, err := s.backend.Page(ctx, 0); err != nil && !errors.Is(err, crawl.ErrNotFound) {
		if r.Context().Err() != nil {
			return err
		}
		s.log.Warn("api: readiness check failed", "err", err)
		v.Status, v.Reason = "unavailable", "store unreachable"
	} else if v.StoreInUse >= v.MaxSearches {
		v.Status, v.Reason = "busy", "every slot for requests reading the store is taken"
	}
	status := http.StatusOK
	if v.Status != "ok" {
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	}
	s.writeJSON(w, status, v)
	return nil
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) error {
	s.metrics.ServeHTTP(w, r)
	return nil
}
