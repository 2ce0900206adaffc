package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// Commit records a batch of fetch results in one transaction of four
// round trips: find which results' URLs are in flight and which pages are
// recorded (no lock); record hashes and links and look up recorded
// near-duplicate candidates; record pages (their duplicate marks decided
// in batch order, as on the result's Page), schedules, touches and the
// inbound links of the new pages (staged, see inlinks.go), then lock the
// hosts involved, move the URLs out of flight and look up the known
// discovered URLs; insert the admitted ones, the inbound links to them,
// host outcomes and state and counters, and commit. The host rows, which
// claims, lease renewals and the admissions of other commits wait for,
// are held only through the last two round trips, not through the page
// writes that build the search entries; no row of a link target is
// locked. A commit with discovered URLs first looks at the staged offers
// (StageURLs) and, if any wait, merges them before it runs.
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
	staged := 0
	discovers := false
	for i := range results {
		discovers = discovers || len(results[i].Discovered) > 0
	}
	// A large store's commits stage their discoveries, and the inbound
	// links of targets that are not rows, which may be staged offers.
	finds := db.stagesFinds()
	var size findsSize
	var queued int64
	err := db.admit(ctx, discovers && !finds, func(ctx context.Context, t *txn, look bool) error {
		c := &committer{db: db, t: t, results: results, outs: outs, lim: lim, now: now, look: look, finds: finds, size: &size}
		if err := c.run(ctx); err != nil {
			return err
		}
		st, staged, queued = c.st, c.staged, t.delta.queued
		return nil
	})
	if err != nil {
		return crawl.CommitStats{}, fmt.Errorf("postgres: commit: %w", err)
	}
	db.merger.staged(db, staged)
	db.grown.wrote(db, len(results))
	if finds {
		// The commit is durable: a merge that fails leaves the stage for
		// the next.
		if err := db.mergeFinds(ctx, &size, queued, &st.Add); err != nil {
			db.log.Warn("postgres: staged URLs not merged; the next commit tries again", "db", db.where(), "err", err)
		}
	}
	db.claimed.report(&st.Add)
	return st, nil
}

type committer struct {
	db      *DB
	t       *txn
	results []crawl.Result
	outs    []outcome
	lim     crawl.Limits
	now     time.Time

	live      []bool              // per result: its URL was in flight and this result moved it
	pages     []*crawl.Page       // the pages to write
	revisits  []*crawl.Revisit    // per page: its revisit schedule, if it has one
	pageHosts []crawl.ID          // per page: its host
	reindex   []bool              // per page: its index entry is written again (else kept while indexable)
	gone      []bool              // per page: its revisit found it gone
	newPages  int64               // pages not recorded before
	sched     scheduleRows        // the revisit schedules of the live results
	outIDs    []int64             // pages whose external-index key is decided outside queuePages
	outKeys   []string            // their keys
	touched   []crawl.Touch       // pages a sitemap says changed
	lockPages []int64             // recorded pages the transaction writes, to lock in ID order
	first     map[string]crawl.ID // content hash → first URL with it
	hosts     map[crawl.ID]*hostDelta
	st        crawl.CommitStats
	staged    int        // inbound-link rows staged by the committed transaction
	look      bool       // look at the staged offers first (DB.admit)
	finds     bool       // stage the discovered URLs (finds.go)
	size      *findsSize // with finds: the stage's size, read at the end
}

// bonus reports whether the batch's new pages raise their link targets.
func (c *committer) bonus() bool { return c.lim.InlinkBonus > 0 }

// followed returns the distinct targets of a result's followed links.
func followed(r *crawl.Result) []int64 {
	var out []int64
	for _, l := range r.Links {
		if !l.NoFollow {
			out = append(out, int64(l.TargetID))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (c *committer) run(ctx context.Context) error {
	t := c.t
	a := newAdmission(c.lim)
	// Step 1, which takes no lock: find which results' URLs are in flight
	// (each URL's first result only; the others are stale) and which
	// pages are recorded. The host and URL rows are locked only at the
	// end, after the pages are written: a commit holds the rows that
	// claims, leases and the admissions of other commits wait for only
	// through its last two round trips. A URL that left flight in between
	// makes the transaction run again (errLeftFlight).
	seen := make(map[crawl.ID]bool, len(c.results))
	var ids, claimedAt, pageIDs []int64
	firstOf := make([]bool, len(c.results))
	for i := range c.results {
		r := &c.results[i]
		if seen[r.URL.ID] {
			continue
		}
		seen[r.URL.ID] = true
		firstOf[i] = true
		ids = append(ids, int64(r.URL.ID))
		var at int64
		if !r.URL.ClaimedAt.IsZero() {
			at = r.URL.ClaimedAt.UnixMilli()
		}
		claimedAt = append(claimedAt, at)
		if r.Outcome == crawl.OutcomeDone && r.Page != nil {
			pageIDs = append(pageIDs, int64(r.URL.ID))
		}
	}
	inFlight := make(map[crawl.ID]bool, len(ids))
	recorded := map[crawl.ID]bool{} // pages recorded before this transaction
	b := t.batch()
	offered := queueStaged(b, c.look)
	c.db.queueStored(b)
	b.Queue(`SELECT u.id FROM urls u JOIN unnest($1::bigint[], $2::bigint[]) AS v(id, claimed_at) ON u.id = v.id
		WHERE u.state = 1 AND (v.claimed_at = 0 OR u.claimed_at = v.claimed_at)`, ids, claimedAt).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			inFlight[id] = true
		}
		return nil
	})
	if len(pageIDs) > 0 {
		b.Queue(`SELECT url_id FROM pages WHERE url_id = ANY($1)`, pageIDs).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id crawl.ID
				if err := rows.Scan(&id); err != nil {
					return err
				}
				recorded[id] = true
			}
			return nil
		})
	}
	if err := t.send(ctx, b); err != nil {
		return err
	}
	if *offered {
		return errStaged
	}

	// Decide everything the live results do, in order.
	c.hosts = map[crawl.ID]*hostDelta{}
	d := &t.delta
	c.live = make([]bool, len(c.results))
	var liveIDs []int64
	var states []int16
	var retryAt, fetchedAt []int64
	var errs []string
	var unattempt []int32
	var liveClaimed []int64
	var liveHosts []crawl.ID
	// The links of pages none of whose links is recorded (new pages, and
	// changed ones, whose links are deleted first), and the others.
	var freshLinks, otherLinks linkRows
	var changed []int64 // recorded pages whose new version replaces their links
	hostErrs := map[hostError]int64{}
	for i := range c.results {
		r := &c.results[i]
		if !firstOf[i] || !inFlight[r.URL.ID] {
			// Not in flight any more: the lease was lost and the URL went
			// back to the queue (or to another process). Its result is not
			// ours to record.
			c.st.Stale++
			continue
		}
		c.live[i] = true
		o := c.outs[i]
		liveIDs = append(liveIDs, int64(r.URL.ID))
		states = append(states, int16(o.state))
		retryAt = append(retryAt, o.retryAt)
		fetchedAt = append(fetchedAt, o.fetchedAt)
		errs = append(errs, clean(r.Error))
		unattempt = append(unattempt, o.unattempt)
		var at int64
		if !r.URL.ClaimedAt.IsZero() {
			at = r.URL.ClaimedAt.UnixMilli()
		}
		liveClaimed = append(liveClaimed, at)
		liveHosts = append(liveHosts, r.URL.HostID)
		if !c.finds {
			a.prepare(r.Discovered)
		}
		d.inflight--
		h := hostOf(c.hosts, r.URL.HostID)
		switch o.state {
		case crawl.StateQueued:
			h.queued++
			h.raise(int32(r.URL.Priority))
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
		errKind := ""
		fresh := false // no link of r's page is recorded, or all are deleted first
		if p := r.Page; p != nil && r.Outcome == crawl.OutcomeDone {
			p.ID = r.URL.ID
			rv := r.Revisit
			newPage := !recorded[p.ID]
			gone := rv != nil && rv.Gone != crawl.Active
			// A revisit that found the page unchanged (304) or gone (404,
			// 410) leaves the recorded page as it was: only its schedule
			// and history move, and a removed page leaves the index.
			keep := !newPage && rv != nil && (rv.NotModified || p.Status == 404 || p.Status == 410)
			if !keep {
				p.DuplicateOf = 0
				c.pages, c.revisits = append(c.pages, p), append(c.revisits, rv)
				c.pageHosts = append(c.pageHosts, r.URL.HostID)
				// A new page, a changed one or one written without a
				// schedule is indexed again; an unchanged one keeps its
				// index entry while it stays indexable.
				c.reindex = append(c.reindex, newPage || rv == nil || rv.Changed)
				c.gone = append(c.gone, gone)
				if newPage {
					c.newPages++
					fresh = true
				} else if rv != nil && rv.Changed {
					changed = append(changed, int64(p.ID))
					fresh = true
				}
			} else if gone {
				c.outIDs, c.outKeys = append(c.outIDs, int64(p.ID)), append(c.outKeys, "")
			}
			if !newPage {
				c.lockPages = append(c.lockPages, int64(p.ID))
			}
			if rv != nil {
				c.sched.add(p, rv, c.now, !keep)
			}
			n := p.CountedBytes()
			h.fetched++
			h.bytes += n
			d.bytes += n
			if cls := p.Status / 100; cls >= 2 && cls <= 5 {
				h.status[cls]++
			}
			if p.Blocked {
				h.blocked++
			}
			errKind = p.ErrorKind
		} else if r.Outcome == crawl.OutcomeFailed || r.Outcome == crawl.OutcomeRetry {
			errKind = r.ErrorKind
		}
		if errKind != "" {
			hostErrs[hostError{r.URL.HostID, clean(errKind)}]++
		}
		if fresh {
			freshLinks.add(r.URL.ID, r.Links)
		} else {
			otherLinks.add(r.URL.ID, r.Links)
		}
		c.touched = append(c.touched, r.Touched...)
		if u := r.Host; !u.NextFetchAt.IsZero() {
			h.polite = true
			h.next = max(h.next, ms(u.NextFetchAt))
			h.delay = u.Delay.Milliseconds()
			h.backoff = int32(u.Backoff)
		}
		if r.Host.Trap != "" {
			h.trap = r.Host.Trap
		}
	}

	// Step 2: content hashes, near-duplicate candidates and links.
	b = t.batch()
	c.queueHashes(b)
	near := queueNear(b, c.pages, c.db.near)
	if len(changed) > 0 {
		// The pages changed: their outlinks are those of the new versions.
		b.Queue(deleteLinksSQL, changed).QueryRow(func(row pgx.Row) error {
			var n int64
			err := row.Scan(&n)
			d.links -= n
			return err
		})
	}
	freshLinks.queue(t, b, true, &d.links)
	otherLinks.queue(t, b, false, &d.links)
	if err := t.send(ctx, b); err != nil {
		return err
	}
	c.judge(near)
	if err := t.joinWorks(ctx, c.db, c.pages); err != nil {
		return err
	}

	// Step 3: pages, schedules, touches and external-index operations
	// (with schedules or touches, which write recorded pages outside the
	// page upsert, every recorded page the step writes is locked first, in
	// ID order) and the staged inbound links; then, in the same round trip
	// once those are written, the locks: the new hosts of the discovered
	// URLs are inserted, every host involved is locked in ID order, the
	// URLs move out of flight (their rows are locked by no other commit:
	// only under their host's row, and by a merge of the staged inbound
	// links, which skips rows it would wait for) and the known discovered
	// URLs are looked up.
	b = t.batch()
	if len(c.sched.ids) > 0 || len(c.touched) > 0 {
		lock := slices.Clone(c.lockPages)
		for _, tc := range c.touched {
			lock = append(lock, int64(tc.ID))
		}
		slices.Sort(lock)
		lock = slices.Compact(lock)
		b.Queue(`SELECT count(*) FROM (SELECT 1 FROM pages WHERE url_id = ANY($1) ORDER BY url_id FOR NO KEY UPDATE) l`, lock)
	}
	b, err := c.queuePages(ctx, b)
	if err != nil {
		return err
	}
	c.sched.queue(b)
	queueTouch(b, c.touched, c.now, &c.st.Touched)
	c.db.queueOutbox(b, c.outIDs, c.outKeys)
	var stage *inlinkStage
	if c.bonus() {
		// The inbound links of the new pages are staged before the locks:
		// no row of a link target is locked or written (see inlinks.go).
		stage = c.inlinks(recorded)
		stage.queueExisting(b, c.lim)
	}
	if c.finds {
		// Before the locks: a merge holding the stage makes this wait.
		c.queueFinds(b)
	}
	a.queueLock(b, liveHosts)
	moved := 0
	if len(liveIDs) > 0 {
		b.Queue(`UPDATE urls u SET state = v.state, retry_at = v.retry_at, fetched_at = v.fetched_at, error = v.error,
				attempts = u.attempts - v.unattempt
			FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::bigint[], $5::text[], $6::int[], $7::bigint[])
				AS v(id, state, retry_at, fetched_at, error, unattempt, claimed_at)
			WHERE u.id = v.id AND u.state = 1 AND (v.claimed_at = 0 OR u.claimed_at = v.claimed_at)`,
			liveIDs, states, retryAt, fetchedAt, errs, unattempt, liveClaimed).Exec(func(ct pgconn.CommandTag) error {
			moved = int(ct.RowsAffected())
			return nil
		})
	}
	if err := t.send(ctx, b); err != nil {
		return err
	}
	if moved != len(liveIDs) {
		return errLeftFlight
	}

	// Step 4: the discovered URLs, decided in result order (unless
	// staged), the inbound links to those admitted, host outcomes and
	// state, counters.
	for i := range c.results {
		if r := &c.results[i]; c.live[i] && len(r.Discovered) > 0 && !c.finds {
			a.offer(r.Discovered, r.URL.HostID)
		}
	}
	b = t.batch()
	a.queueInsert(b, c.now)
	a.finish(c.hosts, d)
	if !c.finds {
		c.st.Add = a.st
	}
	stage.queueAdmitted(b, c.lim, c.finds)
	if c.finds {
		c.size.queue(b)
	}
	queueHostErrors(b, hostErrs)
	a.queueDrop(b)
	queueHostDeltas(b, c.hosts)
	if err := t.commit(ctx, b); err != nil {
		return err
	}
	c.staged = stage.rows()
	return nil
}

// errLeftFlight is a commit's finding, once it locked its URLs, that one
// of them left flight after the commit began (its lease was lost): the
// commit runs again, and leaves that URL's result out as stale.
var errLeftFlight = errors.New("a URL left flight during the commit")

// hostError is an error kind of a host.
type hostError struct {
	host crawl.ID
	kind string
}

// queueHostErrors adds to the per-host error kind counts. Their hosts are
// locked by the transaction, so no other transaction writes these rows.
func queueHostErrors(b *pgx.Batch, m map[hostError]int64) {
	if len(m) == 0 {
		return
	}
	keys := make([]hostError, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y hostError) int {
		if x.host != y.host {
			return cmp.Compare(x.host, y.host)
		}
		return strings.Compare(x.kind, y.kind)
	})
	hosts, kinds, counts := make([]int64, len(keys)), make([]string, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		hosts[i], kinds[i], counts[i] = int64(k.host), k.kind, m[k]
	}
	b.Queue(`INSERT INTO host_errors AS e (host_id, kind, count)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])
		ON CONFLICT (host_id, kind) DO UPDATE SET count = e.count + excluded.count`, hosts, kinds, counts)
}

// queueHashes records the content hashes of the pages, keeping the first
// URL seen with each (in batch order, sorted by hash so that concurrent
// commits wait for each other in one order), and reads back the first URL
// of every hash.
func (c *committer) queueHashes(b *pgx.Batch) {
	var hashes, owned [][]byte
	var urls []int64
	for _, p := range c.pages {
		if len(p.ContentHash) > 0 {
			hashes = append(hashes, p.ContentHash)
			if !crawl.IsAlias(p) {
				// An alias does not own its content: its canonical page
				// does, even when fetched later.
				owned = append(owned, p.ContentHash)
				urls = append(urls, int64(p.ID))
			}
		}
	}
	if len(hashes) == 0 {
		return
	}
	if len(owned) > 0 {
		b.Queue(`INSERT INTO content_hashes (hash, url_id)
			SELECT DISTINCT ON (hash) hash, url_id FROM unnest($1::bytea[], $2::bigint[]) WITH ORDINALITY AS t(hash, url_id, ord)
			ORDER BY hash, ord
			ON CONFLICT (hash) DO NOTHING`, owned, urls)
	}
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

// judge marks the pages (in batch order) that are duplicates of content
// first seen on another URL, then the near-duplicates among the others,
// given their recorded candidates.
func (c *committer) judge(near []nearMatch) {
	d := &c.t.delta
	for i, p := range c.pages {
		p.DuplicateOf = 0
		if len(p.ContentHash) == 0 {
			continue
		}
		if first, ok := c.first[string(p.ContentHash)]; ok && first != p.ID {
			p.DuplicateOf = first
			c.st.Duplicates++
			d.duplicates++
			hostOf(c.hosts, c.pageHosts[i]).duplicates++
		}
	}
	judgeNear(c.pages, near, c.db.near)
}

// queuePages upserts the pages, whose duplicate marks are set, and
// decides their index entries: a page not indexed again keeps its entry
// while it is indexable (else it leaves the index); the others are
// indexed when indexable and not gone. With an outbox, the pages whose
// entry is written have their external-index key decided (c.outIDs).
func (c *committer) queuePages(ctx context.Context, b *pgx.Batch) (*pgx.Batch, error) {
	var rows pageRows
	for i, p := range c.pages {
		indexable := crawl.Indexable(p) && !c.gone[i]
		if !c.reindex[i] && indexable {
			rows.keep = append(rows.keep, int64(p.ID))
		} else {
			c.outIDs, c.outKeys = append(c.outIDs, int64(p.ID)), append(c.outKeys, indexKey(p, indexable))
		}
		if err := rows.addIndexed(p, indexable); err != nil {
			return b, err
		}
		if rv := c.revisits[i]; rv != nil {
			rows.schedule(p, rv, c.now)
		}
		if rows.textBytes >= c.db.tune.pageChunk && i < len(c.pages)-1 {
			// The batch so far goes now: a batch's statements are encoded
			// whole before it is sent, and a commit of 512 pages of
			// 10 KB held over 100 MB of encoded arrays.
			rows.queue(b)
			if err := c.t.send(ctx, b); err != nil {
				return b, err
			}
			b, rows = c.t.batch(), pageRows{keep: rows.keep}
		}
	}
	rows.queue(b)
	c.st.Pages += len(c.pages)
	c.t.delta.pages += c.newPages // a page recorded again is not a new page
	return b, nil
}

// pageChunkBytes bounds the text (title, text, main text, their folded
// forms, metadata) of the pages written by one statement of a commit.
// pgx encodes a statement's arrays whole, in growing buffers, and then
// its message: at 4 MiB a crawl of the uniform test web peaked at
// 213–231 MB of RSS with some 57 MB of encoded arrays live; at 1 MiB,
// at 134–140 MB, as fast (two runs beside each other).
const pageChunkBytes = 1 << 20

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
