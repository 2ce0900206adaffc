package sqlite

import (
	"context"
	"database/sql"
)

// maxCachedStmts bounds the writer's statement cache: statements built
// with a varying number of placeholders are not all worth keeping.
const maxCachedStmts = 256

// The write path runs a handful of statements for every page it commits;
// preparing (parsing and planning) each of them every time cost about as
// much as running them. A transaction therefore prepares a statement once
// (prep), and a statement a transaction had to prepare is prepared again
// on the writer connection once the transaction is over (the single
// connection is busy until then), so later transactions only bind it to
// themselves. The cache is learned from use: nothing lists the statements.

// prep returns q prepared in the transaction, from the transaction's or
// the writer's cache when it is there. The statement is closed with the
// transaction; callers do not close it.
func (t *txn) prep(ctx context.Context, q string) (*sql.Stmt, error) {
	if s, ok := t.stmts[q]; ok {
		return s, nil
	}
	var s *sql.Stmt
	if parent := t.db.stmts[q]; parent != nil {
		s = t.tx.StmtContext(ctx, parent)
	} else {
		var err error
		if s, err = t.tx.PrepareContext(ctx, q); err != nil {
			return nil, err
		}
		if len(t.db.stmts)+len(t.db.want) < maxCachedStmts {
			t.db.want[q] = struct{}{}
		}
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[q] = s
	return s, nil
}

func (t *txn) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	s, err := t.prep(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

func (t *txn) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := t.prep(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (t *txn) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	s, err := t.prep(ctx, q)
	if err != nil {
		// The same statement fails again and Scan reports it.
		return t.tx.QueryRowContext(ctx, q, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// prepareWanted prepares on the writer connection the statements that
// the last transactions prepared for themselves. db.mu is held and no
// transaction is open.
func (db *DB) prepareWanted(ctx context.Context) {
	for q := range db.want {
		delete(db.want, q)
		if s, err := db.w.PrepareContext(ctx, q); err == nil {
			db.stmts[q] = s
		}
	}
}

// closeStmts releases the writer's cached statements.
func (db *DB) closeStmts() {
	db.mu.Lock()
	defer db.mu.Unlock()
	for q, s := range db.stmts {
		s.Close()
		delete(db.stmts, q)
	}
}
