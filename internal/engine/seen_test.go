package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

func TestBlockedBloomParams(t *testing.T) {
	for _, c := range []struct {
		rate    float64
		bits, k int
	}{{1e-2, 10, 6}, {1e-6, 39, 14}, {5e-7, 42, 15}} {
		if bits, k := blockedBloomParams(c.rate); bits != c.bits || k != c.k {
			t.Errorf("blockedBloomParams(%g) = %d bits, k %d; want %d, %d", c.rate, bits, k, c.bits, c.k)
		}
	}
}

// TestSeenFilter fills a seen filter past its first capacity: every ID
// added is seen, and about one in a million others is taken for seen.
func TestSeenFilter(t *testing.T) {
	const n = 200000
	s := newSeenFilter(n / 2)
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]crawl.ID, n)
	for i := range ids {
		ids[i] = crawl.URLIDOf(crawl.ID(r.Uint64()), crawl.ID(r.Uint64()%100)) // few hosts, as in a crawl
		if s.testAndAdd(ids[i]) {
			t.Logf("ID %d taken for seen before it was added", i) // a false positive: rare
		}
	}
	if len(s.filters) != 2 {
		t.Fatalf("%d filters after %d IDs from a capacity of %d, want 2", len(s.filters), n, n/2)
	}
	for i, id := range ids {
		if !s.testAndAdd(id) {
			t.Fatalf("ID %d (%d) not seen after it was added", i, id)
		}
	}
	fp := 0
	for range 2 * n {
		if s.testAndAdd(crawl.ID(r.Uint64())) {
			fp++
		}
	}
	if fp > 5 { // expected: under one
		t.Errorf("%d of %d new IDs taken for seen, want about one in a million", fp, 2*n)
	}
}

// BenchmarkSeenFilter looks up IDs in a seen filter of the crawl's first
// capacity holding 500,000: four in five of them added before, as most
// links of a page are known.
func BenchmarkSeenFilter(b *testing.B) {
	s := newSeenFilter(1 << 20)
	r := rand.New(rand.NewPCG(3, 4))
	known := make([]crawl.ID, 500000)
	for i := range known {
		known[i] = crawl.ID(r.Uint64())
		s.testAndAdd(known[i])
	}
	queries := make([]crawl.ID, 1<<16)
	for i := range queries {
		if i%5 == 0 {
			queries[i] = crawl.ID(r.Uint64())
		} else {
			queries[i] = known[r.IntN(len(known))]
		}
	}
	i := 0
	for b.Loop() {
		s.testAndAdd(queries[i%len(queries)])
		i++
	}
}

// TestHostIDCache holds hostIDCache.urlID to crawl.URLID, with the host
// changing and staying between URLs.
func TestHostIDCache(t *testing.T) {
	var c hostIDCache
	for _, u := range []string{
		"http://a.test/", "http://a.test/p/1", "https://a.test/p/1", "http://a.test:8080/x?y",
		"http://b.test/p", "http://a.test/p/2", "not a URL", "http://[::1]:80/z", "http://a.test",
	} {
		if got, want := c.urlID(u), crawl.URLID(u); got != want {
			t.Errorf("urlID(%q) = %d, crawl.URLID = %d", u, got, want)
		}
		var none *hostIDCache
		if got, want := none.urlID(u), crawl.URLID(u); got != want {
			t.Errorf("nil urlID(%q) = %d, crawl.URLID = %d", u, got, want)
		}
	}
}
