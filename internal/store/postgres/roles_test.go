package postgres_test

import (
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/postgres"
)

// The roles the store plays (crawl.Store is their union; storetest checks
// each, TestConformance), and the ones the frontier looks for at run time:
// a store that stopped being a frontier.HostValuer would still build, its
// hosts no longer ranked by what they are worth, and one that stopped
// being a frontier.MirrorKeeper, its mirrors no longer recorded.
var (
	_ crawl.FrontierStore   = (*postgres.DB)(nil)
	_ crawl.PageStore       = (*postgres.DB)(nil)
	_ crawl.SearchStore     = (*postgres.DB)(nil)
	_ crawl.RankStore       = (*postgres.DB)(nil)
	_ crawl.OutboxStore     = (*postgres.DB)(nil)
	_ crawl.RecrawlStore    = (*postgres.DB)(nil)
	_ crawl.StatsStore      = (*postgres.DB)(nil)
	_ crawl.SettingStore    = (*postgres.DB)(nil)
	_ frontier.HostValuer   = (*postgres.DB)(nil)
	_ frontier.MirrorKeeper = (*postgres.DB)(nil)
)
