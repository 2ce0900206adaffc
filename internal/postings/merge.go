package postings

import (
	"fmt"
	"iter"
)

// Merge writes segments as one, without the documents deleted reports
// (nil: none). The segments are given in the order of their documents:
// each one's first document above the last of the one before.
func Merge(segs []*Segment, deleted func(doc uint32) bool) ([]byte, error) {
	if len(segs) == 0 {
		return nil, fmt.Errorf("postings: merge: no segments")
	}
	fields := segs[0].fields
	var docs, lens []uint32
	for k, s := range segs {
		if s.fields != fields {
			return nil, fmt.Errorf("postings: merge: segments of %d and %d fields", fields, s.fields)
		}
		if last, ok := lastDoc(segs[:k]); ok && s.docs > 0 && s.Doc(0) <= last {
			return nil, fmt.Errorf("postings: merge: segment %d's documents overlap the ones before", k)
		}
		for i := range s.docs {
			if deleted != nil && deleted(s.Doc(i)) {
				continue
			}
			docs = append(docs, s.Doc(i))
			for f := range fields {
				lens = append(lens, uint32(s.FieldLen(i, f)))
			}
		}
	}
	w := newSegmentWriter(fields, docs, lens)
	type source struct {
		next func() (string, termEntry, bool)
		stop func()
		term string
		e    termEntry
		ok   bool
	}
	srcs := make([]*source, len(segs))
	for k, s := range segs {
		next, stop := iter.Pull2(s.scan(""))
		defer stop()
		src := &source{next: next, stop: stop}
		src.term, src.e, src.ok = next()
		srcs[k] = src
	}
	var failed error
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
		type from struct {
			c *Cursor
			s *Segment
		}
		var cursors []from
		for k, src := range srcs {
			if src.ok && src.term == term {
				cursors = append(cursors, from{newCursor(src.e, fields), segs[k]})
				src.term, src.e, src.ok = src.next()
			}
		}
		w.term(term, func(yield func(uint32, []byte) bool) {
			for _, f := range cursors {
				c := f.c
				for c.Next() {
					if c.Occurrences() == nil {
						break
					}
					if _, ok := f.s.Find(c.Doc()); !ok {
						failed = fmt.Errorf("%w: a posting's document is not in the segment", ErrCorrupt)
						return
					}
					if deleted != nil && deleted(c.Doc()) {
						continue
					}
					if !yield(c.Doc(), c.occ[c.i]) {
						return
					}
				}
				if err := c.Err(); err != nil && failed == nil {
					failed = err
				}
			}
		})
		if failed != nil {
			return nil, fmt.Errorf("postings: merge %q: %w", term, failed)
		}
	}
	return w.bytes(), nil
}

// lastDoc returns the last document of the last of segs that has one.
func lastDoc(segs []*Segment) (uint32, bool) {
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].docs > 0 {
			return segs[i].Doc(segs[i].docs - 1), true
		}
	}
	return 0, false
}
