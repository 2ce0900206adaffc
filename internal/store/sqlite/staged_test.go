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
		if _, err := db.w.ExecContext(ctx, `INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
			VALUES (?, ?, 1, 0, 0, 2, 1, 1)`, src, fmt.Sprint("http://s.test/", i)); err != nil {
			t.Fatal(err)
		}
	}
	words := []string{"graph", "", "Ærø", "survey", "graph", "x"}
	// want is what the outlinks rows hold: source → target → anchor.
	want := map[crawl.ID]map[crawl.ID]string{}
	// A link's anchor is one of words or, one time in four, a text of
	// its round alone, so that a link left behind shows.
	link := func(c *committer, src crawl.ID, n, round int) error {
		var ls []crawl.Link
		for range n {
			anchor := words[rng.IntN(len(words))]
			if rng.IntN(4) == 0 {
				anchor = fmt.Sprint("round", round)
			}
			ls = append(ls, crawl.Link{TargetID: targets[rng.IntN(len(targets))], Anchor: anchor})
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
	// would. Every third round but the last indexes nothing, as commits
	// whose pages wait for the index delay do: the links it stages and the
	// sources it deletes are met by the next round's indexing.
	const rounds = 20
	skips := func(round int) bool { return round%3 == 1 && round < rounds-1 }
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
				if err := link(c, src, 1+rng.IntN(5), round); err != nil {
					return err
				}
			}
			for _, id := range targets {
				if skips(round) {
					break
				}
				if err := tx.indexPage(ctx, &crawl.Page{ID: id, URL: fmt.Sprint("http://t.test/", id), Status: 200, ContentType: "text/html", Title: "t", Text: "x"}, true); err != nil {
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
		if !skips(round) {
			check(t, ctx, db, round, targets, want)
		}
	}
	for round := range rounds {
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

// TestInlinkAnchorsMigration: a database whose inlinks hold no anchors
// (the schema before 0026) opens with each merged link's anchor beside it,
// as its source's row holds it; its pages index again with the same
// anchor texts and a search answers as before; the migration runs again
// over its own result without change.
func TestInlinkAnchorsMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "old.db")
	db, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	rng := rand.New(rand.NewPCG(5, 6))
	var ids []crawl.ID
	for range 8 {
		ids = append(ids, crawl.ID(rng.Uint64()))
	}
	words := []string{"lighthouse", "", "Ærø keeper", "survey", "lighthouse", "tide tables"}
	page := func(id crawl.ID) *crawl.Page {
		return &crawl.Page{ID: id, URL: fmt.Sprint("http://t.test/", id), Status: 200, ContentType: "text/html",
			Title: "page", Text: "notes on coasts and harbours"}
	}
	// Every page links to a few others, merged into inlinks; then every
	// page is indexed.
	if err := db.tx(ctx, func(tx *txn) error {
		c, err := tx.prepareCommit(ctx)
		if err != nil {
			return err
		}
		for _, src := range ids {
			if _, err := tx.exec(ctx, `INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
				VALUES (?, ?, 1, 0, 0, 2, 1, 1)`, src, fmt.Sprint("http://t.test/", src)); err != nil {
				return err
			}
			if _, err := tx.exec(ctx, `INSERT INTO pages (url_id, url, status, content_type, title, text, host, fetched_at)
				VALUES (?, ?, 200, 'text/html', 'page', 'notes on coasts and harbours', 'http://t.test', 1)`, src, fmt.Sprint("http://t.test/", src)); err != nil {
				return err
			}
			var ls []crawl.Link
			for range 4 {
				ls = append(ls, crawl.Link{TargetID: ids[rng.IntN(len(ids))], Anchor: words[rng.IntN(len(words))]})
			}
			if err := c.insertLinks(ctx, src, ls); err != nil {
				return err
			}
		}
		return tx.mergeStaged(ctx)
	}); err != nil {
		t.Fatal(err)
	}
	reindex := func() {
		t.Helper()
		if err := db.tx(ctx, func(tx *txn) error {
			for _, id := range ids {
				if err := tx.indexPage(ctx, page(id), true); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	reindex()
	state := func() (map[crawl.ID]string, []crawl.SearchHit) {
		t.Helper()
		anchors := map[crawl.ID]string{}
		for _, id := range ids {
			var a, ref string
			if err := db.w.QueryRowContext(ctx, `SELECT anchors, `+anchorsOf("?1")+` FROM search_docs WHERE key = ?1`, ftsKey(id)).Scan(&a, &ref); err != nil {
				t.Fatal(err)
			}
			if a != ref {
				t.Errorf("page %d indexed with anchors %q; its links give %q", id, a, ref)
			}
			anchors[id] = a
		}
		res, err := db.Search(ctx, crawl.SearchRequest{Query: "lighthouse", Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		return anchors, res.Hits
	}
	wantAnchors, wantHits := state()
	if len(wantHits) == 0 {
		t.Fatal("no page found by its anchors")
	}
	same := func(when string) {
		t.Helper()
		var pairs, missing int
		if err := db.w.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(i.anchor <> acrawler_link_anchor(o.links, i.target_id)), 0)
			FROM inlinks i JOIN outlinks o ON o.source_id = i.source_id`).Scan(&pairs, &missing); err != nil {
			t.Fatal(err)
		}
		if pairs == 0 || missing != 0 {
			t.Errorf("%s: %d of %d inbound links without the anchor of their source's row", when, missing, pairs)
		}
		reindex()
		anchors, hits := state()
		for id, a := range wantAnchors {
			if anchors[id] != a {
				t.Errorf("%s: page %d indexed with anchors %q, before %q", when, id, anchors[id], a)
			}
		}
		if len(hits) != len(wantHits) {
			t.Fatalf("%s: %d hits, before %d", when, len(hits), len(wantHits))
		}
		for i := range hits {
			if hits[i].ID != wantHits[i].ID || hits[i].Score != wantHits[i].Score {
				t.Errorf("%s: hit %d is %d (%g), before %d (%g)", when, i, hits[i].ID, hits[i].Score, wantHits[i].ID, wantHits[i].Score)
			}
		}
	}
	// The schema before 0026.
	if err := db.ExecForTest(ctx, `ALTER TABLE inlinks DROP COLUMN anchor; PRAGMA user_version = 25`); err != nil {
		t.Fatal(err)
	}
	for _, when := range []string{"migrated", "migrated again"} {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if db, err = Open(ctx, file, Options{}); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		same(when)
		if err := db.ExecForTest(ctx, `PRAGMA user_version = 25`); err != nil {
			t.Fatal(err)
		}
	}
}
