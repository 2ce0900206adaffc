package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
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
