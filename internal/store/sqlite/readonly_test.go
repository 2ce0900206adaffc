package sqlite_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// crawlDB makes a closed crawl database at file with one queued URL.
func crawlDB(t *testing.T, file string) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddURLs(context.Background(), []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(file + ".lock")
}

// readQueued opens file read-only and returns the number of queued URLs.
func readQueued(file string) (int64, error) {
	db, err := sqlite.Open(context.Background(), file, sqlite.Options{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	c, err := db.Counters(context.Background())
	return c.Queued, err
}

// TestReadOnlyOpenWritesNothing: a read-only open of a database a crawl
// left with changes in its write-ahead log reads them without writing them
// into the database file (a read-write connection, the last to close,
// would checkpoint them into it).
func TestReadOnlyOpenWritesNothing(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	w, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	// A copy taken now is a crawl stopped without closing: its latest
	// changes are only in the write-ahead log.
	left := filepath.Join(t.TempDir(), "left.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(file + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if suffix == "-wal" && len(b) == 0 {
			t.Fatal("the write-ahead log is empty; the test needs changes in it")
		}
		if err := os.WriteFile(left+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snap(t, left)
	for range 2 {
		if n, err := readQueued(left); err != nil || n != 1 {
			t.Fatalf("read-only open: %d queued, %v; want the 1 URL in the write-ahead log", n, err)
		}
	}
	before.shared = true
	before.check(t, left, "read-only open")
	wal, err := os.Stat(left + "-wal")
	if err != nil || wal.Size() == 0 {
		t.Errorf("the write-ahead log is gone or empty after a read-only open (%v): it was written into the database", err)
	}
}

// TestReadOnlyOpenRefusesWhatItCannotRead: a read-only open of an older
// schema says to migrate, of another program's database says so, and
// changes neither.
func TestReadOnlyOpenRefusesWhatItCannotRead(t *testing.T) {
	ctx := context.Background()
	old := filepath.Join(t.TempDir(), "old.db")
	db, err := sqlite.Open(ctx, old, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSchemaVersionForTest(ctx, sqlite.SchemaVersion()-1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	os.Remove(old + ".lock")
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := foreignDB(t, `CREATE TABLE users (id INTEGER PRIMARY KEY)`)
	for _, tt := range []struct {
		file, want string
		is         error
	}{
		{old, "needs migration; run `acrawler migrate`", sqlite.ErrNeedsMigration},
		{empty, "has schema version 0, this acrawler reads", sqlite.ErrNeedsMigration},
		{foreign, "is not an acrawler database (it has tables: users)", nil},
	} {
		before := snap(t, tt.file)
		before.shared = true
		_, err := readQueued(tt.file)
		if err == nil || !strings.Contains(err.Error(), tt.want) || tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("read-only open of %s: err = %v, want %q", filepath.Base(tt.file), err, tt.want)
		}
		before.check(t, tt.file, "read-only open")
	}
}

// TestReadOnlyOpenUnwritable: stats, export and serve read a database the
// process may not write: a read-only file, a read-only directory (where
// SQLite cannot create the -wal and -shm files readers share), both. The
// checks run as an unprivileged user, since permissions do not hold root
// back: as root the test runs itself again as nobody.
func TestReadOnlyOpenUnwritable(t *testing.T) {
	if file := os.Getenv("ACRAWLER_TEST_READONLY_DB"); file != "" {
		readUnwritable(t, file, os.Getenv("ACRAWLER_TEST_WRITER_ERROR"))
		return
	}
	root := os.Geteuid() == 0
	var bin string
	if root {
		bin = filepath.Join(sharedTempDir(t), "sqlite.test")
		if err := copyFile(os.Args[0], bin, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name          string
		fileRO, dirRO bool
		writerErr     string // what a writer's open says
	}{
		{"read-only file", true, false, "crawl.db is read-only to this process"},
		{"read-only directory", false, true, "data is read-only to this process"},
		{"both", true, true, "data is read-only to this process"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(sharedTempDir(t), "data")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "crawl.db")
			crawlDB(t, file)
			before := snap(t, file)
			if root {
				// Permissions as nobody sees them: a root-owned 0755
				// directory and 0644 file are read-only to it.
				if !tt.dirRO {
					chown(t, dir)
				}
				if !tt.fileRO {
					chown(t, file)
				}
				cmd := exec.Command(bin, "-test.run=^TestReadOnlyOpenUnwritable$", "-test.count=1")
				cmd.Env = append(os.Environ(), "ACRAWLER_TEST_READONLY_DB="+file, "ACRAWLER_TEST_WRITER_ERROR="+tt.writerErr)
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				out, err := cmd.CombinedOutput()
				var exit *exec.ExitError
				if err != nil && !errors.As(err, &exit) {
					t.Skipf("cannot run the test as nobody: %v", err)
				}
				if err != nil {
					t.Fatalf("read-only open as nobody: %v\n%s", err, out)
				}
			} else {
				if tt.fileRO {
					chmod(t, file, 0o444)
				}
				if tt.dirRO {
					chmod(t, dir, 0o555)
				}
				readUnwritable(t, file, tt.writerErr)
			}
			before.shared = !tt.dirRO
			before.check(t, file, "read-only open")
		})
	}
}

// readUnwritable reads file, which this process cannot write, and checks
// a writer's open is refused with writerErr.
func readUnwritable(t *testing.T, file, writerErr string) {
	t.Helper()
	if n, err := readQueued(file); err != nil || n != 1 {
		t.Fatalf("read-only open of %s: %d queued, %v; want 1", file, n, err)
	}
	db, err := sqlite.Open(context.Background(), file, sqlite.Options{})
	if err == nil {
		db.Close()
	}
	if err == nil || !strings.Contains(err.Error(), writerErr) {
		t.Errorf("read-write open of %s: err = %v, want %q", file, err, writerErr)
	}
}

// sharedTempDir is a temporary directory another user can reach (t.TempDir
// is the test user's alone).
func sharedTempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "acrawler-ro-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(d)
	})
	return d
}

func chmod(t *testing.T, name string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(name, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, name string) {
	t.Helper()
	if err := os.Chown(name, 65534, 65534); err != nil {
		t.Fatal(err)
	}
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
