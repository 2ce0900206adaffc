package engine

import (
	"math"
	"math/bits"
	"sync"

	"github.com/acrawler/acrawler/internal/crawl"
)

// seenFilter is the in-memory front of the seen-set: a scalable Bloom
// filter over URL IDs. "Not present" is certain and the URL goes to the
// store, whose unique key is the real seen-set; "present" skips the store
// at a false-positive rate of about one in a million (such a URL is not
// queued again from this process). It grows by adding filters of twice the
// capacity, so memory follows the number of URLs this process has seen.
type seenFilter struct {
	mu      sync.Mutex
	filters []*blockedBloom
	count   uint // entries in the newest filter
	limit   uint // capacity of the newest filter
}

const seenFPRate = 1e-6

func newSeenFilter(capacity uint) *seenFilter {
	s := &seenFilter{}
	s.grow(capacity)
	return s
}

func (s *seenFilter) grow(capacity uint) {
	// Each new filter gets a tighter rate so the total stays bounded.
	rate := seenFPRate / float64(uint(1)<<min(len(s.filters), 20))
	s.filters = append(s.filters, newBlockedBloom(capacity, rate))
	s.count, s.limit = 0, capacity
}

// testAndAdd reports whether id was (probably) seen before, adding it.
func (s *seenFilter) testAndAdd(id crawl.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.filters {
		if f.test(uint64(id)) {
			return true
		}
	}
	if s.count >= s.limit {
		s.grow(s.limit * 2)
	}
	s.filters[len(s.filters)-1].add(uint64(id))
	s.count++
	return false
}

// blockedBloom is a Bloom filter whose k bits for a key all lie in one
// block of 512 bits, one cache line (Putze, Sanders and Singler, "Cache-,
// Hash- and Space-Efficient Bloom Filters", 2007): a look-up reads one
// line of memory where a classic filter reads k lines (20 at a rate of one
// in a million), at the price of about a third more bits for the same
// rate.
type blockedBloom struct {
	blocks [][blockWords]uint64
	k      int
}

const (
	blockBits  = 512
	blockWords = blockBits / 64
)

// newBlockedBloom returns a filter for n keys at a false-positive rate of
// at most rate, with the fewest bits per key that reach it.
func newBlockedBloom(n uint, rate float64) *blockedBloom {
	bitsPerKey, k := blockedBloomParams(rate)
	nb := (uint64(n)*uint64(bitsPerKey) + blockBits - 1) / blockBits
	return &blockedBloom{blocks: make([][blockWords]uint64, max(nb, 1)), k: k}
}

// blockedBloomParams returns the fewest bits per key, and the number of
// bits set per key with them, for which a blocked Bloom filter's
// false-positive rate is at most rate: the keys of a block are Poisson
// distributed with mean blockBits/bitsPerKey, and a block holding j keys
// answers a key not added with probability (1 − (1 − 1/blockBits)^(kj))^k.
func blockedBloomParams(rate float64) (bitsPerKey, k int) {
	for bitsPerKey = 8; ; bitsPerKey++ {
		mean := float64(blockBits) / float64(bitsPerKey)
		terms := int(mean+12*math.Sqrt(mean)) + 20 // the rest of the Poisson tail is negligible
		for k = 1; k <= bitsPerKey; k++ {
			q := math.Pow(1-1.0/blockBits, float64(k)) // a bit stays clear of one key
			fp, p, qj := 0.0, math.Exp(-mean), 1.0     // p: Poisson(j), qj: q^j
			for j := 0; j < terms; j++ {
				if j > 0 {
					p *= mean / float64(j)
					qj *= q
				}
				fp += p * math.Pow(1-qj, float64(k))
			}
			if fp <= rate {
				return bitsPerKey, k
			}
		}
	}
}

// locate returns the block of key and the hash its bit positions come
// from. URL IDs are hashes already, but their high bits are the host's:
// the key is mixed before use.
func (f *blockedBloom) locate(key uint64) (*[blockWords]uint64, uint64) {
	h := mix64(key)
	blk, _ := bits.Mul64(h, uint64(len(f.blocks)))
	return &f.blocks[blk], h
}

// A key's bit positions take 9 bits each of the hashes mix64(h + i·φ),
// seven to a hash, h the key's own: positions made by double hashing in
// a block of 512 bits fall into so few patterns that two keys of a block
// would share theirs far more often than once in a million.
const posHashStep = 0x9e3779b97f4a7c15

// bitsOf returns the block of key and the bits of key in it.
func (f *blockedBloom) bitsOf(key uint64) (*[blockWords]uint64, [blockWords]uint64) {
	b, h := f.locate(key)
	var m [blockWords]uint64
	var g uint64
	for i := range f.k {
		if i%7 == 0 {
			h += posHashStep
			g = mix64(h)
		}
		p := g % blockBits
		g >>= 9
		m[p/64] |= 1 << (p % 64)
	}
	return b, m
}

func (f *blockedBloom) add(key uint64) {
	b, m := f.bitsOf(key)
	for i := range b {
		b[i] |= m[i]
	}
}

func (f *blockedBloom) test(key uint64) bool {
	b, m := f.bitsOf(key)
	for i := range b {
		if b[i]&m[i] != m[i] {
			return false
		}
	}
	return true
}

// mix64 spreads every bit of k over the result: the two halves of its
// product with an odd constant, folded (wyhash's mix).
func mix64(k uint64) uint64 {
	hi, lo := bits.Mul64(k^0xe7037ed1a0b428db, 0x9e3779b97f4a7c15)
	return hi ^ lo
}
