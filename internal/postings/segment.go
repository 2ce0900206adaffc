package postings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"strings"
)

// A Segment reads a segment through an io.ReaderAt: OpenAt reads and
// checks its header, document table and restart index; a block of the
// dictionary is read and checked when a word in it is looked up, and a
// word's postings a block at a time by a Cursor.
type Segment struct {
	src       source
	fields    int
	docs      int
	docTable  []byte
	terms     int
	restarts  []restart // every restartEvery-th term
	dictStart int64
	dictLen   int64
	postStart int64
	postLen   int64
}

type restart struct {
	term       string
	dict, post int64 // offsets of its entry and postings
}

// A termEntry is a term of the dictionary: its documents, and where its
// postings are.
type termEntry struct {
	count     int
	post, len int64 // within the postings
}

// source reads a segment's bytes.
type source struct {
	r    io.ReaderAt
	data []byte // the whole segment, when it is in memory (mem)
	mem  bool
}

// read returns n bytes at off, in buf's memory when it must copy.
func (s source) read(off, n int64, buf []byte) ([]byte, error) {
	if s.mem {
		if off < 0 || n < 0 || off+n > int64(len(s.data)) {
			return nil, fmt.Errorf("%w: read past the end", ErrCorrupt)
		}
		return s.data[off : off+n], nil
	}
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := s.r.ReadAt(buf, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: read past the end", ErrCorrupt)
		}
		return nil, fmt.Errorf("postings: read segment: %w", err)
	}
	return buf, nil
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

// Open reads a segment held in memory. The bytes are used in place and
// must not change while the Segment is in use.
func Open(data []byte) (*Segment, error) {
	return openSource(source{data: data, mem: true}, int64(len(data)))
}

// OpenAt reads a segment of size bytes through r, in pieces: r must not
// change while the Segment is in use. A read error of r is returned
// wrapped, from OpenAt or from the Cursor or search that met it.
func OpenAt(r io.ReaderAt, size int64) (*Segment, error) {
	return openSource(source{r: r}, size)
}

// headRead is how many bytes open reads at a time while it reads the
// header's varints.
const headRead = 64

func openSource(src source, size int64) (*Segment, error) {
	s := &Segment{src: src}
	// The varints before the document table.
	b, err := src.read(0, min(size, headRead), nil)
	if err != nil {
		return nil, err
	}
	if len(b) < len(magic)+1 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: no header", ErrCorrupt)
	}
	if b[len(magic)] != version {
		return nil, fmt.Errorf("%w: version %d", ErrCorrupt, b[len(magic)])
	}
	r := reader{b: b, off: len(magic) + 1}
	fields, docs := r.uvarint(), r.uvarint()
	if r.err || fields < 1 || fields > MaxFields {
		return nil, fmt.Errorf("%w: fields", ErrCorrupt)
	}
	s.fields = int(fields)
	stride := uint64(4 + 4*s.fields)
	if docs > uint64(size)/stride {
		return nil, fmt.Errorf("%w: document table", ErrCorrupt)
	}
	s.docs = int(docs)
	off := int64(r.off)
	if s.docTable, err = src.read(off, int64(docs*stride), nil); err != nil {
		return nil, err
	}
	if !src.mem {
		s.docTable = append([]byte(nil), s.docTable...)
	}
	off += int64(docs * stride)
	for i := 1; i < s.docs; i++ {
		if s.Doc(i) <= s.Doc(i-1) {
			return nil, fmt.Errorf("%w: documents out of order", ErrCorrupt)
		}
	}
	// The term count and the restart index.
	var terms, restartsLen uint64
	if off, terms, err = readUvarint(src, off, size); err != nil {
		return nil, err
	}
	if off, restartsLen, err = readUvarint(src, off, size); err != nil {
		return nil, err
	}
	if terms > uint64(size) || restartsLen > uint64(size-off) {
		return nil, fmt.Errorf("%w: restart index", ErrCorrupt)
	}
	s.terms = int(terms)
	rb, err := src.read(off, int64(restartsLen), nil)
	if err != nil {
		return nil, err
	}
	off += int64(restartsLen)
	var dictLen uint64
	if off, dictLen, err = readUvarint(src, off, size); err != nil {
		return nil, err
	}
	if dictLen > uint64(size-off) {
		return nil, fmt.Errorf("%w: dictionary length", ErrCorrupt)
	}
	s.dictStart, s.dictLen = off, int64(dictLen)
	s.postStart = off + int64(dictLen)
	s.postLen = size - s.postStart
	if err := s.readRestarts(rb); err != nil {
		return nil, err
	}
	// The last block of the dictionary ends where the postings do: a
	// segment cut short or run on is refused here.
	if len(s.restarts) > 0 {
		if err := s.walkBlock(len(s.restarts)-1, func([]byte, termEntry) bool { return true }); err != nil {
			return nil, err
		}
	} else if s.dictLen != 0 || s.postLen != 0 {
		return nil, fmt.Errorf("%w: trailing bytes", ErrCorrupt)
	}
	return s, nil
}

// readUvarint reads the uvarint at off.
func readUvarint(src source, off, size int64) (int64, uint64, error) {
	b, err := src.read(off, min(size-off, binary.MaxVarintLen64), nil)
	if err != nil {
		return 0, 0, err
	}
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, fmt.Errorf("%w: header", ErrCorrupt)
	}
	return off + int64(n), v, nil
}

// readRestarts decodes the restart index: one entry for every
// restartEvery terms, in increasing order, their offsets within the
// dictionary and postings.
func (s *Segment) readRestarts(b []byte) error {
	r := reader{b: b}
	want := (s.terms + restartEvery - 1) / restartEvery
	var dict, post int64
	for i := 0; r.off < len(b); i++ {
		n := r.uvarint()
		term := r.take(n)
		dd, pd := r.uvarint(), r.uvarint()
		if r.err || i >= want || dd > uint64(s.dictLen-dict) || pd > uint64(s.postLen-post) ||
			(i > 0 && (dd == 0 || pd == 0 || string(term) <= s.restarts[i-1].term)) {
			return fmt.Errorf("%w: restart index", ErrCorrupt)
		}
		dict += int64(dd)
		post += int64(pd)
		s.restarts = append(s.restarts, restart{term: string(term), dict: dict, post: post})
	}
	if len(s.restarts) != want || want > 0 && (s.restarts[0].dict != 0 || s.restarts[0].post != 0) {
		return fmt.Errorf("%w: restart index", ErrCorrupt)
	}
	return nil
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

// Terms returns the number of distinct words in the segment.
func (s *Segment) Terms() int { return s.terms }

// walkBlock reads restart block ri of the dictionary and calls visit with
// each term, in order (the slice is reused by the next call), and its
// entry, until visit returns false. It checks each entry it reads, and,
// when it reads them all, that they fill the block and end where the
// block's postings do.
func (s *Segment) walkBlock(ri int, visit func(term []byte, e termEntry) bool) error {
	end, postEnd := s.dictLen, s.postLen
	n := restartEvery
	if ri+1 < len(s.restarts) {
		end, postEnd = s.restarts[ri+1].dict, s.restarts[ri+1].post
	} else {
		n = s.terms - ri*restartEvery
	}
	rs := s.restarts[ri]
	b, err := s.src.read(s.dictStart+rs.dict, end-rs.dict, nil)
	if err != nil {
		return err
	}
	r := reader{b: b}
	var bufs [2][64]byte
	term, prev := bufs[0][:0], bufs[1][:0]
	post := rs.post
	for i := range n {
		shared, suffixLen := r.uvarint(), r.uvarint()
		suffix := r.take(suffixLen)
		count, plen := r.uvarint(), r.uvarint()
		if r.err || shared > uint64(len(prev)) || i == 0 && shared != 0 ||
			count < 1 || count > uint64(s.docs) || plen > uint64(postEnd-post) {
			return fmt.Errorf("%w: dictionary", ErrCorrupt)
		}
		term = append(append(term[:0], prev[:shared]...), suffix...)
		if i == 0 && string(term) != rs.term || i > 0 && bytes.Compare(term, prev) <= 0 {
			return fmt.Errorf("%w: dictionary", ErrCorrupt)
		}
		if !visit(term, termEntry{count: int(count), post: post, len: int64(plen)}) {
			return nil
		}
		post += int64(plen)
		term, prev = prev, term
	}
	if r.off != len(b) || post != postEnd {
		return fmt.Errorf("%w: dictionary", ErrCorrupt)
	}
	return nil
}

// scan yields the terms from the first not below from (all of them when
// from is ""), in order; a read or a check that fails ends it and sets
// *err.
func (s *Segment) scan(from string, err *error) iter.Seq2[string, termEntry] {
	return func(yield func(string, termEntry) bool) {
		// The last restart whose term is not above from.
		ri := max(sort.Search(len(s.restarts), func(i int) bool { return s.restarts[i].term > from })-1, 0)
		for ; ri < len(s.restarts); ri++ {
			more := true
			e := s.walkBlock(ri, func(t []byte, e termEntry) bool {
				if string(t) >= from {
					more = yield(string(t), e)
				}
				return more
			})
			if e != nil {
				*err = e
				return
			}
			if !more {
				return
			}
		}
	}
}

// lookup returns a term's entry.
func (s *Segment) lookup(term string) (entry termEntry, found bool, err error) {
	ri := sort.Search(len(s.restarts), func(i int) bool { return s.restarts[i].term > term }) - 1
	if ri < 0 {
		return termEntry{}, false, nil
	}
	err = s.walkBlock(ri, func(t []byte, e termEntry) bool {
		c := strings.Compare(string(t), term)
		if c == 0 {
			entry, found = e, true
		}
		return c < 0
	})
	if err != nil {
		return termEntry{}, false, err
	}
	return entry, found, nil
}

// Count returns the number of documents that hold term.
func (s *Segment) Count(term string) (int, error) {
	e, _, err := s.lookup(term)
	return e.count, err
}

// Cursor returns a cursor over term's documents, or nil when the segment
// does not hold it.
func (s *Segment) Cursor(term string) (*Cursor, error) {
	e, ok, err := s.lookup(term)
	if !ok || err != nil {
		return nil, err
	}
	return s.newCursor(e), nil
}

// prefixCursors returns cursors over each term that begins with prefix,
// at most limit of them; more reports that there were more.
func (s *Segment) prefixCursors(prefix string, limit int) (cs []*Cursor, more bool, err error) {
	for t, e := range s.scan(prefix, &err) {
		if !strings.HasPrefix(t, prefix) {
			break
		}
		if len(cs) == limit {
			return cs, true, nil
		}
		cs = append(cs, s.newCursor(e))
	}
	return cs, false, err
}

// A Cursor reads a term's postings: the documents that hold it, in
// increasing order, and its occurrences in each. A read error or malformed
// postings end the cursor; Err then reports them.
type Cursor struct {
	src    source
	fields int
	count  int
	start  int64 // where the blocks begin in the segment
	heads  []blockHead
	bi     int // the block loaded; len(heads) once done
	buf    []byte
	docs   []uint32
	occ    [][]byte
	i      int // the document within the block
	keys   []uint32
	err    error
}

type blockHead struct {
	last       uint32
	start, end int64 // from the cursor's start
}

// headsRead is how many bytes of a term's postings a cursor reads first,
// for its block headers.
const headsRead = 512

func (s *Segment) newCursor(e termEntry) *Cursor {
	c := &Cursor{src: s.src, fields: s.fields, count: e.count, bi: -1}
	at := s.postStart + e.post
	b, err := s.src.read(at, min(e.len, headsRead), nil)
	if err != nil {
		c.fail(err)
		return c
	}
	r := reader{b: b}
	n := r.uvarint()
	if r.err || n == 0 || n > uint64(e.len) {
		c.fail(nil)
		return c
	}
	// Each header is at least two bytes; read them all if the first read
	// did not.
	if need := int64(r.off) + 2*int64(n)*binary.MaxVarintLen64; int64(len(b)) < min(need, e.len) {
		if b, err = s.src.read(at, min(need, e.len), nil); err != nil {
			c.fail(err)
			return c
		}
		r.b = b
	}
	c.heads = make([]blockHead, n)
	var last uint32
	var size uint64
	for i := range c.heads {
		d, l := r.uvarint(), r.uvarint()
		if r.err || (i > 0 && d == 0) || uint64(last)+d > 1<<32-1 || l == 0 || l > uint64(e.len) {
			c.fail(nil)
			return c
		}
		last += uint32(d)
		c.heads[i] = blockHead{last: last, start: int64(size), end: int64(size + l)}
		size += l
	}
	if int64(size) != e.len-int64(r.off) {
		c.fail(nil)
		return c
	}
	c.start = at + int64(r.off)
	return c
}

// fail ends the cursor with err, or ErrCorrupt.
func (c *Cursor) fail(err error) {
	if c.err == nil {
		if err == nil {
			err = fmt.Errorf("%w: postings", ErrCorrupt)
		}
		c.err = err
	}
	c.bi = len(c.heads)
}

// Err returns the error that ended the cursor, if any.
func (c *Cursor) Err() error { return c.err }

// Count returns the number of documents in the term's postings.
func (c *Cursor) Count() int { return c.count }

// load reads block bi and places the cursor on its first document.
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
	b, err := c.src.read(c.start+h.start, h.end-h.start, c.buf)
	if err != nil {
		c.fail(err)
		return false
	}
	if !c.src.mem {
		c.buf = b
	}
	r := reader{b: b}
	for r.off < len(r.b) && len(c.docs) < blockDocs {
		d, l := r.uvarint(), r.uvarint()
		if r.err || (d == 0 && !(bi == 0 && len(c.docs) == 0)) || uint64(prev)+d > uint64(h.last) {
			c.fail(nil)
			return false
		}
		occ := r.take(l)
		if r.err {
			c.fail(nil)
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
		c.fail(nil)
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
			c.fail(nil)
			return nil
		}
		prev += d
		c.keys = append(c.keys, uint32(prev))
	}
	if len(c.keys) == 0 {
		c.fail(nil)
		return nil
	}
	return c.keys
}
