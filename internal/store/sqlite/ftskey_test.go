package sqlite

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestFTSKeyInSQL: the SQL conversions between URL IDs and full-text keys
// agree with the Go ones, on IDs of either sign and at the edges.
func TestFTSKeyInSQL(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := []crawl.ID{0, 1, -1, math.MaxInt64, math.MinInt64, 4095, -4096, 1 << 52, -(1 << 52)}
	for _, u := range []string{"http://a.test/", "https://b.test/x?y=1", "http://a.test/z", "http://xn--tda.test/"} {
		ids = append(ids, crawl.URLID(u), crawl.HashID(u))
	}
	for _, id := range ids {
		var key, back crawl.ID
		if err := db.QueryRowContext(context.Background(), `SELECT `+sqlFTSKey("?1")+`, `+sqlURLID(sqlFTSKey("?1")), id).Scan(&key, &back); err != nil {
			t.Fatal(err)
		}
		if key != ftsKey(id) || back != id || urlIDOfKey(ftsKey(id)) != id {
			t.Errorf("id %d: SQL key %d back %d; Go key %d back %d", id, key, back, ftsKey(id), urlIDOfKey(ftsKey(id)))
		}
	}
}

// TestFTSHashSize: both full-text indexes gather a commit's rows in one
// 8 MiB hash (migration 0010), so a commit writes one segment.
func TestFTSHashSize(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "h.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, table := range []string{"pages_fts", "pages_top"} {
		var v int
		if err := db.w.QueryRowContext(context.Background(), `SELECT v FROM `+table+`_config WHERE k = 'hashsize'`).Scan(&v); err != nil || v != 8<<20 {
			t.Errorf("%s hashsize = %d, %v; want 8 MiB", table, v, err)
		}
	}
}

// TestFTSKeepsNoText: the full-text indexes are contentless (migration
// 0011): the text is stored once, in pages, and search_docs holds what
// else a document was indexed with.
func TestFTSKeepsNoText(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('pages_fts_content', 'pages_top_content')`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d content tables, %v; want none", n, err)
	}
	for _, table := range []string{"pages_fts", "pages_top"} {
		var create string
		if err := db.w.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = ?`, table).Scan(&create); err != nil ||
			!strings.Contains(create, "content = ''") || !strings.Contains(create, "contentless_delete = 1") {
			t.Errorf("%s is %q, %v; want a contentless table with deletes", table, create, err)
		}
	}
}
