package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
)

// AddURLs offers URLs to the frontier. The hosts involved are locked in ID
// order for the transaction, so the per-host cap holds across processes.
// Staged offers (StageURLs), if any wait, are merged first.
func (db *DB) AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	if len(urls) == 0 {
		return crawl.AddStats{}, nil
	}
	var st crawl.AddStats
	err := db.admit(ctx, true, func(ctx context.Context, t *txn, look bool) error {
		a := newAdmission(lim)
		a.prepare(urls)
		b := t.batch()
		staged := queueStaged(b, look)
		a.queueLock(b, nil)
		if err := t.send(ctx, b); err != nil {
			return err
		}
		if *staged {
			return errStaged
		}
		a.offer(urls, 0)
		if err := a.copyInsert(ctx, t, time.Now()); err != nil {
			return err
		}
		deltas := map[crawl.ID]*hostDelta{}
		a.finish(deltas, &t.delta)
		b = t.batch()
		a.queueDrop(b)
		queueHostDeltas(b, deltas)
		st = a.st
		return t.commit(ctx, b)
	})
	if err != nil {
		return crawl.AddStats{}, fmt.Errorf("postgres: add urls: %w", err)
	}
	db.grown.wrote(db, len(urls))
	return st, nil
}

// admission admits offered URLs under the depth and per-host budgets in
// three steps: prepare and queueLock (insert the new hosts, lock every
// host involved in ID order, read their admitted counts and which offered
// URLs are known), offer (decide, in offer order, as the SQLite store
// does), copyInsert or queueInsert (insert the admitted URLs, numbering
// each host's in offer order from the shared sequence).
type admission struct {
	lim        crawl.Limits
	keys       map[crawl.ID]string // hosts of the offers within depth
	ids        []int64             // URL IDs of the offers within depth
	admitted   map[crawl.ID]int64  // per host, before this transaction
	added      map[crawl.ID]int64  // per host, by this transaction
	discovered map[crawl.ID]int64  // per source host: URLs admitted from its pages
	known      map[crawl.ID]bool   // URLs in the store or admitted by this transaction
	capped     map[crawl.ID]bool
	insert     []crawl.NewURL
	top        map[crawl.ID]int32 // per host: the best priority admitted by this transaction
	created    []int64            // hosts this transaction inserted
	drop       []int64            // of those, the ones no URL was admitted to (see finish)
	st         crawl.AddStats
}

func newAdmission(lim crawl.Limits) *admission {
	return &admission{lim: lim, keys: map[crawl.ID]string{}, admitted: map[crawl.ID]int64{},
		added: map[crawl.ID]int64{}, discovered: map[crawl.ID]int64{}, known: map[crawl.ID]bool{},
		capped: map[crawl.ID]bool{}, top: map[crawl.ID]int32{}}
}

func (a *admission) overDepth(u crawl.NewURL) bool {
	return a.lim.OverDepth(u.Depth)
}

// prepare notes the hosts and URLs that queueLock must look at.
func (a *admission) prepare(urls []crawl.NewURL) {
	for _, u := range urls {
		if a.overDepth(u) {
			continue
		}
		if _, ok := a.keys[u.HostID]; !ok {
			a.keys[u.HostID] = u.Host
		}
		a.ids = append(a.ids, int64(u.ID))
	}
}

// queueLock queues the statements that create the missing hosts, lock the
// hosts of the offers and those in also (in one ID order, so that
// concurrent transactions cannot deadlock) and find the known URLs.
func (a *admission) queueLock(b *pgx.Batch, also []crawl.ID) {
	all := make([]int64, 0, len(a.keys)+len(also))
	var newIDs []int64
	var newKeys []string
	for id, key := range a.keys {
		all = append(all, int64(id))
		newIDs = append(newIDs, int64(id))
		newKeys = append(newKeys, clean(key))
	}
	for _, id := range also {
		if _, ok := a.keys[id]; !ok {
			all = append(all, int64(id))
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(newIDs) > 0 {
		b.Queue(`INSERT INTO hosts (id, key)
			SELECT id, key FROM unnest($1::bigint[], $2::text[]) AS t(id, key) ORDER BY id
			ON CONFLICT (id) DO NOTHING
			RETURNING id`, newIDs, newKeys).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				a.created = append(a.created, id)
			}
			return rows.Err()
		})
	}
	if len(all) > 0 {
		b.Queue(`SELECT id, admitted FROM hosts WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, all).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id crawl.ID
				var n int64
				if err := rows.Scan(&id, &n); err != nil {
					return err
				}
				a.admitted[id] = n
			}
			return nil
		})
	}
	if len(a.ids) > 0 {
		slices.Sort(a.ids)
		a.ids = slices.Compact(a.ids)
		// A URL is known as a row or packed (seen).
		b.Queue(`SELECT id FROM urls WHERE id = ANY($1)
			UNION ALL SELECT x.id FROM unnest($1::bigint[]) AS x(id) WHERE `+seenRunSQL("x.id")+` IS NOT NULL`, a.ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id crawl.ID
				if err := rows.Scan(&id); err != nil {
					return err
				}
				a.known[id] = true
			}
			return nil
		})
	}
}

// offer decides the fate of each URL, in order. With the hosts locked, no
// other transaction can admit URLs of these hosts meanwhile, so the known
// set and the admitted counts stay true. source is the host of the page
// the URLs were found on (it must be locked too), 0 for none: its
// discovered count grows by the URLs admitted.
func (a *admission) offer(urls []crawl.NewURL, source crawl.ID) {
	a.st.Offered += len(urls)
	for _, u := range urls {
		switch {
		case a.overDepth(u):
			a.st.OverDepth++
		case a.known[u.ID]:
			a.st.Known++
		case a.lim.MaxPagesPerHost > 0 && a.admitted[u.HostID]+a.added[u.HostID] >= a.lim.MaxPagesPerHost:
			a.st.OverHostCap++
			if !a.capped[u.HostID] {
				a.capped[u.HostID] = true
				a.st.CappedHosts = append(a.st.CappedHosts, u.HostID)
			}
		default:
			a.known[u.ID] = true
			a.added[u.HostID]++
			a.insert = append(a.insert, u)
			if source != 0 {
				a.discovered[source]++
			}
		}
	}
}

// copyColumns are the columns copyInsert writes; the others take their
// defaults, seq its next value from urls_seq, row by row.
var copyColumns = []string{"id", "url", "host_id", "depth", "priority", "state", "via", "parent_id", "discovered_at",
	"kind", "lastmod", "changefreq"}

// copyInsert inserts the admitted URLs by COPY: one binary stream, rows
// written many to a WAL record and with no speculative insertion (an
// INSERT … ON CONFLICT writes a record to confirm each row). The rows go
// in host order, a host's in offer order, so that seq (the column's
// default, drawn as each row is read) numbers a host's URLs in offer
// order, and a batch fills the pages of urls_queue and the primary key
// (whose keys begin with host bits) host by host. With the hosts locked
// and the known URLs looked up, no row can conflict unless another
// transaction stored the same URL ID under another host meanwhile: the
// COPY then fails with a unique violation and the transaction runs again
// (see retryable), which finds the URL known.
func (a *admission) copyInsert(ctx context.Context, t *txn, now time.Time) error {
	if len(a.insert) == 0 {
		return nil
	}
	order := a.hostOrder()
	at := now.UnixMilli()
	_, err := t.conn.CopyFrom(ctx, pgx.Identifier{"urls"}, copyColumns,
		pgx.CopyFromSlice(len(order), func(i int) ([]any, error) {
			u := &a.insert[order[i]]
			return []any{int64(u.ID), crawl.RelURL(clean(u.URL), clean(u.Host)), int64(u.HostID), int32(u.Depth), int32(u.Priority), int16(0),
				clean(string(u.Via)), int64(u.Parent), at, int16(u.Kind), ms(u.LastMod), clean(u.ChangeFreq)}, nil
		}))
	if err != nil {
		return fmt.Errorf("copy urls: %w", err)
	}
	a.inserted()
	return nil
}

// hostOrder returns the indexes of the admitted URLs by host ID, then in
// offer order.
func (a *admission) hostOrder() []int {
	order := make([]int, len(a.insert))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(int64(a.insert[x].HostID), int64(a.insert[y].HostID))
	})
	return order
}

// inserted notes the best priority admitted to each host.
func (a *admission) inserted() {
	for _, u := range a.insert {
		if top, ok := a.top[u.HostID]; !ok || int32(u.Priority) > top {
			a.top[u.HostID] = int32(u.Priority)
		}
	}
}

// queueInsert queues the insertion of the admitted URLs as one statement,
// for a transaction that sends it in a batch with others (a commit's
// discovered URLs). Their seq values come from the shared sequence in
// offer order (the inner query numbers them: PostgreSQL evaluates a
// volatile output column after its query's ORDER BY), and they are
// inserted in ID order. As with copyInsert, a conflict fails the
// transaction, to be run again.
func (a *admission) queueInsert(b *pgx.Batch, now time.Time) {
	if len(a.insert) == 0 {
		return
	}
	n := len(a.insert)
	ids, hosts, parents, lastmods := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	urls, vias, freqs := make([]string, n), make([]string, n), make([]string, n)
	depths, prios := make([]int32, n), make([]int32, n)
	kinds := make([]int16, n)
	for i, u := range a.insert {
		ids[i], hosts[i], parents[i], lastmods[i] = int64(u.ID), int64(u.HostID), int64(u.Parent), ms(u.LastMod)
		urls[i], vias[i], freqs[i] = crawl.RelURL(clean(u.URL), clean(u.Host)), clean(string(u.Via)), clean(u.ChangeFreq)
		depths[i], prios[i], kinds[i] = int32(u.Depth), int32(u.Priority), int16(u.Kind)
	}
	b.Queue(`INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id, discovered_at, kind, lastmod, changefreq, seq)
		SELECT id, url, host_id, depth, priority, 0, via, parent_id, $8, kind, lastmod, changefreq, seq
		FROM (SELECT t.*, nextval('urls_seq') AS seq
			FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::int[], $5::int[], $6::text[], $7::bigint[],
					$9::smallint[], $10::bigint[], $11::text[])
				WITH ORDINALITY AS t(id, url, host_id, depth, priority, via, parent_id, kind, lastmod, changefreq, ord)
			ORDER BY ord) AS offered
		ORDER BY id`, ids, urls, hosts, depths, prios, vias, parents, now.UnixMilli(),
		kinds, lastmods, freqs)
	// The statement runs or the transaction fails: the hosts' best
	// priorities are known now, for the host deltas queued after it.
	a.inserted()
}

// finish completes the statistics and adds the admission's effects to the
// host and counter deltas.
func (a *admission) finish(hosts map[crawl.ID]*hostDelta, d *counterDelta) {
	ids := make([]crawl.ID, 0, len(a.added))
	for id, n := range a.added {
		if n <= 0 {
			continue
		}
		ids = append(ids, id)
		a.st.Added += int(n)
		h := hostOf(hosts, id)
		h.admitted += n
		h.queued += n
		h.raise(a.top[id])
	}
	for id, n := range a.discovered {
		if n > 0 {
			hostOf(hosts, id).discovered += n
		}
	}
	slices.Sort(ids)
	a.st.Hosts = ids
	d.queued += int64(a.st.Added)
	// The hosts of every offer are inserted before the transaction knows
	// which offers it makes (a commit learns which of its results are
	// stale only once their hosts are locked): a host inserted here that
	// received no URL is deleted again by queueDrop, so that a stale
	// result leaves no trace.
	a.drop = a.drop[:0]
	for _, id := range a.created {
		if a.added[crawl.ID(id)] <= 0 {
			a.drop = append(a.drop, id)
		}
	}
	slices.Sort(a.drop)
	d.hosts += int64(len(a.created) - len(a.drop))
}

// queueDrop queues the deletion of the hosts the transaction inserted and
// admitted nothing to (finish lists them). No other transaction can have
// seen or locked them: they were never committed.
func (a *admission) queueDrop(b *pgx.Batch) {
	if len(a.drop) > 0 {
		b.Queue(`DELETE FROM hosts WHERE id = ANY($1)`, a.drop)
	}
}

// hostDelta is a transaction's change to one host row: counts to add,
// politeness state and trap description to set, best queued priority to
// raise.
type hostDelta struct {
	admitted, queued, fetched, bytes int64
	status                           [6]int64 // responses by status class, 2 to 5
	duplicates, blocked, discovered  int64
	polite                           bool // next, delay and backoff are set
	next, delay                      int64
	backoff                          int32
	trap                             string // "" leaves it as it is
	raised                           bool   // top is set
	top                              int32  // top_priority becomes at least this
}

// noPriority is the top_priority of a host with nothing queued (the
// column's default).
const noPriority = -1_000_000_000

// raise notes that a URL of priority p joined the host's queue.
func (h *hostDelta) raise(p int32) {
	if !h.raised || p > h.top {
		h.raised, h.top = true, p
	}
}

func hostOf(m map[crawl.ID]*hostDelta, id crawl.ID) *hostDelta {
	h := m[id]
	if h == nil {
		h = &hostDelta{}
		m[id] = h
	}
	return h
}

// queueHostDeltas queues one statement applying every host delta. The
// rows are already locked by the transaction.
func queueHostDeltas(b *pgx.Batch, m map[crawl.ID]*hostDelta) {
	if len(m) == 0 {
		return
	}
	ids := make([]int64, 0, len(m))
	for id, h := range m {
		if *h != (hostDelta{}) {
			ids = append(ids, int64(id))
		}
	}
	if len(ids) == 0 {
		return
	}
	slices.Sort(ids)
	n := len(ids)
	admitted, queued, fetched, bytes := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	s2, s3, s4, s5 := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	dups, blocked, disc := make([]int64, n), make([]int64, n), make([]int64, n)
	polite, next, delay, backoff := make([]bool, n), make([]int64, n), make([]int64, n), make([]int32, n)
	traps := make([]string, n)
	raised, top := make([]bool, n), make([]int32, n)
	for i, id := range ids {
		h := m[crawl.ID(id)]
		admitted[i], queued[i], fetched[i], bytes[i] = h.admitted, h.queued, h.fetched, h.bytes
		s2[i], s3[i], s4[i], s5[i] = h.status[2], h.status[3], h.status[4], h.status[5]
		dups[i], blocked[i], disc[i] = h.duplicates, h.blocked, h.discovered
		polite[i], next[i], delay[i], backoff[i] = h.polite, h.next, h.delay, h.backoff
		traps[i] = clean(h.trap)
		raised[i], top[i] = h.raised, h.top
	}
	b.Queue(`UPDATE hosts h SET admitted = h.admitted + d.admitted, queued = h.queued + d.queued,
			fetched = h.fetched + d.fetched, bytes = h.bytes + d.bytes,
			next_fetch_at = CASE WHEN d.polite THEN greatest(h.next_fetch_at, d.next) ELSE h.next_fetch_at END,
			delay_ms = CASE WHEN d.polite THEN d.delay ELSE h.delay_ms END,
			backoff = CASE WHEN d.polite THEN d.backoff ELSE h.backoff END,
			s2xx = h.s2xx + d.s2xx, s3xx = h.s3xx + d.s3xx, s4xx = h.s4xx + d.s4xx, s5xx = h.s5xx + d.s5xx,
			duplicates = h.duplicates + d.duplicates, blocked = h.blocked + d.blocked,
			discovered = h.discovered + d.discovered,
			trap = CASE WHEN d.trap <> '' THEN d.trap ELSE h.trap END,
			top_priority = CASE WHEN d.raised THEN greatest(h.top_priority, d.top) ELSE h.top_priority END
		FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bool[],
			$7::bigint[], $8::bigint[], $9::int[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
			$14::bigint[], $15::bigint[], $16::bigint[], $17::text[], $18::bool[], $19::int[])
			AS d(id, admitted, queued, fetched, bytes, polite, next, delay, backoff,
				s2xx, s3xx, s4xx, s5xx, duplicates, blocked, discovered, trap, raised, top)
		WHERE h.id = d.id`, ids, admitted, queued, fetched, bytes, polite, next, delay, backoff,
		s2, s3, s4, s5, dups, blocked, disc, traps, raised, top)
}

const hostColumns = `id, key, next_fetch_at, delay_ms, backoff, robots_status, robots_body, robots_fetched_at,
	robots_expires_at, robots_failures, admitted, fetched, bytes, trap, lease_until`

func scanHost(sc interface{ Scan(...any) error }) (crawl.Host, error) {
	var h crawl.Host
	var next, delay, until int64
	var rStatus *int32
	var rFetched, rExpires *int64
	var rBody []byte
	var rFailures int32
	if err := sc.Scan(&h.ID, &h.Key, &next, &delay, &h.Backoff, &rStatus, &rBody, &rFetched, &rExpires, &rFailures,
		&h.Admitted, &h.Fetched, &h.Bytes, &h.Trap, &until); err != nil {
		return h, err
	}
	h.NextFetchAt = fromMS(next)
	h.Delay = time.Duration(delay) * time.Millisecond
	h.LeaseUntil = fromMS(until)
	if rStatus != nil {
		h.Robots = &crawl.RobotsRecord{Status: int(*rStatus), Body: rBody, Failures: int(rFailures)}
		if rFetched != nil {
			h.Robots.FetchedAt = fromMS(*rFetched)
		}
		if rExpires != nil {
			h.Robots.ExpiresAt = fromMS(*rExpires)
		}
	} else if rFailures > 0 {
		h.Robots = &crawl.RobotsRecord{Failures: int(rFailures)}
	}
	return h, nil
}

// ClaimHosts leases hosts with queued URLs to owner: hosts whose next fetch
// time has come first, the best of them (by the priority of their best
// queued URL plus their value, see ValueHosts) first, then the others, earliest next fetch first.
// Candidates are locked with FOR UPDATE SKIP LOCKED, so concurrent
// claimers never wait for each other nor take the same host. URLs left in
// flight return to the queue when their host's lease expired, when the
// owner leased the host through an earlier handle (it restarted), or when
// the host is not leased and they were claimed, and the host given up
// (crawl.HostRelease.At), longer than lease ago (their releaser died
// before it committed them).
//
// A claim that finds no host merges the staged offers (StageURLs), if
// any wait, and looks again: a crawl must not end while offers wait.
func (db *DB) ClaimHosts(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]crawl.Host, error) {
	if n <= 0 {
		return nil, nil
	}
	out, err := db.claimHosts(ctx, owner, n, lease, now)
	if err != nil || len(out) > 0 {
		return out, err
	}
	if added, err := db.mergeIfStaged(ctx); err != nil || added == 0 {
		if err != nil {
			return nil, fmt.Errorf("postgres: claim hosts: %w", err)
		}
		return nil, nil
	}
	return db.claimHosts(ctx, owner, n, lease, now)
}

func (db *DB) claimHosts(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]crawl.Host, error) {
	var out []crawl.Host
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		out = nil
		nowMS, cutoff := now.UnixMilli(), now.Add(-lease).UnixMilli()
		var cands []hostCand
		seen := map[int64]bool{}
		scan := func(expired bool) func(pgx.Rows) error {
			return func(rows pgx.Rows) error {
				for rows.Next() {
					c := hostCand{expired: expired}
					if err := rows.Scan(&c.id, &c.next, &c.top); err != nil {
						return err
					}
					c.due = c.next <= nowMS
					if !seen[c.id] {
						seen[c.id] = true
						cands = append(cands, c)
					}
				}
				return nil
			}
		}
		b := t.batch()
		// The ready-host index first: the hosts whose next fetch time came
		// since the last claim become due, those pushed past now stop
		// being due (index hosts_wake), touching only the hosts that
		// changed, so that hosts_best holds exactly the due hosts. Rows
		// another claimer holds are left to the next claim.
		b.Queue(`UPDATE hosts SET due = true WHERE id IN (SELECT id FROM hosts
				WHERE has_queued AND lease_owner IS NULL AND NOT due AND next_fetch_at <= $1 FOR NO KEY UPDATE SKIP LOCKED)`, nowMS)
		b.Queue(`UPDATE hosts SET due = false WHERE id IN (SELECT id FROM hosts
				WHERE has_queued AND lease_owner IS NULL AND due AND next_fetch_at > $1 FOR NO KEY UPDATE SKIP LOCKED)`, nowMS)
		// Hosts whose previous owner's lease ran out or that this owner
		// leased through an earlier handle, and hosts ready to be leased:
		// those whose time has come, the best first (index hosts_best),
		// then, if there are too few of them, the others, earliest first
		// (index hosts_ready); the second branch runs, and locks rows,
		// only when the first returns fewer than n hosts. The candidates
		// are ordered here.
		// An expired host ranks by the best of the URLs it has queued and
		// those about to return to its queue.
		b.Queue(`SELECT id, next_fetch_at, greatest(top_priority,
				(SELECT max(priority) FROM urls WHERE host_id = hosts.id AND state = 1)) + value AS top
			FROM hosts
			WHERE lease_owner IS NOT NULL
			  AND (lease_owner <> $1 AND lease_until < $2 OR lease_owner = $1 AND lease_session <> $4)
			ORDER BY next_fetch_at > $2, top DESC, next_fetch_at, id LIMIT $3 FOR NO KEY UPDATE SKIP LOCKED`,
			owner, nowMS, n, db.session).Query(scan(true))
		b.Queue(`SELECT * FROM (SELECT id, next_fetch_at, top_priority + value FROM hosts
				WHERE has_queued AND lease_owner IS NULL AND due AND next_fetch_at <= $2
				ORDER BY top_priority + value DESC, next_fetch_at, id LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED) due
			UNION ALL
			SELECT * FROM (SELECT id, next_fetch_at, top_priority + value FROM hosts
				WHERE has_queued AND lease_owner IS NULL AND next_fetch_at > $2
				ORDER BY next_fetch_at, id LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED) later
			LIMIT $1`, n, nowMS).Query(scan(false))
		if err := t.send(ctx, b); err != nil {
			return err
		}
		if len(cands) < n {
			// Short of work: look for hosts holding only orphaned URLs
			// (claimed, and their host given up, more than a lease ago).
			b = t.batch()
			b.Queue(`SELECT id, next_fetch_at, top_priority + value FROM hosts
				WHERE lease_owner IS NULL AND lease_until < $1 AND id IN (SELECT host_id FROM urls WHERE state = 1 AND claimed_at < $1)
				ORDER BY next_fetch_at, id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`, cutoff, n).Query(scan(false))
			if err := t.send(ctx, b); err != nil {
				return err
			}
		}
		if len(cands) == 0 {
			return nil
		}
		slices.SortFunc(cands, hostCand.compare)
		cands = cands[:min(n, len(cands))]
		ids := make([]int64, len(cands))
		rank := make(map[crawl.ID]int, len(cands))
		var expired, free []int64
		for i, c := range cands {
			ids[i] = c.id
			rank[crawl.ID(c.id)] = i
			if c.expired {
				expired = append(expired, c.id)
			} else {
				free = append(free, c.id)
			}
		}
		b = t.batch()
		// The URLs are locked in ID order, like those of a commit. Their
		// hosts' best queued priority rises to theirs.
		b.Queue(`WITH r AS (
				UPDATE urls SET state = 0, attempts = greatest(attempts - 1, 0)
				WHERE state = 1 AND id IN (
					SELECT id FROM urls WHERE state = 1 AND (host_id = ANY($1) OR host_id = ANY($2) AND claimed_at < $3
						AND host_id IN (SELECT id FROM hosts WHERE id = ANY($2) AND lease_until < $3))
					ORDER BY id FOR NO KEY UPDATE)
				RETURNING host_id, priority),
			c AS (SELECT host_id, count(*) AS n, max(priority) AS top FROM r GROUP BY host_id),
			h AS (UPDATE hosts SET queued = hosts.queued + c.n, top_priority = greatest(hosts.top_priority, c.top)
				FROM c WHERE hosts.id = c.host_id)
			INSERT INTO counters AS x (slot, queued, inflight, reserved)
				SELECT $4, sum(n), -sum(n), -sum(n) FROM c HAVING count(*) > 0
			ON CONFLICT (slot) DO UPDATE SET queued = x.queued + excluded.queued,
				inflight = x.inflight + excluded.inflight, reserved = x.reserved + excluded.reserved`,
			expired, free, cutoff, t.slot)
		b.Queue(`UPDATE hosts SET lease_owner = $1, lease_session = $2, lease_until = $3 WHERE id = ANY($4) RETURNING `+hostColumns,
			owner, db.session, now.Add(lease).UnixMilli(), ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				h, err := scanHost(rows)
				if err != nil {
					return err
				}
				out = append(out, h)
			}
			return nil
		})
		if err := t.commit(ctx, b); err != nil {
			return err
		}
		// In the order they were chosen.
		slices.SortFunc(out, func(x, y crawl.Host) int { return cmp.Compare(rank[x.ID], rank[y.ID]) })
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: claim hosts: %w", err)
	}
	return out, nil
}

// hostCand is a host ClaimHosts may lease.
type hostCand struct {
	id, next int64
	top      int32 // its best queued priority plus its value
	due      bool  // its next fetch time has come
	expired  bool  // its lease ran out: requeue all its in-flight URLs
}

// compare orders candidates as ClaimHosts leases them: hosts whose time
// has come first, the best first, then by next fetch time and ID.
func (c hostCand) compare(d hostCand) int {
	if c.due != d.due {
		if c.due {
			return -1
		}
		return 1
	}
	if c.due && c.top != d.top {
		return cmp.Compare(d.top, c.top)
	}
	if c.next != d.next {
		return cmp.Compare(c.next, d.next)
	}
	return cmp.Compare(c.id, d.id)
}

// sortedIDs returns ids as int64s in ascending order without repeats: the
// order in which transactions lock host rows.
func sortedIDs(ids []crawl.ID) []int64 {
	out := make([]int64, len(ids))
	for i, id := range ids {
		out[i] = int64(id)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// RenewHosts extends owner's leases.
func (db *DB) RenewHosts(ctx context.Context, owner string, ids []crawl.ID, lease time.Duration, now time.Time) ([]crawl.ID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var lost []crawl.ID
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		lost = nil
		held := map[crawl.ID]bool{}
		sorted := sortedIDs(ids)
		b := t.batch()
		b.Queue(`SELECT id FROM hosts WHERE id = ANY($1) AND lease_owner = $2 AND lease_session = $3
			ORDER BY id FOR NO KEY UPDATE`, sorted, owner, db.session)
		b.Queue(`UPDATE hosts SET lease_until = $1 WHERE id = ANY($2) AND lease_owner = $3 AND lease_session = $4 RETURNING id`,
			now.Add(lease).UnixMilli(), sorted, owner, db.session).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id crawl.ID
				if err := rows.Scan(&id); err != nil {
					return err
				}
				held[id] = true
			}
			return nil
		})
		if err := t.commit(ctx, b); err != nil {
			return err
		}
		for _, id := range ids {
			if !held[id] {
				lost = append(lost, id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: renew host leases: %w", err)
	}
	return lost, nil
}

// ReleaseHosts gives up owner's leases, keeping their politeness state.
func (db *DB) ReleaseHosts(ctx context.Context, owner string, hosts []crawl.HostRelease) error {
	if len(hosts) == 0 {
		return nil
	}
	last := map[crawl.ID]crawl.HostRelease{}
	for _, h := range hosts {
		last[h.ID] = h
	}
	ids := make([]int64, 0, len(last))
	for id := range last {
		ids = append(ids, int64(id))
	}
	slices.Sort(ids)
	next, delay, backoff, at := make([]int64, len(ids)), make([]int64, len(ids)), make([]int32, len(ids)), make([]int64, len(ids))
	for i, id := range ids {
		h := last[crawl.ID(id)]
		next[i], delay[i], backoff[i], at[i] = ms(h.NextFetchAt), h.Delay.Milliseconds(), int32(h.Backoff), ms(h.At)
	}
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`SELECT id FROM hosts WHERE id = ANY($1) AND lease_owner = $2 AND lease_session = $3
			ORDER BY id FOR NO KEY UPDATE`, ids, owner, db.session)
		// A host given a next fetch time is not due until a claim finds
		// that time come. An unleased host's lease_until is when its
		// lease was given up (crawl.HostRelease.At).
		b.Queue(`UPDATE hosts h SET lease_owner = NULL, lease_session = 0, lease_until = r.at,
				due = CASE WHEN r.next <> 0 THEN false ELSE h.due END,
				next_fetch_at = CASE WHEN r.next <> 0 THEN greatest(h.next_fetch_at, r.next) ELSE h.next_fetch_at END,
				delay_ms = CASE WHEN r.next <> 0 THEN r.delay ELSE h.delay_ms END,
				backoff = CASE WHEN r.next <> 0 THEN r.backoff ELSE h.backoff END
			FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $7::bigint[]) AS r(id, next, delay, backoff, at)
			WHERE h.id = r.id AND h.lease_owner = $5 AND h.lease_session = $6`, ids, next, delay, backoff, owner, db.session, at)
		return t.commit(ctx, b)
	})
	if err != nil {
		return fmt.Errorf("postgres: release hosts: %w", err)
	}
	return nil
}

// claimSQL claims the best ready URLs of many hosts in one statement:
// for each host of $1 (in that order) whose lease the owner holds, and
// while the crawl's byte budget is not spent, up to $5 of its queued URLs
// due by $2, best first (the host rows are already locked by the
// transaction). The page budget, when set, is shared in the hosts' order:
// the claims are numbered across hosts and those past what the budget has
// left are not made (run under the budget lock). The claimed URLs move
// from their hosts' and the crawl's queued counts to in flight, in the
// transaction's counters slot. A held host whose bytes reached the host
// byte budget claims nothing and has its queued URLs skipped instead,
// locked in ID order (as every transaction that waits for URL rows does),
// while the page budget has room after the hosts before it.
//
// A host's best queued priority becomes that of its next queued URL (the
// statement's snapshot still shows the claimed URLs as queued). Each
// claimed URL comes with its host and its recorded page's last fetch, if
// any (crawl.PrevFetch): the page row is only read, never locked. One
// statement for all the hosts, not one a host: the server plans, starts
// and answers once, and updates the counters row once.
//
// Parameters: $1 hosts, $2 now, $3 owner, $4 session, $5 n, $6 MaxBytes,
// $7 counters slot, $8 MaxPages, $9 MaxHostBytes (0: no budget), $10
// whether hosts with runs are claimed for (else they are left out; see
// claimPacked). A host's best queued priority counts its runs'.
var claimSQL = `WITH x AS (
	SELECT h.id, x.ord, h.bytes
	FROM unnest($1::bigint[]) WITH ORDINALITY AS x(id, ord)
	JOIN hosts h ON h.id = x.id
	WHERE h.lease_owner = $3 AND h.lease_session = $4
	  AND ($6::bigint <= 0 OR (SELECT sum(bytes) FROM counters) < $6)
	  AND ($10::bool OR NOT EXISTS (SELECT 1 FROM queue_runs r WHERE r.host_id = h.id))
), b AS (
	SELECT CASE WHEN $8::bigint > 0 THEN greatest($8 - (SELECT coalesce(sum(reserved), 0) FROM counters), 0)::bigint END AS left
), pick AS (
	SELECT u.id, x.ord, row_number() OVER (ORDER BY x.ord, u.priority DESC, u.seq) AS k
	FROM x CROSS JOIN LATERAL (
		SELECT id, priority, seq FROM urls
		WHERE host_id = x.id AND state = 0 AND retry_at <= $2
		ORDER BY priority DESC, seq
		LIMIT $5
		FOR UPDATE SKIP LOCKED) AS u
	WHERE $9::bigint <= 0 OR x.bytes < $9
), c AS (
	UPDATE urls SET state = 1, attempts = attempts + 1, claimed_at = $2
	FROM pick, b
	WHERE urls.id = pick.id AND (b.left IS NULL OR pick.k <= b.left)
	RETURNING urls.id, urls.host_id, urls.url, urls.depth, urls.priority, urls.attempts - 1 AS attempts, urls.seq,
		urls.kind, urls.lastmod, urls.via, urls.changefreq
), sx AS (
	SELECT x.id FROM x, b
	WHERE $9::bigint > 0 AND x.bytes >= $9
	  AND (b.left IS NULL OR (SELECT count(*) FROM pick WHERE pick.ord < x.ord AND pick.k <= b.left) < b.left)
), s AS (
	UPDATE urls SET state = 5, error = 'host byte budget reached'
	WHERE id IN (
		SELECT id FROM urls WHERE host_id IN (SELECT id FROM sx) AND state = 0
		ORDER BY id
		FOR NO KEY UPDATE)
	RETURNING host_id
), k AS (
	SELECT host_id, sum(n) AS n, sum(skipped) AS skipped FROM (
		SELECT host_id, 1 AS n, 0 AS skipped FROM c
		UNION ALL SELECT host_id, 0, 1 FROM s) AS a
	GROUP BY host_id
), h AS (
	UPDATE hosts SET queued = queued - k.n - k.skipped,
		top_priority = CASE WHEN k.skipped > 0 THEN ` + strconv.Itoa(noPriority) + ` ELSE greatest(coalesce((
			SELECT priority FROM urls WHERE host_id = k.host_id AND state = 0 AND id NOT IN (SELECT id FROM c WHERE c.host_id = k.host_id)
			ORDER BY priority DESC, seq LIMIT 1), ` + strconv.Itoa(noPriority) + `),
			(SELECT max(top) FROM queue_runs r WHERE r.host_id = k.host_id)) END
	FROM k WHERE hosts.id = k.host_id
), t AS (
	INSERT INTO counters AS x (slot, queued, inflight, reserved, skipped)
		SELECT $7, -sum(k.n + k.skipped), sum(k.n), sum(k.n), sum(k.skipped) FROM k HAVING count(*) > 0
	ON CONFLICT (slot) DO UPDATE SET queued = x.queued + excluded.queued, inflight = x.inflight + excluded.inflight,
		reserved = x.reserved + excluded.reserved, skipped = x.skipped + excluded.skipped
)
SELECT c.host_id, c.id, ` + fullURLSQL("c.url", "hk.key") + `, c.depth, c.priority, c.attempts, c.kind, c.lastmod, c.via, c.changefreq, p.url_id IS NOT NULL,
	coalesce(p.etag, ''), coalesce(p.last_modified, ''), p.content_hash, coalesce(p.bytes, 0), coalesce(p.fetched_at, 0),
	coalesce(p.interval_ms, 0), coalesce(p.misses, 0), coalesce(p.doc_type, '')
FROM c JOIN hosts hk ON hk.id = c.host_id LEFT JOIN pages p ON p.url_id = c.id
ORDER BY c.host_id, c.priority DESC, c.seq`

// RecordTraps records hosts' suspected-trap descriptions, keeping a
// host's first. Each host is its own statement, outside any transaction:
// another process's commit may hold the host's row, and one row lock at a
// time cannot deadlock with it.
func (db *DB) RecordTraps(ctx context.Context, traps map[crawl.ID]string) error {
	if db.readOnly {
		return errors.New("postgres: record traps: store is open read-only")
	}
	for id, trap := range traps {
		if _, err := db.pool.Exec(ctx, `UPDATE hosts SET trap = $1 WHERE id = $2 AND trap = ''`, clean(trap), int64(id)); err != nil {
			return fmt.Errorf("postgres: record traps: %w", err)
		}
	}
	return nil
}

// ClaimURLsOf claims for every host, in the order given (the page budget
// goes to the first), in one transaction and one round trip: the hosts'
// rows are locked first, in ID order (the order commits lock them in, so
// that a claim and a commit cannot deadlock on them), then one statement
// marks the hosts' best ready URLs in flight (claimSQL). A host given
// twice is claimed for at its first place. Hosts with packed URLs (runs)
// are claimed for in a second transaction (claimPacked), which makes the
// URLs it takes from runs rows first.
func (db *DB) ClaimURLsOf(ctx context.Context, owner string, hosts []crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.Claim, error) {
	cs := make([]hostClaim, len(hosts))
	byID := make(map[crawl.ID][]int, len(hosts)) // indexes in hosts
	order := make([]int64, 0, len(hosts))        // the hosts, each once, in order
	for i, h := range hosts {
		cs[i].host = h
		if byID[h] == nil {
			order = append(order, int64(h))
		}
		byID[h] = append(byID[h], i)
	}
	var reserved, bytes int64
	var packed map[int64]bool // hosts with runs
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		for i := range cs {
			cs[i].held, cs[i].out = nil, nil
		}
		packed = map[int64]bool{}
		b := t.batch()
		db.queueClaim(b, t, owner, cs, byID, order, n, lim, now, false)
		b.Queue(`SELECT DISTINCT host_id FROM queue_runs WHERE host_id = ANY($1)`, order).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				packed[id] = true
			}
			return rows.Err()
		})
		queueBudgets(b, lim, &reserved, &bytes)
		return t.commit(ctx, b)
	})
	if err == nil && len(packed) > 0 {
		var porder []int64
		for _, id := range order {
			if packed[id] {
				porder = append(porder, id)
			}
		}
		err = db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
			for _, id := range porder {
				for _, i := range byID[crawl.ID(id)] {
					cs[i].held, cs[i].out = nil, nil
				}
			}
			return db.claimPacked(ctx, t, owner, cs, byID, porder, n, lim, now, &reserved, &bytes)
		})
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: claim urls: %w", err)
	}
	out := make([]crawl.Claim, len(cs))
	for i := range cs {
		c := &cs[i]
		out[i].URLs = c.out
		switch {
		case len(c.out) > 0:
		case c.held == nil || !*c.held:
			out[i].Err = fmt.Errorf("postgres: claim urls of host %d: %w", c.host, crawl.ErrLeaseLost)
		case lim.MaxBytes > 0 && bytes >= lim.MaxBytes:
			out[i].Err = crawl.ErrByteBudget
		case lim.MaxPages > 0 && reserved >= lim.MaxPages:
			out[i].Err = crawl.ErrPageBudget
		case lim.MaxHostBytes > 0 && c.hostBytes >= lim.MaxHostBytes:
			// The host spent its share: its queued URLs were skipped.
			out[i].Err = crawl.ErrHostBytes
		default:
			// Nothing ready: when will something be?
			var at *int64
			if err := db.pool.QueryRow(ctx, `SELECT min(retry_at) FROM urls WHERE host_id = $1 AND state = 0`, c.host).Scan(&at); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return out[:i], fmt.Errorf("postgres: claim urls of host %d: %w", c.host, err)
			}
			if at != nil {
				out[i].Next = fromMS(max(*at, 1))
			}
		}
	}
	return out, nil
}

// queueClaim queues, in the claim transaction t, the locks of the hosts
// of order (in ID order) and of the page budget, and claimSQL for them,
// whose answers go to cs (by byID). Unless packed, it leaves out the
// hosts with runs.
func (db *DB) queueClaim(b *pgx.Batch, t *txn, owner string, cs []hostClaim, byID map[crawl.ID][]int, order []int64, n int, lim crawl.Limits,
	now time.Time, packed bool) {
	ids := slices.Clone(order)
	slices.Sort(ids)
	// Lock order is hosts, then URLs, then counters.
	b.Queue(`SELECT id, lease_owner = $2 AND lease_session = $3, bytes FROM hosts
		WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, ids, owner, db.session).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id int64
			var held bool
			var bytes int64
			if err := rows.Scan(&id, &held, &bytes); err != nil {
				return err
			}
			for _, i := range byID[crawl.ID(id)] {
				cs[i].held, cs[i].hostBytes = &held, bytes
			}
		}
		return nil
	})
	if lim.MaxPages > 0 {
		// Only claims raise the reserved count; they take turns, so the
		// budget holds across processes.
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, db.budgetLock())
	}
	b.Queue(claimSQL, order, now.UnixMilli(), owner, db.session, int64(max(n, 0)), lim.MaxBytes, t.slot,
		lim.MaxPages, lim.MaxHostBytes, packed).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			u := crawl.ClaimedURL{ClaimedAt: time.UnixMilli(now.UnixMilli())}
			var lastmod, fetched, interval int64
			var via string
			var recorded bool
			var prev crawl.PrevFetch
			var misses int32
			if err := rows.Scan(&u.HostID, &u.ID, &u.URL, &u.Depth, &u.Priority, &u.Attempts, &u.Kind, &lastmod, &via, &u.ChangeFreq,
				&recorded, &prev.ETag, &prev.LastModified, &prev.ContentHash, &prev.Bytes, &fetched, &interval, &misses,
				&prev.Type); err != nil {
				return err
			}
			u.LastMod, u.Via = fromMS(lastmod), crawl.Via(via)
			if recorded {
				prev.FetchedAt, prev.Interval = fromMS(fetched), time.Duration(interval)*time.Millisecond
				prev.Misses, prev.ChangeFreq = int(misses), u.ChangeFreq
				u.Prev = &prev
			}
			c := &cs[byID[u.HostID][0]]
			c.out = append(c.out, u)
		}
		return nil
	})
}

// queueBudgets queues the read of the pages reserved and the bytes
// fetched, when lim has a budget of either.
func queueBudgets(b *pgx.Batch, lim crawl.Limits, reserved, bytes *int64) {
	if lim.MaxPages > 0 || lim.MaxBytes > 0 {
		b.Queue(`SELECT coalesce(sum(reserved), 0)::bigint, coalesce(sum(bytes), 0)::bigint FROM counters`).QueryRow(func(row pgx.Row) error {
			return row.Scan(reserved, bytes)
		})
	}
}

// ClaimURLs marks the host's best ready URLs in flight, in one round trip,
// with what is known of their last fetch (ClaimedURL.Prev).
// Once the host's bytes reached lim.MaxHostBytes, it claims nothing and
// skips the host's queued URLs instead.
func (db *DB) ClaimURLs(ctx context.Context, owner string, host crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.ClaimedURL, time.Time, error) {
	cs, err := db.ClaimURLsOf(ctx, owner, []crawl.ID{host}, n, lim, now)
	if err != nil {
		return nil, time.Time{}, err
	}
	return cs[0].URLs, cs[0].Next, cs[0].Err
}

// hostClaim is one host's part of a claim (ClaimURLsOf).
type hostClaim struct {
	host      crawl.ID
	out       []crawl.ClaimedURL
	held      *bool // whether owner holds the host's lease; nil: no such host
	hostBytes int64
}

// ValueHosts learns what each host is worth to a crawl after research from
// its most recently recorded pages, when it recorded enough responses
// since it was last valued (crawl.HostValueStale), and returns the values
// in the order of ids (0 for an unknown host). ClaimHosts leases due hosts
// by the priority of their best queued URL plus their value, computed by
// hostValueSQL. Each host to revalue is valued in a transaction of its
// own, and only when no other transaction holds its row (a commit
// admitting URLs to it, a claim): a host's value is read from up to
// crawl.HostValueWindow pages and their links, and holding many hosts'
// rows through that would hold up the commits that admit URLs to them. A
// host skipped keeps its value until a later call.
func (db *DB) ValueHosts(ctx context.Context, ids []crawl.ID) ([]int, error) {
	out := make([]int, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if db.readOnly {
		return nil, errors.New("postgres: value hosts: store is open read-only")
	}
	sorted := sortedIDs(ids)
	var stale []int64
	var id, fetched, valued int64
	rows, err := db.pool.Query(ctx, `SELECT id, fetched, value_fetched FROM hosts WHERE id = ANY($1) AND fetched <> value_fetched ORDER BY id`, sorted)
	if err == nil {
		_, err = pgx.ForEachRow(rows, []any{&id, &fetched, &valued}, func() error {
			if crawl.HostValueStale(valued, fetched) {
				stale = append(stale, id)
			}
			return nil
		})
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: value hosts: %w", err)
	}
	for _, id := range stale {
		err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
			held := false
			b := t.batch()
			b.Queue(`SELECT count(*) > 0 FROM (SELECT 1 FROM hosts WHERE id = $1 FOR NO KEY UPDATE SKIP LOCKED) l`, id).QueryRow(func(row pgx.Row) error {
				return row.Scan(&held)
			})
			if err := t.send(ctx, b); err != nil {
				return err
			}
			b = t.batch()
			if held {
				b.Queue(hostValueSQL, []int64{id}, crawl.HostValueWindow)
			}
			return t.commit(ctx, b)
		})
		if err != nil {
			return nil, fmt.Errorf("postgres: value hosts: %w", err)
		}
	}
	values := make(map[int64]int, len(sorted))
	var v int32
	rows, err = db.pool.Query(ctx, `SELECT id, value FROM hosts WHERE id = ANY($1)`, sorted)
	if err == nil {
		_, err = pgx.ForEachRow(rows, []any{&id, &v}, func() error {
			values[id] = int(v)
			return nil
		})
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: value hosts: %w", err)
	}
	for i, id := range ids {
		out[i] = values[int64(id)]
	}
	return out, nil
}

// MarkMirror records host as a mirror of original (its pages are copies
// of original's pages), or, with original 0, as no mirror: a mirror's
// value is at most crawl.MirrorValue, where ValueHosts returns it and
// where ClaimHosts orders hosts by it, and HostStats names its original.
// A cleared mark has the host valued anew from its pages. A host or an
// original that is not known, or a host marked as its own mirror, is
// left as it is.
func (db *DB) MarkMirror(ctx context.Context, host, original crawl.ID) error {
	if db.readOnly {
		return errors.New("postgres: mark mirror: store is open read-only")
	}
	_, err := db.pool.Exec(ctx, `UPDATE hosts SET mirror_of = $2,
			value = CASE WHEN $2 <> 0 THEN least(value, $3) WHEN fetched = 0 THEN 0 ELSE value END,
			value_fetched = CASE WHEN $2 <> 0 THEN value_fetched ELSE 0 END
		WHERE id = $1 AND $1 <> $2 AND mirror_of <> $2
		AND ($2 = 0 OR EXISTS (SELECT 1 FROM hosts WHERE id = $2))`, int64(host), int64(original), crawl.MirrorValue)
	if err != nil {
		return fmt.Errorf("postgres: mark mirror: %w", err)
	}
	return nil
}

// LiveLeases returns how many hosts are leased with a lease that runs past
// now: whether processes of the crawl are still at work (a process that
// died holds its hosts only until their leases run out).
func (db *DB) LiveLeases(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM hosts WHERE lease_owner IS NOT NULL AND lease_until > $1`, ms(now)).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: live leases: %w", err)
	}
	return n, nil
}
