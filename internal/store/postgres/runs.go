package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlrun"
)

// Queued URLs packed into runs (migration 0027), as in the SQLite store
// (docs/design/frontier-layout.md). A row of urls costs a queued URL
// about 270 bytes with its index entries, most of it the tuple's header
// and the entries. A large merge of staged offers (packMin offers or
// more: seeds, sitemaps, archive listings) writes the URLs it admits
// host by host, best first (by priority, then seq, drawn for each as for
// a row), up to runSize to a record of queue_runs, and each URL's ID to
// seen (many to a row) with its run. A packed URL is queued, and counted
// so (hosts.queued, the queued counter).
//
// A packed URL becomes a row of urls, queued, with the seq it was given,
// when a claim takes it (claimPacked, before claimSQL claims it as a
// row) and when a merge of the inbound links staged for it applies them
// (unpackStaged, inlinks.go: a commit whose page links to it only stages
// the link, as for a row), so everything but the add, the claim's choice
// and the look-ups by ID reads urls as before, and a host's URLs are
// claimed in the order rows would give. It keeps its seen entry: a URL
// is packed when seen has it and urls does not.
//
// Every change to a host's runs is made by a transaction that holds the
// host's row (a merge of offers or of inbound links, a claim), so that
// processes sharing the store never rewrite one run at once.

// packMin is the fewest staged offers a merge packs; a smaller merge
// inserts rows (the default of a store's tuning).
const packMin = 100_000

// runSize is how many URLs a merge writes to a run.
const runSize = 64

// packFetch is how many admitted offers a packing merge reads a round
// trip: it holds no more of them at once.
const packFetch = 16_384

// packOffersSQL opens the cursor of a packing merge over the hosts from
// %d to %d: the offers mergeOffersSQL decides on, with the host's key, the
// inbound links staged for the URL (%s: packCounts or noCounts), the
// finder, and whether the host's cap admits it (ok); each admitted offer
// draws seq as it is read (after the sort, so a host's URLs are numbered
// in offer order, as rows would be). The refused are read too, for the
// merge's report.
var packOffersSQL = `DECLARE pack_offers NO SCROLL CURSOR FOR
	SELECT n.id, ` + relURLSQL("n.url", "n.key") + `, n.host_id, n.key, n.depth, n.priority, n.via, n.parent_id, n.discovered_at,
		n.kind, n.lastmod, n.changefreq, s.n, s.raise, n.found_by, n.ok, CASE WHEN n.ok THEN nextval('urls_seq') END,
		n.fresh, n.fresh_n, n.fresh_top
	FROM (SELECT a.*, a.cap <= 0 OR a.admitted + a.k <= a.cap AS ok FROM (` + admittedOffersSQL("%[1]d", "%[2]d") + `) AS a) AS n
		CROSS JOIN LATERAL %[3]s AS s
	ORDER BY n.host_id, n.ord`

// packCounts reads the inbound links staged for an offer's URL, which is
// not a row (a URL admitted has none counted yet); noCounts, for a merge
// with none staged for URLs that are not rows, reads nothing.
var (
	packCounts = stagedInlinksIn("inlinks_found", "n.id", "0")
	noCounts   = `(SELECT 0 AS n, 0 AS raise)`
)

// seenRow is the most IDs a merge writes to a row of seen.
const seenRow = 64

// groupMask keeps the host bits of an ID (crawl.HostBits), as a signed
// SQL number.
var groupMask = strconv.FormatInt(^int64(1<<(64-crawl.URLHostBits)-1), 10)

// mergeSeenSQL moves the entries of seen_new with IDs from $1 to $2
// (none in seen) to seen. Each goes to the row of its host-bit group
// whose range holds it (the greatest lo at or below it in the group), or,
// below every row of its group, among the group's new rows; every row
// taking IDs is rewritten with them, split evenly into rows of at most
// seenRow IDs. The rows of one group are written only by the merge of
// the range of hosts that holds the group. A merge runs it once it has
// read all its offers: a look-up of seen by the merge's cursor would
// otherwise pass the index entries of every row written after the
// cursor opened, which it cannot see.
var mergeSeenSQL = `WITH x AS (
	DELETE FROM seen_new WHERE id BETWEEN $1 AND $2 RETURNING id, run
), n AS (
	SELECT x.id, x.run, coalesce((SELECT s.lo FROM seen s WHERE s.lo <= x.id AND s.lo >= x.id & ` + groupMask + `
		ORDER BY s.lo DESC LIMIT 1), x.id & ` + groupMask + `) AS k
	FROM x
), old AS (
	DELETE FROM seen s WHERE s.lo IN (SELECT k FROM n) RETURNING s.lo, s.ids, s.runs
), a AS (
	SELECT o.lo AS k, u.id, u.run FROM old o, unnest(o.ids, o.runs) AS u(id, run)
	UNION ALL SELECT k, id, run FROM n
), c AS (
	SELECT k, id, run, row_number() OVER (PARTITION BY k ORDER BY id) - 1 AS i, count(*) OVER (PARTITION BY k) AS n FROM a
)
INSERT INTO seen (lo, ids, runs)
SELECT min(id), array_agg(id ORDER BY id), array_agg(run ORDER BY id)
FROM c GROUP BY k, i * ((n + ` + strconv.Itoa(seenRow-1) + `) / ` + strconv.Itoa(seenRow) + `) / n`

// seenRunSQL is the SQL of the run seen gives for the ID x (an SQL
// expression), NULL if seen does not have it.
func seenRunSQL(x string) string {
	return `(SELECT b.runs[array_position(b.ids, ` + x + `)] FROM (SELECT ids, runs FROM seen WHERE lo <= ` + x + `
		ORDER BY lo DESC LIMIT 1) AS b)`
}

// packOffer is an admitted offer a packing merge reads.
type packOffer struct {
	id, host, parent, disc, lastmod, seq int64
	rel, key, via, changefreq            string
	depth, priority                      int32
	inlinks, raise                       int32 // staged inbound links of the URL, and the priority they add
	kind                                 int16
	foundBy                              *int64 // the host whose page found it, if a commit staged it
	fresh                                bool   // the merge inserted its host, with the counts:
	freshN                               int64  // URLs admitted
	freshTop                             int32  // and their best priority
}

// entry returns the offer's entry in a run, or false when a run cannot
// hold it (a way or change frequency without a code, a text too long, an
// ID that is not its URL's or lacks its host's bits): it then takes a
// row.
func (o *packOffer) entry() (urlrun.Entry, bool) {
	via := slices.Index(crawl.ViaCodes, crawl.Via(o.via))
	cf := slices.Index(crawl.ChangeFreqs[:], o.changefreq)
	if via < 0 || cf < 0 || o.kind < 0 || o.kind > 255 || len(o.rel) > urlrun.MaxPath || o.seq == 0 ||
		crawl.RelURLID(o.rel, o.key, crawl.ID(o.host)) != crawl.ID(o.id) || crawl.HostBits(crawl.ID(o.id)) != crawl.HostBits(crawl.ID(o.host)) {
		return urlrun.Entry{}, false
	}
	return urlrun.Entry{Path: o.rel, Priority: int64(o.priority), Depth: int64(o.depth), Kind: uint8(o.kind), Via: uint8(via),
		Discovered: o.disc, LastMod: o.lastmod, ChangeFreq: uint8(cf), Parent: o.parent, Seq: o.seq}, true
}

// before orders a host's entries as claims take them: by priority, then
// seq.
func before(a, b *urlrun.Entry) int {
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}

// packer gathers a packing merge's runs, seen entries and rows, and
// writes them in batches.
type packer struct {
	t    *txn
	host int64          // the host whose offers are being read
	cur  []urlrun.Entry // its packable offers
	ids  []int64        // their URL IDs

	runIDs, runHosts []int64
	runTops          []int32
	runData          [][]byte
	seenIDs, seenRun []int64
	rows             []packOffer // offers a run cannot hold

	hostIDs, hostN []int64 // what the merge admitted to each host
	hostTop        []int32
	fresh          bool        // the merge inserted the host (the one read last),
	inserted       hostCount   // with these counts
	changes        []hostCount // the hosts' counts to change (closeCounts)
	exact          []bool      // whether to set them rather than add them
	freshN         int64       // the hosts inserted whose offers were read
	counted        []int64     // the URLs packed with staged inbound links

	// The refused by their host's cap, the hosts that refused some, and
	// the admitted by finder.
	over    int64
	capped  []int64
	finders map[int64]int64

	small []smallHost // hosts with fewer than runSize URLs packed, for flush
}

// smallHost is a host a merge gives fewer URLs than a run holds: they go
// to its last run if they fit there, so that a host given a few URLs by
// each of several merges has one run, not one a merge.
type smallHost struct {
	host    int64
	entries []urlrun.Entry // best first
	ids     []int64
}

// add takes an admitted offer (they come in host order).
func (p *packer) add(o packOffer) error {
	if len(p.hostIDs) == 0 || p.host != o.host {
		if err := p.endHost(); err != nil {
			return err
		}
		p.closeCounts()
		p.host = o.host
		p.hostIDs, p.hostN, p.hostTop = append(p.hostIDs, o.host), append(p.hostN, 0), append(p.hostTop, o.priority)
		p.fresh, p.inserted = o.fresh, hostCount{o.host, o.freshN, o.freshTop}
	}
	k := len(p.hostIDs) - 1
	p.hostN[k]++
	p.hostTop[k] = max(p.hostTop[k], o.priority) // before the links' bonus, as a row's
	if e, ok := o.entry(); ok {
		// A packed URL takes its staged inbound links, as its row would
		// at the merge of inbound links; a URL that takes a row leaves
		// them staged for that merge.
		e.Priority += int64(o.raise)
		e.Inlinks = int64(o.inlinks)
		if o.inlinks > 0 {
			p.counted = append(p.counted, o.id)
		}
		p.cur, p.ids = append(p.cur, e), append(p.ids, o.id)
	} else {
		p.rows = append(p.rows, o)
	}
	return nil
}

// endHost encodes the host's packable offers into runs, best first, or
// keeps them for placeSmall when they are fewer than a run holds.
func (p *packer) endHost() error {
	if len(p.cur) == 0 {
		return nil
	}
	order := make([]int, len(p.cur))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return before(&p.cur[a], &p.cur[b]) })
	if len(order) < runSize {
		h := smallHost{host: p.host, entries: make([]urlrun.Entry, len(order)), ids: make([]int64, len(order))}
		for k, i := range order {
			h.entries[k], h.ids[k] = p.cur[i], p.ids[i]
		}
		p.small = append(p.small, h)
		p.cur, p.ids = p.cur[:0], p.ids[:0]
		return nil
	}
	err := p.addRuns(p.host, order, p.cur, p.ids)
	p.cur, p.ids = p.cur[:0], p.ids[:0]
	return err
}

// addRuns adds the entries of host in order (best first; indexes in
// entries and ids) to the runs to write, runSize to a run.
func (p *packer) addRuns(host int64, order []int, entries []urlrun.Entry, ids []int64) error {
	run := make([]urlrun.Entry, 0, runSize)
	for lo := 0; lo < len(order); lo += runSize {
		chunk := order[lo:min(lo+runSize, len(order))]
		run = run[:0]
		id := entries[chunk[0]].Seq
		for _, i := range chunk {
			run = append(run, entries[i])
			id = min(id, entries[i].Seq)
		}
		data, err := urlrun.Encode(nil, run)
		if err != nil {
			return err
		}
		p.runIDs, p.runHosts, p.runTops, p.runData = append(p.runIDs, id), append(p.runHosts, host),
			append(p.runTops, int32(run[0].Priority)), append(p.runData, data)
		for _, i := range chunk {
			p.seenIDs, p.seenRun = append(p.seenIDs, ids[i]), append(p.seenRun, id)
		}
	}
	return nil
}

// placeSmall puts the small hosts' URLs in their last runs where they
// fit (queued in b: the run rewritten with them, best first; a run's ID,
// the least seq it had, stays below theirs), or in runs of their own.
func (p *packer) placeSmall(ctx context.Context, b *pgx.Batch) error {
	if len(p.small) == 0 {
		return nil
	}
	hosts := make([]int64, len(p.small))
	for i, h := range p.small {
		hosts[i] = h.host
	}
	type lastRun struct {
		id   int64
		data []byte
	}
	last := map[int64]lastRun{}
	rows, err := p.t.conn.Query(ctx, `SELECT DISTINCT ON (host_id) host_id, id, data FROM queue_runs
		WHERE host_id = ANY($1) ORDER BY host_id, id DESC`, hosts)
	if err != nil {
		return err
	}
	var host int64
	var r lastRun
	if _, err := pgx.ForEachRow(rows, []any{&host, &r.id, &r.data}, func() error {
		last[host] = lastRun{r.id, slices.Clone(r.data)}
		return nil
	}); err != nil {
		return err
	}
	for _, h := range p.small {
		order := make([]int, len(h.entries))
		for i := range order {
			order[i] = i
		}
		if r, ok := last[h.host]; ok {
			if n, err := urlrun.Len(r.data); err == nil && n+len(h.entries) <= runSize {
				old, err := urlrun.Decode(r.data)
				if err != nil {
					return fmt.Errorf("run %d: %w", r.id, err)
				}
				all := append(old, h.entries...)
				slices.SortFunc(all, func(a, b urlrun.Entry) int { return before(&a, &b) })
				if err := queueRewriteRun(b, r.id, all); err != nil {
					return err
				}
				for _, id := range h.ids {
					p.seenIDs, p.seenRun = append(p.seenIDs, id), append(p.seenRun, r.id)
				}
				continue
			}
		}
		if err := p.addRuns(h.host, order, h.entries, h.ids); err != nil {
			return err
		}
	}
	p.small = p.small[:0]
	return nil
}

// flush places the small hosts' URLs (placeSmall) and writes the runs,
// seen entries (to seen_new) and rows gathered, by COPY.
func (p *packer) flush(ctx context.Context) error {
	conn := p.t.conn
	b := p.t.batch()
	if err := p.placeSmall(ctx, b); err != nil {
		return err
	}
	if err := p.t.send(ctx, b); err != nil {
		return err
	}
	if len(p.runIDs) > 0 {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"queue_runs"}, []string{"id", "host_id", "top", "data"},
			pgx.CopyFromSlice(len(p.runIDs), func(i int) ([]any, error) {
				return []any{p.runIDs[i], p.runHosts[i], p.runTops[i], p.runData[i]}, nil
			})); err != nil {
			return fmt.Errorf("copy runs: %w", err)
		}
	}
	if len(p.seenIDs) > 0 {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"seen_new"}, []string{"id", "run"},
			pgx.CopyFromSlice(len(p.seenIDs), func(i int) ([]any, error) {
				return []any{p.seenIDs[i], p.seenRun[i]}, nil
			})); err != nil {
			return fmt.Errorf("copy seen: %w", err)
		}
	}
	if len(p.rows) > 0 {
		cols := append(slices.Clone(copyColumns), "seq")
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"urls"}, cols,
			pgx.CopyFromSlice(len(p.rows), func(i int) ([]any, error) {
				o := &p.rows[i]
				return []any{o.id, o.rel, o.host, o.depth, o.priority, int16(0), o.via, o.parent, o.disc, o.kind, o.lastmod,
					o.changefreq, o.seq}, nil
			})); err != nil {
			return fmt.Errorf("copy urls: %w", err)
		}
	}
	p.runIDs, p.runHosts, p.runTops, p.runData = p.runIDs[:0], p.runHosts[:0], p.runTops[:0], p.runData[:0]
	p.seenIDs, p.seenRun, p.rows = p.seenIDs[:0], p.seenRun[:0], p.rows[:0]
	return nil
}

// packed is what a packing merge of a range decided.
type packed struct {
	added, over            int64
	hosts, capped, counted []int64 // hosts admitted URLs and capped; the URLs packed with staged inbound links
}

// hostCount is a host's count of URLs admitted and its best priority.
type hostCount struct {
	id, n int64
	top   int32
}

// closeCounts notes the change to the counts of the host whose offers
// the merge read last, which it admitted URLs to: a host the merge
// inserted with the counts it gave it is left alone, another host it
// inserted takes them (exact), the others add them.
func (p *packer) closeCounts() {
	k := len(p.hostIDs) - 1
	if k < 0 {
		return
	}
	if p.fresh {
		p.freshN++
	}
	if c := (hostCount{p.hostIDs[k], p.hostN[k], p.hostTop[k]}); !p.fresh || c != p.inserted {
		p.changes, p.exact = append(p.changes, c), append(p.exact, p.fresh)
	}
}

// packRange decides, in t, on the staged offers of the hosts from lo to
// hi, whose rows are locked, and packs the admitted into runs (see the
// comment at the top), each with the inbound links staged for it when
// counts says there may be some, and appends the finders' counts to
// host_finds. The merge inserted hosts (inserted) with counts of their own
// (countedHostsSQL); it corrects those that are not the counts it gave.
func (t *txn) packRange(ctx context.Context, lo, hi int64, counts bool, inserted int64) (packed, error) {
	c := noCounts
	if counts {
		c = packCounts
	}
	if _, err := t.conn.Exec(ctx, fmt.Sprintf(packOffersSQL, lo, hi, c)); err != nil {
		return packed{}, err
	}
	p := &packer{t: t, finders: map[int64]int64{}}
	for {
		rows, err := t.conn.Query(ctx, fmt.Sprintf(`FETCH %d FROM pack_offers`, packFetch))
		if err != nil {
			return packed{}, err
		}
		n := 0
		for rows.Next() {
			var o packOffer
			var ok bool
			var seq *int64
			if err := rows.Scan(&o.id, &o.rel, &o.host, &o.key, &o.depth, &o.priority, &o.via, &o.parent, &o.disc, &o.kind,
				&o.lastmod, &o.changefreq, &o.inlinks, &o.raise, &o.foundBy, &ok, &seq, &o.fresh, &o.freshN, &o.freshTop); err != nil {
				rows.Close()
				return packed{}, err
			}
			n++
			if !ok {
				p.refuse(o.host)
				continue
			}
			o.seq = *seq
			if o.foundBy != nil {
				p.finders[*o.foundBy]++
			}
			if err := p.add(o); err != nil {
				rows.Close()
				return packed{}, err
			}
		}
		if err := rows.Err(); err != nil {
			return packed{}, err
		}
		if n < packFetch {
			break
		}
		if err := p.flush(ctx); err != nil {
			return packed{}, err
		}
	}
	if err := p.endHost(); err != nil {
		return packed{}, err
	}
	p.closeCounts()
	if err := p.flush(ctx); err != nil {
		return packed{}, err
	}
	r := packed{over: p.over, hosts: p.hostIDs, capped: p.capped, counted: p.counted}
	for _, n := range p.hostN {
		r.added += n
	}
	b := t.batch()
	b.Queue(`CLOSE pack_offers`)
	b.Queue(mergeSeenSQL, lo, hi)
	if p.freshN < inserted {
		// A host inserted whose offers were all known (a URL ID stored
		// under another host) admitted nothing; every host read admitted
		// some. (NOT IN a subquery is a hashed look-up, where <> ALL of
		// an array compares each row with every element.)
		b.Queue(`UPDATE hosts h SET admitted = 0, queued = 0, top_priority = `+strconv.Itoa(noPriority)+`
			FROM hosts_new n WHERE h.id = n.id AND n.id BETWEEN $1 AND $2 AND n.id NOT IN (SELECT unnest($3::bigint[]))`,
			lo, hi, p.hostIDs)
	}
	if inserted > 0 {
		b.Queue(`DELETE FROM hosts_new WHERE id BETWEEN $1 AND $2`, lo, hi)
	}
	if cs := p.changes; len(cs) > 0 {
		ids, ns, tops := make([]int64, len(cs)), make([]int64, len(cs)), make([]int32, len(cs))
		for i, c := range cs {
			ids[i], ns[i], tops[i] = c.id, c.n, c.top
		}
		b.Queue(`UPDATE hosts h SET admitted = CASE WHEN d.exact THEN d.n ELSE h.admitted + d.n END,
				queued = CASE WHEN d.exact THEN d.n ELSE h.queued + d.n END,
				top_priority = CASE WHEN d.exact THEN d.top ELSE greatest(h.top_priority, d.top) END
			FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::bool[]) AS d(id, n, top, exact) WHERE h.id = d.id`,
			ids, ns, tops, p.exact)
	}
	if len(p.finders) > 0 {
		ids, ns := make([]int64, 0, len(p.finders)), make([]int64, 0, len(p.finders))
		for id, n := range p.finders {
			ids, ns = append(ids, id), append(ns, n)
		}
		b.Queue(`INSERT INTO host_finds (host_id, n) SELECT * FROM unnest($1::bigint[], $2::bigint[])`, ids, ns)
	}
	if err := t.send(ctx, b); err != nil {
		return packed{}, err
	}
	return r, nil
}

// refuse notes an offer refused by its host's cap (they come in host
// order).
func (p *packer) refuse(host int64) {
	p.over++
	if len(p.capped) == 0 || p.capped[len(p.capped)-1] != host {
		p.capped = append(p.capped, host)
	}
}

// runURL is a packed URL leaving its run for a row of urls.
type runURL struct {
	id, host int64
	e        *urlrun.Entry
}

// queueRunURLs queues the insertion of packed URLs as queued rows of
// urls, with their seq; their seen entries stay.
func queueRunURLs(b *pgx.Batch, us []runURL) {
	if len(us) == 0 {
		return
	}
	slices.SortFunc(us, func(a, b runURL) int { return cmp.Compare(a.id, b.id) })
	n := len(us)
	ids, hosts, parents, discs, lastmods, seqs, inlinks := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n),
		make([]int64, n), make([]int64, n), make([]int64, n)
	rels, vias, freqs := make([]string, n), make([]string, n), make([]string, n)
	depths, prios := make([]int32, n), make([]int32, n)
	kinds := make([]int16, n)
	for i, u := range us {
		e := u.e
		ids[i], hosts[i], parents[i], discs[i], lastmods[i], seqs[i], inlinks[i] = u.id, u.host, e.Parent, e.Discovered, e.LastMod, e.Seq, e.Inlinks
		rels[i], vias[i], freqs[i] = e.Path, string(crawl.ViaCodes[e.Via]), crawl.ChangeFreqs[e.ChangeFreq]
		depths[i], prios[i], kinds[i] = int32(e.Depth), int32(e.Priority), int16(e.Kind)
	}
	b.Queue(`INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id, discovered_at, kind, lastmod, changefreq, seq, inlinks)
		SELECT id, url, host_id, depth, priority, 0, via, parent_id, discovered_at, kind, lastmod, changefreq, seq, inlinks
		FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::int[], $5::int[], $6::text[], $7::bigint[], $8::bigint[],
			$9::smallint[], $10::bigint[], $11::text[], $12::bigint[], $13::int[])
			AS t(id, url, host_id, depth, priority, via, parent_id, discovered_at, kind, lastmod, changefreq, seq, inlinks)`,
		ids, rels, hosts, depths, prios, vias, parents, discs, kinds, lastmods, freqs, seqs, inlinks)
}

// queueRewriteRun queues keeping the entries left of run id (best first),
// or deleting the run when none are.
func queueRewriteRun(b *pgx.Batch, id int64, left []urlrun.Entry) error {
	if len(left) == 0 {
		b.Queue(`DELETE FROM queue_runs WHERE id = $1`, id)
		return nil
	}
	data, err := urlrun.Encode(nil, left)
	if err != nil {
		return err
	}
	b.Queue(`UPDATE queue_runs SET top = $2, data = $3 WHERE id = $1`, id, int32(left[0].Priority), data)
	return nil
}

// decodeRun returns the entries of a run and the ID of each. It refuses
// an entry whose codes or seq no merge writes.
func decodeRun(id int64, data []byte, key string, host int64) ([]urlrun.Entry, []int64, error) {
	entries, err := urlrun.Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("run %d: %w", id, err)
	}
	ids := make([]int64, len(entries))
	for i, e := range entries {
		if int(e.Via) >= len(crawl.ViaCodes) || int(e.ChangeFreq) >= len(crawl.ChangeFreqs) || e.Seq == 0 {
			return nil, nil, fmt.Errorf("run %d: entry %d: %w", id, i, urlrun.ErrCorrupt)
		}
		ids[i] = int64(crawl.RelURLID(e.Path, key, crawl.ID(host)))
	}
	return entries, ids, nil
}

// packedRunsSQL is the SQL of the packed URLs among the IDs $1 and
// their runs (s: id, run), joined by the columns given.
func packedRunsSQL(cols, join string) string {
	return packedRunsIn(`SELECT id FROM unnest($1::bigint[]) AS x(id)`, cols, join)
}

// packedRunsIn is packedRunsSQL of the IDs the SQL ids selects (id). urls
// is asked only about the IDs seen has: most stores hold few packed URLs
// or none.
func packedRunsIn(ids, cols, join string) string {
	return `WITH s AS MATERIALIZED (
		SELECT id, run FROM (SELECT x.id, ` + seenRunSQL("x.id") + ` AS run FROM (` + ids + `) AS x) AS x
		WHERE run IS NOT NULL)
	SELECT ` + cols + ` FROM s JOIN queue_runs r ON r.id = s.run ` + join + `
	WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = s.id)`
}

// unpackURLs queues in b making the packed URLs among ids rows of urls,
// queued, whose hosts' rows the transaction holds. It reads their runs
// in one round trip of t.
func (t *txn) unpackURLs(ctx context.Context, b *pgx.Batch, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	type run struct {
		host int64
		key  string
		data []byte
		want map[int64]bool
	}
	runs := map[int64]*run{}
	rb := t.batch()
	rb.Queue(packedRunsSQL("s.id, r.id, r.host_id, h.key, r.data", "JOIN hosts h ON h.id = r.host_id"), ids).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id, rid, host int64
			var key string
			var data []byte
			if err := rows.Scan(&id, &rid, &host, &key, &data); err != nil {
				return err
			}
			r := runs[rid]
			if r == nil {
				r = &run{host: host, key: key, data: data, want: map[int64]bool{}}
				runs[rid] = r
			}
			r.want[id] = true
		}
		return rows.Err()
	})
	if err := t.send(ctx, rb); err != nil {
		return err
	}
	var moved []runURL
	for _, rid := range slices.Sorted(maps.Keys(runs)) {
		r := runs[rid]
		entries, eids, err := decodeRun(rid, r.data, r.key, r.host)
		if err != nil {
			return err
		}
		left := entries[:0:0]
		for i := range entries {
			if r.want[eids[i]] {
				moved = append(moved, runURL{id: eids[i], host: r.host, e: &entries[i]})
			} else {
				left = append(left, entries[i])
			}
		}
		if err := queueRewriteRun(b, rid, left); err != nil {
			return err
		}
	}
	queueRunURLs(b, moved)
	return nil
}

// packedURL returns the record of a packed URL, with the inbound links
// staged for it, or false if id is not one. It reads the run and the
// staged rows in one snapshot, as a merge may make the URL a row and
// merge its rows in between.
func (db *DB) packedURL(ctx context.Context, id crawl.ID) (u crawl.URLRecord, ok bool, err error) {
	tx, err := db.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return u, false, err
	}
	defer tx.Rollback(ctx)
	var rid, host int64
	var key string
	var data []byte
	err = tx.QueryRow(ctx, packedRunsSQL("r.id, r.host_id, h.key, r.data", "JOIN hosts h ON h.id = r.host_id"),
		[]int64{int64(id)}).Scan(&rid, &host, &key, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, false, nil
	}
	if err != nil {
		return u, false, err
	}
	entries, ids, err := decodeRun(rid, data, key, host)
	if err != nil {
		return u, false, err
	}
	i := slices.Index(ids, int64(id))
	if i < 0 {
		return u, false, nil
	}
	e := entries[i]
	var n, raise int32
	if err := tx.QueryRow(ctx, `SELECT s.n, s.raise FROM `+stagedInlinks("$1::bigint", "$2::int")+` AS s`,
		int64(id), int32(e.Inlinks)).Scan(&n, &raise); err != nil {
		return u, false, err
	}
	return crawl.URLRecord{ID: id, URL: crawl.FullURL(e.Path, key), HostID: crawl.ID(host), Depth: int(e.Depth),
		Priority: int(e.Priority) + int(raise), State: crawl.StateQueued, Via: crawl.ViaCodes[e.Via], Parent: crawl.ID(e.Parent),
		DiscoveredAt: fromMS(e.Discovered), Kind: crawl.Kind(e.Kind), LastMod: fromMS(e.LastMod),
		ChangeFreq: crawl.ChangeFreqs[e.ChangeFreq], Inlinks: int(e.Inlinks) + int(n)}, true, tx.Commit(ctx)
}

// claimRuns is what a claim knows of a host with runs: its best ready
// rows and its runs, best first, as far as it read them.
type claimRuns struct {
	key  string
	rows []rowKey
	runs []*headRun
	more bool // the host may have runs after those read
	all  bool // every packed URL is taken (the host spent its byte share)
}

// rowKey is where a queued row comes in its host's order.
type rowKey struct {
	priority int64
	seq      int64
}

// headRun is a run a claim read: its head (ID and top), its data once
// read, and how many of its URLs the claim takes (from its head: a run
// is sorted best first).
type headRun struct {
	id      int64
	top     int64
	data    []byte
	entries []urlrun.Entry
	ids     []int64
	taken   int
}

// beats reports whether the URL of priority p and seq q comes before the
// one of priority bp and seq bq in a claim's order.
func beats(p, q, bp, bq int64) bool { return p > bp || p == bp && q < bq }

// choose decides how many URLs of each run a claim of up to n URLs of
// host takes, taking the host's best by priority, then seq, from its
// ready rows and its runs together. A run is opened only when its head
// (its top, and its ID, which no seq left in it is below) could come
// before the best candidate so far. It returns the runs whose data it
// needs first, or more when it needs the heads of runs not read.
func (h *claimRuns) choose(host int64, n int) (need []int64, more bool, err error) {
	for _, r := range h.runs {
		r.taken = 0
	}
	open := func(r *headRun) error {
		if r.entries == nil {
			r.entries, r.ids, err = decodeRun(r.id, r.data, h.key, host)
		}
		return err
	}
	if h.all {
		if h.more {
			return nil, true, nil
		}
		for _, r := range h.runs {
			if r.data == nil {
				need = append(need, r.id)
			}
		}
		if need != nil {
			return need, false, nil
		}
		for _, r := range h.runs {
			if err := open(r); err != nil {
				return nil, false, err
			}
			r.taken = len(r.entries)
		}
		return nil, false, nil
	}
	ri, opened := 0, 0
	for picked := 0; picked < n; picked++ {
		found, from := false, -1 // from: the run of the best, -1 a row
		var bp, bq int64
		if ri < len(h.rows) {
			found, bp, bq = true, h.rows[ri].priority, h.rows[ri].seq
		}
		for j, r := range h.runs[:opened] {
			if r.taken < len(r.entries) {
				if e := &r.entries[r.taken]; !found || beats(e.Priority, e.Seq, bp, bq) {
					found, from, bp, bq = true, j, e.Priority, e.Seq
				}
			}
		}
		if opened < len(h.runs) {
			if r := h.runs[opened]; !found || beats(r.top, r.id, bp, bq) {
				if r.data == nil {
					return []int64{r.id}, false, nil
				}
				if err := open(r); err != nil {
					return nil, false, err
				}
				opened++
				picked--
				continue
			}
		} else if h.more && (!found || len(h.runs) == 0 || h.runs[len(h.runs)-1].top >= bp) {
			// A run not read, after the last read by (top DESC, id),
			// could come first.
			return nil, true, nil
		}
		if !found {
			break
		}
		if from < 0 {
			ri++
		} else {
			h.runs[from].taken++
		}
	}
	return nil, false, nil
}

// claimHeadsSQL reads the heads of the best $2 runs of each host of $1,
// with the data of the first $3 of each, and the host's key.
const claimHeadsSQL = `SELECT x.id, h.key, r.id, r.top, CASE WHEN r.k <= $3 THEN (SELECT data FROM queue_runs d WHERE d.id = r.id) END
	FROM unnest($1::bigint[]) AS x(id) JOIN hosts h ON h.id = x.id CROSS JOIN LATERAL (
		SELECT id, top, row_number() OVER (ORDER BY top DESC, id) AS k
		FROM queue_runs WHERE host_id = x.id ORDER BY top DESC, id LIMIT $2) AS r`

// claimPacked claims, in t, for the hosts of order, which have runs:
// it locks them, reads their best ready rows and the heads of their
// runs, chooses what to take (claimRuns.choose), reading what more it
// needs, makes the URLs it takes from runs rows, and runs claimSQL for
// the hosts, as the first transaction did for the others.
func (db *DB) claimPacked(ctx context.Context, t *txn, owner string, cs []hostClaim, byID map[crawl.ID][]int, order []int64, n int,
	lim crawl.Limits, now time.Time, reserved, bytes *int64) error {
	hs := make(map[int64]*claimRuns, len(order))
	limits := make(map[int64]int64, len(order)) // the most heads read of each host
	var some, all []int64
	for _, id := range order {
		c := &claimRuns{}
		// A host over its byte share has all its queued URLs skipped:
		// its packed ones become rows first.
		if i := byID[crawl.ID(id)][0]; lim.MaxHostBytes > 0 && cs[i].hostBytes >= lim.MaxHostBytes {
			c.all = true
			all = append(all, id)
			limits[id] = math.MaxInt32
		} else {
			some = append(some, id)
			limits[id] = int64(n + 1)
		}
		hs[id] = c
	}
	byRun := map[int64]*headRun{}
	queueHeads := func(b *pgx.Batch, ids []int64, limit, data int64) {
		if len(ids) == 0 {
			return
		}
		b.Queue(claimHeadsSQL, ids, limit, data).Query(func(rows pgx.Rows) error {
			for _, id := range ids {
				hs[id].runs = hs[id].runs[:0]
			}
			for rows.Next() {
				var id int64
				var key string
				r := &headRun{}
				if err := rows.Scan(&id, &key, &r.id, &r.top, &r.data); err != nil {
					return err
				}
				if old := byRun[r.id]; old != nil && r.data == nil {
					r.data = old.data
				}
				byRun[r.id] = r
				h := hs[id]
				h.key, h.runs = key, append(h.runs, r)
			}
			for _, id := range ids {
				hs[id].more = int64(len(hs[id].runs)) >= limit
			}
			return rows.Err()
		})
	}
	ids := slices.Clone(order)
	slices.Sort(ids)
	b := t.batch()
	b.Queue(`SELECT count(*) FROM (SELECT 1 FROM hosts WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE) l`, ids)
	b.Queue(`SELECT x.id, u.priority, u.seq FROM unnest($1::bigint[]) AS x(id) CROSS JOIN LATERAL (
			SELECT priority, seq FROM urls WHERE host_id = x.id AND state = 0 AND retry_at <= $2
			ORDER BY priority DESC, seq LIMIT $3) AS u`, ids, now.UnixMilli(), int64(max(n, 0))).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var id int64
			var k rowKey
			if err := rows.Scan(&id, &k.priority, &k.seq); err != nil {
				return err
			}
			hs[id].rows = append(hs[id].rows, k)
		}
		return rows.Err()
	})
	queueHeads(b, some, int64(n+1), 2)
	queueHeads(b, all, math.MaxInt32, math.MaxInt32)
	if err := t.send(ctx, b); err != nil {
		return err
	}
	for {
		var need, more []int64
		for _, id := range order {
			nd, mr, err := hs[id].choose(id, n)
			if err != nil {
				return err
			}
			need = append(need, nd...)
			if mr {
				more = append(more, id)
			}
		}
		if len(need) == 0 && len(more) == 0 {
			break
		}
		b := t.batch()
		if len(need) > 0 {
			b.Queue(`SELECT id, data FROM queue_runs WHERE id = ANY($1)`, need).Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var id int64
					var data []byte
					if err := rows.Scan(&id, &data); err != nil {
						return err
					}
					if r := byRun[id]; r != nil {
						r.data = data
					}
				}
				return rows.Err()
			})
		}
		for _, id := range more {
			limits[id] *= 2
			queueHeads(b, []int64{id}, limits[id], 0)
		}
		if err := t.send(ctx, b); err != nil {
			return err
		}
		for _, id := range need {
			if r := byRun[id]; r == nil || r.data == nil {
				return fmt.Errorf("run %d: gone while its host was locked", id)
			}
		}
	}
	b = t.batch()
	var moved []runURL
	for _, id := range order {
		for _, r := range hs[id].runs {
			if r.taken == 0 {
				continue
			}
			for k := range r.taken {
				moved = append(moved, runURL{id: r.ids[k], host: id, e: &r.entries[k]})
			}
			if err := queueRewriteRun(b, r.id, r.entries[r.taken:]); err != nil {
				return err
			}
		}
	}
	queueRunURLs(b, moved)
	db.queueClaim(b, t, owner, cs, byID, order, n, lim, now, true)
	queueBudgets(b, lim, reserved, bytes)
	return t.commit(ctx, b)
}
