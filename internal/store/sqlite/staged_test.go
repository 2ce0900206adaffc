package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestStagedInlinks checks the staged inbound links through staging,
// merges, deletions and a restart: a page is indexed with the anchor
// texts anchorsOf gives it (inlinks and staged links both), Inlinks lists
// every page linking to a target, and once merged, inlinks holds exactly
// the pairs the outlinks rows hold.
func TestStagedInlinks(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "staged.db")
	db, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	defer func(n int) { mergeLinks = n }(mergeLinks)
	mergeLinks = 40

	rng := rand.New(rand.NewPCG(3, 4))
	var targets, sources []crawl.ID
	for range 12 {
		targets = append(targets, crawl.ID(rng.Uint64()))
	}
	for range 30 {
		sources = append(sources, crawl.ID(rng.Uint64()))
	}
	// Inlinks lists a source by its URL.
	for i, src := range sources {
		if _, err := db.w.ExecContext(ctx, `INSERT INTO urls (id, url, host_id, depth, priority, state, via, seq, discovered_at)
			VALUES (?, ?, 1, 0, 0, 2, 'seed', ?, 1)`, src, fmt.Sprint("http://s.test/", i), i); err != nil {
			t.Fatal(err)
		}
	}
	words := []string{"graph", "", "Ærø", "survey", "graph", "x"}
	// want is what the outlinks rows hold: source → target → anchor.
	want := map[crawl.ID]map[crawl.ID]string{}
	link := func(c *committer, src crawl.ID, n int) error {
		var ls []crawl.Link
		for range n {
			ls = append(ls, crawl.Link{TargetID: targets[rng.IntN(len(targets))], Anchor: words[rng.IntN(len(words))]})
		}
		if want[src] == nil {
			want[src] = map[crawl.ID]string{}
		}
		for _, l := range ls {
			if _, ok := want[src][l.TargetID]; !ok {
				want[src][l.TargetID] = l.Anchor
			}
		}
		return c.insertLinks(ctx, src, ls)
	}
	// step stages links from a few sources (deleting some first), then
	// indexes every target in the same transaction, merging when a commit
	// would.
	step := func(round int) {
		t.Helper()
		err := db.tx(ctx, func(tx *txn) error {
			c, err := tx.prepareCommit(ctx)
			if err != nil {
				return err
			}
			for i := range 6 {
				src := sources[rng.IntN(len(sources))]
				if i == 0 && round%2 == 1 {
					if err := c.deleteLinks(ctx, src); err != nil {
						return err
					}
					delete(want, src)
				}
				if err := link(c, src, 1+rng.IntN(5)); err != nil {
					return err
				}
			}
			for _, id := range targets {
				if err := tx.indexPage(ctx, &crawl.Page{ID: id, URL: fmt.Sprint("http://t.test/", id), Status: 200, ContentType: "text/html", Title: "t", Text: "x"}); err != nil {
					return err
				}
			}
			if tx.stagedCount() >= mergeLinks {
				return tx.mergeStaged(ctx)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		check(t, ctx, db, round, targets, want)
	}
	for round := range 20 {
		step(round)
		if round == 9 {
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = Open(ctx, file, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	merged := false
	for round := range 3 {
		if err := db.tx(ctx, func(tx *txn) error { merged = true; return tx.mergeStaged(ctx) }); err != nil {
			t.Fatal(err)
		}
		check(t, ctx, db, 100+round, targets, want)
	}
	if !merged {
		t.Fatal("no merge")
	}
	var staged, pairs int
	if err := db.w.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM inlinks_staged), (SELECT count(*) FROM inlinks)`).Scan(&staged, &pairs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ts := range want {
		n += len(ts)
	}
	if staged != 0 || pairs != n {
		t.Errorf("after the merge: %d staged sources, %d pairs in inlinks; want 0 and %d", staged, pairs, n)
	}
}

// check compares what the store says of the links with want.
func check(t *testing.T, ctx context.Context, db *DB, round int, targets []crawl.ID, want map[crawl.ID]map[crawl.ID]string) {
	t.Helper()
	for _, id := range targets {
		var got, ref string
		if err := db.w.QueryRowContext(ctx, `SELECT anchors, `+anchorsOf("?1")+` FROM search_docs WHERE key = ?1`, ftsKey(id)).Scan(&got, &ref); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		// The reference from want: distinct texts in source order.
		var srcs []crawl.ID
		for src, ts := range want {
			if _, ok := ts[id]; ok {
				srcs = append(srcs, src)
			}
		}
		slices.Sort(srcs)
		var as anchorSet
		for _, src := range srcs {
			as.add([]byte(want[src][id]))
		}
		if got != ref || got != string(as.joined) {
			t.Errorf("round %d: target %d indexed with anchors %q; anchorsOf says %q, the links %q", round, id, got, ref, as.joined)
		}
		in, err := db.Inlinks(ctx, id, 1000)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		var gotSrcs []crawl.ID
		for _, l := range in {
			gotSrcs = append(gotSrcs, l.Source)
			if l.Anchor != want[l.Source][id] {
				t.Errorf("round %d: inlink %d → %d has anchor %q, want %q", round, l.Source, id, l.Anchor, want[l.Source][id])
			}
		}
		slices.Sort(gotSrcs)
		if !slices.Equal(gotSrcs, srcs) {
			t.Errorf("round %d: Inlinks of %d from %v, want %v", round, id, gotSrcs, srcs)
		}
	}
}
