package keyset_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/store/keyset"
)

// table reads rows of sorted keys as a store's query would, counting reads.
type table struct {
	keys  []int64
	reads int
	fail  int // the read that fails (1-based); 0: none
}

func (tb *table) read(_ context.Context, op string, after int64, batch int) ([]int64, error) {
	tb.reads++
	if want := map[bool]string{true: ">=", false: ">"}[tb.reads == 1]; op != want {
		return nil, errors.New("read " + op + ", want " + want)
	}
	if tb.reads == tb.fail {
		return nil, errors.New("boom")
	}
	var out []int64
	for _, k := range tb.keys {
		if (k > after || op == ">=" && k == after) && len(out) < batch {
			out = append(out, k)
		}
	}
	return out, nil
}

func TestStream(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		keys      []int64
		batch     int
		wantReads int
	}{
		{"empty", nil, 3, 1},
		{"lowest key included", []int64{math.MinInt64, -1, 0, 5}, 3, 2},
		{"exact batches", []int64{1, 2, 3, 4, 5, 6}, 3, 3}, // a third, empty read ends it
		{"one row a read", []int64{1, 2}, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := &table{keys: tc.keys}
			var got []int64
			for k, err := range keyset.Stream(ctx, tc.batch, int64(math.MinInt64), tb.read, func(k int64) int64 { return k }) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, k)
			}
			if !slices.Equal(got, tc.keys) || tb.reads != tc.wantReads {
				t.Errorf("streamed %v in %d reads, want %v in %d", got, tb.reads, tc.keys, tc.wantReads)
			}
		})
	}
}

func TestStreamStopsAndFails(t *testing.T) {
	ctx := context.Background()
	id := func(k int64) int64 { return k }
	tb := &table{keys: []int64{1, 2, 3, 4, 5, 6, 7}}
	n := 0
	for range keyset.Stream(ctx, 2, 0, tb.read, id) {
		if n++; n == 3 {
			break
		}
	}
	if tb.reads != 2 {
		t.Errorf("stopped after 3 rows: %d reads, want 2", tb.reads)
	}

	tb = &table{keys: []int64{1, 2, 3, 4, 5}, fail: 2}
	var got []int64
	var errs int
	for k, err := range keyset.Stream(ctx, 2, 0, tb.read, id) {
		if err != nil {
			errs++
			continue
		}
		got = append(got, k)
	}
	if !slices.Equal(got, []int64{1, 2}) || errs != 1 || tb.reads != 2 {
		t.Errorf("a failing second read: rows %v, %d errors, %d reads; want [1 2], 1, 2", got, errs, tb.reads)
	}
}
