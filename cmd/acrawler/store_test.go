package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestStatsAndExportOnUnwritableDatabase: stats and export read a crawl
// database the user may not write (a read-only file, directory, or both)
// and write nothing to it. Permissions do not hold root back, so as root
// the commands run as nobody.
func TestStatsAndExportOnUnwritableDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	web := apptest.NewWeb(t, testweb.Config{Seed: 23, Sites: 1, PagesPerSite: 8, NoFaults: true})
	made := filepath.Join(t.TempDir(), "crawl.db")
	mustCrawl(t, web.CrawlArgs(made, "--delay", "0", "--max-depth", "1", "--max-crawl-delay", "1ms", "--warc", "off",
		"http://www.northfield-university.test/")...)
	wantStats, _, err := runCmd(t, "stats", "--json", "--db", made)
	if err != nil {
		t.Fatal(err)
	}
	wantExport, _, err := runCmd(t, "export", "--db", made)
	if err != nil || strings.Count(wantExport, "\n") == 0 {
		t.Fatalf("export: %v, %d records; want some", err, strings.Count(wantExport, "\n"))
	}
	data, err := os.ReadFile(made)
	if err != nil {
		t.Fatal(err)
	}
	root := os.Geteuid() == 0
	bin := programPath(t)
	if root {
		shared := filepath.Join(sharedDir(t), "acrawler")
		if err := copyFile(bin, shared); err != nil {
			t.Fatal(err)
		}
		bin = shared
	}
	for _, tt := range []struct {
		name          string
		fileRO, dirRO bool
	}{
		{"read-only file", true, false},
		{"read-only directory", false, true},
		{"both", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(sharedDir(t), "data")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(dir, "crawl.db")
			if err := os.WriteFile(db, data, 0o644); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(db)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case root:
				// A root-owned 0755 directory and 0644 file are read-only to nobody.
				if !tt.dirRO {
					mustChown(t, dir)
				}
				if !tt.fileRO {
					mustChown(t, db)
				}
			default:
				if tt.fileRO {
					mustChmod(t, db, 0o444)
				}
				if tt.dirRO {
					mustChmod(t, dir, 0o555)
				}
			}
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"stats", "--json", "--db", db}, wantStats},
				{[]string{"export", "--db", db}, wantExport},
			} {
				cmd := programCommand(bin, c.args...)
				if root {
					cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				if err != nil && !errors.As(err, &exit) {
					t.Skipf("cannot run acrawler as another user: %v", err)
				}
				if err != nil {
					t.Fatalf("acrawler %s: %v\n%s", c.args[0], err, stderr.String())
				}
				if got := stdout.String(); c.args[0] == "stats" && statsCounters(t, got) != statsCounters(t, c.want) || c.args[0] != "stats" && got != c.want {
					t.Errorf("acrawler %s on the unwritable database printed\n%s\nwant\n%s", c.args[0], stdout.String(), c.want)
				}
			}
			after, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			fi2, err := os.Stat(db)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(after, data) || !fi2.ModTime().Equal(fi.ModTime()) {
				t.Error("stats or export wrote the database")
			}
			if tt.dirRO {
				ents, _ := os.ReadDir(dir)
				if len(ents) != 1 {
					t.Errorf("stats or export left files in the read-only directory: %v", ents)
				}
			}
		})
	}
}

// TestMigrateStatsRefuseWhatIsNotTheirs: migrate refuses another
// program's SQLite database, leaving it as it was; stats refuses it too,
// and asks for a migration on a database of an older schema, which
// migrate then brings up to date.
func TestMigrateStatsRefuseWhatIsNotTheirs(t *testing.T) {
	foreign := filepath.Join(t.TempDir(), "app.db")
	withSQL(t, foreign, `CREATE TABLE users (id INTEGER PRIMARY KEY)`, `CREATE TABLE orders (id INTEGER PRIMARY KEY)`)
	data, err := os.ReadFile(foreign)
	if err != nil {
		t.Fatal(err)
	}
	want := "sqlite: " + foreign + " is not an acrawler database (it has tables: orders, users)"
	for _, cmd := range []string{"migrate", "stats", "export"} {
		if _, _, err := runCmd(t, cmd, "--db", foreign); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("acrawler %s on another program's database: err = %v, want %q", cmd, err, want)
		}
	}
	if after, err := os.ReadFile(foreign); err != nil || !bytes.Equal(after, data) {
		t.Errorf("the refused database changed (%v)", err)
	}

	old := filepath.Join(t.TempDir(), "crawl.db")
	mustCrawl(t, "migrate", "--db", old)
	withSQL(t, old, fmt.Sprintf("PRAGMA user_version = %d", sqlite.SchemaVersion()-1))
	_, _, err = runCmd(t, "stats", "--db", old)
	if !errors.Is(err, sqlite.ErrNeedsMigration) || !strings.Contains(err.Error(), "run `acrawler migrate`") {
		t.Fatalf("stats on an older schema: err = %v, want it to ask for acrawler migrate", err)
	}
	if out := mustCrawl(t, "migrate", "--db", old); !strings.Contains(out, "migrated from version") {
		t.Fatalf("migrate printed %q", out)
	}
	if _, _, err := runCmd(t, "stats", "--db", old); err != nil {
		t.Fatalf("stats after migrate: %v", err)
	}
}

// statsCounters is the counters part of stats --json (the rest may depend on
// the time it is asked).
func statsCounters(t *testing.T, statsJSON string) string {
	t.Helper()
	var r struct{ Counters json.RawMessage }
	if err := json.Unmarshal([]byte(statsJSON), &r); err != nil || len(r.Counters) == 0 {
		t.Fatalf("stats --json printed %q (%v)", statsJSON, err)
	}
	return string(r.Counters)
}

func withSQL(t *testing.T, file string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// sharedDir is a temporary directory another user can reach (t.TempDir
// is the test user's alone).
func sharedDir(t *testing.T) string {
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

func mustChmod(t *testing.T, name string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(name, mode); err != nil {
		t.Fatal(err)
	}
}

func mustChown(t *testing.T, name string) {
	t.Helper()
	if err := os.Chown(name, 65534, 65534); err != nil {
		t.Fatal(err)
	}
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
