package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/acrawler/acrawler/internal/crawl"
)

// AddURLs offers URLs to the frontier. The hosts involved are locked in ID
// order for the transaction, so the per-host cap holds across processes.
func (db *DB) AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	if len(urls) == 0 {
		return crawl.AddStats{}, nil
	}
	var st crawl.AddStats
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		a := newAdmission(lim)
		a.prepare(urls)
		b := t.batch()
		a.queueLock(b, nil)
		if err := t.send(ctx, b); err != nil {
			return err
		}
		a.offer(urls)
		b = t.batch()
		a.queueInsert(b, time.Now())
		if err := t.send(ctx, b); err != nil {
			return err
		}
		deltas := map[crawl.ID]*hostDelta{}
		a.finish(deltas, &t.delta)
		b = t.batch()
		queueHostDeltas(b, deltas)
		st = a.st
		return t.commit(ctx, b)
	})
	if err != nil {
		return crawl.AddStats{}, fmt.Errorf("postgres: add urls: %w", err)
	}
	return st, nil
}

// admission admits offered URLs under the depth and per-host budgets in
// three steps: prepare and queueLock (insert the new hosts, lock every
// host involved in ID order, read their admitted counts and which offered
// URLs are known), offer (decide, in offer order, as the SQLite store
// does), queueInsert (insert the admitted URLs, numbering them in offer
// order from the shared sequence).
type admission struct {
	lim      crawl.Limits
	keys     map[crawl.ID]string // hosts of the offers within depth
	ids      []int64             // URL IDs of the offers within depth
	admitted map[crawl.ID]int64  // per host, before this transaction
	added    map[crawl.ID]int64  // per host, by this transaction
	known    map[crawl.ID]bool   // URLs in the store or admitted by this transaction
	capped   map[crawl.ID]bool
	insert   []crawl.NewURL
	newHosts int64
	st       crawl.AddStats
}

func newAdmission(lim crawl.Limits) *admission {
	return &admission{lim: lim, keys: map[crawl.ID]string{}, admitted: map[crawl.ID]int64{},
		added: map[crawl.ID]int64{}, known: map[crawl.ID]bool{}, capped: map[crawl.ID]bool{}}
}

func (a *admission) overDepth(u crawl.NewURL) bool {
	return a.lim.MaxDepth > 0 && u.Depth > a.lim.MaxDepth
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
			ON CONFLICT (id) DO NOTHING`, newIDs, newKeys).Exec(func(ct pgconn.CommandTag) error {
			a.newHosts = ct.RowsAffected()
			return nil
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
		b.Queue(`SELECT id FROM urls WHERE id = ANY($1)`, a.ids).Query(func(rows pgx.Rows) error {
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
// set and the admitted counts stay true.
func (a *admission) offer(urls []crawl.NewURL) {
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
		}
	}
}

// queueInsert queues the insertion of the admitted URLs. Their seq values
// come from the shared sequence in offer order (PostgreSQL evaluates the
// column default per row in the order of the ORDER BY).
func (a *admission) queueInsert(b *pgx.Batch, now time.Time) {
	if len(a.insert) == 0 {
		return
	}
	n := len(a.insert)
	ids, hosts, parents := make([]int64, n), make([]int64, n), make([]int64, n)
	urls, vias := make([]string, n), make([]string, n)
	depths, prios := make([]int32, n), make([]int32, n)
	for i, u := range a.insert {
		ids[i], hosts[i], parents[i] = int64(u.ID), int64(u.HostID), int64(u.Parent)
		urls[i], vias[i] = clean(u.URL), clean(string(u.Via))
		depths[i], prios[i] = int32(u.Depth), int32(u.Priority)
	}
	b.Queue(`INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id, discovered_at)
		SELECT id, url, host_id, depth, priority, 0, via, parent_id, $8
		FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::int[], $5::int[], $6::text[], $7::bigint[])
			WITH ORDINALITY AS t(id, url, host_id, depth, priority, via, parent_id, ord)
		ORDER BY ord
		ON CONFLICT (id) DO NOTHING
		RETURNING id`, ids, urls, hosts, depths, prios, vias, parents, now.UnixMilli()).Query(func(rows pgx.Rows) error {
		got := make(map[crawl.ID]bool, n)
		for rows.Next() {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			got[id] = true
		}
		if err := rows.Err(); err != nil {
			return err
		}
		// A conflict cannot happen with the hosts locked, unless a URL ID
		// was stored under another host; count such a URL as known.
		for _, u := range a.insert {
			if !got[u.ID] {
				a.added[u.HostID]--
				a.st.Known++
			}
		}
		return nil
	})
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
	}
	slices.Sort(ids)
	a.st.Hosts = ids
	d.queued += int64(a.st.Added)
	d.hosts += a.newHosts
}

// hostDelta is a transaction's change to one host row.
type hostDelta struct {
	admitted, queued, fetched, bytes int64
	polite                           bool // next, delay and backoff are set
	next, delay                      int64
	backoff                          int32
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
	polite, next, delay, backoff := make([]bool, n), make([]int64, n), make([]int64, n), make([]int32, n)
	for i, id := range ids {
		h := m[crawl.ID(id)]
		admitted[i], queued[i], fetched[i], bytes[i] = h.admitted, h.queued, h.fetched, h.bytes
		polite[i], next[i], delay[i], backoff[i] = h.polite, h.next, h.delay, h.backoff
	}
	b.Queue(`UPDATE hosts h SET admitted = h.admitted + d.admitted, queued = h.queued + d.queued,
			fetched = h.fetched + d.fetched, bytes = h.bytes + d.bytes,
			next_fetch_at = CASE WHEN d.polite THEN greatest(h.next_fetch_at, d.next) ELSE h.next_fetch_at END,
			delay_ms = CASE WHEN d.polite THEN d.delay ELSE h.delay_ms END,
			backoff = CASE WHEN d.polite THEN d.backoff ELSE h.backoff END
		FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bool[],
			$7::bigint[], $8::bigint[], $9::int[]) AS d(id, admitted, queued, fetched, bytes, polite, next, delay, backoff)
		WHERE h.id = d.id`, ids, admitted, queued, fetched, bytes, polite, next, delay, backoff)
}

const hostColumns = `id, key, next_fetch_at, delay_ms, backoff, robots_status, robots_body, robots_fetched_at,
	robots_expires_at, robots_failures, admitted, fetched, bytes, lease_until`

func scanHost(sc interface{ Scan(...any) error }) (crawl.Host, error) {
	var h crawl.Host
	var next, delay, until int64
	var rStatus *int32
	var rFetched, rExpires *int64
	var rBody []byte
	var rFailures int32
	if err := sc.Scan(&h.ID, &h.Key, &next, &delay, &h.Backoff, &rStatus, &rBody, &rFetched, &rExpires, &rFailures,
		&h.Admitted, &h.Fetched, &h.Bytes, &until); err != nil {
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

// ClaimHosts leases hosts with queued URLs to owner. Candidates are locked
// with FOR UPDATE SKIP LOCKED, so concurrent claimers never wait for each
// other nor take the same host. URLs left in flight return to the queue
// when their host's lease expired, when the owner leased the host through
// an earlier handle (it restarted), or when the host is not leased and they
// were claimed longer than lease ago (their releaser died before it
// committed them).
func (db *DB) ClaimHosts(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]crawl.Host, error) {
	if n <= 0 {
		return nil, nil
	}
	var out []crawl.Host
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		out = nil
		nowMS, cutoff := now.UnixMilli(), now.Add(-lease).UnixMilli()
		type cand struct {
			id, next int64
			expired  bool // its lease ran out: requeue all its in-flight URLs
		}
		var cands []cand
		seen := map[int64]bool{}
		scan := func(expired bool) func(pgx.Rows) error {
			return func(rows pgx.Rows) error {
				for rows.Next() {
					c := cand{expired: expired}
					if err := rows.Scan(&c.id, &c.next); err != nil {
						return err
					}
					if !seen[c.id] {
						seen[c.id] = true
						cands = append(cands, c)
					}
				}
				return nil
			}
		}
		b := t.batch()
		// Hosts whose previous owner's lease ran out or that this owner
		// leased through an earlier handle, and hosts ready to be leased.
		// Each query uses its own partial index; the union is ordered here.
		b.Queue(`SELECT id, next_fetch_at FROM hosts
			WHERE lease_owner IS NOT NULL
			  AND (lease_owner <> $1 AND lease_until < $2 OR lease_owner = $1 AND lease_session <> $4)
			ORDER BY next_fetch_at, id LIMIT $3 FOR NO KEY UPDATE SKIP LOCKED`, owner, nowMS, n, db.session).Query(scan(true))
		b.Queue(`SELECT id, next_fetch_at FROM hosts WHERE queued > 0 AND lease_owner IS NULL
			ORDER BY next_fetch_at, id LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED`, n).Query(scan(false))
		if err := t.send(ctx, b); err != nil {
			return err
		}
		if len(cands) < n {
			// Short of work: look for hosts holding only orphaned URLs.
			b = t.batch()
			b.Queue(`SELECT id, next_fetch_at FROM hosts
				WHERE lease_owner IS NULL AND id IN (SELECT host_id FROM urls WHERE state = 1 AND claimed_at < $1)
				ORDER BY next_fetch_at, id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`, cutoff, n).Query(scan(false))
			if err := t.send(ctx, b); err != nil {
				return err
			}
		}
		if len(cands) == 0 {
			return nil
		}
		sort.Slice(cands, func(i, j int) bool {
			if cands[i].next != cands[j].next {
				return cands[i].next < cands[j].next
			}
			return cands[i].id < cands[j].id
		})
		cands = cands[:min(n, len(cands))]
		ids := make([]int64, len(cands))
		var expired, free []int64
		for i, c := range cands {
			ids[i] = c.id
			if c.expired {
				expired = append(expired, c.id)
			} else {
				free = append(free, c.id)
			}
		}
		b = t.batch()
		b.Queue(`WITH r AS (
				UPDATE urls SET state = 0, attempts = greatest(attempts - 1, 0)
				WHERE state = 1 AND (host_id = ANY($1) OR host_id = ANY($2) AND claimed_at < $3)
				RETURNING host_id),
			c AS (SELECT host_id, count(*) AS n FROM r GROUP BY host_id),
			h AS (UPDATE hosts SET queued = hosts.queued + c.n FROM c WHERE hosts.id = c.host_id)
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
		sort.Slice(out, func(i, j int) bool {
			if !out[i].NextFetchAt.Equal(out[j].NextFetchAt) {
				return out[i].NextFetchAt.Before(out[j].NextFetchAt)
			}
			return out[i].ID < out[j].ID
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: claim hosts: %w", err)
	}
	return out, nil
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
	next, delay, backoff := make([]int64, len(ids)), make([]int64, len(ids)), make([]int32, len(ids))
	for i, id := range ids {
		h := last[crawl.ID(id)]
		next[i], delay[i], backoff[i] = ms(h.NextFetchAt), h.Delay.Milliseconds(), int32(h.Backoff)
	}
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`SELECT id FROM hosts WHERE id = ANY($1) AND lease_owner = $2 AND lease_session = $3
			ORDER BY id FOR NO KEY UPDATE`, ids, owner, db.session)
		b.Queue(`UPDATE hosts h SET lease_owner = NULL, lease_session = 0, lease_until = 0,
				next_fetch_at = CASE WHEN r.next <> 0 THEN greatest(h.next_fetch_at, r.next) ELSE h.next_fetch_at END,
				delay_ms = CASE WHEN r.next <> 0 THEN r.delay ELSE h.delay_ms END,
				backoff = CASE WHEN r.next <> 0 THEN r.backoff ELSE h.backoff END
			FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[]) AS r(id, next, delay, backoff)
			WHERE h.id = r.id AND h.lease_owner = $5 AND h.lease_session = $6`, ids, next, delay, backoff, owner, db.session)
		return t.commit(ctx, b)
	})
	if err != nil {
		return fmt.Errorf("postgres: release hosts: %w", err)
	}
	return nil
}

// claimSQL claims a host's best ready URLs in one statement: it checks the
// lease (the host row is already locked by the transaction) and the byte
// budget, claims no more than the page budget has left (in the budgeted
// form, run under the budget lock), then moves the claimed URLs from the
// host's and the crawl's queued counts to in flight, in the transaction's
// counters slot.
const claimSQL = `WITH c AS (
	UPDATE urls SET state = 1, attempts = attempts + 1, claimed_at = $2
	WHERE id IN (
		SELECT id FROM urls
		WHERE host_id = $1 AND state = 0 AND retry_at <= $2
		  AND EXISTS (SELECT 1 FROM hosts WHERE id = $1 AND lease_owner = $3 AND lease_session = $4)
		  AND ($6::bigint <= 0 OR (SELECT sum(bytes) FROM counters) < $6)
		ORDER BY priority DESC, seq
		LIMIT %s
		FOR UPDATE SKIP LOCKED)
	RETURNING id, url, depth, priority, attempts - 1 AS attempts, seq
), k AS (
	SELECT count(*) AS n FROM c
), h AS (
	UPDATE hosts SET queued = queued - k.n FROM k WHERE hosts.id = $1 AND k.n > 0
), t AS (
	INSERT INTO counters AS x (slot, queued, inflight, reserved) SELECT $7, -k.n, k.n, k.n FROM k WHERE k.n > 0
	ON CONFLICT (slot) DO UPDATE SET queued = x.queued + excluded.queued, inflight = x.inflight + excluded.inflight,
		reserved = x.reserved + excluded.reserved
)
SELECT id, url, depth, priority, attempts FROM c ORDER BY priority DESC, seq`

var (
	claimFree     = fmt.Sprintf(claimSQL, "$5")
	claimBudgeted = fmt.Sprintf(claimSQL, "(SELECT greatest(least($5, $8 - coalesce(sum(reserved), 0)::bigint), 0) FROM counters)")
)

// ClaimURLs marks the host's best ready URLs in flight, in one round trip.
func (db *DB) ClaimURLs(ctx context.Context, owner string, host crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.ClaimedURL, time.Time, error) {
	var out []crawl.ClaimedURL
	var held *bool
	var reserved, bytes int64
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		out, held = nil, nil
		b := t.batch()
		// Lock the host first: lock order is hosts, then URLs, then counters.
		b.Queue(`SELECT lease_owner = $2 AND lease_session = $3 FROM hosts WHERE id = $1 FOR NO KEY UPDATE`,
			int64(host), owner, db.session).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&held); err != nil {
					return err
				}
			}
			return nil
		})
		q, args := claimFree, []any{int64(host), now.UnixMilli(), owner, db.session, int64(max(n, 0)), lim.MaxBytes, t.slot}
		if lim.MaxPages > 0 {
			// Only claims raise the reserved count; they take turns, so the
			// budget holds across processes.
			b.Queue(`SELECT pg_advisory_xact_lock($1)`, db.budgetLock())
			q, args = claimBudgeted, append(args, lim.MaxPages)
		}
		b.Queue(q, args...).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				c := crawl.ClaimedURL{HostID: host}
				if err := rows.Scan(&c.ID, &c.URL, &c.Depth, &c.Priority, &c.Attempts); err != nil {
					return err
				}
				out = append(out, c)
			}
			return nil
		})
		if lim.MaxPages > 0 || lim.MaxBytes > 0 {
			b.Queue(`SELECT coalesce(sum(reserved), 0)::bigint, coalesce(sum(bytes), 0)::bigint FROM counters`).QueryRow(func(row pgx.Row) error {
				return row.Scan(&reserved, &bytes)
			})
		}
		return t.commit(ctx, b)
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("postgres: claim urls of host %d: %w", host, err)
	}
	if len(out) > 0 {
		return out, time.Time{}, nil
	}
	switch {
	case held == nil || !*held:
		return nil, time.Time{}, fmt.Errorf("postgres: claim urls of host %d: %w", host, crawl.ErrLeaseLost)
	case lim.MaxBytes > 0 && bytes >= lim.MaxBytes:
		return nil, time.Time{}, crawl.ErrByteBudget
	case lim.MaxPages > 0 && reserved >= lim.MaxPages:
		return nil, time.Time{}, crawl.ErrPageBudget
	}
	var at *int64
	if err := db.pool.QueryRow(ctx, `SELECT min(retry_at) FROM urls WHERE host_id = $1 AND state = 0`, host).Scan(&at); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, time.Time{}, nil
		}
		return nil, time.Time{}, fmt.Errorf("postgres: claim urls of host %d: %w", host, err)
	}
	if at == nil {
		return nil, time.Time{}, nil
	}
	return nil, fromMS(max(*at, 1)), nil
}
