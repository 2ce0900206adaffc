package postings

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"slices"
)

// Merge writes parts of one field as one segment, without their deleted
// documents: a document held by several parts must be deleted in all of
// them but one.
func Merge(parts []Part) ([]byte, error) { return MergeTo(parts, nil) }

// MergeTo is Merge with the segment's postings written to post as they
// are made, as Builder.SegmentTo writes them: the segment is the bytes
// returned followed by those written.
func MergeTo(parts []Part, post io.Writer) ([]byte, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("postings: merge: no segments")
	}
	fields := parts[0].Seg.fields
	for _, p := range parts {
		if p.Seg.fields != fields || p.Field != parts[0].Field {
			return nil, fmt.Errorf("postings: merge: segments of other fields")
		}
	}
	all := liveDocs(parts)
	docs := make([]uint32, 0, len(all))
	lens := make([]uint32, 0, len(all)*fields)
	for j, e := range all {
		if j > 0 && e.doc == all[j-1].doc {
			return nil, fmt.Errorf("postings: merge: document %d is in two segments", e.doc)
		}
		docs = append(docs, e.doc)
		for f := range fields {
			lens = append(lens, uint32(parts[e.part].Seg.FieldLen(int(e.i), f)))
		}
	}
	w := newSegmentWriter(fields, docs, lens)
	w.sink = post
	srcs := make([]*dictSource, len(parts))
	scanErrs := make([]error, len(parts))
	for k, p := range parts {
		next, stop := iter.Pull2(p.Seg.scan("", &scanErrs[k]))
		defer stop()
		src := &dictSource{next: next}
		src.term, src.e, src.ok = next()
		srcs[k] = src
	}
	var failed error
	var its []*termIter
	for {
		term, any := "", false
		for _, src := range srcs {
			if src.ok && (!any || src.term < term) {
				term, any = src.term, true
			}
		}
		if !any {
			break
		}
		var at []int // the parts that hold the word
		for k, src := range srcs {
			if src.ok && src.term == term {
				at = append(at, k)
			}
		}
		done, err := concatenate(w, term, at, srcs, parts)
		if err != nil {
			return nil, fmt.Errorf("postings: merge %q: %w", term, err)
		}
		if done {
			for _, k := range at {
				src := srcs[k]
				src.term, src.e, src.ok = src.next()
			}
			continue
		}
		its = its[:0]
		for k, src := range srcs {
			if src.ok && src.term == term {
				its = append(its, &termIter{c: parts[k].Seg.newCursor(src.e), deleted: parts[k].Deleted})
				src.term, src.e, src.ok = src.next()
			}
		}
		w.term(term, func(yield func(uint32, []byte) bool) {
			failed = mergePostings(its, yield)
		})
		if failed != nil {
			return nil, fmt.Errorf("postings: merge %q: %w", term, failed)
		}
	}
	for _, err := range scanErrs {
		if err != nil {
			return nil, fmt.Errorf("postings: merge: %w", err)
		}
	}
	out, err := w.bytes()
	if err != nil {
		return nil, fmt.Errorf("postings: merge: %w", err)
	}
	return out, nil
}

// concatenate writes a word's postings from the parts at holds as the
// parts' blocks one after the other, when none of those parts deletes
// documents and each one's documents come after the one before's: the
// blocks are copied as they are, but for the first document of each
// part's first block, which is written again from the last document
// before it. It reports false, having written nothing, when it cannot.
func concatenate(w *segmentWriter, term string, at []int, srcs []*dictSource, parts []Part) (bool, error) {
	type piece struct {
		c   *Cursor
		raw []byte // the blocks
		d0  uint32 // the first document
		n   int    // the length of its varint
	}
	pieces := make([]piece, 0, len(at))
	for _, k := range at {
		if parts[k].Deleted != nil {
			return false, nil
		}
		seg := parts[k].Seg
		c := seg.newCursor(srcs[k].e)
		if c.err != nil {
			return false, c.err
		}
		h := c.heads[len(c.heads)-1]
		raw, err := seg.src.read(c.start, h.end, nil)
		if err != nil {
			return false, err
		}
		d0, n := binary.Uvarint(raw)
		if n <= 0 || d0 > uint64(c.heads[0].last) {
			return false, fmt.Errorf("%w: postings", ErrCorrupt)
		}
		if len(pieces) > 0 {
			prev := pieces[len(pieces)-1].c
			if uint32(d0) <= prev.heads[len(prev.heads)-1].last {
				return false, nil // the parts' documents interleave
			}
		}
		pieces = append(pieces, piece{c: c, raw: raw, d0: uint32(d0), n: n})
	}
	w.blocks, w.body = w.blocks[:0], w.body[:0]
	count, nblocks := 0, 0
	var last uint32 // of the block before
	for _, p := range pieces {
		count += p.c.count
		for j, h := range p.c.heads {
			block := p.raw[h.start:h.end]
			start := len(w.body)
			if j == 0 {
				w.body = binary.AppendUvarint(w.body, uint64(p.d0-last))
				block = block[p.n:]
			}
			w.body = append(w.body, block...)
			w.blocks = binary.AppendUvarint(w.blocks, uint64(h.last-last))
			w.blocks = binary.AppendUvarint(w.blocks, uint64(len(w.body)-start))
			last = h.last
			nblocks++
		}
	}
	var head [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(head[:], uint64(nblocks))
	w.entry(term, count, head[:n], w.blocks, w.body)
	return true, nil
}

// mergePostings yields the documents of its in order, with their
// occurrences as stored. (A posting of a document the segment's table
// does not hold is copied as it is: search finds no such document.)
func mergePostings(its []*termIter, yield func(uint32, []byte) bool) error {
	live := its[:0:0]
	for _, it := range its {
		if it.seek(0) {
			live = append(live, it)
		}
	}
	prev, first := uint32(0), true
	for len(live) > 0 {
		k := 0
		for j, it := range live[1:] {
			if it.doc() < live[k].doc() {
				k = j + 1
			}
		}
		it := live[k]
		if it.c.Occurrences() == nil {
			break
		}
		if !first && it.doc() <= prev {
			return fmt.Errorf("%w: a document twice in a word's postings", ErrCorrupt)
		}
		prev, first = it.doc(), false
		if !yield(it.doc(), it.c.occ[it.c.i]) {
			return nil
		}
		if !it.next() {
			live = slices.Delete(live, k, k+1)
		}
	}
	for _, it := range its {
		if err := it.err(); err != nil {
			return err
		}
	}
	return nil
}

// dictSource is a part's dictionary as a merge reads it: its next term.
type dictSource struct {
	next func() (string, termEntry, bool)
	term string
	e    termEntry
	ok   bool
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
