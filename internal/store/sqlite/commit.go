package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Commit records a batch of fetch results in one transaction.
func (db *DB) Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error) {
	var st crawl.CommitStats
	err := db.tx(ctx, func(t *txn) error {
		c, err := t.prepareCommit(ctx)
		if err != nil {
			return err
		}
		defer c.close()
		now := time.Now()
		for i := range results {
			if err := c.result(ctx, &results[i], lim, now, &st); err != nil {
				return fmt.Errorf("%s: %w", results[i].URL.URL, err)
			}
		}
		return nil
	})
	if err != nil {
		return crawl.CommitStats{}, fmt.Errorf("sqlite: commit: %w", err)
	}
	return st, nil
}

type committer struct {
	t                                    *txn
	state, page, hashIns, hashGet, links *sql.Stmt
	linksN                               *sql.Stmt // linkRows rows at once
	args                                 []any
}

// linkRows is how many links one multi-row insert writes.
const linkRows = 32

func linksInsert(rows int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO links (source_id, target_id, target, anchor, nofollow) VALUES `)
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?)")
	}
	b.WriteString(` ON CONFLICT (source_id, target_id) DO NOTHING`)
	return b.String()
}

// insertLinks records a page's outlinks, many rows per statement.
func (c *committer) insertLinks(ctx context.Context, source crawl.ID, links []crawl.Link) error {
	for len(links) > 0 {
		stmt, n := c.links, 1
		if len(links) >= linkRows {
			stmt, n = c.linksN, linkRows
		}
		c.args = c.args[:0]
		for _, l := range links[:n] {
			c.args = append(c.args, source, l.TargetID, l.Target, l.Anchor, b2i(l.NoFollow))
		}
		res, err := stmt.ExecContext(ctx, c.args...)
		if err != nil {
			return err
		}
		added, _ := res.RowsAffected()
		c.t.add("links", added)
		links = links[n:]
	}
	return nil
}

func (t *txn) prepareCommit(ctx context.Context) (*committer, error) {
	c := &committer{t: t}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = t.tx.PrepareContext(ctx, q)
		return s
	}
	c.state = prep(`UPDATE urls SET state = ?, retry_at = ?, fetched_at = ?, error = ?, attempts = attempts - ? WHERE id = ? AND state = 1`)
	c.page = prep(`INSERT INTO pages (url_id, url, status, content_type, charset, title, text, lang, content_hash, duplicate_of,
			canonical, redirect_to, noindex, nofollow, bytes, wire_bytes, etag, last_modified, fetched_at, duration_ms, error)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (url_id) DO UPDATE SET url = excluded.url, status = excluded.status, content_type = excluded.content_type,
			charset = excluded.charset, title = excluded.title, text = excluded.text, lang = excluded.lang,
			content_hash = excluded.content_hash, duplicate_of = excluded.duplicate_of, canonical = excluded.canonical,
			redirect_to = excluded.redirect_to, noindex = excluded.noindex, nofollow = excluded.nofollow,
			bytes = excluded.bytes, wire_bytes = excluded.wire_bytes, etag = excluded.etag,
			last_modified = excluded.last_modified, fetched_at = excluded.fetched_at,
			duration_ms = excluded.duration_ms, error = excluded.error`)
	c.hashIns = prep(`INSERT INTO content_hashes (hash, url_id) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING`)
	c.hashGet = prep(`SELECT url_id FROM content_hashes WHERE hash = ?`)
	c.links = prep(linksInsert(1))
	c.linksN = prep(linksInsert(linkRows))
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *committer) close() {
	for _, s := range []*sql.Stmt{c.state, c.page, c.hashIns, c.hashGet, c.links, c.linksN} {
		if s != nil {
			s.Close()
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c *committer) result(ctx context.Context, r *crawl.Result, lim crawl.Limits, now time.Time, st *crawl.CommitStats) error {
	t := c.t
	var state crawl.State
	var retryAt, fetchedAt int64
	var unattempt int
	switch r.Outcome {
	case crawl.OutcomeDone:
		state = crawl.StateDone
		if r.Page == nil {
			return errors.New("done result without a page")
		}
		fetchedAt = ms(r.Page.FetchedAt)
		if fetchedAt == 0 {
			fetchedAt = now.UnixMilli()
		}
	case crawl.OutcomeRetry:
		state, retryAt = crawl.StateQueued, ms(r.RetryAt)
	case crawl.OutcomeFailed:
		state, fetchedAt = crawl.StateFailed, now.UnixMilli()
	case crawl.OutcomeDisallowed:
		state = crawl.StateDisallowed
	case crawl.OutcomeSkipped:
		state = crawl.StateSkipped
	case crawl.OutcomeRelease:
		state, unattempt = crawl.StateQueued, 1
	default:
		return fmt.Errorf("unknown outcome %d", r.Outcome)
	}
	var errText any
	if r.Error != "" {
		errText = r.Error
	}
	res, err := c.state.ExecContext(ctx, state, retryAt, fetchedAt, errText, unattempt, r.URL.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// Not in flight any more: the lease was lost and the URL went back to
		// the queue (or to another process). Its result is not ours to record.
		st.Stale++
		return nil
	}
	t.add("inflight", -1)
	hostFetched, hostBytes, hostQueued := int64(0), int64(0), int64(0)
	switch state {
	case crawl.StateQueued:
		hostQueued = 1
		t.add("queued", 1)
		t.add("reserved", -1)
	case crawl.StateDone:
		t.add("done", 1)
	case crawl.StateFailed:
		t.add("failed", 1)
	case crawl.StateDisallowed:
		t.add("disallowed", 1)
		t.add("reserved", -1)
	case crawl.StateSkipped:
		t.add("skipped", 1)
		t.add("reserved", -1)
	}
	if p := r.Page; p != nil && r.Outcome == crawl.OutcomeDone {
		p.ID = r.URL.ID
		if err := c.savePage(ctx, p, st); err != nil {
			return err
		}
		hostFetched = 1
		hostBytes = p.WireBytes
		if hostBytes == 0 {
			hostBytes = p.Bytes
		}
		t.add("bytes", hostBytes)
	} else if r.Outcome == crawl.OutcomeFailed || r.Outcome == crawl.OutcomeRetry {
		hostFetched = 0
	}
	if err := c.insertLinks(ctx, r.URL.ID, r.Links); err != nil {
		return err
	}
	if len(r.Discovered) > 0 {
		as, err := t.addURLs(ctx, r.Discovered, lim, now)
		if err != nil {
			return err
		}
		st.Add.Offered += as.Offered
		st.Add.Added += as.Added
		st.Add.Known += as.Known
		st.Add.OverDepth += as.OverDepth
		st.Add.OverHostCap += as.OverHostCap
		st.Add.Hosts = mergeIDs(st.Add.Hosts, as.Hosts)
		st.Add.CappedHosts = mergeIDs(st.Add.CappedHosts, as.CappedHosts)
	}
	h := r.Host
	if !h.NextFetchAt.IsZero() {
		_, err = t.tx.ExecContext(ctx, `UPDATE hosts SET next_fetch_at = max(next_fetch_at, ?), delay_ms = ?, backoff = ?,
			fetched = fetched + ?, bytes = bytes + ?, queued = queued + ? WHERE id = ?`,
			ms(h.NextFetchAt), h.Delay.Milliseconds(), h.Backoff, hostFetched, hostBytes, hostQueued, r.URL.HostID)
	} else if hostFetched != 0 || hostQueued != 0 {
		_, err = t.tx.ExecContext(ctx, `UPDATE hosts SET fetched = fetched + ?, bytes = bytes + ?, queued = queued + ? WHERE id = ?`,
			hostFetched, hostBytes, hostQueued, r.URL.HostID)
	}
	return err
}

func (c *committer) savePage(ctx context.Context, p *crawl.Page, st *crawl.CommitStats) error {
	t := c.t
	p.DuplicateOf = 0
	if len(p.ContentHash) > 0 {
		res, err := c.hashIns.ExecContext(ctx, p.ContentHash, p.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var first crawl.ID
			if err := c.hashGet.QueryRowContext(ctx, p.ContentHash).Scan(&first); err != nil {
				return err
			}
			if first != p.ID {
				p.DuplicateOf = first
				st.Duplicates++
				t.add("duplicates", 1)
			}
		}
	}
	var hash any
	if len(p.ContentHash) > 0 {
		hash = p.ContentHash
	}
	_, err := c.page.ExecContext(ctx, p.ID, p.URL, p.Status, p.ContentType, p.Charset, p.Title, p.Text, p.Lang, hash,
		p.DuplicateOf, p.Canonical, p.RedirectTo, b2i(p.NoIndex), b2i(p.NoFollow), p.Bytes, p.WireBytes, p.ETag,
		p.LastModified, ms(p.FetchedAt), p.Duration.Milliseconds(), p.Error)
	if err != nil {
		return err
	}
	st.Pages++
	t.add("pages", 1)
	return nil
}

func mergeIDs(a, b []crawl.ID) []crawl.ID {
	if len(b) == 0 {
		return a
	}
	seen := make(map[crawl.ID]bool, len(a))
	for _, id := range a {
		seen[id] = true
	}
	for _, id := range b {
		if !seen[id] {
			a = append(a, id)
			seen[id] = true
		}
	}
	return a
}

// SaveRobots caches a host's robots.txt outcome.
func (db *DB) SaveRobots(ctx context.Context, host crawl.ID, rec crawl.RobotsRecord, upd crawl.HostUpdate) error {
	err := db.tx(ctx, func(t *txn) error {
		var status any
		if rec.Status != 0 || !rec.FetchedAt.IsZero() {
			status = rec.Status
		}
		_, err := t.tx.ExecContext(ctx, `UPDATE hosts SET robots_status = ?, robots_body = ?, robots_fetched_at = ?,
			robots_expires_at = ?, robots_failures = ?,
			next_fetch_at = CASE WHEN ? > 0 THEN max(next_fetch_at, ?) ELSE next_fetch_at END,
			delay_ms = CASE WHEN ? > 0 THEN ? ELSE delay_ms END WHERE id = ?`,
			status, rec.Body, ms(rec.FetchedAt), ms(rec.ExpiresAt), rec.Failures,
			ms(upd.NextFetchAt), ms(upd.NextFetchAt), upd.Delay.Milliseconds(), upd.Delay.Milliseconds(), host)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: save robots.txt of host %d: %w", host, err)
	}
	return nil
}
