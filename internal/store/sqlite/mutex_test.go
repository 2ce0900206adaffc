package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// TestConnectionMutexes checks that SQLite took the store's mutex methods:
// the connections a store opens get the placeholder for their mutex, and
// every other mutex is a real one, which a second holder cannot take.
func TestConnectionMutexes(t *testing.T) {
	if !storeMutexesInstalled {
		t.Fatal("SQLite did not take the store's mutex methods")
	}
	before := connMutexes.Load()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Counters(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := connMutexes.Load() - before; got < 2 {
		t.Errorf("%d connection mutexes handed out by opening a store and reading it, want the writer's and a reader's at least", got)
	}

	tls := libc.NewTLS()
	defer tls.Close()
	for _, kind := range []int32{sqlite3.SQLITE_MUTEX_FAST, sqlite3.SQLITE_MUTEX_STATIC_LRU} {
		m := sqlite3.Xsqlite3_mutex_alloc(tls, kind)
		if m == 0 || m == connMutexAddr {
			t.Fatalf("mutex of kind %d: %#x, want one of SQLite's own", kind, m)
		}
		sqlite3.Xsqlite3_mutex_enter(tls, m)
		tried := make(chan int32)
		go func() {
			other := libc.NewTLS()
			defer other.Close()
			tried <- sqlite3.Xsqlite3_mutex_try(other, m)
		}()
		select {
		case rc := <-tried:
			if rc != sqlite3.SQLITE_BUSY {
				t.Errorf("mutex of kind %d, held: another goroutine's try gave %d, want SQLITE_BUSY", kind, rc)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("mutex of kind %d: try did not return", kind)
		}
		sqlite3.Xsqlite3_mutex_leave(tls, m)
		if kind == sqlite3.SQLITE_MUTEX_FAST {
			sqlite3.Xsqlite3_mutex_free(tls, m)
		}
	}
}
