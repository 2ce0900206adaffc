package sqlite

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// readDocs gives the documents in the order asked, folded, with the
// transaction's anchor texts where it has them, however many readers read
// them; fails on a document that is not there; and leaves no reader
// behind when stopped early.
func TestReadDocs(t *testing.T) {
	ctx := context.Background()
	c := newDelayCrawl(t, Options{})
	db := c.db
	urls := []string{"http://a.test/1", "http://a.test/2", "http://b.test/3"}
	texts := map[string]string{}
	for i, u := range urls {
		texts[u] = strings.Repeat("Ærø text ", 40*(i+1))
	}
	c.commit(texts, nil)
	var keys []crawl.ID
	for _, u := range urls {
		keys = append(keys, ftsKey(crawl.URLID(u)))
	}
	slices.Sort(keys)
	goroutines := runtime.NumGoroutine()

	err := db.tx(ctx, func(tx *txn) error {
		next, stop := tx.readDocs(ctx, keys, map[crawl.ID]string{keys[1]: "New Anchor"})
		for i, key := range keys {
			d, err := next()
			u := urlIDOfKey(key)
			var want string
			for _, url := range urls {
				if crawl.URLID(url) == u {
					want = texts[url]
				}
			}
			if err != nil || d.key != key || d.body != query.Fold(want) || want == "" {
				t.Errorf("document %d: key %d, body %.20q…, %v; want key %d", i, d.key, d.body, err, key)
			}
			if wantA := map[bool]string{true: "new anchor", false: ""}[i == 1]; d.anchors != wantA {
				t.Errorf("document %d: anchors %q, want %q", i, d.anchors, wantA)
			}
		}
		stop()

		// A key with no document ends the reading with an error.
		next, stop = tx.readDocs(ctx, []crawl.ID{keys[0], keys[2] + 1, keys[2]}, nil)
		if _, err := next(); err != nil {
			t.Errorf("first document: %v", err)
		}
		if _, err := next(); err == nil || !strings.Contains(err.Error(), "document") {
			t.Errorf("a missing document: %v, want an error naming it", err)
		}
		stop()

		// Many documents come from readers taking turns, in the order
		// asked.
		many := slices.Repeat(keys, 200)
		next, stop = tx.readDocs(ctx, many, nil)
		for i, key := range many {
			if d, err := next(); err != nil || d.key != key {
				t.Fatalf("document %d of many: key %d, %v; want key %d", i, d.key, err, key)
			}
		}
		if _, err := next(); err == nil {
			t.Error("a document read after the last of many")
		}
		stop()

		// Stopped after one of many, the readers end.
		next, stop = tx.readDocs(ctx, many, nil)
		if _, err := next(); err != nil {
			t.Errorf("first of many: %v", err)
		}
		stop()
		return errors.New("rolled back")
	})
	if err == nil || !strings.Contains(err.Error(), "rolled back") {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("%d goroutines after the reads, %d before", n, goroutines)
	}
}
