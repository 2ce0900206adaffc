package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// RecordMetrics appends one interval's figures.
func (db *DB) RecordMetrics(ctx context.Context, m crawl.Metrics) error {
	err := db.tx(ctx, func(t *txn) error {
		_, err := t.tx.ExecContext(ctx, `INSERT INTO metrics (at, owner, interval_ms, fetched, useful, duplicates, blocked,
			errors, discovered, new, known, bytes, frontier, reserved, total_bytes)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			ms(m.At), m.Owner, m.Interval.Milliseconds(), m.Fetched, m.Useful, m.Duplicates, m.Blocked, m.Errors,
			m.Discovered, m.New, m.Known, m.Bytes, m.Frontier, m.Reserved, m.TotalBytes)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: record metrics: %w", err)
	}
	return nil
}

// Metrics returns the recorded intervals since a time, oldest first.
func (db *DB) Metrics(ctx context.Context, since time.Time) ([]crawl.Metrics, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT at, owner, interval_ms, fetched, useful, duplicates, blocked, errors,
		discovered, new, known, bytes, frontier, reserved, total_bytes FROM metrics WHERE at >= ? ORDER BY at, owner`, ms(since))
	if err != nil {
		return nil, fmt.Errorf("sqlite: metrics: %w", err)
	}
	defer rows.Close()
	var out []crawl.Metrics
	for rows.Next() {
		var m crawl.Metrics
		var at, iv int64
		if err := rows.Scan(&at, &m.Owner, &iv, &m.Fetched, &m.Useful, &m.Duplicates, &m.Blocked, &m.Errors,
			&m.Discovered, &m.New, &m.Known, &m.Bytes, &m.Frontier, &m.Reserved, &m.TotalBytes); err != nil {
			return nil, fmt.Errorf("sqlite: metrics: %w", err)
		}
		m.At, m.Interval = fromMS(at), time.Duration(iv)*time.Millisecond
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: metrics: %w", err)
	}
	return out, nil
}

// HostStats returns per-host outcomes, most fetched first.
func (db *DB) HostStats(ctx context.Context, limit int) ([]crawl.HostStats, error) {
	q := `SELECT id, key, admitted, queued, fetched, bytes, s2xx, s3xx, s4xx, s5xx, duplicates, blocked, discovered, trap,
		coalesce(robots_status, 0), value, value_pages, value_research, value_related, value_copies,
		coalesce((SELECT o.key FROM hosts o WHERE o.id = hosts.mirror_of AND hosts.mirror_of <> 0), '') FROM hosts ORDER BY fetched DESC, key`
	args := []any{}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: host stats: %w", err)
	}
	var out []crawl.HostStats
	byID := map[crawl.ID]int{}
	for rows.Next() {
		var h crawl.HostStats
		if err := rows.Scan(&h.ID, &h.Key, &h.Admitted, &h.Queued, &h.Fetched, &h.Bytes, &h.Status[2], &h.Status[3],
			&h.Status[4], &h.Status[5], &h.Duplicates, &h.Blocked, &h.Discovered, &h.Trap, &h.Robots,
			&h.Value, &h.ValuePages, &h.ValueResearch, &h.ValueRelated, &h.ValueCopies, &h.MirrorOf); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlite: host stats: %w", err)
		}
		byID[h.ID] = len(out)
		out = append(out, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: host stats: %w", err)
	}
	erows, err := db.r.QueryContext(ctx, `SELECT host_id, kind, count FROM host_errors`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: host stats: %w", err)
	}
	defer erows.Close()
	for erows.Next() {
		var id crawl.ID
		var kind string
		var n int64
		if err := erows.Scan(&id, &kind, &n); err != nil {
			return nil, fmt.Errorf("sqlite: host stats: %w", err)
		}
		if i, ok := byID[id]; ok {
			if out[i].Errors == nil {
				out[i].Errors = map[string]int64{}
			}
			out[i].Errors[kind] = n
		}
	}
	return out, erows.Err()
}

// RecordSourceError records the failure of a source of URLs.
func (db *DB) RecordSourceError(ctx context.Context, e crawl.SourceError) error {
	err := db.tx(ctx, func(t *txn) error {
		_, err := t.tx.ExecContext(ctx, `INSERT INTO source_errors (at, kind, source, url, error, urls) VALUES (?, ?, ?, ?, ?, ?)`,
			ms(e.At), e.Kind, e.Source, e.URL, e.Error, e.URLs)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: record source error: %w", err)
	}
	return nil
}

// SourceErrors returns the most recent source failures, newest first.
func (db *DB) SourceErrors(ctx context.Context, limit int) ([]crawl.SourceError, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := db.r.QueryContext(ctx, `SELECT at, kind, source, url, error, urls FROM source_errors
		ORDER BY at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: source errors: %w", err)
	}
	defer rows.Close()
	var out []crawl.SourceError
	for rows.Next() {
		var e crawl.SourceError
		var at int64
		if err := rows.Scan(&at, &e.Kind, &e.Source, &e.URL, &e.Error, &e.URLs); err != nil {
			return nil, fmt.Errorf("sqlite: source errors: %w", err)
		}
		e.At = fromMS(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: source errors: %w", err)
	}
	return out, nil
}
