package app

import (
	"context"
	"time"

	"github.com/acrawler/acrawler/internal/harvest"
	"github.com/acrawler/acrawler/internal/robots"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// Both stores make works of the harvested records.
var (
	_ harvest.Works = (*sqlite.DB)(nil)
	_ harvest.Works = (*postgres.DB)(nil)
)

// harvestOAI lists the --oai repositories before the crawl starts: their
// records' URLs join the frontier at high priority, and each record's
// Dublin Core becomes a copy of its work (both stores keep the records'
// works: harvest.Works). A harvest that fails
// is logged and recorded as a source error (the next crawl or recrawl
// resumes it at its last token), and the crawl goes on with what it gave.
// base holds the parts every harvest shares.
func harvestOAI(ctx context.Context, cfg Config, endpoints []string, base harvest.Config) {
	base.Token = robots.ProductToken(cfg.UserAgent)
	base.Delay, base.MaxCrawlDelay = time.Duration(cfg.Delay), time.Duration(cfg.MaxCrawlDelay)
	if w, ok := base.Store.(harvest.Works); ok && base.Works == nil {
		base.Works = w
	}
	for _, ep := range endpoints {
		if ctx.Err() != nil {
			return
		}
		hc := base
		hc.Endpoint = ep
		res, err := harvest.Run(ctx, hc)
		args := []any{"endpoint", ep, "records", res.Records, "deleted", res.Deleted, "urls_added", res.Added,
			"pages", res.Pages, "resumed", res.Resumed, "from", res.From, "complete", res.Complete}
		if err != nil {
			base.Log.Warn("OAI-PMH harvest stopped; the next run resumes it", append(args, "err", err)...)
			continue
		}
		base.Log.Info("OAI-PMH harvest", args...)
	}
}
