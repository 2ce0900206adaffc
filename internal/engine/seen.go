package engine

import (
	"encoding/binary"
	"sync"

	"github.com/bits-and-blooms/bloom/v3"

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
	filters []*bloom.BloomFilter
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
	s.filters = append(s.filters, bloom.NewWithEstimates(capacity, rate))
	s.count, s.limit = 0, capacity
}

// testAndAdd reports whether id was (probably) seen before, adding it.
func (s *seenFilter) testAndAdd(id crawl.ID) bool {
	var key [8]byte
	binary.BigEndian.PutUint64(key[:], uint64(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.filters {
		if f.Test(key[:]) {
			return true
		}
	}
	if s.count >= s.limit {
		s.grow(s.limit * 2)
	}
	s.filters[len(s.filters)-1].Add(key[:])
	s.count++
	return false
}
