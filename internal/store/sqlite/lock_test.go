package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestLockCoversEverySpelling: a second writer is refused however it names
// the database (through a symbolic link, a relative path, a hard link), the
// refusal names the process that holds it, the first writer keeps working,
// and once it closes the second one gets in.
func TestLockCoversEverySpelling(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "crawl.db")
	first, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	linkedDir := filepath.Join(t.TempDir(), "dir")
	if err := os.Symlink(dir, linkedDir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, name := range []string{file, link, "crawl.db", "./crawl.db", filepath.Join(linkedDir, "crawl.db"), dir + "/../" + filepath.Base(dir) + "/crawl.db"} {
		_, err := sqlite.Open(ctx, name, sqlite.Options{})
		if !errors.Is(err, crawl.ErrLocked) {
			t.Fatalf("second Open(%q) error = %v, want ErrLocked", name, err)
		}
		if want := "pid " + strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), want) {
			t.Errorf("second Open(%q) error %q does not name the holder (%s)", name, err, want)
		}
		if _, _, err := sqlite.Migrate(ctx, name, sqlite.Options{}); !errors.Is(err, crawl.ErrLocked) {
			t.Fatalf("Migrate(%q) error = %v, want ErrLocked", name, err)
		}
	}
	if _, err := first.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatalf("first writer after the refused opens: %v", err)
	}
	ro, err := sqlite.Open(ctx, link, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open through the link while the writer runs: %v", err)
	}
	if _, err := ro.Counters(ctx); err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := sqlite.Open(ctx, link, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open through the link after the first writer closed: %v", err)
	}
	c, err := second.Counters(ctx)
	second.Close()
	if err != nil || c.Queued != 1 {
		t.Fatalf("counters through the link: %+v, %v; want the URL the first writer queued", c, err)
	}
}

// TestHardLinkedDatabaseIsRefused: SQLite keeps a database's WAL beside the
// name it was opened by, so two names for one file lose or corrupt writes;
// a writer refuses a database file with other hard links.
func TestHardLinkedDatabaseIsRefused(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	other := filepath.Join(t.TempDir(), "other.db")
	if err := os.Link(file, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for _, name := range []string{file, other} {
		if _, err := sqlite.Open(ctx, name, sqlite.Options{}); err == nil || !strings.Contains(err.Error(), "hard link") {
			t.Errorf("Open(%q) of a hard-linked database: err = %v, want a refusal naming the hard links", name, err)
		}
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	db, err = sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatalf("Open after the other link was removed: %v", err)
	}
	db.Close()
}
