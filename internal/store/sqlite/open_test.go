package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// snapshot is what a refused open must leave as it was: the database
// file's bytes and modification time and the names in its directory.
type snapshot struct {
	data  []byte
	mtime time.Time
	names []string
	// shared allows the -wal and -shm files SQLite's readers share to
	// appear (a read-only connection cannot remove them), and a lock file.
	shared bool
}

func snap(t *testing.T, file string) snapshot {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{data: b, mtime: fi.ModTime()}
	for _, e := range ents {
		s.names = append(s.names, e.Name())
	}
	return s
}

func (s snapshot) check(t *testing.T, file, what string) {
	t.Helper()
	now := snap(t, file)
	if !bytes.Equal(now.data, s.data) {
		t.Errorf("%s changed the bytes of %s", what, file)
	}
	if !now.mtime.Equal(s.mtime) {
		t.Errorf("%s changed the modification time of %s: %v, was %v", what, file, now.mtime, s.mtime)
	}
	if s.shared {
		beside := func(n string) bool {
			b := filepath.Base(file)
			return n == b+"-wal" || n == b+"-shm" || n == b+".lock"
		}
		now.names = slices.DeleteFunc(now.names, beside)
		s.names = slices.DeleteFunc(slices.Clone(s.names), beside)
	}
	if strings.Join(now.names, " ") != strings.Join(s.names, " ") {
		t.Errorf("%s changed the directory: %q, was %q", what, now.names, s.names)
	}
}

// foreignDB makes a SQLite database of another program, with stmts, in
// the rollback-journal mode SQLite starts with.
func foreignDB(t *testing.T, stmts ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return file
}

// TestForeignDatabaseIsRefused: a SQLite file of another program is
// refused with one line naming its tables, before anything in it changes
// (no table added, no switch to WAL), by every way of opening it.
func TestForeignDatabaseIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		stmts []string
		want  string
	}{
		{"unrelated tables", []string{`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)`,
			`CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER)`, `INSERT INTO users VALUES (1, 'ada')`},
			"is not an acrawler database (it has tables: orders, users); refusing to change it"},
		{"a conflicting table", []string{`CREATE TABLE hosts (name TEXT)`, `PRAGMA user_version = 3`},
			"is not an acrawler database (it has tables: hosts); refusing to change it"},
		{"a view only", []string{`CREATE TABLE t (a)`, `CREATE INDEX t_a ON t (a)`, `DROP TABLE t`, `CREATE VIEW v AS SELECT 1`},
			"is not an acrawler database (it has view v); refusing to change it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := foreignDB(t, tt.stmts...)
			before := snap(t, file)
			opens := map[string]func() error{
				"Open": func() error {
					db, err := sqlite.Open(ctx, file, sqlite.Options{})
					if err == nil {
						db.Close()
					}
					return err
				},
				"Migrate": func() error { _, _, err := sqlite.Migrate(ctx, file, sqlite.Options{}); return err },
			}
			for what, open := range opens {
				err := open()
				if err == nil || !strings.Contains(err.Error(), file+" "+tt.want) {
					t.Errorf("%s of a foreign database: err = %v, want %q", what, err, tt.want)
				}
				before.check(t, file, what)
			}
		})
	}
}

// TestNotADatabaseIsRefused: a file that is not SQLite at all is left alone.
func TestNotADatabaseIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "notes.db")
	if err := os.WriteFile(file, bytes.Repeat([]byte("not a database\n"), 400), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snap(t, file)
	if _, err := sqlite.Open(context.Background(), file, sqlite.Options{}); err == nil || !strings.Contains(err.Error(), "is not a SQLite database") {
		t.Errorf("Open of a text file: err = %v, want a refusal", err)
	}
	before.check(t, file, "Open")
	if _, _, err := sqlite.Migrate(context.Background(), file, sqlite.Options{}); err == nil || !strings.Contains(err.Error(), "is not a SQLite database") {
		t.Errorf("Migrate of a text file: err = %v, want a refusal", err)
	}
	before.check(t, file, "Migrate")
}

// TestEmptyFileBecomesADatabase: an empty file, like a new one, is taken.
func TestEmptyFileBecomesADatabase(t *testing.T) {
	for _, empty := range []bool{true, false} {
		file := filepath.Join(t.TempDir(), "crawl.db")
		if empty {
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		db, err := sqlite.Open(context.Background(), file, sqlite.Options{})
		if err != nil {
			t.Fatalf("Open (empty file %v): %v", empty, err)
		}
		if _, err := db.Counters(context.Background()); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
}

// TestOddFileNames: characters that mean something in a SQLite URI ('?',
// '#', '%') name the file they spell.
func TestOddFileNames(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"a?b.db", "c#d.db", "e%3f.db", "f g.db", "//h.db"} {
		file := filepath.Join(t.TempDir(), name)
		if strings.HasPrefix(name, "//") {
			file = "/" + file
		}
		db, err := sqlite.Open(ctx, file, sqlite.Options{})
		if err != nil {
			t.Fatalf("Open(%q): %v", name, err)
		}
		db.Close()
		if _, err := os.Stat(file); err != nil {
			t.Errorf("Open(%q) did not make that file: %v", name, err)
		}
		if _, err := readQueued(file); err != nil {
			t.Errorf("read-only Open(%q): %v", name, err)
		}
	}
}
