package postgres

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Inbound-link counts are staged (migration 0015). With an inbound-link
// bonus, a commit counts each new page as an inbound link of the URLs it
// links to and follows (urls.inlinks) and raises the priority of those
// queued. It used to update those URL rows in its last round trip, the
// ~3,000 targets of a batch of 100 pages locked in ID order and each
// written as a new row version with its index entries, while the commit
// held its hosts' rows, which claims and other commits wait for. Now it
// appends one row per target to inlinks_staged (how many of its pages
// link to it, how many of those while it is queued, the bonus and its
// cap), before it locks its hosts, and locks no target at all. The staged
// rows are merged into urls in large batches sorted by target
// (mergeInlinks): a URL linked from many pages is written once a merge,
// not once a commit. The staging rows commit with the pages, and a merge
// deletes the rows it adds in the transaction that adds them, so a kill
// loses nothing and counts nothing twice; a restart merges what was left.
// A packed URL (runs.go) is staged alike: the merge makes it a row first
// (unpackStaged), a host's linked URLs in one rewrite of each of its runs
// a merge, where a commit made each a row as its page linked to it,
// rewriting its run each time.
//
// A read of a URL (URL) adds its staged rows, taken in batch order as the
// merge takes them (stagedInlinks): it gives the count and priority the
// commits made, merged or not. The frontier's own reads take the priority
// column as it is: a claim takes a host's URLs by it, and host valuing
// compares the priorities of a page and its link targets, so a staged
// bonus counts there from the next merge on (adding the staged rows to
// every target a host valuing reads made it the server's largest cost).

// mergeRows is how many rows a store handle stages before it merges the
// stage (everyone's rows, in the background; tuning.mergeRows);
// mergeChunk is about how many staged rows one merge transaction takes
// (by target ID).
const (
	mergeRows  = 1 << 15
	mergeChunk = 1 << 15
)

// inlinkStage is what a commit's new pages do to their link targets: per
// target (in ID order), n inbound links, of which the last m while it is
// queued, and whether it is queued after the batch (q: 1 or 0 for a result
// of the batch, whose state the commit sets; -1 for another, whose row
// tells).
type inlinkStage struct {
	ids   []int64
	n, m  []int32
	q     []int16
	found map[int64]bool // staged by queueExisting
	added int            // staged by queueAdmitted
}

// inlinks counts each new page (one not recorded before) as an inbound
// link of the URLs it links to and follows, as the SQLite store does when
// it records the results one after another: a target that is a result of
// the batch is in flight until its own result.
func (c *committer) inlinks(recorded map[crawl.ID]bool) *inlinkStage {
	// Where each live result is in the batch, by URL: its URL is in flight
	// until then.
	at := map[int64]int{}
	for i := range c.results {
		if c.live[i] {
			at[int64(c.results[i].URL.ID)] = i
		}
	}
	type bump struct{ n, m int32 }
	bumps := map[int64]bump{}
	for i := range c.results {
		r := &c.results[i]
		if !c.live[i] || r.Outcome != crawl.OutcomeDone || recorded[r.URL.ID] {
			continue
		}
		for _, id := range followed(r) {
			v := bumps[id]
			v.n++
			if j, ok := at[id]; !ok || j < i && c.outs[j].state == crawl.StateQueued {
				v.m++
			}
			bumps[id] = v
		}
	}
	s := &inlinkStage{found: map[int64]bool{}}
	for id := range bumps {
		s.ids = append(s.ids, id)
	}
	slices.Sort(s.ids)
	for _, id := range s.ids {
		q := int16(-1)
		if j, ok := at[id]; ok {
			q = 0
			if c.outs[j].state == crawl.StateQueued {
				q = 1
			}
		}
		s.n, s.m, s.q = append(s.n, bumps[id].n), append(s.m, bumps[id].m), append(s.q, q)
	}
	return s
}

// stageSQL appends the staged rows of the targets in $1 that are stored:
// rows of urls, and packed URLs (queued), which stay packed until a merge
// of their rows makes them rows (unpackStaged), so that a link does not
// rewrite a run in the commit. A target queued at the commit gets its m
// links' bonus, another none. The batch is the transaction's ID, which
// orders a target's rows.
var stageSQL = `INSERT INTO inlinks_staged (target_id, batch, n, m, bonus, cap)
	SELECT v.id, txid_current(), v.n, CASE WHEN v.q = 1 OR v.q < 0 AND coalesce(u.state, 0) = 0 THEN v.m ELSE 0 END, $5, $6
	FROM unnest($1::bigint[], $2::int[], $3::int[], $4::smallint[]) AS v(id, n, m, q) LEFT JOIN urls u ON u.id = v.id
	WHERE u.id IS NOT NULL OR ` + seenRunSQL("v.id") + ` IS NOT NULL
	ORDER BY v.id
	RETURNING target_id`

func bonusOf(lim crawl.Limits) (bonus, cap int32) {
	return int32(lim.InlinkBonus), int32(lim.MaxInlinkBonus / lim.InlinkBonus)
}

// queueExisting stages the targets stored before the commit locks its
// hosts (all but the URLs the commit admits).
func (s *inlinkStage) queueExisting(b *pgx.Batch, lim crawl.Limits) {
	if len(s.ids) == 0 {
		return
	}
	bonus, cap := bonusOf(lim)
	b.Queue(stageSQL, s.ids, s.n, s.m, s.q, bonus, cap).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			s.found[id] = true
		}
		return rows.Err()
	})
}

// stageFindsSQL is stageSQL for a commit that stages its discoveries
// (finds.go): the targets that are not rows are staged in inlinks_found,
// counted as queued (a URL a merge admits is), each drawing a value of
// inlinks_finds_seq. A merge moves those of the URLs it makes rows to
// inlinks_staged and drops the others.
const stageFindsSQL = `WITH s AS (
	INSERT INTO inlinks_found (target_id, batch, n, m, bonus, cap)
	SELECT v.id, txid_current(), v.n, CASE WHEN v.q = 1 OR v.q < 0 AND coalesce(u.state, 0) = 0 THEN v.m ELSE 0 END, $5, $6
	FROM unnest($1::bigint[], $2::int[], $3::int[], $4::smallint[]) AS v(id, n, m, q) LEFT JOIN urls u ON u.id = v.id
	ORDER BY v.id
	RETURNING target_id
)
SELECT count(nextval('inlinks_finds_seq')) FROM s`

// queueAdmitted stages the other targets, once the commit admitted the
// URLs it discovered (queued after it after the admission statement): a
// link to a URL not admitted is not counted, as before. It is the
// commit's last round trip, but only for the targets new to the store.
// A commit that stages its discoveries (finds) stages them all.
func (s *inlinkStage) queueAdmitted(b *pgx.Batch, lim crawl.Limits, finds bool) {
	if s == nil {
		return
	}
	var ids []int64
	var n, m []int32
	var q []int16
	for i, id := range s.ids {
		if !s.found[id] {
			ids, n, m, q = append(ids, id), append(n, s.n[i]), append(m, s.m[i]), append(q, s.q[i])
		}
	}
	if len(ids) == 0 {
		return
	}
	bonus, cap := bonusOf(lim)
	if finds {
		// Not for the merges of inlinks_staged: rows() leaves them out.
		b.Queue(stageFindsSQL, ids, n, m, q, bonus, cap)
		return
	}
	b.Queue(stageSQL, ids, n, m, q, bonus, cap).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			s.added++
		}
		return rows.Err()
	})
}

// rows is how many rows the commit staged.
func (s *inlinkStage) rows() int {
	if s == nil {
		return 0
	}
	return len(s.found) + s.added
}

// stagedInlinks is the SQL of a one-row subquery over the staged rows of
// the URL whose ID and inlinks column are the SQL expressions id and
// inlinks: n, the inbound links staged, and raise, the bonus they add to
// its priority, taken in batch order as the merge takes them. Of a row's
// n links, those numbered n-m+1..n came while the URL was queued; each of
// them numbered at most cap in the URL's count raises it by bonus.
func stagedInlinks(id, inlinks string) string {
	return stagedInlinksIn("inlinks_staged", id, inlinks)
}

// stagedInlinksIn is stagedInlinks over the rows of table (inlinks_staged
// or inlinks_found).
func stagedInlinksIn(table, id, inlinks string) string {
	return `(SELECT coalesce(sum(n), 0)::int AS n,
			coalesce(sum(bonus * greatest(0, least(n, cap - before) - (n - m))), 0)::int AS raise
		FROM (SELECT n, m, bonus, cap, ` + inlinks + ` + coalesce(sum(n) OVER (ORDER BY batch
				ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
			FROM ` + table + ` WHERE target_id = ` + id + `) s)`
}

// mergeRangeSQL is the last target of the merge transaction's range:
// after $1 (by ID), about $2 staged rows (up to the target of the $2-th
// row, all of its rows included); math.MaxInt64 at the stage's end.
const mergeRangeSQL = `SELECT coalesce((SELECT target_id FROM inlinks_staged WHERE target_id > $1 ORDER BY target_id OFFSET $2 LIMIT 1),
	9223372036854775807)`

// stagedPackedSQL finds the packed URLs with rows staged from $1 to $2
// (by ID), and their hosts; it reads nothing more in a store that holds
// no packed URL.
var stagedPackedSQL = packedRunsIn(`SELECT DISTINCT target_id AS id FROM inlinks_staged
	WHERE target_id > $1 AND target_id <= $2 AND EXISTS (SELECT 1 FROM seen)`, "s.id, r.host_id", "")

// mergeSQL merges the staged rows of the link targets from $1 to $2 (by
// ID) into their URL rows, and deletes them, in one statement that reads
// the stage by its index: the URL rows are locked in ID order, skipping
// those another transaction holds (a claim, a commit) and, unless $3,
// those in flight, whose commit comes soon and must not wait for the
// merge; their rows stay staged for the next merge, as do those of a
// packed URL unpackStaged left packed. It returns the staged rows merged.
const mergeSQL = `WITH t AS (
	SELECT id, inlinks FROM urls
	WHERE id IN (SELECT DISTINCT target_id FROM inlinks_staged WHERE target_id > $1 AND target_id <= $2)
		AND ($3 OR state <> 1)
	ORDER BY id FOR NO KEY UPDATE SKIP LOCKED
), d AS (
	DELETE FROM inlinks_staged s USING t WHERE s.target_id > $1 AND s.target_id <= $2 AND s.target_id = t.id
	RETURNING s.target_id, s.batch, s.n, s.m, s.bonus, s.cap
), g AS (
	SELECT target_id, sum(n)::int AS n, sum(bonus * greatest(0, least(n, cap - before) - (n - m)))::int AS raise
	FROM (SELECT d.*, t.inlinks + coalesce(sum(d.n) OVER (PARTITION BY d.target_id ORDER BY d.batch
			ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
		FROM d JOIN t ON t.id = d.target_id) w
	GROUP BY target_id
), w AS (
	UPDATE urls u SET inlinks = u.inlinks + g.n, priority = u.priority + g.raise FROM g WHERE u.id = g.target_id
)
SELECT count(*) FROM d`

// unpackStaged queues in b making rows of the packed URLs with rows
// staged from after to hi, so that the merge's statement counts them as
// it counts rows, and returns how many: those whose host's row it can
// lock at once (a claim or a commit holding a host leaves its URLs
// packed, and their rows staged, for a later merge). Every change to a
// host's runs is made holding the host's row (runs.go).
func (t *txn) unpackStaged(ctx context.Context, b *pgx.Batch, after, hi int64) (int, error) {
	var ids, hosts []int64
	rb := t.batch()
	rb.Queue(stagedPackedSQL, after, hi).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id, host int64
			if err := rows.Scan(&id, &host); err != nil {
				return err
			}
			ids, hosts = append(ids, id), append(hosts, host)
		}
		return rows.Err()
	})
	if err := t.send(ctx, rb); err != nil || len(ids) == 0 {
		return 0, err
	}
	locked := map[int64]bool{}
	rb = t.batch()
	rb.Queue(`SELECT id FROM hosts WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED`, hosts).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			locked[id] = true
		}
		return rows.Err()
	})
	if err := t.send(ctx, rb); err != nil {
		return 0, err
	}
	var mine []int64
	for i, id := range ids {
		if locked[hosts[i]] {
			mine = append(mine, id)
		}
	}
	return len(mine), t.unpackURLs(ctx, b, mine)
}

// mergeLock is the advisory lock key a merge transaction holds, so that
// one process merges at a time (the others, finding it taken, leave the
// merge to it).
func (db *DB) mergeLock() int64 {
	return db.lockKey("inlinks merge")
}

// mergeInlinks merges the staged inbound links into the URL rows, a
// transaction per mergeChunk rows in target ID order, until none are left
// or (unless all) another process is merging. all waits for a merge of
// another process to end and merges the rows of URLs in flight too. It
// returns the staged rows merged.
//
// The packed URLs of a range are made rows in a transaction of their
// own, before the range's merge: it holds their hosts' rows, which
// claims and commits wait for, and the merge's statement, which takes
// longer, holds none.
func (db *DB) mergeInlinks(ctx context.Context, all bool) (int64, error) {
	after := int64(math.MinInt64)
	var merged int64
	for {
		var hi, rows int64
		var busy, unpacked bool
		err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
			hi, rows, busy, unpacked = 0, 0, false, false
			b := t.batch()
			got := db.queueMergeLock(b, all)
			b.Queue(mergeRangeSQL, after, mergeChunk).QueryRow(func(row pgx.Row) error {
				return row.Scan(&hi)
			})
			if err := t.send(ctx, b); err != nil || !*got {
				busy = !*got
				return err
			}
			b = t.batch()
			n, err := t.unpackStaged(ctx, b, after, hi)
			if err != nil {
				return err
			}
			if unpacked = n > 0; !unpacked {
				queueMerge(b, after, hi, all, &rows)
			}
			return t.commit(ctx, b)
		})
		if err == nil && unpacked {
			err = db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
				rows, busy = 0, false
				b := t.batch()
				got := db.queueMergeLock(b, all)
				if err := t.send(ctx, b); err != nil || !*got {
					busy = !*got
					return err
				}
				b = t.batch()
				queueMerge(b, after, hi, all, &rows)
				return t.commit(ctx, b)
			})
		}
		if err != nil {
			return merged, err
		}
		merged += rows
		if busy || hi == math.MaxInt64 {
			return merged, nil
		}
		after = hi
	}
}

// queueMergeLock queues taking the merge's lock: waiting for it (all),
// or not, the result telling whether it was taken.
func (db *DB) queueMergeLock(b *pgx.Batch, all bool) *bool {
	got := true
	if all {
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, db.mergeLock())
	} else {
		b.Queue(`SELECT pg_try_advisory_xact_lock($1)`, db.mergeLock()).QueryRow(func(row pgx.Row) error {
			return row.Scan(&got)
		})
	}
	return &got
}

// queueMerge queues the merge of the staged rows from after to hi,
// setting rows to how many it merged.
func queueMerge(b *pgx.Batch, after, hi int64, all bool, rows *int64) {
	b.Queue(noJIT)
	b.Queue(mergeSQL, after, hi, all).QueryRow(func(row pgx.Row) error {
		return row.Scan(rows)
	})
}

// inlinkMerger starts a store handle's merges: one in the background once
// the handle staged mergeRows rows since its last, and a last one when
// the handle is closed, if it staged any.
type inlinkMerger struct {
	mu      sync.Mutex
	pending int  // rows staged since the last merge began
	any     bool // rows staged since the last merge that took everything
	running bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// staged notes that the handle staged n rows, and starts a merge if they
// are many.
func (m *inlinkMerger) staged(db *DB, n int) {
	if n == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending += n
	m.any = true
	if m.pending < db.tune.mergeRows || m.running {
		return
	}
	m.pending, m.running = 0, true
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer cancel()
		// A failed merge leaves the rows staged, for the next one.
		db.mergeInlinks(ctx, false)
		m.mu.Lock()
		m.running = false
		m.mu.Unlock()
	}()
}

// close stops a running merge and merges what is staged, everyone's rows
// (of URLs in flight too), if the handle staged any.
func (m *inlinkMerger) close(db *DB) {
	m.mu.Lock()
	if m.cancel != nil {
		m.cancel()
	}
	any := m.any
	m.any = false
	m.mu.Unlock()
	m.wg.Wait()
	if !any || db.readOnly {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db.mergeInlinks(ctx, true)
}
