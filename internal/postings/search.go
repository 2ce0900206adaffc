package postings

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/acrawler/acrawler/internal/query"
)

// MaxExpansions is the number of words a prefix term stands for in one
// segment; a query whose prefix begins more is refused with ErrTooBroad.
const MaxExpansions = 10_000

// ErrTooBroad is the error of a query whose prefix begins more than
// MaxExpansions words of a segment.
var ErrTooBroad = errors.New("postings: prefix matches too many words")

// A Part is a segment as an index reads it.
type Part struct {
	Seg *Segment
	// Field is the index's field that is the segment's first: the index
	// of a page's title and text (fields 0 and 1) can take its anchor
	// texts from segments of their own, each of one field, at Field 2.
	Field int
	// Deleted reports the documents of the segment that no longer count
	// (nil: none), such as those a later segment holds again.
	Deleted func(doc uint32) bool
}

// An Index searches parts as one. A document is a document of the index
// when a part at field 0 holds it; the parts at other fields add fields
// to it. At most one part of a field holds a document (not deleted).
type Index struct {
	parts  []Part
	fields int
	docs   []uint32 // every document of a part, increasing
	at     []int32  // where each document is in docs, when they are dense enough: -1 for none
	main   []bool   // whether docs[i] is in a part at field 0
	lens   []uint32 // docs[i]'s words in field f at i*fields+f
	rows   int64
	totals []int64
}

// NewIndex returns the index of parts. It reads every part's document
// table once, for the documents' lengths bm25 needs.
func NewIndex(parts []Part) (*Index, error) {
	ix := &Index{parts: parts}
	for _, p := range parts {
		if p.Field < 0 || p.Field+p.Seg.fields > MaxFields {
			return nil, fmt.Errorf("postings: a part's fields %d to %d", p.Field, p.Field+p.Seg.fields)
		}
		ix.fields = max(ix.fields, p.Field+p.Seg.fields)
	}
	all := liveDocs(parts)
	ix.totals = make([]int64, ix.fields)
	seen := make([]bool, ix.fields) // the current document's fields so far
	for j, e := range all {
		if j == 0 || e.doc != all[j-1].doc {
			ix.docs = append(ix.docs, e.doc)
			ix.main = append(ix.main, false)
			ix.lens = append(ix.lens, make([]uint32, ix.fields)...)
			clear(seen)
		}
		p := parts[e.part]
		n := len(ix.docs) - 1
		ix.main[n] = ix.main[n] || p.Field == 0
		for f := range p.Seg.fields {
			if seen[p.Field+f] {
				return nil, fmt.Errorf("postings: document %d is in two parts at field %d", e.doc, p.Field+f)
			}
			seen[p.Field+f] = true
			ix.lens[n*ix.fields+p.Field+f] = uint32(p.Seg.FieldLen(int(e.i), f))
		}
	}
	if n := len(ix.docs); n > 0 && uint64(ix.docs[n-1]) < 4*uint64(n)+1024 {
		ix.at = make([]int32, ix.docs[n-1]+1)
		for i := range ix.at {
			ix.at[i] = -1
		}
		for i, d := range ix.docs {
			ix.at[d] = int32(i)
		}
	}
	for i := range ix.docs {
		if !ix.main[i] {
			continue
		}
		ix.rows++
		for f := range ix.fields {
			ix.totals[f] += int64(ix.lens[i*ix.fields+f])
		}
	}
	return ix, nil
}

// liveEntry is a document of a part, not deleted: its number, the part
// and its place in the part's segment.
type liveEntry struct {
	doc  uint32
	part int32
	i    int32
}

// liveDocs returns the documents of parts that are not deleted, by
// number (a document of several parts once for each).
func liveDocs(parts []Part) []liveEntry {
	var all []liveEntry
	for k, p := range parts {
		for i := range p.Seg.docs {
			if p.Deleted == nil || !p.Deleted(p.Seg.Doc(i)) {
				all = append(all, liveEntry{doc: p.Seg.Doc(i), part: int32(k), i: int32(i)})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b liveEntry) int { return cmp.Compare(a.doc, b.doc) })
	return all
}

// find returns where doc is in ix.docs, or -1 when it is not a document
// of the index.
func (ix *Index) find(doc uint32) int {
	var i int
	if ix.at != nil {
		if uint64(doc) >= uint64(len(ix.at)) || ix.at[doc] < 0 {
			return -1
		}
		i = int(ix.at[doc])
	} else {
		var ok bool
		if i, ok = slices.BinarySearch(ix.docs, doc); !ok {
			return -1
		}
	}
	if !ix.main[i] {
		return -1
	}
	return i
}

// has reports whether doc is a document of the index.
func (ix *Index) has(doc uint32) bool { return ix.find(doc) >= 0 }

// Docs returns the number of documents in the index.
func (ix *Index) Docs() int64 { return ix.rows }

// A Hit is a document that matches a query and its bm25 score, lower
// better, as FTS5's bm25() gives it.
type Hit struct {
	Doc   uint32
	Score float64
}

// phrase is a term of a query as the index matches it: its words, the
// last a prefix when prefix is set.
type phrase struct {
	words   []string
	prefix  bool
	exclude bool
}

// phrases returns q's terms, each folded and split into words as
// documents are.
func phrases(q query.Query) []phrase {
	var out []phrase
	for _, t := range q.Terms {
		var p phrase
		for w := range query.Lexemes(query.Fold(strings.Join(t.Words, " "))) {
			p.words = append(p.words, w)
		}
		if len(p.words) == 0 {
			continue
		}
		p.prefix, p.exclude = t.Prefix, t.Exclude
		out = append(out, p)
	}
	return out
}

// Search returns the documents that hold every positive term of q and no
// excluded one, the limit best by bm25 over the fields with the weights
// given (1 where absent), as FTS5's bm25() ranks them, ties by document;
// and the number of documents that match. A limit of 0 or less returns
// them all.
func (ix *Index) Search(q query.Query, weights []float64, limit int) ([]Hit, int, error) {
	ps := phrases(q)
	var pos []phrase
	for _, p := range ps {
		if !p.exclude {
			pos = append(pos, p)
		}
	}
	if len(pos) == 0 {
		return nil, 0, nil
	}
	st := Stats{Rows: ix.rows, FieldTotal: ix.totals, PhraseRows: make([]int64, len(pos))}
	for i, p := range pos {
		n, err := ix.phraseRows(p)
		if err != nil {
			return nil, 0, err
		}
		st.PhraseRows[i] = n
	}
	top := &hitHeap{limit: limit}
	total := 0
	sizes := make([]int, ix.fields)
	hits := make([]int, len(pos)*ix.fields)
	m, err := ix.matcher(ps)
	if err != nil || m == nil {
		return nil, 0, err
	}
	for ok := m.first(); ok; ok = m.next() {
		d := m.doc()
		i := ix.find(d)
		for f := range sizes {
			sizes[f] = int(ix.lens[i*ix.fields+f])
		}
		clear(hits)
		for p, it := range m.pos {
			for _, k := range it.occurrences() {
				hits[p*ix.fields+int(k>>fieldShift)]++
			}
		}
		total++
		top.add(Hit{Doc: d, Score: BM25(st, sizes, hits, weights)})
	}
	if err := m.err(); err != nil {
		return nil, 0, err
	}
	out := top.hits
	slices.SortFunc(out, compareHits)
	return out, total, nil
}

// phraseRows returns the number of documents that hold p.
func (ix *Index) phraseRows(p phrase) (int64, error) {
	if n, ok, err := ix.wordRows(p); ok || err != nil {
		return n, err
	}
	it, err := ix.phraseIter(p)
	if it == nil || err != nil {
		return 0, err
	}
	var n int64
	for ok := it.seek(0); ok; ok = it.next() {
		if ix.has(it.doc()) {
			n++
		}
	}
	return n, it.err()
}

// wordRows returns the number of documents that hold p, a word, when the
// parts' counts give it: when only parts at field 0 without deletions
// hold it (each document is in one of them).
func (ix *Index) wordRows(p phrase) (int64, bool, error) {
	if len(p.words) != 1 || p.prefix {
		return 0, false, nil
	}
	var n int64
	for _, part := range ix.parts {
		c, err := part.Seg.Count(p.words[0])
		if err != nil {
			return 0, false, err
		}
		if c > 0 && (part.Field != 0 || part.Deleted != nil) {
			return 0, false, nil
		}
		n += int64(c)
	}
	return n, true, nil
}

// Stats are what bm25 needs of the whole index for a query: the number of
// documents, the words of each field over them, and the documents each
// phrase of the query matches.
type Stats struct {
	Rows       int64
	FieldTotal []int64
	PhraseRows []int64
}

// BM25 is FTS5's bm25 (fts5Bm25Function: k1 1.2, b 0.75, lower is better)
// of a document of the given field sizes, whose hits holds phrase p's
// instances in field f at p*len(sizes)+f, with the field weights given (1
// where absent). It adds in FTS5's order, so that equal inputs give equal
// results to the last bit.
func BM25(st Stats, sizes []int, hits []int, weights []float64) float64 {
	const k1, b = 1.2, 0.75
	var total int64
	for _, n := range st.FieldTotal {
		total += n
	}
	avgdl := float64(total) / float64(st.Rows)
	var d int
	for _, n := range sizes {
		d += n
	}
	nCol := len(sizes)
	score := 0.0
	for p, nHit := range st.PhraseRows {
		idf := math.Log((float64(st.Rows-nHit) + 0.5) / (float64(nHit) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		freq := 0.0
		for c := range nCol {
			w := 1.0
			if c < len(weights) {
				w = weights[c]
			}
			// FTS5 adds the weight once per instance.
			for range hits[p*nCol+c] {
				freq += w
			}
		}
		score += idf * ((freq * (k1 + 1)) / (freq + k1*(1-b+b*float64(d)/avgdl)))
	}
	return -score
}

func compareHits(a, b Hit) int {
	switch {
	case a.Score < b.Score:
		return -1
	case a.Score > b.Score:
		return 1
	case a.Doc < b.Doc:
		return -1
	case a.Doc > b.Doc:
		return 1
	}
	return 0
}

// hitHeap keeps the limit best hits: a max-heap by (score, doc), whose
// top is the worst kept.
type hitHeap struct {
	limit int
	hits  []Hit
}

func (h *hitHeap) add(x Hit) {
	if h.limit <= 0 || len(h.hits) < h.limit {
		heap.Push(h, x)
		return
	}
	if compareHits(x, h.hits[0]) < 0 {
		h.hits[0] = x
		heap.Fix(h, 0)
	}
}

func (h *hitHeap) Len() int           { return len(h.hits) }
func (h *hitHeap) Less(i, j int) bool { return compareHits(h.hits[i], h.hits[j]) > 0 }
func (h *hitHeap) Swap(i, j int)      { h.hits[i], h.hits[j] = h.hits[j], h.hits[i] }
func (h *hitHeap) Push(x any)         { h.hits = append(h.hits, x.(Hit)) }
func (h *hitHeap) Pop() any {
	x := h.hits[len(h.hits)-1]
	h.hits = h.hits[:len(h.hits)-1]
	return x
}
