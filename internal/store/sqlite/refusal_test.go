package sqlite

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestRefusal: SQLite's errors that come again for the same statement are
// marked refused (the crawl stops at once); a busy database is not.
func TestRefusal(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.db")
	open := func() *sql.DB {
		d, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(0)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		d.SetMaxOpenConns(1)
		t.Cleanup(func() { d.Close() })
		return d
	}
	a, b := open(), open()
	if _, err := a.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL CHECK (v <> 'bad'))`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO t (k, v) VALUES (1, NULL)`,  // NOT NULL
		`INSERT INTO t (k, v) VALUES (1, 'bad')`, // CHECK
		`INSERT INTO missing VALUES (1)`,         // no such table
		`SELECT * FROM t INDEXED BY missing`,     // no such index
	} {
		_, err := a.Exec(q)
		if err == nil || !errors.Is(refusal(err), crawl.ErrRefused) {
			t.Errorf("%s: %v, not refused", q, err)
		}
	}
	tx, err := a.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO t (k, v) VALUES (2, 'x')`); err != nil {
		t.Fatal(err)
	}
	_, err = b.Exec(`INSERT INTO t (k, v) VALUES (3, 'y')`)
	if err == nil {
		t.Fatal("a second writer was not kept out")
	}
	if errors.Is(refusal(err), crawl.ErrRefused) {
		t.Errorf("busy database (%v) counted as refused", err)
	}
	if errors.Is(refusal(errors.New("disk I/O")), crawl.ErrRefused) {
		t.Error("an error not from SQLite counted as refused")
	}
}
