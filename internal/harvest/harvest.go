// Package harvest lists an institutional repository over OAI-PMH as a seed
// source of a crawl: its records' landing pages and files enter the
// frontier at high priority, before the crawl starts fetching.
//
// One Run harvests one endpoint politely: robots.txt of the endpoint's host
// is read first and obeyed for every request, requests are spaced by the
// crawl's delay (or the host's longer Crawl-delay), a 503 or 429 is waited
// out as its Retry-After asks. Progress is kept in the crawl's settings
// (under "oai." and the endpoint): the resumption token after each page,
// and, once a list is complete, the date the next harvest starts from, so
// that an interrupted harvest resumes at its last token and a later one
// (acrawler recrawl, or crawl again) asks only for records changed since.
// A failure (bad or truncated XML, an OAI error, a repository that stays
// unavailable) is recorded as a source error of the crawl.
package harvest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/oai"
	"github.com/acrawler/acrawler/internal/urlnorm"
	"github.com/acrawler/acrawler/internal/works"
)

// ViaOAI marks the URLs a harvest offers (crawl.NewURL.Via).
const ViaOAI crawl.Via = "oai"

// SourceKind is the Kind of the source errors a harvest records.
const SourceKind = "oai"

// Boost is added to the priority of a record's URLs: they come first, as
// seeds do.
const Boost = 1000

// Fetcher gets one URL; *fetch.Client is the implementation, with the
// crawl's user agent, proxy and SSRF rules.
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) (*fetch.Response, error)
}

// Frontier takes the URLs of the records (crawl.Store does).
type Frontier interface {
	AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error)
}

// Settings keep a harvest's progress between runs (crawl.Store does).
type Settings interface {
	SetSetting(ctx context.Context, key, value string) error
	Setting(ctx context.Context, key string) (string, error)
}

// SourceErrors records a harvest's failures (crawl.Store does).
type SourceErrors interface {
	RecordSourceError(ctx context.Context, e crawl.SourceError) error
}

// Store is what a harvest needs of the crawl's store.
type Store interface {
	Frontier
	Settings
	SourceErrors
}

// Works receives the records of each page of a harvest, deleted ones
// included, as package works reads them (RecordOf): each record becomes
// a copy of its work, and a withdrawn record's copy leaves it. Both
// stores do (works.AddRecord in one transaction).
type Works interface {
	AddRecords(ctx context.Context, records []works.Record) error
}

// Scorer gives a URL its priority (*score.Policy does).
type Scorer interface {
	Score(url, anchor string, depth int) int
}

// Normalizer normalizes a record's URLs as the crawl does
// (*urlnorm.Normalizer).
type Normalizer interface {
	Normalize(raw string) (string, error)
}

// Config is one endpoint's harvest.
type Config struct {
	// Endpoint is the OAI-PMH base URL, normalized
	// ("https://repository.example.org/oai/request").
	Endpoint   string
	Fetcher    Fetcher
	Store      Store
	Normalizer Normalizer
	// Works, when set, receives every record's metadata.
	Works Works
	// Score ranks the records' URLs (nil: 0), plus Boost.
	Score Scorer
	// Admit says which of the records' URLs the crawl takes (its scope);
	// nil takes all. A DOI is offered as its https://doi.org/ URL when
	// Admit takes that; it always reaches Works with the record.
	Admit  func(url string) bool
	Limits crawl.Limits // the crawl's budgets, applied to the offered URLs
	// Token is the robots.txt product token ("acrawler").
	Token string
	// Delay is the least time between two requests to the endpoint's host
	// (the crawl's --delay); a longer robots.txt Crawl-delay wins, up to
	// MaxCrawlDelay (default 30s).
	Delay         time.Duration
	MaxCrawlDelay time.Duration
	// MaxRetryAfter is the longest Retry-After waited out (default 2m); a
	// repository asking for more is left for the next run.
	MaxRetryAfter time.Duration
	// Retries is how many times one request answered 503 or 429 (or not
	// answered) is tried again (default 3).
	Retries int
	// MaxBody bounds one response (default oai.DefaultMaxBytes).
	MaxBody int64
	Log     *slog.Logger
	// Now and Sleep are the clock (default time.Now and a timer); Sleep
	// returns false when ctx ended first.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) bool
}

// Result sums up a Run.
type Result struct {
	Endpoint string
	// Resumed: the run went on from the token an earlier run left. From is
	// the from argument of a new list ("" for a full harvest, or when
	// resumed).
	Resumed bool
	From    string
	Pages   int
	Records int // records read, deleted ones included
	Deleted int
	Offered int // URLs offered to the frontier
	Added   int // of them, new to the crawl
	// Complete: the list was read to its end; the next run asks only for
	// records changed since it began.
	Complete bool
	Requests int // requests sent to the host, robots.txt included
}

// Errors a Run returns (wrapped) besides the repository's.
var (
	// ErrDisallowed: robots.txt of the endpoint's host forbids a request.
	ErrDisallowed = errors.New("disallowed by robots.txt")
	// ErrRobotsUnreachable: robots.txt could not be read (5xx, 429, no
	// answer), which forbids everything until it can.
	ErrRobotsUnreachable = errors.New("robots.txt unreachable")
)

func (c *Config) defaults() error {
	if c.Endpoint == "" || c.Fetcher == nil || c.Store == nil || c.Normalizer == nil {
		return errors.New("harvest: config needs Endpoint, Fetcher, Store and Normalizer")
	}
	if urlnorm.HostKey(c.Endpoint) == "" {
		return fmt.Errorf("harvest: endpoint %q: not an absolute URL", c.Endpoint)
	}
	if c.Token == "" {
		c.Token = "acrawler"
	}
	if c.MaxCrawlDelay <= 0 {
		c.MaxCrawlDelay = 30 * time.Second
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 2 * time.Minute
	}
	if c.Retries <= 0 {
		c.Retries = 3
	}
	if c.MaxBody <= 0 {
		c.MaxBody = oai.DefaultMaxBytes
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = sleep
	}
	return nil
}

// Run harvests the endpoint once: from the token an earlier run left, else
// the records changed since the last complete harvest, else all. It
// returns when the list is complete or at the first failure, which it
// records as a source error (unless ctx ended); the URLs offered before
// it stay queued. It returns no sooner than the host's delay after its
// last request, so that the crawl's next request to the host keeps it.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.defaults(); err != nil {
		return Result{}, err
	}
	h := &harvest{cfg: cfg, res: Result{Endpoint: cfg.Endpoint}}
	h.get = &politeGetter{cfg: &h.cfg, res: &h.res}
	reqURL, err := h.run(ctx)
	h.get.waitDelay(ctx)
	if err != nil && ctx.Err() == nil {
		se := crawl.SourceError{At: cfg.Now(), Kind: SourceKind, Source: cfg.Endpoint, URL: reqURL, Error: err.Error(), URLs: h.res.Added}
		if rerr := cfg.Store.RecordSourceError(context.WithoutCancel(ctx), se); rerr != nil {
			cfg.Log.Warn("record the OAI-PMH harvest's failure", "endpoint", cfg.Endpoint, "err", rerr)
		}
	}
	return h.res, err
}

type harvest struct {
	cfg Config
	get *politeGetter
	st  state
	res Result
}

// run does the harvest and returns, with its error, the URL of the
// request that failed.
func (h *harvest) run(ctx context.Context) (string, error) {
	if u, err := h.get.readRobots(ctx); err != nil {
		return u, err
	}
	var err error
	if h.st, err = loadState(ctx, h.cfg.Store, h.cfg.Endpoint); err != nil {
		return "", err
	}
	hv := &oai.Harvester{Getter: h.get, BaseURL: h.cfg.Endpoint, Limits: oai.Limits{MaxBytes: int(h.cfg.MaxBody)}}
	var id *oai.Identify
	for fails := 0; ; fails++ {
		if id, err = hv.Identify(ctx); err == nil {
			break
		}
		if err = h.backoff(ctx, err, fails, false); err != nil {
			return h.get.last, err
		}
	}
	opt := oai.Options{Granularity: id.Granularity, Token: h.st.Token, RestartOnBadToken: true}
	if h.st.From != "" {
		from, err := oai.ParseDatestamp(h.st.From)
		if err != nil {
			return "", fmt.Errorf("harvest: recorded from date: %w", err)
		}
		opt.From = from
		if opt.Token == "" {
			h.res.From = id.Granularity.Format(from)
		}
	}
	h.res.Resumed = opt.Token != ""
	return h.list(ctx, hv, opt)
}

// list pages through ListRecords, retrying what a busy repository refused.
func (h *harvest) list(ctx context.Context, hv *oai.Harvester, opt oai.Options) (string, error) {
	for fails := 0; ; fails++ {
		pages := h.res.Pages
		res, err := hv.ListRecords(ctx, opt, func(p *oai.Page) error { return h.page(ctx, p) })
		if err == nil {
			h.res.Complete = res.Complete
			return "", nil
		}
		// A retry goes on from where the list stopped.
		opt.Token = res.Token
		if res.Restarted {
			opt.RestartOnBadToken = false
		}
		if h.res.Pages > pages {
			fails = 0 // pages came before the failure: its retries start again
		}
		if err = h.backoff(ctx, err, fails, true); err != nil {
			return h.get.last, err
		}
	}
}

// backoff waits before a retry and returns nil, or returns the error that
// ends the harvest. A 503 or 429 is waited out as its Retry-After asks
// (the getter adds the delay); with network set, a request that got no
// answer is tried again too. After cfg.Retries failures in a row the
// error stands.
func (h *harvest) backoff(ctx context.Context, err error, fails int, network bool) error {
	if ctx.Err() != nil || fails >= h.cfg.Retries {
		return err
	}
	var wait time.Duration
	var ue *oai.UnavailableError
	var fe *fetch.Error
	switch {
	case errors.As(err, &ue) && ue.Temporary():
		wait = ue.RetryAfter
	case network && errors.As(err, &fe) && fe.Temporary() && fe.Kind != fetch.KindCanceled:
	default:
		return err
	}
	if wait > h.cfg.MaxRetryAfter {
		return fmt.Errorf("%w (longer than the %s waited out: the next run resumes)", err, h.cfg.MaxRetryAfter)
	}
	h.cfg.Log.Info("OAI-PMH repository busy; waiting", "endpoint", h.cfg.Endpoint, "wait", wait, "err", err)
	if !h.cfg.Sleep(ctx, wait) {
		return ctx.Err()
	}
	return nil
}

// page offers one page's URLs and records its works, then saves where the
// harvest stands.
func (h *harvest) page(ctx context.Context, p *oai.Page) error {
	h.res.Pages++
	if h.cfg.Works != nil {
		recs := make([]works.Record, len(p.Records))
		for i := range p.Records {
			recs[i] = RecordOf(h.cfg.Endpoint, &p.Records[i], h.cfg.Normalizer)
		}
		if err := h.cfg.Works.AddRecords(ctx, recs); err != nil {
			return fmt.Errorf("harvest: the records' works: %w", err)
		}
	}
	var urls []crawl.NewURL
	seen := map[string]bool{}
	for i := range p.Records {
		r := &p.Records[i]
		h.res.Records++
		if r.Deleted {
			h.res.Deleted++
			continue
		}
		urls = h.offer(urls, seen, r)
	}
	if len(urls) > 0 {
		st, err := h.cfg.Store.AddURLs(ctx, urls, h.cfg.Limits)
		if err != nil {
			return fmt.Errorf("harvest: queue the records' URLs: %w", err)
		}
		h.res.Offered += len(urls)
		h.res.Added += st.Added
	}
	h.st.page(p)
	return h.st.save(ctx, h.cfg.Store, h.cfg.Endpoint)
}

// offer appends the URLs of a record the crawl takes: its landing pages,
// its files, its DOI's resolver URL.
func (h *harvest) offer(urls []crawl.NewURL, seen map[string]bool, r *oai.Record) []crawl.NewURL {
	cands := make([]string, 0, len(r.URLs)+len(r.PDFURLs)+1)
	cands = append(append(cands, r.URLs...), r.PDFURLs...)
	if r.DOI != "" {
		cands = append(cands, "https://doi.org/"+r.DOI)
	}
	for _, raw := range cands {
		u, err := h.cfg.Normalizer.Normalize(raw)
		if err != nil || seen[u] || h.cfg.Admit != nil && !h.cfg.Admit(u) {
			continue
		}
		seen[u] = true
		host := urlnorm.HostKey(u)
		prio := Boost
		if h.cfg.Score != nil {
			prio += h.cfg.Score.Score(u, "", 1)
		}
		urls = append(urls, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(host), Host: host,
			Depth: 1, Priority: prio, Via: ViaOAI})
	}
	return urls
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
