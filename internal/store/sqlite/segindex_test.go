package sqlite

import (
	"fmt"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// FuzzDecodeAttrs: attributes read are written again as they were read,
// and bytes that are not attributes are refused without a panic.
func FuzzDecodeAttrs(f *testing.F) {
	var seed []byte
	for _, a := range []docAttrs{{key: 1, host: "http://a.test", typ: "article", lang: "en", year: 2020}, {key: crawl.ID(-5), year: -1}} {
		seed = a.append(seed)
	}
	f.Add(seed, 2)
	f.Add([]byte{1, 2, 3}, 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > len(b) {
			return
		}
		as, err := decodeAttrs(b, n)
		if err != nil {
			return
		}
		var again []byte
		for _, a := range as {
			again = a.append(again)
		}
		back, err := decodeAttrs(again, n)
		if len(as) != n || err != nil || fmt.Sprint(back) != fmt.Sprint(as) || len(again) > len(b) {
			t.Fatalf("%d attributes %+v written again as %x (%v), read from %x", len(as), as, again, err, b)
		}
	})
}

// TestBlockCacheKeepsTheLastUsed: the cache holds at most its bytes, and
// drops the block used longest ago.
func TestBlockCacheKeepsTheLastUsed(t *testing.T) {
	c := newBlockCache(30)
	for n := range int64(3) {
		c.put(1, n, make([]byte, 10))
	}
	c.get(1, 0) // 1 is now the oldest
	c.put(2, 0, make([]byte, 10))
	for _, k := range []struct {
		seg, n int64
		in     bool
	}{{1, 0, true}, {1, 1, false}, {1, 2, true}, {2, 0, true}} {
		if _, ok := c.get(k.seg, k.n); ok != k.in {
			t.Errorf("block %d/%d cached: %v, want %v", k.seg, k.n, ok, k.in)
		}
	}
	if c.size != 30 {
		t.Errorf("cache holds %d bytes, want 30", c.size)
	}
}
