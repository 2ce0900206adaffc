package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestCheckpointer: with the checkpointer woken every few frames, a store
// whose writer commits transaction after transaction, while a reader
// reads, has its log copied back by the checkpointer, loses nothing, and
// leaves no log once closed (the checkpointer's connection closes with it:
// the last connection to close removes the log).
func TestCheckpointer(t *testing.T) {
	defer sqlite.SetCheckpointFrames(64)()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "checkpoints.db")
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := db.Counters(ctx); err != nil {
				t.Errorf("a read beside the checkpoints: %v", err)
				return
			}
		}
	})
	const batches, per = 40, 500
	for b := range batches {
		var urls []crawl.NewURL
		for i := range per {
			urls = append(urls, storetest.U(fmt.Sprintf("http://h%d.test/a-path-long-enough-to-take-room/%d/%d", i%50, b, i), 0, 0))
		}
		if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); db.CheckpointRoundsForTest() < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the checkpointer did %d checkpoints in 30 s after %d transactions", db.CheckpointRoundsForTest(), batches)
		}
	}
	close(stop)
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the log after the store closed: %v, want none", err)
	}

	db, err = sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Queued != batches*per {
		t.Errorf("%d URLs queued after a reopen, want %d", c.Queued, batches*per)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var check string
	var n int
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM urls`).Scan(&n); err != nil || n != batches*per {
		t.Errorf("%d rows in urls, %v; want %d", n, err, batches*per)
	}
}

// TestNoCheckpointerReadOnly: a store opened read-only has no
// checkpointer (it writes nothing, and may have no right to).
func TestNoCheckpointerReadOnly(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "ro.db")
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := db.CheckpointRoundsForTest(); n != 0 {
		t.Errorf("a store open for writing: %d checkpoints at first, want 0", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.Open(ctx, file, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if n := ro.CheckpointRoundsForTest(); n != -1 {
		t.Errorf("a store open read-only has a checkpointer (%d checkpoints)", n)
	}
}
