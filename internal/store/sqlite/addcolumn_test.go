package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// A migration that adds columns with PostgreSQL's "ADD COLUMN IF NOT
// EXISTS" runs on SQLite, and runs again over a table that has them.
func TestAddColumnIfNotExists(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE hosts (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	const migration = `-- ALTER TABLE hosts ADD COLUMN IF NOT EXISTS in a comment is harmless
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS value    INTEGER NOT NULL DEFAULT 0;
alter table hosts add column if not exists value_pages INTEGER NOT NULL DEFAULT 7;
CREATE INDEX IF NOT EXISTS hosts_value ON hosts (value);`
	for run := range 3 {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := addColumns(ctx, tx, migration)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if _, err := tx.ExecContext(ctx, stmts); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, stmts)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO hosts (id) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	var v, p int
	if err := db.QueryRowContext(ctx, `SELECT value, value_pages FROM hosts`).Scan(&v, &p); err != nil || v != 0 || p != 7 {
		t.Errorf("value, value_pages = %d, %d, %v; want 0, 7", v, p, err)
	}
}
