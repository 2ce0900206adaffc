package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/acrawler/acrawler/internal/crawl"
)

// outcome is what a result does to its URL row.
type outcome struct {
	state     crawl.State
	retryAt   int64
	fetchedAt int64
	unattempt int32
}

func outcomeOf(r *crawl.Result, now time.Time) (outcome, error) {
	switch r.Outcome {
	case crawl.OutcomeDone:
		if r.Page == nil {
			return outcome{}, errors.New("done result without a page")
		}
		o := outcome{state: crawl.StateDone, fetchedAt: ms(r.Page.FetchedAt)}
		if o.fetchedAt == 0 {
			o.fetchedAt = now.UnixMilli()
		}
		return o, nil
	case crawl.OutcomeRetry:
		return outcome{state: crawl.StateQueued, retryAt: ms(r.RetryAt)}, nil
	case crawl.OutcomeFailed:
		return outcome{state: crawl.StateFailed, fetchedAt: now.UnixMilli()}, nil
	case crawl.OutcomeDisallowed:
		return outcome{state: crawl.StateDisallowed}, nil
	case crawl.OutcomeSkipped:
		return outcome{state: crawl.StateSkipped}, nil
	case crawl.OutcomeRelease:
		return outcome{state: crawl.StateQueued, unattempt: 1}, nil
	}
	return outcome{}, fmt.Errorf("unknown outcome %d", r.Outcome)
}

// Commit records a batch of fetch results in one transaction of three
// round trips: lock the hosts involved and move the URLs out of flight;
// record hashes, links and discovered URLs; record pages, host state and
// counters, and commit.
func (db *DB) Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error) {
	if len(results) == 0 {
		return crawl.CommitStats{}, nil
	}
	now := time.Now()
	outs := make([]outcome, len(results))
	for i := range results {
		o, err := outcomeOf(&results[i], now)
		if err != nil {
			return crawl.CommitStats{}, fmt.Errorf("postgres: commit: %s: %w", results[i].URL.URL, err)
		}
		outs[i] = o
	}
	var st crawl.CommitStats
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		c := &committer{t: t, results: results, outs: outs, lim: lim, now: now}
		if err := c.run(ctx); err != nil {
			return err
		}
		st = c.st
		return nil
	})
	if err != nil {
		return crawl.CommitStats{}, fmt.Errorf("postgres: commit: %w", err)
	}
	return st, nil
}

type committer struct {
	t       *txn
	results []crawl.Result
	outs    []outcome
	lim     crawl.Limits
	now     time.Time

	live  []bool // per result: its URL was in flight and this result moved it
	pages []*crawl.Page
	first map[string]crawl.ID // content hash → first URL with it
	st    crawl.CommitStats
}

func (c *committer) run(ctx context.Context) error {
	t := c.t
	a := newAdmission(c.lim)
	for i := range c.results {
		a.prepare(c.results[i].Discovered)
	}
	// Step 1: lock every host involved in ID order, then move each URL (its
	// first result only) out of flight; the ones not in flight are stale.
	hostIDs := make([]crawl.ID, len(c.results))
	seen := make(map[crawl.ID]bool, len(c.results))
	var ids []int64
	var states []int16
	var retryAt, fetchedAt []int64
	var errs []*string
	var unattempt []int32
	firstOf := make([]bool, len(c.results))
	for i := range c.results {
		r := &c.results[i]
		hostIDs[i] = r.URL.HostID
		if seen[r.URL.ID] {
			continue
		}
		seen[r.URL.ID] = true
		firstOf[i] = true
		o := c.outs[i]
		ids = append(ids, int64(r.URL.ID))
		states = append(states, int16(o.state))
		retryAt = append(retryAt, o.retryAt)
		fetchedAt = append(fetchedAt, o.fetchedAt)
		errs = append(errs, nullText(r.Error))
		unattempt = append(unattempt, o.unattempt)
	}
	moved := make(map[crawl.ID]bool, len(ids))
	b := t.batch()
	a.queueLock(b, hostIDs)
	b.Queue(`UPDATE urls u SET state = v.state, retry_at = v.retry_at, fetched_at = v.fetched_at, error = v.error,
			attempts = u.attempts - v.unattempt
		FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::bigint[], $5::text[], $6::int[])
			AS v(id, state, retry_at, fetched_at, error, unattempt)
		WHERE u.id = v.id AND u.state = 1
		RETURNING u.id`, ids, states, retryAt, fetchedAt, errs, unattempt).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			moved[id] = true
		}
		return nil
	})
	if err := t.send(ctx, b); err != nil {
		return err
	}

	// Decide everything the live results do, in order.
	hosts := map[crawl.ID]*hostDelta{}
	d := &t.delta
	c.live = make([]bool, len(c.results))
	var linkSrc, linkDst []int64
	var linkTarget, linkAnchor []string
	var linkNoFollow []bool
	for i := range c.results {
		r := &c.results[i]
		if !firstOf[i] || !moved[r.URL.ID] {
			// Not in flight any more: the lease was lost and the URL went
			// back to the queue (or to another process). Its result is not
			// ours to record.
			c.st.Stale++
			continue
		}
		c.live[i] = true
		d.inflight--
		h := hostOf(hosts, r.URL.HostID)
		switch c.outs[i].state {
		case crawl.StateQueued:
			h.queued++
			d.queued++
			d.reserved--
		case crawl.StateDone:
			d.done++
		case crawl.StateFailed:
			d.failed++
		case crawl.StateDisallowed:
			d.disallowed++
			d.reserved--
		case crawl.StateSkipped:
			d.skipped++
			d.reserved--
		}
		if p := r.Page; p != nil && r.Outcome == crawl.OutcomeDone {
			p.ID = r.URL.ID
			p.DuplicateOf = 0
			c.pages = append(c.pages, p)
			n := p.WireBytes
			if n == 0 {
				n = p.Bytes
			}
			h.fetched++
			h.bytes += n
			d.bytes += n
		}
		for _, l := range r.Links {
			linkSrc = append(linkSrc, int64(r.URL.ID))
			linkDst = append(linkDst, int64(l.TargetID))
			linkTarget = append(linkTarget, clean(l.Target))
			linkAnchor = append(linkAnchor, clean(l.Anchor))
			linkNoFollow = append(linkNoFollow, l.NoFollow)
		}
		if len(r.Discovered) > 0 {
			a.offer(r.Discovered)
		}
		if u := r.Host; !u.NextFetchAt.IsZero() {
			h.polite = true
			h.next = max(h.next, ms(u.NextFetchAt))
			h.delay = u.Delay.Milliseconds()
			h.backoff = int32(u.Backoff)
		}
	}

	// Step 2: content hashes, links and discovered URLs.
	b = t.batch()
	c.queueHashes(b)
	if len(linkSrc) > 0 {
		b.Queue(`INSERT INTO links (source_id, target_id, target, anchor, nofollow)
			SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bool[])
			ON CONFLICT (source_id, target_id) DO NOTHING`,
			linkSrc, linkDst, linkTarget, linkAnchor, linkNoFollow).Exec(func(ct pgconn.CommandTag) error {
			d.links += ct.RowsAffected()
			return nil
		})
	}
	a.queueInsert(b, c.now)
	if err := t.send(ctx, b); err != nil {
		return err
	}
	a.finish(hosts, d)
	c.st.Add = a.st

	// Step 3: pages, hosts, counters.
	b = t.batch()
	c.queuePages(b)
	queueHostDeltas(b, hosts)
	return t.commit(ctx, b)
}

// queueHashes records the content hashes of the pages, keeping the first
// URL seen with each (in batch order, sorted by hash so that concurrent
// commits wait for each other in one order), and reads back the first URL
// of every hash.
func (c *committer) queueHashes(b *pgx.Batch) {
	var hashes [][]byte
	var urls []int64
	for _, p := range c.pages {
		if len(p.ContentHash) > 0 {
			hashes = append(hashes, p.ContentHash)
			urls = append(urls, int64(p.ID))
		}
	}
	if len(hashes) == 0 {
		return
	}
	b.Queue(`INSERT INTO content_hashes (hash, url_id)
		SELECT DISTINCT ON (hash) hash, url_id FROM unnest($1::bytea[], $2::bigint[]) WITH ORDINALITY AS t(hash, url_id, ord)
		ORDER BY hash, ord
		ON CONFLICT (hash) DO NOTHING`, hashes, urls)
	c.first = make(map[string]crawl.ID, len(hashes))
	b.Queue(`SELECT hash, url_id FROM content_hashes WHERE hash = ANY($1)`, hashes).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var h []byte
			var id crawl.ID
			if err := rows.Scan(&h, &id); err != nil {
				return err
			}
			c.first[string(h)] = id
		}
		return nil
	})
}

// queuePages upserts the pages, marking duplicates of content first seen
// on another URL.
func (c *committer) queuePages(b *pgx.Batch) {
	n := len(c.pages)
	if n == 0 {
		return
	}
	d := &c.t.delta
	ids, dups, bytes, wire, fetched, dur := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	status := make([]int32, n)
	urls, ctype, charset, title, text, lang := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	canonical, redirect, etag, lastMod, errText := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	hashes := make([][]byte, n)
	noindex, nofollow := make([]bool, n), make([]bool, n)
	for i, p := range c.pages {
		if len(p.ContentHash) > 0 {
			hashes[i] = p.ContentHash
			if first, ok := c.first[string(p.ContentHash)]; ok && first != p.ID {
				p.DuplicateOf = first
				c.st.Duplicates++
				d.duplicates++
			}
		}
		ids[i], dups[i], bytes[i], wire[i] = int64(p.ID), int64(p.DuplicateOf), p.Bytes, p.WireBytes
		fetched[i], dur[i], status[i] = ms(p.FetchedAt), p.Duration.Milliseconds(), int32(p.Status)
		urls[i], ctype[i], charset[i], title[i] = clean(p.URL), clean(p.ContentType), clean(p.Charset), clean(p.Title)
		text[i], lang[i], canonical[i], redirect[i] = clean(p.Text), clean(p.Lang), clean(p.Canonical), clean(p.RedirectTo)
		etag[i], lastMod[i], errText[i] = clean(p.ETag), clean(p.LastModified), clean(p.Error)
		noindex[i], nofollow[i] = p.NoIndex, p.NoFollow
	}
	b.Queue(`INSERT INTO pages (url_id, url, status, content_type, charset, title, text, lang, content_hash, duplicate_of,
			canonical, redirect_to, noindex, nofollow, bytes, wire_bytes, etag, last_modified, fetched_at, duration_ms, error)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::bytea[], $10::bigint[], $11::text[], $12::text[], $13::bool[], $14::bool[], $15::bigint[], $16::bigint[],
			$17::text[], $18::text[], $19::bigint[], $20::bigint[], $21::text[])
		ON CONFLICT (url_id) DO UPDATE SET url = excluded.url, status = excluded.status,
			content_type = excluded.content_type, charset = excluded.charset, title = excluded.title,
			text = excluded.text, lang = excluded.lang, content_hash = excluded.content_hash,
			duplicate_of = excluded.duplicate_of, canonical = excluded.canonical, redirect_to = excluded.redirect_to,
			noindex = excluded.noindex, nofollow = excluded.nofollow, bytes = excluded.bytes,
			wire_bytes = excluded.wire_bytes, etag = excluded.etag, last_modified = excluded.last_modified,
			fetched_at = excluded.fetched_at, duration_ms = excluded.duration_ms, error = excluded.error`,
		ids, urls, status, ctype, charset, title, text, lang, hashes, dups,
		canonical, redirect, noindex, nofollow, bytes, wire, etag, lastMod, fetched, dur, errText)
	c.st.Pages += n
	d.pages += int64(n)
}

// SaveRobots caches a host's robots.txt outcome.
func (db *DB) SaveRobots(ctx context.Context, host crawl.ID, rec crawl.RobotsRecord, upd crawl.HostUpdate) error {
	if db.readOnly {
		return fmt.Errorf("postgres: save robots.txt of host %d: store is open read-only", host)
	}
	var status *int32
	if rec.Status != 0 || !rec.FetchedAt.IsZero() {
		s := int32(rec.Status)
		status = &s
	}
	_, err := db.pool.Exec(ctx, `UPDATE hosts SET robots_status = $1, robots_body = $2, robots_fetched_at = $3,
			robots_expires_at = $4, robots_failures = $5,
			next_fetch_at = CASE WHEN $6::bigint > 0 THEN greatest(next_fetch_at, $6) ELSE next_fetch_at END,
			delay_ms = CASE WHEN $7::bigint > 0 THEN $7 ELSE delay_ms END
		WHERE id = $8`,
		status, rec.Body, ms(rec.FetchedAt), ms(rec.ExpiresAt), int32(rec.Failures),
		ms(upd.NextFetchAt), upd.Delay.Milliseconds(), int64(host))
	if err != nil {
		return fmt.Errorf("postgres: save robots.txt of host %d: %w", host, err)
	}
	return nil
}
