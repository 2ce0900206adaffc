package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sync/errgroup"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Staged offers (migration 0016), as in the SQLite store: the sorted
// merge of IRLbot's DRUM. An admission (AddURLs, a commit's discovered
// URLs) locks and updates the row of every host it offers to and inserts
// each URL into the primary key and urls_queue at its place: with the
// hosts of a batch interleaved, a batch of 10,000 seeds touches about
// 10,000 host rows and as many index pages, each written again by the
// next batch (and each page's first change after a checkpoint writes the
// whole page to the WAL). StageURLs appends offers to the table offers
// instead, by COPY, with no lookup and no host row touched, and
// MergeStaged decides them all at once, reading them sorted by host and
// URL, so that each host row and index page is written about once a merge.
//
// Processes share the stage. A merge locks the table offers whole
// (ACCESS EXCLUSIVE) for its transaction: no offer is staged meanwhile
// (StageURLs waits), so the merge decides exactly the offers it sees and
// empties the table by TRUNCATE; two merges take turns, the second finding
// the stage empty. It then locks the rows of the stage's hosts in ID
// order, as an admission does, so that no other process admits URLs to
// them until it commits. An admission looks at the stage in its first
// statement (which holds the table's shared lock to its end, so a merge
// waits for it), and when offers wait, merges them first: decisions
// follow the order of the offers, within what processes running at once
// can tell.

// Merge thresholds: the stage is merged when it holds at least stageMin
// offers and at least one for each stageShare URLs stored, as in the
// SQLite store: each merge at least doubles the URLs stored, so an index
// page is written a few times over a crawl's adds. Each merge also
// locks and rewrites the row and the last run of every host it admits
// URLs to, however few each gets, and the versions it replaces stay on
// disk until a vacuum, so a few large merges cost less than many small
// ones. The stage is a table of its own, emptied by TRUNCATE: its space
// (about 200 bytes an offer) goes back to the system at each merge,
// where SQLite's stays in the database file, so stageMin is larger here.
// 2,000,000 seeds over 200,000 hosts take one merge with stageMin
// 4,000,000 (49,000–60,000 URLs/s, 316 B of WAL and 115 B in tables a
// URL) and two with 1,000,000 (37,000–49,000 URLs/s, 500 B, 180 B).
const (
	stageMin   = 4_000_000
	stageShare = 1
)

// offerColumns are the columns StageURLs writes; ord takes its next
// value, row by row, in offer order.
var offerColumns = []string{"id", "host_id", "parent_id", "discovered_at", "lastmod", "cap", "depth", "priority", "kind",
	"url", "host", "via", "changefreq"}

// stageSizeSQL reads how many offers are staged (ord's sequence, started
// again at 1 by each merge) and about how many URLs are stored (urls_seq
// draws a value for each URL inserted).
const stageSizeSQL = `SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM offers_ord_seq),
	(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM urls_seq)`

// stagedSQL tells whether offers wait. As an admission's first statement
// it holds the table's shared lock until the admission ends: a merge
// starting meanwhile waits for it.
const stagedSQL = `SELECT EXISTS (SELECT 1 FROM offers)`

// errStaged aborts an admission that found offers staged: they are merged
// first, and the admission runs again.
var errStaged = errors.New("offers staged")

// StageURLs offers URLs to the frontier as AddURLs does, deciding on them
// later: URLs over lim's depth are refused now, the others are appended
// to the stage in one COPY, durably, and decided on (known, over the host
// cap under lim, or admitted) when the stage is merged: when it is large
// (after this call's offers), before the next admission (AddURLs, or a
// Commit with discovered URLs) of any process sharing the store, when
// ClaimHosts would find no host, and at MergeStaged. The decisions are
// those AddURLs would have taken, the offers taken in order, as long as
// a host's offers in one stage share a cap.
//
// The stats count the offers and those over depth, and the URLs added
// by a merge this call made (of this call's offers and earlier ones).
func (db *DB) StageURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	st := crawl.AddStats{Offered: len(urls)}
	if db.readOnly {
		return crawl.AddStats{}, errors.New("postgres: stage urls: store is open read-only")
	}
	rows := make([]int, 0, len(urls))
	first := make(map[crawl.ID]bool)
	for i, u := range urls {
		if lim.OverDepth(u.Depth) {
			st.OverDepth++
			continue
		}
		rows = append(rows, i)
	}
	at := time.Now().UnixMilli()
	_, err := db.pool.CopyFrom(ctx, pgx.Identifier{"offers"}, offerColumns,
		pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
			u := &urls[rows[i]]
			host := stagedKey(first, u)
			return []any{int64(u.ID), int64(u.HostID), int64(u.Parent), at, ms(u.LastMod), lim.MaxPagesPerHost,
				int32(u.Depth), int32(u.Priority), int16(u.Kind), clean(u.URL), host, clean(string(u.Via)),
				clean(u.ChangeFreq)}, nil
		}))
	if err != nil {
		return crawl.AddStats{}, fmt.Errorf("postgres: stage urls: %w", connectCause(err))
	}
	db.grown.wrote(db, len(rows))
	var staged, stored int64
	if err := db.pool.QueryRow(ctx, stageSizeSQL).Scan(&staged, &stored); err != nil {
		return crawl.AddStats{}, fmt.Errorf("postgres: stage urls: %w", err)
	}
	if staged < max(db.tune.stageMin, stored/db.tune.stageShare) {
		return st, nil
	}
	as, err := db.mergeStaged(ctx)
	if err != nil {
		return crawl.AddStats{}, fmt.Errorf("postgres: stage urls: %w", err)
	}
	st.Added = as.Added
	return st, nil
}

// stagedKey returns the host key an offer is staged with: for the first
// offer of its host in a batch (first notes the hosts seen), the host's
// key, or an empty key when it is the URL's own (urlKey); for the
// others, none (NULL).
func stagedKey(first map[crawl.ID]bool, u *crawl.NewURL) *string {
	if first[u.HostID] {
		return nil
	}
	first[u.HostID] = true
	key := ""
	if !urlKey(u.Host, u.URL) {
		key = clean(u.Host)
	}
	return &key
}

// urlKey reports whether host is the key the merge derives from url when
// the stage holds an empty key for it: the URL's scheme (with no colon) and
// authority (crawl.HostKey).
func urlKey(host, url string) bool {
	i := strings.Index(host, "://")
	return i > 0 && !strings.Contains(host[:i], ":") && host == crawl.HostKey(url)
}

// MergeStaged decides on every staged offer now (see StageURLs) and
// returns how many URLs it added.
func (db *DB) MergeStaged(ctx context.Context) (int, error) {
	as, err := db.mergeStaged(ctx)
	if err != nil {
		return 0, fmt.Errorf("postgres: %w", err)
	}
	db.claimed.heldOver(as)
	return as.Added, nil
}

// mergeIfStaged merges the stage if offers wait, and reports how many URLs
// it added; what it decided is reported by the next commit.
func (db *DB) mergeIfStaged(ctx context.Context) (int, error) {
	var staged bool
	if err := db.pool.QueryRow(ctx, stagedSQL).Scan(&staged); err != nil || !staged {
		return 0, err
	}
	as, err := db.mergeStaged(ctx)
	db.claimed.heldOver(as)
	return as.Added, err
}

// mergeOffersSQL decides on the staged offers of the hosts from $1 to $2
// (by ID) and inserts the admitted, as AddURLs decides: the offers are
// read sorted by host, URL and offer; an offer is known if its URL is
// stored or offered earlier in the stage (the first offer of each URL is
// kept, and those of stored URLs, rows or packed, dropped by anti-joins,
// looked up in URL order); a host's cap (the offer's) admits its first offers
// (row_number() over the host's offers in offer order, added to
// hosts.admitted). The admitted are inserted host by host, a host's in
// offer order, each drawing seq from urls_seq as it is inserted
// (PostgreSQL evaluates a volatile output column after the sort its query
// reads in order), so a host's URLs are numbered in offer order, as by
// AddURLs' COPY. The hosts' counts are updated from the inserted rows.
// The host rows are locked before it runs: no URL of theirs is inserted
// meanwhile, so a conflict can only be a URL ID stored under another
// host, which fails the transaction to be run again (retryable). There is
// no ON CONFLICT clause: it would insert each row speculatively and write
// a second WAL record to confirm it.
//
// It returns the number of URLs admitted and, if $3, their hosts.
var mergeOffersSQL = `WITH ins AS (
	INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id, discovered_at, kind, lastmod, changefreq, seq)
	SELECT n.id, ` + relURLSQL("n.url", "n.key") + `, n.host_id, n.depth, n.priority, 0, n.via, n.parent_id, n.discovered_at, n.kind, n.lastmod,
		n.changefreq, nextval('urls_seq')
	FROM (` + admittedOffersSQL("$1", "$2") + `) AS n
	WHERE n.cap <= 0 OR n.admitted + n.k <= n.cap
	ORDER BY n.host_id, n.ord
	RETURNING host_id, priority
), c AS (
	SELECT host_id, count(*) AS n, max(priority) AS top FROM ins GROUP BY host_id
), u AS (
	UPDATE hosts h SET admitted = h.admitted + c.n, queued = h.queued + c.n, top_priority = greatest(h.top_priority, c.top)
	FROM c WHERE h.id = c.host_id
)
SELECT coalesce(sum(n), 0)::bigint, CASE WHEN $3 THEN array_agg(host_id ORDER BY host_id) END FROM c`

// admittedOffersSQL reads the staged offers of the hosts from lo to hi
// (SQL expressions) that a merge may admit: a URL's first offer, unless
// the URL is stored (a row, or packed: seen), each with its host's
// admitted count and key and its place among the host's offers (k). A
// host a packing merge inserted with counts (hosts_new: fresh) had no
// URL admitted before it, whatever counts it was inserted with (fresh_n,
// fresh_top).
func admittedOffersSQL(lo, hi string) string {
	return `SELECT f.*, CASE WHEN n.id IS NULL THEN h.admitted ELSE 0 END AS admitted, h.key,
		row_number() OVER (PARTITION BY f.host_id ORDER BY f.ord) AS k,
		n.id IS NOT NULL AS fresh, h.admitted AS fresh_n, h.top_priority AS fresh_top
		FROM (SELECT DISTINCT ON (host_id, id) * FROM offers WHERE host_id BETWEEN ` + lo + ` AND ` + hi + ` ORDER BY host_id, id, ord) AS f
		JOIN hosts h ON h.id = f.host_id LEFT JOIN hosts_new n ON n.id = f.host_id
		WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = f.id) AND ` + seenRunSQL("f.id") + ` IS NULL`
}

// mergeHostsSQL inserts the hosts from $1 to $2 (by ID) of the staged
// offers that have no row, with the columns %s (counts) set to %s (of
// the host's offers grouped: g). The first offer of a host in a batch
// names its key, or an empty key when the key is its URL's scheme and
// authority; later offers name none (NULL). A host's key is thus the one
// named, else that of any of its URLs staged with an empty key. Only the
// offers of hosts without a row are read (an anti-join), grouped by
// hashing rather than sorted, and their texts compared as bytes: a merge
// of 1,000,000 seeds of 200,000 known hosts reads them in 0.7 s, where
// sorting every offer by host took 2.2 s.
const mergeHostsSQL = `INSERT INTO hosts (id, key%s)
	SELECT g.id, g.key%s FROM (
		SELECT o.host_id AS id, CASE WHEN max(o.host COLLATE "C") <> '' THEN max(o.host COLLATE "C")
				ELSE substring(min(o.url COLLATE "C") FILTER (WHERE o.host IS NOT NULL) FROM '^[^:]*://[^/?#]*') END AS key,
			CASE WHEN min(o.cap) > 0 THEN least(count(*), min(o.cap)) ELSE count(*) END AS n, max(o.priority) AS top
		FROM offers o
		WHERE o.host_id BETWEEN $1 AND $2 AND NOT EXISTS (SELECT 1 FROM hosts h WHERE h.id = o.host_id)
		GROUP BY o.host_id HAVING count(o.host) > 0) AS g
	ORDER BY g.id
	ON CONFLICT (id) DO NOTHING`

// A merge inserting rows counts the admitted into the new hosts' rows
// as into the others' (newHostsSQL). A packing merge inserts them with
// the counts they get if every offer is a new URL and the host's cap
// admits the first, and notes them in hosts_new (countedHostsSQL); once
// it has decided, it corrects the counts it got wrong and empties its
// part of hosts_new (packRange): a host it gives URLs is written once,
// not inserted and then updated.
var (
	newHostsSQL     = fmt.Sprintf(mergeHostsSQL, "", "")
	countedHostsSQL = `WITH i AS (` + fmt.Sprintf(mergeHostsSQL, ", admitted, queued, top_priority", ", g.n, g.n, g.top") +
		` RETURNING id)
	INSERT INTO hosts_new SELECT id FROM i`
)

// lockStagedHostsSQL locks the rows of the staged offers' hosts from $1
// to $2, in ID order, as admissions lock hosts.
const lockStagedHostsSQL = `SELECT count(*) FROM (SELECT 1 FROM hosts
	WHERE id IN (SELECT host_id FROM offers WHERE host_id BETWEEN $1 AND $2) ORDER BY id FOR NO KEY UPDATE) AS l`

// A merge of at least mergeApartMin offers splits the stage into
// mergeRanges ranges of host IDs (by their high bits: a URL's ID has its
// host's, so the ranges share no URL either) and merges each in a
// transaction of its own, on a connection of its own: the statements of
// one range run on one server process, so a merge in ranges uses as many
// of the server's cores, and each range's sorts are a fraction of the
// stage's. A smaller merge runs the ranges one after the other in one
// transaction.
const (
	mergeRanges   = 2
	mergeApartMin = 100_000
)

// stageLock is the advisory lock key a merge holds, so that merges take
// turns: the second finds the offers the first decided gone.
func (db *DB) stageLock() int64 {
	return db.lockKey("stage merge")
}

// mergeStaged decides on the staged offers and empties the stage. One
// transaction holds the merge's advisory lock and the stage in SHARE
// mode, which lets no offer be staged (a COPY waits) but lets other
// transactions read it, while the ranges are merged (mergeRange), and
// then empties the stage (TRUNCATE, which waits for the admissions that
// looked at the stage meanwhile); restartStage then starts ord again.
// The ranges of a large merge commit on their own connections, opened
// for the merge rather than taken from the pool, so that handles of this
// process waiting for the merge cannot hold the connections it needs.
// Should the merge fail after some ranges committed, their offers stay
// staged, and the next merge finds their URLs stored: known, as they are.
func (db *DB) mergeStaged(ctx context.Context) (crawl.AddStats, error) {
	var as crawl.AddStats
	var size int64
	var m rangeMerge
	var apart int // ranges merged on connections of their own
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		as, apart, m = crawl.AddStats{}, 0, rangeMerge{}
		var staged bool
		var stored int64
		b := t.batch()
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, db.stageLock())
		b.Queue(mergeMemSQL)
		b.Queue(`LOCK TABLE offers IN SHARE MODE`)
		b.Queue(mergeWhatSQL).QueryRow(func(row pgx.Row) error {
			return row.Scan(&staged, &m.found, &m.counts, &m.committed)
		})
		b.Queue(stageSizeSQL).QueryRow(func(row pgx.Row) error { return row.Scan(&size, &stored) })
		if err := t.send(ctx, b); err != nil || !staged && !m.counts {
			return err
		}
		var conns []*pgx.Conn
		if size >= db.tune.mergeApartMin {
			conns = db.rangeConns(ctx)
		}
		m.pack = size >= db.tune.packMin
		if conns == nil {
			for r := range db.tune.mergeRanges {
				rs, err := db.mergeRange(ctx, t, r, m)
				if err != nil {
					return err
				}
				as.Decided(rs)
			}
		} else {
			rs, err := db.mergeApart(ctx, conns, m)
			if err != nil {
				return err
			}
			as, apart = rs, len(conns)
		}
		if m.found {
			// The offers neither added nor refused by a cap were known
			// (stored, or offered earlier in the stage).
			as.Known = int(size) - as.Added - as.OverHostCap
		}
		b = t.batch()
		b.Queue(applyFindsSQL)
		// The ranges emptied seen_new and hosts_new: their pages go too.
		b.Queue(`TRUNCATE offers, seen_new, hosts_new`)
		return t.commit(ctx, b)
	})
	if err == nil {
		err = db.restartStage(ctx)
	}
	if err != nil {
		return crawl.AddStats{}, fmt.Errorf("merge staged offers: %w", err)
	}
	db.log.Debug("postgres: staged URLs merged", "offers", size, "added", as.Added, "ranges_apart", apart,
		"discovered", m.found, "known", as.Known, "over_host_cap", as.OverHostCap)
	db.grown.wrote(db, as.Added)
	return as, nil
}

// mergeWhatSQL tells a merge whether offers wait, whether some are
// discoveries (finds.go), whether commits staged inbound links of URLs
// that are not rows since the last merge, and the transactions committed
// by now (a snapshot, taken with the stage held: their offers are in it).
const mergeWhatSQL = `SELECT EXISTS (SELECT 1 FROM offers), EXISTS (SELECT 1 FROM offers WHERE found_by IS NOT NULL),
	(SELECT is_called FROM inlinks_finds_seq), txid_current_snapshot()::text`

// rangeMerge is what the ranges of a merge do.
type rangeMerge struct {
	pack      bool   // pack the admitted into runs
	found     bool   // some offers are discoveries: count them for their finders, and report the decisions
	counts    bool   // inbound links of targets that are not rows may be staged
	committed string // the transactions committed when the merge began (a snapshot: dropCountsSQL)
}

// restartStage starts ord's sequence at 1 again once a merge emptied the
// stage, so that the sequence tells how many offers wait. Setting a
// sequence needs only its UPDATE privilege (TRUNCATE … RESTART IDENTITY
// needs its owner: a crawl's role may not own the tables), but it takes
// effect whether or not its transaction commits, so it is done apart, in
// a transaction that keeps stagers out (SHARE) and finds the stage still
// empty. Offers staged since the merge keep the count going until the
// next merge. The count of inbound links staged for URLs that are not
// rows (inlinks_finds_seq) starts again with it.
func (db *DB) restartStage(ctx context.Context) error {
	return db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`LOCK TABLE offers IN SHARE MODE`)
		b.Queue(`SELECT setval('offers_ord_seq', 1, false), setval('inlinks_finds_seq', 1, false)
			WHERE NOT EXISTS (SELECT 1 FROM offers)`)
		return t.send(ctx, b)
	})
}

// mergeMemSQL gives a merge's sorts, which read the whole stage, more
// memory than the default 4 MB, so that fewer runs spill to temporary
// files.
const mergeMemSQL = `SET LOCAL work_mem = '64MB'`

// rangeConns opens a connection for each range of a merge apart, or
// returns nil, having opened none, if the server refuses one (at its
// max_connections, say): the merge then decides the ranges in its own
// transaction.
func (db *DB) rangeConns(ctx context.Context) []*pgx.Conn {
	cfg := db.pool.Config().ConnConfig
	conns := make([]*pgx.Conn, 0, db.tune.mergeRanges)
	for range db.tune.mergeRanges {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			db.log.Info("postgres: staged URLs merged in one transaction: the server refused a connection for each range "+
				"(a role's or the server's connection limit); raise it to merge them at once", "db", db.where(), "err", connectCause(err))
			for _, c := range conns {
				c.Close(context.WithoutCancel(ctx))
			}
			return nil
		}
		conns = append(conns, conn)
	}
	return conns
}

// mergeApart merges the ranges at once, range r in a transaction of its
// own on conns[r], closes the connections and returns what the ranges
// decided.
func (db *DB) mergeApart(ctx context.Context, conns []*pgx.Conn, m rangeMerge) (crawl.AddStats, error) {
	var mu sync.Mutex
	var as crawl.AddStats
	g, gctx := errgroup.WithContext(ctx)
	for r, conn := range conns {
		g.Go(func() error {
			defer conn.Close(context.WithoutCancel(gctx))
			return db.writeOn(gctx, conn, durable, func(ctx context.Context, t *txn) error {
				b := t.batch()
				b.Queue(mergeMemSQL)
				if err := t.send(ctx, b); err != nil {
					return err
				}
				rs, err := db.mergeRange(ctx, t, r, m)
				if err != nil {
					return err
				}
				if err := t.commit(ctx, t.batch()); err != nil {
					return err
				}
				mu.Lock()
				as.Decided(rs)
				mu.Unlock()
				return nil
			})
		})
	}
	err := g.Wait()
	return as, err
}

// mergeRange decides, in t, on the staged offers of range r of the
// store's ranges of host IDs (tuning.mergeRanges): it inserts the hosts
// without a row, locks the hosts in ID order, and counts the discoveries
// for their finders (findsSQL) and runs mergeOffersSQL, or packs the
// admitted into runs, counting them as it reads (packRange); then it moves the inbound links staged for the
// range's targets that are rows now to the merges of inbound links
// (moveCountsSQL) and drops the others (dropCountsSQL). The counts go to t's
// deltas; it returns what it decided (with m.found; else only the URLs
// admitted).
func (db *DB) mergeRange(ctx context.Context, t *txn, r int, m rangeMerge) (crawl.AddStats, error) {
	lo, hi := hostRange(r, db.tune.mergeRanges)
	var hosts, added, over int64
	var admitted, capped []int64
	b := t.batch()
	insert := newHostsSQL
	if m.pack {
		insert = countedHostsSQL
	}
	b.Queue(insert, lo, hi).Exec(func(ct pgconn.CommandTag) error {
		hosts = ct.RowsAffected()
		return nil
	})
	b.Queue(lockStagedHostsSQL, lo, hi)
	if m.found && !m.pack {
		b.Queue(findsSQL, lo, hi).QueryRow(func(row pgx.Row) error { return row.Scan(&over, &capped) })
	}
	if !m.pack {
		b.Queue(mergeOffersSQL, lo, hi, m.found).QueryRow(func(row pgx.Row) error { return row.Scan(&added, &admitted) })
	}
	if err := t.send(ctx, b); err != nil {
		return crawl.AddStats{}, err
	}
	var counted []int64
	if m.pack {
		p, err := t.packRange(ctx, lo, hi, m.found || m.counts, hosts)
		if err != nil {
			return crawl.AddStats{}, err
		}
		added, over, admitted, capped, counted = p.added, p.over, p.hosts, p.capped, p.counted
	}
	b = t.batch()
	var moved int64
	b.Queue(moveCountsSQL, lo, hi).QueryRow(func(row pgx.Row) error { return row.Scan(&moved) })
	b.Queue(dropCountsSQL, lo, hi, m.committed, counted)
	if err := t.send(ctx, b); err != nil {
		return crawl.AddStats{}, err
	}
	// The moved counts are for the merges of inlinks_staged (should the
	// range not commit, a merge finds nothing of them).
	db.merger.staged(db, int(moved))
	t.delta.queued += added
	t.delta.hosts += hosts
	as := crawl.AddStats{Added: int(added)}
	if m.found {
		as.OverHostCap = int(over)
		as.Hosts, as.CappedHosts = toIDs(admitted), toIDs(capped)
	}
	return as, nil
}

// toIDs converts sorted IDs.
func toIDs(ids []int64) []crawl.ID {
	if len(ids) == 0 {
		return nil
	}
	out := make([]crawl.ID, len(ids))
	for i, id := range ids {
		out[i] = crawl.ID(id)
	}
	return out
}

// hostRange returns the lowest and the highest host ID of range r of n,
// which split the IDs (as signed numbers, from the lowest) into spans of
// one width, the last taking what is left. The spans begin at host-bit
// groups (crawl.HostBits): a host's URL IDs have its bits, so the URLs
// of the hosts of different ranges are in different groups, whose rows
// of seen are apart.
func hostRange(r, n int) (lo, hi int64) {
	group := uint64(1) << (64 - crawl.URLHostBits)
	width := max((math.MaxUint64/uint64(n)+1)&^(group-1), group)
	lo = int64(uint64(r)*width + 1<<63)
	if r == n-1 {
		return lo, math.MaxInt64
	}
	return lo, int64(uint64(r+1)*width - 1 + 1<<63)
}

// queueStaged queues, when look is set, the look at the stage that opens
// an admission (stagedSQL), and returns where its answer goes.
func queueStaged(b *pgx.Batch, look bool) *bool {
	staged := new(bool)
	if look {
		b.Queue(stagedSQL).QueryRow(func(row pgx.Row) error { return row.Scan(staged) })
	}
	return staged
}

// admit runs an admission (a durable write, fn). When look is set, fn
// looks at the stage in its first statement (queueStaged) and fails with
// errStaged if offers wait: they are then merged and fn runs again,
// without looking (offers staged after the merge are offered alongside
// it, as by processes running at once).
func (db *DB) admit(ctx context.Context, look bool, fn func(ctx context.Context, t *txn, look bool) error) error {
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error { return fn(ctx, t, look) })
	if !look || !errors.Is(err, errStaged) {
		return err
	}
	if _, err := db.mergeStaged(ctx); err != nil {
		return err
	}
	return db.write(ctx, durable, func(ctx context.Context, t *txn) error { return fn(ctx, t, false) })
}
