package sqlite

// SQLite's page cache in one buffer.
//
// SQLite allocates each page of a connection's cache with its header,
// about 4.3 KB for a 4 KiB page, from the transpiled C library's
// allocator. That allocator rounds every allocation of up to 16 KiB to a
// power of two, so a cached page took 8 KiB, and the writer's cache of
// 24 MiB held some 48 MB of the process. SQLite can take its pages from
// one buffer instead (SQLITE_CONFIG_PAGECACHE), in slots of their own
// size: pageCacheSlots of them, a quarter more than the writer's and a
// crawl's readers' caches hold (with fewer than 10 slots free, SQLite
// holds every cache to the pages it has). Pages beyond them are
// allocated as before. SQLite writes a link into each slot when it
// starts, so the buffer is in memory from the first connection on (about
// 4 KB a slot, 40 MB).
//
// SQLite takes the setting only before it starts, which is at the first
// connection the process opens: Open sets it before its first connection
// when the process's first store is opened for writing (a crawl). A
// process whose first store is opened read-only (serve, stats, export)
// goes without it, so that it does not hold the 40 MB for caches it may
// never fill; its pages are allocated as they are read. So does a
// process that opened SQLite before the store did.

import (
	"sync"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

const (
	// pageCacheSlots is how many pages the buffer holds: a quarter more
	// than the writer's cache and the crawl's readers'.
	pageCacheSlots = 5 * (writerCacheKiB + 4*crawlReaderCacheKiB) / 4 / 4
	// cachedPageSize is the database page size the slots are made for,
	// SQLite's default, which the store keeps.
	cachedPageSize = 4096
)

var (
	pageCacheOnce sync.Once
	// pageCacheSlot is the size of a slot of the buffer, 0 when SQLite
	// was not given one. Set once, by usePageCache.
	pageCacheSlot int
)

// usePageCache gives SQLite the buffer if this is the process's first
// store and it is opened for writing; it is called before the store's
// first connection.
func usePageCache(readOnly bool) {
	pageCacheOnce.Do(func() {
		if !readOnly {
			pageCacheSlot = configurePageCache()
		}
	})
}

// configurePageCache gives SQLite the buffer, and returns the size of its
// slots (0 if SQLite refused it).
func configurePageCache() int {
	tls := libc.NewTLS()
	defer tls.Close()
	hdr := libc.Xcalloc(tls, 1, 8)
	if hdr == 0 {
		return 0
	}
	defer libc.Xfree(tls, hdr)
	va := libc.NewVaList(hdr)
	rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_PCACHE_HDRSZ, va)
	libc.Xfree(tls, va)
	if rc != sqlite3.SQLITE_OK {
		return 0
	}
	slot := (cachedPageSize + int(*cval[int32](hdr)) + 7) &^ 7
	buf := libc.Xmalloc(tls, libc.Tsize_t(slot*pageCacheSlots))
	if buf == 0 {
		return 0
	}
	va = libc.NewVaList(buf, int32(slot), int32(pageCacheSlots))
	rc = sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_PAGECACHE, va)
	libc.Xfree(tls, va)
	if rc != sqlite3.SQLITE_OK {
		libc.Xfree(tls, buf)
		return 0
	}
	return slot
}
