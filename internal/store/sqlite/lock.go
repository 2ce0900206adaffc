package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/crawl"
)

// The writer's lock is an exclusive flock on RESOLVED.lock, where RESOLVED
// is the database's absolute path with every symbolic link resolved: any
// spelling of the file (relative, absolute, through a linked file or
// directory) takes the same lock. Hard links cannot be resolved, and
// SQLite itself cannot share a database under two names (each name gets
// its own write-ahead log), so a writer refuses a database file with more
// than one link. The lock file holds a line naming its holder; read-only
// opens take no lock.

// resolvePath returns file's absolute path with its symbolic links
// resolved; for a file that does not exist yet, its directory's.
func resolvePath(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if fi, lerr := os.Lstat(abs); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("%s is a symbolic link to a file that does not exist", file)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// acquireLock takes the writer's lock (see above) so that a second crawl
// process on the same database fails at once instead of corrupting the
// frontier's in-flight bookkeeping.
func (db *DB) acquireLock() error {
	resolved, err := resolvePath(db.path)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", db.path, err)
	}
	if err := checkWritable(resolved); err != nil {
		return fmt.Errorf("sqlite: open %s: %w", db.path, err)
	}
	name := resolved + ".lock"
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(name, os.O_RDWR, 0)
		if errors.Is(err, fs.ErrPermission) {
			// Another user's lock file locks as well (flock needs no
			// write access); it keeps its holder line.
			f, err = os.Open(name)
		}
	}
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", db.path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			if h := lockHolder(name); h != "" {
				return fmt.Errorf("sqlite: open %s: %w (%s; lock %s)", db.path, crawl.ErrLocked, h, name)
			}
			return fmt.Errorf("sqlite: open %s: %w (lock %s)", db.path, crawl.ErrLocked, name)
		}
		return fmt.Errorf("sqlite: lock %s: %w", name, err)
	}
	// Checked again under the lock: a link made in between would
	// otherwise go unnoticed until the next open.
	if err := checkLinks(resolved); err != nil {
		f.Close()
		return fmt.Errorf("sqlite: open %s: %w", db.path, err)
	}
	host, _ := os.Hostname()
	holder := fmt.Sprintf("pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	// The holder line is for people reading the refusal; the lock holds
	// without it.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(holder), 0)
	}
	db.lock, db.lockCreated = f, created
	return nil
}

// dropCreatedLock removes the lock file when this open created it, for an
// open that refuses the file: a file that is not acrawler's is left as it
// was found. No acrawler writer can proceed on such a file, so removing
// the lock file under the lock lets no second writer in.
func (db *DB) dropCreatedLock() {
	if db.lock != nil && db.lockCreated {
		os.Remove(db.lock.Name())
		db.lockCreated = false
	}
}

// releaseLock empties the holder line and releases the lock.
func (db *DB) releaseLock() error {
	if db.lock == nil {
		return nil
	}
	db.lock.Truncate(0)
	err := db.lock.Close()
	db.lock = nil
	return err
}

// checkWritable refuses a database this process may not write, or whose
// directory it may not write, before SQLite opens it: SQLite would open
// such a file read-only, and the writer fail at its first write. It
// creates the -wal and -shm files beside the database, and removes them
// at the end; the lock file is there too.
func checkWritable(resolved string) error {
	for _, name := range []string{filepath.Dir(resolved), resolved} {
		err := syscall.Access(name, 2 /* W_OK */)
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return fmt.Errorf("%s is read-only to this process (%w); a crawl writes it, stats, export and serve can read it", name, err)
		}
	}
	return nil
}

// checkLinks refuses a database file that has other hard links.
func checkLinks(resolved string) error {
	fi, err := os.Stat(resolved)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink <= 1 {
		return nil
	}
	return fmt.Errorf("the database file has %d hard links; SQLite keeps its write-ahead log beside one name, "+
		"so writing through several names loses or corrupts data: remove the other links (or copy the file)", st.Nlink)
}

// lockHolder is the holder line of the lock file name, cleaned for an
// error message; "" when there is none.
func lockHolder(name string) string {
	b := make([]byte, 200)
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	n, _ := f.Read(b)
	line, _, _ := strings.Cut(string(b[:n]), "\n")
	line = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, line)
	if line == "" {
		return ""
	}
	return "held by " + strings.TrimSpace(line)
}
