package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// openWithURLs opens a database at file and adds n URLs over three
// hosts to it.
func openWithURLs(t *testing.T, file string, n int) (*sqlite.DB, []crawl.NewURL) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var urls []crawl.NewURL
	for i := range n {
		urls = append(urls, storetest.U(fmt.Sprintf("http://h%d.test/p/%d", i%3, i), 1, i%4))
	}
	if st, err := db.AddURLs(context.Background(), urls, crawl.Limits{}); err != nil || st.Added != len(urls) {
		t.Fatalf("AddURLs = %+v, %v", st, err)
	}
	return db, urls
}

// TestURLsByArrivalMigration: a database whose urls table is keyed by URL
// ID (before migration 0023) keeps its URLs, their state and their queue
// order when the table is rebuilt in arrival order on open, and a second
// run of the migration changes nothing.
func TestURLsByArrivalMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, urls := openWithURLs(t, file, 50)
	var err error
	// The table as it was: keyed by URL ID.
	if err := db.ExecForTest(ctx, `CREATE TABLE old_urls AS SELECT *, rowid AS seq FROM urls;
		DROP TABLE urls;
		CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT NOT NULL, host_id INTEGER NOT NULL, depth INTEGER NOT NULL,
			priority INTEGER NOT NULL, state INTEGER NOT NULL, via TEXT NOT NULL, parent_id INTEGER NOT NULL DEFAULT 0,
			seq INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, retry_at INTEGER NOT NULL DEFAULT 0,
			discovered_at INTEGER NOT NULL, fetched_at INTEGER NOT NULL DEFAULT 0, error TEXT,
			kind INTEGER NOT NULL DEFAULT 0, lastmod INTEGER NOT NULL DEFAULT 0, changefreq TEXT NOT NULL DEFAULT '',
			inlinks INTEGER NOT NULL DEFAULT 0);
		INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id, seq, attempts, retry_at,
			discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks)
			SELECT id, url, host_id, depth, priority, state, via, parent_id, seq, attempts, retry_at,
			discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks FROM old_urls;
		DROP TABLE old_urls;
		CREATE INDEX urls_queue ON urls (host_id, priority DESC, seq) WHERE state = 0;
		CREATE INDEX urls_inflight ON urls (host_id) WHERE state = 1;
		CREATE INDEX urls_host_fetched ON urls (host_id, fetched_at) WHERE fetched_at > 0;
		PRAGMA user_version = 22`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for run := range 2 {
		db, err = sqlite.Open(ctx, file, sqlite.Options{})
		if err != nil {
			t.Fatalf("open, run %d: %v", run, err)
		}
		// URLs are found by ID through urls_id, the table no longer
		// being keyed by it.
		if err := db.ExecForTest(ctx, `SELECT id FROM urls INDEXED BY urls_id WHERE id = 1`); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if st, err := db.AddURLs(ctx, urls[:10], crawl.Limits{}); err != nil || st.Known != 10 {
			t.Fatalf("run %d: AddURLs of known URLs = %+v, %v; want 10 known", run, st, err)
		}
		if run == 0 {
			if err := db.ExecForTest(ctx, `PRAGMA user_version = 22`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
	}
	defer db.Close()
	// Every URL is there, claimed in its host's queue order.
	now := time.Unix(1_800_000_000, 0)
	hosts, err := db.ClaimHosts(ctx, "t", 10, time.Minute, now)
	if err != nil || len(hosts) != 3 {
		t.Fatalf("ClaimHosts = %d hosts, %v; want 3", len(hosts), err)
	}
	got := 0
	for _, h := range hosts {
		us, _, err := db.ClaimURLs(ctx, "t", h.ID, 100, crawl.Limits{}, now)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(us); i++ {
			if us[i].Priority > us[i-1].Priority {
				t.Errorf("host %s: %s (priority %d) claimed after %s (priority %d)", h.Key, us[i].URL, us[i].Priority, us[i-1].URL, us[i-1].Priority)
			}
		}
		got += len(us)
	}
	if got != len(urls) {
		t.Errorf("claimed %d URLs after the migration, want %d", got, len(urls))
	}
}

// TestHasQueuedMigration: a database whose ready-host indexes read queued
// (before migration 0030) gets each host's has_queued from its count,
// and its hosts with URLs queued are claimed, after one run of the
// migration and after a second.
func TestHasQueuedMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, _ := openWithURLs(t, file, 30)
	var err error
	// The schema as it was: no has_queued, the indexes on queued.
	old := `DROP TRIGGER hosts_has_queued;
		DROP TRIGGER hosts_has_queued_insert;
		DROP INDEX hosts_wake;
		DROP INDEX hosts_claim;
		ALTER TABLE hosts DROP COLUMN has_queued;
		CREATE INDEX hosts_ready ON hosts (next_fetch_at) WHERE queued > 0;
		CREATE INDEX hosts_wake ON hosts (due, next_fetch_at) WHERE queued > 0 AND lease_owner IS NULL;
		CREATE INDEX hosts_claim ON hosts (due DESC, top_priority + value DESC, next_fetch_at, id)
			WHERE queued > 0 AND lease_owner IS NULL;
		PRAGMA user_version = 29`
	if err := db.ExecForTest(ctx, old); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for run := range 2 {
		db, err = sqlite.Open(ctx, file, sqlite.Options{})
		if err != nil {
			t.Fatalf("open, run %d: %v", run, err)
		}
		if run == 0 {
			if err := db.ExecForTest(ctx, `PRAGMA user_version = 29`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			continue
		}
		hs, err := db.ClaimHosts(ctx, "test", 10, time.Minute, time.Now())
		if err != nil || len(hs) != 3 {
			t.Fatalf("ClaimHosts after the migration = %d hosts, %v; want 3", len(hs), err)
		}
		db.Close()
	}
	hostsQueuedAgree(t, file)
}

// TestHostInsertedWithURLsQueued: a host row inserted with URLs queued
// (as a bulk load or a benchmark writes it) is in the ready-host indexes.
func TestHostInsertedWithURLsQueued(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, _ := openWithURLs(t, file, 3)
	if err := db.ExecForTest(context.Background(), `INSERT INTO hosts (id, key, queued, admitted) VALUES (7, 'http://h7.test', 2, 2)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	hostsQueuedAgree(t, file)
}
