package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/outlinks"
)

// Inbound links are staged (migration 0025). A page's transaction writes
// its outlinks row and appends the page's ID to inlinks_staged, rows in
// arrival order at the end of a small table, instead of an inlinks entry
// for each link at the place of its target in the index: those entries
// fell on as many pages of the index as the page had links, each page
// written to the write-ahead log at every commit. The staged sources are
// merged into inlinks in large batches (mergeStaged), their (target,
// source) pairs sorted by target, so that each page of the index is
// written once a batch. The staging rows commit with the page, so a crash
// loses nothing and a restart merges what was staged.
//
// Every read of inbound links reads inlinks and the staged sources both
// (linkingSources); the writer also keeps the staged links by target in
// memory (stagedLinks), so that indexing a page finds the anchor texts of
// the links to it without reading the staged rows.

// mergeLinks is how many staged links a commit leaves before it merges
// them into inlinks: what the writer holds of them in memory (24 bytes a
// link and its anchor text) and the reads of the staged rows are bounded
// by it.
var mergeLinks = 1 << 17

// stagedLink is a staged link to a target: its source, and where its
// anchor text is in stagedLinks.anchors.
type stagedLink struct {
	source  crawl.ID
	at, len uint32
}

// stagedLinks are the staged links committed, by target, as
// inlinks_staged and the sources' outlinks rows hold them. Guarded by
// db.mu; loaded at the first transaction. The links added are indexed by
// target only when they are looked up (anchorsFor) or some are dropped:
// a crawl whose pages wait for the index delay looks none up before the
// merge empties them.
type stagedLinks struct {
	loaded   bool
	byTarget map[crawl.ID][]stagedLink // the links indexed
	pending  []pendingLink             // the links added since
	anchors  []byte                    // the anchor texts, end to end
	n        int
}

// pendingLink is a staged link not indexed by target yet.
type pendingLink struct {
	target crawl.ID
	l      stagedLink
}

// add adds a link to target.
func (s *stagedLinks) add(target, source crawl.ID, anchor []byte) {
	s.pending = append(s.pending, pendingLink{target, stagedLink{source, uint32(len(s.anchors)), uint32(len(anchor))}})
	s.anchors = append(s.anchors, anchor...)
	s.n++
}

// index indexes the links added by target.
func (s *stagedLinks) index() {
	if s.byTarget == nil {
		s.byTarget = map[crawl.ID][]stagedLink{}
	}
	for _, p := range s.pending {
		s.byTarget[p.target] = append(s.byTarget[p.target], p.l)
	}
	s.pending = s.pending[:0]
}

func (s *stagedLinks) anchor(l stagedLink) []byte { return s.anchors[l.at : l.at+l.len] }

// stagedPair is a link staged by a transaction.
type stagedPair struct {
	target, source crawl.ID
	anchor         string
}

// stagedTx is what a transaction did to the staged links, in order:
// sources whose outlinks it deleted (dropped, with the targets they had),
// links it staged (added), and whether it merged them all into inlinks
// (everything staged before the merge is in inlinks).
type stagedTx struct {
	merged  bool
	dropped map[crawl.ID][]crawl.ID
	added   []stagedPair
	byT     map[crawl.ID][]stagedPair // added by target, built by anchorsFor
}

// stagedOutlinks reads the staged sources' outlinks rows, in source order.
const stagedOutlinks = `SELECT source_id, links FROM outlinks
	WHERE source_id IN (SELECT source_id FROM inlinks_staged) ORDER BY source_id`

// loadStaged reads the staged links into the writer's memory, at the start
// of a transaction (nothing written yet: what it reads is committed).
func (t *txn) loadStaged(ctx context.Context) error {
	var s stagedLinks
	var scratch []int64
	if err := t.eachOutlinks(ctx, stagedOutlinks, func(src crawl.ID, b []byte) (err error) {
		scratch, err = outlinks.Walk(b, scratch, func(target int64, a []byte, _ bool) {
			s.add(crawl.ID(target), src, a)
		})
		return err
	}); err != nil {
		return fmt.Errorf("staged links: %w", err)
	}
	s.loaded = true
	t.db.staged = s
	return nil
}

// apply folds a committed transaction's changes into the staged links.
func (s *stagedLinks) apply(tx *stagedTx) {
	if tx.merged {
		clear(s.byTarget)
		s.pending = s.pending[:0]
		s.anchors = s.anchors[:0]
		s.n = 0
	}
	if len(tx.dropped) > 0 {
		s.index()
	}
	for src, targets := range tx.dropped {
		for _, tg := range targets {
			ls := s.byTarget[tg]
			k := len(ls)
			ls = slices.DeleteFunc(ls, func(l stagedLink) bool { return l.source == src })
			s.n -= k - len(ls)
			if len(ls) == 0 {
				delete(s.byTarget, tg)
			} else {
				s.byTarget[tg] = ls
			}
		}
	}
	for _, p := range tx.added {
		s.add(p.target, p.source, []byte(p.anchor))
	}
}

// stage records that source links to targets (new to it), with their
// anchors, in the transaction.
func (c *committer) stage(ctx context.Context, source crawl.ID, targets []crawl.ID, anchors map[crawl.ID]string) error {
	if _, err := c.ls.stage.ExecContext(ctx, source); err != nil {
		return err
	}
	st := &c.t.staged
	for _, tg := range targets {
		st.added = append(st.added, stagedPair{tg, source, anchors[tg]})
	}
	st.byT = nil
	return nil
}

// unstage records that source's outlinks, to targets, were deleted.
func (t *txn) unstage(source crawl.ID, targets []int64) {
	st := &t.staged
	if st.dropped == nil {
		st.dropped = map[crawl.ID][]crawl.ID{}
	}
	for _, tg := range targets {
		st.dropped[source] = append(st.dropped[source], crawl.ID(tg))
	}
	st.added = slices.DeleteFunc(st.added, func(p stagedPair) bool { return p.source == source })
	st.byT = nil
}

// mergeStaged moves the staged links into inlinks: the staged sources'
// targets, sorted by target, many rows a statement, each with its anchor
// text as the source's row holds it (the first link's: outlinks.Encode),
// so that a page indexed at commit reads its inbound anchors from inlinks
// alone (anchorsRead, migration 0026).
func (t *txn) mergeStaged(ctx context.Context) error {
	// The pairs, 24 bytes each, and their anchors end to end: a merge
	// holds some 131,072 of them (mergeLinks).
	type pair struct {
		target, source int64
		at, len        uint32 // of the anchor in anchors
	}
	pairs := make([]pair, 0, t.stagedCount())
	var anchors []byte
	var scratch []int64
	if err := t.eachOutlinks(ctx, stagedOutlinks, func(src crawl.ID, b []byte) (err error) {
		scratch, err = outlinks.Walk(b, scratch, func(target int64, a []byte, _ bool) {
			pairs = append(pairs, pair{target, int64(src), uint32(len(anchors)), uint32(len(a))})
			anchors = append(anchors, a...)
		})
		return err
	}); err != nil {
		return fmt.Errorf("merge staged links: %w", err)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.target != b.target {
			return cmp.Compare(a.target, b.target)
		}
		return cmp.Compare(a.source, b.source)
	})
	// A pair already in inlinks was merged from the same row: the first
	// link to a target is kept when a row grows (insertLinks,
	// outlinks.Encode), so its anchor is the same, and the pair is left
	// as it is. OR IGNORE, not an upsert: a statement that cannot abort
	// halfway keeps no statement journal (an upsert's took 0.07–0.11 s of
	// a 20,000-page crawl's merges).
	if err := t.inChunks(ctx, len(pairs), 3, `INSERT OR IGNORE INTO inlinks (target_id, source_id, anchor)
		SELECT column1, column2, column3 FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
		p := pairs[i]
		a[0], a[1], a[2] = p.target, p.source, string(anchors[p.at:p.at+p.len])
	}, nil); err != nil {
		return fmt.Errorf("merge staged links: %w", err)
	}
	// The merged sources' targets may have new anchor texts: the next
	// pass looks at them (changedAnchors).
	if _, err := t.exec(ctx, `INSERT OR IGNORE INTO anchors_sources (source_id) SELECT source_id FROM inlinks_staged`); err != nil {
		return fmt.Errorf("merge staged links: %w", err)
	}
	if _, err := t.exec(ctx, `DELETE FROM inlinks_staged`); err != nil {
		return fmt.Errorf("merge staged links: %w", err)
	}
	t.staged = stagedTx{merged: true}
	return nil
}

// stagedCount is how many staged links the transaction would leave.
func (t *txn) stagedCount() int {
	n := len(t.staged.added)
	if !t.staged.merged {
		n += t.db.staged.n
	}
	return n
}

// linkingSources is the SQL of the IDs of the pages linking to the URL ID
// target (an SQL expression): those in inlinks and the staged sources
// whose outlinks hold it.
func linkingSources(target string) string {
	return fmt.Sprintf(`SELECT source_id FROM inlinks WHERE target_id = %[1]s
		UNION SELECT s.source_id FROM inlinks_staged s JOIN outlinks o ON o.source_id = s.source_id
			WHERE acrawler_links_to(o.links, %[1]s)`, target)
}

// anchorsFor returns the anchor texts to index with the page id, as
// anchorsOf gives them: those of the links in inlinks, read from the
// index, and of the staged links, from memory.
func (t *txn) anchorsFor(ctx context.Context, read *sql.Stmt, id crawl.ID) (string, error) {
	type link struct {
		source crawl.ID
		anchor []byte
	}
	var links []link
	rows, err := read.QueryContext(ctx, id)
	if err != nil {
		return "", err
	}
	for rows.Next() {
		var l link
		if err := rows.Scan(&l.source, &l.anchor); err != nil {
			rows.Close()
			return "", err
		}
		links = append(links, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", err
	}
	st := &t.staged
	if !st.merged {
		t.db.staged.index()
		for _, l := range t.db.staged.byTarget[id] {
			if _, gone := st.dropped[l.source]; !gone {
				links = append(links, link{l.source, t.db.staged.anchor(l)})
			}
		}
	}
	if st.byT == nil && len(st.added) > 0 {
		st.byT = map[crawl.ID][]stagedPair{}
		for _, p := range st.added {
			st.byT[p.target] = append(st.byT[p.target], p)
		}
	}
	for _, p := range st.byT[id] {
		links = append(links, link{p.source, []byte(p.anchor)})
	}
	// In source order, a source once (a staged source may be in inlinks
	// too, with the same anchor).
	slices.SortStableFunc(links, func(a, b link) int { return cmp.Compare(a.source, b.source) })
	var as anchorSet
	for i, l := range links {
		if i > 0 && l.source == links[i-1].source {
			continue
		}
		as.add(l.anchor)
		if as.full {
			break
		}
	}
	return string(as.joined), nil
}

// anchorsRead is the statement anchorsFor reads a page's links in inlinks
// with: their sources and anchors, by source, from inlinks' own entries
// (one range of its b-tree; each source's outlinks row was looked up
// and decoded here before migration 0026).
const anchorsRead = `SELECT source_id, anchor FROM inlinks WHERE target_id = ? ORDER BY source_id`
