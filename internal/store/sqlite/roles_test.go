package sqlite_test

import (
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// The roles the store plays (crawl.Store is their union; storetest checks
// each, TestConformance), and the ones the frontier looks for at run time:
// a store that stopped being a frontier.HostValuer would still build, its
// hosts no longer ranked by what they are worth, and one that stopped
// being a frontier.MirrorKeeper, its mirrors no longer recorded.
var (
	_ crawl.FrontierStore   = (*sqlite.DB)(nil)
	_ crawl.PageStore       = (*sqlite.DB)(nil)
	_ crawl.SearchStore     = (*sqlite.DB)(nil)
	_ crawl.RankStore       = (*sqlite.DB)(nil)
	_ crawl.OutboxStore     = (*sqlite.DB)(nil)
	_ crawl.RecrawlStore    = (*sqlite.DB)(nil)
	_ crawl.StatsStore      = (*sqlite.DB)(nil)
	_ crawl.SettingStore    = (*sqlite.DB)(nil)
	_ frontier.HostValuer   = (*sqlite.DB)(nil)
	_ frontier.MirrorKeeper = (*sqlite.DB)(nil)
)
