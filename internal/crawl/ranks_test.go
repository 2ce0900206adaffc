package crawl_test

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// rankRows are recorded ranks as crawl.RankRows: rows of an ID and a
// rank, and how many were read.
type rankRows struct {
	rows [][2]float64
	read int
}

func (r *rankRows) Next() bool {
	if r.read == len(r.rows) {
		return false
	}
	r.read++
	return true
}

func (r *rankRows) Scan(dest ...any) error {
	*dest[0].(*crawl.ID), *dest[1].(*float64) = crawl.ID(r.rows[r.read-1][0]), r.rows[r.read-1][1]
	return nil
}

// TestMovedRanks: the pages to write are those without a recorded rank
// and those whose rank moved by more than crawl.RankTolerance, in ID
// order; recorded ranks of other pages are passed over, and the recorded
// ranks are read no further than the last page.
func TestMovedRanks(t *testing.T) {
	ranks := map[crawl.ID]float64{-5: 1, 2: 10, 3: 10, 4: 10, 7: math.NaN(), 9: 0, 12: 3}
	moved := func(recorded ...[2]float64) ([]crawl.ID, int) {
		t.Helper()
		rows := &rankRows{rows: recorded}
		got, err := crawl.MovedRanks(ranks, rows)
		if err != nil {
			t.Fatal(err)
		}
		return got, rows.read
	}
	recorded := [][2]float64{{-9, 4}, {-5, 1.0099}, {2, 10.099}, {3, 10.2}, {4, 9.8}, {5, 1}, {7, 1}, {9, 0}, {12, 3}, {20, 1}}
	// -5 and 2 within 1%, 9 and 12 unchanged: kept. 3 and 4 moved by 2%,
	// 7 is not a number.
	got, read := moved(recorded...)
	if want := []crawl.ID{3, 4, 7}; !slices.Equal(got, want) {
		t.Errorf("MovedRanks = %v, want %v", got, want)
	}
	if read != len(recorded)-1 {
		t.Errorf("read %d recorded ranks, want %d: none past the last page", read, len(recorded)-1)
	}
	// Nothing recorded: every page, in ID order; every page recorded alike:
	// none but the one of no number.
	if got, _ := moved(); !slices.Equal(got, slices.Sorted(maps.Keys(ranks))) {
		t.Errorf("MovedRanks with none recorded = %v, want every page", got)
	}
	if got, _ := moved([2]float64{-5, 1}, [2]float64{2, 10}, [2]float64{3, 10}, [2]float64{4, 10}, [2]float64{9, 0}, [2]float64{12, 3}); !slices.Equal(got, []crawl.ID{7}) {
		t.Errorf("MovedRanks with the same ranks recorded = %v, want only the page of no number, 7", got)
	}
}
