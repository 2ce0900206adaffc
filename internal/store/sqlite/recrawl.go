package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// ScheduleDue returns due pages to the queue.
func (db *DB) ScheduleDue(ctx context.Context, now time.Time, all bool, limit int) (int, error) {
	var n int
	err := db.tx(ctx, func(t *txn) error {
		rows, err := t.tx.QueryContext(ctx, `UPDATE urls SET state = 0, retry_at = 0, error = NULL WHERE id IN
			(SELECT p.url_id FROM pages p JOIN urls u ON u.id = p.url_id
			 WHERE p.gone = 0 AND u.state = 2 AND (?1 OR (p.next_check_at > 0 AND p.next_check_at <= ?2))
			 ORDER BY p.next_check_at, p.url_id LIMIT ?3)
			RETURNING host_id`, all, now.UnixMilli(), limit)
		if err != nil {
			return err
		}
		perHost := map[crawl.ID]int64{}
		if n, err = countHosts(rows, perHost); err != nil {
			return err
		}
		return t.requeued(ctx, perHost, n)
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: schedule due pages: %w", err)
	}
	return n, nil
}

// ScheduleDueURLs returns to the queue those of the given URLs whose
// recorded page is active, done and due by now.
func (db *DB) ScheduleDueURLs(ctx context.Context, ids []crawl.ID, now time.Time) (int, error) {
	var n int
	err := db.tx(ctx, func(t *txn) error {
		n = 0
		perHost := map[crawl.ID]int64{}
		for chunk := range slices.Chunk(ids, 500) {
			list, args := idList(chunk)
			rows, err := t.tx.QueryContext(ctx, `UPDATE urls SET state = 0, retry_at = 0, error = NULL
				WHERE state = 2 AND id IN (`+list+`) AND id IN (SELECT url_id FROM pages
					WHERE url_id = urls.id AND gone = 0 AND next_check_at > 0 AND next_check_at <= ?)
				RETURNING host_id`, append(args, now.UnixMilli())...)
			if err != nil {
				return err
			}
			k, err := countHosts(rows, perHost)
			if err != nil {
				return err
			}
			n += k
		}
		return t.requeued(ctx, perHost, n)
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: schedule due URLs: %w", err)
	}
	return n, nil
}

// countHosts reads and closes the host IDs of requeued URLs, counting
// them per host.
func countHosts(rows *sql.Rows, perHost map[crawl.ID]int64) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		var h crawl.ID
		if err := rows.Scan(&h); err != nil {
			return n, err
		}
		perHost[h]++
		n++
	}
	return n, rows.Err()
}

// requeued records n done URLs returned to the queue: their hosts' queued
// counts and best priorities, and the counters.
func (t *txn) requeued(ctx context.Context, perHost map[crawl.ID]int64, n int) error {
	for h, k := range perHost {
		if _, err := t.tx.ExecContext(ctx, `UPDATE hosts SET queued = queued + ? WHERE id = ?`, k, h); err != nil {
			return err
		}
		if err := t.refreshTop(ctx, h); err != nil {
			return err
		}
	}
	t.add("done", -int64(n))
	t.add("queued", int64(n))
	return nil
}

// DueCount counts the active pages due and not yet queued.
func (db *DB) DueCount(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM pages p JOIN urls u ON u.id = p.url_id
		WHERE p.gone = 0 AND u.state = 2 AND p.next_check_at > 0 AND p.next_check_at <= ?`, now.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: due count: %w", err)
	}
	return n, nil
}

// StartRun begins a recrawl run. Page and byte budgets count per run, so
// their counters start again from what is in flight.
func (db *DB) StartRun(ctx context.Context, now time.Time) (int, error) {
	var run int
	err := db.tx(ctx, func(t *txn) error {
		if err := t.tx.QueryRowContext(ctx, `INSERT INTO runs (started_at) VALUES (?) RETURNING id`, now.UnixMilli()).Scan(&run); err != nil {
			return err
		}
		_, err := t.tx.ExecContext(ctx, `UPDATE counters SET value = CASE name
			WHEN 'reserved' THEN (SELECT value FROM counters WHERE name = 'inflight') ELSE 0 END
			WHERE name IN ('reserved', 'bytes')`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: start run: %w", err)
	}
	return run, nil
}

// FinishRun ends a recrawl run and marks pages no longer linked from
// anywhere for unseenLimit runs as inactive.
func (db *DB) FinishRun(ctx context.Context, run int, unseenLimit int, now time.Time) (int, error) {
	var n int
	err := db.tx(ctx, func(t *txn) error {
		// Whether a page is linked is read from inlinks alone.
		if err := t.mergeStaged(ctx); err != nil {
			return err
		}
		if _, err := t.tx.ExecContext(ctx, `UPDATE pages SET unseen_runs = CASE WHEN EXISTS (
				SELECT 1 FROM inlinks l JOIN pages s ON s.url_id = l.source_id
				WHERE l.target_id = pages.url_id AND l.source_id <> pages.url_id AND s.gone = 0)
			THEN 0 ELSE unseen_runs + 1 END
			WHERE gone = 0 AND url_id IN (
				SELECT u.id FROM urls u WHERE u.kind = 0 AND u.via <> `+fmt.Sprint(viaCode(crawl.ViaSeed))+` AND u.host_id IN (
					SELECT DISTINCT u2.host_id FROM page_history h JOIN urls u2 ON u2.id = h.url_id WHERE h.run = ?))`,
			run); err != nil {
			return err
		}
		rows, err := t.tx.QueryContext(ctx, `UPDATE pages SET gone = 2 WHERE gone = 0 AND unseen_runs >= ? RETURNING url_id`, unseenLimit)
		if err != nil {
			return err
		}
		var ids []crawl.ID
		for rows.Next() {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			if err := t.unindex(ctx, id); err != nil {
				return err
			}
		}
		n = len(ids)
		_, err = t.tx.ExecContext(ctx, `UPDATE runs SET finished_at = ? WHERE id = ?`, now.UnixMilli(), run)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: finish run %d: %w", run, err)
	}
	return n, nil
}

// ChangeStats summarizes the revisit history per host and page type.
func (db *DB) ChangeStats(ctx context.Context) ([]crawl.ChangeStat, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT p.host, p.doc_type, count(*),
			sum(h.changed = 1 AND h.status BETWEEN 200 AND 299), sum(h.changed = 0 AND h.status IN (200, 304)),
			sum(h.status IN (404, 410))
		FROM page_history h JOIN pages p ON p.url_id = h.url_id WHERE h.run > 0
		GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: change stats: %w", err)
	}
	defer rows.Close()
	var out []crawl.ChangeStat
	for rows.Next() {
		var c crawl.ChangeStat
		if err := rows.Scan(&c.Host, &c.Type, &c.Checks, &c.Changed, &c.Unchanged, &c.Missing); err != nil {
			return nil, fmt.Errorf("sqlite: change stats: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// prevFetches loads what the store knows of the last fetch of claimed
// URLs, the URLs never fetched left without, in one statement.
func (t *txn) prevFetches(ctx context.Context, urls []crawl.ClaimedURL) error {
	if len(urls) == 0 {
		return nil
	}
	at := make(map[crawl.ID]int, len(urls))
	ids := make([]crawl.ID, len(urls))
	for i, u := range urls {
		at[u.ID], ids[i] = i, u.ID
	}
	rows, err := t.query(ctx, `SELECT p.url_id, p.etag, p.last_modified, p.content_hash, p.bytes, p.fetched_at,
			p.interval_ms, p.misses, p.doc_type, u.changefreq
		FROM json_each(?) j CROSS JOIN pages p ON p.url_id = j.value JOIN urls u ON u.id = p.url_id`, jsonIDs(ids))
	if err != nil {
		return fmt.Errorf("last fetches: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id crawl.ID
		var p crawl.PrevFetch
		var fetched, interval int64
		if err := rows.Scan(&id, &p.ETag, &p.LastModified, &p.ContentHash, &p.Bytes, &fetched, &interval, &p.Misses, &p.Type, &p.ChangeFreq); err != nil {
			return fmt.Errorf("last fetches: %w", err)
		}
		p.FetchedAt, p.Interval = fromMS(fetched), time.Duration(interval)*time.Millisecond
		if i, ok := at[id]; ok {
			urls[i].Prev = &p
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("last fetches: %w", err)
	}
	return nil
}

// RecordRun stores a run's figures.
func (db *DB) RecordRun(ctx context.Context, r crawl.RunStats) error {
	err := db.tx(ctx, func(t *txn) error {
		_, err := t.tx.ExecContext(ctx, `UPDATE runs SET finished_at = ?, revisits = ?, not_modified = ?, unchanged = ?,
			changed = ?, removed = ?, inactive = ?, new_pages = ?, bytes = ?, bytes_saved = ?, due_left = ? WHERE id = ?`,
			ms(r.Finished), r.Revisits, r.NotModified, r.Unchanged, r.Changed, r.Removed, r.Inactive, r.New, r.Bytes,
			r.BytesSaved, r.DueLeft, r.Run)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: record run %d: %w", r.Run, err)
	}
	return nil
}

// Runs returns the recrawl runs, oldest first.
func (db *DB) Runs(ctx context.Context) ([]crawl.RunStats, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT id, started_at, finished_at, revisits, not_modified, unchanged, changed,
		removed, inactive, new_pages, bytes, bytes_saved, due_left FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: runs: %w", err)
	}
	defer rows.Close()
	var out []crawl.RunStats
	for rows.Next() {
		var r crawl.RunStats
		var st, fin int64
		if err := rows.Scan(&r.Run, &st, &fin, &r.Revisits, &r.NotModified, &r.Unchanged, &r.Changed, &r.Removed,
			&r.Inactive, &r.New, &r.Bytes, &r.BytesSaved, &r.DueLeft); err != nil {
			return nil, fmt.Errorf("sqlite: runs: %w", err)
		}
		r.Started, r.Finished = fromMS(st), fromMS(fin)
		out = append(out, r)
	}
	return out, rows.Err()
}
