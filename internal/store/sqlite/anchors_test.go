package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestAnchorsGathered checks that the anchor texts the end-of-crawl pass
// gathers in one scan of the links (changedAnchors) are those anchorsOf
// gives each document: the same texts, in the same order, deduplicated,
// at most 200 of them and maxAnchors characters (multi-byte ones
// included), for documents read in several chunks, with links to URLs
// that are not documents and documents without links.
func TestAnchorsGathered(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "anchors.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer func(n int) { anchorChunk = n }(anchorChunk)
	anchorChunk = 7

	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"graph", "Ærø Œuvre", "survey", "", "neural networks", "données", "graph", "x"}
	var targets []crawl.ID
	for range 40 {
		targets = append(targets, crawl.ID(rng.Uint64()))
	}
	long := strings.Repeat("é", 700)
	type link struct {
		src, dst crawl.ID
		anchor   string
	}
	var links []link
	for i := range 3000 {
		src := crawl.ID(rng.Uint64())
		dst := targets[rng.IntN(len(targets))]
		if i%4 == 0 {
			dst = targets[0]
		}
		a := words[rng.IntN(len(words))]
		switch {
		case dst == targets[0]:
			a = fmt.Sprintf("d%d", i) // more than 200 distinct texts, short
		case dst == targets[1]:
			a = long + fmt.Sprint(i%5) // past maxAnchors characters
		case i%97 == 0:
			dst = crawl.ID(rng.Uint64()) // not a document
		}
		links = append(links, link{src, dst, a})
	}
	err = db.tx(ctx, func(tx *txn) error {
		c, err := tx.prepareCommit(ctx)
		if err != nil {
			return err
		}
		for _, l := range links {
			if err := c.insertLinks(ctx, l.src, []crawl.Link{{TargetID: l.dst, Anchor: l.anchor}}); err != nil {
				return err
			}
		}
		// Documents: every target, one more without links; half of them
		// indexed with their anchors as they are now, some in the tier.
		docs := append(targets, crawl.ID(rng.Uint64()))
		for i, id := range docs {
			old := "stale"
			if i%2 == 0 {
				if err := tx.queryRow(ctx, `SELECT `+anchorsOf("?1"), ftsKey(id)).Scan(&old); err != nil {
					return err
				}
			}
			if _, err := tx.exec(ctx, `INSERT INTO search_docs (key, title, anchors) VALUES (?, '', ?)`, ftsKey(id), old); err != nil {
				return err
			}
			if i%3 == 0 {
				if _, err := tx.exec(ctx, `INSERT INTO search_tier (url_id) VALUES (?)`, ftsKey(id)); err != nil {
					return err
				}
			}
		}
		// What anchorsOf says has changed, in key order.
		rows, err := tx.tx.QueryContext(ctx, `SELECT key, anchors, key IN (SELECT url_id FROM search_tier) FROM
			(SELECT d.key, d.anchors AS old, `+anchorsOf("d.key")+` AS anchors FROM search_docs d)
			WHERE anchors IS NOT old ORDER BY key`)
		if err != nil {
			return err
		}
		var want []anchorDoc
		for rows.Next() {
			var d anchorDoc
			if err := rows.Scan(&d.key, &d.anchors, &d.tier); err != nil {
				return err
			}
			want = append(want, d)
		}
		rows.Close()
		got, err := tx.changedAnchors(ctx)
		if err != nil {
			return err
		}
		if len(want) < 15 {
			t.Errorf("only %d documents changed: the test data is too thin", len(want))
		}
		if len(got) != len(want) {
			t.Fatalf("changedAnchors found %d documents, anchorsOf %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("document %d: changedAnchors = %+.120v\nanchorsOf = %+.120v", i, got[i], want[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAnchorsMarked checks the pass's look at marked documents alone
// (markedChangedAnchors, taken when few pages were marked): a new page's
// links, links added to a page's row, and a page's links deleted leave
// the marks from which the next pass finds every document whose anchor
// texts changed, as anchorsOf gives them. A document planted stale with
// no mark is left alone, which only the marked look does.
func TestAnchorsMarked(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "anchors.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"graph", "survey", "", "neural networks", "données", "x"}
	var docs []crawl.ID
	for range 60 {
		docs = append(docs, crawl.ID(rng.Uint64()))
	}
	links := func() []crawl.Link {
		var ls []crawl.Link
		for range 3 {
			ls = append(ls, crawl.Link{TargetID: docs[rng.IntN(len(docs))], Anchor: words[rng.IntN(len(words))]})
		}
		return ls
	}
	var sources []crawl.ID
	for range 200 {
		sources = append(sources, crawl.ID(rng.Uint64()))
	}
	// pass gives the documents their changed anchors and returns them.
	pass := func(tx *txn) ([]anchorDoc, error) {
		if err := tx.mergeStaged(ctx); err != nil {
			return nil, err
		}
		got, err := tx.changedAnchors(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range got {
			if _, err := tx.exec(ctx, `UPDATE search_docs SET anchors = ? WHERE key = ?`, d.anchors, d.key); err != nil {
				return nil, err
			}
		}
		return got, nil
	}
	// wrong lists the documents whose anchors are not anchorsOf's.
	wrong := func(tx *txn) ([]crawl.ID, error) {
		rows, err := tx.tx.QueryContext(ctx, `SELECT key FROM search_docs d WHERE anchors IS NOT `+anchorsOf("d.key")+` ORDER BY key`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []crawl.ID
		for rows.Next() {
			var k crawl.ID
			if err := rows.Scan(&k); err != nil {
				return nil, err
			}
			out = append(out, k)
		}
		return out, rows.Err()
	}
	planted := ftsKey(docs[0])
	err = db.tx(ctx, func(tx *txn) error {
		c, err := tx.prepareCommit(ctx)
		if err != nil {
			return err
		}
		for _, s := range sources {
			if err := c.insertLinks(ctx, s, links()); err != nil {
				return err
			}
		}
		for _, id := range docs {
			if _, err := tx.exec(ctx, `INSERT INTO search_docs (key, title, anchors) VALUES (?, '', '')`, ftsKey(id)); err != nil {
				return err
			}
		}
		// A store of many pages, of which these sources are few.
		if _, err := tx.exec(ctx, `INSERT INTO counters (name, value) VALUES ('pages', 1000)
			ON CONFLICT (name) DO UPDATE SET value = 1000`); err != nil {
			return err
		}
		if _, err := pass(tx); err != nil {
			return err
		}
		if w, err := wrong(tx); err != nil || len(w) > 0 {
			t.Errorf("after the first pass, %d documents have anchor texts that are not anchorsOf's (err %v)", len(w), err)
		}
		// A document set wrong behind the store's back, with no mark.
		_, err = tx.exec(ctx, `UPDATE search_docs SET anchors = 'planted' WHERE key = ?`, planted)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.tx(ctx, func(tx *txn) error {
		c, err := tx.prepareCommit(ctx)
		if err != nil {
			return err
		}
		if err := c.insertLinks(ctx, crawl.ID(rng.Uint64()), []crawl.Link{{TargetID: docs[1], Anchor: "fresh"}, {TargetID: docs[2], Anchor: "new words"}}); err != nil {
			return err
		}
		if err := c.insertLinks(ctx, sources[5], []crawl.Link{{TargetID: docs[3], Anchor: "added later"}}); err != nil {
			return err
		}
		var has int
		if err := tx.queryRow(ctx, `SELECT count(*) FROM outlinks WHERE source_id = ?`, sources[7]).Scan(&has); err != nil || has != 1 {
			t.Fatalf("outlinks rows of the source to delete: %d, %v", has, err)
		}
		if err := c.deleteLinks(ctx, sources[7]); err != nil {
			return err
		}
		want, err := wrong(tx)
		if err != nil {
			return err
		}
		want = slices.DeleteFunc(want, func(k crawl.ID) bool { return k == planted })
		if len(want) < 3 {
			t.Errorf("only %d documents changed: the test data is too thin", len(want))
		}
		got, err := pass(tx)
		if err != nil {
			return err
		}
		var keys []crawl.ID
		for _, d := range got {
			keys = append(keys, d.key)
		}
		if !slices.Equal(keys, want) {
			t.Errorf("the pass found %v changed, want %v", keys, want)
		}
		w, err := wrong(tx)
		if err != nil {
			return err
		}
		if !slices.Equal(w, []crawl.ID{planted}) {
			t.Errorf("after the pass, documents whose anchor texts are not anchorsOf's: %v, want only the planted one %v", w, planted)
		}
		var marks int
		if err := tx.queryRow(ctx, `SELECT (SELECT count(*) FROM anchors_sources) + (SELECT count(*) FROM anchors_stale)`).Scan(&marks); err != nil {
			return err
		}
		if marks != 0 {
			t.Errorf("%d marks left after the pass", marks)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
