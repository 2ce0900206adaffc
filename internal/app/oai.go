package app

import (
	"context"
	"time"

	"github.com/acrawler/acrawler/internal/harvest"
	"github.com/acrawler/acrawler/internal/robots"
)

// harvestOAI lists the --oai repositories before the crawl starts: their
// records' URLs join the frontier at high priority. A harvest that fails
// is logged and recorded as a source error (the next crawl or recrawl
// resumes it at its last token), and the crawl goes on with what it gave.
// base holds the parts every harvest shares.
func harvestOAI(ctx context.Context, cfg Config, endpoints []string, base harvest.Config) {
	base.Token = robots.ProductToken(cfg.UserAgent)
	base.Delay, base.MaxCrawlDelay = time.Duration(cfg.Delay), time.Duration(cfg.MaxCrawlDelay)
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
