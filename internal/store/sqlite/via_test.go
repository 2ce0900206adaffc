package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestURLsWithoutSeqMigration: a database whose urls and offers keep seq
// and the ways as text (before migration 0037) claims each host's URLs
// in the order seq gave them, answers each URL with the way it was found
// by (one the store has no number for too), merges its staged offers with
// theirs, and keeps no seq; a second run changes nothing.
func TestURLsWithoutSeqMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ways := append(slices.Clone(viaCodes), "feed")
	var urls []crawl.NewURL
	for i := range 40 {
		u := fmt.Sprintf("http://h%d.test/p/%d", i%3, i)
		urls = append(urls, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(crawl.HostKey(u)),
			Host: crawl.HostKey(u), Depth: 1, Priority: i % 2, Via: ways[i%len(ways)], Parent: crawl.ID(i)})
	}
	if st, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil || st.Added != len(urls) {
		t.Fatalf("AddURLs = %+v, %v", st, err)
	}
	staged := []crawl.NewURL{urls[0]}
	for i, u := range []string{"http://h1.test/staged", "http://h9.test/staged"} {
		staged = append(staged, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(crawl.HostKey(u)),
			Host: crawl.HostKey(u), Via: ways[len(ways)-1-i]})
	}
	if _, err := db.StageURLs(ctx, staged, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	// The tables as they were: seq numbers each host's URLs against their
	// rowids, the ways are text.
	byName := ViaNameSQL("via")
	if err := db.ExecForTest(ctx, `
		CREATE TABLE old_urls AS SELECT id, url, host_id, depth, priority, state, `+byName+` AS via, parent_id,
			1000 - rowid AS seq, attempts, retry_at, discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks FROM urls;
		DROP TABLE urls;
		CREATE TABLE urls (id INTEGER NOT NULL, url TEXT NOT NULL, host_id INTEGER NOT NULL, depth INTEGER NOT NULL,
			priority INTEGER NOT NULL, state INTEGER NOT NULL, via TEXT NOT NULL, parent_id INTEGER NOT NULL DEFAULT 0,
			seq INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, retry_at INTEGER NOT NULL DEFAULT 0,
			discovered_at INTEGER NOT NULL, fetched_at INTEGER NOT NULL DEFAULT 0, error TEXT,
			kind INTEGER NOT NULL DEFAULT 0, lastmod INTEGER NOT NULL DEFAULT 0, changefreq TEXT NOT NULL DEFAULT '',
			inlinks INTEGER NOT NULL DEFAULT 0);
		INSERT INTO urls SELECT * FROM old_urls ORDER BY id;
		DROP TABLE old_urls;
		CREATE UNIQUE INDEX urls_id ON urls (id);
		CREATE INDEX urls_queue ON urls (host_id, priority DESC, seq) WHERE state = 0;
		CREATE INDEX urls_inflight ON urls (host_id) WHERE state = 1;
		CREATE INDEX urls_host_fetched ON urls (host_id, fetched_at) WHERE fetched_at > 0;
		INSERT INTO counters (name, value) VALUES ('seq', 1000);
		CREATE TABLE old_offers AS SELECT rowid AS ord, id, url, host_id, host, depth, priority, `+byName+` AS via,
			parent_id, discovered_at, kind, lastmod, changefreq, cap FROM offers;
		DROP TABLE offers;
		CREATE TABLE offers (id INTEGER NOT NULL, url TEXT NOT NULL, host_id INTEGER NOT NULL, host TEXT,
			depth INTEGER NOT NULL, priority INTEGER NOT NULL, via TEXT NOT NULL, parent_id INTEGER NOT NULL,
			discovered_at INTEGER NOT NULL, kind INTEGER NOT NULL, lastmod INTEGER NOT NULL, changefreq TEXT NOT NULL,
			cap INTEGER NOT NULL);
		INSERT INTO offers (rowid, id, url, host_id, host, depth, priority, via, parent_id, discovered_at, kind, lastmod,
			changefreq, cap) SELECT * FROM old_offers;
		DROP TABLE old_offers;
		PRAGMA user_version = 36`); err != nil {
		t.Fatal(err)
	}
	var texts int
	if err := db.w.QueryRow(`SELECT count(*) FROM urls WHERE via IN ('link', 'seed', 'feed')`).Scan(&texts); err != nil || texts == 0 {
		t.Fatalf("%d ways kept as text before the migration (%v)", texts, err)
	}
	db.Close()
	for run := range 2 {
		if db, err = Open(ctx, file, Options{}); err != nil {
			t.Fatalf("open, run %d: %v", run, err)
		}
		var seq int
		if err := db.w.QueryRow(`SELECT count(*) FROM pragma_table_info('urls') WHERE name = 'seq'`).Scan(&seq); err != nil || seq != 0 {
			t.Fatalf("run %d: urls keeps seq (%d, %v)", run, seq, err)
		}
		if run == 0 {
			if err := db.ExecForTest(ctx, `PRAGMA user_version = 36`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
	}
	defer db.Close()
	if n, err := db.MergeStaged(ctx); err != nil || n != 2 {
		t.Fatalf("MergeStaged = %d, %v; want 2", n, err)
	}
	for _, u := range append(slices.Clone(urls), staged[1:]...) {
		r, err := db.URL(ctx, u.ID)
		if err != nil || r.URL != u.URL || r.Via != u.Via || r.Parent != u.Parent {
			t.Errorf("URL(%s) = %q by %q from %d, %v; want by %q from %d", u.URL, r.URL, r.Via, r.Parent, err, u.Via, u.Parent)
		}
	}
	var ints, counter int
	if err := db.w.QueryRow(`SELECT (SELECT count(*) FROM urls WHERE typeof(via) = 'integer'),
		(SELECT count(*) FROM counters WHERE name = 'seq')`).Scan(&ints, &counter); err != nil {
		t.Fatal(err)
	}
	texts = 0
	for _, u := range append(slices.Clone(urls), staged[1:]...) {
		if !slices.Contains(viaCodes, u.Via) {
			texts++
		}
	}
	if ints != len(urls)+2-texts || counter != 0 {
		t.Errorf("%d ways kept as numbers, want all but the %d found by a way without one; %d seq counters left", ints, texts, counter)
	}
	// Each host's URLs by priority, then seq: the reverse of the order they
	// were added in; then those merged from the stage.
	got := map[string][]string{}
	for _, us := range claimAll(t, db) {
		for _, u := range us {
			got[crawl.HostKey(u.URL)] = append(got[crawl.HostKey(u.URL)], u.URL)
		}
	}
	if len(got) != 4 {
		t.Errorf("URLs of %d hosts claimed, want 4", len(got))
	}
	for host, us := range got {
		var want []string
		for _, p := range []int{1, 0} {
			for i := len(urls) - 1; i >= 0; i-- {
				if urls[i].Host == host && urls[i].Priority == p {
					want = append(want, urls[i].URL)
				}
			}
		}
		for _, u := range staged[1:] {
			if u.Host == host {
				want = append(want, u.URL)
			}
		}
		if !slices.Equal(us, want) {
			t.Errorf("%s claimed %q, want %q", host, us, want)
		}
	}
}
