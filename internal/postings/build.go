// Package postings builds, reads, merges and searches segments of an
// inverted index: for each word of a set of documents, the documents that
// hold it and where, by field. It is the embedded index's format, written
// so that the crawler's workers can tokenize pages as they are fetched and
// the store only appends bytes (docs/design/own-index.md).
//
// The package is a pure leaf: it takes folded text (query.Fold) and bytes,
// and returns bytes and values; it does no I/O and keeps no global state.
// Words are query.Lexemes of the folded text, the rule both embedded stores
// and query.Parse split text by. Every reader is linear in its input and
// refuses malformed bytes with an error (ErrCorrupt), never a panic.
//
// A segment holds documents numbered by the caller (uint32, increasing in
// the order they are added) with up to MaxFields fields each. Its layout:
//
//	"ACPS" version(1)
//	uvarint fields, uvarint docs
//	docs × (doc uint32 LE, fields × token count uint32 LE)
//	uvarint terms
//	terms × (uvarint shared prefix, uvarint suffix length, suffix,
//	         uvarint documents, uvarint postings length, postings)
//
// A term's text shares its first bytes with the term before, except every
// restartEvery terms, where it is whole. Its postings are blocks of at most
// blockDocs documents, so that a search can skip ahead without decoding:
//
//	uvarint blocks, blocks × (uvarint last doc − the block before's, uvarint length)
//	each block: its documents × (uvarint doc − the one before, uvarint length of
//	            its occurrences), then those occurrences, one run a document
//
// A document's occurrences of the term are uvarint count, then each
// occurrence's key (field<<fieldShift | position in the field) as a
// uvarint delta from the one before, in increasing order.
package postings

import (
	"encoding/binary"
	"errors"
	"iter"
	"slices"
	"strings"

	"github.com/acrawler/acrawler/internal/query"
)

const (
	magic        = "ACPS"
	version      = 1
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

// A Doc is a document's distinct words and their occurrences, the part
// of indexing that needs no segment: a crawl's workers prepare their pages'
// Docs (Preparer), and the one writer adds them to a Builder.
type Doc struct {
	lens    []uint32 // words in each field
	words   string   // the distinct words, one after the other
	ends    []uint32 // where word i ends in words
	occ     []byte   // each word's occurrences (appendOccurrences)
	occEnds []uint32 // where word i's end in occ
}

// Size returns about how many bytes the Doc holds.
func (d *Doc) Size() int { return len(d.words) + len(d.occ) + 8*len(d.ends) + 4*len(d.lens) }

// A Preparer makes Docs, reusing its memory from one to the next. It is
// not safe for concurrent use; each worker holds its own.
type Preparer struct {
	slot  map[string]int32 // a word of the document being prepared: its place in keys
	keys  [][]uint32
	words []string
}

// Prepare returns the Doc of a document whose fields are folded texts
// (query.Fold), at most MaxFields. Its words are query.Lexemes of each
// field; at most MaxTokens of a field are indexed.
func (p *Preparer) Prepare(fields ...string) Doc {
	if len(fields) > MaxFields {
		fields = fields[:MaxFields]
	}
	if p.slot == nil {
		p.slot = map[string]int32{}
	}
	clear(p.slot)
	p.words = p.words[:0]
	d := Doc{lens: make([]uint32, len(fields))}
	for f, text := range fields {
		n := uint32(0)
		for w := range query.Lexemes(text) {
			if n == MaxTokens {
				break
			}
			i, ok := p.slot[w]
			if !ok {
				i = int32(len(p.words))
				p.slot[w] = i
				p.words = append(p.words, w)
				if int(i) == len(p.keys) {
					p.keys = append(p.keys, nil)
				}
				p.keys[i] = p.keys[i][:0]
			}
			p.keys[i] = append(p.keys[i], uint32(f)<<fieldShift|n)
			n++
		}
		d.lens[f] = n
	}
	size, occ := 0, 0
	for i, w := range p.words {
		size += len(w)
		occ += binary.MaxVarintLen32 * (1 + len(p.keys[i]))
	}
	words := make([]byte, 0, size)
	ends := make([]uint32, 2*len(p.words))
	d.ends, d.occEnds = ends[:len(p.words)], ends[len(p.words):]
	d.occ = make([]byte, 0, occ)
	for i, w := range p.words {
		words = append(words, w...)
		d.occ = appendOccurrences(d.occ, p.keys[i])
		d.ends[i], d.occEnds[i] = uint32(len(words)), uint32(len(d.occ))
	}
	d.words = string(words)
	return d
}

// A Builder gathers documents and writes them as a segment. The zero value
// is not usable; call NewBuilder.
type Builder struct {
	fields int
	docs   []uint32
	lens   []uint32 // fields a document, in the order of docs
	ids    map[string]int32
	terms  []termPostings
	prep   Preparer
}

// termPostings is a term's documents so far, and where each one's
// occurrences end in occ.
type termPostings struct {
	docs []uint32
	ends []uint32
	occ  []byte
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

// Add adds document doc, whose fields are folded texts (query.Fold), one
// for each of the Builder's fields (missing ones are empty), as AddDoc
// adds its prepared Doc.
func (b *Builder) Add(doc uint32, fields ...string) bool {
	if len(fields) > b.fields {
		fields = fields[:b.fields]
	}
	return b.AddDoc(doc, b.prep.Prepare(fields...))
}

// AddDoc adds document doc. Documents are added in increasing order of
// doc; AddDoc reports false, and adds nothing, for one that is not above
// the last, or one of more fields than the Builder's.
func (b *Builder) AddDoc(doc uint32, d Doc) bool {
	if len(b.docs) > 0 && doc <= b.docs[len(b.docs)-1] || len(d.lens) > b.fields {
		return false
	}
	b.docs = append(b.docs, doc)
	b.lens = append(b.lens, d.lens...)
	for range b.fields - len(d.lens) {
		b.lens = append(b.lens, 0)
	}
	start, ostart := uint32(0), uint32(0)
	for i, end := range d.ends {
		w, occ := d.words[start:end], d.occ[ostart:d.occEnds[i]]
		start, ostart = end, d.occEnds[i]
		id, ok := b.ids[w]
		if !ok {
			id = int32(len(b.terms))
			b.ids[strings.Clone(w)] = id
			b.terms = append(b.terms, termPostings{})
		}
		tp := &b.terms[id]
		tp.docs = append(tp.docs, doc)
		tp.occ = append(tp.occ, occ...)
		tp.ends = append(tp.ends, uint32(len(tp.occ)))
	}
	return true
}

// appendOccurrences writes one document's occurrence keys, increasing.
func appendOccurrences(dst []byte, keys []uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(keys)))
	prev := uint32(0)
	for _, k := range keys {
		dst = binary.AppendUvarint(dst, uint64(k-prev))
		prev = k
	}
	return dst
}

// Segment writes the documents added as a segment and empties the Builder.
func (b *Builder) Segment() []byte {
	words := make([]string, 0, len(b.ids))
	for w := range b.ids {
		words = append(words, w)
	}
	slices.Sort(words)
	w := newSegmentWriter(b.fields, b.docs, b.lens)
	for _, word := range words {
		tp := &b.terms[b.ids[word]]
		w.term(word, func(yield func(uint32, []byte) bool) {
			start := uint32(0)
			for i, d := range tp.docs {
				if !yield(d, tp.occ[start:tp.ends[i]]) {
					return
				}
				start = tp.ends[i]
			}
		})
	}
	out := w.bytes()
	b.docs, b.lens, b.terms = b.docs[:0], b.lens[:0], b.terms[:0]
	clear(b.ids)
	return out
}

// segmentWriter writes a segment: the header and document table first,
// then each term in increasing order.
type segmentWriter struct {
	head    []byte // up to the document table
	out     []byte // the terms
	prev    string
	n       int
	blocks  []byte // scratch: a term's block headers
	body    []byte // scratch: a term's blocks
	docPart []byte // scratch: the current block's document entries
	occPart []byte // scratch: the current block's occurrences
}

func newSegmentWriter(fields int, docs, lens []uint32) *segmentWriter {
	w := &segmentWriter{}
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
	count, nblocks, inBlock := 0, 0, 0
	var prevDoc, prevLast uint32
	flush := func() {
		w.blocks = binary.AppendUvarint(w.blocks, uint64(prevDoc-prevLast))
		w.blocks = binary.AppendUvarint(w.blocks, uint64(len(w.docPart)+len(w.occPart)))
		w.body = append(append(w.body, w.docPart...), w.occPart...)
		w.docPart, w.occPart = w.docPart[:0], w.occPart[:0]
		prevLast = prevDoc
		nblocks++
		inBlock = 0
	}
	for d, occ := range postings {
		w.docPart = binary.AppendUvarint(w.docPart, uint64(d-prevDoc))
		w.docPart = binary.AppendUvarint(w.docPart, uint64(len(occ)))
		w.occPart = append(w.occPart, occ...)
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
	shared := 0
	if w.n%restartEvery != 0 {
		for shared < len(word) && shared < len(w.prev) && word[shared] == w.prev[shared] {
			shared++
		}
	}
	w.out = binary.AppendUvarint(w.out, uint64(shared))
	w.out = binary.AppendUvarint(w.out, uint64(len(word)-shared))
	w.out = append(w.out, word[shared:]...)
	w.out = binary.AppendUvarint(w.out, uint64(count))
	w.prev = word
	w.n++
	head := binary.AppendUvarint(nil, uint64(nblocks))
	w.out = binary.AppendUvarint(w.out, uint64(len(head)+len(w.blocks)+len(w.body)))
	w.out = append(append(append(w.out, head...), w.blocks...), w.body...)
}

// bytes returns the segment.
func (w *segmentWriter) bytes() []byte {
	out := make([]byte, 0, len(w.head)+binary.MaxVarintLen64+len(w.out))
	out = append(out, w.head...)
	out = binary.AppendUvarint(out, uint64(w.n))
	return append(out, w.out...)
}
