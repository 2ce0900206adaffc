package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
)

// RecordMetrics appends one interval's figures.
func (db *DB) RecordMetrics(ctx context.Context, m crawl.Metrics) error {
	if db.readOnly {
		return fmt.Errorf("postgres: record metrics: store is open read-only")
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO metrics (at, owner, interval_ms, fetched, useful, duplicates, blocked,
			errors, discovered, new, known, bytes, frontier, reserved, total_bytes)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		ms(m.At), clean(m.Owner), m.Interval.Milliseconds(), m.Fetched, m.Useful, m.Duplicates, m.Blocked, m.Errors,
		m.Discovered, m.New, m.Known, m.Bytes, m.Frontier, m.Reserved, m.TotalBytes)
	if err != nil {
		return fmt.Errorf("postgres: record metrics: %w", err)
	}
	return nil
}

// Metrics returns the recorded intervals since a time, oldest first (then
// by owner).
func (db *DB) Metrics(ctx context.Context, since time.Time) ([]crawl.Metrics, error) {
	rows, err := db.pool.Query(ctx, `SELECT at, owner, interval_ms, fetched, useful, duplicates, blocked, errors,
			discovered, new, known, bytes, frontier, reserved, total_bytes
		FROM metrics WHERE at >= $1 ORDER BY at, owner COLLATE "C"`, ms(since))
	if err != nil {
		return nil, fmt.Errorf("postgres: metrics: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (crawl.Metrics, error) {
		var m crawl.Metrics
		var at, iv int64
		err := row.Scan(&at, &m.Owner, &iv, &m.Fetched, &m.Useful, &m.Duplicates, &m.Blocked, &m.Errors,
			&m.Discovered, &m.New, &m.Known, &m.Bytes, &m.Frontier, &m.Reserved, &m.TotalBytes)
		m.At, m.Interval = fromMS(at), time.Duration(iv)*time.Millisecond
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: metrics: %w", err)
	}
	return out, nil
}

// HostStats returns per-host outcomes, most fetched first (then by key in
// byte order, as the SQLite store sorts), at most limit hosts (0: all), in
// one query.
func (db *DB) HostStats(ctx context.Context, limit int) ([]crawl.HostStats, error) {
	var lim *int64
	if limit > 0 {
		n := int64(limit)
		lim = &n
	}
	rows, err := db.pool.Query(ctx, `SELECT h.id, h.key, h.admitted, h.queued, h.fetched, h.bytes,
			h.s2xx, h.s3xx, h.s4xx, h.s5xx, h.duplicates, h.blocked, h.discovered, h.trap, h.robots,
			h.value, h.value_pages, h.value_research, h.value_related, h.value_copies,
			coalesce((SELECT o.key FROM hosts o WHERE o.id = h.mirror_of AND h.mirror_of <> 0), ''), e.kinds, e.counts
		FROM (SELECT id, key, admitted, queued, fetched, bytes, s2xx, s3xx, s4xx, s5xx, duplicates, blocked,
				discovered, trap, coalesce(robots_status, 0) AS robots, value, value_pages, value_research, value_related, value_copies,
				mirror_of
			FROM hosts ORDER BY fetched DESC, key COLLATE "C" LIMIT $1) h
		LEFT JOIN LATERAL (SELECT array_agg(kind) AS kinds, array_agg(count) AS counts
			FROM host_errors WHERE host_id = h.id) e ON true
		ORDER BY h.fetched DESC, h.key COLLATE "C"`, lim)
	if err != nil {
		return nil, fmt.Errorf("postgres: host stats: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (crawl.HostStats, error) {
		var h crawl.HostStats
		var robots, value, pages, research, related, copies int32
		var kinds []string
		var counts []int64
		if err := row.Scan(&h.ID, &h.Key, &h.Admitted, &h.Queued, &h.Fetched, &h.Bytes, &h.Status[2], &h.Status[3],
			&h.Status[4], &h.Status[5], &h.Duplicates, &h.Blocked, &h.Discovered, &h.Trap, &robots,
			&value, &pages, &research, &related, &copies, &h.MirrorOf, &kinds, &counts); err != nil {
			return h, err
		}
		h.Robots = int(robots)
		h.Value, h.ValuePages, h.ValueResearch, h.ValueRelated, h.ValueCopies = int(value), int64(pages), int64(research), int64(related), int64(copies)
		if len(kinds) > 0 && len(kinds) == len(counts) {
			h.Errors = make(map[string]int64, len(kinds))
			for i, k := range kinds {
				h.Errors[k] = counts[i]
			}
		}
		return h, nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: host stats: %w", err)
	}
	return out, nil
}

// RecordSourceError records the failure of a source of URLs.
func (db *DB) RecordSourceError(ctx context.Context, e crawl.SourceError) error {
	if db.readOnly {
		return fmt.Errorf("postgres: record source error: store is open read-only")
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO source_errors (at, kind, source, url, error, urls) VALUES ($1, $2, $3, $4, $5, $6)`,
		ms(e.At), clean(e.Kind), clean(e.Source), clean(e.URL), clean(e.Error), e.URLs)
	if err != nil {
		return fmt.Errorf("postgres: record source error: %w", err)
	}
	return nil
}

// SourceErrors returns the most recent source failures, newest first.
func (db *DB) SourceErrors(ctx context.Context, limit int) ([]crawl.SourceError, error) {
	var lim any // NULL: no limit
	if limit > 0 {
		lim = limit
	}
	rows, err := db.pool.Query(ctx, `SELECT at, kind, source, url, error, urls FROM source_errors
		ORDER BY at DESC, id DESC LIMIT $1`, lim)
	if err != nil {
		return nil, fmt.Errorf("postgres: source errors: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (crawl.SourceError, error) {
		var e crawl.SourceError
		var at int64
		err := row.Scan(&at, &e.Kind, &e.Source, &e.URL, &e.Error, &e.URLs)
		e.At = fromMS(at)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: source errors: %w", err)
	}
	return out, nil
}
