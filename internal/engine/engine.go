// Package engine runs a crawl: it wires the frontier, the fetcher, the
// parsers and the store into a pool of workers and a committer, reports
// progress, and stops cleanly on a budget, a deadline or a signal.
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/schedule"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/score"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// Fetcher gets one URL; *fetch.Client is the implementation.
type Fetcher interface {
	Fetch(ctx context.Context, req fetch.Request) (*fetch.Response, error)
}

// Config is everything a crawl needs, as plain values and ready parts.
type Config struct {
	// Frontier configures the crawl's frontier: the lease owner name of
	// this process (default "acrawler"), the budgets (Limits), politeness
	// (Delay, MaxCrawlDelay, HostInflight, MaxBackoff: the cap on a host's
	// back-off after 429, 503 or soft blocks, and on a Retry-After), host
	// leases, the robots.txt cache and product token (default "acrawler";
	// the extractor reads robots meta tags for it too). Its defaults are
	// the frontier's (frontier.Config.WithDefaults). The engine sets
	// MaxHosts, MinReady and Batch when they are zero, and always
	// HostValues (from Score's order), Now, Log and Wake.
	Frontier frontier.Config

	Seeds        []string // normalized seed URLs
	SitemapSeeds []string // normalized sitemap URLs to read entries from
	NoSitemaps   bool     // do not look for sitemaps in robots.txt or at /sitemap.xml
	MaxDuration  time.Duration

	// SeedBatches, when set, streams more seeds (normalized, depth 0),
	// added before those of Seeds and SitemapSeeds: it
	// calls add with one batch at a time (add does not keep it), and
	// returns add's error or its own. It runs on a goroutine of its own,
	// at most two batches ahead of the store's adds; add blocks while it
	// is that far ahead, and fails once ctx ends or the store failed. A
	// seeds file of millions of lines is never held whole.
	SeedBatches func(ctx context.Context, add func(seeds []string) error) error
	// ArchiveBatches, when set, streams normalized URLs from a web archive
	// the same way, added after the seeds at depth 1, those in scope and
	// not excluded.
	ArchiveBatches func(ctx context.Context, add func(urls []string) error) error

	Scope      *scope.Scope
	Normalizer *urlnorm.Normalizer
	Score      *score.Policy
	Fetcher    Fetcher

	Workers      int
	MaxAttempts  int                  // fetch attempts per URL for transient failures (default 3)
	RetryBase    time.Duration        // first retry delay, doubling (default 30s)
	MaxLinks     int                  // links taken from one page (default 1000)
	MaxBody      int64                // HTML body cap, passed to the fetcher (0: its default)
	StoreOutage  time.Duration        // how long store errors are retried before giving up (default 5m)
	TrapPolicy   TrapPolicy           // what happens to a suspected trap (default throttle)
	BlockMarkers []string             // lowercase phrases that mark a short 200 page as a soft block
	MetricsEvery time.Duration        // how often figures are recorded in the store (default 10s)
	Archive      Archive              // raw responses (nil: not archived)
	PDF          extract.PDFExtractor // PDF text (nil: PDFs are not fetched for their text)
	MaxPDFBody   int64                // PDF size limit (default 20 MiB)
	MainText     bool                 // extract main text (boilerplate removed)
	Schedule     schedule.Policy      // revisit policy (default schedule.DefaultPolicy)
	Run          int                  // the recrawl run this crawl is (0: not a recrawl)
	RevisitEvery time.Duration        // how often due pages are queued during the crawl (0: only at the start)
	DueAtStart   bool                 // queue the pages due for a revisit before crawling
	DueAll       bool                 // with DueAtStart: every active page, due or not (recrawl --all)

	Log           *slog.Logger
	Progress      func(Progress) // called every ProgressEvery and once at the end
	ProgressEvery time.Duration
	Now           func() time.Time

	// commitEvery is how long a batch of results gathers before it is
	// committed, heldBytes how many bytes the results on their way to
	// the store may hold (tests; default the constants).
	commitEvery time.Duration
	heldBytes   int64
}

func (c *Config) defaults() error {
	if c.Scope == nil || c.Normalizer == nil || c.Score == nil || c.Fetcher == nil {
		return errors.New("engine: config needs Scope, Normalizer, Score and Fetcher")
	}
	if c.Workers <= 0 {
		c.Workers = 16
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 30 * time.Second
	}
	if c.MaxLinks <= 0 {
		c.MaxLinks = 1000
	}
	if c.StoreOutage <= 0 {
		c.StoreOutage = 5 * time.Minute
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = time.Second
	}
	if c.commitEvery <= 0 {
		c.commitEvery = commitEvery
	}
	if c.heldBytes <= 0 {
		c.heldBytes = heldBytes
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.TrapPolicy == "" {
		c.TrapPolicy = TrapThrottle
	}
	if c.BlockMarkers == nil {
		c.BlockMarkers = DefaultBlockMarkers
	}
	if c.MetricsEvery <= 0 {
		c.MetricsEvery = 10 * time.Second
	}
	if c.MaxPDFBody <= 0 {
		c.MaxPDFBody = 20 << 20
	}
	if c.Schedule.Max == 0 {
		c.Schedule = schedule.DefaultPolicy()
	}
	if err := c.Schedule.Validate(); err != nil {
		return err
	}
	f := &c.Frontier
	if f.Owner == "" {
		f.Owner = "acrawler"
	}
	if f.Token == "" {
		f.Token = "acrawler"
	}
	if f.MaxHosts <= 0 {
		f.MaxHosts = max(256, 4*c.Workers)
	}
	if f.MinReady <= 0 {
		f.MinReady = c.Workers
	}
	if f.Batch <= 0 {
		// URLs claimed per host at a time: large enough that the
		// dispatcher seldom waits for the store behind a commit.
		f.Batch = 32
		if f.Limits.MaxPages > 0 || f.Limits.MaxHostBytes > 0 {
			// Claims reserve page budget: keep the reservations small so
			// the budget goes to the best URLs known when it is spent. A
			// host's byte share is checked when its URLs are claimed: a
			// large claim would overshoot it by a whole batch of pages.
			f.Batch = 2
		}
	}
	// In priority order hosts compete by their best URL and the value
	// they earned; breadth- and depth-first orders are what they say.
	f.HostValues = c.Score.Order() == score.OrderPriority
	f.Now, f.Log = c.Now, c.Log
	c.Frontier = c.Frontier.WithDefaults()
	return nil
}

// DefaultBlockMarkers are phrases of pages that refuse a crawler while
// answering 200 (soft blocks), matched case-insensitively on short pages.
var DefaultBlockMarkers = []string{
	"access denied", "captcha", "are you a robot", "are you a human", "verify you are human",
	"unusual traffic", "request blocked", "too many requests", "erişim engellendi", "robot değilim",
}

// Engine runs one crawl over a store.
type Engine struct {
	store Store
	cfg   Config
	fr    *frontier.Frontier
	seen  *seenFilter
	stats stats
	traps *trapWatch
	// copies counts the hosts' pages that copy other hosts', mirrors
	// takes hosts for mirrors by the links to them (copies.go); both tell
	// the frontier, in the priority order only (nil otherwise).
	copies  *copyWatch
	mirrors *mirrorWatch
	// grace is how long a stopped crawl waits for the store
	// (shutdownGrace; tests shorten it).
	grace time.Duration

	extractor     *extract.Extractor
	archiveErrors atomic.Int64
	sitemapSlots  chan struct{} // bounds the sitemap bodies held at once (sitemapSlots)

	// results holds a whole batch (commitBatch), or four a worker if that
	// is more: while the writer commits one batch the workers make the
	// next. With half a batch the workers stopped during each commit and
	// merge, and the machine idled (docs/design/write-path.md has the
	// figures).
	results chan crawl.Result
	// held bounds the bytes of the results on their way to the store,
	// queued or in the batch being committed (heldBytes): a worker waits
	// for room before it queues its result.
	held    *semaphore.Weighted
	pending atomic.Int64 // results sent and not yet committed
	working atomic.Int64 // workers at a task (their results not counted in pending yet)
	// storeDown counts the store calls failing and retried (storeRetry): a
	// commit, an add of sitemaps or seeds, a queueing of due pages. While
	// one is, nothing is handed out, since no result could be recorded.
	storeDown atomic.Int64
	// gaveUp is closed when the committer gives up (gaveUpErr says why):
	// the store was unavailable for longer than StoreOutage.
	gaveUp    chan struct{}
	gaveUpErr error
	// suspectErr is a store failure met by a background loop, which
	// pauses the dispatcher until the store answers (suspect).
	suspectMu  sync.Mutex
	suspectErr error
	// bytesBase is the byte count the store held when this run started;
	// budgetBytes what this run's pages add to it as they are fetched,
	// counted as the store counts them (crawl.Page.CountedBytes).
	bytesBase   int64
	budgetBytes atomic.Int64

	metricsMu    sync.Mutex
	lastMark     metricsMark
	frontierSize atomic.Int64
	wake         chan struct{}
}

// New prepares a crawl.
func New(store Store, cfg Config) (*Engine, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	e := &Engine{
		store: store,
		cfg:   cfg,
		grace: shutdownGrace,
		seen:  newSeenFilter(1 << 20),
		traps: newTrapWatch(),

		sitemapSlots: make(chan struct{}, sitemapSlots),

		results: make(chan crawl.Result, max(commitBatch, 4*cfg.Workers)),
		held:    semaphore.NewWeighted(cfg.heldBytes),
		wake:    make(chan struct{}, 1),
		gaveUp:  make(chan struct{}),
	}
	e.extractor = e.newExtractor()
	if cfg.Frontier.HostValues {
		e.copies, e.mirrors = newCopyWatch(), newMirrorWatch()
		for _, s := range cfg.Seeds {
			e.mirrors.seeded(s)
		}
	}
	fc := cfg.Frontier
	fc.Wake = e.notify
	// Every result made is committed: a host's claim that finds nothing
	// then lets it go at once (the crawl's end need not wait for it).
	fc.Settled = func() bool { return e.working.Load() == 0 && e.pending.Load() == 0 }
	e.fr = frontier.New(store, fc)
	return e, nil
}

// SetArchive sets where raw responses are archived (before Run).
func (e *Engine) SetArchive(a Archive) { e.cfg.Archive = a }

// SetPDF sets the PDF extractor (before Run).
func (e *Engine) SetPDF(p extract.PDFExtractor) {
	e.cfg.PDF = p
	e.extractor = e.newExtractor()
}

func (e *Engine) newExtractor() *extract.Extractor {
	cfg := e.cfg
	return extract.New(extract.Options{Resolver: cfg.Normalizer, MaxLinks: cfg.MaxLinks, Token: cfg.Frontier.Token,
		MainText: cfg.MainText, PDF: cfg.PDF}, func() htmlx.Resolver { return cfg.Normalizer.PageResolver() })
}

// stoppedEarly is how Run ends when what comes before the crawl proper
// (seeds, pages due for a revisit) failed with err: a stop, not an error,
// when ctx ended meanwhile (a signal or a deadline), else the store
// failed.
func (e *Engine) stoppedEarly(ctx context.Context, err error) (Summary, error) {
	if ctx.Err() != nil {
		return e.summary(StopInterrupt), nil
	}
	return e.summary(StopStoreError), err
}

// StopReason says why a crawl ended.
type StopReason string

// Reasons a crawl stops.
const (
	StopDone       StopReason = "frontier exhausted"
	StopPages      StopReason = "page budget reached"
	StopBytes      StopReason = "byte budget reached"
	StopDuration   StopReason = "duration budget reached"
	StopInterrupt  StopReason = "interrupted"
	StopStoreError StopReason = "store failed" // unavailable for --store-outage, or refused a write
)

// Run crawls until the frontier is exhausted, a budget is spent, the
// duration passes or ctx is canceled (a clean stop: what is in flight is
// returned to the queue). It returns the final figures; the error is
// non-nil only when the crawl could not go on (the store failed).
func (e *Engine) Run(ctx context.Context) (Summary, error) {
	start := e.cfg.Now()
	e.stats.start = start
	if err := e.seed(ctx); err != nil {
		return e.stoppedEarly(ctx, err)
	}
	if c, err := e.store.Counters(ctx); err == nil {
		e.bytesBase = c.Bytes
	}
	if e.cfg.DueAtStart {
		n, err := e.queueDue(ctx, e.cfg.DueAll)
		if err != nil {
			return e.stoppedEarly(ctx, err)
		}
		if n > 0 {
			e.cfg.Log.Info("pages due for a revisit queued", "pages", n)
		}
	}

	// fetchCtx is canceled to abandon fetches at shutdown.
	fetchCtx, cancelFetches := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelFetches()
	runCtx := ctx
	var cancelRun context.CancelFunc = func() {}
	if e.cfg.MaxDuration > 0 {
		runCtx, cancelRun = context.WithTimeout(ctx, e.cfg.MaxDuration)
	}
	defer cancelRun()

	tasks := make(chan frontier.Task)
	var workers sync.WaitGroup
	for range e.cfg.Workers {
		workers.Go(func() { e.work(fetchCtx, tasks) })
	}
	commitErr := make(chan error, 1)
	committed := make(chan struct{})
	// The results of a stopped crawl are still committed, but a store that
	// does not answer cannot hold the stop up for more than its grace.
	commitCtx, stopCommits := graceContext(ctx, e.grace)
	defer stopCommits()
	go func() {
		defer close(committed)
		commitErr <- e.commitLoop(commitCtx)
	}()
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	var bgDone sync.WaitGroup
	bgDone.Go(func() { e.renewLoop(bg) })
	bgDone.Go(func() { e.progressLoop(bg) })
	bgDone.Go(func() { e.metricsLoop(bg) })
	if e.cfg.RevisitEvery > 0 {
		bgDone.Go(func() { e.revisitLoop(bg) })
	}

	reason, runErr := e.dispatch(runCtx, tasks)
	if reason == StopInterrupt && ctx.Err() == nil && runCtx.Err() != nil {
		reason = StopDuration
	}
	if reason == StopInterrupt || reason == StopDuration || reason == StopStoreError {
		cancelFetches()
	}
	close(tasks)
	workers.Wait()
	// The last store calls are bounded: a store that does not answer
	// cannot keep a stopped crawl alive (leases it holds expire on their
	// own; figures not recorded are only figures).
	final := finalTimeout
	if reason == StopInterrupt || reason == StopStoreError {
		final = e.grace
	}
	// URLs claimed but never handed out go back to the queue, those of a
	// claim on its way too.
	for _, u := range e.fr.Stop(final) {
		e.send(crawl.Result{URL: u, Outcome: crawl.OutcomeRelease})
	}
	close(e.results)
	<-committed
	lost := <-commitErr
	if lost != nil && runErr == nil {
		runErr = lost
		if reason != StopInterrupt {
			reason = StopStoreError
		}
		final = e.grace
	}
	finalCtx, cancelFinal := context.WithTimeout(context.WithoutCancel(ctx), final)
	defer cancelFinal()
	// Results the committer could not record leave their URLs in flight
	// under this process's leases. The leases are kept then, as a crash
	// keeps them, so that the next run under the same owner takes the
	// hosts back and queues those URLs again at once (another process,
	// once the leases run out); hosts given up would leave them to wait
	// for the orphan sweep.
	if lost == nil {
		if err := e.fr.ReleaseAll(finalCtx); err != nil {
			e.cfg.Log.Warn("release host leases", "err", err)
		}
	}
	// A flag raised by the commit of a host's last page had no later result
	// of the host to travel with.
	if flags := e.traps.unreported(); len(flags) > 0 {
		if err := e.store.RecordTraps(finalCtx, flags); err != nil {
			e.cfg.Log.Warn("record trap flags", "hosts", len(flags), "err", err)
		}
	}
	stopBG()
	bgDone.Wait()
	e.recordMetrics(finalCtx) // the last, partial interval
	sum := e.summaryCtx(finalCtx, reason)
	if e.cfg.Progress != nil {
		e.cfg.Progress(e.progress(true))
	}
	return sum, runErr
}

// resultPreparer is a store that does part of a result's encoding in the
// worker that made it, on any core, so that its single writer has less to
// do in the commit (SQLite compresses the page's texts, and the result
// then holds them so, in place of the plain ones).
type resultPreparer interface {
	PrepareResult(r *crawl.Result)
}

// heldPreparation is a store's preparation of a result that tells about
// the memory it holds (SQLite's: the page's texts compressed, moved out
// of the page), for heldOf.
type heldPreparation interface {
	HeldBytes() int
}

// offerStager is a store that can stage offers and decide on them later,
// in large sorted merges (SQLite, PostgreSQL: see their StageURLs).
type offerStager interface {
	StageURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error)
	MergeStaged(ctx context.Context) (int, error)
}

// seed offers the seed URLs (depth 0) to the frontier: the batches of
// SeedBatches first (addBatches), then the other seeds, then the web
// archive's URLs (depth 1), in batches too.
func (e *Engine) seed(ctx context.Context) error {
	urls := e.seedURLs(nil, e.cfg.Seeds)
	if e.cfg.SeedBatches != nil {
		if err := e.addBatches(ctx, e.cfg.SeedBatches, e.seedURLs, true); err != nil {
			return err
		}
	}
	for _, s := range e.cfg.SitemapSeeds {
		urls = append(urls, e.sitemapURL(s, 0, 0))
	}
	if len(urls) > 0 {
		if _, err := e.storeRetry(ctx, "add seeds", func() error {
			_, err := e.store.AddURLs(ctx, urls, e.cfg.Frontier.Limits)
			return err
		}); err != nil {
			return err
		}
	}
	if e.cfg.ArchiveBatches == nil {
		return nil
	}
	// The archive's batches are prepared on one goroutine, the reader's:
	// the counts are read once it has ended.
	offered, inScope := 0, 0
	err := e.addBatches(ctx, e.cfg.ArchiveBatches, func(out []crawl.NewURL, us []string) []crawl.NewURL {
		offered += len(us)
		for _, s := range us {
			if e.cfg.Scope.Check(s) == scope.In {
				out = append(out, e.newURL(s, "", 1, 0, crawl.ViaArchive))
				inScope++
			}
		}
		return out
	}, false)
	e.cfg.Log.Info("archive seeds", "offered", offered, "in_scope", inScope)
	return err
}

// seedsAhead is how many batches of SeedBatches may be read, checked
// and scored ahead of the one the store is adding.
const seedsAhead = 2

// addBatches adds the batches of a stream of URLs (SeedBatches,
// ArchiveBatches), prepared by prepare (which appends the URLs in scope
// to its first argument and returns it), seeds when seeded. They are
// read, checked against the scope and scored on a goroutine of their own,
// at most
// seedsAhead batches ahead of the store's adds, so that preparing the
// next batches overlaps the store's writes and no more than
// seedsAhead+1 batches are held. They are staged when the store can
// (offerStager) and merged once all are in, before the crawl claims
// anything: a merge writes each page of the seen-set and the queue about
// once, not once a batch. A store error stops the reading and is
// returned once the reader has ended.
func (e *Engine) addBatches(ctx context.Context, stream func(context.Context, func([]string) error) error,
	prepare func([]crawl.NewURL, []string) []crawl.NewURL, seeded bool) error {
	stager, _ := e.store.(offerStager)
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	// The batches go round: free → the reader → ready → the store → free.
	free := make(chan []crawl.NewURL, seedsAhead+1)
	for range seedsAhead + 1 {
		free <- nil
	}
	ready := make(chan []crawl.NewURL, seedsAhead-1)
	readErr := make(chan error, 1)
	go func() {
		defer close(ready)
		readErr <- stream(readCtx, func(seeds []string) error {
			var batch []crawl.NewURL
			select {
			case batch = <-free:
			case <-readCtx.Done():
				return readCtx.Err()
			}
			batch = prepare(batch[:0], seeds)
			select {
			case ready <- batch:
				return nil
			case <-readCtx.Done():
				return readCtx.Err()
			}
		})
	}()
	var err error
	for batch := range ready {
		if err == nil && len(batch) > 0 {
			if e.mirrors != nil && seeded {
				for _, u := range batch {
					e.mirrors.seeded(u.URL)
				}
			}
			_, err = e.storeRetry(ctx, "add seeds", func() error {
				var err error
				if stager != nil {
					_, err = stager.StageURLs(ctx, batch, e.cfg.Frontier.Limits)
				} else {
					_, err = e.store.AddURLs(ctx, batch, e.cfg.Frontier.Limits)
				}
				return err
			})
			if err != nil {
				stopReading()
			}
		}
		clear(batch)
		free <- batch[:0]
	}
	if rerr := <-readErr; err == nil {
		err = rerr
	}
	if err != nil || stager == nil {
		return err
	}
	_, err = e.storeRetry(ctx, "add seeds", func() error {
		_, err := stager.MergeStaged(ctx)
		return err
	})
	return err
}

// seedPart is the fewest seeds of a batch that seedURLs hands to a
// goroutine of their own.
const seedPart = 1000

// seedURLs appends the seeds in scope to urls, first in the crawl order,
// in the seeds' order. A large batch is checked and scored in parts, one
// for each CPU: the store stages a batch in less time than one goroutine
// takes to prepare the next, and a merge of the stage leaves the reader
// idle once it is seedsAhead batches ahead, so between merges the reader
// sets the pace (2,000,000 seeds: about 7 µs a seed to prepare, 3 to
// stage).
func (e *Engine) seedURLs(urls []crawl.NewURL, seeds []string) []crawl.NewURL {
	parts := max(1, min(runtime.GOMAXPROCS(0), len(seeds)/seedPart))
	base := len(urls)
	urls = slices.Grow(urls, len(seeds))[:base+len(seeds)]
	kept := make([]int, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*len(seeds)/parts, (i+1)*len(seeds)/parts
		wg.Go(func() { kept[i] = e.seedsInScope(urls[base+lo:base+hi], seeds[lo:hi]) })
	}
	wg.Wait()
	// Each part's seeds in scope are at its start: close the gaps.
	w := base
	for i := range parts {
		lo := base + i*len(seeds)/parts
		w += copy(urls[w:], urls[lo:lo+kept[i]])
	}
	clear(urls[w:])
	return urls[:w]
}

// seedsInScope writes the seeds in scope to the start of out, which is as
// long as seeds, and returns how many it wrote.
func (e *Engine) seedsInScope(out []crawl.NewURL, seeds []string) int {
	n := 0
	for _, s := range seeds {
		if r := e.cfg.Scope.Check(s); r != scope.In && r != scope.Excluded {
			e.cfg.Log.Warn("seed outside scope", "url", s, "reason", string(r))
			continue
		}
		u := e.newURL(s, "", 0, 0, crawl.ViaSeed)
		u.Priority += 1000 // seeds first
		out[n] = u
		n++
	}
	return n
}

// newURL makes the offer of u, found by via from the URL parent (0 for
// none). Only a redirect's target keeps its parent: redirectHops follows
// redirect chains back through it, while the page a link was found on is
// in the link graph, and a parent kept for every URL would cost each
// queued URL 8 bytes of the store.
func (e *Engine) newURL(u, anchor string, depth int, parent crawl.ID, via crawl.Via) crawl.NewURL {
	host := urlnorm.HostKey(u)
	if via != crawl.ViaRedirect {
		parent = 0
	}
	return crawl.NewURL{
		ID:       crawl.URLID(u),
		URL:      u,
		HostID:   crawl.HashID(host),
		Host:     host,
		Depth:    depth,
		Priority: e.cfg.Score.Score(u, anchor, depth),
		Parent:   parent,
		Via:      via,
	}
}

// dispatch hands tasks to the workers until the crawl is over. While the
// store is unavailable it hands out nothing: a page fetched then could not
// be recorded.
func (e *Engine) dispatch(ctx context.Context, tasks chan<- frontier.Task) (StopReason, error) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var storeDown time.Time
	backoff := 100 * time.Millisecond
	for {
		if ctx.Err() != nil {
			return StopInterrupt, nil
		}
		select {
		case <-e.gaveUp:
			return StopStoreError, e.gaveUpErr
		default:
		}
		if e.storeDown.Load() > 0 {
			// A store call is retried; it gives up after StoreOutage.
			if storeDown.IsZero() {
				storeDown = e.cfg.Now()
				e.cfg.Log.Warn("store unavailable; fetching paused", "store_outage", e.cfg.StoreOutage)
			}
			timer.Reset(time.Second)
			select {
			case <-timer.C:
			case <-e.wake:
			case <-e.gaveUp:
			case <-ctx.Done():
			}
			continue
		}
		var t frontier.Task
		var ok bool
		var wake time.Time
		err := e.storeFailed()
		if err == nil {
			t, ok, wake, err = e.fr.Next(ctx)
		}
		if err != nil {
			if ctx.Err() != nil {
				return StopInterrupt, nil
			}
			if errors.Is(err, crawl.ErrRefused) {
				return StopStoreError, refusedErr("claim", err)
			}
			if storeDown.IsZero() {
				storeDown = e.cfg.Now()
				e.cfg.Log.Warn("store unavailable; fetching paused", "store_outage", e.cfg.StoreOutage, "err", err)
			}
			// URLs claimed before the outage may still be buffered: none
			// goes out before the store answers again.
			for {
				if e.cfg.Now().Sub(storeDown) > e.cfg.StoreOutage {
					return StopStoreError, fmt.Errorf("engine: store unavailable for more than %s (--store-outage): %w", e.cfg.StoreOutage, err)
				}
				timer.Reset(backoff)
				select {
				case <-timer.C:
				case <-e.gaveUp:
					return StopStoreError, e.gaveUpErr
				case <-ctx.Done():
					return StopInterrupt, nil
				}
				backoff = min(backoff*2, 10*time.Second)
				if err = e.probe(ctx); err == nil {
					break
				}
			}
			continue
		}
		if !storeDown.IsZero() {
			e.cfg.Log.Info("store available again; crawl continues", "down", e.cfg.Now().Sub(storeDown).Round(time.Millisecond))
			storeDown, backoff = time.Time{}, 100*time.Millisecond
		}
		if ok && e.bytesSpent() {
			e.fr.SetBudget(crawl.ErrByteBudget)
			e.abandon(t)
			continue
		}
		if ok {
			select {
			case tasks <- t:
			case <-ctx.Done():
				e.abandon(t)
				return StopInterrupt, nil
			}
			continue
		}
		if done, reason, err := e.finished(ctx); err != nil {
			return StopStoreError, err
		} else if done {
			return reason, nil
		}
		d := 50 * time.Millisecond
		if !wake.IsZero() {
			d = max(wake.Sub(e.cfg.Now()), time.Millisecond)
		}
		timer.Reset(min(d, time.Second))
		select {
		case <-timer.C:
		case <-e.wake:
		case <-ctx.Done():
			return StopInterrupt, nil
		case <-e.gaveUp:
			// The committer gave up: nothing more can be recorded.
			return StopStoreError, e.gaveUpErr
		}
	}
}

// suspect records a store failure met outside the dispatcher (renewing
// leases, recording figures): the dispatcher hands out nothing more until
// the store answers again.
func (e *Engine) suspect(err error) {
	e.suspectMu.Lock()
	if e.suspectErr == nil {
		e.suspectErr = err
	}
	e.suspectMu.Unlock()
	e.notify()
}

// storeFailed returns and clears the failure recorded by suspect.
func (e *Engine) storeFailed() error {
	e.suspectMu.Lock()
	defer e.suspectMu.Unlock()
	err := e.suspectErr
	e.suspectErr = nil
	return err
}

// probe asks the store a cheap question: whether it answers.
func (e *Engine) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := e.store.Counters(ctx)
	return err
}

// Time bounds on store calls: those made while stopping, and probes.
const (
	// shutdownGrace is how long a stopped crawl (a signal, a lost store)
	// waits for the store to record what is in flight and give up its
	// leases.
	shutdownGrace = 5 * time.Second
	// finalTimeout bounds the last store calls of a crawl that ended on
	// its own.
	finalTimeout = time.Minute
	probeTimeout = 5 * time.Second
)

// graceContext returns a context that is not canceled with parent but
// grace after it: store calls that record a stopping crawl's last results
// run to completion, within a bound.
func graceContext(parent context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(parent, func() {
		mu.Lock()
		timer = time.AfterFunc(grace, func() { cancel(fmt.Errorf("%w of %s", errGraceOver, grace)) })
		mu.Unlock()
	})
	return ctx, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
}

// errGraceOver ends the store calls of a stopped crawl that outlast its
// grace (the cause says how long it was).
var errGraceOver = errors.New("the store did not finish within the stop's grace")

// bytesSpent reports whether the byte budget is spent, counting this
// process's downloads as they arrive on top of what the store knew at the
// start (other processes' bytes reach it through the store's own check).
func (e *Engine) bytesSpent() bool {
	lim := e.cfg.Frontier.Limits.MaxBytes
	return lim > 0 && e.bytesBase+e.budgetBytes.Load() >= lim
}

// abandon returns a task taken from the frontier but never started.
func (e *Engine) abandon(t frontier.Task) {
	e.fr.Done(context.Background(), t, frontier.Feedback{Canceled: true})
	if t.Kind != frontier.FetchRobots {
		e.send(crawl.Result{URL: t.URL, Outcome: crawl.OutcomeRelease})
	}
}

// finished reports whether nothing is left to do anywhere.
func (e *Engine) finished(ctx context.Context) (bool, StopReason, error) {
	st := e.fr.Status()
	if b := st.Budget; b != nil && st.InFlight == 0 && st.Pending == 0 && e.pending.Load() == 0 {
		// A spent budget lets nothing new start: hosts still held (one
		// waiting for a robots.txt retry, say) are not waited for, and
		// what the frontier cannot hand out goes back to the queue at
		// Stop. URLs claimed within a page budget (Pending) are fetched
		// first.
		if errors.Is(b, crawl.ErrByteBudget) {
			return true, StopBytes, nil
		}
		return true, StopPages, nil
	}
	if st.Hosts > 0 || st.InFlight > 0 || e.pending.Load() > 0 {
		return false, "", nil
	}
	c, err := e.store.Counters(ctx)
	if err != nil {
		e.cfg.Log.Warn("read counters", "err", err)
		return false, "", nil
	}
	// Other processes may still hold hosts or URLs in flight; wait for
	// them. Staged URLs are decided on by the next claim that finds no
	// host.
	return c.Queued == 0 && c.InFlight == 0 && c.Staged == 0, StopDone, nil
}

func (e *Engine) notify() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *Engine) send(r crawl.Result) {
	e.pending.Add(1)
	e.queue(r)
}

// queue hands a result, already counted in pending, to the committer once
// the results on their way leave room for its bytes (heldOf). The room
// is given back when its batch is committed, whether or not the commit
// succeeded, so the wait ends; it does not end with the crawl's context,
// since a stopped crawl's results are still committed.
func (e *Engine) queue(r crawl.Result) {
	if err := e.held.Acquire(context.Background(), e.heldOf(&r)); err != nil {
		panic(err) // unreachable: a context that never ends
	}
	e.results <- r
}

// heldOf is the room r takes among the results on their way to the
// store: an estimate of the memory it holds (its page's texts, and as
// much again for what the commit makes of them, or what the store
// prepared of them in their place; its links and the URLs it found), at
// most the whole room, so that a result larger than that goes alone.
func (e *Engine) heldOf(r *crawl.Result) int64 {
	n := 512
	if p := r.Page; p != nil {
		n += 2*(len(p.Text)+len(p.MainText)) + len(p.Title) + len(p.URL)
		if m := p.Meta; m != nil {
			n += len(m.Abstract)
		}
	}
	if h, ok := r.Prepared.(heldPreparation); ok {
		n += h.HeldBytes()
	}
	for _, l := range r.Links {
		n += 64 + len(l.Target) + len(l.Anchor)
	}
	for _, u := range r.Discovered {
		n += 64 + len(u.URL)
	}
	return min(int64(n), e.cfg.heldBytes)
}

// renewLoop keeps the host leases alive.
func (e *Engine) renewLoop(ctx context.Context) {
	every := e.cfg.Frontier.Lease / 3
	if every <= 0 {
		every = 20 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := e.fr.Renew(ctx); err != nil && ctx.Err() == nil {
				e.cfg.Log.Warn("renew host leases", "err", err)
				e.suspect(err)
			}
		}
	}
}

// storeRetry runs a store operation, retrying through an outage of up to
// StoreOutage. An operation the store refused (crawl.ErrRefused) is not
// retried: it would fail the same way for the whole outage.
//
// While it retries, fetching pauses (storeDown): it is counted before the
// failure is logged, and the dispatcher is woken when the store answered
// again. A commit that gives up wakes it by closing gaveUp.
func (e *Engine) storeRetry(ctx context.Context, what string, fn func() error) (tries int, err error) {
	start := e.cfg.Now()
	backoff := 100 * time.Millisecond
	for tries = 1; ; tries++ {
		err = fn()
		if tries == 1 && err != nil && ctx.Err() == nil && !errors.Is(err, crawl.ErrRefused) {
			e.storeDown.Add(1)
			e.notify()
			defer func() {
				e.storeDown.Add(-1)
				if err == nil {
					e.notify()
				}
			}()
		}
		if err == nil {
			if tries > 1 {
				e.cfg.Log.Info("store available again", "op", what)
			}
			return tries, nil
		}
		if ctx.Err() != nil {
			return tries, storeErr(ctx, what, err)
		}
		if errors.Is(err, crawl.ErrRefused) {
			return tries, refusedErr(what, err)
		}
		if e.cfg.Now().Sub(start) > e.cfg.StoreOutage {
			return tries, fmt.Errorf("engine: store unavailable for more than %s (--store-outage): %s: %w", e.cfg.StoreOutage, what, err)
		}
		if tries == 1 {
			e.cfg.Log.Warn("store unavailable; retrying", "op", what, "err", err)
		}
		if !sleepCtx(ctx, backoff) {
			return tries, storeErr(ctx, what, err)
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

// refusedErr is the error of a store call the store refused.
func refusedErr(what string, err error) error {
	return fmt.Errorf("engine: %s %w, not retried: %w", what, crawl.ErrRefused, err)
}

// storeErr is the error of a store call given up because ctx ended; it
// says so when the stop's grace ran out.
func storeErr(ctx context.Context, what string, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errGraceOver) {
		return fmt.Errorf("engine: %s: %w: %w", what, cause, err)
	}
	return fmt.Errorf("engine: %s: %w", what, err)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
