package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// CommitFinds claims a few hosts' seeds in db and commits them in
// batches, each page linking to seeds and to new URLs, offering the new
// ones the first time it sees them (as the engine does) and some again,
// some over depth and some over their host's cap: the same commits,
// whichever store, for the stores' tests of discoveries staged. It
// returns the URLs the commits added and the offers they found over
// depth.
func CommitFinds(t *testing.T, db crawl.Store) (added, overDepth int) {
	t.Helper()
	ctx := context.Background()
	lim := crawl.Limits{MaxDepth: 2, MaxPagesPerHost: 7, InlinkBonus: 3, MaxInlinkBonus: 9}
	rng := rand.New(rand.NewPCG(7, 8))
	var seeds []crawl.NewURL
	for h := range 5 {
		for i := range 4 {
			seeds = append(seeds, U(fmt.Sprintf("http://h%d.test/s%d", h, i), 0, 10))
		}
	}
	if _, err := db.AddURLs(ctx, seeds, lim); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	hosts, err := db.ClaimHosts(ctx, "o", 100, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	var claimed []crawl.ClaimedURL
	for _, h := range hosts {
		us, _, err := db.ClaimURLs(ctx, "o", h.ID, 100, lim, now)
		if err != nil {
			t.Fatal(err)
		}
		claimed = append(claimed, us...)
	}
	slices.SortFunc(claimed, func(a, b crawl.ClaimedURL) int { return strings.Compare(a.URL, b.URL) })
	if len(claimed) != len(seeds) {
		t.Fatalf("claimed %d of %d seeds", len(claimed), len(seeds))
	}
	// New URLs on the seeds' hosts and on two new ones.
	var pool []string
	for h := range 7 {
		for i := range 6 {
			pool = append(pool, fmt.Sprintf("http://h%d.test/p%d", h, i))
		}
	}
	offered := map[string]bool{}
	depth := map[string]int{}
	var batch []crawl.Result
	for i, c := range claimed {
		r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
			Page: &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", FetchedAt: now, Title: "t", Text: "x"}}
		for range 6 {
			target := pool[rng.IntN(len(pool))]
			if rng.IntN(4) == 0 {
				target = claimed[rng.IntN(len(claimed))].URL
			}
			r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(target), Target: target,
				Anchor: "a", NoFollow: rng.IntN(8) == 0})
			if strings.Contains(target, "/p") && (!offered[target] || rng.IntN(6) == 0) {
				offered[target] = true
				// A URL is over depth every time or never: one refused
				// over depth and admitted later loses the links counted
				// before when added at once, not when staged.
				if depth[target] == 0 {
					depth[target] = 1 + rng.IntN(3)/2*2
				}
				u := U(target, depth[target], rng.IntN(5))
				u.Parent = c.ID
				r.Discovered = append(r.Discovered, u)
			}
		}
		batch = append(batch, r)
		if len(batch) == 3 || i == len(claimed)-1 {
			st, err := db.Commit(ctx, batch, lim)
			if err != nil {
				t.Fatal(err)
			}
			added += st.Add.Added
			overDepth += st.Add.OverDepth
			batch = batch[:0]
		}
	}
	return added, overDepth
}

// SamePacked checks that each of the URLs packed in runs of packed reads
// back by ID as its row in rows does (priority, inbound links, depth,
// state), and that some had inbound links: else the check shows nothing
// of their counts.
func SamePacked(t *testing.T, packed, rows crawl.Store, ids []crawl.ID) {
	t.Helper()
	ctx := context.Background()
	linked := 0
	for _, id := range ids {
		got, err := packed.URL(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want, err := rows.URL(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Priority != want.Priority || got.Inlinks != want.Inlinks || got.Depth != want.Depth || got.State != want.State {
			t.Errorf("packed URL %s: priority %d, %d inbound links, depth %d, state %v; as a row %d, %d, %d, %v",
				got.URL, got.Priority, got.Inlinks, got.Depth, got.State, want.Priority, want.Inlinks, want.Depth, want.State)
		}
		if got.Inlinks > 0 {
			linked++
		}
	}
	if linked == 0 {
		t.Error("no packed URL had inbound links: the test shows nothing of their counts")
	}
}
