package postings

import (
	"container/heap"
	"math"
	"slices"
)

// docIter walks the documents of a word, a prefix or a phrase in an
// index, in increasing order.
type docIter interface {
	// seek moves to the first document not below doc, from the current
	// one on (the first call starts at the beginning), or reports false
	// at the end; once at the end, it stays there.
	seek(doc uint32) bool
	// next moves to the next document.
	next() bool
	doc() uint32
	// occurrences returns the current document's instances (their first
	// word's keys), increasing, valid until the iterator moves.
	occurrences() []uint32
	// cost is about how many documents the iterator visits.
	cost() int
	err() error
}

// termIter is a word's cursor in one part of an index: its occurrences
// moved to the part's fields, its deleted documents skipped.
type termIter struct {
	c       *Cursor
	off     uint32 // added to each occurrence key: the part's first field
	deleted func(uint32) bool
	keys    []uint32
}

func (t *termIter) skipDeleted(ok bool) bool {
	for ok && t.deleted != nil && t.deleted(t.c.Doc()) {
		ok = t.c.Next()
	}
	return ok
}

func (t *termIter) seek(d uint32) bool { return t.skipDeleted(t.c.Seek(d)) }
func (t *termIter) next() bool         { return t.skipDeleted(t.c.Next()) }
func (t *termIter) doc() uint32        { return t.c.Doc() }
func (t *termIter) cost() int          { return t.c.Count() }
func (t *termIter) err() error         { return t.c.Err() }

func (t *termIter) occurrences() []uint32 {
	keys := t.c.Occurrences()
	if t.off == 0 {
		return keys
	}
	t.keys = t.keys[:0]
	for _, k := range keys {
		t.keys = append(t.keys, k+t.off)
	}
	return t.keys
}

// unionIter is the documents of several iterators (a word's in each part
// of an index, a prefix's words), merged. An iterator's documents are
// ordered; a document may be in several of them.
type unionIter struct {
	all   []docIter
	h     iterHeap // the iterators not at their end, by document
	begun bool
	keys  []uint32
	n     int
}

func newUnion(its []docIter) *unionIter {
	u := &unionIter{all: its}
	for _, it := range its {
		u.n += it.cost()
	}
	return u
}

func (u *unionIter) start() {
	u.begun = true
	for _, it := range u.all {
		if it.seek(0) {
			u.h = append(u.h, it)
		}
	}
	heap.Init(&u.h)
}

func (u *unionIter) seek(d uint32) bool {
	if !u.begun {
		u.start()
	}
	for len(u.h) > 0 && u.h[0].doc() < d {
		if u.h[0].seek(d) {
			heap.Fix(&u.h, 0)
		} else {
			heap.Pop(&u.h)
		}
	}
	return len(u.h) > 0
}

func (u *unionIter) next() bool {
	if !u.begun {
		return u.seek(0)
	}
	if len(u.h) == 0 {
		return false
	}
	d := u.h[0].doc()
	for len(u.h) > 0 && u.h[0].doc() == d {
		if u.h[0].next() {
			heap.Fix(&u.h, 0)
		} else {
			heap.Pop(&u.h)
		}
	}
	return len(u.h) > 0
}

func (u *unionIter) doc() uint32 { return u.h[0].doc() }

// occurrences merges the occurrences of every iterator at the current
// document: those at the top of the heap.
func (u *unionIter) occurrences() []uint32 {
	d := u.h[0].doc()
	u.keys = u.keys[:0]
	var at []docIter
	for len(u.h) > 0 && u.h[0].doc() == d {
		it := heap.Pop(&u.h).(docIter)
		u.keys = append(u.keys, it.occurrences()...)
		at = append(at, it)
	}
	for _, it := range at {
		heap.Push(&u.h, it)
	}
	if len(at) > 1 {
		slices.Sort(u.keys)
	}
	return u.keys
}

func (u *unionIter) cost() int { return u.n }

func (u *unionIter) err() error {
	for _, it := range u.all {
		if err := it.err(); err != nil {
			return err
		}
	}
	return nil
}

type iterHeap []docIter

func (h iterHeap) Len() int           { return len(h) }
func (h iterHeap) Less(i, j int) bool { return h[i].doc() < h[j].doc() }
func (h iterHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *iterHeap) Push(x any)        { *h = append(*h, x.(docIter)) }
func (h *iterHeap) Pop() any {
	x := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return x
}

// leapfrog moves its to the first document not below d that all of them
// hold and accept accepts, or reports false.
func leapfrog(its []docIter, d uint32, accept func(uint32) bool) bool {
	for {
		if !its[0].seek(d) {
			return false
		}
		d = its[0].doc()
		agreed := true
		for _, it := range its[1:] {
			if !it.seek(d) {
				return false
			}
			if it.doc() > d {
				d, agreed = it.doc(), false
				break
			}
		}
		if !agreed {
			continue
		}
		if accept == nil || accept(d) {
			return true
		}
		if d == math.MaxUint32 {
			return false
		}
		d++
	}
}

// phraseIter is the documents where words follow one another in a field.
type phraseIter struct {
	words []docIter // in the phrase's order
	order []docIter // the same, the fewest documents first
	keys  []uint32  // the instances at the current document
	done  bool
	cur   uint32
}

func newPhrase(words []docIter) *phraseIter {
	p := &phraseIter{words: words, order: slices.Clone(words)}
	slices.SortStableFunc(p.order, func(a, b docIter) int { return a.cost() - b.cost() })
	return p
}

func (p *phraseIter) seek(d uint32) bool {
	if p.done {
		return false
	}
	if !leapfrog(p.order, d, p.verify) {
		p.done = true
		return false
	}
	p.cur = p.order[0].doc()
	return true
}

func (p *phraseIter) next() bool {
	if p.done || p.cur == math.MaxUint32 {
		p.done = true
		return false
	}
	return p.seek(p.cur + 1)
}

// verify keeps in keys the places where the words follow one another,
// within one field.
func (p *phraseIter) verify(uint32) bool {
	p.keys = append(p.keys[:0], p.words[0].occurrences()...)
	for i, w := range p.words[1:] {
		off := uint32(i + 1)
		next := w.occurrences()
		kept, j := p.keys[:0], 0
		for _, k := range p.keys {
			want := k + off
			if want>>fieldShift != k>>fieldShift {
				continue
			}
			for j < len(next) && next[j] < want {
				j++
			}
			if j < len(next) && next[j] == want {
				kept = append(kept, k)
			}
		}
		p.keys = kept
		if len(p.keys) == 0 {
			return false
		}
	}
	return true
}

func (p *phraseIter) doc() uint32           { return p.cur }
func (p *phraseIter) occurrences() []uint32 { return p.keys }
func (p *phraseIter) cost() int             { return p.order[0].cost() }
func (p *phraseIter) err() error {
	for _, w := range p.words {
		if err := w.err(); err != nil {
			return err
		}
	}
	return nil
}

// wordIter returns the iterator of a word (a prefix: every word it
// begins) over the index's parts, or nil when no part holds it.
func (ix *Index) wordIter(w string, prefix bool) (docIter, error) {
	var its []docIter
	for _, p := range ix.parts {
		off := uint32(p.field) << fieldShift
		deleted := p.Deleted()
		if !prefix {
			c, err := p.seg.Cursor(w)
			if err != nil {
				return nil, err
			}
			if c != nil {
				its = append(its, &termIter{c: c, off: off, deleted: deleted})
			}
			continue
		}
		cs, more, err := p.seg.prefixCursors(w, MaxExpansions)
		switch {
		case err != nil:
			return nil, err
		case more:
			return nil, ErrTooBroad
		}
		for _, c := range cs {
			its = append(its, &termIter{c: c, off: off, deleted: deleted})
		}
	}
	switch len(its) {
	case 0:
		return nil, nil
	case 1:
		return its[0], nil
	}
	return newUnion(its), nil
}

// phraseIter returns the iterator of p over the index, or nil when no
// document can hold it.
func (ix *Index) phraseIter(p phrase) (docIter, error) {
	its := make([]docIter, len(p.words))
	for i, w := range p.words {
		it, err := ix.wordIter(w, i == len(p.words)-1 && p.prefix)
		if it == nil || err != nil {
			return nil, err
		}
		its[i] = it
	}
	if len(its) == 1 {
		return its[0], nil
	}
	return newPhrase(its), nil
}

// matcher walks the documents of the index that hold every positive
// phrase and no excluded one.
type matcher struct {
	ix    *Index
	pos   []docIter // the positive phrases, in the query's order
	order []docIter // the same, the fewest documents first
	neg   []docIter
	cur   uint32
	done  bool
}

// matcher returns the matcher of a query's phrases, or nil when no
// document can match.
func (ix *Index) matcher(ps []phrase) (*matcher, error) {
	m := &matcher{ix: ix}
	for _, p := range ps {
		it, err := ix.phraseIter(p)
		if err != nil {
			return nil, err
		}
		switch {
		case p.exclude && it != nil:
			m.neg = append(m.neg, it)
		case p.exclude:
		case it == nil:
			return nil, nil
		default:
			m.pos = append(m.pos, it)
		}
	}
	m.order = slices.Clone(m.pos)
	slices.SortStableFunc(m.order, func(a, b docIter) int { return a.cost() - b.cost() })
	return m, nil
}

func (m *matcher) first() bool { return m.seek(0) }

func (m *matcher) next() bool {
	if m.done || m.cur == math.MaxUint32 {
		return false
	}
	return m.seek(m.cur + 1)
}

func (m *matcher) seek(d uint32) bool {
	if m.done || !leapfrog(m.order, d, m.notExcluded) {
		m.done = true
		return false
	}
	m.cur = m.order[0].doc()
	return true
}

// notExcluded reports whether d is a document of the index (not only of
// a part that adds fields to it) without an excluded phrase.
func (m *matcher) notExcluded(d uint32) bool {
	if !m.ix.has(d) {
		return false
	}
	for _, n := range m.neg {
		if n.seek(d) && n.doc() == d {
			return false
		}
	}
	return true
}

func (m *matcher) doc() uint32 { return m.cur }

func (m *matcher) err() error {
	for _, it := range append(slices.Clone(m.pos), m.neg...) {
		if err := it.err(); err != nil {
			return err
		}
	}
	return nil
}
