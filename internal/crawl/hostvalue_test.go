package crawl

import "testing"

func TestHostValueStale(t *testing.T) {
	for _, c := range []struct {
		valued, fetched int64
		want            bool
	}{
		{0, 0, false},   // nothing recorded
		{0, 1, true},    // never valued
		{4, 5, false},   // grew by a quarter
		{4, 7, false},   // by three quarters
		{4, 8, true},    // doubled
		{10, 19, false}, // by nine tenths
		{10, 20, true},
		{300, 499, false}, // a window at most
		{300, 500, true},
		{50, 40, true}, // went back (pages removed)
		{50, 50, false},
	} {
		if got := HostValueStale(c.valued, c.fetched); got != c.want {
			t.Errorf("HostValueStale(%d, %d) = %v, want %v", c.valued, c.fetched, got, c.want)
		}
	}
}
