package sqlite

// The writer's writes gathered into large ones.
//
// SQLite writes each frame of the WAL as two writes, the frame's 24-byte
// header and then its page, each a pwrite(2) of its own: two system calls
// for every page a transaction changes (4.2 µs a frame on this project's
// 2-core machine, against 0.43 µs for the same bytes written 256 frames at
// a time); a checkpoint then writes each page it copies to the database
// file with a call of its own. The VFS walVFS is the platform's default
// VFS with one change: on a WAL file or a main database file, writes that
// follow each other in the file are copied into a buffer of walBufSize
// bytes and written as one (31 frames of 4 KiB pages). The buffer is
// written out
//   - on a WAL file, right after the header of a commit frame and again
//     right after its page, before the write returns (a commit frame is
//     the one whose header carries the database size after the commit,
//     https://sqlite.org/fileformat2.html#walformat): SQLite publishes a
//     commit in the wal-index only after its frames are written, so
//     readers on other connections, and a restart after the process is
//     killed, find every committed frame in the file, as without the
//     buffer. The header goes at once because a commit that overwrote
//     frames it had written rewrites the headers from the first of them
//     on (their checksums change), the commit frame's last, and then
//     publishes the commit with no other call to the file;
//   - before any other operation on the file (read, sync, truncate, size,
//     file control, locks, shared-memory map and locks, memory map, close;
//     not memory barriers, which cannot report a failed write), so that
//     SQLite's own reads see what it wrote, and the pages a checkpoint
//     copied are in the database file before it records them as copied
//     (readers then read them there, not in the log): after its last write
//     a checkpoint calls the file control SQLITE_FCNTL_CKPT_DONE, then, if
//     it copied the whole log, truncates and syncs the file;
//   - before a write that does not continue the buffer, and when the next
//     write would not fit.
//
// The bytes in the files and their order are those SQLite writes; only
// the number of system calls changes. Frames of a transaction not yet
// committed may wait in the buffer, which changes nothing: a crash loses
// them either way, and recovery ignores frames after the last commit.
// Pages a checkpoint copied may wait too, until it records them as
// copied: nothing reads them in the database file before, and a crash
// leaves them in the WAL, from which the next open copies them again.
//
// The mechanism is the shim VFS of SQLite's own vfstrace.c, written
// against the transpiled library (see fts5aux.go for its function pointers
// and C memory): walVFS copies the default VFS with a larger file object
// and its own xOpen; a WAL or main database file opened through it keeps
// the default VFS's file, whose io methods it replaces by a copy in which
// every method that touches the file is walBuf's, and the buffer's state
// sits after the file object.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

const (
	// walVFSName is the VFS the store's connections open their files with.
	walVFSName = "acrawler-wal"
	// walBufSize is the buffer a file's writes gather in, in C memory from
	// its first write to the file's close: the most
	// the unix VFS writes in one call (its seekAndWriteFd masks a write's
	// size with 0x1ffff), 31 frames of 4 KiB pages.
	walBufSize = 0x1ffff
	// walFrameHeader is the size of a WAL frame's header.
	walFrameHeader = 24
)

// walBuf is the state of a WAL or main database file opened through
// walVFS, after the base VFS's file object in the same C memory.
type walBuf struct {
	methods uintptr // the base VFS's io methods of the file
	buf     uintptr // walBufSize bytes of C memory; 0 until the first write
	start   int64   // the file offset of the buffer's first byte
	n       int64   // bytes in the buffer
	commit  int32   // the last write was a commit frame's header
	wal     int32   // the file is a WAL (1), not the database (0)
}

// walVFS holds what walOpen and the io methods need of the base VFS.
var walVFS struct {
	base     uintptr // the base sqlite3_vfs
	fileSize uintptr // its szOsFile, rounded up to 8: where walBuf starts
	mu       sync.Mutex
	methods  map[uintptr]uintptr // base io methods -> walBuf's copy
}

// walWrites counts the writes SQLite asked for on files opened through
// walVFS (asked) and those the base VFS made (base), what the tests read,
// and the frames written to WAL files (frames), what the checkpointer
// follows (checkpoint.go).
var walWrites struct{ asked, base, frames atomic.Int64 }

// registerWALVFS registers walVFS (once per process).
var registerWALVFS = sync.OnceValue(func() error {
	tls := libc.NewTLS()
	defer tls.Close()
	base := sqlite3.Xsqlite3_vfs_find(tls, 0)
	if base == 0 {
		return errors.New("sqlite: no default VFS")
	}
	b := cval[sqlite3.Tsqlite3_vfs](base)
	walVFS.base = base
	walVFS.fileSize = (uintptr(b.FszOsFile) + 7) &^ 7
	walVFS.methods = map[uintptr]uintptr{}
	vfs := libc.Xcalloc(tls, 1, sqlite3.Tsize_t(unsafe.Sizeof(sqlite3.Tsqlite3_vfs{})))
	name, err := libc.CString(walVFSName)
	if vfs == 0 || err != nil {
		return errors.New("sqlite: register the WAL VFS: out of memory")
	}
	v := cval[sqlite3.Tsqlite3_vfs](vfs)
	*v = *b
	v.FpNext = 0
	v.FzName = name
	v.FszOsFile = int32(walVFS.fileSize + unsafe.Sizeof(walBuf{}))
	v.FxOpen = cFuncPointer(walOpen)
	if rc := sqlite3.Xsqlite3_vfs_register(tls, vfs, 0); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("sqlite: register the WAL VFS: error %d", rc)
	}
	return nil
})

func walState(file uintptr) *walBuf { return cval[walBuf](file + walVFS.fileSize) }

func baseMethods(s *walBuf) *sqlite3.Tsqlite3_io_methods {
	return cval[sqlite3.Tsqlite3_io_methods](s.methods)
}

// walOpen is walVFS's xOpen: the base VFS's, and for a WAL or main
// database file walBuf's io methods.
func walOpen(tls *libc.TLS, pVfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	open := cfunc[func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32](cval[sqlite3.Tsqlite3_vfs](walVFS.base).FxOpen)
	rc := open(tls, walVFS.base, zName, pFile, flags, pOutFlags)
	f := cval[sqlite3.Tsqlite3_file](pFile)
	if rc != sqlite3.SQLITE_OK || flags&(sqlite3.SQLITE_OPEN_WAL|sqlite3.SQLITE_OPEN_MAIN_DB) == 0 || f.FpMethods == 0 {
		return rc
	}
	methods := walMethods(tls, f.FpMethods)
	if methods == 0 {
		return rc // out of memory: the file is written as SQLite writes it
	}
	st := walBuf{methods: f.FpMethods}
	if flags&sqlite3.SQLITE_OPEN_WAL != 0 {
		st.wal = 1
	}
	*walState(pFile) = st
	f.FpMethods = methods
	return rc
}

// walMethods returns walBuf's copy of the io methods base.
func walMethods(tls *libc.TLS, base uintptr) uintptr {
	walVFS.mu.Lock()
	defer walVFS.mu.Unlock()
	if m, ok := walVFS.methods[base]; ok {
		return m
	}
	m := libc.Xcalloc(tls, 1, sqlite3.Tsize_t(unsafe.Sizeof(sqlite3.Tsqlite3_io_methods{})))
	if m == 0 {
		return 0
	}
	c := cval[sqlite3.Tsqlite3_io_methods](m)
	*c = *cval[sqlite3.Tsqlite3_io_methods](base)
	c.FxClose = cFuncPointer(walClose)
	c.FxRead = cFuncPointer(walRead)
	c.FxWrite = cFuncPointer(walWrite)
	c.FxTruncate = cFuncPointer(walTruncate)
	c.FxSync = cFuncPointer(walSync)
	c.FxFileSize = cFuncPointer(walFileSize)
	c.FxFileControl = cFuncPointer(walFileControl)
	c.FxLock = cFuncPointer(walLock)
	c.FxUnlock = cFuncPointer(walUnlock)
	c.FxCheckReservedLock = cFuncPointer(walCheckReservedLock)
	if c.FxShmMap != 0 {
		c.FxShmMap = cFuncPointer(walShmMap)
		c.FxShmLock = cFuncPointer(walShmLock)
		c.FxShmUnmap = cFuncPointer(walShmUnmap)
	}
	if c.FxFetch != 0 {
		c.FxFetch = cFuncPointer(walFetch)
		c.FxUnfetch = cFuncPointer(walUnfetch)
	}
	walVFS.methods[base] = m
	return m
}

// flush writes the buffer out.
func (s *walBuf) flush(tls *libc.TLS, file uintptr) int32 {
	s.commit = 0
	if s.n == 0 {
		return sqlite3.SQLITE_OK
	}
	n, start := s.n, s.start
	s.n = 0
	return s.baseWrite(tls, file, s.buf, int32(n), start)
}

func (s *walBuf) baseWrite(tls *libc.TLS, file, p uintptr, amt int32, off int64) int32 {
	walWrites.base.Add(1)
	return cfunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](baseMethods(s).FxWrite)(tls, file, p, amt, off)
}

func walWrite(tls *libc.TLS, file, p uintptr, amt int32, off int64) int32 {
	s := walState(file)
	walWrites.asked.Add(1)
	src := unsafe.Slice(cval[byte](p), amt)
	// A commit frame's header, and the write after it (its page), are
	// written out at once, each with what the buffer holds before it.
	// The page's write cannot wait for a later one: SQLite publishes the
	// commit when it returns. Nor can the header's: a commit that
	// overwrote frames it had written rewrites the headers after them,
	// the commit frame's last, and then publishes with no other call to
	// the file.
	header := s.wal != 0 && amt == walFrameHeader
	commitHeader := header && binary.BigEndian.Uint32(src[4:8]) != 0
	commitPage := s.commit != 0
	if header {
		walWrites.frames.Add(1)
	}
	if s.n > 0 && (off != s.start+s.n || s.n+int64(amt) > walBufSize) {
		if rc := s.flush(tls, file); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	if s.buf == 0 && amt <= walBufSize {
		s.buf = libc.Xmalloc(tls, walBufSize)
	}
	if s.buf == 0 || amt > walBufSize {
		s.commit = int32(b2i(commitHeader))
		return s.baseWrite(tls, file, p, amt, off)
	}
	if s.n == 0 {
		s.start = off
	}
	copy(unsafe.Slice(cval[byte](s.buf+uintptr(s.n)), amt), src)
	s.n += int64(amt)
	if commitHeader || commitPage {
		rc := s.flush(tls, file)
		s.commit = int32(b2i(commitHeader))
		return rc
	}
	return sqlite3.SQLITE_OK
}

// before writes file's buffer out before another operation on the file,
// and returns the base VFS's io methods to carry the operation out. A
// write that fails is the operation's error, and its bytes are dropped:
// SQLite then gives up what it was doing (a transaction rolls back, a
// checkpoint leaves the pages it copied in the log).
func before(tls *libc.TLS, file uintptr) (*sqlite3.Tsqlite3_io_methods, int32) {
	s := walState(file)
	return baseMethods(s), s.flush(tls, file)
}

func walRead(tls *libc.TLS, file, p uintptr, amt int32, off int64) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](m.FxRead)(tls, file, p, amt, off)
}

func walTruncate(tls *libc.TLS, file uintptr, size int64) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int64) int32](m.FxTruncate)(tls, file, size)
}

func walSync(tls *libc.TLS, file uintptr, flags int32) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32) int32](m.FxSync)(tls, file, flags)
}

func walFileSize(tls *libc.TLS, file, pSize uintptr) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, uintptr) int32](m.FxFileSize)(tls, file, pSize)
}

func walFileControl(tls *libc.TLS, file uintptr, op int32, pArg uintptr) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32, uintptr) int32](m.FxFileControl)(tls, file, op, pArg)
}

func walLock(tls *libc.TLS, file uintptr, lock int32) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32) int32](m.FxLock)(tls, file, lock)
}

func walUnlock(tls *libc.TLS, file uintptr, lock int32) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32) int32](m.FxUnlock)(tls, file, lock)
}

func walCheckReservedLock(tls *libc.TLS, file, pResOut uintptr) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, uintptr) int32](m.FxCheckReservedLock)(tls, file, pResOut)
}

func walShmMap(tls *libc.TLS, file uintptr, iPg, pgsz, bExtend int32, pp uintptr) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32, int32, int32, uintptr) int32](m.FxShmMap)(tls, file, iPg, pgsz, bExtend, pp)
}

func walShmLock(tls *libc.TLS, file uintptr, offset, n, flags int32) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32, int32, int32) int32](m.FxShmLock)(tls, file, offset, n, flags)
}

func walShmUnmap(tls *libc.TLS, file uintptr, deleteFlag int32) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32) int32](m.FxShmUnmap)(tls, file, deleteFlag)
}

func walFetch(tls *libc.TLS, file uintptr, off int64, amt int32, pp uintptr) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int64, int32, uintptr) int32](m.FxFetch)(tls, file, off, amt, pp)
}

func walUnfetch(tls *libc.TLS, file uintptr, off int64, p uintptr) int32 {
	m, rc := before(tls, file)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int64, uintptr) int32](m.FxUnfetch)(tls, file, off, p)
}

// walClose writes the buffer out, frees it and closes the file with the
// base VFS's io methods.
func walClose(tls *libc.TLS, file uintptr) int32 {
	s := walState(file)
	rc := s.flush(tls, file)
	if s.buf != 0 {
		libc.Xfree(tls, s.buf)
		s.buf = 0
	}
	base := baseMethods(s)
	cval[sqlite3.Tsqlite3_file](file).FpMethods = s.methods
	if crc := cfunc[func(*libc.TLS, uintptr) int32](base.FxClose)(tls, file); rc == sqlite3.SQLITE_OK {
		rc = crc
	}
	return rc
}
