package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"

	"github.com/acrawler/acrawler/internal/query"
)

// snippetTable is the one-row full-text table search snippets are made in:
// the columns and tokenizer of the index (migration 0011).
const snippetTable = `CREATE VIRTUAL TABLE snip USING fts5(title, body, anchors,
	tokenize = 'unicode61 remove_diacritics 0')`

// snippetConns is how many snippet connections are kept open.
const snippetConns = 4

// snippetConn is a connection to a private in-memory database holding
// the snippet table, with its two statements prepared.
type snippetConn struct {
	conn     *sql.Conn
	ins, sel *sql.Stmt
}

// openSnippets opens the pool of private in-memory databases snippets are
// made in (each connection has its own).
func openSnippets() (*sql.DB, error) {
	d, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	d.SetMaxOpenConns(snippetConns)
	d.SetMaxIdleConns(snippetConns)
	return d, nil
}

// snippetConn takes an idle snippet connection, or opens one; at most
// snippetConns are in use, the callers beyond wait for one.
func (db *DB) snippetConn(ctx context.Context) (*snippetConn, error) {
	select {
	case db.snipSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case c := <-db.snipIdle:
		return c, nil
	default:
	}
	conn, err := db.snip.Conn(ctx)
	if err != nil {
		<-db.snipSlots
		return nil, err
	}
	c := &snippetConn{conn: conn}
	if _, err = conn.ExecContext(ctx, snippetTable); err == nil {
		if c.ins, err = conn.PrepareContext(ctx, `INSERT INTO snip (rowid, title, body, anchors) VALUES (1, ?, ?, ?)`); err == nil {
			c.sel, err = conn.PrepareContext(ctx, `SELECT snippet(snip, 1, char(1), char(2), '…', 24),
				snippet(snip, 0, char(1), char(2), '…', 24) FROM snip WHERE snip MATCH ?`)
		}
	}
	if err != nil {
		c.discard()
		<-db.snipSlots
		return nil, err
	}
	return c, nil
}

// putSnippetConn returns a connection to the idle ones.
func (db *DB) putSnippetConn(c *snippetConn) {
	db.snipIdle <- c
	<-db.snipSlots
}

// dropSnippetConn discards a connection that failed.
func (db *DB) dropSnippetConn(c *snippetConn) {
	c.discard()
	<-db.snipSlots
}

// close closes the connection's statements and gives it back to the pool
// of db.snip, with its table: for connections that are still sound (Close
// closes the idle ones).
func (c *snippetConn) close() {
	c.closeStmts()
	c.conn.Close()
}

// discard closes a connection that failed for good: its in-memory
// database, which may still hold the table, a row or an open transaction,
// goes with it. Given back to the pool instead, it made every later
// connection's CREATE VIRTUAL TABLE fail (the table already existed): one
// cancelled search broke all the searches after it. database/sql closes a
// connection, instead of pooling it, when Raw's function returns
// driver.ErrBadConn.
func (c *snippetConn) discard() {
	c.closeStmts()
	c.conn.Raw(func(any) error { return driver.ErrBadConn })
	c.conn.Close()
}

func (c *snippetConn) closeStmts() {
	for _, s := range []*sql.Stmt{c.ins, c.sel} {
		if s != nil {
			s.Close()
		}
	}
}

// snippets returns a search hit's snippets of its text and of its title,
// with FTS5's match markers (char 1 and 2). The full-text index keeps no
// copy of the text (migration 0011), so FTS5's snippet function runs on a
// copy of the one document in a private in-memory table, with the same
// tokenizer and the same query: the fragments an index keeping its text
// would give. The row is inserted in a transaction that is rolled back,
// so it is never tokenized a second time to be deleted. The index took
// the text through query.Fold, as the query's words were: the document is
// matched folded ("zoe" in "Zoë"), and its fragments are given back in
// the document's own spelling (query.Unfold). A document the query does
// not match at all (which the index matched, so it should not happen)
// gets the start of its text.
func (db *DB) snippets(ctx context.Context, match, title, body, anchors string) (bodySnip, titleSnip string, err error) {
	ft, fb, fa := query.Fold(title), query.Fold(body), query.Fold(anchors)
	bodySnip, titleSnip, err = db.snippetsOf(ctx, match, ft, fb, fa)
	if errors.Is(err, sql.ErrNoRows) {
		words := strings.Fields(body)
		if len(words) > 24 {
			return strings.Join(words[:24], " ") + "…", title, nil
		}
		return strings.Join(words, " "), title, nil
	}
	if err != nil {
		return "", "", err
	}
	return query.Unfold(bodySnip, body), query.Unfold(titleSnip, title), nil
}

// snippetsOf runs FTS5's snippet function on one document; sql.ErrNoRows
// if the query does not match it.
func (db *DB) snippetsOf(ctx context.Context, match, title, body, anchors string) (bodySnip, titleSnip string, err error) {
	c, err := db.snippetConn(ctx)
	if err != nil {
		return "", "", err
	}
	tx, err := c.conn.BeginTx(ctx, nil)
	if err != nil {
		db.dropSnippetConn(c)
		return "", "", err
	}
	if _, err = tx.StmtContext(ctx, c.ins).ExecContext(ctx, title, body, anchors); err == nil {
		err = tx.StmtContext(ctx, c.sel).QueryRowContext(ctx, match).Scan(&bodySnip, &titleSnip)
	}
	if rerr := tx.Rollback(); rerr != nil {
		// The context ended: database/sql rolled the transaction back
		// itself, or tried to.
		db.dropSnippetConn(c)
		if cerr := ctx.Err(); cerr != nil {
			return "", "", cerr
		}
		return "", "", rerr
	}
	db.putSnippetConn(c)
	return bodySnip, titleSnip, err
}
