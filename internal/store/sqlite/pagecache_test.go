package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// status returns SQLite's figure op (sqlite3_status64): its current value
// and its highest.
func status(t *testing.T, op int32) (cur, high int64) {
	t.Helper()
	tls := libc.NewTLS()
	defer tls.Close()
	p := libc.Xcalloc(tls, 2, 8)
	defer libc.Xfree(tls, p)
	if rc := sqlite3.Xsqlite3_status64(tls, op, p, p+8, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("sqlite3_status64(%d): %d", op, rc)
	}
	return *cval[int64](p), *cval[int64](p + 8)
}

// TestPageCacheBuffer: SQLite takes the pages of the store's caches from
// the buffer the package gave it, in slots the size of a page and its
// header, not from the allocator.
func TestPageCacheBuffer(t *testing.T) {
	if pageCacheSlot < cachedPageSize || pageCacheSlot > cachedPageSize+1024 {
		t.Fatalf("slots of %d bytes for pages of %d", pageCacheSlot, cachedPageSize)
	}
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "cache.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var urls []crawl.NewURL
	for i := range 5000 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://h%d.test/a-path-long-enough-to-take-room/%d", i%20, i), 0, 0))
	}
	if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	used, _ := status(t, sqlite3.SQLITE_STATUS_PAGECACHE_USED)
	if used < 100 {
		t.Errorf("%d pages of the caches in the buffer after 5,000 URLs were added, want at least 100", used)
	}
}
