package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestConformance runs the store suite, and after each of its tests
// checks what the suite cannot see: the ready-host flag agrees with the
// hosts' counts (see hostsQueuedAgree).
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) func() (crawl.Store, error) {
		file := migratedFile(t)
		t.Cleanup(func() { hostsQueuedAgree(t, file) })
		return func() (crawl.Store, error) {
			return sqlite.Open(context.Background(), file, sqlite.Options{})
		}
	})
}

func TestNearDistance(t *testing.T) {
	storetest.RunNearDistance(t, func(t *testing.T, near int) crawl.Store {
		db, err := sqlite.Open(context.Background(), migratedFile(t), sqlite.Options{NearDistance: near})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
	if _, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crawl.db"), sqlite.Options{NearDistance: 4}); err == nil {
		t.Error("Open with near-duplicate distance 4 succeeded; the band index cannot find such pairs")
	}
}

func TestOutbox(t *testing.T) {
	storetest.RunOutbox(t, func(t *testing.T) func() (crawl.Store, error) {
		file := migratedFile(t)
		return func() (crawl.Store, error) {
			return sqlite.Open(context.Background(), file, sqlite.Options{Outbox: true})
		}
	})
}

func TestSecondWriterIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, err := sqlite.Open(context.Background(), file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlite.Open(context.Background(), file, sqlite.Options{}); !errors.Is(err, crawl.ErrLocked) {
		t.Fatalf("second Open error = %v, want ErrLocked", err)
	}
	ro, err := sqlite.Open(context.Background(), file, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open while a writer holds the lock: %v", err)
	}
	defer ro.Close()
	if _, err := ro.Counters(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := ro.AddURLs(context.Background(), []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err == nil {
		t.Fatal("AddURLs on a read-only store succeeded")
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, err := sqlite.Open(context.Background(), file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSchemaVersionForTest(context.Background(), sqlite.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := sqlite.Open(context.Background(), file, sqlite.Options{}); !errors.Is(err, crawl.ErrSchemaTooNew) {
		t.Fatalf("Open of a newer schema: err = %v, want ErrSchemaTooNew", err)
	}
}

func TestUnopenablePath(t *testing.T) {
	_, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"), sqlite.Options{})
	if err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
}

// TestRankPassPageCache: the rank pass runs with the small page cache and
// gives the writer its large one back; a pass that cannot start leaves it.
func TestRankPassPageCache(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before, err := db.WriterCacheSizeForTest(ctx)
	if err != nil || before != -24<<10 {
		t.Fatalf("writer cache_size %d, %v; want -24576 (KiB)", before, err)
	}
	if err := db.SetRanks(ctx, map[crawl.ID]float64{1: 2}); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.SetRanks(canceled, map[crawl.ID]float64{1: 2}); err == nil {
		t.Error("SetRanks with a canceled context succeeded")
	}
	if after, err := db.WriterCacheSizeForTest(ctx); err != nil || after != before {
		t.Errorf("writer cache_size after the rank passes %d, %v; want %d back", after, err, before)
	}
}

// TestURLIDMigration: a database whose URL IDs were the URLs' whole hashes
// answers to crawl.URLID after migration 0009, its full-text index rebuilt
// under the new keys.
func TestURLIDMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(storetest.OldURLIDRows(), `PRAGMA user_version = 8`) {
		if err := db.ExecForTest(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	db, err = sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.CheckURLIDMigration(t, db)
}

// migrated is an empty database of the current schema, made once: a copy
// of it opens as a new database does without applying every migration
// again (a tenth of the conformance tests' work).
var migrated struct {
	once sync.Once
	data []byte
	err  error
}

// hostsQueuedAgree checks the database file after its stores are closed:
// each host's has_queued is whether it has URLs queued (a trigger keeps
// it when queued crosses zero, and statements that admit URLs set it
// themselves), and the claim index holds exactly the hosts with URLs
// queued and no lease.
func hostsQueuedAgree(t *testing.T, file string) {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var wrong, claimable, indexed int
	err = db.QueryRow(`SELECT (SELECT count(*) FROM hosts WHERE has_queued <> (queued > 0)),
		(SELECT count(*) FROM hosts NOT INDEXED WHERE queued > 0 AND lease_owner IS NULL),
		(SELECT count(*) FROM hosts INDEXED BY hosts_claim WHERE has_queued AND lease_owner IS NULL)`).Scan(&wrong, &claimable, &indexed)
	if err != nil {
		t.Fatal(err)
	}
	if wrong != 0 || claimable != indexed {
		t.Errorf("%d hosts whose has_queued is not queued > 0; %d hosts claimable, %d in hosts_claim", wrong, claimable, indexed)
	}
}

// migratedFile returns the path of a new database of the current schema,
// with nothing in it, in a directory of t's.
func migratedFile(t *testing.T) string {
	t.Helper()
	migrated.once.Do(func() {
		dir, err := os.MkdirTemp("", "acrawler-sqlite-test")
		if err != nil {
			migrated.err = err
			return
		}
		defer os.RemoveAll(dir)
		file := filepath.Join(dir, "crawl.db")
		db, err := sqlite.Open(context.Background(), file, sqlite.Options{})
		if err != nil {
			migrated.err = err
			return
		}
		if migrated.err = db.Close(); migrated.err != nil {
			return
		}
		if _, err := os.Stat(file + "-wal"); err == nil {
			migrated.err = errors.New("the write-ahead log outlived Close")
			return
		}
		migrated.data, migrated.err = os.ReadFile(file)
	})
	if migrated.err != nil {
		t.Fatalf("an empty database to copy: %v", migrated.err)
	}
	file := filepath.Join(t.TempDir(), "crawl.db")
	if err := os.WriteFile(file, migrated.data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestWALCutBack checks that a WAL file grown by a transaction larger than
// a checkpoint's worth is cut back to its limit once a checkpoint copied it
// and the next transaction started it over, not kept at its largest.
func TestWALCutBack(t *testing.T) {
	const limit = 256 << 10
	defer sqlite.SetWALSizeLimit(limit)()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "wal.db")
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(file + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	add := func(from, to int) {
		t.Helper()
		var urls []crawl.NewURL
		for i := from; i < to; i++ {
			urls = append(urls, storetest.U(fmt.Sprintf("http://h%d.test/a-path-long-enough-to-take-room/%d", i%100, i), 0, 0))
		}
		if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, 20_000) // one transaction of a few MB
	if n := walSize(); n <= 4*limit {
		t.Fatalf("WAL %d bytes after a large transaction, want more than %d for the test to mean anything", n, 4*limit)
	}
	if err := db.CheckpointForTest(ctx); err != nil {
		t.Fatal(err)
	}
	add(20_000, 20_010) // starts the WAL over
	if n := walSize(); n > limit {
		t.Errorf("WAL %d bytes after a checkpoint and a small transaction, want at most %d", n, limit)
	}
}

// TestConformancePacked runs the store suite with every merge of staged
// offers packing the URLs it admits into runs (runs.go), as only large
// ones do by default, and checks that some of its stores packed URLs.
func TestConformancePacked(t *testing.T) {
	t.Parallel()
	conformancePacked(t, sqlite.PackedForTest(sqlite.Options{}))
}

// conformancePacked runs the store suite on stores opened with opts, and
// fails t unless one of them packed a URL.
func conformancePacked(t *testing.T, opts sqlite.Options) {
	var packed int64 // the checks run one after another
	storetest.Run(t, func(t *testing.T) func() (crawl.Store, error) {
		file := migratedFile(t)
		t.Cleanup(func() {
			hostsQueuedAgree(t, file)
			packed += seenRows(t, file)
		})
		return func() (crawl.Store, error) {
			return sqlite.Open(context.Background(), file, opts)
		}
	})
	if packed == 0 {
		t.Error("no store of the suite packed a URL: it ran on rows alone")
	}
}

// seenRows is the number of URLs the store at file ever packed (a URL
// keeps its entry in seen when it leaves its run).
func seenRows(t *testing.T, file string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM seen`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestConformanceStagedFinds runs the store suite with every commit
// staging its discoveries and the inbound links of URLs not known to be
// rows, and merging them before it ends (finds.go), as commits in a large
// frontier do once the stage is large.
func TestConformanceStagedFinds(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) func() (crawl.Store, error) {
		file := migratedFile(t)
		t.Cleanup(func() { hostsQueuedAgree(t, file) })
		return func() (crawl.Store, error) {
			return sqlite.Open(context.Background(), file, sqlite.StagedFindsForTest(sqlite.Options{}, 0, 1))
		}
	})
}

// TestConformanceStagedFindsPacked runs the store suite with every
// commit staging its discoveries and every merge packing what it admits
// into runs.
func TestConformanceStagedFindsPacked(t *testing.T) {
	t.Parallel()
	conformancePacked(t, sqlite.StagedFindsPackedForTest(sqlite.Options{}, 0, 1))
}

// TestConformanceFTS5 runs the store suite on the FTS5 engine of the
// embedded index (TestConformance runs it on the default, the segments).
func TestConformanceFTS5(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) func() (crawl.Store, error) {
		file := migratedFile(t)
		return func() (crawl.Store, error) {
			return sqlite.Open(context.Background(), file, sqlite.Options{Engine: sqlite.EngineFTS5})
		}
	})
}
