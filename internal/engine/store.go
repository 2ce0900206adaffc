package engine

import (
	"context"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
)

// Store is what a crawl needs from a store: what its frontier needs
// (frontier.Store), and for the engine itself the admission of seeds,
// sitemap entries and the links of stale results, the commit of results
// and trap flags (crawl.FrontierStore), a URL's record (crawl.PageStore),
// the queueing of pages due for a revisit (crawl.RecrawlStore), and the
// counters and metrics (crawl.StatsStore). Every crawl.Store has it.
type Store interface {
	frontier.Store

	AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error)
	Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error)
	RecordTraps(ctx context.Context, traps map[crawl.ID]string) error

	URL(ctx context.Context, id crawl.ID) (crawl.URLRecord, error)

	ScheduleDue(ctx context.Context, now time.Time, all bool, limit int) (int, error)
	ScheduleDueURLs(ctx context.Context, ids []crawl.ID, now time.Time) (int, error)

	Counters(ctx context.Context) (crawl.Counters, error)
	RecordMetrics(ctx context.Context, m crawl.Metrics) error
}

// Every crawl.Store is a Store.
var _ Store = crawl.Store(nil)
