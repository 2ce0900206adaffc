// Package urlrun packs a run of a host's queued URLs into one record: up
// to MaxEntries URLs, their texts relative to the host, front-coded and
// compressed together (S2), and each URL's fields as a few bytes of
// varints. It is the record of the packed frontier layout
// (docs/design/frontier-layout.md), where a host's queued URLs share
// their text and one B-tree cell instead of a row and two index entries
// each.
//
// Encode and Decode are pure; Decode reads any bytes in time linear in
// their length and what they decode to, which is bounded by the number of
// entries times MaxPath.
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

	version = 1
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
	// The texts, front-coded: each the bytes it shares with the one
	// before, then the rest.
	var texts []byte
	prev := ""
	for i, e := range entries {
		if len(e.Path) > MaxPath {
			return dst, fmt.Errorf("urlrun: entry %d: a path of %d bytes, longer than %d", i, len(e.Path), MaxPath)
		}
		shared := 0
		for shared < len(prev) && shared < len(e.Path) && prev[shared] == e.Path[shared] {
			shared++
		}
		texts = binary.AppendUvarint(texts, uint64(shared))
		texts = binary.AppendUvarint(texts, uint64(len(e.Path)-shared))
		texts = append(texts, e.Path[shared:]...)
		prev = e.Path
	}
	dst = append(dst, version)
	dst = binary.AppendUvarint(dst, uint64(len(entries)))
	var last, lastSeq int64
	for _, e := range entries {
		var flags byte
		if e.LastMod != 0 {
			flags |= hasLastMod
		}
		if e.ChangeFreq != 0 {
			flags |= hasChangeFreq
		}
		if e.Parent != 0 {
			flags |= hasParent
		}
		if e.Inlinks != 0 {
			flags |= hasInlinks
		}
		if e.Seq != 0 {
			flags |= hasSeq
		}
		dst = append(dst, flags, e.Kind, e.Via)
		dst = binary.AppendVarint(dst, e.Priority)
		dst = binary.AppendVarint(dst, e.Depth)
		dst = binary.AppendVarint(dst, e.Discovered-last)
		last = e.Discovered
		if flags&hasLastMod != 0 {
			dst = binary.AppendVarint(dst, e.LastMod-e.Discovered)
		}
		if flags&hasChangeFreq != 0 {
			dst = append(dst, e.ChangeFreq)
		}
		if flags&hasParent != 0 {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(e.Parent))
		}
		if flags&hasInlinks != 0 {
			dst = binary.AppendVarint(dst, e.Inlinks)
		}
		if flags&hasSeq != 0 {
			dst = binary.AppendVarint(dst, e.Seq-lastSeq)
			lastSeq = e.Seq
		}
	}
	packed := s2.Encode(nil, texts)
	dst = binary.AppendUvarint(dst, uint64(len(packed)))
	return append(dst, packed...), nil
}

// Len returns the number of entries of the run b, without decoding them.
func Len(b []byte) (int, error) {
	if len(b) == 0 || b[0] != version {
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
			if e.LastMod = e.Discovered + r.varint(); e.LastMod == 0 && r.err == nil {
				return nil, ErrCorrupt // written as none
			}
		}
		if flags&hasChangeFreq != 0 {
			if e.ChangeFreq = r.byte(); e.ChangeFreq == 0 && r.err == nil {
				return nil, ErrCorrupt
			}
		}
		if flags&hasParent != 0 {
			if e.Parent = int64(r.uint64()); e.Parent == 0 && r.err == nil {
				return nil, ErrCorrupt
			}
		}
		if flags&hasInlinks != 0 {
			if e.Inlinks = r.varint(); e.Inlinks == 0 && r.err == nil {
				return nil, ErrCorrupt
			}
		}
		if flags&hasSeq != 0 {
			if e.Seq = lastSeq + r.varint(); e.Seq == 0 && r.err == nil {
				return nil, ErrCorrupt
			}
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
	t := reader{b: texts}
	prev := ""
	for i := range entries {
		shared, rest := t.uvarint(), t.uvarint()
		if t.err != nil || shared > uint64(len(prev)) || rest > uint64(len(t.b)) || shared+rest > MaxPath {
			return nil, ErrCorrupt
		}
		path := prev[:shared] + string(t.b[:rest])
		t.b = t.b[rest:]
		entries[i].Path = path
		prev = path
	}
	if len(t.b) != 0 {
		return nil, ErrCorrupt
	}
	return entries, nil
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
