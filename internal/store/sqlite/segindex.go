package sqlite

import (
	"bytes"
	"cmp"
	"container/list"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/postings"
)

// The engines of the embedded full-text index. EngineFTS5 keeps the
// documents in SQLite's FTS5 tables (pages_fts, and the search tier's
// pages_top). EngineSegments keeps them in the crawler's own segments
// (internal/postings) as rows of the same file: each transaction that
// writes documents writes them as a segment of its own, a document
// written again is deleted from the segment that held it, and the
// segments of a level are merged into one of the next when there are
// segMergeFactor of them. Both are written by the same statements of the
// store (search_docs, search_pending and the index delay are the same),
// through fullText.
const (
	EngineFTS5     = "fts5"
	EngineSegments = "segments"
)

// fullText is the embedded index as the store's writes see it: a
// document's row written or deleted by its full-text key, in key order
// within a transaction's deletes and its inserts (see ftsOp).
type fullText interface {
	insert(ctx context.Context, d foldedDoc) error
	delete(ctx context.Context, key crawl.ID) error
}

// text returns the transaction's writer of the embedded index.
func (t *txn) text(ctx context.Context) (fullText, error) {
	if t.db.engine == EngineSegments {
		return t.segWriter(), nil
	}
	return t.ftsTable(ctx, ftsDelete, ftsInsert)
}

// ftsTable returns the writer of an FTS5 table, by its delete and insert
// statements.
func (t *txn) ftsTable(ctx context.Context, deleteSQL, insertSQL string) (fullText, error) {
	del, err := t.prep(ctx, deleteSQL)
	if err != nil {
		return nil, err
	}
	ins, err := t.prep(ctx, insertSQL)
	if err != nil {
		return nil, err
	}
	return ftsTable{del: del, ins: ins}, nil
}

// segWriter returns the transaction's writer of the segments engine.
func (t *txn) segWriter() *segWriter {
	if t.segs == nil {
		t.segs = &segWriter{t: t}
	}
	return t.segs
}

// ftsTable writes pages_fts.
type ftsTable struct{ del, ins *sql.Stmt }

func (f ftsTable) insert(ctx context.Context, d foldedDoc) error {
	if _, err := f.ins.ExecContext(ctx, d.key, d.title, d.body, d.anchors); err != nil {
		return fmt.Errorf("full-text index %d: %w", d.key, err)
	}
	return nil
}

func (f ftsTable) delete(ctx context.Context, key crawl.ID) error {
	if _, err := f.del.ExecContext(ctx, key); err != nil {
		return fmt.Errorf("full-text index %d: %w", key, err)
	}
	return nil
}

// Segments and their merges.
const (
	segBlock       = 4000      // bytes of a segment a row of index_blocks holds: one 4 KiB page's worth
	segSplitDocs   = 64        // documents a transaction writes before it builds segments at once
	segMergeFactor = 8         // segments of a level and field that are merged into one
	segMergeMax    = 256 << 20 // bytes of segments a merge takes at most
	segRetired     = 10 * time.Minute
)

// segFlushBytes is how many bytes of folded text a transaction holds
// before it builds them into segments (a variable for tests).
var segFlushBytes = 4 << 20

// The segments' fields: a document's title and text are in a segment at
// field 0 (two fields), its inbound anchor texts in one at field 2, so
// that anchor texts are indexed again without their page's text.
const (
	textField    = 0
	anchorsField = 2
)

// segWriter writes a transaction's documents into segments. A document
// keeps its number while it is in the index: written again, it is
// deleted from the segments that held it and added to new ones.
type segWriter struct {
	t       *txn
	texts   []segDoc // titles and texts waiting for their segment
	anchors []segDoc // anchor texts waiting for theirs
	held    int      // bytes of texts and anchors
	pending map[crawl.ID]bool
	// builders: one for each segment of titles and texts built at once
	// (writeTexts); anch: anchor texts.
	builders []*postings.Builder
	anch     *postings.Builder
	next     uint32 // the next document number (0: not read yet)
	changed  bool
	// building: the titles and texts of the segments being built while
	// the writer goes on (flushAhead); spare: a slice of texts for reuse.
	building *textBuild
	spare    []segDoc
	// indexed, while not nil, holds the keys of the documents writeDocs
	// is writing that the index holds, or the transaction holds for it,
	// and of those written since, so that remove asks the index only for
	// those (know).
	indexed map[crawl.ID]bool
}

// segDoc is a document, or its anchor texts, waiting for a segment.
type segDoc struct {
	doc uint32
	d   foldedDoc
}

// number returns the next document number.
func (w *segWriter) number(ctx context.Context) (uint32, error) {
	if w.next == 0 {
		if err := w.t.queryRow(ctx, `SELECT next_doc FROM index_state`).Scan(&w.next); err != nil {
			return 0, fmt.Errorf("index state: %w", err)
		}
	}
	if w.next == 1<<32-1 {
		return 0, errors.New("the index has numbered 2³² documents")
	}
	w.next++
	return w.next - 1, nil
}

func (w *segWriter) insert(ctx context.Context, d foldedDoc) error {
	doc, found, err := w.remove(ctx, d.key)
	if err != nil {
		return err
	}
	if !found {
		if doc, err = w.number(ctx); err != nil {
			return err
		}
	}
	if w.indexed != nil {
		w.indexed[d.key] = true
	}
	w.texts = append(w.texts, segDoc{doc: doc, d: d})
	if d.anchors != "" {
		w.anchors = append(w.anchors, segDoc{doc: doc, d: foldedDoc{key: d.key, anchors: d.anchors}})
	}
	return w.hold(ctx, d.key, len(d.title)+len(d.body)+len(d.anchors))
}

// setAnchors replaces the anchor texts of the document of key, if it is
// in the index, with anchors (folded).
func (w *segWriter) setAnchors(ctx context.Context, key crawl.ID, anchors string) error {
	if err := w.settle(ctx, key); err != nil {
		return err
	}
	var doc uint32
	var seg int64
	err := w.t.queryRow(ctx, `SELECT doc, anchors FROM index_docs WHERE key = ?`, key).Scan(&doc, &seg)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("full-text index %d: %w", key, err)
	}
	if seg != 0 {
		if err := w.deleted(ctx, key, seg, doc); err != nil {
			return err
		}
		if _, err := w.t.exec(ctx, `UPDATE index_docs SET anchors = 0 WHERE key = ?`, key); err != nil {
			return fmt.Errorf("full-text index %d: %w", key, err)
		}
	}
	if anchors != "" {
		w.anchors = append(w.anchors, segDoc{doc: doc, d: foldedDoc{key: key, anchors: anchors}})
	}
	w.changed = true
	return w.hold(ctx, key, len(anchors))
}

// hold counts what the transaction holds of the document of key; once
// that is segFlushBytes, the titles and texts held are built into
// segments while the writer goes on (flushAhead).
func (w *segWriter) hold(ctx context.Context, key crawl.ID, n int) error {
	if w.pending == nil {
		w.pending = map[crawl.ID]bool{}
	}
	w.pending[key] = true
	w.held += n
	w.changed = true
	if w.held >= segFlushBytes {
		return w.flushAhead(ctx)
	}
	return nil
}

// settle writes the segments the transaction holds when one of them has
// key's document, so that the index's tables say where it is.
func (w *segWriter) settle(ctx context.Context, key crawl.ID) error {
	if w.pending[key] || w.building != nil && w.building.keys[key] {
		return w.flush(ctx)
	}
	return nil
}

// know reads which of keys the index holds, for the inserts of their
// documents that follow, one statement for them all instead of a delete
// each that finds nothing for a document never indexed; forget ends it.
func (w *segWriter) know(ctx context.Context, keys []crawl.ID) error {
	w.indexed = make(map[crawl.ID]bool)
	rows, err := w.t.query(ctx, `SELECT key FROM index_docs WHERE key IN (SELECT value FROM json_each(?))`, jsonIDs(keys))
	if err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key crawl.ID
		if err := rows.Scan(&key); err != nil {
			return fmt.Errorf("full-text index: %w", err)
		}
		w.indexed[key] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("full-text index: %w", err)
	}
	for key := range w.pending {
		w.indexed[key] = true
	}
	if w.building != nil {
		for key := range w.building.keys {
			w.indexed[key] = true
		}
	}
	return nil
}

func (w *segWriter) forget() { w.indexed = nil }

func (w *segWriter) delete(ctx context.Context, key crawl.ID) error {
	_, _, err := w.remove(ctx, key)
	return err
}

// remove takes the document of key out of the index, and returns its
// number if it had one.
func (w *segWriter) remove(ctx context.Context, key crawl.ID) (doc uint32, found bool, err error) {
	if err := w.settle(ctx, key); err != nil {
		return 0, false, err
	}
	if w.indexed != nil && !w.indexed[key] {
		return 0, false, nil
	}
	var text, anchors int64
	err = w.t.queryRow(ctx, `DELETE FROM index_docs WHERE key = ? RETURNING doc, segment, anchors`, key).Scan(&doc, &text, &anchors)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("full-text index %d: %w", key, err)
	}
	for _, seg := range []int64{text, anchors} {
		if seg != 0 {
			if err := w.deleted(ctx, key, seg, doc); err != nil {
				return 0, false, err
			}
		}
	}
	w.changed = true
	return doc, true, nil
}

// deleted records that doc, key's document, no longer counts in seg.
func (w *segWriter) deleted(ctx context.Context, key crawl.ID, seg int64, doc uint32) error {
	if _, err := w.t.exec(ctx, `INSERT INTO index_deleted (segment, doc) VALUES (?, ?)`, seg, doc); err != nil {
		return fmt.Errorf("full-text index %d: %w", key, err)
	}
	return nil
}

// flush writes the documents and anchor texts the transaction holds as
// segments, each in document order, after the batch being built.
func (w *segWriter) flush(ctx context.Context) error {
	if err := w.storeBuild(ctx); err != nil {
		return err
	}
	if len(w.texts) > 0 {
		slices.SortFunc(w.texts, byDoc)
		w.building = w.buildTexts()
		if err := w.storeBuild(ctx); err != nil {
			return err
		}
	}
	if err := w.flushAnchors(ctx); err != nil {
		return err
	}
	clear(w.pending)
	return nil
}

// flushAhead is flush with the titles and texts left building while the
// writer goes on: it stores the batch built before, and starts this one.
// The anchor texts of its documents wait for the next flush, since where
// a document's anchors are is written in its index_docs row, which is
// written when its text is stored.
func (w *segWriter) flushAhead(ctx context.Context) error {
	if err := w.storeBuild(ctx); err != nil {
		return err
	}
	var later []segDoc
	if len(w.texts) > 0 {
		slices.SortFunc(w.texts, byDoc)
		keys := make(map[crawl.ID]bool, len(w.texts))
		for _, s := range w.texts {
			keys[s.d.key] = true
		}
		w.building = w.buildTexts()
		w.building.keys = keys
		now := w.anchors[:0]
		for _, s := range w.anchors {
			if keys[s.d.key] {
				later = append(later, s)
			} else {
				now = append(now, s)
			}
		}
		w.anchors = now
	}
	if err := w.flushAnchors(ctx); err != nil {
		return err
	}
	// What the writer holds now is in the batch being built (settle).
	w.anchors = append(w.anchors, later...)
	for _, s := range later {
		w.held += len(s.d.anchors)
	}
	clear(w.pending)
	return nil
}

func byDoc(a, b segDoc) int { return cmp.Compare(a.doc, b.doc) }

// flushAnchors writes the anchor texts the transaction holds as a
// segment.
func (w *segWriter) flushAnchors(ctx context.Context) error {
	if len(w.anchors) > 0 {
		slices.SortFunc(w.anchors, byDoc)
		if w.anch == nil {
			w.anch = postings.NewBuilder(1)
		}
		for _, s := range w.anchors {
			if !w.anch.Add(s.doc, s.d.anchors) {
				return fmt.Errorf("full-text index %d: document %d twice", s.d.key, s.doc)
			}
		}
		id, err := w.t.writeSegment(ctx, anchorsField, 0, len(w.anchors), nil, w.anch.SegmentTo)
		if err != nil {
			return err
		}
		set, err := w.t.prep(ctx, `UPDATE index_docs SET anchors = ? WHERE key = ?`)
		if err != nil {
			return err
		}
		for _, s := range w.anchors {
			if _, err := set.ExecContext(ctx, id, s.d.key); err != nil {
				return fmt.Errorf("full-text index %d: %w", s.d.key, err)
			}
		}
	}
	// The builders keep their memory for the next segments.
	w.anchors, w.held = w.anchors[:0], 0
	return nil
}

// textBuild is a batch of titles and texts being made into segments:
// one for each core, built at once (the tokenizing is most of the work)
// while the writer goes on, then stored one after the other (storeBuild).
type textBuild struct {
	texts []segDoc          // in document order
	keys  map[crawl.ID]bool // the documents' keys (settle)
	built []builtSegment    // one for each builder
	wg    sync.WaitGroup
}

// builtSegment is a segment a builder made: its front and its postings.
type builtSegment struct {
	front []byte
	post  bytes.Buffer
	err   error
}

// buildTexts starts building the titles and texts the transaction holds
// (texts, in document order) into segments, on the segWriter's builders,
// and takes them from the segWriter.
func (w *segWriter) buildTexts() *textBuild {
	n := min(runtime.GOMAXPROCS(0), max(1, len(w.texts)/segSplitDocs))
	for len(w.builders) < n {
		w.builders = append(w.builders, postings.NewBuilder(2))
	}
	b := &textBuild{texts: w.texts, built: make([]builtSegment, n)}
	w.texts, w.spare = w.spare[:0], nil
	for i := range n {
		part := b.part(i)
		b.wg.Go(func() {
			builder := w.builders[i]
			for _, s := range part {
				if !builder.Add(s.doc, s.d.title, s.d.body) {
					b.built[i].err = fmt.Errorf("full-text index %d: document %d twice", s.d.key, s.doc)
					return
				}
			}
			b.built[i].front, b.built[i].err = builder.SegmentTo(&b.built[i].post)
		})
	}
	return b
}

// part returns the documents of the batch's i-th segment.
func (b *textBuild) part(i int) []segDoc {
	n := len(b.built)
	return b.texts[i*len(b.texts)/n : (i+1)*len(b.texts)/n]
}

// storeBuild waits for the batch being built, if there is one, and stores
// its segments and where its documents are.
func (w *segWriter) storeBuild(ctx context.Context) error {
	b := w.building
	if b == nil {
		return nil
	}
	w.building = nil
	b.wg.Wait()
	ins, err := w.t.prep(ctx, `INSERT INTO index_docs (key, doc, segment) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	for i := range b.built {
		if b.built[i].err != nil {
			return b.built[i].err
		}
		part := b.part(i)
		var attrs []byte
		for _, s := range part {
			a, err := w.attrsOf(s.d)
			if err != nil {
				return err
			}
			attrs = a.append(attrs)
		}
		id, err := w.t.writeSegment(ctx, textField, 0, len(part), attrs, func(post io.Writer) ([]byte, error) {
			_, err := post.Write(b.built[i].post.Bytes())
			return b.built[i].front, err
		})
		if err != nil {
			return err
		}
		for _, s := range part {
			if _, err := ins.ExecContext(ctx, s.d.key, s.doc, id); err != nil {
				return fmt.Errorf("full-text index %d: %w", s.d.key, err)
			}
		}
	}
	clear(b.texts) // the texts, for the collector
	w.spare = b.texts
	return nil
}

// attrsOf returns the attributes of d's page (docAttrs), which every
// document written whole comes with.
func (w *segWriter) attrsOf(d foldedDoc) (docAttrs, error) {
	if d.attrs == nil {
		return docAttrs{}, fmt.Errorf("full-text index %d: a document without its page's attributes", d.key)
	}
	a := *d.attrs
	a.key = d.key
	return a, nil
}

// pageAttrs are the attributes of a page as its row in pages has them
// (pageArgs).
func pageAttrs(p *crawl.Page) *docAttrs {
	a := &docAttrs{host: crawl.HostKey(p.URL), lang: p.Lang}
	if p.Meta != nil {
		a.typ, a.year = p.Meta.Type, p.Meta.Year
	}
	return a
}

// finish writes what is left of the transaction's documents, merges the
// segments a level has too many of, and moves the index's generation on.
func (w *segWriter) finish(ctx context.Context) error {
	if !w.changed {
		return nil
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	if err := w.t.mergeSegments(ctx); err != nil {
		return err
	}
	if _, err := w.t.exec(ctx, `UPDATE index_state SET gen = gen + 1, next_doc = max(next_doc, ?)`, w.next); err != nil {
		return fmt.Errorf("index state: %w", err)
	}
	return nil
}

// writeSegment stores a segment and its documents' attributes, and
// returns its ID. build makes the segment: it writes the segment's
// postings (its last region and most of it) to the writer it is given as
// they are made, stored a block at a time as index_blocks rows 0, 1, …,
// and returns the rest, its front, stored after them as rows -1, -2, …:
// a segment is never held whole in memory.
func (t *txn) writeSegment(ctx context.Context, field, level, docs int, attrs []byte, build func(post io.Writer) ([]byte, error)) (int64, error) {
	var id int64
	if attrs == nil {
		attrs = []byte{}
	}
	if err := t.queryRow(ctx, `INSERT INTO index_segments (field, level, docs, size, front, attrs) VALUES (?, ?, ?, 0, 0, ?) RETURNING id`,
		field, level, docs, attrs).Scan(&id); err != nil {
		return 0, fmt.Errorf("segment: %w", err)
	}
	ins, err := t.prep(ctx, `INSERT INTO index_blocks (id, data) VALUES (?, ?)`)
	if err != nil {
		return 0, err
	}
	post := &blockWriter{ctx: ctx, ins: ins, seg: id}
	front, err := build(post)
	if err == nil {
		err = post.flush()
	}
	if len(front) > blockHalf*segBlock {
		err = errors.New("a segment's front of more than 2²³ blocks")
	}
	for i := 0; err == nil && i*segBlock < len(front); i++ {
		_, err = ins.ExecContext(ctx, blockRow(id, int64(-1-i)), front[i*segBlock:min(len(front), (i+1)*segBlock)])
	}
	if err == nil {
		_, err = t.exec(ctx, `UPDATE index_segments SET size = ?, front = ? WHERE id = ?`, len(front)+post.size, len(front), id)
	}
	if err != nil {
		return 0, fmt.Errorf("segment %d: %w", id, err)
	}
	return id, nil
}

// blockWriter stores a segment's postings as they come, a block a row.
type blockWriter struct {
	ctx  context.Context
	ins  *sql.Stmt
	seg  int64
	n    int    // the next block's number
	buf  []byte // less than a block
	size int    // bytes written
}

func (w *blockWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.size += n
	for len(p) > 0 {
		k := min(len(p), segBlock-len(w.buf))
		w.buf, p = append(w.buf, p[:k]...), p[k:]
		if len(w.buf) == segBlock {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// flush stores what the writer holds as a block.
func (w *blockWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if w.n == blockHalf {
		return errors.New("a segment of more than 2²³ blocks")
	}
	if _, err := w.ins.ExecContext(w.ctx, blockRow(w.seg, int64(w.n)), w.buf); err != nil {
		return err
	}
	w.n++
	w.buf = w.buf[:0]
	return nil
}

// mergeSegments merges the segments of each field and level that has
// segMergeFactor of them, the smallest first, up to segMergeMax bytes,
// into one of the next level, and retires them: their blocks stay
// segRetired for the searches reading them, and go at a later merge.
func (t *txn) mergeSegments(ctx context.Context) error {
	for _, field := range []int{textField, anchorsField} {
		for level := 0; ; level++ {
			var top int
			if err := t.queryRow(ctx, `SELECT coalesce(max(level), -1) FROM index_segments WHERE retired = 0 AND field = ?`, field).Scan(&top); err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			if level > top {
				break
			}
			in, err := t.mergeInputs(ctx, field, level)
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			if len(in) == segMergeFactor {
				if err := t.merge(ctx, field, level+1, in); err != nil {
					return fmt.Errorf("merge: %w", err)
				}
			}
		}
	}
	return t.dropRetired(ctx, time.Now().Add(-segRetired))
}

// dropRetired deletes the segments retired before a time, and their
// blocks.
func (t *txn) dropRetired(ctx context.Context, before time.Time) error {
	rows, err := t.tx.QueryContext(ctx, `DELETE FROM index_segments WHERE retired BETWEEN 1 AND ? RETURNING id`, before.UnixMilli())
	if err != nil {
		return fmt.Errorf("retired segments: %w", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("retired segments: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("retired segments: %w", err)
	}
	for _, id := range ids {
		if _, err := t.exec(ctx, `DELETE FROM index_blocks WHERE id BETWEEN ? AND ?`, blockRow(id, -blockHalf), blockRow(id, blockHalf-1)); err != nil {
			return fmt.Errorf("retired segment %d: %w", id, err)
		}
	}
	return nil
}

// blockHalf bounds a segment's block numbers: from -blockHalf to
// blockHalf-1, 32 GB of postings.
const blockHalf = 1 << 23

// blockRow is the row ID of block n of segment seg in index_blocks.
func blockRow(seg, n int64) int64 { return seg<<24 | (n + blockHalf) }

// mergeInput is a segment a merge takes.
type mergeInput struct {
	id, size, front int64
	attrs           []byte
}

// mergeInputs returns the smallest segments of a field and level, up to
// segMergeFactor of them and segMergeMax bytes.
func (t *txn) mergeInputs(ctx context.Context, field, level int) ([]mergeInput, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT id, size, front, attrs FROM index_segments
		WHERE retired = 0 AND field = ? AND level = ? ORDER BY size, id LIMIT ?`, field, level, segMergeFactor)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var in []mergeInput
	total := int64(0)
	for rows.Next() {
		var m mergeInput
		if err := rows.Scan(&m.id, &m.size, &m.front, &m.attrs); err != nil {
			return nil, err
		}
		if total += m.size; total > segMergeMax {
			break
		}
		in = append(in, m)
	}
	return in, rows.Err()
}

// merge writes the segments in as one of the given field and level,
// without their deleted documents, and retires them.
func (t *txn) merge(ctx context.Context, field, level int, in []mergeInput) error {
	parts := make([]postings.Part, len(in))
	var live []docAttrs
	// The merge reads each input's blocks in order, a few words at a
	// time: a block read is kept until the merge has moved past it.
	cache := newBlockCache(len(in) * 4 * segBlock)
	docs := 0
	for i, m := range in {
		seg, err := postings.OpenAt(blockReader{ctx: ctx, seg: m.id, front: m.front, q: t.tx, cache: cache}, m.size)
		if err != nil {
			return fmt.Errorf("segment %d: %w", m.id, err)
		}
		del, err := t.deletedIn(ctx, m.id)
		if err != nil {
			return fmt.Errorf("segment %d: %w", m.id, err)
		}
		parts[i] = postings.Part{Seg: seg}
		if len(del) > 0 {
			parts[i].Deleted = func(d uint32) bool { return del[d] }
		}
		docs += seg.Docs() - len(del)
		if field != textField {
			continue
		}
		as, err := decodeAttrs(m.attrs, seg.Docs())
		if err != nil {
			return fmt.Errorf("segment %d: %w", m.id, err)
		}
		for j, a := range as {
			if !del[seg.Doc(j)] {
				a.doc = seg.Doc(j)
				live = append(live, a)
			}
		}
	}
	slices.SortFunc(live, func(a, b docAttrs) int { return cmp.Compare(a.doc, b.doc) })
	var attrs []byte
	for _, a := range live {
		attrs = a.append(attrs)
	}
	id, err := t.writeSegment(ctx, field, level, docs, attrs, func(post io.Writer) ([]byte, error) {
		return postings.MergeTo(parts, post)
	})
	if err != nil {
		return err
	}
	moved := `UPDATE index_docs SET segment = ?1 WHERE segment = ?2`
	if field == anchorsField {
		moved = `UPDATE index_docs SET anchors = ?1 WHERE anchors = ?2 AND anchors <> 0`
	}
	now := time.Now().UnixMilli()
	for _, old := range in {
		for _, q := range []string{
			moved,
			`DELETE FROM index_deleted WHERE segment = ?2`,
			`UPDATE index_segments SET retired = ?3 WHERE id = ?2`,
		} {
			if _, err := t.exec(ctx, q, id, old.id, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// deletedIn returns the documents deleted from a segment.
func (t *txn) deletedIn(ctx context.Context, seg int64) (map[uint32]bool, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT doc FROM index_deleted WHERE segment = ?`, seg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	del := map[uint32]bool{}
	for rows.Next() {
		var d uint32
		if err := rows.Scan(&d); err != nil {
			return nil, err
		}
		del[d] = true
	}
	return del, rows.Err()
}

// blockReader reads a segment from its rows of index_blocks (see
// writeSegment).
type blockReader struct {
	ctx   context.Context
	seg   int64
	front int64 // the length of what comes before the postings
	q     queryer
	cache *blockCache // nil: none
}

// queryer is what blockReader reads through: a transaction or the
// readers' pool.
type queryer interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func (r blockReader) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		at := off + int64(n)
		block, in := -1-at/segBlock, at%segBlock // in the front
		if at >= r.front {
			block, in = (at-r.front)/segBlock, (at-r.front)%segBlock
		}
		b, err := r.block(block)
		if err != nil {
			return n, err
		}
		if in >= int64(len(b)) {
			return n, io.EOF
		}
		n += copy(p[n:], b[in:])
	}
	return n, nil
}

// block returns the n-th block of the segment.
func (r blockReader) block(n int64) ([]byte, error) {
	if b, ok := r.cache.get(r.seg, n); ok {
		return b, nil
	}
	var b []byte
	err := r.q.QueryRowContext(r.ctx, `SELECT data FROM index_blocks WHERE id = ?`, blockRow(r.seg, n)).Scan(&b)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, io.EOF
	case err != nil:
		return nil, fmt.Errorf("segment %d block %d: %w", r.seg, n, err)
	}
	r.cache.put(r.seg, n, b)
	return b, nil
}

// docAttrs is what search filters and counts by of a document: its
// full-text key and its page's host, type, language and year. A
// segment's attrs are these of each of its documents, in its order:
// the key (8 bytes, little-endian), the year (a signed varint) and the
// three texts, each its length (a varint) and bytes.
type docAttrs struct {
	doc             uint32 // while merging
	key             crawl.ID
	host, typ, lang string
	year            int
}

func (a docAttrs) append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(a.key))
	b = binary.AppendVarint(b, int64(a.year))
	for _, s := range []string{a.host, a.typ, a.lang} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// decodeAttrs reads n documents' attributes.
func decodeAttrs(b []byte, n int) ([]docAttrs, error) {
	out := make([]docAttrs, 0, n)
	bad := errors.New("damaged document attributes")
	for range n {
		if len(b) < 8 {
			return nil, bad
		}
		a := docAttrs{key: crawl.ID(binary.LittleEndian.Uint64(b))}
		b = b[8:]
		y, k := binary.Varint(b)
		if k <= 0 {
			return nil, bad
		}
		a.year, b = int(y), b[k:]
		for _, s := range []*string{&a.host, &a.typ, &a.lang} {
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return nil, bad
			}
			*s, b = string(b[k:k+int(l)]), b[k+int(l):]
		}
		out = append(out, a)
	}
	if len(b) != 0 {
		return nil, bad
	}
	return out, nil
}

// blockCache keeps the blocks of segments searches read last, up to a
// number of bytes. A nil cache keeps nothing.
type blockCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // of *cached, the last used first
	at    map[blockID]*list.Element
}

type blockID struct{ seg, n int64 }

type cached struct {
	id   blockID
	data []byte
}

func newBlockCache(max int) *blockCache {
	return &blockCache{max: max, order: list.New(), at: map[blockID]*list.Element{}}
}

func (c *blockCache) get(seg, n int64) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.at[blockID{seg, n}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).data, true
}

func (c *blockCache) put(seg, n int64, data []byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id := blockID{seg, n}
	if _, ok := c.at[id]; ok {
		return
	}
	c.at[id] = c.order.PushFront(&cached{id: id, data: data})
	c.size += len(data)
	for c.size > c.max && c.order.Len() > 1 {
		e := c.order.Back()
		old := e.Value.(*cached)
		c.order.Remove(e)
		delete(c.at, old.id)
		c.size -= len(old.data)
	}
}

// chooseEngine sets the store's engine: the database's, or the one opts
// asks for (EngineSegments when it asks for none, for a database that
// has no page yet). A database of pages asked for another engine gets it
// with its index rebuilt, at this open (a maintenance task).
func (db *DB) chooseEngine(ctx context.Context, opts Options) error {
	if err := db.r.QueryRowContext(ctx, `SELECT engine FROM index_state`).Scan(&db.engine); err != nil {
		return fmt.Errorf("sqlite: open %s: index engine: %w", db.path, err)
	}
	want := cmp.Or(opts.Engine, EngineSegments)
	switch want {
	case db.engine:
		return nil
	case EngineFTS5, EngineSegments:
	default:
		return fmt.Errorf("sqlite: open %s: unknown index engine %q", db.path, opts.Engine)
	}
	if opts.ReadOnly {
		if opts.Engine == "" {
			return nil
		}
		return fmt.Errorf("sqlite: open %s: the index's engine is %s, not %s", db.path, db.engine, opts.Engine)
	}
	var pages int
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM pages LIMIT 1)`).Scan(&pages); err != nil {
		return fmt.Errorf("sqlite: open %s: index engine: %w", db.path, err)
	}
	if pages > 0 && opts.Engine == "" {
		return nil
	}
	q := `UPDATE index_state SET engine = ?`
	if pages > 0 {
		db.log.Info("changing the search index's engine; the index is rebuilt", "db", db.path, "from", db.engine, "to", want)
		q += `; INSERT OR IGNORE INTO maintenance (task) VALUES ('reindex')`
	}
	if _, err := db.w.ExecContext(ctx, q, want); err != nil {
		return fmt.Errorf("sqlite: open %s: index engine: %w", db.path, err)
	}
	db.engine = want
	return nil
}
