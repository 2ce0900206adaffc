// Package postings builds, reads, merges and searches segments of an
// inverted index: for each word of a set of documents, the documents that
// hold it and where, by field: an index a store can build as it commits
// pages and read in pieces (docs/design/own-index.md).
//
// The package is a pure leaf: it takes folded text (query.Fold) and bytes,
// and returns bytes and values; it does no I/O of its own (a segment is
// read through the io.ReaderAt its caller gives) and keeps no global
// state.
// Words are query.Lexemes of the folded text, the rule both embedded stores
// and query.Parse split text by. Every reader is linear in its input and
// refuses malformed bytes with an error (ErrCorrupt), never a panic.
//
// A segment holds documents numbered by the caller (uint32, increasing in
// the order they are added) with up to MaxFields fields each. It is read
// in pieces (OpenAt): the header, the document table and the restart
// index at open, a block of the dictionary for each word looked up, and a
// word's postings a block at a time. Its layout:
//
//	"ACPS" version(2)
//	uvarint fields, uvarint docs
//	docs × (doc uint32 LE, fields × word count uint32 LE)
//	uvarint terms
//	uvarint restart index length, restart index
//	uvarint dictionary length, dictionary
//	postings
//
// The dictionary holds the terms in increasing order: each one's uvarint
// prefix shared with the term before, uvarint suffix length, suffix,
// uvarint documents and uvarint postings length; its postings follow the
// term before's. Every restartEvery-th term shares nothing, and the
// restart index holds it: uvarint length, the term, and the uvarint
// offsets of its dictionary entry and postings, each less the previous
// restart's. A term's postings are blocks of at most blockDocs documents,
// so that a search can skip ahead without decoding:
//
//	uvarint blocks, blocks × (uvarint last doc − the block before's, uvarint length)
//	each block: its documents × (uvarint doc − the one before, uvarint length of
//	            its occurrences, its occurrences)
//
// A document's occurrences of the term are each occurrence's key
// (field<<fieldShift | position in the field) as a uvarint delta from the
// one before (the first from 0), in increasing order, as many as fill the
// length before them.
package postings

import (
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/acrawler/acrawler/internal/query"
)

const (
	magic        = "ACPS"
	version      = 2
	restartEvery = 32
	blockDocs    = 128
	fieldShift   = 24

	// MaxFields is the number of fields a document may have.
	MaxFields = 8
	// MaxTokens is the number of words of a field that are indexed; the
	// rest are left out, and do not count in the field's length.
	MaxTokens = 1<<fieldShift - 1
)

// ErrCorrupt is the error of bytes that are not a segment this package
// wrote.
var ErrCorrupt = errors.New("postings: malformed segment")

// A Builder gathers documents and writes them as a segment. Add looks
// each word up once in the segment's table and appends the occurrence to
// one list of all of them; Segment sorts that list by word (a counting
// sort, which keeps each word's occurrences in the order they came) and
// writes it out. The zero value is not usable; call NewBuilder.
type Builder struct {
	fields int
	docs   []uint32
	lens   []uint32 // fields a document, in the order of docs
	ids    map[string]int32
	words  []string
	// Each occurrence: its word, and its document's place in docs (high
	// half) and its key (low half).
	occWord []int32
	occ     []uint64
	// Scratch for Segment.
	sorted []uint64
	starts []int32
	enc    []byte
}

// NewBuilder returns a Builder of documents with the given number of
// fields (1 to MaxFields).
func NewBuilder(fields int) *Builder {
	if fields < 1 || fields > MaxFields {
		panic("postings: fields out of range")
	}
	return &Builder{fields: fields, ids: map[string]int32{}}
}

// Len returns the number of documents added.
func (b *Builder) Len() int { return len(b.docs) }

// Words returns the number of words indexed in the documents added, what
// the Builder's memory follows (12 bytes each, 20 while Segment runs).
func (b *Builder) Words() int { return len(b.occ) }

// Add adds document doc, whose fields are folded texts (query.Fold), one
// for each of the Builder's fields (missing ones are empty; more are
// refused). Its words are query.Lexemes of each field; at most MaxTokens
// of a field are indexed. Documents are added in increasing order of doc;
// Add reports false, and adds nothing, for one that is not above the last.
func (b *Builder) Add(doc uint32, fields ...string) bool {
	if len(b.docs) > 0 && doc <= b.docs[len(b.docs)-1] || len(fields) > b.fields {
		return false
	}
	at := uint64(len(b.docs)) << 32
	b.docs = append(b.docs, doc)
	for f := range b.fields {
		n := uint32(0)
		if f < len(fields) {
			for w := range query.Lexemes(fields[f]) {
				if n == MaxTokens {
					break
				}
				id, ok := b.ids[w]
				if !ok {
					id = int32(len(b.words))
					w = strings.Clone(w) // not a slice of the caller's text
					b.ids[w] = id
					b.words = append(b.words, w)
				}
				b.occWord = append(b.occWord, id)
				b.occ = append(b.occ, at|uint64(uint32(f)<<fieldShift|n))
				n++
			}
		}
		b.lens = append(b.lens, n)
	}
	return true
}

// Segment writes the documents added as a segment and empties the Builder.
func (b *Builder) Segment() []byte {
	out, _ := b.SegmentTo(nil)
	return out
}

// SegmentTo is Segment with the segment's postings, its last region and
// most of it, written to post as they are made (nil: kept with the
// rest): the segment is the bytes returned followed by those written. It
// returns post's error.
func (b *Builder) SegmentTo(post io.Writer) ([]byte, error) {
	// Each word's occurrences together, in the order they were added.
	b.starts = slices.Grow(b.starts[:0], len(b.words)+1)[:len(b.words)+1]
	clear(b.starts)
	for _, id := range b.occWord {
		b.starts[id+1]++
	}
	for i := 1; i < len(b.starts); i++ {
		b.starts[i] += b.starts[i-1]
	}
	b.sorted = slices.Grow(b.sorted[:0], len(b.occ))[:len(b.occ)]
	next := slices.Clone(b.starts[:len(b.words)])
	for i, id := range b.occWord {
		b.sorted[next[id]] = b.occ[i]
		next[id]++
	}
	order := make([]int32, len(b.words))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(b.words[x], b.words[y]) })
	w := newSegmentWriter(b.fields, b.docs, b.lens)
	w.sink = post
	for _, id := range order {
		occ := b.sorted[b.starts[id]:b.starts[id+1]]
		w.term(b.words[id], func(yield func(uint32, []byte) bool) {
			for len(occ) > 0 {
				at := occ[0] >> 32
				b.enc = b.enc[:0]
				prev := uint32(0)
				for len(occ) > 0 && occ[0]>>32 == at {
					key := uint32(occ[0])
					b.enc = binary.AppendUvarint(b.enc, uint64(key-prev))
					prev = key
					occ = occ[1:]
				}
				if !yield(b.docs[at], b.enc) {
					return
				}
			}
		})
	}
	out, err := w.bytes()
	b.docs, b.lens, b.words, b.occWord, b.occ = b.docs[:0], b.lens[:0], b.words[:0], b.occWord[:0], b.occ[:0]
	clear(b.ids)
	return out, err
}

// segmentWriter writes a segment: its header and document table, then
// each term in increasing order into the dictionary, the restart index
// and the postings, which bytes puts together. With a sink, the postings
// go to it a piece at a time.
type segmentWriter struct {
	head     []byte // up to the document table
	restarts []byte
	dict     []byte
	post     []byte    // the postings not yet written to sink
	sink     io.Writer // nil: the postings stay in post
	sent     int       // bytes of postings written to sink
	err      error     // sink's

	prev     string
	n        int
	lastDict int // the dictionary and postings offsets of the last restart
	lastPost int
	blocks   []byte // scratch: a term's block headers
	body     []byte // scratch: a term's blocks
}

func newSegmentWriter(fields int, docs, lens []uint32) *segmentWriter {
	w := &segmentWriter{}
	w.head = make([]byte, 0, 32+len(docs)*(4+4*fields))
	w.head = append(w.head, magic...)
	w.head = append(w.head, version)
	w.head = binary.AppendUvarint(w.head, uint64(fields))
	w.head = binary.AppendUvarint(w.head, uint64(len(docs)))
	for i, d := range docs {
		w.head = binary.LittleEndian.AppendUint32(w.head, d)
		for _, l := range lens[i*fields : (i+1)*fields] {
			w.head = binary.LittleEndian.AppendUint32(w.head, l)
		}
	}
	return w
}

// term writes a term and its postings: each document, increasing, with
// its encoded occurrences. A term of no documents is left out.
func (w *segmentWriter) term(word string, postings iter.Seq2[uint32, []byte]) {
	w.blocks, w.body = w.blocks[:0], w.body[:0]
	count, nblocks, inBlock, blockStart := 0, 0, 0, 0
	var prevDoc, prevLast uint32
	flush := func() {
		w.blocks = binary.AppendUvarint(w.blocks, uint64(prevDoc-prevLast))
		w.blocks = binary.AppendUvarint(w.blocks, uint64(len(w.body)-blockStart))
		blockStart = len(w.body)
		prevLast = prevDoc
		nblocks++
		inBlock = 0
	}
	for d, occ := range postings {
		w.body = binary.AppendUvarint(w.body, uint64(d-prevDoc))
		w.body = binary.AppendUvarint(w.body, uint64(len(occ)))
		w.body = append(w.body, occ...)
		prevDoc = d
		count++
		inBlock++
		if inBlock == blockDocs {
			flush()
		}
	}
	if inBlock > 0 {
		flush()
	}
	if count == 0 {
		return
	}
	var head [binary.MaxVarintLen64]byte
	h := binary.PutUvarint(head[:], uint64(nblocks))
	w.entry(word, count, head[:h], w.blocks, w.body)
}

// entry writes a term of count documents whose postings are the pieces
// given, one after the other.
func (w *segmentWriter) entry(word string, count int, pieces ...[]byte) {
	shared := 0
	if w.n%restartEvery == 0 {
		w.restarts = binary.AppendUvarint(w.restarts, uint64(len(word)))
		w.restarts = append(w.restarts, word...)
		w.restarts = binary.AppendUvarint(w.restarts, uint64(len(w.dict)-w.lastDict))
		w.restarts = binary.AppendUvarint(w.restarts, uint64(w.postLen()-w.lastPost))
		w.lastDict, w.lastPost = len(w.dict), w.postLen()
	} else {
		for shared < len(word) && shared < len(w.prev) && word[shared] == w.prev[shared] {
			shared++
		}
	}
	start := w.postLen()
	for _, p := range pieces {
		w.post = append(w.post, p...)
	}
	w.dict = binary.AppendUvarint(w.dict, uint64(shared))
	w.dict = binary.AppendUvarint(w.dict, uint64(len(word)-shared))
	w.dict = append(w.dict, word[shared:]...)
	w.dict = binary.AppendUvarint(w.dict, uint64(count))
	w.dict = binary.AppendUvarint(w.dict, uint64(w.postLen()-start))
	w.prev = word
	w.n++
	if w.sink != nil && len(w.post) >= sinkPiece {
		w.send()
	}
}

// sinkPiece is how many bytes of postings a segmentWriter gathers before
// it writes them to its sink.
const sinkPiece = 64 << 10

// postLen returns the length of the postings so far.
func (w *segmentWriter) postLen() int { return w.sent + len(w.post) }

// send writes the postings gathered to the sink.
func (w *segmentWriter) send() {
	if w.err == nil && len(w.post) > 0 {
		_, w.err = w.sink.Write(w.post)
	}
	w.sent += len(w.post)
	w.post = w.post[:0]
}

// bytes returns the segment: all of it, or with a sink, what comes before
// the postings, the sink having had the rest.
func (w *segmentWriter) bytes() ([]byte, error) {
	if w.sink != nil {
		w.send()
	}
	out := make([]byte, 0, len(w.head)+3*binary.MaxVarintLen64+len(w.restarts)+len(w.dict)+len(w.post))
	out = append(out, w.head...)
	out = binary.AppendUvarint(out, uint64(w.n))
	out = binary.AppendUvarint(out, uint64(len(w.restarts)))
	out = append(out, w.restarts...)
	out = binary.AppendUvarint(out, uint64(len(w.dict)))
	out = append(out, w.dict...)
	return append(out, w.post...), w.err
}
