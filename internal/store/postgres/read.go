package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/keyset"
)

// URL returns the record of one URL.
func (db *DB) URL(ctx context.Context, id crawl.ID) (crawl.URLRecord, error) {
	for again := true; ; again = false {
		u, ok, err := db.urlRow(ctx, id)
		if err == nil && !ok {
			// Not a row: a packed URL, or none, or a packed URL made a
			// row since the row was looked for (read it again).
			u, ok, err = db.packedURL(ctx, id)
			if err == nil && !ok && again {
				continue
			}
		}
		switch {
		case err != nil:
			return crawl.URLRecord{}, fmt.Errorf("postgres: url %d: %w", id, err)
		case !ok:
			return crawl.URLRecord{}, fmt.Errorf("postgres: url %d: %w", id, crawl.ErrNotFound)
		}
		return u, nil
	}
}

// urlRow returns the record of a URL's row, or false if it has none.
func (db *DB) urlRow(ctx context.Context, id crawl.ID) (crawl.URLRecord, bool, error) {
	var u crawl.URLRecord
	var via string
	var state, kind int16
	var depth, prio, attempts, inlinks int32
	var disc, fetched, retry, lastmod int64
	var errText *string
	// The count and the priority with the inbound links staged (inlinks.go).
	err := db.pool.QueryRow(ctx, `SELECT u.id, `+fullURLSQL("u.url", "h.key")+`, u.host_id, u.depth, u.priority + s.raise, u.state,
		u.attempts, u.via, u.parent_id, u.discovered_at, u.fetched_at, u.retry_at, u.error, u.kind, u.lastmod, u.changefreq,
		u.inlinks + s.n
		FROM urls u LEFT JOIN hosts h ON h.id = u.host_id, LATERAL `+stagedInlinks("u.id", "u.inlinks")+` s
		WHERE u.id = $1`, int64(id)).Scan(
		&u.ID, &u.URL, &u.HostID, &depth, &prio, &state, &attempts, &via, &u.Parent,
		&disc, &fetched, &retry, &errText, &kind, &lastmod, &u.ChangeFreq, &inlinks)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, false, nil
	}
	if err != nil {
		return u, false, err
	}
	u.Depth, u.Priority, u.State, u.Attempts = int(depth), int(prio), crawl.State(state), int(attempts)
	u.Via, u.Kind, u.Inlinks = crawl.Via(via), crawl.Kind(kind), int(inlinks)
	u.DiscoveredAt, u.FetchedAt, u.RetryAt, u.LastMod = fromMS(disc), fromMS(fetched), fromMS(retry), fromMS(lastmod)
	if errText != nil {
		u.Error = *errText
	}
	return u, true, nil
}

// pageColumns are the pages columns scanPage reads.
const pageColumns = `url_id, url, status, content_type, charset, title, text, lang, content_hash, duplicate_of,
	canonical, redirect_to, noindex, nofollow, bytes, wire_bytes, etag, last_modified, fetched_at, duration_ms, error,
	blocked, error_kind, main_text, metadata, simhash, near_duplicate_of, warc_file, warc_offset, warc_length, gone,
	checked_at, next_check_at`

func scanPage(sc interface{ Scan(...any) error }) (*crawl.Page, error) {
	p := &crawl.Page{}
	var status int32
	var fetched, dur, simhash, checked, nextCheck int64
	var gone int16
	var meta []byte
	if err := sc.Scan(&p.ID, &p.URL, &status, &p.ContentType, &p.Charset, &p.Title, &p.Text, &p.Lang,
		&p.ContentHash, &p.DuplicateOf, &p.Canonical, &p.RedirectTo, &p.NoIndex, &p.NoFollow, &p.Bytes, &p.WireBytes,
		&p.ETag, &p.LastModified, &fetched, &dur, &p.Error, &p.Blocked, &p.ErrorKind,
		&p.MainText, &meta, &simhash, &p.NearDuplicateOf, &p.WARC.File, &p.WARC.Offset, &p.WARC.Length, &gone,
		&checked, &nextCheck); err != nil {
		return nil, err
	}
	p.Status = int(status)
	p.FetchedAt = fromMS(fetched)
	p.Duration = time.Duration(dur) * time.Millisecond
	p.SimHash = uint64(simhash)
	p.Gone, p.CheckedAt, p.NextCheckAt = crawl.Gone(gone), fromMS(checked), fromMS(nextCheck)
	if meta != nil {
		p.Meta = &crawl.Metadata{}
		if err := json.Unmarshal(meta, p.Meta); err != nil {
			return nil, fmt.Errorf("metadata of %s: %w", p.URL, err)
		}
	}
	return p, nil
}

// Page returns the page recorded for a URL.
func (db *DB) Page(ctx context.Context, id crawl.ID) (*crawl.Page, error) {
	p, err := scanPage(db.pool.QueryRow(ctx, `SELECT `+pageColumns+` FROM pages WHERE url_id = $1`, int64(id)))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: page %d: %w", id, crawl.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: page %d: %w", id, err)
	}
	return p, nil
}

// Links returns a page's outlinks.
func (db *DB) Links(ctx context.Context, source crawl.ID) ([]crawl.Link, error) {
	rows, err := db.pool.Query(ctx, `SELECT target_id, target, anchor, nofollow FROM links WHERE source_id = $1`, int64(source))
	if err != nil {
		return nil, fmt.Errorf("postgres: links of %d: %w", source, err)
	}
	defer rows.Close()
	var out []crawl.Link
	for rows.Next() {
		var l crawl.Link
		if err := rows.Scan(&l.TargetID, &l.Target, &l.Anchor, &l.NoFollow); err != nil {
			return nil, fmt.Errorf("postgres: links of %d: %w", source, err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: links of %d: %w", source, err)
	}
	return out, nil
}

// Pages streams every page in URL ID order, a few hundred rows per query,
// so that no transaction or connection is held while the caller works.
func (db *DB) Pages(ctx context.Context) iter.Seq2[*crawl.Page, error] {
	return keyset.Stream(ctx, 500, int64(math.MinInt64), func(ctx context.Context, op string, after int64, batch int) ([]*crawl.Page, error) {
		rows, err := db.pool.Query(ctx, `SELECT `+pageColumns+` FROM pages WHERE url_id `+op+` $1 ORDER BY url_id LIMIT $2`, after, batch)
		if err != nil {
			return nil, fmt.Errorf("postgres: pages: %w", err)
		}
		got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*crawl.Page, error) { return scanPage(row) })
		if err != nil {
			return nil, fmt.Errorf("postgres: pages: %w", err)
		}
		return got, nil
	}, func(p *crawl.Page) int64 { return int64(p.ID) })
}

// stagedCountSQL is about how many offers are staged (ord's sequence
// counts them since the stage was last empty), 0 when none are.
const stagedCountSQL = `SELECT CASE WHEN EXISTS (SELECT 1 FROM offers)
	THEN greatest((SELECT last_value FROM offers_ord_seq), 1) ELSE 0 END`

// Counters returns the crawl-wide counters.
func (db *DB) Counters(ctx context.Context) (crawl.Counters, error) {
	var c crawl.Counters
	err := db.pool.QueryRow(ctx, `SELECT coalesce(sum(queued), 0)::bigint, coalesce(sum(inflight), 0)::bigint,
		coalesce(sum(done), 0)::bigint, coalesce(sum(failed), 0)::bigint, coalesce(sum(disallowed), 0)::bigint,
		coalesce(sum(skipped), 0)::bigint, coalesce(sum(reserved), 0)::bigint, coalesce(sum(bytes), 0)::bigint,
		coalesce(sum(hosts), 0)::bigint, coalesce(sum(pages), 0)::bigint, coalesce(sum(links), 0)::bigint,
		coalesce(sum(duplicates), 0)::bigint, (`+stagedCountSQL+`) FROM counters`).Scan(&c.Queued, &c.InFlight, &c.Done, &c.Failed,
		&c.Disallowed, &c.Skipped, &c.Reserved, &c.Bytes, &c.Hosts, &c.Pages, &c.Links, &c.Duplicates, &c.Staged)
	if err != nil {
		return crawl.Counters{}, fmt.Errorf("postgres: counters: %w", err)
	}
	return c, nil
}
