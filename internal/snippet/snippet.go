// Package snippet makes the snippets of search hits: the passage of a
// page's text (and of its title) that best shows a query's words, with
// the words marked, the same way for every store.
//
// A store's index keeps no copy of the texts it was built from, and a
// server's headline function reads a text whole at the server for every
// hit (PostgreSQL's ts_headline parsed 100 KB in 13–15 ms). So a snippet
// is made here, in the searching process: FTS5's snippet function runs on
// a copy of the one document in a private in-memory table, with the
// SQLite index's columns and tokenizer, on the window of a long text
// where the query's words meet (package passage): about 2 ms for a
// 100 KB text, where the whole text took 2.4–3.4 ms for two rare words
// and 42–44 ms for two common ones (BenchmarkOf).
package snippet

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // the in-memory databases snippets are made in

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/passage"
	"github.com/acrawler/acrawler/internal/query"
)

// Markers: the snippets Of returns wrap each marked word in them.
const (
	Open  = "\x01"
	Close = "\x02"
)

// Words is how many words a snippet holds at most.
const Words = passage.Words

// unmark takes the markers in a text for spaces, so that the only ones in
// a snippet are its own.
var unmark = strings.NewReplacer(Open, " ", Close, " ")

// table is the one-row full-text table snippets are made in: the columns
// and tokenizer of the SQLite store's index (its migration 0011).
const table = `CREATE VIRTUAL TABLE snip USING fts5(title, body, anchors,
	tokenize = 'unicode61 remove_diacritics 0')`

// conns is how many connections are kept open: at most this many
// snippets are made at once, the callers beyond wait for one.
const conns = 4

// Maker makes snippets. Its zero value is not usable: see New.
type Maker struct {
	db    *sql.DB
	idle  chan *conn
	slots chan struct{} // one per connection in use
}

// conn is a connection to a private in-memory database holding the
// snippet table, with its two statements prepared.
type conn struct {
	conn     *sql.Conn
	ins, sel *sql.Stmt
}

// New returns a Maker. It opens no connection until a snippet is made.
func New() (*Maker, error) {
	d, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	d.SetMaxOpenConns(conns)
	d.SetMaxIdleConns(conns)
	return &Maker{db: d, idle: make(chan *conn, conns), slots: make(chan struct{}, conns)}, nil
}

// Close closes the Maker's connections. No snippet may be in the making.
func (m *Maker) Close() error {
	for len(m.idle) > 0 {
		(<-m.idle).close()
	}
	return m.db.Close()
}

// Of returns a hit's snippets of its text and of its title for the query
// q, with its words between Open and Close, in the document's spelling:
// the index took the texts through query.Fold, as the query's words were,
// so the document is matched folded ("zoe" in "Zoë") and its fragments
// are given back as the page writes them (query.Unfold). Any of the
// query's positive terms is marked wherever it is. anchors are the page's
// inbound anchor texts, which the index holds too. A long text gives the
// window of it that holds the most of the query's words (passage.Window),
// with an ellipsis where it was cut. Open and Close in the texts
// themselves are taken for spaces. A document none of whose texts holds a term (its
// store matched it otherwise) gets the start of its text and its title,
// unmarked.
func (m *Maker) Of(ctx context.Context, q query.Query, title, body, anchors string) (bodySnip, titleSnip string, err error) {
	title, body = unmark.Replace(title), unmark.Replace(body)
	w, before, after := passage.Window(q, query.Fold(body))
	bodySnip, titleSnip, err = m.of(ctx, q.FTS5Any(), query.Fold(title), w, query.Fold(anchors))
	if errors.Is(err, sql.ErrNoRows) {
		words := strings.Fields(body)
		if len(words) > Words {
			return strings.Join(words[:Words], " ") + "…", title, nil
		}
		return strings.Join(words, " "), title, nil
	}
	if err != nil {
		return "", "", err
	}
	if before && !strings.HasPrefix(bodySnip, "…") {
		bodySnip = "…" + bodySnip
	}
	if after && !strings.HasSuffix(bodySnip, "…") {
		bodySnip += "…"
	}
	return query.Unfold(bodySnip, body), query.Unfold(titleSnip, title), nil
}

// Set sets a hit's snippet and marks from the snippets of its text and
// title (Of): the text's best passage, or the title's when only the title
// has the query's words (or the text is empty). When the title's snippet
// is the whole of h.Title, its marks become h.TitleMarks.
func Set(h *crawl.SearchHit, bodySnip, titleSnip string) {
	h.Snippet, h.Marks = crawl.Highlighted(bodySnip, Open, Close)
	if !strings.Contains(bodySnip, Open) && strings.Contains(titleSnip, Open) || strings.TrimSpace(h.Snippet) == "" {
		h.Snippet, h.Marks = crawl.Highlighted(titleSnip, Open, Close)
	}
	if t, marks := crawl.Highlighted(titleSnip, Open, Close); len(marks) > 0 && t == strings.Join(strings.Fields(h.Title), " ") {
		h.Title, h.TitleMarks = t, marks
	}
}

// of runs FTS5's snippet function on one document, folded, for the FTS5
// query match; sql.ErrNoRows if the query does not match it. The row is
// inserted in a transaction that is rolled back, so it is never tokenized
// a second time to be deleted.
func (m *Maker) of(ctx context.Context, match, title, body, anchors string) (bodySnip, titleSnip string, err error) {
	c, err := m.take(ctx)
	if err != nil {
		return "", "", err
	}
	tx, err := c.conn.BeginTx(ctx, nil)
	if err != nil {
		m.drop(c)
		return "", "", err
	}
	if _, err = tx.StmtContext(ctx, c.ins).ExecContext(ctx, title, body, anchors); err == nil {
		err = tx.StmtContext(ctx, c.sel).QueryRowContext(ctx, match).Scan(&bodySnip, &titleSnip)
	}
	if rerr := tx.Rollback(); rerr != nil {
		// The context ended: database/sql rolled the transaction back
		// itself, or tried to.
		m.drop(c)
		if cerr := ctx.Err(); cerr != nil {
			return "", "", cerr
		}
		return "", "", rerr
	}
	m.put(c)
	return bodySnip, titleSnip, err
}

// take takes an idle connection, or opens one; at most conns are in use,
// the callers beyond wait for one.
func (m *Maker) take(ctx context.Context) (*conn, error) {
	select {
	case m.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case c := <-m.idle:
		return c, nil
	default:
	}
	sc, err := m.db.Conn(ctx)
	if err != nil {
		<-m.slots
		return nil, err
	}
	c := &conn{conn: sc}
	if _, err = sc.ExecContext(ctx, table); err == nil {
		if c.ins, err = sc.PrepareContext(ctx, `INSERT INTO snip (rowid, title, body, anchors) VALUES (1, ?, ?, ?)`); err == nil {
			c.sel, err = sc.PrepareContext(ctx, fmt.Sprintf(`SELECT snippet(snip, 1, char(1), char(2), '…', %[1]d),
				snippet(snip, 0, char(1), char(2), '…', %[1]d) FROM snip WHERE snip MATCH ?`, Words))
		}
	}
	if err != nil {
		c.discard()
		<-m.slots
		return nil, err
	}
	return c, nil
}

// put returns a connection to the idle ones.
func (m *Maker) put(c *conn) {
	m.idle <- c
	<-m.slots
}

// drop discards a connection that failed.
func (m *Maker) drop(c *conn) {
	c.discard()
	<-m.slots
}

// close closes the connection's statements and gives it back to the pool
// of m.db, with its table: for connections that are still sound (Close
// closes the idle ones).
func (c *conn) close() {
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
func (c *conn) discard() {
	c.closeStmts()
	c.conn.Raw(func(any) error { return driver.ErrBadConn })
	c.conn.Close()
}

func (c *conn) closeStmts() {
	for _, s := range []*sql.Stmt{c.ins, c.sel} {
		if s != nil {
			s.Close()
		}
	}
}
