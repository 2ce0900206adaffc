package crawl_test

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestMovedRanks: the pages to write are those without a recorded rank
// and those whose rank moved by more than crawl.RankTolerance, in ID
// order; recorded ranks of other pages are passed over, and the recorded
// ranks are read no further than the last page.
func TestMovedRanks(t *testing.T) {
	ranks := map[crawl.ID]float64{-5: 1, 2: 10, 3: 10, 4: 10, 7: math.NaN(), 9: 0, 12: 3}
	recorded := [][2]float64{{-9, 4}, {-5, 1.0099}, {2, 10.099}, {3, 10.2}, {4, 9.8}, {5, 1}, {7, 1}, {9, 0}, {12, 3}, {20, 1}}
	read := 0
	got := crawl.MovedRanks(ranks, func(yield func(crawl.ID, float64) bool) {
		for _, r := range recorded {
			read++
			if !yield(crawl.ID(r[0]), r[1]) {
				return
			}
		}
	})
	// -5 and 2 within 1%, 9 and 12 unchanged: kept. 3 and 4 moved by 2%,
	// 7 is not a number.
	if want := []crawl.ID{3, 4, 7}; !slices.Equal(got, want) {
		t.Errorf("MovedRanks = %v, want %v", got, want)
	}
	if read != len(recorded)-1 {
		t.Errorf("read %d recorded ranks, want %d: none past the last page", read, len(recorded)-1)
	}
	// Nothing recorded: every page, in ID order; every page recorded alike:
	// none.
	none := func(func(crawl.ID, float64) bool) {}
	if got, want := crawl.MovedRanks(ranks, none), slices.Sorted(maps.Keys(ranks)); !slices.Equal(got, want) {
		t.Errorf("MovedRanks with none recorded = %v, want %v", got, want)
	}
	same := func(yield func(crawl.ID, float64) bool) {
		for _, id := range []crawl.ID{-5, 2, 3, 4, 9, 12} {
			if !yield(id, ranks[id]) {
				return
			}
		}
	}
	if got := crawl.MovedRanks(ranks, same); !slices.Equal(got, []crawl.ID{7}) {
		t.Errorf("MovedRanks with the same ranks recorded = %v, want only the page of no number, 7", got)
	}
}
