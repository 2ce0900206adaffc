package postings

import (
	"container/heap"
	"errors"
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
	top := &hitHeap{limit: limit}
	total := 0
	err := ix.Each(q, weights, func(h Hit) bool {
		total++
		top.add(h)
		return true
	})
	if err != nil {
		return nil, 0, err
	}
	out := top.hits
	slices.SortFunc(out, compareHits)
	return out, total, nil
}

// Each calls fn with each document that matches q (as Search), in
// increasing order, and its bm25 score, until fn returns false.
func (ix *Index) Each(q query.Query, weights []float64, fn func(Hit) bool) error {
	ps := phrases(q)
	var pos []phrase
	for _, p := range ps {
		if !p.exclude {
			pos = append(pos, p)
		}
	}
	if len(pos) == 0 {
		return nil
	}
	st := Stats{Rows: ix.rows, FieldTotal: ix.totals, PhraseRows: make([]int64, len(pos))}
	for i, p := range pos {
		n, err := ix.phraseRows(p)
		if err != nil {
			return err
		}
		st.PhraseRows[i] = n
	}
	sizes := make([]int, ix.fields)
	hits := make([]int, len(pos)*ix.fields)
	sc := newScorer(st, weights)
	m, err := ix.matcher(ps)
	if err != nil || m == nil {
		return err
	}
	for ok := m.first(); ok; ok = m.next() {
		d := m.doc()
		ix.lens(d, sizes)
		clear(hits)
		for p, it := range m.pos {
			for _, k := range it.occurrences() {
				hits[p*ix.fields+int(k>>fieldShift)]++
			}
		}
		if !fn(Hit{Doc: d, Score: sc.score(sizes, hits)}) {
			return nil
		}
	}
	return m.err()
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
		c, err := part.seg.Count(p.words[0])
		if err != nil {
			return 0, false, err
		}
		if c > 0 && (part.field != 0 || part.del != nil) {
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
	return newScorer(st, weights).score(sizes, hits)
}

// scorer is BM25 for one query: what depends on the index alone,
// computed once.
type scorer struct {
	idf     []float64 // each phrase's
	avgdl   float64
	weights []float64
}

func newScorer(st Stats, weights []float64) scorer {
	var total int64
	for _, n := range st.FieldTotal {
		total += n
	}
	s := scorer{avgdl: float64(total) / float64(st.Rows), weights: weights}
	for _, nHit := range st.PhraseRows {
		idf := math.Log((float64(st.Rows-nHit) + 0.5) / (float64(nHit) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		s.idf = append(s.idf, idf)
	}
	return s
}

// score is BM25 of one document.
func (s scorer) score(sizes []int, hits []int) float64 {
	const k1, b = 1.2, 0.75
	var d int
	for _, n := range sizes {
		d += n
	}
	nCol := len(sizes)
	score := 0.0
	for p, idf := range s.idf {
		freq := 0.0
		for c := range nCol {
			w := 1.0
			if c < len(s.weights) {
				w = s.weights[c]
			}
			// FTS5 adds the weight once per instance.
			for range hits[p*nCol+c] {
				freq += w
			}
		}
		score += idf * ((freq * (k1 + 1)) / (freq + k1*(1-b+b*float64(d)/s.avgdl)))
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
