package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// stats are this process's running figures.
type stats struct {
	start                         time.Time
	fetched, robots, bytes        atomic.Int64 // bytes: page responses only
	robotsBytes                   atomic.Int64
	s2xx, s3xx, s4xx, s5xx        atomic.Int64
	failed, retried, skipped      atomic.Int64
	disallowed, parseErrors       atomic.Int64
	discovered, knownEarly        atomic.Int64 // links offered; skipped by the in-memory seen filter
	overDepth, outOfScope         atomic.Int64
	excluded                      atomic.Int64
	added, known, overHostCap     atomic.Int64 // admission results from the store
	duplicates, stale             atomic.Int64
	blocked, useful, trapped      atomic.Int64
	sitemapEntries                atomic.Int64
	revisits, notModified         atomic.Int64
	unchanged, changed, removed   atomic.Int64
	newPages, bytesSaved          atomic.Int64
	committedPages                atomic.Int64
	mu                            sync.Mutex
	cappedHosts                   map[crawl.ID]bool
	lastFetched, lastAdded        int64
	lastAt                        time.Time
	windowRate, windowDiscoveries float64
}

func (s *stats) status(code int) {
	switch {
	case code >= 500:
		s.s5xx.Add(1)
	case code >= 400:
		s.s4xx.Add(1)
	case code >= 300:
		s.s3xx.Add(1)
	default:
		s.s2xx.Add(1)
	}
}

// Progress is a snapshot of a running crawl.
type Progress struct {
	Elapsed      time.Duration
	Fetched      int64   // responses received by this process (pages, not robots.txt)
	PagesPerSec  float64 // over the last interval
	Frontier     int64   // URLs queued in the store (whole crawl)
	NewPerPage   float64 // URLs admitted per page fetched, over the last interval
	Errors       int64   // fetch failures and 5xx answers
	Bytes        int64
	BudgetPages  int64 // URLs reserved against the page budget (whole crawl)
	MaxPages     int64
	MaxBytes     int64
	StoreBytes   int64 // bytes counted against the byte budget (whole crawl)
	Final        bool
	BudgetHit    string // which budget stopped claims, if any
	HostsCapped  int    // hosts that reached their page budget
	FrontierKnow bool   // Frontier and budget figures were read from the store
}

func (e *Engine) progress(final bool) Progress {
	s := &e.stats
	now := e.cfg.Now()
	fetched, added := s.fetched.Load(), s.added.Load()
	s.mu.Lock()
	if !s.lastAt.IsZero() {
		if dt := now.Sub(s.lastAt).Seconds(); dt > 0 {
			s.windowRate = float64(fetched-s.lastFetched) / dt
		}
		if df := fetched - s.lastFetched; df > 0 {
			s.windowDiscoveries = float64(added-s.lastAdded) / float64(df)
		}
	} else {
		// The first interval runs from the start.
		if el := now.Sub(s.start).Seconds(); el > 0 {
			s.windowRate = float64(fetched) / el
		}
		if fetched > 0 {
			s.windowDiscoveries = float64(added) / float64(fetched)
		}
	}
	s.lastAt, s.lastFetched, s.lastAdded = now, fetched, added
	p := Progress{
		Elapsed:     now.Sub(s.start),
		Fetched:     fetched,
		PagesPerSec: s.windowRate,
		NewPerPage:  s.windowDiscoveries,
		Errors:      s.failed.Load() + s.s5xx.Load(),
		Bytes:       s.bytes.Load(),
		MaxPages:    e.cfg.Frontier.Limits.MaxPages,
		MaxBytes:    e.cfg.Frontier.Limits.MaxBytes,
		Final:       final,
		HostsCapped: len(s.cappedHosts),
	}
	s.mu.Unlock()
	if final {
		p.PagesPerSec = 0
		if el := p.Elapsed.Seconds(); el > 0 {
			p.PagesPerSec = float64(fetched) / el
		}
	}
	if b := e.fr.Budget(); b != nil {
		p.BudgetHit = b.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if c, err := e.store.Counters(ctx); err == nil {
		p.Frontier, p.BudgetPages, p.StoreBytes, p.FrontierKnow = c.Queued, c.Reserved, c.Bytes, true
	}
	return p
}

func (e *Engine) progressLoop(ctx context.Context) {
	if e.cfg.Progress == nil {
		return
	}
	t := time.NewTicker(e.cfg.ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			e.cfg.Progress(e.progress(false))
		}
	}
}

// Summary is the outcome of a crawl run.
type Summary struct {
	Reason      StopReason
	Elapsed     time.Duration
	Fetched     int64 // page responses received
	Robots      int64 // robots.txt fetches
	Status2xx   int64
	Status3xx   int64
	Status4xx   int64
	Status5xx   int64
	Failed      int64 // no usable response after retries
	Retried     int64
	Disallowed  int64 // refused by robots.txt
	Skipped     int64
	ParseErrors int64
	Duplicates  int64
	Bytes       int64 // page responses (what --max-bytes counts)
	RobotsBytes int64
	Discovered  int64 // links and redirects offered
	Added       int64 // new URLs admitted to the frontier
	Known       int64 // already known (seen-set)
	OverDepth   int64
	OutOfScope  int64
	Excluded    int64
	OverHostCap int64
	HostsCapped int
	// HostsOverShare counts the hosts found past their byte share.
	HostsOverShare int
	Stale          int64
	Counters       crawl.Counters // the whole crawl, from the store
	PagesPerSec    float64
}

func (e *Engine) summary(reason StopReason) Summary {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	return e.summaryCtx(ctx, reason)
}

// summaryCtx is summary with the store's counters read within ctx.
func (e *Engine) summaryCtx(ctx context.Context, reason StopReason) Summary {
	s := &e.stats
	sum := Summary{
		Reason:      reason,
		Elapsed:     e.cfg.Now().Sub(s.start),
		Fetched:     s.fetched.Load(),
		Robots:      s.robots.Load(),
		Status2xx:   s.s2xx.Load(),
		Status3xx:   s.s3xx.Load(),
		Status4xx:   s.s4xx.Load(),
		Status5xx:   s.s5xx.Load(),
		Failed:      s.failed.Load(),
		Retried:     s.retried.Load(),
		Disallowed:  s.disallowed.Load(),
		Skipped:     s.skipped.Load(),
		ParseErrors: s.parseErrors.Load(),
		Duplicates:  s.duplicates.Load(),
		Bytes:       s.bytes.Load(),
		RobotsBytes: s.robotsBytes.Load(),
		Discovered:  s.discovered.Load(),
		Added:       s.added.Load(),
		Known:       s.known.Load() + s.knownEarly.Load(),
		OverDepth:   s.overDepth.Load(),
		OutOfScope:  s.outOfScope.Load(),
		Excluded:    s.excluded.Load(),
		OverHostCap: s.overHostCap.Load(),
		Stale:       s.stale.Load(),
	}
	s.mu.Lock()
	sum.HostsCapped = len(s.cappedHosts)
	s.mu.Unlock()
	sum.HostsOverShare = e.fr.Status().HostsOverShare
	if el := sum.Elapsed.Seconds(); el > 0 {
		sum.PagesPerSec = float64(sum.Fetched) / el
	}
	if c, err := e.store.Counters(ctx); err == nil {
		sum.Counters = c
	}
	return sum
}
