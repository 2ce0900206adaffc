package sqlite

// SQLite's connection mutexes, left out.
//
// The driver opens every connection SQLITE_OPEN_FULLMUTEX: SQLite then
// takes the connection's own (recursive) mutex in nearly every call, each
// bind of a parameter, each column read, each step, and the transpiled
// library's mutexes are Go emulations of pthread's. database/sql never
// uses a connection, or a statement of it, from two goroutines at once,
// and the driver relies on that already (a connection's libc state is
// used before SQLite's mutex is reached), so those mutexes guard
// nothing here. They took about 0.3 s of CPU in a 20,000-page crawl, some
// 2–3% of it (docs/design/write-path.md, step 35).
//
// The open flag overrides SQLite's threading mode, so the store gives
// SQLite mutex methods of its own instead (SQLITE_CONFIG_MUTEX): a
// recursive mutex, which SQLite allocates only for a connection, is one
// shared placeholder that entering and leaving do nothing with; every
// other mutex (those of the page cache, the memory allocator, the VFS,
// the shared-memory index, all shared between connections) is SQLite's
// own, allocated and taken by the methods SQLite would have used. This is
// SQLite's multi-thread mode ("no single database connection nor any
// object derived from it used in two or more threads at the same time"),
// with the one caller that may reach a connection from another
// goroutine, sqlite3_interrupt, taking no mutex.
//
// SQLite takes its mutex methods only before it starts, and fills in its
// defaults when it does: init starts it and shuts it down again to read
// them, before anything in the process can have opened a connection. If
// any of that fails, SQLite keeps its own methods.

import (
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

var (
	// sqliteMutexes are SQLite's own mutex methods.
	sqliteMutexes sqlite3.Sqlite3_mutex_methods
	// storeMutexes are the methods the store gives SQLite.
	storeMutexes sqlite3.Sqlite3_mutex_methods
	// connMutex is what every connection gets for its mutex: a placeholder
	// SQLite never reads through.
	connMutex     [8]byte
	connMutexAddr = uintptr(unsafe.Pointer(&connMutex))
	// connMutexes counts the connection mutexes handed out, for tests.
	connMutexes atomic.Int64
)

func init() { storeMutexesInstalled = installMutexes() }

// storeMutexesInstalled tells whether SQLite took storeMutexes.
var storeMutexesInstalled bool

// installMutexes gives SQLite storeMutexes, and reports whether it did.
func installMutexes() bool {
	tls := libc.NewTLS()
	defer tls.Close()
	if sqlite3.Xsqlite3_initialize(tls) != sqlite3.SQLITE_OK || sqlite3.Xsqlite3_shutdown(tls) != sqlite3.SQLITE_OK {
		return false
	}
	if mutexConfig(tls, sqlite3.SQLITE_CONFIG_GETMUTEX, &sqliteMutexes) != sqlite3.SQLITE_OK || sqliteMutexes.FxMutexAlloc == 0 {
		return false
	}
	storeMutexes = sqliteMutexes
	storeMutexes.FxMutexAlloc = cFuncPointer(mutexAlloc)
	storeMutexes.FxMutexFree = cFuncPointer(mutexFree)
	storeMutexes.FxMutexEnter = cFuncPointer(mutexEnter)
	storeMutexes.FxMutexTry = cFuncPointer(mutexTry)
	storeMutexes.FxMutexLeave = cFuncPointer(mutexLeave)
	return mutexConfig(tls, sqlite3.SQLITE_CONFIG_MUTEX, &storeMutexes) == sqlite3.SQLITE_OK
}

// mutexConfig calls sqlite3_config(op, m).
func mutexConfig(tls *libc.TLS, op int32, m *sqlite3.Sqlite3_mutex_methods) int32 {
	va := libc.NewVaList(uintptr(unsafe.Pointer(m)))
	if va == 0 {
		return sqlite3.SQLITE_NOMEM
	}
	defer libc.Xfree(tls, va)
	return sqlite3.Xsqlite3_config(tls, op, va)
}

func mutexAlloc(tls *libc.TLS, kind int32) uintptr {
	if kind == sqlite3.SQLITE_MUTEX_RECURSIVE {
		connMutexes.Add(1)
		return connMutexAddr
	}
	return cfunc[func(*libc.TLS, int32) uintptr](sqliteMutexes.FxMutexAlloc)(tls, kind)
}

func mutexFree(tls *libc.TLS, m uintptr) {
	if m != connMutexAddr {
		cfunc[func(*libc.TLS, uintptr)](sqliteMutexes.FxMutexFree)(tls, m)
	}
}

func mutexEnter(tls *libc.TLS, m uintptr) {
	if m != connMutexAddr {
		cfunc[func(*libc.TLS, uintptr)](sqliteMutexes.FxMutexEnter)(tls, m)
	}
}

func mutexTry(tls *libc.TLS, m uintptr) int32 {
	if m == connMutexAddr {
		return sqlite3.SQLITE_OK
	}
	return cfunc[func(*libc.TLS, uintptr) int32](sqliteMutexes.FxMutexTry)(tls, m)
}

func mutexLeave(tls *libc.TLS, m uintptr) {
	if m != connMutexAddr {
		cfunc[func(*libc.TLS, uintptr)](sqliteMutexes.FxMutexLeave)(tls, m)
	}
}
