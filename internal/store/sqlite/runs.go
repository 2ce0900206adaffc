package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlrun"
)

// Queued URLs packed into runs (migration 0038; the design is
// docs/design/frontier-layout.md). A row of urls costs a URL about 140
// bytes with its index entries, nearly all of it the B-tree's cell,
// header and entries, not the URL. A large merge of staged offers
// (seeds, sitemaps, archive listings, and the discoveries of a large
// frontier's commits: packMin offers or more) writes the URLs it admits
// host by host, best first, up to runSize to a record of queue_runs
// (urlrun: the texts front-coded and compressed together, each URL's
// fields a few bytes; a host's last run takes the new URLs that fit), and
// each URL's ID to seen, which says where it is. A packed URL takes about
// 60 bytes with its seen entry (docs/scale.md). A discovered URL carries
// the inbound links staged for it, and the priority they gave it.
//
// A packed URL is queued, and counted so (hosts.queued, the counter
// queued); the counter packed counts them apart. It becomes a row of urls
// when it is claimed (in flight, as a URL claimed from its row) and when
// a commit's page links to it (queued, so that its inbound links are
// counted and raise its priority as a row's do); so everything but the
// add, the claim and the look-ups by ID (URL, and a link's target in
// Links and the host values: packedTargets) reads urls as before. A URL
// never goes back into a run.
//
// A URL keeps its seen entry when it leaves its run: the entry still says
// the URL is known, and deleting it would be a random page write for
// every URL claimed, the claim's largest cost at ten million URLs. So a
// URL is packed when seen has it and urls does not; then the run seen
// names holds it. Every look-up of a packed URL asks urls first.
//
// A claim takes a host's best URLs from its rows and its runs together:
// by priority, then by arrival (discovered_at, to the millisecond; a row
// first on a tie). A host's runs are read best first (queue_runs_host); a run
// is read only when its best URL could come before the best candidate
// read so far, so a claim reads about one run for each merge that gave
// its host URLs of the priority it takes.

// packMin is the fewest staged offers a merge packs; a smaller merge
// inserts rows, as AddURLs does: a small frontier gains nothing from
// runs, and rows are what tools read with SQL. (The default of a store's
// tuning.)
const packMin = 100_000

// runSize is how many URLs a run holds when a merge writes it: the design
// measured 22 bytes of text a URL in runs of 64.
const runSize = 64

// packable returns a staged offer's entry in a run, or false when a run
// cannot hold it (a way or change frequency without a code, a text too
// long, an ID that is not the URL's), and it takes a row.
func packable(r *packedRow, key string) (urlrun.Entry, bool) {
	v, ok := r.via.(int64)
	cf := slices.Index(crawl.ChangeFreqs[:], r.changefreq)
	if !ok || v < 0 || v > 255 || cf < 0 || r.kind < 0 || r.kind > 255 || len(r.rel) > urlrun.MaxPath ||
		crawl.RelURLID(r.rel, key, r.host) != r.id {
		return urlrun.Entry{}, false
	}
	return urlrun.Entry{Path: r.rel, Priority: int64(r.priority + r.bonus), Depth: int64(r.depth), Kind: uint8(r.kind), Via: uint8(v),
		Discovered: r.disc, LastMod: r.lastmod, ChangeFreq: uint8(cf), Parent: int64(r.parent), Inlinks: r.inlinks}, true
}

// runURL is a packed URL's ID (crawl.RelURLID of its path), host and row values,
// for urls.
type runURL struct {
	id, host crawl.ID
	e        *urlrun.Entry
}

// packedRow is a staged offer a packing merge reads, with the inbound
// links staged for it (inlink_counts) and the priority they add.
type packedRow struct {
	id, host, parent             crawl.ID
	rel, changefreq              string
	depth, priority, kind, bonus int
	via                          any
	disc, lastmod, inlinks       int64
}

// hostAdded is what a merge admitted to a host: how many and their best
// priority.
type hostAdded struct {
	id  crawl.ID
	n   int64
	top int
}

// packOffers inserts the admitted staged offers (all, or, when capped,
// each host's first up to its cap, as insertOffers) into runs, host by
// host, best first; an offer a run cannot hold goes to urls. A host whose
// last run has room for all its new URLs gets them in that run, so that
// a host given a few URLs by each of several merges has one run, not one
// a merge. It returns how many it admitted and, when capped, to which
// hosts (uncapped, the merge's hosts are temp.merged_hosts already). The hosts
// are those of temp.merged_hosts (the stage's), read with their keys and
// last runs beside the offers, in host order.
//
// With finds (the stage holds URLs that pages discovered, and inbound
// links counted for URLs not yet rows), a packed URL takes the links
// staged for it: its count, and the priority they add as
// applyInlinkCounts adds it to a queued row (the bonus for each link up
// to the cap), so that it comes in its run where the row would in its
// host's queue. An offer that takes a row is counted by
// applyInlinkCounts, after. The texts commits kept for the link targets
// it admits go (link_urls): a URL the frontier holds needs none.
func (t *txn) packOffers(ctx context.Context, capped, finds bool) (int64, []hostAdded, error) {
	src, ord, where := `offers AS o`, `o.rowid`, ``
	if capped {
		src = `(SELECT rowid AS ord, id, url, host_id, depth, priority, via, parent_id, discovered_at, kind, lastmod, changefreq, cap,
				row_number() OVER (PARTITION BY host_id ORDER BY rowid) AS k FROM offers) AS o
			JOIN hosts ON hosts.id = o.host_id`
		ord, where = `o.ord`, ` WHERE o.cap <= 0 OR hosts.admitted + o.k <= o.cap`
	}
	counted, bonus, order := `0, 0`, ``, `o.priority`
	if finds {
		src += ` LEFT JOIN (SELECT id, sum(n) AS n, max(bonus) AS bonus, max(cap) AS cap FROM inlink_counts GROUP BY id) AS c
			ON c.id = o.id`
		bonus = `CASE WHEN c.cap > 0 THEN c.bonus * min(c.n, c.cap) ELSE 0 END`
		counted, order = `coalesce(c.n, 0), `+bonus, `o.priority + `+bonus
	}
	q := `SELECT o.id, o.url, o.host_id, o.depth, o.priority, o.via, o.parent_id, o.discovered_at, o.kind, o.lastmod, o.changefreq, ` +
		counted + ` FROM ` + src + where + ` ORDER BY o.host_id, ` + order + ` DESC, ` + ord
	var next sql.NullInt64
	if err := t.queryRow(ctx, `SELECT max(id) FROM queue_runs`).Scan(&next); err != nil {
		return 0, nil, err
	}
	p := packer{t: t, run: next.Int64, keepHosts: capped, finds: finds}
	hosts, err := t.tx.QueryContext(ctx, `SELECT m.host_id, h.key, r.id, r.data FROM temp.merged_hosts m
		JOIN hosts h ON h.id = m.host_id
		LEFT JOIN queue_runs r ON r.id = (SELECT max(id) FROM queue_runs s WHERE s.host_id = m.host_id)
		ORDER BY m.host_id`)
	if err != nil {
		return 0, nil, err
	}
	defer hosts.Close()
	rows, err := t.tx.QueryContext(ctx, q)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	for first := true; rows.Next(); first = false {
		if first {
			// The offers are sorted (the first row waits for the
			// sort, which holds them all), and nothing after sorts.
			// The stage is emptied now, so that the runs and seen
			// entries take the pages it frees rather than new ones at
			// the end of the file; and the runs, seen and the hosts
			// are read and written with the writer's whole cache
			// (mergeOffers shrank it for the sorts; it puts it back).
			if _, err := t.exec(ctx, `DELETE FROM offers`); err != nil {
				return 0, nil, err
			}
			if _, err := t.tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, writerCacheKiB)); err != nil {
				return 0, nil, err
			}
		}
		var r packedRow
		if err := rows.Scan(&r.id, &r.rel, &r.host, &r.depth, &r.priority, &r.via, &r.parent, &r.disc, &r.kind,
			&r.lastmod, &r.changefreq, &r.inlinks, &r.bonus); err != nil {
			return 0, nil, err
		}
		if len(p.hosts) == 0 || p.hosts[len(p.hosts)-1].id != r.host {
			if err := p.endHost(ctx); err != nil {
				return 0, nil, err
			}
			if err := p.startHost(hosts, r.host); err != nil {
				return 0, nil, err
			}
		}
		h := &p.hosts[len(p.hosts)-1]
		h.n++
		h.top = max(h.top, r.priority) // before the links' bonus, as a row's
		if e, ok := packable(&r, p.key); ok {
			p.add(e, r.id)
			// A host of many URLs is written as its runs fill.
			if err := p.flush(ctx, 4096); err != nil {
				return 0, nil, err
			}
			continue
		}
		p.rows = append(p.rows, r)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	rows.Close()
	if err := p.endHost(ctx); err != nil {
		return 0, nil, err
	}
	hosts.Close()
	if err := p.flush(ctx, 0); err != nil {
		return 0, nil, err
	}
	if p.packed > 0 {
		t.db.hasRuns = true
		t.add("packed", p.packed)
	}
	added := p.added
	for _, h := range p.hosts {
		added += h.n
	}
	if !capped {
		return added, nil, nil
	}
	return added, p.hosts, nil
}

// packer writes a merge's runs, seen entries and unpackable rows, in
// batches.
type packer struct {
	t   *txn
	run int64 // the last run's ID
	// hosts are the hosts the merge admitted to, the last the one being
	// written; unless keepHosts, only that one is kept, and added counts
	// the URLs admitted to those before it (a merge of 100M offers spans
	// a million hosts).
	hosts     []hostAdded
	keepHosts bool
	finds     bool // the admitted lose their link targets' texts
	added     int64
	key       string // the host's
	// last is the host's last run, if it has room for more URLs (its ID
	// 0 when not): its entries, which the host's new ones join as long
	// as they fit.
	last    claimRun
	entries []urlrun.Entry // the run being filled
	ids     []crawl.ID     // its URLs' IDs
	runs    []packedRun
	seen    [][2]int64
	rows    []packedRow
	packed  int64
}

type packedRun struct {
	id, host, top, first int64
	data                 []byte
	old                  bool // the host's last run, rewritten
}

// startHost reads host's key and last run from hosts (the stage's hosts
// in ID order, with their keys and last runs).
func (p *packer) startHost(hosts *sql.Rows, host crawl.ID) error {
	for hosts.Next() {
		var id crawl.ID
		var run sql.NullInt64
		var data []byte
		if err := hosts.Scan(&id, &p.key, &run, &data); err != nil {
			return err
		}
		if id != host {
			continue
		}
		if !p.keepHosts && len(p.hosts) > 0 {
			p.added += p.hosts[0].n
			p.hosts = p.hosts[:0]
		}
		p.hosts = append(p.hosts, hostAdded{id: host, top: math.MinInt})
		p.last = claimRun{}
		if n, err := urlrun.Len(data); run.Valid && err == nil && n < runSize {
			entries, err := urlrun.Decode(data)
			if err != nil {
				return fmt.Errorf("run %d: %w", run.Int64, err)
			}
			p.last = claimRun{id: run.Int64, entries: entries}
		}
		return nil
	}
	if err := hosts.Err(); err != nil {
		return err
	}
	return fmt.Errorf("host %d of the stage: not in merged_hosts", host)
}

// add adds a URL of the host to its runs: they come best first.
func (p *packer) add(e urlrun.Entry, id crawl.ID) {
	p.entries = append(p.entries, e)
	p.ids = append(p.ids, id)
	if p.last.id != 0 && len(p.last.entries)+len(p.entries) > runSize {
		p.last.id = 0 // too many for the last run: runs of their own
	}
	if p.last.id == 0 && len(p.entries) == runSize {
		p.endRun()
	}
}

// endRun encodes the run being filled, or, if it fits in the host's last
// run, the last run with the new URLs merged in (each sorted best first,
// then by arrival: the last run's first on a tie).
func (p *packer) endRun() {
	if len(p.entries) == 0 {
		return
	}
	run, old, entries := p.run+1, false, p.entries
	if p.last.id != 0 {
		run, old = p.last.id, true
		entries = make([]urlrun.Entry, 0, len(p.last.entries)+len(p.entries))
		a, b := p.last.entries, p.entries
		for len(a) > 0 || len(b) > 0 {
			if len(b) == 0 || len(a) > 0 && (a[0].Priority > b[0].Priority ||
				a[0].Priority == b[0].Priority && a[0].Discovered <= b[0].Discovered) {
				entries, a = append(entries, a[0]), a[1:]
			} else {
				entries, b = append(entries, b[0]), b[1:]
			}
		}
		p.last.id = 0
	} else {
		p.run++
	}
	data, err := urlrun.Encode(nil, entries)
	if err != nil { // packable admits only what Encode takes, up to runSize
		panic(err)
	}
	first := entries[0].Discovered
	for _, e := range entries {
		first = min(first, e.Discovered)
	}
	p.runs = append(p.runs, packedRun{id: run, host: int64(p.hosts[len(p.hosts)-1].id), top: entries[0].Priority, first: first,
		data: data, old: old})
	for _, id := range p.ids {
		p.seen = append(p.seen, [2]int64{int64(id), run})
	}
	p.packed += int64(len(p.entries))
	p.entries, p.ids = p.entries[:0], p.ids[:0]
}

// endHost ends the host's last run and writes what has gathered once it
// is a few pages' worth.
func (p *packer) endHost(ctx context.Context) error {
	p.endRun()
	return p.flush(ctx, 4096)
}

// flush writes the runs, seen entries and rows gathered, once there are
// at least atLeast seen entries and rows (a merge of offers that runs
// cannot hold holds no more of them). The seen entries go in ID order: a
// host's URL IDs begin with its bits, and the hosts come in ID order, so
// the merge writes seen from one end to the other.
func (p *packer) flush(ctx context.Context, atLeast int) error {
	if len(p.seen)+len(p.rows) < atLeast {
		return nil
	}
	t := p.t
	fresh := slices.DeleteFunc(slices.Clone(p.runs), func(r packedRun) bool { return r.old })
	if err := t.inChunks(ctx, len(fresh), 5, `INSERT INTO queue_runs (id, host_id, top, first, data)
		SELECT * FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
		r := fresh[i]
		a[0], a[1], a[2], a[3], a[4] = r.id, r.host, r.top, r.first, r.data
	}, nil); err != nil {
		return err
	}
	old := slices.DeleteFunc(slices.Clone(p.runs), func(r packedRun) bool { return !r.old })
	if err := t.inChunks(ctx, len(old), 4, `UPDATE queue_runs SET top = r.column2, first = r.column3, data = r.column4
		FROM (SELECT * FROM (VALUES %s) WHERE column1 IS NOT NULL) AS r WHERE queue_runs.id = r.column1`, func(i int, a []any) {
		r := old[i]
		a[0], a[1], a[2], a[3] = r.id, r.top, r.first, r.data
	}, nil); err != nil {
		return err
	}
	slices.SortFunc(p.seen, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	if err := t.inChunks(ctx, len(p.seen), 2, `INSERT INTO seen (id, run) SELECT * FROM (VALUES %s) WHERE column1 IS NOT NULL`,
		func(i int, a []any) { a[0], a[1] = p.seen[i][0], p.seen[i][1] }, nil); err != nil {
		return err
	}
	if err := t.inChunks(ctx, len(p.rows), 11, `INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id,
			discovered_at, kind, lastmod, changefreq)
		SELECT column1, column2, column3, column4, column5, 0, column6, column7, column8, column9, column10, column11
		FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
		r := &p.rows[i]
		a[0], a[1], a[2], a[3], a[4], a[5] = r.id, r.rel, r.host, r.depth, r.priority, r.via
		a[6], a[7], a[8], a[9], a[10] = r.parent, r.disc, r.kind, r.lastmod, r.changefreq
	}, nil); err != nil {
		return err
	}
	if p.finds {
		ids := make([]int64, 0, len(p.seen)+len(p.rows))
		for _, s := range p.seen {
			ids = append(ids, s[0])
		}
		for _, r := range p.rows {
			ids = append(ids, int64(r.id))
		}
		slices.Sort(ids)
		if err := t.inChunks(ctx, len(ids), 1, `DELETE FROM link_urls WHERE id IN (%s)`,
			func(i int, a []any) { a[0] = ids[i] }, nil); err != nil {
			return err
		}
	}
	p.runs, p.seen, p.rows = p.runs[:0], p.seen[:0], p.rows[:0]
	return nil
}

// insertRunURLs inserts packed URLs leaving their runs as rows of urls,
// in state (queued or in flight) with attempts; their seen entries stay.
func (t *txn) insertRunURLs(ctx context.Context, us []runURL, state crawl.State, attempts int) error {
	t.add("packed", -int64(len(us)))
	return t.inChunks(ctx, len(us), 14, `INSERT INTO urls (id, url, host_id, depth, priority, state, attempts, via, parent_id,
			discovered_at, kind, lastmod, changefreq, inlinks)
		SELECT * FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
		u := us[i]
		a[0], a[1], a[2], a[3], a[4], a[5], a[6] = u.id, u.e.Path, u.host, u.e.Depth, u.e.Priority, int(state), attempts
		a[7], a[8], a[9], a[10], a[11], a[12] = int64(u.e.Via), u.e.Parent, u.e.Discovered, int(u.e.Kind), u.e.LastMod, crawl.ChangeFreqs[u.e.ChangeFreq]
		a[13] = u.e.Inlinks
	}, nil)
}

// rewriteRun keeps the entries left of run id, or deletes it when none
// are.
func (t *txn) rewriteRun(ctx context.Context, id int64, left []urlrun.Entry) error {
	if len(left) == 0 {
		_, err := t.exec(ctx, `DELETE FROM queue_runs WHERE id = ?`, id)
		return err
	}
	data, err := urlrun.Encode(nil, left)
	if err != nil {
		return err
	}
	first := left[0].Discovered
	for _, e := range left {
		first = min(first, e.Discovered)
	}
	_, err = t.exec(ctx, `UPDATE queue_runs SET top = ?, first = ?, data = ? WHERE id = ?`, left[0].Priority, first, data, id)
	return err
}

// unpackURLs makes the packed URLs among ids rows of urls, queued: a
// commit's link targets, before it counts their inbound links.
func (t *txn) unpackURLs(ctx context.Context, ids []crawl.ID) error {
	if !t.db.hasRuns || len(ids) == 0 {
		return nil
	}
	ids = slices.Sorted(slices.Values(ids))
	ids = slices.Compact(ids)
	byRun := map[int64][]crawl.ID{}
	if err := t.inChunks(ctx, len(ids), 1, `SELECT id, run FROM seen s WHERE id IN (%s)
		AND NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = s.id)`, func(i int, a []any) { a[0] = ids[i] },
		func(rows *sql.Rows) error {
			var id crawl.ID
			var run int64
			if err := rows.Scan(&id, &run); err != nil {
				return err
			}
			byRun[run] = append(byRun[run], id)
			return nil
		}); err != nil {
		return fmt.Errorf("packed urls: %w", err)
	}
	for _, run := range slices.Sorted(maps.Keys(byRun)) {
		want := map[crawl.ID]bool{}
		for _, id := range byRun[run] {
			want[id] = true
		}
		if err := t.unpackRun(ctx, run, func(id crawl.ID) bool { return want[id] }); err != nil {
			return fmt.Errorf("packed urls of run %d: %w", run, err)
		}
	}
	return nil
}

// unpackHost makes all of a host's packed URLs rows of urls, queued.
func (t *txn) unpackHost(ctx context.Context, host crawl.ID) error {
	if !t.db.hasRuns {
		return nil
	}
	var runs []int64
	rows, err := t.query(ctx, `SELECT id FROM queue_runs WHERE host_id = ?`, host)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		runs = append(runs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, run := range runs {
		if err := t.unpackRun(ctx, run, func(crawl.ID) bool { return true }); err != nil {
			return fmt.Errorf("packed urls of run %d: %w", run, err)
		}
	}
	return nil
}

// unpackRun makes the URLs of run that take rows of urls, queued.
func (t *txn) unpackRun(ctx context.Context, run int64, take func(crawl.ID) bool) error {
	var host crawl.ID
	var key string
	var data []byte
	if err := t.queryRow(ctx, `SELECT r.host_id, h.key, r.data FROM queue_runs r JOIN hosts h ON h.id = r.host_id WHERE r.id = ?`,
		run).Scan(&host, &key, &data); err != nil {
		return err
	}
	entries, err := urlrun.Decode(data)
	if err != nil {
		return err
	}
	var moved []runURL
	left := entries[:0:0]
	for i := range entries {
		u := runURL{id: crawl.RelURLID(entries[i].Path, key, host), host: host, e: &entries[i]}
		if take(u.id) {
			moved = append(moved, u)
		} else {
			left = append(left, entries[i])
		}
	}
	if len(moved) == 0 {
		return nil
	}
	if err := t.insertRunURLs(ctx, moved, crawl.StateQueued, 0); err != nil {
		return err
	}
	return t.rewriteRun(ctx, run, left)
}

// claimCand is a queued URL a claim may take: a row or the head of a run
// it read.
type claimCand struct {
	u     crawl.ClaimedURL
	rowid int64 // a row's
	disc  int64
	run   *claimRun // a run's
}

// before orders claim candidates: by priority, then arrival, a row
// before a run's URL, then runs in the order they were written (a merge
// writes a host's runs best first, and its offers came after the earlier
// merges').
func (c claimCand) before(d claimCand) bool {
	if c.u.Priority != d.u.Priority {
		return c.u.Priority > d.u.Priority
	}
	if c.disc != d.disc {
		return c.disc < d.disc
	}
	if (c.run == nil) != (d.run == nil) {
		return c.run == nil
	}
	return c.run.id < d.run.id
}

// claimRun is a run a claim read: its entries, and how many it took
// (a run is taken from its head).
type claimRun struct {
	id      int64
	top     int64
	first   int64
	data    []byte
	entries []urlrun.Entry
	taken   int
}

// claimPacked marks up to n of the host's best ready URLs in flight,
// from its rows and its runs together (see the comment at the top). rows
// are the host's best ready rows (up to n, best first), each with its
// rowid and discovered_at.
func (t *txn) claimPacked(ctx context.Context, host crawl.ID, key string, n int, rows []claimCand) ([]crawl.ClaimedURL, error) {
	runs, err := t.query(ctx, `SELECT id, top, first, data FROM queue_runs INDEXED BY queue_runs_host WHERE host_id = ? ORDER BY top DESC, id`, host)
	if err != nil {
		return nil, err
	}
	defer runs.Close()
	var next *claimRun // the next run not read yet
	peek := func() error {
		next = nil
		if !runs.Next() {
			return runs.Err()
		}
		r := &claimRun{}
		if err := runs.Scan(&r.id, &r.top, &r.first, &r.data); err != nil {
			return err
		}
		next = r
		return nil
	}
	if err := peek(); err != nil {
		return nil, err
	}
	var read []*claimRun
	head := func(r *claimRun) claimCand {
		e := &r.entries[r.taken]
		return claimCand{u: crawl.ClaimedURL{Priority: int(e.Priority)}, disc: e.Discovered, run: r}
	}
	var out []claimCand
	ri := 0
	for len(out) < n {
		var best *claimCand
		if ri < len(rows) {
			best = &rows[ri]
		}
		for _, r := range read {
			if r.taken < len(r.entries) {
				if c := head(r); best == nil || c.before(*best) {
					best = &c
				}
			}
		}
		// The next run is read when its best URL, or one as good that
		// came earlier, could come first.
		if next != nil && (best == nil || next.top > int64(best.u.Priority) ||
			next.top == int64(best.u.Priority) && (next.first < best.disc ||
				next.first == best.disc && best.run != nil && next.id < best.run.id)) {
			r := next
			if r.entries, err = urlrun.Decode(r.data); err != nil {
				return nil, fmt.Errorf("run %d: %w", r.id, err)
			}
			read = append(read, r)
			if err := peek(); err != nil {
				return nil, err
			}
			continue
		}
		if best == nil {
			break
		}
		if best.run == nil {
			ri++
		} else {
			best.run.taken++
		}
		out = append(out, *best)
	}
	runs.Close()
	var rowids []int64
	var moved []runURL
	claimed := make([]crawl.ClaimedURL, 0, len(out))
	taken := map[*claimRun]int{} // of each run, how many are in claimed so far
	for _, c := range out {
		if c.run == nil {
			rowids = append(rowids, c.rowid)
			claimed = append(claimed, c.u)
			continue
		}
		e := &c.run.entries[taken[c.run]]
		taken[c.run]++
		via, err := viaOf(int64(e.Via))
		if err != nil {
			return nil, err
		}
		id := crawl.RelURLID(e.Path, key, host)
		moved = append(moved, runURL{id: id, host: host, e: e})
		claimed = append(claimed, crawl.ClaimedURL{ID: id, URL: crawl.FullURL(e.Path, key), HostID: host, Depth: int(e.Depth),
			Priority: int(e.Priority), Kind: crawl.Kind(e.Kind), LastMod: fromMS(e.LastMod), ChangeFreq: crawl.ChangeFreqs[e.ChangeFreq],
			Via: via})
	}
	for _, r := range read {
		if r.taken > 0 {
			if err := t.rewriteRun(ctx, r.id, r.entries[r.taken:]); err != nil {
				return nil, err
			}
		}
	}
	if len(rowids) > 0 {
		if err := t.inChunks(ctx, len(rowids), 1, `UPDATE urls SET state = 1, attempts = attempts + 1 WHERE rowid IN (%s)`,
			func(i int, a []any) { a[0] = rowids[i] }, nil); err != nil {
			return nil, err
		}
	}
	if len(moved) > 0 {
		if err := t.insertRunURLs(ctx, moved, crawl.StateInFlight, 1); err != nil {
			return nil, err
		}
	}
	return claimed, nil
}

// packedURL returns the record of a packed URL, or false if id is not
// one, read in tx, in which urls does not have id.
func packedURL(ctx context.Context, tx *sql.Tx, id crawl.ID) (crawl.URLRecord, bool, error) {
	var host crawl.ID
	var key string
	var data []byte
	err := tx.QueryRowContext(ctx, `SELECT r.host_id, h.key, r.data FROM seen s JOIN queue_runs r ON r.id = s.run
		JOIN hosts h ON h.id = r.host_id WHERE s.id = ?`, id).Scan(&host, &key, &data)
	if err == sql.ErrNoRows {
		return crawl.URLRecord{}, false, nil
	}
	if err != nil {
		return crawl.URLRecord{}, false, err
	}
	entries, err := urlrun.Decode(data)
	if err != nil {
		return crawl.URLRecord{}, false, err
	}
	for i := range entries {
		e := &entries[i]
		if crawl.RelURLID(e.Path, key, host) == id {
			via, err := viaOf(int64(e.Via))
			if err != nil {
				return crawl.URLRecord{}, false, err
			}
			return crawl.URLRecord{ID: id, URL: crawl.FullURL(e.Path, key), HostID: host, Depth: int(e.Depth),
				Priority: int(e.Priority), State: crawl.StateQueued, Via: via, Parent: crawl.ID(e.Parent),
				DiscoveredAt: fromMS(e.Discovered), Kind: crawl.Kind(e.Kind), LastMod: fromMS(e.LastMod),
				ChangeFreq: crawl.ChangeFreqs[e.ChangeFreq], Inlinks: int(e.Inlinks)}, true, nil
		}
	}
	return crawl.URLRecord{}, false, fmt.Errorf("run of url %d does not hold it", id)
}

// packedTarget is what a reader of link targets needs of a packed URL.
type packedTarget struct {
	url      string
	host     crawl.ID
	priority int64
}

// packedTargets returns the packed URLs among ids, read in q, in which
// urls holds none of ids: a merge of discoveries packs URLs that pages
// link to, so a link's target may be in a run until it is claimed or
// linked again. Each run is decoded once. An ID whose run does not hold
// it is left out, as one that no run names is: its readers (a page's
// links, a host's value) go on without it.
func packedTargets(ctx context.Context, q querier, ids []crawl.ID) (map[crawl.ID]packedTarget, error) {
	out := map[crawl.ID]packedTarget{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT s.id, r.id, r.host_id, h.key, r.data FROM json_each(?1) j
		JOIN seen s ON s.id = j.value JOIN queue_runs r ON r.id = s.run JOIN hosts h ON h.id = r.host_id
		ORDER BY r.id`, jsonIDs(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	want := map[crawl.ID]bool{}
	var run int64
	var host crawl.ID
	var key string
	var data []byte
	decode := func() error {
		if len(want) == 0 {
			return nil
		}
		entries, err := urlrun.Decode(data)
		if err != nil {
			return fmt.Errorf("run %d: %w", run, err)
		}
		for i := range entries {
			e := &entries[i]
			if id := crawl.RelURLID(e.Path, key, host); want[id] {
				out[id] = packedTarget{url: crawl.FullURL(e.Path, key), host: host, priority: e.Priority}
			}
		}
		clear(want)
		return nil
	}
	for rows.Next() {
		var id crawl.ID
		var r int64
		var h crawl.ID
		var k string
		var d []byte
		if err := rows.Scan(&id, &r, &h, &k, &d); err != nil {
			return nil, err
		}
		if r != run {
			if err := decode(); err != nil {
				return nil, err
			}
			run, host, key, data = r, h, k, d
		}
		want[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := decode(); err != nil {
		return nil, err
	}
	return out, nil
}
