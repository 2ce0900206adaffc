package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/acrawler/acrawler/internal/crawl"
)

// dueSQL finds the recorded active pages whose URL is done and whose next
// check time has come ($1 now), or every one of them when all is set,
// oldest due first, at most $2.
func dueSQL(all bool) string {
	due := `AND p.next_check_at > 0 AND p.next_check_at <= $1`
	if all {
		due = `AND $1::bigint IS NOT NULL`
	}
	return `SELECT p.url_id, u.host_id FROM pages p JOIN urls u ON u.id = p.url_id
		WHERE p.gone = 0 AND u.state = ` + fmt.Sprint(int(crawl.StateDone)) + ` ` + due + `
		ORDER BY p.next_check_at, p.url_id LIMIT $2`
}

// ScheduleDue returns due pages to the queue in one transaction of three
// round trips: find the candidates (unlocked), lock their hosts in ID
// order and then their URL rows in ID order (the lock order of every
// transaction) and requeue those still done, then raise the hosts' queued
// counts and best priorities. Two processes running it at once requeue
// each page once: the second waits for the first's locks and finds the
// pages queued.
func (db *DB) ScheduleDue(ctx context.Context, now time.Time, all bool, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	n, err := db.scheduleDue(ctx, dueSQL(all), now.UnixMilli(), int64(limit))
	if err != nil {
		return 0, fmt.Errorf("postgres: schedule due pages: %w", err)
	}
	return n, nil
}

// ScheduleDueURLs returns to the queue those of the given URLs whose
// recorded page is active, done and due by now, as ScheduleDue does.
func (db *DB) ScheduleDueURLs(ctx context.Context, ids []crawl.ID, now time.Time) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	want := make([]int64, len(ids))
	for i, id := range ids {
		want[i] = int64(id)
	}
	n, err := db.scheduleDue(ctx, `SELECT p.url_id, u.host_id FROM pages p JOIN urls u ON u.id = p.url_id
		WHERE p.url_id = ANY($2) AND p.gone = 0 AND u.state = `+fmt.Sprint(int(crawl.StateDone))+`
			AND p.next_check_at > 0 AND p.next_check_at <= $1`, now.UnixMilli(), want)
	if err != nil {
		return 0, fmt.Errorf("postgres: schedule due URLs: %w", err)
	}
	return n, nil
}

// scheduleDue requeues the done URLs that query (url_id, host_id) finds.
func (db *DB) scheduleDue(ctx context.Context, query string, args ...any) (int, error) {
	var n int
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		n = 0
		var ids, hostIDs []int64
		b := t.batch()
		b.Queue(query, args...).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id, host int64
				if err := rows.Scan(&id, &host); err != nil {
					return err
				}
				ids, hostIDs = append(ids, id), append(hostIDs, host)
			}
			return nil
		})
		if err := t.send(ctx, b); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		slices.Sort(ids)
		slices.Sort(hostIDs)
		hostIDs = slices.Compact(hostIDs)
		hosts := map[crawl.ID]*hostDelta{}
		b = t.batch()
		b.Queue(`SELECT count(*) FROM (SELECT 1 FROM hosts WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE) l`, hostIDs)
		b.Queue(`SELECT count(*) FROM (SELECT 1 FROM urls WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE) l`, ids)
		b.Queue(`UPDATE urls SET state = $2, retry_at = 0, error = '' WHERE id = ANY($1) AND state = $3
			RETURNING host_id, priority`, ids, int16(crawl.StateQueued), int16(crawl.StateDone)).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var host crawl.ID
				var prio int32
				if err := rows.Scan(&host, &prio); err != nil {
					return err
				}
				h := hostOf(hosts, host)
				h.queued++
				h.raise(prio)
				n++
			}
			return nil
		})
		if err := t.send(ctx, b); err != nil {
			return err
		}
		t.delta.done -= int64(n)
		t.delta.queued += int64(n)
		b = t.batch()
		queueHostDeltas(b, hosts)
		return t.commit(ctx, b)
	})
	return n, err
}

// DueCount counts the active pages due and not yet queued.
func (db *DB) DueCount(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.pool.QueryRow(ctx, `SELECT count(*) FROM pages p JOIN urls u ON u.id = p.url_id
		WHERE p.gone = 0 AND u.state = $2 AND p.next_check_at > 0 AND p.next_check_at <= $1`,
		now.UnixMilli(), int16(crawl.StateDone)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: due count: %w", err)
	}
	return n, nil
}

// StartRun begins a recrawl run, numbered one more than the last. Page
// and byte budgets count per run, so their counters start again from what
// is in flight: every counters row's reserved count becomes its in-flight
// count (the sums agree) and its bytes 0. It runs under the page budget
// lock, so claims checking the budget wait for it, and so do other
// StartRuns, which number their runs after it.
func (db *DB) StartRun(ctx context.Context, now time.Time) (int, error) {
	var run int32
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, db.budgetLock())
		b.Queue(`INSERT INTO runs (id, started_at) SELECT coalesce(max(id), 0) + 1, $1 FROM runs RETURNING id`,
			now.UnixMilli()).QueryRow(func(row pgx.Row) error { return row.Scan(&run) })
		b.Queue(`WITH l AS (SELECT slot FROM counters ORDER BY slot FOR NO KEY UPDATE)
			UPDATE counters c SET reserved = c.inflight, bytes = 0 FROM l WHERE c.slot = l.slot`)
		return t.commit(ctx, b)
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: start run: %w", err)
	}
	return int(run), nil
}

// FinishRun ends a recrawl run in one transaction of one round trip: the
// active pages (not seeds nor sitemaps) of the hosts checked in the run
// count one more unseen run unless an active page links to them, those at
// unseenLimit become inactive and leave the index (with an outbox, their
// documents are queued for deletion), and the run is marked finished.
// Each statement locks its pages in URL ID order.
func (db *DB) FinishRun(ctx context.Context, run int, unseenLimit int, now time.Time) (int, error) {
	var n int64
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`WITH checked AS (SELECT DISTINCT u.host_id FROM page_history h JOIN urls u ON u.id = h.url_id WHERE h.run = $1),
			c AS (SELECT p.url_id FROM pages p JOIN urls u ON u.id = p.url_id
				WHERE p.gone = 0 AND u.kind = $2 AND u.via <> $3 AND u.host_id IN (SELECT host_id FROM checked)
				ORDER BY p.url_id FOR NO KEY UPDATE OF p)
			UPDATE pages p SET unseen_runs = CASE WHEN EXISTS (SELECT 1 FROM links l JOIN pages s ON s.url_id = l.source_id
					WHERE l.target_id = p.url_id AND l.source_id <> p.url_id AND s.gone = 0)
				THEN 0 ELSE p.unseen_runs + 1 END
			FROM c WHERE p.url_id = c.url_id`, int32(run), int16(crawl.KindPage), string(crawl.ViaSeed))
		b.Queue(`WITH x AS (SELECT url_id, indexed_key FROM pages WHERE gone = 0 AND unseen_runs >= $1
				ORDER BY url_id FOR NO KEY UPDATE),
			u AS (UPDATE pages p SET gone = $3, search = NULL, anchors = '',
					indexed_key = CASE WHEN $2 THEN '' ELSE p.indexed_key END
				FROM x WHERE p.url_id = x.url_id RETURNING p.url_id),
			o AS (INSERT INTO outbox (url_id, op, doc_key)
				SELECT url_id, 'delete', indexed_key FROM x WHERE $2 AND indexed_key <> '' ORDER BY url_id)
			SELECT count(*) FROM u`, int64(unseenLimit), db.outbox, int16(crawl.Inactive)).QueryRow(func(row pgx.Row) error {
			return row.Scan(&n)
		})
		b.Queue(`UPDATE runs SET finished_at = $1 WHERE id = $2`, now.UnixMilli(), int32(run))
		return t.commit(ctx, b)
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: finish run %d: %w", run, err)
	}
	return int(n), nil
}

// RecordRun stores a run's figures.
func (db *DB) RecordRun(ctx context.Context, r crawl.RunStats) error {
	if db.readOnly {
		return fmt.Errorf("postgres: record run %d: store is open read-only", r.Run)
	}
	_, err := db.pool.Exec(ctx, `UPDATE runs SET finished_at = $1, revisits = $2, not_modified = $3, unchanged = $4,
			changed = $5, removed = $6, inactive = $7, new_pages = $8, bytes = $9, bytes_saved = $10, due_left = $11
		WHERE id = $12`,
		ms(r.Finished), r.Revisits, r.NotModified, r.Unchanged, r.Changed, r.Removed, r.Inactive, r.New, r.Bytes,
		r.BytesSaved, r.DueLeft, int32(r.Run))
	if err != nil {
		return fmt.Errorf("postgres: record run %d: %w", r.Run, err)
	}
	return nil
}

// Runs returns the recrawl runs, oldest first.
func (db *DB) Runs(ctx context.Context) ([]crawl.RunStats, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, started_at, finished_at, revisits, not_modified, unchanged, changed,
		removed, inactive, new_pages, bytes, bytes_saved, due_left FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: runs: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (crawl.RunStats, error) {
		var r crawl.RunStats
		var id int32
		var st, fin int64
		err := row.Scan(&id, &st, &fin, &r.Revisits, &r.NotModified, &r.Unchanged, &r.Changed, &r.Removed,
			&r.Inactive, &r.New, &r.Bytes, &r.BytesSaved, &r.DueLeft)
		r.Run, r.Started, r.Finished = int(id), fromMS(st), fromMS(fin)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: runs: %w", err)
	}
	return out, nil
}

// ChangeStats summarizes the recrawl checks (run > 0) per host and page
// type, in byte order of host and type.
func (db *DB) ChangeStats(ctx context.Context) ([]crawl.ChangeStat, error) {
	rows, err := db.pool.Query(ctx, `SELECT p.host, p.doc_type, count(*),
			count(*) FILTER (WHERE h.changed AND h.status BETWEEN 200 AND 299),
			count(*) FILTER (WHERE NOT h.changed AND h.status IN (200, 304)),
			count(*) FILTER (WHERE h.status IN (404, 410))
		FROM page_history h JOIN pages p ON p.url_id = h.url_id WHERE h.run > 0
		GROUP BY p.host, p.doc_type ORDER BY p.host COLLATE "C", p.doc_type COLLATE "C"`)
	if err != nil {
		return nil, fmt.Errorf("postgres: change stats: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (crawl.ChangeStat, error) {
		var c crawl.ChangeStat
		err := row.Scan(&c.Host, &c.Type, &c.Checks, &c.Changed, &c.Unchanged, &c.Missing)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: change stats: %w", err)
	}
	return out, nil
}

// scheduleRows are the revisit schedules of a commit's pages, as column
// arrays: the check history of them all, and the schedules of the pages
// whose rows the commit does not write again (a revisit that left the
// page as it was: pageUpsert writes the others' with the row).
type scheduleRows struct {
	ids, checked, bytes []int64
	runs, status        []int32
	changed             []bool
	hashes              [][]byte
	// The schedules of the pages not written again.
	kept, keptChecked, next, interval []int64
	misses                            []int32
	gone                              []int16
}

// checkedAt is when page p was checked: its fetch, else now.
func checkedAt(p *crawl.Page, now time.Time) int64 {
	if checked := ms(p.FetchedAt); checked != 0 {
		return checked
	}
	return now.UnixMilli()
}

// add appends the schedule rv of page p, checked at p.FetchedAt (now when
// unset); written says that the commit writes the page's row, and its
// schedule with it.
func (s *scheduleRows) add(p *crawl.Page, rv *crawl.Revisit, now time.Time, written bool) {
	checked := checkedAt(p, now)
	var hash []byte
	if len(p.ContentHash) > 0 {
		hash = p.ContentHash
	}
	s.ids, s.checked, s.bytes = append(s.ids, int64(p.ID)), append(s.checked, checked), append(s.bytes, p.Bytes)
	s.runs, s.status = append(s.runs, int32(rv.Run)), append(s.status, int32(p.Status))
	s.changed, s.hashes = append(s.changed, rv.Changed), append(s.hashes, hash)
	if !written {
		s.kept, s.keptChecked = append(s.kept, int64(p.ID)), append(s.keptChecked, checked)
		s.next, s.interval = append(s.next, ms(rv.NextCheck)), append(s.interval, rv.Interval.Milliseconds())
		s.misses, s.gone = append(s.misses, int32(rv.Misses)), append(s.gone, int16(rv.Gone))
	}
}

// queue queues the statements that record the schedules of the pages not
// written again (taking the pages that are no longer active out of the
// embedded index) and append the check history. The page rows are locked
// by the transaction already.
func (s *scheduleRows) queue(b *pgx.Batch) {
	if len(s.ids) == 0 {
		return
	}
	if len(s.kept) > 0 {
		b.Queue(`UPDATE pages p SET checked_at = v.checked, next_check_at = v.next, interval_ms = v.interval,
				misses = v.misses, gone = v.gone,
				search = CASE WHEN v.gone <> 0 THEN NULL ELSE p.search END,
				anchors = CASE WHEN v.gone <> 0 THEN '' ELSE p.anchors END
			FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::int[], $6::smallint[])
				AS v(id, checked, next, interval, misses, gone)
			WHERE p.url_id = v.id`, s.kept, s.keptChecked, s.next, s.interval, s.misses, s.gone)
	}
	b.Queue(`INSERT INTO page_history (url_id, checked_at, run, status, changed, content_hash, bytes)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::int[], $5::bool[], $6::bytea[], $7::bigint[])`,
		s.ids, s.checked, s.runs, s.status, s.changed, s.hashes, s.bytes)
}

// queueTouch makes the recorded active pages that a sitemap says changed
// after their fetch due now, counting them in *n. The page rows are locked
// by the transaction already.
func queueTouch(b *pgx.Batch, ts []crawl.Touch, now time.Time, n *int) {
	if len(ts) == 0 {
		return
	}
	ids, lastmods := make([]int64, len(ts)), make([]int64, len(ts))
	for i, tc := range ts {
		ids[i], lastmods[i] = int64(tc.ID), ms(tc.LastMod)
	}
	b.Queue(`UPDATE pages p SET next_check_at = $3
		FROM (SELECT id, max(lastmod) AS lastmod FROM unnest($1::bigint[], $2::bigint[]) AS t(id, lastmod) GROUP BY id) v
		WHERE p.url_id = v.id AND p.gone = 0 AND p.fetched_at < v.lastmod AND p.next_check_at > $3`,
		ids, lastmods, now.UnixMilli()).Exec(func(ct pgconn.CommandTag) error {
		*n += int(ct.RowsAffected())
		return nil
	})
}

// queueOutbox queues the statement that records the document key each
// page should have in the external index ("" for none) and the operations
// that get it there: the deletion of its old document when the key
// changes, then the upsert of the new one when there is one (in page
// order, so the delete of a page comes first). It reads the old keys after
// the statements queued before it, under the page row locks the
// transaction holds. Without an outbox it queues nothing.
func (db *DB) queueOutbox(b *pgx.Batch, ids []int64, keys []string) {
	if !db.outbox || len(ids) == 0 {
		return
	}
	b.Queue(`WITH v AS (SELECT * FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS v(id, key, ord)),
		o AS (SELECT p.url_id, p.indexed_key AS old, v.key, v.ord FROM pages p JOIN v ON p.url_id = v.id),
		q AS (INSERT INTO outbox (url_id, op, doc_key)
			SELECT url_id, op, k FROM (
				SELECT url_id, 'delete' AS op, old AS k, ord, 0 AS step FROM o WHERE old <> '' AND old <> key
				UNION ALL SELECT url_id, 'upsert', key, ord, 1 FROM o WHERE key <> '') x
			ORDER BY ord, step)
		UPDATE pages p SET indexed_key = o.key FROM o WHERE p.url_id = o.url_id AND p.indexed_key <> o.key`, ids, keys)
}

// execRows returns a callback adding a statement's affected rows to *n.
func execRows(n *int64) func(pgconn.CommandTag) error {
	return func(ct pgconn.CommandTag) error {
		*n += ct.RowsAffected()
		return nil
	}
}
