package postgres

import (
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestLinkRowsOnePerTarget: a page's links give one row a target, the
// first link's, so that the rows of a page first recorded can be inserted
// without ON CONFLICT; another page's links to the same target are rows
// of their own.
func TestLinkRowsOnePerTarget(t *testing.T) {
	var r linkRows
	r.add(1, []crawl.Link{{TargetID: 7, Target: "t7", Anchor: "first"}, {TargetID: 8, Target: "t8", Anchor: "b"},
		{TargetID: 7, Target: "t7", Anchor: "second", NoFollow: true}})
	r.add(2, []crawl.Link{{TargetID: 7, Target: "t7", Anchor: "other"}})
	r.add(3, []crawl.Link{{TargetID: 9, Target: "t\x00", Anchor: "one"}})
	if !slices.Equal(r.src, []int64{1, 1, 2, 3}) || !slices.Equal(r.dst, []int64{7, 8, 7, 9}) ||
		!slices.Equal(r.anchor, []string{"first", "b", "other", "one"}) || !slices.Equal(r.nofollow, []bool{false, false, false, false}) ||
		r.target[3] != clean("t\x00") {
		t.Errorf("rows = %+v", r)
	}
}
