package postgres_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
)

// TestLockRanks: one handle at a time holds a schema's rank lock; a try
// by another fails while it is held, a wait ends when it is let go, and a
// handle on another schema has a lock of its own.
func TestLockRanks(t *testing.T) {
	testDSN(t)
	ctx := context.Background()
	dsn, schema := freshSchema(t)
	a, b := open(t, dsn, schema), open(t, dsn, schema)
	unlock, ok, err := a.LockRanks(ctx, false)
	if err != nil || !ok {
		t.Fatalf("first LockRanks = %v, %v; want the lock", ok, err)
	}
	if _, ok, err := b.LockRanks(ctx, false); err != nil || ok {
		t.Fatalf("LockRanks by another handle while it is held = %v, %v; want refused", ok, err)
	}
	dsn2, schema2 := freshSchema(t)
	if u, ok, err := open(t, dsn2, schema2).LockRanks(ctx, false); err != nil || !ok {
		t.Errorf("LockRanks on another schema = %v, %v; want its own lock", ok, err)
	} else {
		u()
	}
	got := make(chan bool, 1)
	go func() {
		u, ok, err := b.LockRanks(ctx, true)
		if err == nil && ok {
			u()
		}
		got <- ok
	}()
	select {
	case <-got:
		t.Fatal("a waiting LockRanks returned while the lock was held")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case ok := <-got:
		if !ok {
			t.Error("a waiting LockRanks did not get the lock once it was let go")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting LockRanks still waits after the lock was let go")
	}
	if u, ok, err := a.LockRanks(ctx, false); err != nil || !ok {
		t.Errorf("LockRanks after both let go = %v, %v; want the lock", ok, err)
	} else {
		u()
	}
}

// TestLocksPerSchemaOfTheDSN: the store's advisory locks are its schema's
// when the schema comes from the DSN's search_path, as when it comes from
// Options.Schema: crawls in two schemas of one server named that way do
// not take turns, and a process naming the schema either way shares its
// crawl's locks.
func TestLocksPerSchemaOfTheDSN(t *testing.T) {
	testDSN(t)
	ctx := context.Background()
	openDSN := func(dsn string) *postgres.DB {
		t.Helper()
		db, err := postgres.Open(ctx, dsn, postgres.Options{MaxConns: 2})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	dsnA := pgtest.SchemaDSN(t)
	a := openDSN(dsnA)
	b := openDSN(pgtest.SchemaDSN(t))
	unlock, ok, err := a.LockRanks(ctx, false)
	if err != nil || !ok {
		t.Fatalf("LockRanks = %v, %v; want the lock", ok, err)
	}
	defer unlock()
	if u, ok, err := b.LockRanks(ctx, false); err != nil || !ok {
		t.Errorf("LockRanks of a crawl in another schema of the DSN = %v, %v; want its own lock", ok, err)
	} else {
		u()
	}
	u, err := url.Parse(dsnA)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	if _, ok, err := open(t, testDSN(t), schema).LockRanks(ctx, false); err != nil || ok {
		t.Errorf("LockRanks of the same schema named by Options.Schema = %v, %v; want refused while the lock is held", ok, err)
	}
}
