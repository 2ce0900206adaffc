package sqlite

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/postings"
	"github.com/acrawler/acrawler/internal/query"
)

// segCacheBytes bounds the segment blocks the searches of a store keep.
const segCacheBytes = 32 << 20

// segReader is the searches' view of the segments engine's index: made
// at the first search, and brought up to date when the index's
// generation moved, from the segments added and removed and the
// documents deleted since (postings.Index.Apply), not read again whole.
type segReader struct {
	mu    sync.Mutex // one refresh at a time
	view  atomic.Pointer[segView]
	cache *blockCache
}

// segView is the index as of one generation.
type segView struct {
	gen    int64
	delSeq int64 // the last deletion it holds
	ix     *postings.Index
	segs   []*viewSeg                     // by ID
	bySeg  map[*postings.Segment]*viewSeg // the same
}

// viewSeg is a segment of a view, with its documents' attributes.
type viewSeg struct {
	id    int64
	field int
	seg   *postings.Segment
	attrs []docAttrs
}

// attrsOf returns the attributes of doc, a document of the index, as the
// segment that holds its text has them (an older one may hold it too,
// deleted).
func (v *segView) attrsOf(doc uint32) *docAttrs {
	s := v.bySeg[v.ix.Holder(doc)]
	if s == nil {
		return nil
	}
	i := sort.Search(s.seg.Docs(), func(i int) bool { return s.seg.Doc(i) >= doc })
	if i < s.seg.Docs() && s.seg.Doc(i) == doc {
		return &s.attrs[i]
	}
	return nil
}

// segView returns the current view of the index.
func (db *DB) segView(ctx context.Context) (*segView, error) {
	var gen int64
	if err := db.r.QueryRowContext(ctx, `SELECT gen FROM index_state`).Scan(&gen); err != nil {
		return nil, fmt.Errorf("index state: %w", err)
	}
	sr := &db.segs
	if v := sr.view.Load(); v != nil && v.gen == gen {
		return v, nil
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	old := sr.view.Load()
	if old != nil && old.gen >= gen {
		return old, nil
	}
	if old == nil {
		old = &segView{ix: &postings.Index{}}
	}
	v, err := db.refreshView(ctx, old)
	if err != nil {
		return nil, err
	}
	sr.view.Store(v)
	return v, nil
}

// segRow is a row of index_segments as a refresh reads it.
type segRow struct {
	id, size, front int64
	field           int
	attrs           []byte
}

// refreshView returns old brought up to the index's current generation.
func (db *DB) refreshView(ctx context.Context, old *segView) (*segView, error) {
	// What changed, read in one transaction so that it is of one
	// generation; the segments are read after, from blocks that stay
	// segRetired after a merge replaced them.
	v := &segView{}
	var rows []segRow
	var dels []struct {
		seq, seg int64
		doc      uint32
	}
	err := func() error {
		tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := tx.QueryRowContext(ctx, `SELECT gen FROM index_state`).Scan(&v.gen); err != nil {
			return err
		}
		have := make([]int64, len(old.segs)) // their attributes are read already
		for i, s := range old.segs {
			have[i] = s.id
		}
		known, err := json.Marshal(have)
		if err != nil {
			return err
		}
		rs, err := tx.QueryContext(ctx, `SELECT id, size, front, field, CASE WHEN id IN (SELECT value FROM json_each(?)) THEN NULL ELSE attrs END
			FROM index_segments WHERE retired = 0 ORDER BY id`, string(known))
		if err != nil {
			return err
		}
		for rs.Next() {
			var r segRow
			if err := rs.Scan(&r.id, &r.size, &r.front, &r.field, &r.attrs); err != nil {
				rs.Close()
				return err
			}
			rows = append(rows, r)
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return err
		}
		ds, err := tx.QueryContext(ctx, `SELECT seq, segment, doc FROM index_deleted WHERE seq > ? ORDER BY seq`, old.delSeq)
		if err != nil {
			return err
		}
		defer ds.Close()
		for ds.Next() {
			var d struct {
				seq, seg int64
				doc      uint32
			}
			if err := ds.Scan(&d.seq, &d.seg, &d.doc); err != nil {
				return err
			}
			dels = append(dels, d)
		}
		return ds.Err()
	}()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	v.delSeq = old.delSeq
	if n := len(dels); n > 0 {
		v.delSeq = dels[n-1].seq
	}
	byID := map[int64]*viewSeg{}
	for _, s := range old.segs {
		byID[s.id] = s
	}
	var c postings.Change
	live := map[int64]bool{}
	added := map[int64]map[uint32]bool{}
	for _, r := range rows {
		live[r.id] = true
		if s, ok := byID[r.id]; ok {
			v.segs = append(v.segs, s)
			continue
		}
		seg, err := postings.OpenAt(blockReader{ctx: context.WithoutCancel(ctx), seg: r.id, front: r.front, q: db.r, cache: db.segs.cache}, r.size)
		if err != nil {
			return nil, fmt.Errorf("index: segment %d: %w", r.id, err)
		}
		s := &viewSeg{id: r.id, field: r.field, seg: seg}
		if r.field == textField {
			if s.attrs, err = decodeAttrs(r.attrs, seg.Docs()); err != nil {
				return nil, fmt.Errorf("index: segment %d: %w", r.id, err)
			}
		}
		v.segs = append(v.segs, s)
		byID[r.id] = s
		added[r.id] = map[uint32]bool{}
		c.Add = append(c.Add, postings.Part{Seg: seg, Field: r.field, Deleted: func(d uint32) bool { return added[s.id][d] }})
	}
	for _, s := range old.segs {
		if !live[s.id] {
			c.Remove = append(c.Remove, s.seg)
		}
	}
	for _, d := range dels {
		switch {
		case !live[d.seg]:
		case added[d.seg] != nil:
			added[d.seg][d.doc] = true
		default:
			c.Delete = append(c.Delete, postings.Deletion{Seg: byID[d.seg].seg, Doc: d.doc})
		}
	}
	if v.ix, err = old.ix.Apply(c); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	v.bySeg = make(map[*postings.Segment]*viewSeg, len(v.segs))
	for _, s := range v.segs {
		v.bySeg[s.seg] = s
	}
	return v, nil
}

// indexWeights are the fields' weights in bm25, in the segments' order.
var indexWeights = []float64{weightTitle, weightBody, weightAnchors}

// searchSegments answers a search from the segments engine. Every match
// is counted, so that totals and facets are exact; the best
// need+rankCandidates by bm25 (all of them by work) are ranked again with
// the link-graph rank blended in, as the FTS5 engine ranks them.
func (db *DB) searchSegments(ctx context.Context, r crawl.SearchRequest, q query.Query, res crawl.SearchResult, start time.Time) (crawl.SearchResult, error) {
	v, err := db.segView(ctx)
	if err != nil {
		return res, fmt.Errorf("sqlite: search: %w", err)
	}
	limit := r.Limit
	if limit <= 0 {
		limit = 10
	}
	need := r.Offset + limit
	// By work, the matches are kept to be counted once their works are
	// known; else each is counted as it comes.
	var ms []matched
	total, facets := 0, crawl.Facets{Host: map[string]int{}, Type: map[string]int{}, Year: map[int]int{}}
	// The candidates: by work, every match; else the best
	// need+rankCandidates by bm25.
	top := &candHeap{keep: need + rankCandidates}
	if r.ByWork {
		top.keep = math.MaxInt
	}
	n := 0
	err = v.ix.Each(q, indexWeights, func(h postings.Hit) bool {
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return false
		}
		a := v.attrsOf(h.Doc)
		if a == nil || !a.passes(r) {
			return true
		}
		m := matched{key: a.key, host: a.host, typ: a.typ, year: a.year}
		if r.ByWork {
			ms = append(ms, m)
		} else {
			total++
			countFacets(&facets, m)
		}
		top.add(cand{id: a.key, score: -h.Score})
		return true
	})
	if err == nil {
		err = ctx.Err()
	}
	if errors.Is(err, postings.ErrTooBroad) {
		err = query.ErrTooBroad
	}
	if err != nil {
		return res, fmt.Errorf("sqlite: search: %w", err)
	}
	var works map[crawl.ID]int64
	if r.ByWork {
		works = make(map[crawl.ID]int64, len(ms))
		keys := make([]crawl.ID, len(ms))
		for i, m := range ms {
			keys[i] = m.key
		}
		if err := db.worksOf(ctx, keys, works); err != nil {
			return res, err
		}
		for i := range ms {
			ms[i].work = works[ms[i].key]
		}
	}
	res.ByWork = r.ByWork
	res.Total, res.Facets = total, facets
	if r.ByWork {
		res.Total, res.Facets = countMatches(ms, true)
	}
	trimFacets(res.Facets.Host)
	trimFacets(res.Facets.Type)

	cands := top.cands
	switch {
	case r.ByWork && r.PageRankWeight > 0 && len(cands) > 4*rankChunk:
		if cands, err = db.bestBlendedOfEach(ctx, cands, works, need, r.PageRankWeight); err != nil {
			return res, err
		}
	case r.PageRankWeight > 0:
		if err := db.blendRanks(ctx, cands, r.PageRankWeight); err != nil {
			return res, err
		}
	}
	if r.ByWork {
		// Every match is a candidate: the first of each work are taken
		// best first from a heap, not from all of them sorted.
		cands = bestOfEachUpTo(cands, works, need)
	} else {
		slices.SortFunc(cands, betterCand)
	}
	if res.Hits, err = db.hits(ctx, q, cands, r.Offset, need); err != nil {
		return res, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// rankChunk is how many candidates' ranks blendRanks reads a statement.
const rankChunk = 500

// blendRanks multiplies the score of each candidate by 1 + weight·ln(1 +
// its link-graph rank), reading the ranks rankChunk a statement.
func (db *DB) blendRanks(ctx context.Context, cands []cand, weight float64) error {
	read, err := db.r.PrepareContext(ctx, `SELECT j.key, coalesce(r.rank, 0) FROM json_each(?) j LEFT JOIN ranks r ON r.url_id = j.value`)
	if err != nil {
		return fmt.Errorf("sqlite: search: ranks: %w", err)
	}
	defer read.Close()
	ids := make([]crawl.ID, 0, min(len(cands), rankChunk))
	for at := 0; at < len(cands); at += rankChunk {
		part := cands[at:min(at+rankChunk, len(cands))]
		ids = ids[:0]
		for _, c := range part {
			ids = append(ids, urlIDOfKey(c.id))
		}
		rows, err := read.QueryContext(ctx, jsonIDs(ids))
		if err != nil {
			return fmt.Errorf("sqlite: search: ranks: %w", err)
		}
		for rows.Next() {
			var i int
			var pr float64
			if err := rows.Scan(&i, &pr); err != nil {
				rows.Close()
				return fmt.Errorf("sqlite: search: ranks: %w", err)
			}
			if i >= 0 && i < len(part) {
				part[i].score *= 1 + weight*math.Log1p(pr)
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("sqlite: search: ranks: %w", err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sqlite: search: ranks: %w", err)
		}
	}
	return nil
}

// bestBlendedOfEach returns, of cands (every match of a search by work),
// those that may stand for the n best works once blended with their
// link-graph ranks (blendRanks), blended: without reading the rank of
// every match. The candidates are blended best first by bm25, rankChunk
// at a time, until n works have a blended score above what any
// candidate left could reach (its bm25 score times the boost of the
// highest rank recorded). The first of each of the n works is then the
// same as with every match blended.
func (db *DB) bestBlendedOfEach(ctx context.Context, cands []cand, works map[crawl.ID]int64, n int, weight float64) ([]cand, error) {
	var maxRank float64
	if err := db.r.QueryRowContext(ctx, `SELECT coalesce(max(rank), 0) FROM ranks`).Scan(&maxRank); err != nil {
		return nil, fmt.Errorf("sqlite: search: ranks: %w", err)
	}
	boost := 1 + weight*math.Log1p(maxRank)
	if math.IsNaN(boost) || math.IsInf(boost, 0) {
		return cands, db.blendRanks(ctx, cands, weight)
	}
	h := &candHeap{keep: math.MaxInt, cands: cands, best: true}
	heap.Init(h)
	var done []cand
	best := map[result]float64{} // each work's best blended score
	for h.Len() > 0 {
		at := len(done)
		for h.Len() > 0 && len(done)-at < rankChunk {
			done = append(done, heap.Pop(h).(cand))
		}
		part := done[at:]
		if err := db.blendRanks(ctx, part, weight); err != nil {
			return nil, err
		}
		for _, c := range part {
			r := matched{key: c.id, work: works[c.id]}.result()
			if s, ok := best[r]; !ok || c.score > s {
				best[r] = c.score
			}
		}
		if h.Len() == 0 || len(best) < n {
			continue
		}
		next := h.cands[0].score
		bound := max(next, next*boost)
		above := 0
		for _, s := range best {
			if s > bound {
				above++
			}
		}
		if above >= n {
			break
		}
	}
	return done, nil
}

// bestOfEachUpTo is firstOfEachUpTo of cands in betterCand's order,
// without sorting them all: a heap of them gives them best first until n
// results are found.
func bestOfEachUpTo(cands []cand, works map[crawl.ID]int64, n int) []cand {
	h := &candHeap{keep: math.MaxInt, cands: cands, best: true}
	heap.Init(h)
	best := func(yield func(cand) bool) {
		for h.Len() > 0 && yield(heap.Pop(h).(cand)) {
		}
	}
	return firstOfEachOf(best, len(cands), works, n)
}

// passes reports whether a document passes a request's filters.
func (a *docAttrs) passes(r crawl.SearchRequest) bool {
	return (r.Host == "" || a.host == r.Host) && (r.Type == "" || a.typ == r.Type) && (r.Lang == "" || a.lang == r.Lang) &&
		(r.YearFrom == 0 || a.year >= r.YearFrom) && (r.YearTo == 0 || a.year >= 1 && a.year <= r.YearTo)
}

// betterCand orders candidates best first: by score, then by key.
func betterCand(a, b cand) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// candHeap keeps the best keep candidates added: a heap whose top is the
// worst kept (or, keeping math.MaxInt, every one, in no order). With best,
// it is a heap whose top is the best (bestOfEachUpTo).
type candHeap struct {
	keep  int
	cands []cand
	best  bool
}

func (h *candHeap) add(c cand) {
	if h.keep == math.MaxInt {
		h.cands = append(h.cands, c) // all: sorted at the end
		return
	}
	if len(h.cands) < h.keep {
		heap.Push(h, c)
	} else if betterCand(c, h.cands[0]) < 0 {
		h.cands[0] = c
		heap.Fix(h, 0)
	}
}

func (h *candHeap) Len() int { return len(h.cands) }
func (h *candHeap) Less(i, j int) bool {
	if h.best {
		return betterCand(h.cands[i], h.cands[j]) < 0
	}
	return betterCand(h.cands[i], h.cands[j]) > 0
}
func (h *candHeap) Swap(i, j int) { h.cands[i], h.cands[j] = h.cands[j], h.cands[i] }
func (h *candHeap) Push(x any)    { h.cands = append(h.cands, x.(cand)) }
func (h *candHeap) Pop() any {
	x := h.cands[len(h.cands)-1]
	h.cands = h.cands[:len(h.cands)-1]
	return x
}
