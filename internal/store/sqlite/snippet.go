package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// snippetTable is the one-row full-text table search snippets are made in:
// the columns and tokenizer of the index (migration 0011).
const snippetTable = `CREATE VIRTUAL TABLE IF NOT EXISTS snip USING fts5(title, body, anchors,
	tokenize = 'unicode61 remove_diacritics 0')`

// openSnippets opens the pool of private in-memory databases snippets are
// made in (each connection has its own).
func openSnippets() (*sql.DB, error) {
	d, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	d.SetMaxOpenConns(4)
	d.SetMaxIdleConns(4)
	return d, nil
}

// snippets returns a search hit's snippets of its text and of its title,
// with FTS5's match markers (char 1 and 2). The full-text index keeps no
// copy of the text (migration 0011), so FTS5's snippet function runs on a
// copy of the one document in a private in-memory table, with the same
// tokenizer and the same query: the fragments an index keeping its text
// would give. A document the query does not match there (which the index
// matched, so it should not happen) gets the start of its text.
func (db *DB) snippets(ctx context.Context, match, title, body, anchors string) (bodySnip, titleSnip string, err error) {
	conn, err := db.snip.Conn(ctx)
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, snippetTable); err != nil {
		return "", "", err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return "", "", err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO snip (rowid, title, body, anchors) VALUES (1, ?, ?, ?)`, title, body, anchors); err != nil {
		return "", "", err
	}
	err = tx.QueryRowContext(ctx, `SELECT snippet(snip, 1, char(1), char(2), '…', 24), snippet(snip, 0, char(1), char(2), '…', 24)
		FROM snip WHERE snip MATCH ?`, match).Scan(&bodySnip, &titleSnip)
	if errors.Is(err, sql.ErrNoRows) {
		words := strings.Fields(body)
		if len(words) > 24 {
			return strings.Join(words[:24], " ") + "…", title, nil
		}
		return strings.Join(words, " "), title, nil
	}
	return bodySnip, titleSnip, err
}
