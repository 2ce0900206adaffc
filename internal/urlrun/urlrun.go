// Package urlrun packs a run of a host's queued URLs into one record: up
// to MaxEntries URLs, each URL's fields as a few bytes of varints, one
// field after another (all the entries' flags, then all their kinds, and
// so on), then their texts relative to the host, front-coded, all
// compressed together (S2). It is the record of the packed frontier
// layout (docs/design/frontier-layout.md), where a host's queued URLs
// share their text and one B-tree cell instead of a row and two index
// entries each.
//
// Encode and Decode are pure; Decode reads any bytes in time linear in
// their length and what they decode to, which is bounded by the number of
// entries times MaxPath. Decode also reads the runs of the package's
// first version, which compressed only the texts.
package urlrun

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"
)

const (
	// MaxEntries is the most URLs a run holds.
	MaxEntries = 256
	// MaxPath is the longest text of a URL a run holds.
	MaxPath = 16 << 10

	// version is the record Encode writes; versionRows, the first, held
	// each entry's fields together and compressed only the texts.
	version     = 2
	versionRows = 1

	// maxFields is the most bytes an entry's fields take: flags, kind,
	// way, changefreq, a parent of 8 bytes, and six varints.
	maxFields = 4 + 8 + 6*binary.MaxVarintLen64
)

// Entry is a queued URL of a run.
type Entry struct {
	// Path is the URL's text relative to its host (what follows the
	// scheme and host, or the whole URL as the store keeps it).
	Path string
	// Priority is the URL's priority; Depth its distance from a seed.
	Priority, Depth int64
	// Kind and Via are the store's codes of what the URL is fetched as
	// and how it was found.
	Kind, Via uint8
	// Discovered is when the URL was found (any unit; runs are in the
	// order URLs arrive, so it takes a byte or two after the first).
	Discovered int64
	// LastMod and ChangeFreq are a sitemap's, 0 when it gave none; Parent
	// is the ID of the URL that led to this one, 0 for none; Inlinks is
	// the count of pages found linking to the URL: each takes no byte
	// when 0.
	LastMod    int64
	ChangeFreq uint8
	Parent     int64
	Inlinks    int64
	// Seq is the URL's number in its host's order, for a store that
	// numbers URLs as it admits them (0: none). It takes no byte when 0,
	// and a byte or two when close to the last entry's that has one.
	Seq int64
}

// Flags of an entry: which of its optional fields it has.
const (
	hasLastMod = 1 << iota
	hasChangeFreq
	hasParent
	hasInlinks
	hasSeq
	flagsKnown = hasLastMod | hasChangeFreq | hasParent | hasInlinks | hasSeq
)

// ErrCorrupt is the error of bytes that are not a run this package wrote.
var ErrCorrupt = errors.New("urlrun: malformed run")

// Encode appends the run of entries to dst. It refuses more than
// MaxEntries entries, none, and a path longer than MaxPath.
func Encode(dst []byte, entries []Entry) ([]byte, error) {
	if len(entries) == 0 || len(entries) > MaxEntries {
		return dst, fmt.Errorf("urlrun: %d entries, want 1 to %d", len(entries), MaxEntries)
	}
	for i, e := range entries {
		if len(e.Path) > MaxPath {
			return dst, fmt.Errorf("urlrun: entry %d: a path of %d bytes, longer than %d", i, len(e.Path), MaxPath)
		}
	}
	dst = append(dst, version)
	dst = binary.AppendUvarint(dst, uint64(len(entries)))
	return append(dst, s2.Encode(nil, appendBody(nil, entries))...), nil
}

// appendBody appends what a run compresses: the entries' fields, each
// for every entry before the next (a field an entry does not have takes
// no byte), then their texts, front-coded: each the length it shares
// with the one before, the length of the rest, then the rest.
func appendBody(b []byte, entries []Entry) []byte {
	for _, e := range entries {
		b = append(b, e.flags())
	}
	for _, e := range entries {
		b = append(b, e.Kind)
	}
	for _, e := range entries {
		b = append(b, e.Via)
	}
	for _, e := range entries {
		b = binary.AppendVarint(b, e.Priority)
	}
	for _, e := range entries {
		b = binary.AppendVarint(b, e.Depth)
	}
	var last int64
	for _, e := range entries {
		b = binary.AppendVarint(b, e.Discovered-last)
		last = e.Discovered
	}
	for _, e := range entries {
		if e.LastMod != 0 {
			b = binary.AppendVarint(b, e.LastMod-e.Discovered)
		}
	}
	for _, e := range entries {
		if e.ChangeFreq != 0 {
			b = append(b, e.ChangeFreq)
		}
	}
	for _, e := range entries {
		if e.Parent != 0 {
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Parent))
		}
	}
	for _, e := range entries {
		if e.Inlinks != 0 {
			b = binary.AppendVarint(b, e.Inlinks)
		}
	}
	var lastSeq int64
	for _, e := range entries {
		if e.Seq != 0 {
			b = binary.AppendVarint(b, e.Seq-lastSeq)
			lastSeq = e.Seq
		}
	}
	prev := ""
	for _, e := range entries {
		shared := 0
		for shared < len(prev) && shared < len(e.Path) && prev[shared] == e.Path[shared] {
			shared++
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = binary.AppendUvarint(b, uint64(len(e.Path)-shared))
		b = append(b, e.Path[shared:]...)
		prev = e.Path
	}
	return b
}

// flags returns which of its optional fields the entry has.
func (e *Entry) flags() byte {
	var f byte
	if e.LastMod != 0 {
		f |= hasLastMod
	}
	if e.ChangeFreq != 0 {
		f |= hasChangeFreq
	}
	if e.Parent != 0 {
		f |= hasParent
	}
	if e.Inlinks != 0 {
		f |= hasInlinks
	}
	if e.Seq != 0 {
		f |= hasSeq
	}
	return f
}

// Len returns the number of entries of the run b, without decoding them.
func Len(b []byte) (int, error) {
	if len(b) == 0 || (b[0] != version && b[0] != versionRows) {
		return 0, ErrCorrupt
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n == 0 || n > MaxEntries {
		return 0, ErrCorrupt
	}
	return int(n), nil
}

// Decode returns the entries of the run b.
func Decode(b []byte) ([]Entry, error) {
	n, err := Len(b)
	if err != nil {
		return nil, err
	}
	r := reader{b: b[1:]}
	r.uvarint()
	if b[0] == versionRows {
		return decodeRows(r, n)
	}
	// What the body decodes to is bounded before it is: n entries of
	// at most maxFields bytes of fields and MaxPath of text with its two
	// varints.
	size, err := s2.DecodedLen(r.b)
	if err != nil || size > n*(maxFields+MaxPath+2*binary.MaxVarintLen64) {
		return nil, ErrCorrupt
	}
	body, err := s2.Decode(nil, r.b)
	if err != nil {
		return nil, ErrCorrupt
	}
	entries := make([]Entry, n)
	r = reader{b: body}
	flags := r.bytes(n)
	for i, f := range flags {
		if f&^flagsKnown != 0 {
			return nil, ErrCorrupt
		}
		entries[i].Kind = r.byte()
	}
	for i := range entries {
		entries[i].Via = r.byte()
	}
	for i := range entries {
		entries[i].Priority = r.varint()
	}
	for i := range entries {
		entries[i].Depth = r.varint()
	}
	var last int64
	for i := range entries {
		entries[i].Discovered = last + r.varint()
		last = entries[i].Discovered
	}
	for i, f := range flags {
		if f&hasLastMod != 0 {
			entries[i].LastMod = r.nonzero(entries[i].Discovered + r.varint())
		}
	}
	for i, f := range flags {
		if f&hasChangeFreq != 0 {
			entries[i].ChangeFreq = byte(r.nonzero(int64(r.byte())))
		}
	}
	for i, f := range flags {
		if f&hasParent != 0 {
			entries[i].Parent = r.nonzero(int64(r.uint64()))
		}
	}
	for i, f := range flags {
		if f&hasInlinks != 0 {
			entries[i].Inlinks = r.nonzero(r.varint())
		}
	}
	var lastSeq int64
	for i, f := range flags {
		if f&hasSeq != 0 {
			entries[i].Seq = r.nonzero(lastSeq + r.varint())
			lastSeq = entries[i].Seq
		}
	}
	if err := r.texts(entries); err != nil {
		return nil, err
	}
	return entries, nil
}

// decodeRows returns the n entries of a run of the first version, whose
// reader r is past the count: each entry's fields together, then the
// size of the texts and the texts compressed.
func decodeRows(r reader, n int) ([]Entry, error) {
	entries := make([]Entry, n)
	var last, lastSeq int64
	for i := range entries {
		e := &entries[i]
		flags := r.byte()
		if flags&^flagsKnown != 0 {
			return nil, ErrCorrupt
		}
		e.Kind, e.Via = r.byte(), r.byte()
		e.Priority, e.Depth = r.varint(), r.varint()
		e.Discovered = last + r.varint()
		last = e.Discovered
		if flags&hasLastMod != 0 {
			e.LastMod = r.nonzero(e.Discovered + r.varint())
		}
		if flags&hasChangeFreq != 0 {
			e.ChangeFreq = byte(r.nonzero(int64(r.byte())))
		}
		if flags&hasParent != 0 {
			e.Parent = r.nonzero(int64(r.uint64()))
		}
		if flags&hasInlinks != 0 {
			e.Inlinks = r.nonzero(r.varint())
		}
		if flags&hasSeq != 0 {
			e.Seq = r.nonzero(lastSeq + r.varint())
			lastSeq = e.Seq
		}
	}
	size := r.uvarint()
	if r.err != nil || size != uint64(len(r.b)) {
		return nil, ErrCorrupt
	}
	// What the texts decode to is bounded before they are: n paths of at
	// most MaxPath bytes and their two varints.
	textLen, err := s2.DecodedLen(r.b)
	if err != nil || textLen > n*(MaxPath+2*binary.MaxVarintLen64) {
		return nil, ErrCorrupt
	}
	texts, err := s2.Decode(nil, r.b)
	if err != nil {
		return nil, ErrCorrupt
	}
	if err := (&reader{b: texts}).texts(entries); err != nil {
		return nil, err
	}
	return entries, nil
}

// texts reads the entries' front-coded paths, which must be all that is
// left.
func (r *reader) texts(entries []Entry) error {
	prev := ""
	for i := range entries {
		shared, rest := r.uvarint(), r.uvarint()
		if r.err != nil || shared > uint64(len(prev)) || rest > uint64(len(r.b)) || shared+rest > MaxPath {
			return ErrCorrupt
		}
		path := prev[:shared] + string(r.b[:rest])
		r.b = r.b[rest:]
		entries[i].Path = path
		prev = path
	}
	if r.err != nil || len(r.b) != 0 {
		return ErrCorrupt
	}
	return nil
}

// reader reads varints and bytes, and remembers the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = ErrCorrupt
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// bytes reads n bytes (none if there are fewer).
func (r *reader) bytes(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = ErrCorrupt
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// nonzero returns v, which is an optional field's value that an entry
// was flagged to have: 0 is written as none, so it is an error.
func (r *reader) nonzero(v int64) int64 {
	if v == 0 && r.err == nil {
		r.err = ErrCorrupt
	}
	return v
}
func (r *reader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }
func (r *reader) varint() int64   { return readVarint(r, binary.Varint) }

// readVarint reads a varint with decode (binary.Uvarint or Varint).
func readVarint[T uint64 | int64](r *reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, k := decode(r.b)
	if k <= 0 {
		r.err = ErrCorrupt
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) uint64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = ErrCorrupt
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}
