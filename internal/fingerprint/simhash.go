package fingerprint

import (
	"cmp"
	"errors"
	"math"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// SimHash returns a 64-bit SimHash (Charikar) of text: similar texts get
// fingerprints that differ in few bits. Its features are word shingles:
// every 3 consecutive words, or every word when text has fewer than 3.
// A word is a maximal run of Unicode letters, digits and combining marks,
// lowercased (unicode.ToLower, rune by rune). Each word is hashed with
// 64-bit FNV-1a over its UTF-8 bytes; a shingle of words with hashes a, b,
// c is hashed as fmix64(a ^ rotl(b, 21) ^ rotl(c, 42)), fmix64 being
// MurmurHash3's 64-bit finalizer. Bit i of the result is set when more
// than half of the shingles (counted with repetition) have bit i set.
// Text without words gives 0.
//
// The definition is fixed: fingerprints are stored and compared across
// processes and versions.
func SimHash(text string) uint64 {
	var s simhasher
	var w [3]uint64 // the last three word hashes, w[2] the newest
	words := 0
	for i := 0; i < len(text); {
		// Skip to the start of a word.
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiLower[c] == 0 {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				i += size
				continue
			}
		}
		// Hash the word.
		h := uint64(fnvOffset)
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				l := asciiLower[c]
				if l == 0 {
					break
				}
				h = (h ^ uint64(l)) * fnvPrime
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			i += size
			var buf [utf8.UTFMax]byte
			for _, b := range utf8.AppendRune(buf[:0], unicode.ToLower(r)) {
				h = (h ^ uint64(b)) * fnvPrime
			}
		}
		w[0], w[1], w[2] = w[1], w[2], h
		words++
		if words >= 3 {
			s.add(fmix64(w[0] ^ bits.RotateLeft64(w[1], 21) ^ bits.RotateLeft64(w[2], 42)))
		}
	}
	if words < 3 {
		for _, h := range w[3-words:] {
			s.add(fmix64(h))
		}
	}
	return s.sum()
}

// Distance returns the Hamming distance between two fingerprints: the
// number of bits in which they differ.
func Distance(a, b uint64) int {
	return bits.OnesCount64(a ^ b)
}

// Bands splits a fingerprint into 4 bands of 16 bits, the least
// significant first: band i is bits 16i to 16i+15. Two fingerprints
// within Hamming distance 3 share at least one band exactly (4 bands
// cannot each hold one of at most 3 differing bits), so a store can find
// the candidates for a near duplicate with an index lookup per band
// instead of a scan.
//
// The order is fixed: the stores keep band i in their column band<i>,
// and the databases written so far hold it so.
func Bands(fp uint64) [4]uint16 {
	return [4]uint16{uint16(fp), uint16(fp >> 16), uint16(fp >> 32), uint16(fp >> 48)}
}

// Match is a near-duplicate candidate: the ID of a fingerprint's owner and
// its distance from the fingerprint looked up.
type Match struct {
	ID   int64
	Dist int
}

// Compare orders candidates for the near-duplicate choice: the nearest
// first, then the smallest ID among equally near ones. It returns a
// negative number when m comes before o, as cmp.Compare does. A store
// picks the first candidate in this order that may own its content (one
// that is not an alias of another canonical URL, nor itself a duplicate).
func (m Match) Compare(o Match) int {
	if m.Dist != o.Dist {
		return cmp.Compare(m.Dist, o.Dist)
	}
	return cmp.Compare(m.ID, o.ID)
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fmix64 is the 64-bit finalizer of MurmurHash3: it spreads every input
// bit over every output bit.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// asciiLower maps an ASCII letter or digit to its lower case, anything
// else to 0.
var asciiLower = func() (t [utf8.RuneSelf]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// simhasher counts, for each bit, the features that have it set. Features
// come in batches of 16, added to the counts' low four bits held as bit
// planes (bit i of ones, twos, fours and eights: bits 0–3 of bit i's
// count) by carry-save adders, the Harley–Seal scheme of fast population
// counts (Muła, Kurz and Lemire, "Faster population counts using AVX2
// instructions", 2018), each full adder 5 operations on all 64 counts at
// once. The sixteens a batch carries out are counted in bytes, eight to a
// word (spread), fewer than 256 batches to a byte, and folded into counts.
// The features of the last, partial batch are counted a bit at a time.
type simhasher struct {
	batch                     [16]uint64
	inBatch                   int
	ones, twos, fours, eights uint64
	sixteens                  [8]uint64 // byte j of word k: the sixteens of bit 8k+j since the last fold
	batches                   int       // batches since the last fold
	counts                    [64]int
	n                         int
}

// spread maps a byte to a word whose byte j is bit j of it.
var spread = func() (t [256]uint64) {
	for v := range t {
		for j := 0; j < 8; j++ {
			if v&(1<<j) != 0 {
				t[v] |= 1 << (8 * j)
			}
		}
	}
	return t
}()

func (s *simhasher) add(h uint64) {
	s.batch[s.inBatch] = h
	if s.inBatch++; s.inBatch == len(s.batch) {
		s.addBatch()
	}
}

// csa is a full adder on 64 lanes: the carry and sum bits of a + b + c.
func csa(a, b, c uint64) (carry, sum uint64) {
	u := a ^ b
	return a&b | u&c, u ^ c
}

// addBatch adds the 16 features of a full batch.
func (s *simhasher) addBatch() {
	eightsA := s.add8((*[8]uint64)(s.batch[:8]))
	eightsB := s.add8((*[8]uint64)(s.batch[8:]))
	var sixteens uint64
	sixteens, s.eights = csa(s.eights, eightsA, eightsB)
	for k := range s.sixteens {
		s.sixteens[k] += spread[byte(sixteens>>(8*k))]
	}
	s.n += len(s.batch)
	s.inBatch = 0
	if s.batches++; s.batches == 255 {
		s.fold()
	}
}

// add8 adds 8 features to the planes below eights and returns the eights
// they carry out.
func (s *simhasher) add8(b *[8]uint64) (eights uint64) {
	var twosA, twosB, foursA, foursB uint64
	twosA, s.ones = csa(s.ones, b[0], b[1])
	twosB, s.ones = csa(s.ones, b[2], b[3])
	foursA, s.twos = csa(s.twos, twosA, twosB)
	twosA, s.ones = csa(s.ones, b[4], b[5])
	twosB, s.ones = csa(s.ones, b[6], b[7])
	foursB, s.twos = csa(s.twos, twosA, twosB)
	eights, s.fours = csa(s.fours, foursA, foursB)
	return eights
}

// fold moves the sixteens counted in bytes into counts.
func (s *simhasher) fold() {
	for k, w := range s.sixteens {
		for j := range 8 {
			s.counts[8*k+j] += 16 * int(w>>(8*j)&0xff)
		}
	}
	s.sixteens = [8]uint64{}
	s.batches = 0
}

func (s *simhasher) sum() uint64 {
	s.fold()
	for _, h := range s.batch[:s.inBatch] {
		for i := range s.counts {
			s.counts[i] += int(h >> i & 1)
		}
	}
	s.n += s.inBatch
	var fp uint64
	for i, c := range s.counts {
		c += int(s.ones>>i&1) + 2*int(s.twos>>i&1) + 4*int(s.fours>>i&1) + 8*int(s.eights>>i&1)
		if 2*c > s.n {
			fp |= 1 << i
		}
	}
	return fp
}

// MaxIndexDistance is the largest distance an Index answers for.
const MaxIndexDistance = 3

// Index is an in-memory near-duplicate index of fingerprints. It finds a
// stored fingerprint within a Hamming distance of a query without a scan,
// by the band (permuted-table) method of Manku, Jain and Das Sarma,
// "Detecting near-duplicates for web crawling" (WWW 2007): the 64 bits are
// cut into 4 bands of 16 bits, and each band has a table from its value to
// the fingerprints that have it. A fingerprint within distance 3 of the
// query agrees with it on at least one band, so looking up the query's 4
// band values yields every candidate, about 4·n/65536 of n fingerprints.
//
// Larger distances need more tables: to find every fingerprint within
// distance k, cut the 64 bits into m > k blocks and build one table for
// each choice of m−k blocks, keyed by those blocks (C(m, k) tables with
// keys of about 64·(m−k)/m bits). k = 3 with m = 4 gives the 4 tables of
// 16 bits here; k = 3 with m = 6 gives 20 tables keyed by about 21 bits
// (fewer candidates per lookup, five times the memory); k = 4 needs at
// least 5 blocks (5 tables of 12- or 13-bit keys: 16 times more
// candidates) or, better, m = 7 and 35 tables.
//
// An Index costs 32 bytes per fingerprint (its value, its ID and a link
// in each of the 4 tables) plus 1 MiB for the tables' heads. Add must not
// be called concurrently with Add or Near; Near may be called
// concurrently with itself.
type Index struct {
	maxDist int
	fps     []uint64
	ids     []int64
	// Each table is a set of linked lists, one per band value: head[v]
	// is 1 + the position in fps of the newest fingerprint whose band is
	// v (0: none), and next[pos] is 1 + the position of the one before it.
	head [4][]uint32
	next [4][]uint32
}

// NewIndex returns an empty Index that answers for distances up to
// maxDist, which must be between 0 and MaxIndexDistance.
func NewIndex(maxDist int) (*Index, error) {
	if maxDist < 0 || maxDist > MaxIndexDistance {
		return nil, errors.New("fingerprint: new index: maxDist must be between 0 and 3")
	}
	x := &Index{maxDist: maxDist}
	for b := range x.head {
		x.head[b] = make([]uint32, 1<<16)
	}
	return x, nil
}

// Add stores fp under id. The same fingerprint or ID may be added more
// than once; each is a separate entry. An Index holds at most 2³²−1
// entries; Add panics beyond.
func (x *Index) Add(id int64, fp uint64) {
	if uint64(len(x.fps)) >= math.MaxUint32 {
		panic("fingerprint: Index.Add: index full")
	}
	link := uint32(len(x.fps)) + 1
	x.fps = append(x.fps, fp)
	x.ids = append(x.ids, id)
	for b, v := range Bands(fp) {
		x.next[b] = append(x.next[b], x.head[b][v])
		x.head[b][v] = link
	}
}

// Near returns the stored fingerprint closest to fp if it is within the
// Index's maxDist: its ID and distance, the smallest ID among equally
// close ones. ok is false if there is none.
func (x *Index) Near(fp uint64) (id int64, dist int, ok bool) {
	dist = x.maxDist + 1
	for b, v := range Bands(fp) {
		next := x.next[b]
		for link := x.head[b][v]; link != 0; link = next[link-1] {
			pos := link - 1
			m := Match{ID: x.ids[pos], Dist: bits.OnesCount64(fp ^ x.fps[pos])}
			if m.Dist < dist || ok && m.Compare(Match{ID: id, Dist: dist}) < 0 {
				id, dist, ok = m.ID, m.Dist, true
			}
		}
	}
	if !ok {
		return 0, 0, false
	}
	return id, dist, true
}

// Len returns the number of entries in the Index.
func (x *Index) Len() int {
	return len(x.fps)
}
