package engine

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acrawler/acrawler/internal/crawl"
)

// metricsMark is the running totals at the last recorded interval.
type metricsMark struct {
	at                                     time.Time
	fetched, useful, dups, blocked, errors int64
	discovered, added, known, bytes        int64
}

func (e *Engine) marks() metricsMark {
	s := &e.stats
	return metricsMark{
		at:         e.cfg.Now(),
		fetched:    s.fetched.Load(),
		useful:     s.useful.Load(),
		dups:       s.duplicates.Load(),
		blocked:    s.blocked.Load(),
		errors:     s.failed.Load() + s.s5xx.Load(),
		discovered: s.discovered.Load(),
		added:      s.added.Load(),
		known:      s.known.Load() + s.knownEarly.Load(),
		bytes:      s.bytes.Load(),
	}
}

// recordMetrics writes the figures since the last record to the store.
func (e *Engine) recordMetrics(ctx context.Context) {
	e.metricsMu.Lock()
	defer e.metricsMu.Unlock()
	now := e.marks()
	last := e.lastMark
	if last.at.IsZero() {
		last.at = e.stats.start
	}
	e.lastMark = now
	m := crawl.Metrics{
		At:         now.at,
		Owner:      e.cfg.Frontier.Owner,
		Interval:   now.at.Sub(last.at),
		Fetched:    now.fetched - last.fetched,
		Useful:     now.useful - last.useful,
		Duplicates: now.dups - last.dups,
		Blocked:    now.blocked - last.blocked,
		Errors:     now.errors - last.errors,
		Discovered: now.discovered - last.discovered,
		New:        now.added - last.added,
		Known:      now.known - last.known,
		Bytes:      now.bytes - last.bytes,
	}
	if c, err := e.store.Counters(ctx); err == nil {
		m.Frontier, m.Reserved, m.TotalBytes = c.Queued, c.Reserved, c.Bytes
		e.frontierSize.Store(c.Queued)
	}
	if err := e.store.RecordMetrics(ctx, m); err != nil && ctx.Err() == nil {
		e.cfg.Log.Warn("record metrics", "err", err)
		e.suspect(err)
	}
}

func (e *Engine) metricsLoop(ctx context.Context) {
	t := time.NewTicker(e.cfg.MetricsEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			e.recordMetrics(ctx)
		}
	}
}

// Collectors returns Prometheus collectors over this crawl's running
// figures, for a /metrics endpoint.
func (e *Engine) Collectors() []prometheus.Collector {
	s := &e.stats
	counter := func(name, help string, v func() int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "acrawler", Name: name, Help: help},
			func() float64 { return float64(v()) })
	}
	gauge := func(name, help string, v func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "acrawler", Name: name, Help: help}, v)
	}
	return []prometheus.Collector{
		counter("pages_fetched_total", "Page responses received.", s.fetched.Load),
		counter("pages_useful_total", "HTML/PDF 2xx pages that are neither duplicates nor soft blocks.", s.useful.Load),
		counter("robots_fetched_total", "robots.txt fetches.", s.robots.Load),
		counter("bytes_total", "Bytes of page responses.", s.bytes.Load),
		counter("responses_2xx_total", "2xx responses.", s.s2xx.Load),
		counter("responses_3xx_total", "3xx responses.", s.s3xx.Load),
		counter("responses_4xx_total", "4xx responses.", s.s4xx.Load),
		counter("responses_5xx_total", "5xx responses.", s.s5xx.Load),
		counter("fetch_failures_total", "Fetches with no usable response after retries.", s.failed.Load),
		counter("retries_total", "Retries scheduled.", s.retried.Load),
		counter("disallowed_total", "URLs refused by robots.txt.", s.disallowed.Load),
		counter("duplicates_total", "Pages whose content was seen under another URL.", s.duplicates.Load),
		counter("soft_blocks_total", "200 pages that were refusals.", s.blocked.Load),
		counter("links_offered_total", "Links and redirects offered to the frontier.", s.discovered.Load),
		counter("urls_admitted_total", "New URLs admitted to the frontier.", s.added.Load),
		counter("urls_known_total", "Offered URLs already known.", func() int64 { return s.known.Load() + s.knownEarly.Load() }),
		counter("urls_trapped_total", "URLs not admitted because their host is a suspected trap.", s.trapped.Load),
		gauge("frontier_urls", "URLs queued in the store (whole crawl), as of the last record.", func() float64 { return float64(e.frontierSize.Load()) }),
		gauge("trap_suspects", "Hosts suspected of being traps.", func() float64 { return float64(e.traps.suspects()) }),
		gauge("in_flight", "Tasks handed out and not yet done.", func() float64 { return float64(e.fr.Status().InFlight) }),
		gauge("hosts_held", "Hosts leased by this process.", func() float64 { return float64(e.fr.Status().Hosts) }),
	}
}
