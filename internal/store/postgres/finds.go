package postgres

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Discoveries staged (migration 0028), as in the SQLite store. In a large
// frontier a commit's new URLs fall on random pages of the primary key,
// urls_queue and hosts, each page written (and, first after a checkpoint,
// written whole to the WAL) for an entry of a few bytes, in every commit;
// and each host a page links to is locked and rewritten. Once the store
// holds findsFrom URLs, a commit therefore appends the URLs its pages
// discovered to the stage of offers (offers.go), each with the host of
// the page that found it (found_by), and stages the inbound links it
// counts for link targets that are not rows of urls in inlinks_found
// (inlinks.go), drawing a value of inlinks_finds_seq for each: the
// merges of inlinks_staged, many between two merges of the stage, never
// read them. Both are appends, made before
// the commit locks its hosts: a merge holds the stage in SHARE mode, so a
// commit waiting to stage holds no row a merge needs.
//
// A commit merges the stage when it holds one offer or staged count for
// every findsShare URLs stored, or as many as the URLs queued: a merge
// then writes each index page about once for many commits, and a crawl
// whose queue runs short does not wait for its new URLs. The counts are
// part of the measure because they grow without offers: a link to a URL
// out of the crawl's scope is counted until a merge finds no row for it.
// ClaimHosts merges when it finds no host, and the crawl is not over
// while offers are staged (Counters.Staged). A merge decides on the
// discoveries as on any offer; it adds the URLs it admits to their
// finders' discovered counts (host_finds); the staged counts of the URLs
// it packs go into their runs, those of the URLs it makes rows move to
// inlinks_staged for the merges of inbound links, and those of targets
// that are neither are dropped. A smaller store admits a commit's
// discoveries at once: its pages stay in the server's cache.
//
// It is off by default (findsFrom, the store size from which commits
// stage, is out of reach): at 10M URLs over 1M hosts a crawl-shaped
// run was slower with it and wrote more (docs/scale.md, "Discoveries
// staged (PostgreSQL; built)"). A merge of discoveries spread over every
// host locks and rewrites most host rows, most rows of seen and the last
// run of most hosts, where a commit writes a few rows; tests set the
// sizes (export_test.go).
const (
	findsFrom  = findsNever
	findsShare = 16
	findsMin   = 1
)

// findsNever is a findsFrom no store reaches: commits never stage, and
// do not read the URLs stored for it.
const findsNever = 1 << 62

// findsStored is about how many URLs the store holds (urls_seq draws a
// value for each URL inserted or packed), as a commit's first round trip
// last read it. It decides whether the next commit stages its
// discoveries: that is known before the transaction, whose first
// statement otherwise looks at the stage and holds it (queueStaged),
// which a commit that stages must not do: a merge empties the stage by
// TRUNCATE, which would wait for the look while the commit waited for
// the merge to stage.
type findsStored struct{ n atomic.Int64 }

// storedSQL reads about how many URLs are stored.
const storedSQL = `SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM urls_seq`

// stagesFinds reports whether a commit stages its discoveries.
func (db *DB) stagesFinds() bool {
	return db.stored.n.Load() >= db.tune.findsFrom
}

// queueStored queues the read of the URLs stored, for the next commit's
// choice, unless no size makes commits stage.
func (db *DB) queueStored(b *pgx.Batch) {
	if db.tune.findsFrom >= findsNever {
		return
	}
	b.Queue(storedSQL).QueryRow(func(row pgx.Row) error {
		var n int64
		if err := row.Scan(&n); err != nil {
			return err
		}
		db.stored.n.Store(n)
		return nil
	})
}

// findOfferSQL stages a commit's discoveries (queueFinds), in the order
// given, each with its finder.
const findOfferSQL = `INSERT INTO offers (id, host_id, parent_id, discovered_at, lastmod, cap, depth, priority, kind,
		url, host, via, changefreq, found_by)
	SELECT id, host_id, parent_id, $13, lastmod, $14, depth, priority, kind, url, host, via, changefreq, found_by
	FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::int[], $6::int[], $7::smallint[],
			$8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[]) WITH ORDINALITY
		AS t(id, host_id, parent_id, lastmod, depth, priority, kind, url, host, via, changefreq, found_by, ord)
	ORDER BY ord`

// queueFinds stages the URLs the live results discovered, in result
// order, each with the host of the page that found it; ord numbers them
// in that order. A host's first offer of the commit names its key, as
// StageURLs does. The commit's stats count them offered and those over
// depth; the merge decides the rest.
func (c *committer) queueFinds(b *pgx.Batch) {
	var ids, hosts, parents, lastmods, finders []int64
	var depths, prios []int32
	var kinds []int16
	var urls, vias, freqs []string
	var keys []*string
	first := map[crawl.ID]bool{}
	for i := range c.results {
		r := &c.results[i]
		if !c.live[i] {
			continue
		}
		c.st.Add.Offered += len(r.Discovered)
		for i := range r.Discovered {
			u := &r.Discovered[i]
			if c.lim.OverDepth(u.Depth) {
				c.st.Add.OverDepth++
				continue
			}
			key := stagedKey(first, u)
			ids, hosts, parents, lastmods = append(ids, int64(u.ID)), append(hosts, int64(u.HostID)), append(parents, int64(u.Parent)),
				append(lastmods, ms(u.LastMod))
			depths, prios, kinds = append(depths, int32(u.Depth)), append(prios, int32(u.Priority)), append(kinds, int16(u.Kind))
			urls, keys, vias, freqs = append(urls, clean(u.URL)), append(keys, key), append(vias, clean(string(u.Via))),
				append(freqs, clean(u.ChangeFreq))
			finders = append(finders, int64(r.URL.HostID))
		}
	}
	if len(ids) == 0 {
		return
	}
	b.Queue(findOfferSQL, ids, hosts, parents, lastmods, depths, prios, kinds, urls, keys, vias, freqs, finders,
		c.now.UnixMilli(), c.lim.MaxPagesPerHost)
	c.db.grown.wrote(c.db, len(ids))
}

// findsSizeSQL reads, in a commit that staged, the stage's measure (its
// offers and the counts staged since the last merge), the URLs stored
// and the URLs queued.
const findsSizeSQL = `SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM offers_ord_seq)
	+ (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM inlinks_finds_seq), (` + storedSQL + `),
	(SELECT coalesce(sum(queued), 0)::bigint FROM counters)`

// findsSize is what findsSizeSQL read.
type findsSize struct{ staged, stored, queued int64 }

func (s *findsSize) queue(b *pgx.Batch) {
	b.Queue(findsSizeSQL).QueryRow(func(row pgx.Row) error { return row.Scan(&s.staged, &s.stored, &s.queued) })
}

// due reports whether the stage is large enough to merge, the
// transaction having queued queued URLs more.
func (s *findsSize) due(tu *tuning, queued int64) bool {
	return s.staged >= max(tu.findsMin, min(s.stored/tu.findsShare, s.queued+queued))
}

// findsSQL counts, for a merge of discoveries that inserts rows, the
// staged offers of the hosts from $1 to $2 that a host's cap refuses and
// their hosts, and appends to host_finds how many of each finder's
// offers the merge admits, by the rule of its insert (admittedOffersSQL:
// a URL's first offer, unless stored; a host's cap admits its first
// offers in stage order). It runs before the insert, once the hosts are
// locked, while their admitted counts are those before the merge. (A
// packing merge counts them as it reads its cursor: packRange.)
var findsSQL = `WITH a AS (
	SELECT n.host_id, n.found_by, n.cap <= 0 OR n.admitted + n.k <= n.cap AS ok
	FROM (` + admittedOffersSQL("$1", "$2") + `) AS n
), f AS (
	INSERT INTO host_finds (host_id, n) SELECT found_by, count(*) FROM a WHERE ok AND found_by IS NOT NULL GROUP BY found_by
)
SELECT count(*) FILTER (WHERE NOT ok), coalesce(array_agg(DISTINCT host_id) FILTER (WHERE NOT ok), '{}') FROM a`

// applyFindsSQL adds the finders' counts the ranges of a merge appended
// (and any that a merge which failed after its ranges committed left) to
// the hosts, and empties host_finds.
const applyFindsSQL = `WITH d AS (DELETE FROM host_finds RETURNING host_id, n)
	UPDATE hosts h SET discovered = h.discovered + f.n
	FROM (SELECT host_id, sum(n)::bigint AS n FROM d GROUP BY host_id) AS f WHERE h.id = f.host_id`

// moveCountsSQL moves, after a merge of the hosts from $1 to $2, the
// inbound links staged for targets in that range that are rows of urls
// now (the URLs the merge inserted) from inlinks_found to inlinks_staged,
// whose merges apply them as any; it returns how many it moved.
const moveCountsSQL = `WITH d AS (
	DELETE FROM inlinks_found s WHERE s.target_id BETWEEN $1 AND $2 AND EXISTS (SELECT 1 FROM urls u WHERE u.id = s.target_id)
	RETURNING s.*
), i AS (
	INSERT INTO inlinks_staged SELECT * FROM d ORDER BY target_id, batch RETURNING 1
)
SELECT count(*) FROM i`

// dropCountsSQL drops, after moveCountsSQL, the inbound links left in
// inlinks_found for targets from $1 to $2: those of URLs the merge packed
// ($4, whose counts went into their runs) and those staged by
// transactions committed when the merge began (visible in $3, its
// snapshot taken with the stage held: their offers were in the stage,
// decided by now; a URL refused, or never offered, is not counted).
// Counts staged by transactions running then wait for the merge of their
// offers.
const dropCountsSQL = `DELETE FROM inlinks_found s
	WHERE s.target_id BETWEEN $1 AND $2
		AND (txid_visible_in_snapshot(s.batch, $3::txid_snapshot) OR s.target_id = ANY($4))`

// merged is what a merge decided, for the stats of the commit that ran
// it, or of the next commit for a merge a claim ran (heldOver).
type merged struct {
	mu sync.Mutex
	st crawl.AddStats
}

// heldOver keeps what a merge of discoveries that ClaimHosts ran decided
// for the next commit to report: a claim has no figures to give, and the
// crawl's count of new URLs and the hosts woken for them come from
// commits.
func (m *merged) heldOver(as crawl.AddStats) {
	if as.Hosts == nil && as.CappedHosts == nil {
		return
	}
	m.mu.Lock()
	m.st.Decided(as)
	m.mu.Unlock()
}

// report adds to st what merges that ClaimHosts ran decided since the
// last commit.
func (m *merged) report(st *crawl.AddStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st.Decided(m.st)
	m.st = crawl.AddStats{}
}

// mergeFinds merges the stage after a commit that staged, if size says
// it is due, and adds what the merge decided to st.
func (db *DB) mergeFinds(ctx context.Context, size *findsSize, queued int64, st *crawl.AddStats) error {
	if !size.due(&db.tune, queued) {
		return nil
	}
	as, err := db.mergeStaged(ctx)
	if err != nil {
		return err
	}
	st.Decided(as)
	return nil
}
