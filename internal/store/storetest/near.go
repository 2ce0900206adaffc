package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// RunNearDistance checks a backend's near-duplicate distance option: open
// returns a fresh store of the backend opened with the given
// NearDistance option (0 default, negative none). Pages at distance 1 and
// 2 from a first page are committed after it and, in the same batch, after
// each other, so that both the stored-page lookup and the judgement
// within a batch are covered.
func RunNearDistance(t *testing.T, open func(t *testing.T, near int) crawl.Store) {
	const fp = 0x0123456789abcdef
	for _, tc := range []struct {
		near           int
		wantD1, wantD2 bool // the distance-1 and distance-2 pages are near-duplicates of the first (across commits and in one batch)
	}{
		{near: 0, wantD1: true, wantD2: true},
		{near: 1, wantD1: true, wantD2: false},
		{near: -1},
	} {
		t.Run(fmt.Sprintf("near=%d", tc.near), func(t *testing.T) {
			s := open(t, tc.near)
			e := &env{t: t, s: s, ctx: context.Background(), now: time.Unix(1_800_000_000, 0)}
			for i := range 6 {
				e.add(crawl.Limits{}, U(fmt.Sprintf("http://a.test/%d", i), 0, -i))
			}
			hs := e.claimHosts("p", 1)
			cs := e.claimURLs("p", hs[0].ID, 6, crawl.Limits{})
			page := func(i int, sim uint64) crawl.Result {
				r := done(cs[i], fmt.Sprintf("text %d", i))
				r.Page.SimHash = sim
				return r
			}
			// Across commits: 0, then 1 (distance 1) and 2 (distance 2).
			r0, r1, r2 := page(0, fp), page(1, fp^1), page(2, fp^0b11<<40)
			e.commit(crawl.Limits{}, r0)
			e.commit(crawl.Limits{}, r1)
			e.commit(crawl.Limits{}, r2)
			// In one batch: 3, then 4 (distance 1 from 3), then 5 (distance 2
			// from 3); their fingerprints are far from 0's.
			const fq = 0x7edcba9876543210
			r3, r4, r5 := page(3, fq), page(4, fq^1<<20), page(5, fq^0b101<<50)
			e.commit(crawl.Limits{}, r3, r4, r5)
			check := func(name string, r crawl.Result, want bool, of crawl.ID) {
				t.Helper()
				p, err := s.Page(e.ctx, r.URL.ID)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case want && p.NearDuplicateOf != of:
					t.Errorf("%s: near-duplicate of %d, want %d", name, p.NearDuplicateOf, of)
				case !want && p.NearDuplicateOf != 0:
					t.Errorf("%s: near-duplicate of %d, want none", name, p.NearDuplicateOf)
				}
			}
			check("distance 1 after a commit", r1, tc.wantD1, cs[0].ID)
			check("distance 2 after a commit", r2, tc.wantD2, cs[0].ID)
			check("distance 1 in a batch", r4, tc.wantD1, cs[3].ID)
			check("distance 2 in a batch", r5, tc.wantD2, cs[3].ID)
			check("first page", r0, false, 0)
		})
	}
}
