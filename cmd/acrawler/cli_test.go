package main

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/app"
	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/testweb"
)

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	badConfig := filepath.Join(dir, "bad.toml")
	os.WriteFile(badConfig, []byte("max_depth = \"deep\"\n"), 0o644)
	unknownKey := filepath.Join(dir, "unknown.toml")
	os.WriteFile(unknownKey, []byte("max_dept = 3\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"malformed seed", []string{"crawl", "--db", db, "http://exa mple.com:99999/"}, 2, "seed"},
		{"unsupported seed", []string{"crawl", "--db", db, "mailto:x@y.org"}, 2, "seed"},
		{"missing config", []string{"crawl", "--db", db, "--config", filepath.Join(dir, "none.toml"), "http://a.test/"}, 2, "none.toml"},
		{"bad config value", []string{"crawl", "--db", db, "--config", badConfig, "http://a.test/"}, 2, "bad.toml"},
		{"unknown config key", []string{"crawl", "--db", db, "--config", unknownKey, "http://a.test/"}, 2, "max_dept"},
		{"bad flag", []string{"crawl", "--db", db, "--max-depth", "x", "http://a.test/"}, 2, "max-depth"},
		{"bad size", []string{"crawl", "--db", db, "--max-bytes", "2 parsecs", "http://a.test/"}, 2, "max-bytes"},
		{"bad scope", []string{"crawl", "--db", db, "--scope", "planet", "http://a.test/"}, 2, "scope"},
		{"near distance beyond the bands", []string{"crawl", "--db", db, "--near-distance", "4", "http://a.test/"}, 2, "near-distance"},
		{"bad exclude", []string{"crawl", "--db", db, "--exclude", "(", "http://a.test/"}, 2, "exclude"},
		{"missing seeds file", []string{"crawl", "--db", db, "--seeds", filepath.Join(dir, "seeds.txt")}, 2, "seeds.txt"},
		{"no seeds", []string{"crawl", "--db", db}, 2, "no seed"},
		{"unknown command", []string{"crawlx"}, 2, "unknown command"},
		{"unopenable db", []string{"crawl", "--db", filepath.Join(dir, "missing", "dir", "x.db"), "http://a.test/"}, 1, "x.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, tt.args...)
			var stderr bytes.Buffer
			if code := exitCode(err, &stderr); code != tt.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tt.code)
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tt.msg) {
				t.Errorf("error %q, want one line naming %q", msg, tt.msg)
			}
		})
	}
	// Nothing was written by the failed runs, except where no seed was
	// given (the database is opened to look for a queue to resume).
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "bad.toml" && n != "unknown.toml" && !strings.HasPrefix(n, "x.db") {
			t.Errorf("unexpected file %s left behind", n)
		}
	}
	if _, err := os.Stat(db); err == nil {
		d := apptest.OpenDB(t, db)
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM urls`); n != 0 {
			t.Errorf("%d URLs written by failed runs", n)
		}
	}
}

// runQuiet runs acrawler and returns its exit status, what it wrote to
// standard error before the final message, and that message (as main
// prints it).
func runQuiet(t *testing.T, args ...string) (code int, stderr, msg string) {
	t.Helper()
	var out, errb, m bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code = exitCode(Run(ctx, args, &out, &errb), &m)
	return code, errb.String(), m.String()
}

// A bad flag value is one line naming the problem, as README promises,
// not that line preceded by the same error and the whole flag list; -h
// still prints the flag list.
func TestBadFlagIsOneLine(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	for _, args := range [][]string{
		{"crawl", "--db", db, "--max-depth", "x", "http://a.test/"},
		{"crawl", "--db", db, "--max-bytes", "99999999999999GB", "http://a.test/"},
		{"crawl", "--db", db, "--delay", "5", "http://a.test/"},
		{"crawl", "--db", db, "--no-such-flag", "http://a.test/"},
		{"recrawl", "--db", db, "--max-duration", "soon"},
		{"stats", "--db", db, "--hosts", "many"},
	} {
		code, stderr, msg := runQuiet(t, args...)
		if code != 2 || stderr != "" || strings.Count(msg, "\n") != 1 {
			t.Errorf("acrawler %s: exit %d, standard error %d lines:\n%s%s\nwant exit 2 and one line",
				strings.Join(args, " "), code, strings.Count(stderr+msg, "\n"), apptest.FirstLines(stderr, 3), msg)
		}
	}
	code, stderr, _ := runQuiet(t, "crawl", "-h")
	if code != 0 || !strings.Contains(stderr, "-max-bytes") {
		t.Errorf("crawl -h: exit %d, %q; want the flag list and exit 0", code, apptest.FirstLines(stderr, 3))
	}
}

// Bad arguments write nothing: no database file, no lock file beside it.
func TestNothingWrittenOnBadArgs(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"bad trap policy", []string{"--trap-policy", "bogus", "http://a.test/"}, "trap policy"},
		{"no seeds and no database", nil, "no seed"},
		{"recrawl of no database", []string{"recrawl"}, "nothing to revisit"},
		{"negative max-duration", []string{"--max-duration", "-1s", "http://a.test/"}, "--max-duration"},
		{"negative retry-base", []string{"--retry-base", "-30s", "http://a.test/"}, "--retry-base"},
		{"negative max-backoff", []string{"--max-backoff", "-1m", "http://a.test/"}, "--max-backoff"},
		{"negative robots-retry", []string{"--robots-retry", "-1m", "http://a.test/"}, "--robots-retry"},
		{"negative store-outage", []string{"--store-outage", "-1m", "http://a.test/"}, "--store-outage"},
		{"negative revisit-every", []string{"--revisit-every", "-1h", "http://a.test/"}, "--revisit-every"},
		{"negative max-pages", []string{"--max-pages", "-1", "http://a.test/"}, "--max-pages"},
		{"no links per page", []string{"--max-links-per-page", "0", "http://a.test/"}, "--max-links-per-page"},
		{"host share not a number", []string{"--max-bytes", "1GB", "--max-host-share", "NaN", "http://a.test/"}, "--max-host-share"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd, rest := "crawl", tt.args
			if len(rest) > 0 && rest[0] == "recrawl" {
				cmd, rest = rest[0], rest[1:]
			}
			args := append([]string{cmd, "--db", filepath.Join(dir, "x.db"), "--progress", "off"}, rest...)
			code, _, msg := runQuiet(t, args...)
			if code != 2 || !strings.Contains(msg, tt.msg) {
				t.Errorf("exit %d, %q; want exit 2 and a message naming %q", code, msg, tt.msg)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				t.Errorf("%s written although the arguments are bad", e.Name())
			}
		})
	}
}

func TestPasswordNeverShown(t *testing.T) {
	t.Parallel()
	// Unreachable server: the error names host and port, not the password.
	_, stderr, err := runCmd(t, "crawl", "--db", "postgres://crawler:hunter2@127.0.0.1:1/acrawler", "http://a.test/")
	var msg strings.Builder
	if code := exitCode(err, &msg); code != 1 {
		t.Fatalf("exit %d (%v), want 1", code, err)
	}
	if !strings.Contains(msg.String(), "127.0.0.1:1") || strings.Contains(msg.String()+stderr, "hunter2") {
		t.Errorf("error %q (log %q): want host and port named, password hidden", msg.String(), stderr)
	}
	// A working crawl with a password in its DSN (the test server trusts
	// any password) logs the DSN without it.
	dsn := pgtest.SchemaDSN(t)
	u, _ := url.Parse(dsn)
	u.User = url.UserPassword(u.User.Username(), "hunter2")
	web := apptest.NewWeb(t, testweb.Config{Seed: 1, PagesPerSite: 5})
	args := web.CrawlArgs(u.String(), "--delay", "0", "--max-pages", "5", "http://www.northfield-university.test/")
	args = append(args[:len(args)-1], "--log-level", "debug", args[len(args)-1])
	out, logs, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
	if strings.Contains(out+logs, "hunter2") || !strings.Contains(logs, "xxxxx") {
		t.Errorf("the password shows in the output or the DSN is not logged redacted:\n%s", logs)
	}
}

// TestResumeAfterKill kills a crawl on PostgreSQL once (SIGKILL) and
// resumes it: the same URLs as an uninterrupted crawl, no page recorded
// before the kill fetched again. On SQLite TestKillLoop checks the same
// and more over ten kills.
func TestResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and crawls twice")
	}
	t.Parallel()
	testResumeAfterKill(t, apptest.Backends[1], 0)
}

// TestResumeAfterKillStagedFinds is TestResumeAfterKill on a SQLite store
// that already holds a million URLs: its commits stage the URLs their
// pages discover, so the kill finds some staged and the resumed crawl
// has them merged.
func TestResumeAfterKillStagedFinds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a store of a million URLs and crawls twice")
	}
	t.Parallel()
	testResumeAfterKill(t, apptest.Backends[0], 1_000_000)
}

// testResumeAfterKill crawls be, filled first (apptest.FillSQLite) with
// fill URLs when fill is not 0.
func testResumeAfterKill(t *testing.T, be apptest.Backend, fill int) {
	bin := programPath(t)
	cfg := testweb.Config{Seed: 11, PagesPerSite: 40}
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/", "http://lab.quantum-optics-institute.test/"}

	// The reference: one uninterrupted crawl of its own copy of the web.
	refDB := be.NewDB(t) // first: skips before any work without a server
	ref := apptest.NewWeb(t, cfg)
	mustCrawl(t, append(ref.CrawlArgs(refDB, "--delay", "0", "--max-depth", "0", "--no-pdf"), seeds...)...)
	want := apptest.FinalURLs(t, refDB)
	if len(want) < 150 {
		t.Fatalf("reference crawl recorded only %d URLs", len(want))
	}

	// The same crawl, killed with SIGKILL part way and run again.
	web := apptest.NewWeb(t, cfg)
	db := be.NewDB(t)
	final := func() []string { return apptest.FinalURLs(t, db) }
	if fill > 0 {
		apptest.FillSQLite(t, db, fill)
		final = func() []string {
			return slices.DeleteFunc(apptest.FinalURLs(t, db), func(u string) bool { return strings.HasPrefix(u, "/old/") })
		}
	}
	// A restarted process is a new lease owner: with PostgreSQL it waits
	// for the dead one's leases to expire.
	args := append(web.CrawlArgs(db, "--delay", "15ms", "--max-depth", "0", "--lease", "2s", "--no-pdf"), seeds...)
	cmd := programCommand(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for len(web.Requests()) < len(want)/3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the crawl made only %d requests in a minute\n%s", len(web.Requests()), stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill() // SIGKILL: no chance to clean up
	cmd.Wait()
	atKill := map[string]bool{}
	for _, u := range final() {
		atKill[u] = true
	}
	if len(atKill) == 0 || len(atKill) >= len(want) {
		t.Fatalf("at the kill %d URLs were final, want part of %d", len(atKill), len(want))
	}
	requestsBefore := len(web.Requests())

	out, err := programCommand(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed crawl: %v\n%s", err, out)
	}
	got := final()
	if onlyRef, onlyResumed := apptest.Diff(want, got); len(onlyRef)+len(onlyResumed) > 0 {
		t.Errorf("resumed crawl differs from the uninterrupted one: %d only in the reference %s, %d only in the resumed %s",
			len(onlyRef), apptest.Short(onlyRef), len(onlyResumed), apptest.Short(onlyResumed))
	}

	// No page fetched twice, except those in flight at the kill (requested
	// but not yet recorded).
	seen := map[string]int{}
	inFlight := 0
	for i, r := range web.Requests() {
		if strings.HasPrefix(r.Path, "/robots") || r.Method == "CONNECT" || r.Status >= 500 || r.Status == 429 {
			continue
		}
		u := "http://" + r.Host + r.Path
		seen[u]++
		if seen[u] == 2 {
			if i < requestsBefore || atKill[u] {
				t.Errorf("%s fetched twice although it was recorded before the kill", u)
			} else {
				inFlight++
			}
		}
	}
	t.Logf("reference %d URLs; %d final at the kill; %d fetched again (in flight at the kill); %d requests before, %d after",
		len(want), len(atKill), inFlight, requestsBefore, len(web.Requests())-requestsBefore)
	if inFlight > maxUnrecorded {
		t.Errorf("%d pages fetched again after the restart: more than could have been in flight (%d)", inFlight, maxUnrecorded)
	}
}

// asProgram, set in its environment, makes this test binary the program:
// TestMain calls main. The tests that kill the program, run several
// processes of it or run it as another user exec the test binary so,
// instead of building the program first (which costs as much as they do).
const asProgram = "ACRAWLER_TEST_AS_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

// programPath is the program's executable: this test binary.
func programPath(t *testing.T) string {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// programCommand runs the program at bin (programPath, or a copy of it)
// with args, in a process of its own.
func programCommand(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), asProgram+"=1")
	return cmd
}

// The commands README.md shows (go run ./cmd/acrawler ...) are commands
// the program knows, with flags and values it takes as written.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "go run ./cmd/acrawler ")
		if !ok {
			continue
		}
		if i := strings.Index(rest, "#"); i >= 0 {
			rest = rest[:i]
		}
		args := strings.Fields(rest)
		if _, ok := commands[args[0]]; !ok {
			t.Errorf("README: %q: no command %q", line, args[0])
			continue
		}
		if _, _, err := app.Load(args[0], args[1:], io.Discard); err != nil {
			t.Errorf("README: %q: %v", line, err)
		}
		n++
	}
	if n < 2 {
		t.Errorf("README shows %d commands, want the crawl and what follows it", n)
	}
}
