package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/keyset"
)

// URL returns the record of one URL. It reads urls, then the runs, in
// one read transaction: a URL that a claim moves from its run to urls in
// between is in one of them.
func (db *DB) URL(ctx context.Context, id crawl.ID) (crawl.URLRecord, error) {
	var u crawl.URLRecord
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return u, fmt.Errorf("sqlite: url %d: %w", id, err)
	}
	defer tx.Rollback()
	var via any
	var disc, fetched, retry, lastmod int64
	var errText sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT u.id, `+fullURLSQL+`, u.host_id, u.depth, u.priority, u.state,
		u.attempts, u.via, u.parent_id, u.discovered_at, u.fetched_at, u.retry_at, u.error, u.kind, u.lastmod, u.changefreq,
		u.inlinks FROM urls u LEFT JOIN hosts h ON h.id = u.host_id WHERE u.id = ?`, id).Scan(
		&u.ID, &u.URL, &u.HostID, &u.Depth, &u.Priority, &u.State, &u.Attempts, &via, &u.Parent,
		&disc, &fetched, &retry, &errText, &u.Kind, &lastmod, &u.ChangeFreq, &u.Inlinks)
	if errors.Is(err, sql.ErrNoRows) {
		p, ok, err := packedURL(ctx, tx, id)
		switch {
		case err != nil:
			return u, fmt.Errorf("sqlite: url %d: %w", id, err)
		case !ok:
			return u, fmt.Errorf("sqlite: url %d: %w", id, crawl.ErrNotFound)
		}
		return p, nil
	}
	if err != nil {
		return u, fmt.Errorf("sqlite: url %d: %w", id, err)
	}
	if u.Via, err = viaOf(via); err != nil {
		return u, fmt.Errorf("sqlite: url %d: %w", id, err)
	}
	u.DiscoveredAt, u.FetchedAt, u.RetryAt, u.LastMod = fromMS(disc), fromMS(fetched), fromMS(retry), fromMS(lastmod)
	u.Error = errText.String
	return u, nil
}

// pageCols are the pages table's columns, in the order pageArgs and
// scanPage use.
var pageCols = []string{"url_id", "url", "status", "content_type", "charset", "title", "text", "lang", "content_hash",
	"duplicate_of", "canonical", "redirect_to", "noindex", "nofollow", "bytes", "wire_bytes", "etag", "last_modified",
	"fetched_at", "duration_ms", "error", "blocked", "error_kind", "main_text", "doc_type", "type_rule", "doi", "year",
	"metadata", "simhash", "band0", "band1", "band2", "band3", "near_duplicate_of", "warc_file", "warc_offset", "warc_length",
	"host", "gone", "checked_at", "next_check_at"}

var (
	pageColumns = strings.Join(pageCols, ", ")
	pageUpsert  = upsertPage(pageCols)
	// pageUpsertScheduled also writes a revisit's schedule: pageArgs, then
	// interval_ms and misses.
	pageUpsertScheduled = upsertPage(append(slices.Clip(pageCols), "interval_ms", "misses"))
)

// upsertPage is the statement that records a page's columns cols (the
// first is url_id), replacing the row of a page recorded before.
func upsertPage(cols []string) string {
	var set []string
	for _, c := range cols[1:] {
		set = append(set, c+" = excluded."+c)
	}
	return `INSERT INTO pages (` + strings.Join(cols, ", ") + `) VALUES (` + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") +
		`) ON CONFLICT (url_id) DO UPDATE SET ` + strings.Join(set, ", ")
}

// pageArgs are a page's values for pageUpsert; prepared is its result's
// preparation (crawl.Result.Prepared), if any.
func pageArgs(p *crawl.Page, prepared any) ([]any, error) {
	var hash any
	if len(p.ContentHash) > 0 {
		hash = p.ContentHash
	}
	var meta, docType, rule, doi string
	year := 0
	if p.Meta != nil {
		b, err := json.Marshal(p.Meta)
		if err != nil {
			return nil, err
		}
		meta, docType, rule, doi, year = string(b), p.Meta.Type, p.Meta.TypeRule, p.Meta.DOI, p.Meta.Year
	}
	var b [4]int64
	if p.SimHash != 0 {
		b = bands(p.SimHash)
	}
	text, mainText := storedTexts(p, prepared)
	return []any{p.ID, p.URL, p.Status, p.ContentType, p.Charset, p.Title, text, p.Lang, hash,
		p.DuplicateOf, p.Canonical, p.RedirectTo, b2i(p.NoIndex), b2i(p.NoFollow), p.Bytes, p.WireBytes, p.ETag,
		p.LastModified, ms(p.FetchedAt), p.Duration.Milliseconds(), p.Error, b2i(p.Blocked), p.ErrorKind,
		mainText, docType, rule, doi, year, meta, int64(p.SimHash), b[0], b[1], b[2], b[3], p.NearDuplicateOf,
		p.WARC.File, p.WARC.Offset, p.WARC.Length, crawl.HostKey(p.URL), p.Gone, ms(p.CheckedAt), ms(p.NextCheckAt)}, nil
}

func scanPage(sc interface{ Scan(...any) error }) (*crawl.Page, error) {
	p := &crawl.Page{}
	var fetched, dur, simhash, checked, nextCheck int64
	var noindex, nofollow, blocked, year int
	var docType, rule, doi, meta string
	var b [4]int64
	var text, mainText any
	if err := sc.Scan(&p.ID, &p.URL, &p.Status, &p.ContentType, &p.Charset, &p.Title, &text, &p.Lang,
		&p.ContentHash, &p.DuplicateOf, &p.Canonical, &p.RedirectTo, &noindex, &nofollow, &p.Bytes, &p.WireBytes,
		&p.ETag, &p.LastModified, &fetched, &dur, &p.Error, &blocked, &p.ErrorKind,
		&mainText, &docType, &rule, &doi, &year, &meta, &simhash, &b[0], &b[1], &b[2], &b[3], &p.NearDuplicateOf,
		&p.WARC.File, &p.WARC.Offset, &p.WARC.Length, new(string), &p.Gone, &checked, &nextCheck); err != nil {
		return nil, err
	}
	var err error
	if p.Text, p.MainText, err = unpackTexts(text, mainText); err != nil {
		return nil, fmt.Errorf("page %d: %w", p.ID, err)
	}
	p.NoIndex, p.NoFollow, p.Blocked = noindex != 0, nofollow != 0, blocked != 0
	p.FetchedAt = fromMS(fetched)
	p.Duration = time.Duration(dur) * time.Millisecond
	p.SimHash = uint64(simhash)
	p.CheckedAt, p.NextCheckAt = fromMS(checked), fromMS(nextCheck)
	if meta != "" {
		p.Meta = &crawl.Metadata{}
		if err := json.Unmarshal([]byte(meta), p.Meta); err != nil {
			return nil, fmt.Errorf("metadata of %s: %w", p.URL, err)
		}
	}
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

// Pages streams every page in URL ID order, in pages of rows so that no
// read transaction stays open for the whole iteration.
func (db *DB) Pages(ctx context.Context) iter.Seq2[*crawl.Page, error] {
	return keyset.Stream(ctx, 500, int64(math.MinInt64), func(ctx context.Context, op string, after int64, batch int) ([]*crawl.Page, error) {
		rows, err := db.r.QueryContext(ctx, `SELECT `+pageColumns+` FROM pages WHERE url_id `+op+` ? ORDER BY url_id LIMIT ?`, after, batch)
		if err != nil {
			return nil, fmt.Errorf("sqlite: pages: %w", err)
		}
		defer rows.Close()
		var got []*crawl.Page
		for rows.Next() {
			p, err := scanPage(rows)
			if err != nil {
				return nil, fmt.Errorf("sqlite: pages: %w", err)
			}
			got = append(got, p)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: pages: %w", err)
		}
		return got, nil
	}, func(p *crawl.Page) int64 { return int64(p.ID) })
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
	// The stage is only appended to and emptied whole: its largest rowid
	// is its size.
	if err := db.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM hosts), (SELECT coalesce(max(rowid), 0) FROM offers)`).Scan(&c.Hosts, &c.Staged); err != nil {
		return c, fmt.Errorf("sqlite: counters: %w", err)
	}
	return c, nil
}
