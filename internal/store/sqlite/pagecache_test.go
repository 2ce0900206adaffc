package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// status returns the current value of SQLite's figure op
// (sqlite3_status64).
func status(t *testing.T, op int32) int64 {
	t.Helper()
	tls := libc.NewTLS()
	defer tls.Close()
	p := libc.Xcalloc(tls, 2, 8)
	defer libc.Xfree(tls, p)
	if rc := sqlite3.Xsqlite3_status64(tls, op, p, p+8, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("sqlite3_status64(%d): %d", op, rc)
	}
	return *cval[int64](p)
}

// TestPageCacheBuffer: a process whose first store is opened for
// writing takes the pages of its caches from the buffer the store gives
// SQLite, in slots the size of a page and its header, not from the
// allocator; one whose first store is opened read-only (serve, stats)
// gets no buffer, and allocates its pages as it reads them. Each case
// runs in a process of its own: SQLite takes the buffer only before the
// process's first connection.
func TestPageCacheBuffer(t *testing.T) {
	if mode := os.Getenv("ACRAWLER_TEST_PAGECACHE_CHILD"); mode != "" {
		pageCacheChild(t, mode)
		return
	}
	file := filepath.Join(t.TempDir(), "cache.db")
	db, err := Open(context.Background(), file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	addURLs(t, db, 0, 5000)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode        string
		slot, inBuf bool
	}{
		{"write", true, true},
		{"read", false, false},
	} {
		cmd, lines := startChild(t, "TestPageCacheBuffer", "ACRAWLER_TEST_PAGECACHE_CHILD", c.mode+":"+file)
		var slot, used, overflow int64
		var out strings.Builder
		for lines.Scan() {
			out.WriteString(lines.Text() + "\n")
			fmt.Sscanf(lines.Text(), "pagecache %d %d %d", &slot, &used, &overflow)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: child: %v\n%s", c.mode, err, out.String())
		}
		if got := slot >= cachedPageSize && slot <= cachedPageSize+1024; got != c.slot {
			t.Errorf("%s: slots of %d bytes for pages of %d", c.mode, slot, cachedPageSize)
		}
		if got := used >= 100; got != c.inBuf {
			t.Errorf("%s: %d pages of the caches in the buffer after 5,000 URLs were added or read (%d bytes outside it)", c.mode, used, overflow)
		}
		if overflow == 0 && !c.inBuf {
			t.Errorf("%s: no page allocated outside a buffer", c.mode)
		}
	}
}

// addURLs adds URLs from to to to db.
func addURLs(t *testing.T, db *DB, from, to int) {
	t.Helper()
	ctx := context.Background()
	var urls []crawl.NewURL
	for i := from; i < to; i++ {
		urls = append(urls, storetest.U(fmt.Sprintf("http://h%d.test/a-path-long-enough-to-take-room/%d", i%20, i), 0, 0))
	}
	if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
}

// pageCacheChild opens the store in mode:file as its process's first, for
// writing ("write": it adds URLs) or read-only ("read": it reads the URLs'
// count), and prints the buffer's slot size and SQLite's pages in the
// buffer and bytes outside it.
func pageCacheChild(t *testing.T, arg string) {
	mode, file, _ := strings.Cut(arg, ":")
	ctx := context.Background()
	db, err := Open(ctx, file, Options{ReadOnly: mode == "read"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if mode == "write" {
		addURLs(t, db, 5000, 10000) // 5,000 new ones
	} else {
		var n int
		if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM urls WHERE url <> ''`).Scan(&n); err != nil || n < 5000 {
			t.Fatalf("%d URLs read (%v), want at least 5,000", n, err)
		}
	}
	used := status(t, sqlite3.SQLITE_STATUS_PAGECACHE_USED)
	overflow := status(t, sqlite3.SQLITE_STATUS_PAGECACHE_OVERFLOW)
	fmt.Printf("pagecache %d %d %d\n", pageCacheSlot, used, overflow)
}
