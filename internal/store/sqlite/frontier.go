package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// txn is one write transaction with the counter deltas it accumulates.
type txn struct {
	db     *DB
	tx     *sql.Tx
	delta  map[string]int64
	fts    []ftsOp              // full-text writes, applied at the end
	segs   *segWriter           // the segments engine's writes (nil: none yet)
	stmts  map[string]*sql.Stmt // statements prepared in this transaction (prep)
	staged stagedTx             // what it did to the staged inbound links
	// inURLs holds URL IDs the last addURLs found in urls or added to
	// it: a batch's links to them need not ask urls again (flushLinkURLs).
	inURLs map[crawl.ID]bool
	// confirmed are URL IDs the transaction found in urls or added to
	// it, for db.knownURLs once it commits.
	confirmed []crawl.ID
	// indexDue: the transaction writes the full-text rows that have waited
	// the index delay (a commit's do; pending.go).
	indexDue bool
	// anchorsFresh: the transaction leaves every document's anchor texts
	// refreshed (RefreshAnchors); see DB.anchorsFresh.
	anchorsFresh bool
}

func (t *txn) add(name string, n int64) {
	if n != 0 {
		t.delta[name] += n
	}
}

// tx runs fn in a write transaction and applies its counter deltas in it.
// An error SQLite would give again is marked crawl.ErrRefused (refusal).
func (db *DB) tx(ctx context.Context, fn func(*txn) error) (err error) {
	defer func() { err = refusal(err) }()
	if db.w == nil {
		return errors.New("sqlite: database is open read-only")
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	t := &txn{db: db, tx: tx, delta: map[string]int64{}}
	if !db.staged.loaded {
		if err := t.loadStaged(ctx); err != nil {
			tx.Rollback()
			return err
		}
	}
	if !db.runsRead {
		if err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM queue_runs)`).Scan(&db.hasRuns); err != nil {
			tx.Rollback()
			return err
		}
		db.runsRead = true
	}
	if err := fn(t); err != nil {
		tx.Rollback()
		return err
	}
	if err := t.flushFTS(ctx); err != nil {
		tx.Rollback()
		return err
	}
	if t.segs != nil {
		if err := t.segs.finish(ctx); err != nil {
			tx.Rollback()
			return fmt.Errorf("full-text index: %w", err)
		}
	}
	for name, n := range t.delta {
		if _, err := t.exec(ctx, `UPDATE counters SET value = value + ? WHERE name = ?`, n, name); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	db.ckpt.wrote()
	db.anchorsFresh = t.anchorsFresh
	db.staged.apply(&t.staged)
	for _, id := range t.confirmed {
		db.knownURLs.add(id)
	}
	if len(db.want) > 0 {
		db.prepareWanted(ctx)
	}
	return nil
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

// AddURLs offers URLs to the frontier.
func (db *DB) AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	var st crawl.AddStats
	err := db.tx(ctx, func(t *txn) error {
		var err error
		st, err = t.addURLs(ctx, urls, lim, time.Now())
		return err
	})
	if err != nil {
		return crawl.AddStats{}, fmt.Errorf("sqlite: add urls: %w", err)
	}
	return st, nil
}

// addURLs admits URLs under the budgets in lim. Known URLs are ignored; a
// host at its cap refuses new ones.
//
// The decisions are taken in offer order, as the offers came: a host's cap
// admits its first offers, and a host's admitted are inserted in that
// order (their rowids are the order a host's URLs of one priority are
// fetched in). The store is read and written in ID order: the hosts are
// inserted, their counts read and updated sorted by host ID, the offers
// looked up sorted by URL ID and the admitted inserted host by host, so
// that each page of the indexes they touch (urls_id, urls_queue, the host
// indexes: all begin with host bits) is dirtied once, in one pass, however
// the offers interleave hosts. The rows themselves go to the end of urls,
// which is kept in arrival order (migration 0023): a batch writes the few
// pages its rows fill.
func (t *txn) addURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits, now time.Time) (crawl.AddStats, error) {
	return t.addURLsEach(ctx, urls, lim, now, nil)
}

// addURLsEach is addURLs that also sets admitted[i], if admitted is not
// nil, for each offer urls[i] it admitted.
func (t *txn) addURLsEach(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits, now time.Time, admitted []bool) (crawl.AddStats, error) {
	st := crawl.AddStats{Offered: len(urls)}
	if len(urls) == 0 {
		return st, nil
	}
	// Offers staged earlier are decided on first (StageURLs).
	if _, err := t.mergeOffers(ctx); err != nil {
		return st, err
	}
	type hostState struct {
		key      string
		admitted int64
		added    int64
		capped   bool
		top      int
	}
	overDepth := func(u crawl.NewURL) bool { return lim.OverDepth(u.Depth) }
	hosts := map[crawl.ID]*hostState{}
	ids := make([]crawl.ID, 0, len(urls))
	for _, u := range urls {
		if overDepth(u) {
			continue
		}
		if hosts[u.HostID] == nil {
			hosts[u.HostID] = &hostState{key: u.Host}
		}
		ids = append(ids, u.ID)
	}
	hostIDs := make([]crawl.ID, 0, len(hosts))
	for id := range hosts {
		hostIDs = append(hostIDs, id)
	}
	slices.Sort(hostIDs)
	if err := t.inChunks(ctx, len(hostIDs), 2, `INSERT INTO hosts (id, key) SELECT column1, column2 FROM (VALUES %s)
		WHERE column1 IS NOT NULL ON CONFLICT (id) DO NOTHING`, func(i int, a []any) {
		a[0], a[1] = hostIDs[i], hosts[hostIDs[i]].key
	}, nil); err != nil {
		return st, err
	}
	if lim.MaxPagesPerHost > 0 {
		if err := t.inChunks(ctx, len(hostIDs), 1, `SELECT id, admitted FROM hosts WHERE id IN (%s)`, func(i int, a []any) {
			a[0] = hostIDs[i]
		}, func(rows *sql.Rows) error {
			var id crawl.ID
			var n int64
			if err := rows.Scan(&id, &n); err != nil {
				return err
			}
			hosts[id].admitted = n
			return nil
		}); err != nil {
			return st, err
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	// Known: in urls, or packed in a run (seen).
	known := make(map[crawl.ID]bool, len(ids))
	var packed []crawl.ID
	look := []string{`SELECT id FROM urls WHERE id IN (%s)`}
	if t.db.hasRuns {
		look = append(look, `SELECT id FROM seen WHERE id IN (%s)`)
	}
	for i, q := range look {
		if err := t.inChunks(ctx, len(ids), 1, q, func(i int, a []any) {
			a[0] = ids[i]
		}, func(rows *sql.Rows) error {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			known[id] = true
			if i > 0 {
				packed = append(packed, id)
			}
			return nil
		}); err != nil {
			return st, err
		}
	}
	type admit struct {
		u *crawl.NewURL
		n int // admission order
	}
	var ins []admit
	for i := range urls {
		u := &urls[i]
		hs := hosts[u.HostID]
		switch {
		case overDepth(*u):
			st.OverDepth++
		case known[u.ID]:
			st.Known++
		case lim.MaxPagesPerHost > 0 && hs.admitted+hs.added >= lim.MaxPagesPerHost:
			st.OverHostCap++
			if !hs.capped {
				hs.capped = true
				st.CappedHosts = append(st.CappedHosts, u.HostID)
			}
		default:
			known[u.ID] = true
			ins = append(ins, admit{u, len(ins)})
			if admitted != nil {
				admitted[i] = true
			}
			if hs.added == 0 || u.Priority > hs.top {
				hs.top = u.Priority
			}
			hs.added++
			st.Added++
		}
	}
	// Host by host (whose IDs begin with their host's bits, so the URLs'
	// entries in urls_id are near each other too), and in admission order
	// within a host: the rowid is the order a host's queued URLs of one
	// priority are claimed in.
	slices.SortFunc(ins, func(a, b admit) int { return cmp.Or(cmp.Compare(a.u.HostID, b.u.HostID), cmp.Compare(a.n, b.n)) })
	nowMS := now.UnixMilli()
	if err := t.inChunks(ctx, len(ins), 11, `INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id,
			discovered_at, kind, lastmod, changefreq)
		SELECT column1, column2, column3, column4, column5, 0, column6, column7, column8, column9, column10, column11
		FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
		u := ins[i].u
		a[0], a[1], a[2], a[3], a[4], a[5] = u.ID, crawl.RelURL(u.URL, u.Host), u.HostID, u.Depth, u.Priority, viaCode(u.Via)
		a[6], a[7], a[8], a[9], a[10] = u.Parent, nowMS, u.Kind, ms(u.LastMod), u.ChangeFreq
	}, nil); err != nil {
		return st, err
	}
	hostIDs = slices.DeleteFunc(hostIDs, func(id crawl.ID) bool { return hosts[id].added == 0 })
	for _, q := range hostsAdded(`SELECT * FROM a`) {
		if err := t.inChunks(ctx, len(hostIDs), 3, `WITH a(host_id, n, top) AS (VALUES %s) `+q, func(i int, a []any) {
			hs := hosts[hostIDs[i]]
			a[0], a[1], a[2] = hostIDs[i], hs.added, hs.top
		}, nil); err != nil {
			return st, err
		}
	}
	st.Hosts = hostIDs
	for _, id := range packed { // not rows of urls
		delete(known, id)
	}
	t.inURLs = known
	t.add("queued", int64(st.Added))
	return st, nil
}

// chunkRows are the row counts of the statements inChunks prepares: a
// chunk of k rows runs the smallest that holds it, padded, so that a few
// statements serve every batch size from the statement cache.
var chunkRows = [...]int{1, 8, 64, 256}

// chunkSize is the statement size of chunkRows that a chunk of the n
// rows left takes: the smallest that holds them, or the largest.
func chunkSize(n int) int {
	for _, c := range chunkRows {
		if c >= n {
			return c
		}
	}
	return chunkRows[len(chunkRows)-1]
}

// hostsAdded are the statements that record URLs admitted to hosts, the
// rows of src (host_id, n: how many, top: their best priority), in three
// steps so that a host is rewritten in the ready-host indexes only when
// its place there changes: the hosts that had nothing queued enter them
// (has_queued, which their condition reads, and their best priority, in
// hosts_claim's key), then every host's counts (the row alone: the
// trigger of has_queued finds it set), then the best priorities that
// rose. A merge of staged offers adds to each of 200,000 hosts, most of
// which had URLs queued already.
func hostsAdded(src string) [3]string {
	from := ` FROM (` + src + `) AS a WHERE hosts.id = a.host_id`
	return [3]string{
		`UPDATE hosts SET has_queued = 1, top_priority = max(top_priority, a.top)` + from + ` AND NOT hosts.has_queued AND a.n > 0`,
		`UPDATE hosts SET admitted = admitted + a.n, queued = queued + a.n` + from,
		`UPDATE hosts SET top_priority = a.top` + from + ` AND a.top > hosts.top_priority`,
	}
}

// inChunks runs q over n rows of cols values each, in chunks of at most
// 256 rows. q has one %s: for an IN list (cols 1), the rows' values
// separated by commas; otherwise the rows of a VALUES list. set fills row
// i's values. A chunk is padded to the next size of chunkRows: an IN list
// with its last value again, a VALUES list with rows of NULLs, which q
// must skip (WHERE column1 IS NOT NULL, or a join on it). each, if not
// nil, reads the rows q returns.
func (t *txn) inChunks(ctx context.Context, n, cols int, q string, set func(i int, a []any), each func(*sql.Rows) error) error {
	list := func(k int) string {
		if cols == 1 && strings.Contains(q, "IN (%s)") {
			return strings.TrimSuffix(strings.Repeat("?,", k), ",")
		}
		row := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + "),"
		return strings.TrimSuffix(strings.Repeat(row, k), ",")
	}
	for lo := 0; lo < n; {
		k := chunkSize(n - lo)
		hi := min(lo+k, n)
		args := make([]any, k*cols)
		for i := lo; i < hi; i++ {
			set(i, args[(i-lo)*cols:(i-lo+1)*cols])
		}
		if cols == 1 && strings.Contains(q, "IN (%s)") {
			for j := hi - lo; j < k; j++ {
				args[j] = args[hi-lo-1]
			}
		}
		stmt, err := t.prep(ctx, fmt.Sprintf(q, list(k)))
		if err != nil {
			return err
		}
		if each == nil {
			if _, err := stmt.ExecContext(ctx, args...); err != nil {
				return err
			}
		} else {
			rows, err := stmt.QueryContext(ctx, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				if err := each(rows); err != nil {
					rows.Close()
					return err
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		lo = hi
	}
	return nil
}

// requeueInFlight returns the in-flight URLs of the given hosts to the
// queue; perHost holds how many each host has.
func (t *txn) requeueInFlight(ctx context.Context, perHost map[crawl.ID]int64) error {
	var total int64
	for h, n := range perHost {
		if n == 0 {
			continue
		}
		if _, err := t.exec(ctx, `UPDATE urls SET state = 0, attempts = max(attempts - 1, 0) WHERE host_id = ? AND state = 1`, h); err != nil {
			return err
		}
		if _, err := t.exec(ctx, `UPDATE hosts SET queued = queued + ? WHERE id = ?`, n, h); err != nil {
			return err
		}
		if err := t.refreshTop(ctx, h); err != nil {
			return err
		}
		total += n
	}
	t.add("inflight", -total)
	t.add("queued", total)
	t.add("reserved", -total)
	return nil
}

const hostColumns = `id, key, next_fetch_at, delay_ms, backoff, robots_status, robots_body, robots_fetched_at,
	robots_expires_at, robots_failures, admitted, fetched, bytes, trap, lease_until`

func scanHost(sc interface{ Scan(...any) error }) (crawl.Host, error) {
	var h crawl.Host
	var next, delay, until int64
	var rStatus, rFetched, rExpires sql.NullInt64
	var rBody []byte
	var rFailures int
	if err := sc.Scan(&h.ID, &h.Key, &next, &delay, &h.Backoff, &rStatus, &rBody, &rFetched, &rExpires, &rFailures,
		&h.Admitted, &h.Fetched, &h.Bytes, &h.Trap, &until); err != nil {
		return h, err
	}
	h.NextFetchAt = fromMS(next)
	h.Delay = time.Duration(delay) * time.Millisecond
	h.LeaseUntil = fromMS(until)
	if rStatus.Valid {
		h.Robots = &crawl.RobotsRecord{
			Status:    int(rStatus.Int64),
			Body:      rBody,
			FetchedAt: fromMS(rFetched.Int64),
			ExpiresAt: fromMS(rExpires.Int64),
			Failures:  rFailures,
		}
	} else if rFailures > 0 {
		h.Robots = &crawl.RobotsRecord{Failures: rFailures}
	}
	return h, nil
}

// ClaimHosts leases hosts with queued URLs to owner: those whose next
// fetch time has come first, the best of them (by their best queued URL's
// priority plus their value) first, then by next fetch time and ID. Hosts
// whose lease by another owner ran out compete in the same order, their
// in-flight URLs returning to the queue.
//
// The choice costs O(log hosts) plus the hosts returned, however many
// hosts the crawl has: it reads the ready-host index hosts_claim (hosts
// with URLs queued and no lease, due first, then by rank) after wakeHosts
// has brought its due column up to now, and the expired leases through
// hosts_leased. A change to how hosts rank (top_priority + value) must
// change hosts_claim with it (migration 0018).
func (db *DB) ClaimHosts(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]crawl.Host, error) {
	var out []crawl.Host
	var claimMerge crawl.AddStats
	err := db.tx(ctx, func(t *txn) error {
		claimMerge = crawl.AddStats{}
		nowMS := now.UnixMilli()
		if err := t.wakeHosts(ctx, nowMS); err != nil {
			return err
		}
		var cands []hostCand
		scan := func(q string, args ...any) error {
			rows, err := t.query(ctx, q, args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var c hostCand
				var prev sql.NullString
				if err := rows.Scan(&c.id, &c.next, &c.rank, &prev); err != nil {
					return err
				}
				c.due, c.expired = c.next <= nowMS, prev.Valid
				cands = append(cands, c)
			}
			return rows.Err()
		}
		// A claim that finds no host merges the staged offers (StageURLs)
		// and looks again: a crawl must not end while offers wait.
		for merged := false; ; merged = true {
			if err := scan(`SELECT id, next_fetch_at, top_priority + value, NULL FROM hosts INDEXED BY hosts_claim
				WHERE has_queued AND lease_owner IS NULL
				ORDER BY due DESC, top_priority + value DESC, next_fetch_at, id LIMIT ?`, n); err != nil {
				return err
			}
			if err := scan(`SELECT id, next_fetch_at, top_priority + value, lease_owner FROM hosts INDEXED BY hosts_leased
				WHERE lease_owner IS NOT NULL AND lease_until < ? AND lease_owner <> ?
				ORDER BY next_fetch_at > ?, top_priority + value DESC, next_fetch_at, id LIMIT ?`, nowMS, owner, nowMS, n); err != nil {
				return err
			}
			if len(cands) > 0 || merged {
				break
			}
			as, err := t.mergeOffers(ctx)
			if err != nil {
				return err
			}
			claimMerge = as
			if as.Added == 0 {
				break
			}
			if err := t.wakeHosts(ctx, nowMS); err != nil {
				return err
			}
		}
		slices.SortFunc(cands, hostCand.compare)
		cands = cands[:min(n, len(cands))]
		var ids, expired []crawl.ID
		for _, c := range cands {
			ids = append(ids, c.id)
			if c.expired {
				expired = append(expired, c.id)
			}
		}
		if len(expired) > 0 {
			perHost := map[crawl.ID]int64{}
			for _, id := range expired {
				var c int64
				if err := t.queryRow(ctx, `SELECT count(*) FROM urls WHERE host_id = ? AND state = 1`, id).Scan(&c); err != nil {
					return err
				}
				perHost[id] = c
			}
			if err := t.requeueInFlight(ctx, perHost); err != nil {
				return err
			}
		}
		if len(ids) == 0 {
			return nil
		}
		// One statement for all: one statement journal, each page once.
		in, args := idList(ids)
		rows, err := t.query(ctx, `UPDATE hosts SET lease_owner = ?, lease_until = ? WHERE id IN (`+in+`) RETURNING `+hostColumns,
			append([]any{owner, now.Add(lease).UnixMilli()}, args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		got := make(map[crawl.ID]crawl.Host, len(ids))
		for rows.Next() {
			h, err := scanHost(rows)
			if err != nil {
				return err
			}
			got[h.ID] = h
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids { // in the order chosen
			out = append(out, got[id])
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: claim hosts: %w", err)
	}
	db.heldOver(claimMerge)
	return out, nil
}

// hostCand is a host ClaimHosts may lease.
type hostCand struct {
	id           crawl.ID
	next, rank   int64 // next fetch time; best queued priority plus value
	due, expired bool  // its time has come; another owner's lease ran out
}

// compare orders candidates as ClaimHosts leases them.
func (c hostCand) compare(d hostCand) int {
	if c.due != d.due {
		if c.due {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(d.rank, c.rank), cmp.Compare(c.next, d.next), cmp.Compare(c.id, d.id))
}

// wakeHosts brings the due column of the hosts in the ready-host index
// (has_queued, no lease) up to now, through hosts_wake: the hosts whose
// next fetch time came since the last claim become due, those whose next
// fetch time was pushed past now (a commit or a release raised it) stop
// being due. Each host moves once per change of its next fetch time, so a
// claim touches only the hosts that changed, not all of them.
func (t *txn) wakeHosts(ctx context.Context, nowMS int64) error {
	if _, err := t.exec(ctx, `UPDATE hosts INDEXED BY hosts_wake SET due = 1
		WHERE due = 0 AND next_fetch_at <= ? AND has_queued AND lease_owner IS NULL`, nowMS); err != nil {
		return err
	}
	_, err := t.exec(ctx, `UPDATE hosts INDEXED BY hosts_wake SET due = 0
		WHERE due = 1 AND next_fetch_at > ? AND has_queued AND lease_owner IS NULL`, nowMS)
	return err
}

func idList(ids []crawl.ID) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return strings.TrimSuffix(strings.Repeat("?,", len(ids)), ","), args
}

// RenewHosts extends owner's leases.
func (db *DB) RenewHosts(ctx context.Context, owner string, ids []crawl.ID, lease time.Duration, now time.Time) ([]crawl.ID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var lost []crawl.ID
	err := db.tx(ctx, func(t *txn) error {
		in, args := idList(ids)
		held := map[crawl.ID]bool{}
		rows, err := t.query(ctx, `UPDATE hosts SET lease_until = ? WHERE lease_owner = ? AND id IN (`+in+`) RETURNING id`,
			append([]any{now.Add(lease).UnixMilli(), owner}, args...)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			held[id] = true
		}
		rows.Close()
		for _, id := range ids {
			if !held[id] {
				lost = append(lost, id)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: renew host leases: %w", err)
	}
	return lost, nil
}

// ReleaseHosts gives up owner's leases, keeping their politeness state.
func (db *DB) ReleaseHosts(ctx context.Context, owner string, hosts []crawl.HostRelease) error {
	if len(hosts) == 0 {
		return nil
	}
	err := db.tx(ctx, func(t *txn) error {
		// A statement per chunk of hosts, not per host: one statement
		// journal, each page written once. A host given a next fetch
		// time is not due until a claim finds that time come
		// (wakeHosts), so a claim need not look for it.
		const chunk = 1000
		seen := make(map[crawl.ID]bool, len(hosts))
		hosts := slices.DeleteFunc(slices.Clone(hosts), func(h crawl.HostRelease) bool { // a host's first release counts
			dup := seen[h.ID]
			seen[h.ID] = true
			return dup
		})
		for len(hosts) > 0 {
			part := hosts[:min(chunk, len(hosts))]
			hosts = hosts[len(part):]
			args := make([]any, 0, 4*len(part)+1)
			for _, h := range part {
				args = append(args, h.ID, ms(h.NextFetchAt), h.Delay.Milliseconds(), h.Backoff)
			}
			args = append(args, owner)
			if _, err := t.exec(ctx, `WITH r(id, next, delay, backoff) AS (VALUES `+
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", len(part)), ",")+`)
				UPDATE hosts SET lease_owner = NULL, lease_until = 0, due = CASE WHEN r.next > 0 THEN 0 ELSE hosts.due END,
					next_fetch_at = CASE WHEN r.next > 0 THEN max(hosts.next_fetch_at, r.next) ELSE hosts.next_fetch_at END,
					delay_ms = CASE WHEN r.next > 0 THEN r.delay ELSE hosts.delay_ms END,
					backoff = CASE WHEN r.next > 0 THEN r.backoff ELSE hosts.backoff END
				FROM r WHERE hosts.id = r.id AND hosts.lease_owner = ?`, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: release hosts: %w", err)
	}
	return nil
}

// RecordTraps records hosts' suspected-trap descriptions, keeping a
// host's first.
func (db *DB) RecordTraps(ctx context.Context, traps map[crawl.ID]string) error {
	if len(traps) == 0 {
		return nil
	}
	err := db.tx(ctx, func(t *txn) error {
		for id, trap := range traps {
			if _, err := t.exec(ctx, `UPDATE hosts SET trap = ? WHERE id = ? AND trap = ''`, trap, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: record traps: %w", err)
	}
	return nil
}

// ClaimURLs marks the host's best ready URLs in flight.
func (db *DB) ClaimURLs(ctx context.Context, owner string, host crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.ClaimedURL, time.Time, error) {
	var c crawl.Claim
	err := db.tx(ctx, func(t *txn) error {
		var err error
		c, err = t.claimURLs(ctx, owner, host, n, lim, now)
		return err
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("sqlite: claim urls of host %d: %w", host, err)
	}
	return c.URLs, c.Next, c.Err
}

// ClaimURLsOf claims URLs for several hosts in one transaction.
func (db *DB) ClaimURLsOf(ctx context.Context, owner string, hosts []crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.Claim, error) {
	var out []crawl.Claim
	err := db.tx(ctx, func(t *txn) error {
		out = make([]crawl.Claim, 0, len(hosts))
		for _, h := range hosts {
			c, err := t.claimURLs(ctx, owner, h, n, lim, now)
			if err != nil {
				return err
			}
			out = append(out, c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: claim urls of %d hosts: %w", len(hosts), err)
	}
	return out, nil
}

// claimURLsSQL claims up to ?3 of host ?1's queued URLs due by ?2: the
// best first, and among URLs of one priority those admitted first, which
// is rowid order. It reads urls_queue, (host_id, priority DESC), in that
// order: an index entry ends with its row's rowid.
const claimURLsSQL = `UPDATE urls SET state = 1, attempts = attempts + 1
	WHERE rowid IN (SELECT rowid FROM urls WHERE host_id = ?1 AND state = 0 AND retry_at <= ?2
	                ORDER BY priority DESC, rowid LIMIT ?3)
	RETURNING id, url, host_id, depth, priority, attempts - 1, rowid, kind, lastmod, via, changefreq`

// claimURLs marks up to n of the host's best ready URLs in flight. The
// outcomes a caller acts on (lease lost, a budget spent) are in the
// Claim's Err; the error is the store's.
func (t *txn) claimURLs(ctx context.Context, owner string, host crawl.ID, n int, lim crawl.Limits, now time.Time) (crawl.Claim, error) {
	var out []crawl.ClaimedURL
	var next time.Time
	var budgetErr error
	err := func() error {
		var leaseOwner sql.NullString
		var key string
		if err := t.queryRow(ctx, `SELECT lease_owner, key FROM hosts WHERE id = ?`, host).Scan(&leaseOwner, &key); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				budgetErr = crawl.ErrLeaseLost
				return nil
			}
			return err
		}
		if leaseOwner.String != owner {
			budgetErr = crawl.ErrLeaseLost
			return nil
		}
		var reserved, bytes int64
		if err := t.queryRow(ctx, `SELECT
			(SELECT value FROM counters WHERE name = 'reserved'),
			(SELECT value FROM counters WHERE name = 'bytes')`).Scan(&reserved, &bytes); err != nil {
			return err
		}
		// The counters are written at the end of the transaction: count
		// what it claimed already (ClaimURLsOf claims for several hosts).
		reserved += t.delta["reserved"]
		bytes += t.delta["bytes"]
		if lim.MaxBytes > 0 && bytes >= lim.MaxBytes {
			budgetErr = crawl.ErrByteBudget
			return nil
		}
		if lim.MaxPages > 0 {
			if reserved >= lim.MaxPages {
				budgetErr = crawl.ErrPageBudget
				return nil
			}
			n = int(min(int64(n), lim.MaxPages-reserved))
		}
		if lim.MaxHostBytes > 0 {
			var hb int64
			if err := t.queryRow(ctx, `SELECT bytes FROM hosts WHERE id = ?`, host).Scan(&hb); err != nil {
				return err
			}
			if hb >= lim.MaxHostBytes {
				// The host spent its share: what it has queued is skipped.
				if err := t.unpackHost(ctx, host); err != nil {
					return err
				}
				res, err := t.exec(ctx, `UPDATE urls SET state = 5, error = 'host byte budget reached'
					WHERE host_id = ? AND state = 0`, host)
				if err != nil {
					return err
				}
				k, _ := res.RowsAffected()
				if _, err := t.exec(ctx, `UPDATE hosts SET queued = queued - ? WHERE id = ?`, k, host); err != nil {
					return err
				}
				t.add("queued", -k)
				t.add("skipped", k)
				budgetErr = crawl.ErrHostBytes
				return nil
			}
		}
		var packed bool
		if t.db.hasRuns {
			if err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM queue_runs WHERE host_id = ?)`, host).Scan(&packed); err != nil {
				return err
			}
		}
		claim := t.claimRows
		if packed {
			claim = t.claimFromRuns
		}
		var err error
		if out, err = claim(ctx, host, key, n, now); err != nil {
			return err
		}
		if err := t.prevFetches(ctx, out); err != nil {
			return err
		}
		if len(out) == 0 {
			var at sql.NullInt64
			if err := t.queryRow(ctx, `SELECT min(retry_at) FROM urls WHERE host_id = ? AND state = 0`, host).Scan(&at); err != nil {
				return err
			}
			if at.Valid {
				next = fromMS(max(at.Int64, 1))
			}
		}
		k := int64(len(out))
		if k > 0 {
			if _, err := t.exec(ctx, `UPDATE hosts SET queued = queued - ? WHERE id = ?`, k, host); err != nil {
				return err
			}
			if err := t.refreshTop(ctx, host); err != nil {
				return err
			}
		}
		t.add("queued", -k)
		t.add("inflight", k)
		t.add("reserved", k)
		return nil
	}()
	if err != nil || budgetErr != nil {
		return crawl.Claim{Err: budgetErr}, err
	}
	return crawl.Claim{URLs: out, Next: next}, nil
}

// claimRows marks up to n of the host's best ready rows of urls in
// flight, and returns them best first.
func (t *txn) claimRows(ctx context.Context, host crawl.ID, key string, n int, now time.Time) ([]crawl.ClaimedURL, error) {
	var out []crawl.ClaimedURL
	err := func() error {
		rows, err := t.query(ctx, claimURLsSQL, host, now.UnixMilli(), n)
		if err != nil {
			return err
		}
		type claimed struct {
			u   crawl.ClaimedURL
			seq int64 // the rowid: the order of admission within the host
		}
		var cs []claimed
		for rows.Next() {
			var c claimed
			var lastmod int64
			var via any
			if err := rows.Scan(&c.u.ID, &c.u.URL, &c.u.HostID, &c.u.Depth, &c.u.Priority, &c.u.Attempts, &c.seq, &c.u.Kind, &lastmod, &via, &c.u.ChangeFreq); err != nil {
				rows.Close()
				return err
			}
			c.u.URL, c.u.LastMod = crawl.FullURL(c.u.URL, key), fromMS(lastmod)
			if c.u.Via, err = viaOf(via); err != nil {
				rows.Close()
				return err
			}
			cs = append(cs, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].u.Priority != cs[j].u.Priority {
				return cs[i].u.Priority > cs[j].u.Priority
			}
			return cs[i].seq < cs[j].seq
		})
		for _, c := range cs {
			out = append(out, c.u)
		}
		return nil
	}()
	return out, err
}

// claimFromRuns marks up to n of the host's best ready URLs in flight,
// from its rows and its runs (claimPacked), and returns them best first.
func (t *txn) claimFromRuns(ctx context.Context, host crawl.ID, key string, n int, now time.Time) ([]crawl.ClaimedURL, error) {
	rows, err := t.query(ctx, `SELECT rowid, id, url, depth, priority, attempts, kind, lastmod, via, changefreq, discovered_at
		FROM urls WHERE host_id = ?1 AND state = 0 AND retry_at <= ?2 ORDER BY priority DESC, rowid LIMIT ?3`, host, now.UnixMilli(), n)
	if err != nil {
		return nil, err
	}
	var cands []claimCand
	for rows.Next() {
		var c claimCand
		var lastmod int64
		var via any
		if err := rows.Scan(&c.rowid, &c.u.ID, &c.u.URL, &c.u.Depth, &c.u.Priority, &c.u.Attempts, &c.u.Kind, &lastmod, &via,
			&c.u.ChangeFreq, &c.disc); err != nil {
			rows.Close()
			return nil, err
		}
		c.u.URL, c.u.HostID, c.u.LastMod = crawl.FullURL(c.u.URL, key), host, fromMS(lastmod)
		if c.u.Via, err = viaOf(via); err != nil {
			rows.Close()
			return nil, err
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return t.claimPacked(ctx, host, key, n, cands)
}

// refreshTop sets a host's top_priority to its best queued URL's.
func (t *txn) refreshTop(ctx context.Context, host crawl.ID) error {
	_, err := t.exec(ctx, `UPDATE hosts SET top_priority = max(
		coalesce((SELECT priority FROM urls WHERE host_id = ?1 AND state = 0 ORDER BY priority DESC LIMIT 1), -1000000000),
		coalesce((SELECT top FROM queue_runs WHERE host_id = ?1 ORDER BY top DESC LIMIT 1), -1000000000))
		WHERE id = ?1`, host)
	return err
}

// ValueHosts learns what each host is worth to a crawl after research from
// its most recently recorded pages, when it recorded enough responses
// since it was last valued (crawl.HostValueStale), and returns the values
// in the order of ids (0 for an unknown host). ClaimHosts leases due hosts
// by the priority of their best queued URL plus their value.
//
// The pages are read on a reader connection, not in the single writer's
// transaction: valuing a host reads its last crawl.HostValueWindow pages
// and their links, a commit's worth of work that the writer would wait
// for. All the reads are one read transaction on one connection, its
// statements prepared once for all the hosts. Only the values learned are
// written, after it, and a value learned from fewer fetches than the one
// recorded meanwhile is not.
func (db *DB) ValueHosts(ctx context.Context, ids []crawl.ID) ([]int, error) {
	out := make([]int, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	news, err := db.learnHosts(ctx, ids, out)
	if err != nil {
		return nil, fmt.Errorf("sqlite: value hosts: %w", err)
	}
	if len(news) == 0 {
		return out, nil
	}
	err = db.tx(ctx, func(t *txn) error {
		for _, l := range news {
			// A host marked as a mirror since it was read keeps its cap.
			if _, err := t.exec(ctx, `UPDATE hosts SET value = CASE WHEN mirror_of <> 0 THEN min(?1, ?7) ELSE ?1 END,
				value_fetched = ?2, value_pages = ?3, value_research = ?4, value_related = ?5, value_copies = ?6
				WHERE id = ?8 AND value_fetched < ?2`,
				l.value, l.fetched, l.n, l.research, l.related, l.copies, crawl.MirrorValue, l.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: value hosts: %w", err)
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
	err := db.tx(ctx, func(t *txn) error {
		_, err := t.exec(ctx, `UPDATE hosts SET mirror_of = ?2,
				value = CASE WHEN ?2 <> 0 THEN min(value, ?3) WHEN fetched = 0 THEN 0 ELSE value END,
				value_fetched = CASE WHEN ?2 <> 0 THEN value_fetched ELSE 0 END
			WHERE id = ?1 AND ?1 <> ?2 AND mirror_of <> ?2
			AND (?2 = 0 OR EXISTS (SELECT 1 FROM hosts WHERE id = ?2))`, host, original, crawl.MirrorValue)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: mark mirror: %w", err)
	}
	return nil
}
