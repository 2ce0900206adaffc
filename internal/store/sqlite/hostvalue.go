package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/outlinks"
)

// researchTypes are the page types (crawl.Metadata.Type) that count as
// research when a host is valued.
const researchTypes = `('article', 'preprint', 'thesis', 'proceedings', 'book', 'dataset')`

// citeGap is how far above the page linking to it (above 0 for a page
// ranking below 0) a URL on another host ranks when the link counts as
// one to research before the URL is fetched: one path pattern's bonus
// (score's PatternBonus), so a blog post's link to another blog's home
// page does not count and its link to a journal's article does, and a
// shop's product page linking to ordinary pages elsewhere (its template's
// social links) cites nothing.
const citeGap = 6

// A host's value is learned from its pages (n: its last pages, not its
// sitemaps), the research among them (pages of a
// research type, and files recorded without their text read, as PDFs are
// with --no-pdf: on the web most are papers), the related pages (people,
// publication lists), the copies of another host's pages (exact or near
// duplicates: a mirror's; they count as nothing else), and the citing
// pages (of none of those kinds, linking to a URL on another host that
// was recorded as research or, not yet known, ranks citeGap above the
// page, or above 0 for a page ranking below 0: a blog post or news item
// citing a paper), then the value: the share of research plus half the
// shares of related and citing pages, less the share of copies, against
// the quarter of research expected of a host not seen yet, with 4 pages
// of prior, times 24 (hostLearned.setValue). A host of research alone
// tends to +18, a blog whose posts all cite research to +6, one of other
// pages alone to −6, a mirror to −30. The PostgreSQL store computes the
// same.

// hostPageKindsSQL reads, for host ?1, the pages its value is learned
// from, its last ?2 recorded: each page's ID, its priority and its kind
// k (1 research, 2 related, 3 a copy of another host's page, 4 a copy of
// one of its own, 0 none of those). The pages' columns are read from the
// covering index pages_search: the table row holds them behind the
// page's text.
const hostPageKindsSQL = `SELECT u.id, u.priority, CASE
			WHEN p.duplicate_of <> 0 AND coalesce((SELECT host_id FROM urls d WHERE d.id = p.duplicate_of), ?1) <> ?1
				OR p.near_duplicate_of <> 0 AND coalesce((SELECT host_id FROM urls d WHERE d.id = p.near_duplicate_of), ?1) <> ?1 THEN 3
			WHEN p.duplicate_of <> 0 OR p.near_duplicate_of <> 0 THEN 4
			WHEN p.doc_type IN ` + researchTypes + ` OR p.doc_type = '' THEN 1
			WHEN p.doc_type IN ('person', 'listing') THEN 2
			ELSE 0 END AS k
		FROM (SELECT id, priority FROM urls WHERE host_id = ?1 AND fetched_at > 0 AND kind = 0 ORDER BY fetched_at DESC LIMIT ?2) u
		JOIN pages p INDEXED BY pages_search ON p.url_id = u.id
		WHERE p.status BETWEEN 200 AND 299`

// hostPagesSQL is hostPageKindsSQL's pages' priorities and kinds and, for
// a page of kind 0, its outlinks in their compact form (NULL if none),
// whose targets learnHost looks up.
const hostPagesSQL = `SELECT c.priority, c.k, l.links FROM (` + hostPageKindsSQL + `) c
	LEFT JOIN outlinks l ON c.k = 0 AND l.source_id = c.id`

// hostBitsSharedSQL tells whether a host other than ?1 has IDs from ?2
// to ?3: the span of ?1's host bits (crawl.HostBitsSpan), in which the
// URLs of such a host would be.
const hostBitsSharedSQL = `SELECT EXISTS (SELECT 1 FROM hosts WHERE id BETWEEN ?2 AND ?3 AND id <> ?1)`

// linkTargetsSQL looks up the URLs of the IDs in the JSON array ?1 (in
// increasing order, each once): each one's host and priority and, if it
// ranks below ?2 (above which it would be cited by any page of the host
// whatever it is), whether it was recorded as research.
const linkTargetsSQL = `SELECT t.id, t.host_id, t.priority, t.priority < ?2 AND EXISTS (SELECT 1 FROM pages tp INDEXED BY pages_search
		WHERE tp.url_id = t.id AND tp.doc_type IN ` + researchTypes + ` AND tp.status BETWEEN 200 AND 299)
	FROM json_each(?1) j CROSS JOIN urls t ON t.id = j.value`

// hostLearned is what a host's value is learned from, and the value.
type hostLearned struct {
	id                                                   crawl.ID
	value, fetched, n, research, related, copies, citing int64
}

// setValue computes the value from the counts:
// (24·research + 12·related + 12·citing − 24·copies − 6·n) / (n + 4),
// truncated toward 0.
func (l *hostLearned) setValue() {
	l.value = (24*l.research + 12*l.related + 12*l.citing - 24*l.copies - 6*l.n) / (l.n + 4)
}

// querier is what learnHost reads with: a read transaction (readTx) or a
// pool of readers.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// learnHosts reads the values of the hosts ids into out (0 for an unknown
// host), learning those to value again (crawl.HostValueStale), which it
// returns: a mirror's value is at most crawl.MirrorValue (MarkMirror). It reads in one read transaction, on one reader connection: a
// host's pages, links and targets of one state of the database, and no
// second connection asked of the pool while one is held.
func (db *DB) learnHosts(ctx context.Context, ids []crawl.ID, out []int) ([]hostLearned, error) {
	tx, err := db.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	r := &readTx{Tx: tx, stmts: map[string]*sql.Stmt{}}
	defer r.close()
	var news []hostLearned
	done := make(map[crawl.ID]int, len(ids)) // a host in ids twice is read once
	for i, id := range ids {
		if v, ok := done[id]; ok {
			out[i] = v
			continue
		}
		var value, fetched, valued, mirrorOf int64
		err := r.QueryRowContext(ctx, `SELECT value, fetched, value_fetched, mirror_of FROM hosts WHERE id = ?`, id).Scan(&value, &fetched, &valued, &mirrorOf)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if crawl.HostValueStale(valued, fetched) {
			l, err := learnHost(ctx, r, id)
			if err != nil {
				return nil, err
			}
			l.fetched = fetched
			if mirrorOf != 0 {
				l.value = min(l.value, crawl.MirrorValue)
			}
			news = append(news, l)
			value = l.value
		}
		out[i] = int(value)
		done[id] = out[i]
	}
	return news, nil
}

// readTx is a read transaction whose statements are prepared at their
// first use and kept until close.
type readTx struct {
	*sql.Tx
	stmts map[string]*sql.Stmt
}

func (r *readTx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if s, ok := r.stmts[q]; ok {
		return s, nil
	}
	s, err := r.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	r.stmts[q] = s
	return s, nil
}

func (r *readTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := r.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (r *readTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	s, err := r.stmt(ctx, q)
	if err != nil {
		return r.Tx.QueryRowContext(ctx, q, args...) // the error again, in a Row
	}
	return s.QueryRowContext(ctx, args...)
}

func (r *readTx) close() {
	for _, s := range r.stmts {
		s.Close()
	}
}

// learnHost counts what host id's value is learned from and computes it.
// A citing page's links are read in Go from their compact form; a target
// with host bits other than the host's (crawl.HostBits) is on another
// host, and one with the host's bits is the host's own unless another
// host has those bits, so those are looked up only then. The targets of
// all the pages are looked up once each, in ID order.
func learnHost(ctx context.Context, q querier, id crawl.ID) (hostLearned, error) {
	l := hostLearned{id: id}
	bits := crawl.HostBits(id)
	lo, hi := crawl.HostBitsSpan(bits)
	var shared bool
	if err := q.QueryRowContext(ctx, hostBitsSharedSQL, id, lo, hi).Scan(&shared); err != nil {
		return l, err
	}
	// The kind-0 pages' thresholds and their targets, page i's being
	// targets[ends[i-1]:ends[i]].
	var thresholds []int64
	var targets []int64
	var ends []int
	var links []byte
	maxThreshold := int64(math.MinInt64)
	rows, err := q.QueryContext(ctx, hostPagesSQL, id, crawl.HostValueWindow)
	if err != nil {
		return l, err
	}
	for rows.Next() {
		var priority, k int64
		if err := rows.Scan(&priority, &k, &links); err != nil {
			rows.Close()
			return l, err
		}
		l.n++
		switch k {
		case 1:
			l.research++
		case 2:
			l.related++
		case 3:
			l.copies++
		}
		if k != 0 || links == nil {
			continue
		}
		at := len(targets)
		if targets, err = outlinks.Targets(targets, links); err != nil {
			rows.Close()
			return l, fmt.Errorf("links of a page of host %d: %w", id, err)
		}
		if !shared {
			kept := slices.DeleteFunc(targets[at:], func(t int64) bool { return crawl.HostBits(crawl.ID(t)) == bits })
			targets = targets[:at+len(kept)]
		}
		if len(targets) == at {
			continue
		}
		th := max(priority, 0) + citeGap
		thresholds = append(thresholds, th)
		ends = append(ends, len(targets))
		maxThreshold = max(maxThreshold, th)
	}
	if err := rows.Close(); err != nil {
		return l, err
	}
	if err := rows.Err(); err != nil {
		return l, err
	}
	if len(thresholds) > 0 {
		type target struct {
			known, other, research bool
			priority               int64
		}
		ids := slices.Clone(targets)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		found := make([]target, len(ids))
		rows, err := q.QueryContext(ctx, linkTargetsSQL, jsonIDs(ids), maxThreshold)
		if err != nil {
			return l, err
		}
		for rows.Next() {
			var t, host, priority int64
			var research bool
			if err := rows.Scan(&t, &host, &priority, &research); err != nil {
				rows.Close()
				return l, err
			}
			if i, ok := slices.BinarySearch(ids, t); ok {
				found[i] = target{known: true, other: crawl.ID(host) != id, research: research, priority: priority}
			}
		}
		if err := rows.Close(); err != nil {
			return l, err
		}
		if err := rows.Err(); err != nil {
			return l, err
		}
		// Targets in runs: queued, so never recorded as research.
		var packed []crawl.ID
		for i, f := range found {
			if !f.known {
				packed = append(packed, crawl.ID(ids[i]))
			}
		}
		inRuns, err := packedTargets(ctx, q, packed)
		if err != nil {
			return l, err
		}
		for t, p := range inRuns {
			if i, ok := slices.BinarySearch(ids, int64(t)); ok {
				found[i] = target{known: true, other: p.host != id, priority: p.priority}
			}
		}
		from := 0
		for p, end := range ends {
			for _, t := range targets[from:end] {
				i, _ := slices.BinarySearch(ids, t)
				if f := found[i]; f.known && f.other && (f.priority >= thresholds[p] || f.research) {
					l.citing++
					break
				}
			}
			from = end
		}
	}
	l.setValue()
	return l, nil
}
