package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// Documents indexed late (Options.IndexDelay).
//
// A page's full-text row is written with the anchor texts of the links
// known when its page is committed, and the end-of-crawl pass (SetRanks)
// writes again every row whose anchors changed since: in a crawl most
// pages are linked from pages fetched after them, so most pages were
// tokenized twice, once at commit and once at the pass. With an index
// delay, a page's search_docs row is written at its commit as before, but
// its key waits in search_pending; the row enters pages_fts once in a
// later commit's transaction, when it is IndexDelay old, with the anchors
// known then, or at SetRanks, which writes every waiting row with its
// final anchors. A page committed less than IndexDelay before the pass is
// therefore tokenized once. Close writes what is still waiting, and so
// does the next open after a crash (the waiting keys commit with their
// pages, so none is lost).

// pendingBatch bounds how many waiting rows one commit's transaction
// writes to pages_fts, so that a commit after a pause does not hold the
// writer for long; later commits take the rest.
const pendingBatch = 1_000

// waitingDoc is a document taken from search_pending: its key, and
// whether pages_fts still holds the row of its page's previous document.
type waitingDoc struct {
	key     crawl.ID
	indexed bool
}

// dueTake takes from search_pending the ?2 oldest rows committed at ?1
// or before (through its index by time, search_pending_at).
const dueTake = `DELETE FROM search_pending WHERE key IN
	(SELECT key FROM search_pending WHERE at <= ?1 ORDER BY at LIMIT ?2) RETURNING key, indexed`

// due takes from search_pending, up to pendingBatch, the rows of the
// documents committed at least the index delay before now, the oldest
// first, and returns them in key order.
func (t *txn) due(ctx context.Context, now int64) ([]waitingDoc, error) {
	take, err := t.prep(ctx, dueTake)
	if err != nil {
		return nil, err
	}
	return scanWaiting(take.QueryContext(ctx, now-t.db.indexDelay.Milliseconds(), pendingBatch))
}

// indexDocs writes the full-text rows of the documents docs (in key
// order) from their search_docs rows and pages, in place of their pages'
// previous rows, their anchor texts read again (anchorsFor) and recorded
// when they changed. The deletes all come first, then the inserts (see
// ftsOp).
func (t *txn) indexDocs(ctx context.Context, docs []waitingDoc) error {
	if len(docs) == 0 {
		return nil
	}
	read, err := t.prep(ctx, docRead)
	if err != nil {
		return err
	}
	readAnchors, err := t.prep(ctx, anchorsRead)
	if err != nil {
		return err
	}
	set, err := t.prep(ctx, docAnchorsSet)
	if err != nil {
		return err
	}
	text, err := t.text(ctx)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if d.indexed {
			if err := text.delete(ctx, d.key); err != nil {
				return err
			}
		}
	}
	for _, d := range docs {
		title, body, old, a, err := readDocRow(ctx, read, d.key)
		if err != nil {
			return fmt.Errorf("full-text index %d: %w", d.key, err)
		}
		anchors, err := t.anchorsFor(ctx, readAnchors, urlIDOfKey(d.key))
		if err != nil {
			return fmt.Errorf("full-text index %d: anchor texts: %w", d.key, err)
		}
		if anchors != old {
			if _, err := set.ExecContext(ctx, anchors, d.key); err != nil {
				return fmt.Errorf("full-text index %d: %w", d.key, err)
			}
		}
		if err := text.insert(ctx, foldedDoc{key: d.key, title: query.Fold(title), body: query.Fold(body), anchors: query.Fold(anchors), attrs: a}); err != nil {
			return err
		}
	}
	return nil
}

// takeWaiting removes every row of search_pending and returns them in key
// order.
func (t *txn) takeWaiting(ctx context.Context) ([]waitingDoc, error) {
	return scanWaiting(t.tx.QueryContext(ctx, `DELETE FROM search_pending RETURNING key, indexed`))
}

// scanWaiting reads the rows a DELETE … RETURNING key, indexed took from
// search_pending and returns them in key order.
func scanWaiting(rows *sql.Rows, err error) ([]waitingDoc, error) {
	if err != nil {
		return nil, fmt.Errorf("full-text index: waiting rows: %w", err)
	}
	defer rows.Close()
	var out []waitingDoc
	for rows.Next() {
		var w waitingDoc
		if err := rows.Scan(&w.key, &w.indexed); err != nil {
			return nil, fmt.Errorf("full-text index: waiting rows: %w", err)
		}
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("full-text index: waiting rows: %w", err)
	}
	slices.SortFunc(out, func(a, b waitingDoc) int { return cmp.Compare(a.key, b.key) })
	return out, nil
}

// IndexPending writes to the full-text index every document waiting for
// the index delay, and returns how many there were.
func (db *DB) IndexPending(ctx context.Context) (int, error) {
	var n int
	err := db.tx(ctx, func(t *txn) error {
		docs, err := t.takeWaiting(ctx)
		if err != nil {
			return err
		}
		n = len(docs)
		return t.indexDocs(ctx, docs)
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: index waiting pages: %w", err)
	}
	return n, nil
}

// indexLeftWaiting writes, at open, the rows a process that ended without
// closing the store (killed, crashed) left waiting for the index delay:
// up to the delay's worth of a crawl's pages, which it logs.
func (db *DB) indexLeftWaiting(ctx context.Context) error {
	var waiting bool
	if err := db.w.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_pending)`).Scan(&waiting); err != nil {
		return fmt.Errorf("sqlite: index waiting pages: %w", err)
	}
	if !waiting {
		return nil
	}
	db.log.Info("indexing the pages an earlier process left waiting for the index delay", "db", db.path)
	start := time.Now()
	n, err := db.IndexPending(ctx)
	if err != nil {
		return err
	}
	db.log.Info("waiting pages indexed", "db", db.path, "pages", n, "took", time.Since(start).Round(time.Millisecond))
	return nil
}
