package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fingerprint"
)

// Commit records a batch of fetch results in one transaction.
//
// A context that has ended stops a commit before it begins; once begun,
// its statements run to the end whatever becomes of ctx. Its work is
// bounded (the batch, and at most pendingBatch documents of the index
// delay), and modernc.org/sqlite watches a context that can end with a
// goroutine of its own for every statement (interruptOnDone): 0.7–0.8 s
// of the writer's CPU, and about half as much again starting and ending
// those goroutines, in a crawl of 20,000 pages.
func (db *DB) Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error) {
	var st crawl.CommitStats
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("sqlite: commit: %w", err)
	}
	ctx = context.WithoutCancel(ctx)
	err := db.tx(ctx, func(t *txn) error {
		t.indexDue = true
		c, err := t.prepareCommit(ctx)
		if err != nil {
			return err
		}
		if err := c.prefetch(ctx, results); err != nil {
			return err
		}
		stage, stored, err := t.stagesFinds(ctx)
		if err != nil {
			return err
		}
		c.stagesFinds = stage
		// Unless the batch's discoveries are staged after them (finds.go),
		// the staged offers are decided on before the batch's own
		// (addDiscovered would). The packed URLs the batch links to become
		// rows, whose inbound links are counted.
		if !stage {
			if _, err := t.mergeOffers(ctx); err != nil {
				return err
			}
		}
		if err := c.unpackTargets(ctx, results); err != nil {
			return err
		}
		now := time.Now()
		for i := range results {
			c.at = i
			if err := c.result(ctx, &results[i], lim, now, &st); err != nil {
				return fmt.Errorf("%s: %w", results[i].URL.URL, err)
			}
		}
		if stage {
			err = c.stageDiscovered(ctx, lim, &st)
		} else {
			err = c.addDiscovered(ctx, lim, now, &st)
		}
		if err != nil {
			return err
		}
		if err := c.flushLinkURLs(ctx); err != nil {
			return err
		}
		if err := c.countInlinks(ctx, lim); err != nil {
			return err
		}
		if stage {
			if err := c.mergeFinds(ctx, stored, &st); err != nil {
				return err
			}
		}
		if t.stagedCount() >= mergeLinks {
			return t.mergeStaged(ctx)
		}
		return nil
	})
	if err != nil {
		return crawl.CommitStats{}, fmt.Errorf("sqlite: commit: %w", err)
	}
	db.reportHeldOver(&st)
	return st, nil
}

type committer struct {
	t                             *txn
	state, page, hashIns, hashGet *sql.Stmt
	pageSched                     *sql.Stmt // pageUpsertScheduled
	nearDup, isAlias              *sql.Stmt
	ls                            linkStmts
	args                          []any

	// at is the index in the batch of the result being recorded; live
	// maps the URL of each result recorded (not stale) to its index, and
	// linkers lists the new pages whose links count as inbound links (see
	// countInlinks).
	at      int
	live    map[crawl.ID]int
	linkers []linker
	// prepared is the preparation of the result being recorded.
	prepared any
	// hasPage and hasLinks hold the IDs of the batch's results that have
	// a pages row and an outlinks row, read for the whole batch before
	// its first result (prefetch) and kept up to date as it writes them;
	// hasLinks is nil outside Commit (insertLinks then looks).
	hasPage, hasLinks map[crawl.ID]bool
	// offers are the URLs the batch's results discovered, in their
	// order, and discovered says whose they are (addDiscovered).
	offers     []crawl.NewURL
	discovered []discoveredBy

	// linkTexts are the URL texts of the link targets recorded that the
	// URLs admitted did not show to be in urls (see flushLinkURLs).
	linkTexts map[crawl.ID]string
	// stagesFinds says that the batch's discoveries, and the inbound
	// links of URLs not known to be rows, are staged (finds.go).
	stagesFinds bool
}

// linker is a new page of the batch, at index at, whose links count.
type linker struct {
	at    int
	links []crawl.Link
}

func (t *txn) prepareCommit(ctx context.Context) (*committer, error) {
	c := &committer{t: t}
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = t.prep(ctx, q)
		return s
	}
	c.state = prep(`UPDATE urls SET state = ?, retry_at = ?, fetched_at = ?, error = ?, attempts = attempts - ? WHERE id = ? AND state = 1`)
	c.page = prep(pageUpsert)
	c.pageSched = prep(pageUpsertScheduled)
	c.nearDup = prep(nearDupQuery)
	c.isAlias = prep(`SELECT canonical <> '' AND canonical <> url FROM pages WHERE url_id = ?`)
	c.hashIns = prep(`INSERT INTO content_hashes (hash, url_id) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING`)
	c.hashGet = prep(`SELECT url_id FROM content_hashes WHERE hash = ?`)
	if err != nil {
		return nil, err
	}
	if err := c.prepareLinks(ctx); err != nil {
		return nil, err
	}
	return c, nil
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
	c.prepared = r.Prepared
	defer func() { c.prepared = nil }()
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
	if lim.InlinkBonus > 0 {
		if c.live == nil {
			c.live = map[crawl.ID]int{}
		}
		c.live[r.URL.ID] = c.at
	}
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
	var hs hostStatDelta
	newPage := false
	if p := r.Page; p != nil && r.Outcome == crawl.OutcomeDone {
		p.ID = r.URL.ID
		newPage = !c.hasPage[p.ID]
		rv := r.Revisit
		// A revisit that found the page unchanged (304) or gone (404, 410)
		// leaves the recorded page as it was: only its schedule and history
		// move, and a removed page leaves the index.
		keep := !newPage && rv != nil && (rv.NotModified || p.Status == 404 || p.Status == 410)
		if !keep {
			if !newPage && rv != nil && rv.Changed {
				// The page changed: its outlinks are those of the new version.
				if err := c.deleteLinks(ctx, p.ID); err != nil {
					return err
				}
			}
			reindex := newPage || rv == nil || rv.Changed
			if rv != nil {
				// The schedule goes in with the page: updating the row
				// afterwards would write it, text and all, a second time.
				p.CheckedAt, p.NextCheckAt, p.Gone = time.UnixMilli(checkedAt(p, now)), rv.NextCheck, rv.Gone
			}
			if err := c.savePageIndexed(ctx, p, rv, st, reindex); err != nil {
				return err
			}
			c.hasPage[p.ID] = true
			if !newPage {
				t.add("pages", -1) // recorded again, not a new page
			}
		}
		if err := c.schedule(ctx, p, rv, now, !keep); err != nil {
			return err
		}
		hostFetched = 1
		hostBytes = p.CountedBytes()
		t.add("bytes", hostBytes)
		if cls := p.Status / 100; cls >= 2 && cls <= 5 {
			hs.status[cls]++
		}
		if p.DuplicateOf != 0 {
			hs.duplicates++
		}
		if p.Blocked {
			hs.blocked++
		}
		if p.ErrorKind != "" {
			hs.errKind = p.ErrorKind
		}
	} else if (r.Outcome == crawl.OutcomeFailed || r.Outcome == crawl.OutcomeRetry) && r.ErrorKind != "" {
		hs.errKind = r.ErrorKind
	}
	// The URLs it discovered are offered with the whole batch's, in the
	// batch's order, after its last result (addDiscovered).
	if len(r.Discovered) > 0 {
		c.discovered = append(c.discovered, discoveredBy{host: r.URL.HostID, from: len(c.offers), to: len(c.offers) + len(r.Discovered)})
		c.offers = append(c.offers, r.Discovered...)
	}
	if err := c.insertLinks(ctx, r.URL.ID, r.Links); err != nil {
		return err
	}
	if len(r.Touched) > 0 {
		if err := c.touch(ctx, r.Touched, now, st); err != nil {
			return err
		}
	}
	if newPage && lim.InlinkBonus > 0 && len(r.Links) > 0 {
		c.linkers = append(c.linkers, linker{c.at, r.Links})
	}
	// One update of the host row: politeness state, counters, outcomes.
	h := r.Host
	var next any
	if !h.NextFetchAt.IsZero() {
		next = ms(h.NextFetchAt)
	}
	if _, err := t.exec(ctx, `UPDATE hosts SET
			next_fetch_at = CASE WHEN ?1 IS NULL THEN next_fetch_at ELSE max(next_fetch_at, ?1) END,
			delay_ms = CASE WHEN ?1 IS NULL THEN delay_ms ELSE ?2 END,
			backoff = CASE WHEN ?1 IS NULL THEN backoff ELSE ?3 END,
			fetched = fetched + ?4, bytes = bytes + ?5, queued = queued + ?6,
			s2xx = s2xx + ?7, s3xx = s3xx + ?8, s4xx = s4xx + ?9, s5xx = s5xx + ?10,
			duplicates = duplicates + ?11, blocked = blocked + ?12,
			trap = CASE WHEN ?13 <> '' THEN ?13 ELSE trap END,
			top_priority = CASE WHEN ?6 > 0 THEN max(top_priority, ?15) ELSE top_priority END
		WHERE id = ?14`,
		next, h.Delay.Milliseconds(), h.Backoff, hostFetched, hostBytes, hostQueued,
		hs.status[2], hs.status[3], hs.status[4], hs.status[5], hs.duplicates, hs.blocked, h.Trap,
		r.URL.HostID, r.URL.Priority); err != nil {
		return err
	}
	if hs.errKind != "" {
		if _, err := t.exec(ctx, `INSERT INTO host_errors (host_id, kind, count) VALUES (?, ?, 1)
			ON CONFLICT (host_id, kind) DO UPDATE SET count = count + 1`, r.URL.HostID, hs.errKind); err != nil {
			return err
		}
	}
	return nil
}

// hostStatDelta is what one result adds to its host's outcome counts
// (the URLs it discovered are counted by addDiscovered).
type hostStatDelta struct {
	status              [6]int64
	duplicates, blocked int64
	errKind             string
}

// discoveredBy is where the URLs one result discovered are among the
// batch's offers (offers[from:to]), and the host of the page that found
// them.
type discoveredBy struct {
	host     crawl.ID
	from, to int
}

// prefetch reads which of the batch's results have a pages row and an
// outlinks row, in two statements a chunk of the batch, in ID order,
// rather than two a result.
func (c *committer) prefetch(ctx context.Context, results []crawl.Result) error {
	ids := make([]crawl.ID, 0, len(results))
	for i := range results {
		ids = append(ids, results[i].URL.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	c.hasPage, c.hasLinks = make(map[crawl.ID]bool), make(map[crawl.ID]bool)
	for _, q := range []struct {
		sql string
		has map[crawl.ID]bool
	}{
		{`SELECT url_id FROM pages WHERE url_id IN (%s)`, c.hasPage},
		{`SELECT source_id FROM outlinks WHERE source_id IN (%s)`, c.hasLinks},
	} {
		if err := c.t.inChunks(ctx, len(ids), 1, q.sql, func(i int, a []any) { a[0] = ids[i] }, func(rows *sql.Rows) error {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			q.has[id] = true
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// unpackTargets makes the packed URLs that the results link to rows of
// urls (runs.go); the targets known to be in urls are not looked up.
func (c *committer) unpackTargets(ctx context.Context, results []crawl.Result) error {
	if !c.t.db.hasRuns {
		return nil
	}
	var ids []crawl.ID
	for i := range results {
		for _, l := range results[i].Links {
			if !c.t.db.knownURLs.has(l.TargetID) {
				ids = append(ids, l.TargetID)
			}
		}
	}
	return c.t.unpackURLs(ctx, ids)
}

// addDiscovered offers the URLs the batch's results discovered, in the
// order of the results, as one offer of them all: the decisions are those
// of the results' offers made one after another (a URL two results found
// is admitted for the first; a host's cap admits its first offers), for a
// few statements a batch instead of a few a result. Each page's host
// counts the URLs admitted of those its page found (discovered).
func (c *committer) addDiscovered(ctx context.Context, lim crawl.Limits, now time.Time, st *crawl.CommitStats) error {
	if len(c.offers) == 0 {
		return nil
	}
	admitted := make([]bool, len(c.offers))
	as, err := c.t.addURLsEach(ctx, c.offers, lim, now, admitted)
	if err != nil {
		return err
	}
	st.Add.Offered += as.Offered
	st.Add.OverDepth += as.OverDepth
	st.Add.Decided(as)
	found := map[crawl.ID]int64{}
	for _, d := range c.discovered {
		for _, ok := range admitted[d.from:d.to] {
			if ok {
				found[d.host]++
			}
		}
	}
	hosts := slices.Sorted(maps.Keys(found))
	return c.t.inChunks(ctx, len(hosts), 2, `UPDATE hosts SET discovered = discovered + a.n
		FROM (SELECT column1 AS host_id, column2 AS n FROM (VALUES %s) WHERE column1 IS NOT NULL) AS a
		WHERE hosts.id = a.host_id`, func(i int, a []any) {
		a[0], a[1] = hosts[i], found[hosts[i]]
	}, nil)
}

// countInlinks counts each new page of the batch as an inbound link of
// the URLs it links to and follows, and raises the priority of those
// queued by lim.InlinkBonus while their inbound links are below
// MaxInlinkBonus/InlinkBonus. Every target is counted, fetched or not, as
// in the PostgreSQL store: the count is the URL's inbound links, not only
// those that could raise its priority.
//
// The counts are gathered over the batch and written once per target,
// with the outcome the results recorded one after another would have: a
// target that is itself a result of the batch is in flight (counted, no
// bonus) for the links before its result, and in its new state for those
// after it.
func (c *committer) countInlinks(ctx context.Context, lim crawl.Limits) error {
	if len(c.linkers) == 0 {
		return nil
	}
	type count struct{ pre, post int }
	counts := map[crawl.ID]count{}
	var ids, page []crawl.ID
	for _, l := range c.linkers {
		// A page counts once for each URL it links to.
		page = page[:0]
		for _, link := range l.links {
			if !link.NoFollow {
				page = append(page, link.TargetID)
			}
		}
		slices.Sort(page)
		for _, id := range slices.Compact(page) {
			n, seen := counts[id]
			if !seen {
				ids = append(ids, id)
			}
			if at, ok := c.live[id]; ok && at > l.at {
				n.pre++
			} else {
				n.post++
			}
			counts[id] = n
		}
	}
	// The targets of each count together, in ID order, as the rows are
	// laid out, up to 256 a statement: one statement a target cost more
	// than the rows it changed. Of the post links, those that find the URL
	// queued raise its priority (by the bonus times the least of post and
	// what the cap leaves) while its count (pre links included) is below
	// the cap. A statement that may change many rows and abort halfway
	// keeps a journal of the pages it changes (a file, once past 64 KiB),
	// so that its failure can be undone alone: this one is an UPDATE OR
	// FAIL of an IN list, with CASE where max and min would do (a function
	// may fail), which SQLite runs without that journal; a failure fails
	// the whole transaction.
	slices.Sort(ids)
	if c.stagesFinds {
		// The targets not known to be rows are counted at the next merge.
		rows := make(map[crawl.ID]bool, len(c.t.confirmed))
		for _, id := range c.t.confirmed {
			rows[id] = true
		}
		var known, later []crawl.ID
		for _, id := range ids {
			if _, live := c.live[id]; live || rows[id] || c.t.db.knownURLs.has(id) {
				known = append(known, id)
			} else {
				later = append(later, id)
			}
		}
		if err := c.stageCounts(ctx, later, func(id crawl.ID) int { n := counts[id]; return n.pre + n.post }, lim); err != nil {
			return err
		}
		ids = known
	}
	var groups []count
	byCount := map[count][]crawl.ID{}
	for _, id := range ids {
		n := counts[id]
		if byCount[n] == nil {
			groups = append(groups, n)
		}
		byCount[n] = append(byCount[n], id)
	}
	bonus, capped := lim.InlinkBonus, lim.MaxInlinkBonus/lim.InlinkBonus
	for _, n := range groups {
		ids := byCount[n]
		for len(ids) > 0 {
			k := chunkSize(len(ids))
			part := ids[:min(k, len(ids))]
			ids = ids[len(part):]
			stmt, err := c.t.prep(ctx, `UPDATE OR FAIL urls SET
					inlinks = inlinks + ?1 + ?2,
					priority = priority + CASE WHEN state = 0 AND ?4 - inlinks - ?1 > 0
						THEN ?3 * CASE WHEN ?2 < ?4 - inlinks - ?1 THEN ?2 ELSE ?4 - inlinks - ?1 END ELSE 0 END
				WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?,", k), ",")+`)`)
			if err != nil {
				return err
			}
			args := make([]any, 4+k)
			args[0], args[1], args[2], args[3] = n.pre, n.post, bonus, capped
			for i := range k {
				args[4+i] = part[min(i, len(part)-1)] // padded with the last: an IN list is a set
			}
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// schedule records a page's revisit schedule, existence and history.
// written says the page's row was just written with its schedule.
func (c *committer) schedule(ctx context.Context, p *crawl.Page, rv *crawl.Revisit, now time.Time, written bool) error {
	if rv == nil {
		return nil
	}
	t := c.t
	checked := checkedAt(p, now)
	if !written {
		if _, err := t.exec(ctx, `UPDATE pages SET checked_at = ?, next_check_at = ?, interval_ms = ?, misses = ?,
			gone = ? WHERE url_id = ?`, checked, ms(rv.NextCheck), rv.Interval.Milliseconds(), rv.Misses, rv.Gone, p.ID); err != nil {
			return err
		}
	}
	if rv.Gone != crawl.Active {
		if err := t.unindex(ctx, p.ID); err != nil {
			return err
		}
	}
	var hash any
	if len(p.ContentHash) > 0 {
		hash = p.ContentHash
	}
	_, err := t.exec(ctx, `INSERT INTO page_history (url_id, checked_at, run, status, changed, content_hash, bytes)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, p.ID, checked, rv.Run, p.Status, b2i(rv.Changed), hash, p.Bytes)
	return err
}

// checkedAt is when a revisit checked a page, in Unix milliseconds.
func checkedAt(p *crawl.Page, now time.Time) int64 {
	if checked := ms(p.FetchedAt); checked != 0 {
		return checked
	}
	return now.UnixMilli()
}

// touch makes recorded pages that a sitemap says changed after their
// fetch due at once, counting them in st.Touched.
func (c *committer) touch(ctx context.Context, ts []crawl.Touch, now time.Time, st *crawl.CommitStats) error {
	for _, tc := range ts {
		res, err := c.t.exec(ctx, `UPDATE pages SET next_check_at = ? WHERE url_id = ? AND gone = 0
			AND fetched_at < ? AND next_check_at > ?`, now.UnixMilli(), tc.ID, ms(tc.LastMod), now.UnixMilli())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil {
			st.Touched += int(n)
		}
	}
	return nil
}

func (c *committer) savePage(ctx context.Context, p *crawl.Page, st *crawl.CommitStats) error {
	return c.savePageIndexed(ctx, p, nil, st, true)
}

// savePageIndexed records a page, replacing an earlier record of it, with
// what it duplicates, and indexes it when reindex. With sched, the row
// also takes the revisit's interval and misses (p has its other times).
func (c *committer) savePageIndexed(ctx context.Context, p *crawl.Page, sched *crawl.Revisit, st *crawl.CommitStats, reindex bool) error {
	t := c.t
	p.DuplicateOf = 0
	if len(p.ContentHash) > 0 {
		// A page that names another canonical URL does not own its
		// content: the canonical page does, even when fetched later.
		lookup := true // for the hash's owner
		if !crawl.IsAlias(p) {
			res, err := c.hashIns.ExecContext(ctx, p.ContentHash, p.ID)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			lookup = n == 0
		}
		if lookup {
			var first crawl.ID
			err := c.hashGet.QueryRowContext(ctx, p.ContentHash).Scan(&first)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err == nil && first != p.ID {
				p.DuplicateOf = first
				st.Duplicates++
				t.add("duplicates", 1)
			}
		}
	}
	p.NearDuplicateOf = 0
	if p.SimHash != 0 && p.DuplicateOf == 0 && t.db.near >= 0 {
		near, err := c.nearDuplicate(ctx, p)
		if err != nil {
			return err
		}
		p.NearDuplicateOf = near
	}
	args, err := pageArgs(p, c.prepared)
	if err != nil {
		return err
	}
	stmt := c.page
	if sched != nil {
		stmt = c.pageSched
		args = append(args, sched.Interval.Milliseconds(), sched.Misses)
	}
	if _, err := stmt.ExecContext(ctx, args...); err != nil {
		return err
	}
	if err := t.joinWork(ctx, p); err != nil {
		return err
	}
	if reindex {
		// A document written at once, or into FTS5's search tier, takes
		// its page's texts now; one that waits for the index delay is
		// read from the row when it is due.
		if t.db.indexDelay == 0 || t.db.engine == EngineFTS5 {
			if err := restoreTexts(p, c.prepared); err != nil {
				return err
			}
		}
		if err := t.indexPage(ctx, p, hasText(p, c.prepared)); err != nil {
			return err
		}
	}
	st.Pages++
	t.add("pages", 1)
	return nil
}

// Reparse replaces a page's extraction and outlinks.
func (db *DB) Reparse(ctx context.Context, p *crawl.Page, links []crawl.Link) error {
	err := db.tx(ctx, func(t *txn) error {
		old, err := scanPage(t.queryRow(ctx, `SELECT `+pageColumns+` FROM pages WHERE url_id = ?`, p.ID))
		if errors.Is(err, sql.ErrNoRows) {
			return crawl.ErrNotFound
		}
		if err != nil {
			return err
		}
		// The fetch record stays as fetched.
		p.URL, p.Status, p.ContentType, p.Bytes, p.WireBytes = old.URL, old.Status, old.ContentType, old.Bytes, old.WireBytes
		p.ETag, p.LastModified, p.FetchedAt, p.Duration, p.WARC = old.ETag, old.LastModified, old.FetchedAt, old.Duration, old.WARC
		c, err := t.prepareCommit(ctx)
		if err != nil {
			return err
		}
		var st crawl.CommitStats
		if err := c.savePage(ctx, p, &st); err != nil {
			return err
		}
		t.add("pages", -1) // replaced, not added
		t.add("duplicates", -b2i64(old.DuplicateOf != 0))
		if err := c.deleteLinks(ctx, p.ID); err != nil {
			return err
		}
		if err := c.insertLinks(ctx, p.ID, links); err != nil {
			return err
		}
		return c.flushLinkURLs(ctx)
	})
	if err != nil {
		return fmt.Errorf("sqlite: reparse %d: %w", p.ID, err)
	}
	return nil
}

func b2i64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// nearDupQuery reads the near-duplicate candidates of a SimHash: the
// pages sharing one of its bands, one range of each covering band index
// (pages_nearN), at most nearCandidates per band.
var nearDupQuery = func() string {
	var b strings.Builder
	for i := range 4 {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&b, `SELECT * FROM (SELECT url_id, simhash FROM pages INDEXED BY pages_near%d
			WHERE band%d = ?%d AND simhash <> 0 AND duplicate_of = 0 AND near_duplicate_of = 0 AND url_id <> ?5 LIMIT %d)`,
			i, i, i+1, nearCandidates)
	}
	return b.String()
}()

// nearCandidates bounds the pages read per band in a near-duplicate
// lookup, so a cluster of similar pages cannot make it slow.
const nearCandidates = 512

// nearDuplicate finds an earlier page within the store's near-duplicate
// distance of p's SimHash:
// candidates come from the band indexes (any shared band), so the lookup
// is a few index probes, not a scan.
func (c *committer) nearDuplicate(ctx context.Context, p *crawl.Page) (crawl.ID, error) {
	b := bands(p.SimHash)
	rows, err := c.nearDup.QueryContext(ctx, b[0], b[1], b[2], b[3], p.ID)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	dist := c.t.db.near
	var cands []fingerprint.Match
	for rows.Next() {
		var id crawl.ID
		var fp int64
		if err := rows.Scan(&id, &fp); err != nil {
			return 0, err
		}
		if d := bits.OnesCount64(uint64(fp) ^ p.SimHash); d <= dist {
			cands = append(cands, fingerprint.Match{ID: int64(id), Dist: d})
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	rows.Close()
	// The first in the near-duplicate order that is not an alias of
	// another canonical URL (an alias does not own its content).
	slices.SortFunc(cands, fingerprint.Match.Compare)
	for _, cd := range cands {
		var alias bool
		if err := c.isAlias.QueryRowContext(ctx, cd.ID).Scan(&alias); err != nil {
			return 0, err
		}
		if !alias {
			return crawl.ID(cd.ID), nil
		}
	}
	return 0, nil
}

// bands returns the four 16-bit bands of a SimHash (fingerprint.Bands),
// as the columns band0 to band3 hold them.
func bands(fp uint64) [4]int64 {
	var b [4]int64
	for i, v := range fingerprint.Bands(fp) {
		b[i] = int64(v)
	}
	return b
}

// SaveRobots caches a host's robots.txt outcome.
func (db *DB) SaveRobots(ctx context.Context, host crawl.ID, rec crawl.RobotsRecord, upd crawl.HostUpdate) error {
	err := db.tx(ctx, func(t *txn) error {
		var status any
		if rec.Status != 0 || !rec.FetchedAt.IsZero() {
			status = rec.Status
		}
		_, err := t.exec(ctx, `UPDATE hosts SET robots_status = ?, robots_body = ?, robots_fetched_at = ?,
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
