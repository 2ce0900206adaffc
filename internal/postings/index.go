package postings

import (
	"errors"
	"fmt"
	"slices"
	"sort"
)

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
//
// An Index does not change: Apply returns another, which shares with it
// what the change leaves as it was, so that searches of the one can run
// while the other is made.
type Index struct {
	parts  []part
	fields int
	chunks []*chunk // by document >> chunkShift; nil: no document there
	rows   int64    // documents of the index
	totals []int64  // their words in each field
}

// part is a part of an index, with the documents deleted from it so far.
type part struct {
	seg   *Segment
	field int
	del   *docSet // nil: none
}

// chunkShift sets how many documents a chunk holds: 1<<chunkShift.
const (
	chunkShift = 10
	chunkDocs  = 1 << chunkShift
)

// chunk holds what the index knows of chunkDocs consecutive documents:
// which fields of each a part holds, and their words.
type chunk struct {
	held [][chunkDocs / 64]uint64 // by field: bit d%chunkDocs is set when a part holds the field of d
	lens []uint32                 // d's words in field f at (d%chunkDocs)*fields+f
	main []*Segment               // the segment of the part at field 0 that holds d, if any
}

// NewIndex returns the index of parts. It reads every part's document
// table once, for the documents' lengths bm25 needs.
func NewIndex(parts []Part) (*Index, error) {
	ix := &Index{}
	return ix.Apply(Change{Add: parts})
}

// A Change is what Apply does to an index, in this order: parts removed
// (a merge's inputs, say), documents deleted from parts that stay, then
// parts added. A part's own Deleted is read once, when it is added.
type Change struct {
	Remove []*Segment
	Delete []Deletion
	Add    []Part
}

// A Deletion is a document that no longer counts in a segment of the
// index.
type Deletion struct {
	Seg *Segment
	Doc uint32
}

// Apply returns the index with the change made. Its cost is that of the
// documents the change adds, deletes or removes, and of a copy of the
// chunks of documents they fall in; the index itself is left as it was.
func (ix *Index) Apply(c Change) (*Index, error) {
	nx := &Index{
		parts:  slices.Clone(ix.parts),
		fields: ix.fields,
		chunks: slices.Clone(ix.chunks),
		rows:   ix.rows,
		totals: slices.Clone(ix.totals),
	}
	fields := ix.fields
	for _, p := range c.Add {
		if p.Seg == nil || p.Field < 0 || p.Field+p.Seg.fields > MaxFields {
			return nil, errors.New("postings: a part without a segment, or past the last field")
		}
		fields = max(fields, p.Field+p.Seg.fields)
	}
	if fields > nx.fields {
		nx.widen(fields)
	}
	copied := map[*chunk]bool{} // the chunks nx owns
	for _, s := range c.Remove {
		k := nx.partOf(s)
		if k < 0 {
			return nil, errors.New("postings: removing a segment the index does not hold")
		}
		p := nx.parts[k]
		for i := range p.seg.docs {
			if d := p.seg.Doc(i); !p.del.has(d) {
				nx.unset(copied, p, d)
			}
		}
		nx.parts = slices.Delete(nx.parts, k, k+1)
	}
	dels := map[int]*docSet{} // the deletion sets nx owns, by part
	for _, d := range c.Delete {
		k := nx.partOf(d.Seg)
		if k < 0 {
			return nil, errors.New("postings: deleting from a segment the index does not hold")
		}
		p := &nx.parts[k]
		if !p.seg.holds(d.Doc) {
			return nil, fmt.Errorf("postings: deleting document %d, which the segment does not hold", d.Doc)
		}
		if p.del.has(d.Doc) {
			continue
		}
		if dels[k] == nil {
			dels[k] = p.del.clone(p.seg)
			p.del = dels[k]
		}
		p.del.add(d.Doc)
		nx.unset(copied, *p, d.Doc)
	}
	for _, in := range c.Add {
		if nx.partOf(in.Seg) >= 0 {
			return nil, errors.New("postings: adding a segment the index holds")
		}
		p := part{seg: in.Seg, field: in.Field}
		for i := range p.seg.docs {
			d := p.seg.Doc(i)
			if in.Deleted != nil && in.Deleted(d) {
				if p.del == nil {
					p.del = (*docSet)(nil).clone(p.seg)
				}
				p.del.add(d)
				continue
			}
			if err := nx.set(copied, p, i, d); err != nil {
				return nil, err
			}
		}
		nx.parts = append(nx.parts, p)
	}
	return nx, nil
}

// widen gives every chunk of ix fields fields.
func (ix *Index) widen(fields int) {
	for j, c := range ix.chunks {
		if c == nil {
			continue
		}
		w := &chunk{held: make([][chunkDocs / 64]uint64, fields), lens: make([]uint32, chunkDocs*fields), main: c.main}
		copy(w.held, c.held)
		for d := range chunkDocs {
			copy(w.lens[d*fields:], c.lens[d*ix.fields:(d+1)*ix.fields])
		}
		ix.chunks[j] = w
	}
	ix.totals = append(ix.totals, make([]int64, fields-ix.fields)...)
	ix.fields = fields
}

// partOf returns where the part of s is in ix.parts, or -1.
func (ix *Index) partOf(s *Segment) int {
	return slices.IndexFunc(ix.parts, func(p part) bool { return p.seg == s })
}

// own returns the chunk of document d for writing, copied first when ix
// shares it with the index it was made from.
func (ix *Index) own(copied map[*chunk]bool, d uint32) *chunk {
	j := int(d >> chunkShift)
	if j >= len(ix.chunks) {
		ix.chunks = append(ix.chunks, make([]*chunk, j+1-len(ix.chunks))...)
	}
	c := ix.chunks[j]
	switch {
	case c == nil:
		c = &chunk{held: make([][chunkDocs / 64]uint64, ix.fields), lens: make([]uint32, chunkDocs*ix.fields), main: make([]*Segment, chunkDocs)}
	case !copied[c]:
		c = &chunk{held: slices.Clone(c.held), lens: slices.Clone(c.lens), main: slices.Clone(c.main)}
	default:
		return c
	}
	copied[c] = true
	ix.chunks[j] = c
	return c
}

// set records the fields of document d, the i-th of p's segment.
func (ix *Index) set(copied map[*chunk]bool, p part, i int, d uint32) error {
	c := ix.own(copied, d)
	at, bit := int(d%chunkDocs), uint64(1)<<(d%64)
	for f := range p.seg.fields {
		if c.held[p.field+f][at/64]&bit != 0 {
			return fmt.Errorf("postings: document %d is in two parts at field %d", d, p.field+f)
		}
	}
	main := c.held[0][at/64]&bit != 0
	for f := range p.seg.fields {
		n := uint32(p.seg.FieldLen(i, f))
		c.held[p.field+f][at/64] |= bit
		c.lens[at*ix.fields+p.field+f] = n
		if main {
			ix.totals[p.field+f] += int64(n)
		}
	}
	if !main && p.field == 0 {
		ix.count(c, at, 1)
		c.main[at] = p.seg
	}
	return nil
}

// unset forgets the fields p holds of document d.
func (ix *Index) unset(copied map[*chunk]bool, p part, d uint32) {
	c := ix.own(copied, d)
	at, bit := int(d%chunkDocs), uint64(1)<<(d%64)
	if p.field == 0 {
		ix.count(c, at, -1)
		c.main[at] = nil
	}
	main := c.held[0][at/64]&bit != 0 && p.field != 0
	for f := range p.seg.fields {
		if main {
			ix.totals[p.field+f] -= int64(c.lens[at*ix.fields+p.field+f])
		}
		c.held[p.field+f][at/64] &^= bit
		c.lens[at*ix.fields+p.field+f] = 0
	}
}

// count adds (by 1) or takes (by -1) the document at in c to or from the
// documents of the index, and its words to or from the totals.
func (ix *Index) count(c *chunk, at int, by int64) {
	ix.rows += by
	for f := range ix.fields {
		ix.totals[f] += by * int64(c.lens[at*ix.fields+f])
	}
}

// lens puts the words of each field of doc into sizes and reports
// whether doc is a document of the index.
func (ix *Index) lens(doc uint32, sizes []int) bool {
	j := int(doc >> chunkShift)
	if j >= len(ix.chunks) || ix.chunks[j] == nil {
		return false
	}
	c, at := ix.chunks[j], int(doc%chunkDocs)
	if c.held[0][at/64]&(1<<(doc%64)) == 0 {
		return false
	}
	for f := range sizes {
		sizes[f] = int(c.lens[at*ix.fields+f])
	}
	return true
}

// Holder returns the segment of the part at field 0 that holds doc, or
// nil when doc is not a document of the index.
func (ix *Index) Holder(doc uint32) *Segment {
	j := int(doc >> chunkShift)
	if j >= len(ix.chunks) || ix.chunks[j] == nil {
		return nil
	}
	return ix.chunks[j].main[doc%chunkDocs]
}

// has reports whether doc is a document of the index.
func (ix *Index) has(doc uint32) bool { return ix.lens(doc, nil) }

// Docs returns the number of documents in the index.
func (ix *Index) Docs() int64 { return ix.rows }

// Parts returns the index's parts, each with the documents deleted from
// it, as Merge takes them.
func (ix *Index) Parts() []Part {
	out := make([]Part, len(ix.parts))
	for i, p := range ix.parts {
		out[i] = Part{Seg: p.seg, Field: p.field, Deleted: p.Deleted()}
	}
	return out
}

// Deleted returns the test of p's deleted documents, nil when it has none.
func (p part) Deleted() func(uint32) bool {
	if p.del == nil || p.del.n == 0 {
		return nil
	}
	return p.del.has
}

// holds reports whether doc is a document of s.
func (s *Segment) holds(doc uint32) bool {
	i := sort.Search(s.docs, func(i int) bool { return s.Doc(i) >= doc })
	return i < s.docs && s.Doc(i) == doc
}

// docSet is a set of a segment's documents: a bit for each number from
// its first document to its last.
type docSet struct {
	first uint32
	bits  []uint64
	n     int
}

// clone returns a copy of s (an empty set for nil) over seg's documents.
func (s *docSet) clone(seg *Segment) *docSet {
	if s != nil {
		return &docSet{first: s.first, bits: slices.Clone(s.bits), n: s.n}
	}
	first, last := seg.Doc(0), seg.Doc(seg.docs-1)
	return &docSet{first: first, bits: make([]uint64, (uint64(last-first)+64)/64)}
}

func (s *docSet) add(d uint32) {
	i := d - s.first
	if s.bits[i/64]&(1<<(i%64)) == 0 {
		s.bits[i/64] |= 1 << (i % 64)
		s.n++
	}
}

// has reports whether d is in s (nil: the empty set).
func (s *docSet) has(d uint32) bool {
	if s == nil || d < s.first {
		return false
	}
	i := uint64(d - s.first)
	return i/64 < uint64(len(s.bits)) && s.bits[i/64]&(1<<(i%64)) != 0
}
