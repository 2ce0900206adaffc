// Package outlinks is the compact form in which both stores keep a page's
// outlinks: one value per source page instead of a row per link.
//
// The form is a version byte (1), the number of links n as a uvarint, the
// n target IDs in increasing order as uvarint deltas (the first from the
// lowest ID), a bitmap of n bits saying which links are nofollow, then the
// n anchor texts, each its byte length as a uvarint and its bytes. Targets
// are compared as int64, as the stores order URL IDs; the deltas are taken
// between the IDs with their sign bit flipped, so every delta but the
// first is at least 1. URL IDs put their host bits first, so links to one
// host make short deltas. The text of a target URL is not in the value:
// the stores keep it by ID.
//
// Decoding is one pass over the bytes; every malformed value is an error
// naming the offset.
package outlinks

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Link is one outlink of a page.
type Link struct {
	Target   int64
	Anchor   string
	NoFollow bool
}

// version is the first byte of every encoded value.
const version = 1

// key is a target ID as an unsigned number that orders as the ID does.
func key(id int64) uint64 { return uint64(id) ^ 1<<63 }

// Encode appends the compact form of links to dst and returns it. The
// links are taken in target order; of several links to one target the
// first in links is kept, as a table keyed by (source, target) with
// ON CONFLICT DO NOTHING keeps it. links is not modified.
func Encode(dst []byte, links []Link) []byte {
	order := make([]int, len(links))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(links[a].Target, links[b].Target) })
	kept := order[:0]
	for i, at := range order {
		if i == 0 || links[at].Target != links[kept[len(kept)-1]].Target {
			kept = append(kept, at)
		}
	}
	dst = append(dst, version)
	dst = binary.AppendUvarint(dst, uint64(len(kept)))
	var prev uint64
	for i, at := range kept {
		k := key(links[at].Target)
		if i == 0 {
			dst = binary.AppendUvarint(dst, k)
		} else {
			dst = binary.AppendUvarint(dst, k-prev)
		}
		prev = k
	}
	bits := len(dst)
	dst = append(dst, make([]byte, (len(kept)+7)/8)...)
	for i, at := range kept {
		if links[at].NoFollow {
			dst[bits+i/8] |= 1 << (i % 8)
		}
	}
	for _, at := range kept {
		dst = binary.AppendUvarint(dst, uint64(len(links[at].Anchor)))
		dst = append(dst, links[at].Anchor...)
	}
	return dst
}

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("outlinks: malformed value")

func malformed(at int, what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrMalformed, what, at)
}

// reader walks an encoded value: the targets, then the bitmap, then the
// anchors.
type reader struct {
	b    []byte
	at   int
	n    int
	prev uint64
	i    int // targets read
}

func open(b []byte) (reader, error) {
	r := reader{b: b}
	if len(b) == 0 {
		return r, malformed(0, "empty value")
	}
	if b[0] != version {
		return r, malformed(0, fmt.Sprintf("unknown version %d", b[0]))
	}
	r.at = 1
	n, err := r.uvarint("link count")
	if err != nil {
		return r, err
	}
	// Each link takes at least two bytes (a delta and an anchor length).
	if n > uint64(len(b)-r.at)/2 {
		return r, malformed(1, fmt.Sprintf("link count %d beyond the value's %d bytes", n, len(b)))
	}
	r.n = int(n)
	return r, nil
}

func (r *reader) uvarint(what string) (uint64, error) {
	v, w := binary.Uvarint(r.b[r.at:])
	if w <= 0 {
		return 0, malformed(r.at, "truncated or overlong "+what)
	}
	r.at += w
	return v, nil
}

// target reads the next target ID.
func (r *reader) target() (int64, error) {
	at := r.at
	d, err := r.uvarint("target")
	if err != nil {
		return 0, err
	}
	k := d
	if r.i > 0 {
		k = r.prev + d
		if d == 0 || k < r.prev {
			return 0, malformed(at, "targets not increasing")
		}
	}
	r.prev = k
	r.i++
	return int64(k ^ 1<<63), nil
}

// bitmap returns the nofollow bitmap, once every target is read.
func (r *reader) bitmap() ([]byte, error) {
	m := (r.n + 7) / 8
	if len(r.b)-r.at < m {
		return nil, malformed(r.at, "truncated nofollow bitmap")
	}
	bm := r.b[r.at : r.at+m]
	if r.n%8 != 0 && bm[m-1]>>(r.n%8) != 0 {
		return nil, malformed(r.at+m-1, "nofollow bits past the last link")
	}
	r.at += m
	return bm, nil
}

// anchor returns the next anchor text.
func (r *reader) anchor() ([]byte, error) {
	at := r.at
	l, err := r.uvarint("anchor length")
	if err != nil {
		return nil, err
	}
	if l > uint64(len(r.b)-r.at) {
		return nil, malformed(at, fmt.Sprintf("anchor of %d bytes past the end", l))
	}
	a := r.b[r.at : r.at+int(l)]
	r.at += int(l)
	return a, nil
}

func (r *reader) end() error {
	if r.at != len(r.b) {
		return malformed(r.at, fmt.Sprintf("%d trailing bytes", len(r.b)-r.at))
	}
	return nil
}

// Decode returns the links of an encoded value, in target order.
func Decode(b []byte) ([]Link, error) {
	r, err := open(b)
	if err != nil {
		return nil, err
	}
	links := make([]Link, r.n)
	for i := range links {
		if links[i].Target, err = r.target(); err != nil {
			return nil, err
		}
	}
	bm, err := r.bitmap()
	if err != nil {
		return nil, err
	}
	for i := range links {
		links[i].NoFollow = bm[i/8]&(1<<(i%8)) != 0
		a, err := r.anchor()
		if err != nil {
			return nil, err
		}
		links[i].Anchor = string(a)
	}
	return links, r.end()
}

// Targets appends the target IDs of an encoded value to dst, in order,
// without reading its anchors.
func Targets(dst []int64, b []byte) ([]int64, error) {
	r, err := open(b)
	if err != nil {
		return dst, err
	}
	for range r.n {
		t, err := r.target()
		if err != nil {
			return dst, err
		}
		dst = append(dst, t)
	}
	return dst, nil
}

// Count returns the number of links of an encoded value.
func Count(b []byte) (int, error) {
	r, err := open(b)
	return r.n, err
}

// Find returns the link to target of an encoded value, and whether there
// is one. The anchor is a view into b.
func Find(b []byte, target int64) (anchor []byte, nofollow, ok bool, err error) {
	r, err := open(b)
	if err != nil {
		return nil, false, false, err
	}
	at := -1
	for i := range r.n {
		t, err := r.target()
		if err != nil {
			return nil, false, false, err
		}
		if t == target {
			at = i
		}
		if t >= target {
			// Skip the rest of the targets: the bitmap and anchors follow.
			for range r.n - i - 1 {
				if _, err := r.target(); err != nil {
					return nil, false, false, err
				}
			}
			break
		}
	}
	if at < 0 {
		return nil, false, false, nil
	}
	bm, err := r.bitmap()
	if err != nil {
		return nil, false, false, err
	}
	for range at {
		if _, err := r.anchor(); err != nil {
			return nil, false, false, err
		}
	}
	a, err := r.anchor()
	if err != nil {
		return nil, false, false, err
	}
	return a, bm[at/8]&(1<<(at%8)) != 0, true, nil
}

// Walk calls fn for each link of an encoded value, in target order, with
// its anchor as a view into b, after checking the whole value. targets
// is scratch space, returned for reuse.
func Walk(b []byte, targets []int64, fn func(target int64, anchor []byte, nofollow bool)) ([]int64, error) {
	r, err := open(b)
	if err != nil {
		return targets, err
	}
	targets = targets[:0]
	for range r.n {
		t, err := r.target()
		if err != nil {
			return targets, err
		}
		targets = append(targets, t)
	}
	bm, err := r.bitmap()
	if err != nil {
		return targets, err
	}
	start := r.at
	for range r.n {
		if _, err := r.anchor(); err != nil {
			return targets, err
		}
	}
	if err := r.end(); err != nil {
		return targets, err
	}
	r.at = start
	for i, t := range targets {
		a, _ := r.anchor()
		fn(t, a, bm[i/8]&(1<<(i%8)) != 0)
	}
	return targets, nil
}
