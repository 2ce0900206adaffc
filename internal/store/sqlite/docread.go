package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// foldedDoc is a document as a full-text table takes it: its key and its
// title, body and anchor texts folded (query.Fold).
type foldedDoc struct {
	key                  crawl.ID
	title, body, anchors string
	attrs                *docAttrs // the page's, when they were read with it
	err                  error
}

// docsAhead is how many documents each reader of readDocs keeps read
// ahead of the writes.
const docsAhead = 64

// docsRun is how many consecutive documents of readDocs one reader reads
// before the next reader's turn, and docsReaders how many readers read
// them at most: reading, decompressing and folding a document costs more
// than tokenizing it, and the end-of-crawl pass waited on one reader.
const (
	docsRun     = 32
	docsReaders = 2
)

// readDocs reads the documents of keys, in order, for the transaction to
// write into a full-text table: on reader connections, in goroutines of
// their own, each docsAhead ahead of the writes, so that the end-of-crawl
// pass reads, decompresses and folds on the cores its writer's tokenizing
// leaves. Up to docsReaders readers take turns of docsRun keys each, and
// next gives the documents back in the order of keys. anchors replaces
// the anchor texts of the documents whose anchors the transaction
// changed. A reader sees the last commit, not the transaction: the
// titles and texts of these documents must be as committed, as they are
// in the rank pass, which changes only anchor texts. The store's readers
// are open whenever it can be written (Open). stop ends the reading
// early; next returns an error once the reading failed.
func (t *txn) readDocs(ctx context.Context, keys []crawl.ID, anchors map[crawl.ID]string) (next func() (foldedDoc, error), stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	n := min(docsReaders, runtime.GOMAXPROCS(0), (len(keys)+docsRun-1)/docsRun)
	chans := make([]chan foldedDoc, max(n, 1))
	for i := range chans {
		docs := make(chan foldedDoc, docsAhead)
		chans[i] = docs
		var mine []crawl.ID // reader i's keys: turns i, i+n, i+2n, …
		for at := i * docsRun; at < len(keys); at += len(chans) * docsRun {
			mine = append(mine, keys[at:min(at+docsRun, len(keys))]...)
		}
		go func() {
			defer close(docs)
			if err := readDocsOn(ctx, t.db.r, mine, anchors, docs); err != nil {
				select {
				case docs <- foldedDoc{err: err}:
				case <-ctx.Done():
				}
			}
		}()
	}
	read := 0
	next = func() (foldedDoc, error) {
		d, ok := <-chans[read/docsRun%len(chans)]
		read++
		if !ok {
			return d, fmt.Errorf("documents: %w", context.Cause(ctx))
		}
		return d, d.err
	}
	stop = func() {
		cancel()
		for _, docs := range chans {
			for range docs {
			}
		}
	}
	return next, stop
}

// readDocsOn reads the documents of keys in one read transaction of a
// connection of r and sends them to docs, in order.
func readDocsOn(ctx context.Context, r *sql.DB, keys []crawl.ID, anchors map[crawl.ID]string, docs chan<- foldedDoc) error {
	conn, err := r.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	read, err := tx.PrepareContext(ctx, docRead)
	if err != nil {
		return err
	}
	defer read.Close()
	row := perRow(ctx)
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := readDoc(row, read, key, anchors)
		if d.err != nil {
			return d.err
		}
		select {
		case docs <- d:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// readDoc reads and folds the document of key with the statement docRead.
func readDoc(ctx context.Context, read *sql.Stmt, key crawl.ID, anchors map[crawl.ID]string) foldedDoc {
	title, body, anch, a, err := readDocRow(ctx, read, key)
	if err != nil {
		return foldedDoc{err: fmt.Errorf("document %d: %w", key, err)}
	}
	if changed, ok := anchors[key]; ok {
		anch = changed
	}
	return foldedDoc{key: key, title: query.Fold(title), body: query.Fold(body), anchors: query.Fold(anch), attrs: a}
}

// readDocRow reads the document of key with the statement docRead: its
// title, its body (indexedBody of its page's stored texts, unpacked here
// rather than by the query), its recorded anchor texts and its attributes.
func readDocRow(ctx context.Context, read *sql.Stmt, key crawl.ID) (title, body, anchors string, a *docAttrs, err error) {
	var text, mainText any
	a = &docAttrs{}
	if err = read.QueryRowContext(ctx, key).Scan(&title, &text, &mainText, &anchors, &a.host, &a.typ, &a.lang, &a.year); err != nil {
		return
	}
	body, err = indexedBody(text, mainText, maxBody)
	// Its own copy: the unpacked block holds the visible text too, and the
	// body, folded as it is when it has no capitals, stays with its
	// document until its segment is written.
	body = strings.Clone(body)
	return
}
