package crawl

import (
	"context"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"
)

// Store is every role a backend plays (internal/store/sqlite and
// internal/store/postgres implement it whole): what the program opens and
// wires. Each consumer declares the methods it calls instead (the
// frontier's Store, the engine's Store, the report's Store, the API's
// Store, the indexer's Outbox) or takes one of the roles below; see
// docs/architecture.md for who takes what.
//
// Implementations must make every method safe for concurrent use, and every
// budget in Limits must hold when several processes share one store.
// Times are passed in by the caller so that schedules and leases can be
// tested without sleeping; processes sharing a store need synchronized clocks.
type Store interface {
	FrontierStore
	PageStore
	SearchStore
	RankStore
	OutboxStore
	RecrawlStore
	StatsStore
	SettingStore

	// Close releases the store. It does not release host leases.
	Close() error
}

// FrontierStore is the crawl frontier as stored: URLs admitted under the
// budgets, host leases with their politeness state, URLs claimed and
// results committed, the robots.txt cache and trap flags. The frontier
// (frontier.Store) and the engine (engine.Store) each take their part.
type FrontierStore interface {
	// AddURLs offers URLs to the frontier outside a page commit (seeds,
	// sitemaps, archives). URLs already known are counted and ignored;
	// URLs over a budget in lim are refused and counted.
	AddURLs(ctx context.Context, urls []NewURL, lim Limits) (AddStats, error)

	// ClaimHosts leases to owner up to n hosts that have queued URLs and no
	// live lease held by another owner, earliest NextFetchAt first. URLs a
	// previous owner left in flight on those hosts return to the queue.
	ClaimHosts(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]Host, error)

	// RenewHosts extends owner's leases and returns the IDs it no longer holds.
	RenewHosts(ctx context.Context, owner string, ids []ID, lease time.Duration, now time.Time) (lost []ID, err error)

	// ReleaseHosts gives up owner's leases and records each host's politeness
	// state (when NextFetchAt is set), so that whoever claims it next waits
	// as long as the releaser would have. Callers first hand back (commit or
	// release) every URL they claimed on those hosts, though such commits
	// may still be on their way.
	ReleaseHosts(ctx context.Context, owner string, hosts []HostRelease) error

	// RecordTraps records suspected-trap descriptions of hosts, whoever
	// holds them, keeping a host's first: a flag raised by the commit of a
	// host's last page has no later result of the host to travel with.
	RecordTraps(ctx context.Context, traps map[ID]string) error

	// ClaimURLs marks up to n of the host's best queued URLs whose retry time
	// has come as in flight and returns them, best first. When none is ready,
	// next is the earliest retry time among the host's queued URLs (zero when
	// it has none). owner must hold the host's lease (else ErrLeaseLost). It
	// returns ErrPageBudget or ErrByteBudget (and no URLs) once the crawl's
	// budget in lim is spent, and ErrHostBytes once the host's share is.
	ClaimURLs(ctx context.Context, owner string, host ID, n int, lim Limits, now time.Time) (urls []ClaimedURL, next time.Time, err error)

	// ClaimURLsOf is ClaimURLs for several hosts, one Claim per host in
	// order, each with what ClaimURLs would have returned for it (lease
	// lost or a budget spent in Claim.Err). A store that serializes its
	// writes does them in one transaction, so that a frontier refilling
	// many hosts waits for the store once. Callers give each host once (a
	// host given twice may be claimed for at its first place only). The
	// error is the store's; with it come the claims made before it, if
	// any.
	ClaimURLsOf(ctx context.Context, owner string, hosts []ID, n int, lim Limits, now time.Time) ([]Claim, error)

	// Commit records a batch of results in one transaction: URL states,
	// pages (setting Page.DuplicateOf on the results it records), links,
	// duplicate hashes, discovered URLs (admitted under lim), inbound-link
	// priority bonuses (lim.InlinkBonus) for the targets of newly recorded
	// pages, per-host outcome counts and host politeness state (a host's
	// next fetch time only moves forward). Results for URLs no longer in
	// flight are ignored (counted as Stale). On error nothing of the batch
	// is recorded.
	Commit(ctx context.Context, results []Result, lim Limits) (CommitStats, error)

	// SaveRobots caches the robots.txt outcome of a host and records the
	// politeness state its fetch left behind.
	SaveRobots(ctx context.Context, host ID, rec RobotsRecord, upd HostUpdate) error
}

// PageStore reads the recorded URLs, pages and links, and replaces a
// page's extraction (reparse).
type PageStore interface {
	// URL returns the store's record of one URL, or ErrNotFound.
	URL(ctx context.Context, id ID) (URLRecord, error)

	// Page returns the page recorded for a URL, or ErrNotFound.
	Page(ctx context.Context, id ID) (*Page, error)

	// Links returns the outlinks recorded for a page, in no particular order.
	Links(ctx context.Context, source ID) ([]Link, error)

	// Inlinks returns up to limit links to a page, from recorded pages.
	Inlinks(ctx context.Context, target ID, limit int) ([]Inlink, error)

	// Pages iterates over every recorded page in URL ID order, streaming.
	Pages(ctx context.Context) iter.Seq2[*Page, error]

	// Reparse replaces the extraction of a recorded page (title, text, main
	// text, language, metadata, fingerprints, robots directives, canonical)
	// and its outlinks with a new parser's output. The fetch record (status,
	// bytes, validators, WARC location) and the frontier are untouched;
	// duplicates are judged again. ErrNotFound if the page is unknown.
	Reparse(ctx context.Context, p *Page, links []Link) error
}

// SearchStore is the store's embedded full-text index, which holds the
// indexable pages (see Indexable), kept in the same transactions as the
// pages themselves: Search answers from it.
type SearchStore interface {
	Searcher

	// RebuildIndex rebuilds the embedded full-text index from the pages.
	RebuildIndex(ctx context.Context) (int, error)
}

// RankStore is the link graph and the link-graph ranks computed over it.
type RankStore interface {
	// LinkGraph streams every recorded link between recorded pages: source
	// page, target URL.
	LinkGraph(ctx context.Context) iter.Seq2[[2]ID, error]

	// SetRanks records link-graph ranks (PageRank, scaled so that 1 is the
	// average page; pages not in the map keep theirs) and re-indexes every
	// indexable page with the anchor texts of its inbound links. A page's
	// recorded rank is kept when the new one is within RankTolerance of
	// it.
	SetRanks(ctx context.Context, ranks map[ID]float64) error
}

// RankTolerance is the share of a page's new link-graph rank by which its
// recorded rank may differ and be kept (RankStore.SetRanks). PageRank
// moves every page's rank a little whenever pages are added anywhere
// (100 new pages into a random graph of 200,000 moved 0.4% of the ranks
// by more than 1%, the median one by 0.027%: docs/search.md), so that
// without it every pass after a crawl, however small, would write
// every rank and send every page to an external index again. A recorded
// rank is never further than this from the last one computed, and a page's
// score moves by less than this share of its link-graph part.
const RankTolerance = 0.01

// RankMoved reports whether the rank new differs from the recorded rank
// old by more than RankTolerance of new (or is not a number), so that old
// is to be rewritten.
func RankMoved(old, new float64) bool {
	return !(math.Abs(old-new) <= RankTolerance*math.Abs(new))
}

// RankMovedSQL is RankMoved in SQL, of the expressions old and new.
func RankMovedSQL(old, new string) string {
	return "NOT (abs(" + old + " - " + new + ") <= " + strconv.FormatFloat(RankTolerance, 'g', -1, 64) + " * abs(" + new + "))"
}

// RankRows are the recorded ranks, rows of an ID and a rank in ID order,
// as database/sql and pgx read them.
type RankRows interface {
	Next() bool
	Scan(dest ...any) error
}

// MovedRanks returns, in ID order, the pages of ranks whose rank is to be
// recorded: those with no recorded rank, and those whose recorded rank
// moved (RankMoved). recorded is read until the last page of ranks; the
// IDs share one slice.
func MovedRanks(ranks map[ID]float64, recorded RankRows) ([]ID, error) {
	ids := slices.Sorted(maps.Keys(ranks))
	out, i := ids[:0], 0
	for i < len(ids) && recorded.Next() {
		var id ID
		var old float64
		if err := recorded.Scan(&id, &old); err != nil {
			return nil, err
		}
		for i < len(ids) && ids[i] < id {
			out = append(out, ids[i])
			i++
		}
		if i == len(ids) {
			break
		}
		if ids[i] == id {
			if RankMoved(old, ranks[id]) {
				out = append(out, id)
			}
			i++
		}
	}
	return append(out, ids[i:]...), nil
}

// OutboxStore is the queue of operations for an external index, written
// with the pages; the indexer (indexer.Outbox) drains it.
type OutboxStore interface {
	// OutboxNext leases up to limit pending external-index operations
	// (written by Commit and Reparse when the store was opened with an
	// outbox), oldest first, for lease; an operation not marked done in
	// time is handed out again.
	OutboxNext(ctx context.Context, limit int, lease time.Duration, now time.Time) ([]OutboxItem, error)

	// OutboxDone removes operations that reached the external index.
	OutboxDone(ctx context.Context, ids []int64) error

	// RequeueIndex queues an upsert of every indexable page for the
	// external index again, for a rebuild. It queues no deletes: a page
	// that stopped being indexable queued its delete then, so an index
	// that took its outbox holds nothing else.
	RequeueIndex(ctx context.Context) (int, error)
}

// RecrawlStore schedules revisits of recorded pages and keeps the
// recrawl runs and the revisit history.
type RecrawlStore interface {
	// ScheduleDue returns to the queue up to limit recorded pages whose
	// next check time has come (every active page when all is set), oldest
	// due first, and reports how many. Removed and inactive pages stay.
	ScheduleDue(ctx context.Context, now time.Time, all bool, limit int) (int, error)

	// ScheduleDueURLs returns to the queue, as ScheduleDue does, those of
	// the given URLs whose recorded page is active, done (not queued nor in
	// flight) and due by now, and reports how many: the pages a sitemap
	// read during a run made due (CommitStats.Touched).
	ScheduleDueURLs(ctx context.Context, ids []ID, now time.Time) (int, error)

	// DueCount counts the active pages due by now and not yet queued.
	DueCount(ctx context.Context, now time.Time) (int64, error)

	// StartRun begins a recrawl run and returns its number (1, 2, ...).
	StartRun(ctx context.Context, now time.Time) (int, error)

	// FinishRun ends a recrawl run: an active page (not a seed) of a host
	// checked in this run that no active page links to (sitemap entries
	// are links from the sitemap) counts one more unseen run; at
	// unseenLimit it becomes inactive and leaves the index. It returns
	// how many pages became inactive.
	FinishRun(ctx context.Context, run int, unseenLimit int, now time.Time) (int, error)

	// RecordRun stores a recrawl run's figures; Runs returns them, oldest
	// first.
	RecordRun(ctx context.Context, r RunStats) error
	Runs(ctx context.Context) ([]RunStats, error)

	// ChangeStats summarizes the revisit history per host and page type.
	ChangeStats(ctx context.Context) ([]ChangeStat, error)
}

// StatsStore holds the crawl's figures: counters, per-host outcomes,
// metrics over time and failures of URL sources.
type StatsStore interface {
	// Counters returns crawl-wide figures.
	Counters(ctx context.Context) (Counters, error)

	// HostStats returns per-host outcomes, most fetched first, at most limit
	// hosts (0: all).
	HostStats(ctx context.Context, limit int) ([]HostStats, error)

	// RecordMetrics appends one interval's figures.
	RecordMetrics(ctx context.Context, m Metrics) error

	// Metrics returns the recorded intervals since a time, oldest first.
	Metrics(ctx context.Context, since time.Time) ([]Metrics, error)

	// RecordSourceError records the failure of a source of URLs;
	// SourceErrors returns the most recent ones, newest first, at most
	// limit (0: all).
	RecordSourceError(ctx context.Context, e SourceError) error
	SourceErrors(ctx context.Context, limit int) ([]SourceError, error)
}

// SettingStore records the settings a crawl's stored data was made with.
type SettingStore interface {
	// SetSetting records a crawl setting (a setting that shapes the stored
	// data, such as the URL normalization it was made with), replacing its
	// earlier value.
	SetSetting(ctx context.Context, key, value string) error

	// Setting returns the recorded value of a crawl setting, or an error
	// wrapping ErrNotFound when it was never set.
	Setting(ctx context.Context, key string) (string, error)
}

// Budget errors returned by FrontierStore.ClaimURLs.
var (
	ErrPageBudget = budgetError("page budget reached")
	ErrByteBudget = budgetError("byte budget reached")
	// ErrHostBytes: the host spent its byte share (Limits.MaxHostBytes);
	// its queued URLs were skipped.
	ErrHostBytes = budgetError("host byte share reached")
)

type budgetError string

func (e budgetError) Error() string { return string(e) }

// Claim is one host's outcome in FrontierStore.ClaimURLsOf.
type Claim struct {
	URLs []ClaimedURL
	Next time.Time // earliest retry time when none is ready
	Err  error     // ErrLeaseLost, ErrPageBudget, ErrByteBudget or ErrHostBytes
}
