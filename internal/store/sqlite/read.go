package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// URL returns the record of one URL.
func (db *DB) URL(ctx context.Context, id crawl.ID) (crawl.URLRecord, error) {
	var u crawl.URLRecord
	var via string
	var disc, fetched, retry int64
	var errText sql.NullString
	err := db.r.QueryRowContext(ctx, `SELECT id, url, host_id, depth, priority, state, attempts, via, parent_id,
		discovered_at, fetched_at, retry_at, error FROM urls WHERE id = ?`, id).Scan(
		&u.ID, &u.URL, &u.HostID, &u.Depth, &u.Priority, &u.State, &u.Attempts, &via, &u.Parent,
		&disc, &fetched, &retry, &errText)
	if errors.Is(err, sql.ErrNoRows) {
		return u, fmt.Errorf("sqlite: url %d: %w", id, crawl.ErrNotFound)
	}
	if err != nil {
		return u, fmt.Errorf("sqlite: url %d: %w", id, err)
	}
	u.Via = crawl.Via(via)
	u.DiscoveredAt, u.FetchedAt, u.RetryAt = fromMS(disc), fromMS(fetched), fromMS(retry)
	u.Error = errText.String
	return u, nil
}

const pageColumns = `url_id, url, status, content_type, charset, title, text, lang, content_hash, duplicate_of,
	canonical, redirect_to, noindex, nofollow, bytes, wire_bytes, etag, last_modified, fetched_at, duration_ms, error`

func scanPage(sc interface{ Scan(...any) error }) (*crawl.Page, error) {
	p := &crawl.Page{}
	var fetched, dur int64
	var noindex, nofollow int
	if err := sc.Scan(&p.ID, &p.URL, &p.Status, &p.ContentType, &p.Charset, &p.Title, &p.Text, &p.Lang,
		&p.ContentHash, &p.DuplicateOf, &p.Canonical, &p.RedirectTo, &noindex, &nofollow, &p.Bytes, &p.WireBytes,
		&p.ETag, &p.LastModified, &fetched, &dur, &p.Error); err != nil {
		return nil, err
	}
	p.NoIndex, p.NoFollow = noindex != 0, nofollow != 0
	p.FetchedAt = fromMS(fetched)
	p.Duration = time.Duration(dur) * time.Millisecond
	return p, nil
}

// Page returns the page recorded for a URL.
func (db *DB) Page(ctx context.Context, id crawl.ID) (*crawl.Page, error) {
	p, err := scanPage(db.r.QueryRowContext(ctx, `SELECT `+pageColumns+` FROM pages WHERE url_id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: page %d: %w", id, crawl.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: page %d: %w", id, err)
	}
	return p, nil
}

// Links returns a page's outlinks.
func (db *DB) Links(ctx context.Context, source crawl.ID) ([]crawl.Link, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT target_id, target, anchor, nofollow FROM links WHERE source_id = ?`, source)
	if err != nil {
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	defer rows.Close()
	var out []crawl.Link
	for rows.Next() {
		var l crawl.Link
		var nf int
		if err := rows.Scan(&l.TargetID, &l.Target, &l.Anchor, &nf); err != nil {
			return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
		}
		l.NoFollow = nf != 0
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	return out, nil
}

// Pages streams every page in URL ID order, in pages of rows so that no
// read transaction stays open for the whole iteration.
func (db *DB) Pages(ctx context.Context) iter.Seq2[*crawl.Page, error] {
	return func(yield func(*crawl.Page, error) bool) {
		const batch = 500
		after := int64(-1 << 63)
		first := true
		for {
			q := `SELECT ` + pageColumns + ` FROM pages WHERE url_id > ? ORDER BY url_id LIMIT ?`
			if first {
				q = `SELECT ` + pageColumns + ` FROM pages WHERE url_id >= ? ORDER BY url_id LIMIT ?`
			}
			rows, err := db.r.QueryContext(ctx, q, after, batch)
			if err != nil {
				yield(nil, fmt.Errorf("sqlite: pages: %w", err))
				return
			}
			var got []*crawl.Page
			for rows.Next() {
				p, err := scanPage(rows)
				if err != nil {
					rows.Close()
					yield(nil, fmt.Errorf("sqlite: pages: %w", err))
					return
				}
				got = append(got, p)
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				yield(nil, fmt.Errorf("sqlite: pages: %w", err))
				return
			}
			for _, p := range got {
				if !yield(p, nil) {
					return
				}
			}
			if len(got) < batch {
				return
			}
			after = int64(got[len(got)-1].ID)
			first = false
		}
	}
}

// Counters returns the crawl-wide counters.
func (db *DB) Counters(ctx context.Context) (crawl.Counters, error) {
	var c crawl.Counters
	rows, err := db.r.QueryContext(ctx, `SELECT name, value FROM counters`)
	if err != nil {
		return c, fmt.Errorf("sqlite: counters: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return c, fmt.Errorf("sqlite: counters: %w", err)
		}
		switch name {
		case "queued":
			c.Queued = v
		case "inflight":
			c.InFlight = v
		case "done":
			c.Done = v
		case "failed":
			c.Failed = v
		case "disallowed":
			c.Disallowed = v
		case "skipped":
			c.Skipped = v
		case "reserved":
			c.Reserved = v
		case "bytes":
			c.Bytes = v
		case "pages":
			c.Pages = v
		case "links":
			c.Links = v
		case "duplicates":
			c.Duplicates = v
		}
	}
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("sqlite: counters: %w", err)
	}
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM hosts`).Scan(&c.Hosts); err != nil {
		return c, fmt.Errorf("sqlite: counters: %w", err)
	}
	return c, nil
}
