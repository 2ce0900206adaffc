package postings

import (
	"encoding/binary"
	"fmt"
	"iter"
	"sort"
	"strings"
)

// A Segment reads a segment's bytes in place: Open checks its header,
// document table and dictionary; a term's postings are checked as a
// Cursor reads them.
type Segment struct {
	data     []byte
	fields   int
	docs     int
	docTable []byte
	terms    int
	dict     int       // where the first term's entry begins
	restarts []restart // every restartEvery-th term
}

type restart struct {
	term string
	off  int
}

// A termEntry is a term of the dictionary and its postings.
type termEntry struct {
	count    int
	postings []byte
	next     int // where the next term's entry begins
}

// reader reads uvarints from a byte slice and remembers the first error.
type reader struct {
	b   []byte
	off int
	err bool
}

func (r *reader) uvarint() uint64 {
	if r.err {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = true
		return 0
	}
	r.off += n
	return v
}

// take returns the next n bytes.
func (r *reader) take(n uint64) []byte {
	if r.err || n > uint64(len(r.b)-r.off) {
		r.err = true
		return nil
	}
	out := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return out
}

// Open reads a segment. The bytes are used in place and must not change
// while the Segment is in use.
func Open(data []byte) (*Segment, error) {
	if len(data) < len(magic)+1 || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: no header", ErrCorrupt)
	}
	if data[len(magic)] != version {
		return nil, fmt.Errorf("%w: version %d", ErrCorrupt, data[len(magic)])
	}
	r := reader{b: data, off: len(magic) + 1}
	s := &Segment{data: data}
	fields, docs := r.uvarint(), r.uvarint()
	if r.err || fields < 1 || fields > MaxFields {
		return nil, fmt.Errorf("%w: fields", ErrCorrupt)
	}
	s.fields = int(fields)
	if docs > uint64(len(data)) {
		return nil, fmt.Errorf("%w: document table", ErrCorrupt)
	}
	s.docs = int(docs)
	s.docTable = r.take(docs * uint64(4+4*s.fields))
	if r.err {
		return nil, fmt.Errorf("%w: document table", ErrCorrupt)
	}
	for i := 1; i < s.docs; i++ {
		if s.Doc(i) <= s.Doc(i-1) {
			return nil, fmt.Errorf("%w: documents out of order", ErrCorrupt)
		}
	}
	tb := r.take(4)
	if r.err {
		return nil, fmt.Errorf("%w: term count", ErrCorrupt)
	}
	terms := uint64(binary.LittleEndian.Uint32(tb))
	if terms > uint64(len(data)) {
		return nil, fmt.Errorf("%w: term count", ErrCorrupt)
	}
	s.terms, s.dict = int(terms), r.off
	var prev []byte
	off := s.dict
	for i := range s.terms {
		term, e, err := s.entry(off, prev, i%restartEvery == 0)
		if err != nil {
			return nil, err
		}
		if i > 0 && string(term) <= string(prev) {
			return nil, fmt.Errorf("%w: terms out of order", ErrCorrupt)
		}
		if e.count < 1 || e.count > s.docs {
			return nil, fmt.Errorf("%w: term's document count", ErrCorrupt)
		}
		if i%restartEvery == 0 {
			s.restarts = append(s.restarts, restart{term: string(term), off: off})
		}
		prev, off = term, e.next
	}
	if off != len(data) {
		return nil, fmt.Errorf("%w: trailing bytes", ErrCorrupt)
	}
	return s, nil
}

// entry decodes the dictionary entry at off, whose term shares a prefix
// with prev (no prefix at a restart). The term returned is a new slice
// when prev is given, else part of the segment.
func (s *Segment) entry(off int, prev []byte, restart bool) ([]byte, termEntry, error) {
	r := reader{b: s.data, off: off}
	shared, suffixLen := r.uvarint(), r.uvarint()
	if r.err || shared > uint64(len(prev)) || restart && shared != 0 {
		return nil, termEntry{}, fmt.Errorf("%w: dictionary", ErrCorrupt)
	}
	suffix := r.take(suffixLen)
	count := r.uvarint()
	plen := r.uvarint()
	postings := r.take(plen)
	if r.err || count > uint64(len(s.data)) {
		return nil, termEntry{}, fmt.Errorf("%w: dictionary", ErrCorrupt)
	}
	term := suffix
	if shared > 0 {
		term = append(append(make([]byte, 0, int(shared)+len(suffix)), prev[:shared]...), suffix...)
	}
	return term, termEntry{count: int(count), postings: postings, next: r.off}, nil
}

// Fields returns the number of fields of the segment's documents.
func (s *Segment) Fields() int { return s.fields }

// Docs returns the number of documents in the segment.
func (s *Segment) Docs() int { return s.docs }

// Doc returns the i-th document's number, in increasing order.
func (s *Segment) Doc(i int) uint32 {
	return binary.LittleEndian.Uint32(s.docTable[i*(4+4*s.fields):])
}

// FieldLen returns the number of words indexed in field f of the i-th
// document.
func (s *Segment) FieldLen(i, f int) int {
	return int(binary.LittleEndian.Uint32(s.docTable[i*(4+4*s.fields)+4+4*f:]))
}

// Find returns the index of document doc in the segment, and whether it
// is there.
func (s *Segment) Find(doc uint32) (int, bool) {
	i := sort.Search(s.docs, func(i int) bool { return s.Doc(i) >= doc })
	return i, i < s.docs && s.Doc(i) == doc
}

// Terms returns the number of distinct words in the segment.
func (s *Segment) Terms() int { return s.terms }

// scan yields the terms from the restart block holding from (all of them
// when from is ""), in order, starting at the first term not below from.
func (s *Segment) scan(from string) iter.Seq2[string, termEntry] {
	return func(yield func(string, termEntry) bool) {
		if s.terms == 0 {
			return
		}
		// The last restart whose term is not above from.
		ri := sort.Search(len(s.restarts), func(i int) bool { return s.restarts[i].term > from }) - 1
		if ri < 0 {
			ri = 0
		}
		off := s.restarts[ri].off
		var prev []byte
		for i := ri * restartEvery; i < s.terms; i++ {
			term, e, err := s.entry(off, prev, i%restartEvery == 0)
			if err != nil {
				return // Open checked the dictionary
			}
			prev, off = term, e.next
			if string(term) < from {
				continue
			}
			if !yield(string(term), e) {
				return
			}
		}
	}
}

// lookup returns a term's entry.
func (s *Segment) lookup(term string) (termEntry, bool) {
	for t, e := range s.scan(term) {
		return e, t == term
	}
	return termEntry{}, false
}

// Count returns the number of documents that hold term.
func (s *Segment) Count(term string) int {
	e, _ := s.lookup(term)
	return e.count
}

// Cursor returns a cursor over term's documents, or nil when the segment
// does not hold it.
func (s *Segment) Cursor(term string) *Cursor {
	e, ok := s.lookup(term)
	if !ok {
		return nil
	}
	return newCursor(e, s.fields)
}

// prefixCursors returns cursors over each term that begins with prefix,
// at most limit of them; more reports that there were more.
func (s *Segment) prefixCursors(prefix string, limit int) (cs []*Cursor, more bool) {
	for t, e := range s.scan(prefix) {
		if !strings.HasPrefix(t, prefix) {
			break
		}
		if len(cs) == limit {
			return cs, true
		}
		cs = append(cs, newCursor(e, s.fields))
	}
	return cs, false
}

// A Cursor reads a term's postings: the documents that hold it, in
// increasing order, and its occurrences in each. Malformed postings end
// the cursor; Err then reports them.
type Cursor struct {
	fields int
	count  int
	body   []byte
	heads  []blockHead
	bi     int // the block loaded; len(heads) once done
	docs   []uint32
	occ    [][]byte
	i      int // the document within the block
	keys   []uint32
	err    error
}

type blockHead struct {
	last       uint32
	start, end int // within body
}

func newCursor(e termEntry, fields int) *Cursor {
	c := &Cursor{fields: fields, count: e.count, bi: -1}
	r := reader{b: e.postings}
	n := r.uvarint()
	if r.err || n > uint64(len(e.postings)) {
		c.fail()
		return c
	}
	c.heads = make([]blockHead, n)
	var last uint32
	var size uint64
	for i := range c.heads {
		d, l := r.uvarint(), r.uvarint()
		if r.err || (i > 0 && d == 0) || uint64(last)+d > 1<<32-1 || l > uint64(len(e.postings)) {
			c.fail()
			return c
		}
		last += uint32(d)
		c.heads[i] = blockHead{last: last, start: int(size), end: int(size + l)}
		size += l
	}
	if size != uint64(len(e.postings)-r.off) {
		c.fail()
		return c
	}
	c.body = e.postings[r.off:]
	return c
}

func (c *Cursor) fail() {
	if c.err == nil {
		c.err = fmt.Errorf("%w: postings", ErrCorrupt)
	}
	c.bi = len(c.heads)
}

// Err returns the error that ended the cursor, if any.
func (c *Cursor) Err() error { return c.err }

// Count returns the number of documents in the term's postings.
func (c *Cursor) Count() int { return c.count }

// load decodes block bi and places the cursor on its first document.
func (c *Cursor) load(bi int) bool {
	c.bi, c.i = bi, 0
	c.docs, c.occ = c.docs[:0], c.occ[:0]
	if bi >= len(c.heads) {
		return false
	}
	h := c.heads[bi]
	prev := uint32(0)
	if bi > 0 {
		prev = c.heads[bi-1].last
	}
	r := reader{b: c.body[h.start:h.end]}
	for r.off < len(r.b) && len(c.docs) < blockDocs {
		d, l := r.uvarint(), r.uvarint()
		if r.err || (d == 0 && !(bi == 0 && len(c.docs) == 0)) || uint64(prev)+d > uint64(h.last) {
			c.fail()
			return false
		}
		occ := r.take(l)
		if r.err {
			c.fail()
			return false
		}
		prev += uint32(d)
		c.docs = append(c.docs, prev)
		c.occ = append(c.occ, occ)
		if prev == h.last {
			break
		}
	}
	if len(c.docs) == 0 || prev != h.last || r.off != len(r.b) {
		c.fail()
		return false
	}
	return true
}

// Next moves to the next document, or reports false at the end.
func (c *Cursor) Next() bool {
	if c.bi >= len(c.heads) {
		return false
	}
	if c.bi >= 0 && c.i+1 < len(c.docs) {
		c.i++
		return true
	}
	return c.load(c.bi + 1)
}

// Seek moves to the first document not below doc, from the current one
// on (a cursor not yet moved starts at the first), or reports false at
// the end.
func (c *Cursor) Seek(doc uint32) bool {
	if c.bi >= len(c.heads) {
		return false
	}
	if c.bi < 0 || c.heads[c.bi].last < doc {
		from := max(c.bi, 0)
		bi := from + sort.Search(len(c.heads)-from, func(i int) bool { return c.heads[from+i].last >= doc })
		if !c.load(bi) {
			return false
		}
	}
	for c.docs[c.i] < doc {
		c.i++
	}
	return true
}

// Doc returns the current document.
func (c *Cursor) Doc() uint32 { return c.docs[c.i] }

// Occurrences returns the term's occurrences in the current document as
// keys (field<<24 | position), increasing. The slice is reused by the
// next call. Malformed occurrences end the cursor and return nil.
func (c *Cursor) Occurrences() []uint32 {
	r := reader{b: c.occ[c.i]}
	c.keys = c.keys[:0]
	prev := uint64(0)
	for r.off < len(r.b) {
		d := r.uvarint()
		if r.err || (len(c.keys) > 0 && d == 0) || prev+d >= uint64(c.fields)<<fieldShift {
			c.fail()
			return nil
		}
		prev += d
		c.keys = append(c.keys, uint32(prev))
	}
	if len(c.keys) == 0 {
		c.fail()
		return nil
	}
	return c.keys
}
