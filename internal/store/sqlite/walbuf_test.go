package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// openWALWriter opens file as the store's writer connection does (walVFS),
// in WAL mode, with a page cache of cacheKiB.
func openWALWriter(t testing.TB, file string, cacheKiB int) *sql.DB {
	t.Helper()
	d := dsn(file, false, cacheKiB)
	if !strings.Contains(d, "vfs="+walVFSName) {
		t.Fatalf("the writer's DSN %q does not name the WAL VFS", d)
	}
	w, err := sql.Open("sqlite", d)
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	var mode string
	if err := w.QueryRow(`PRAGMA journal_mode = WAL`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q: %v", mode, err)
	}
	return w
}

func mustExec(t testing.TB, d interface {
	Exec(string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := d.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestWALWritesGathered: a transaction's frames reach the WAL in a few
// large writes, not two writes a frame, and a checkpoint's pages reach
// the database file the same way.
func TestWALWritesGathered(t *testing.T) {
	w := openWALWriter(t, filepath.Join(t.TempDir(), "w.db"), 2048)
	mustExec(t, w, `CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)`)
	asked, base := walWrites.asked.Load(), walWrites.base.Load()
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		mustExec(t, tx, `INSERT INTO t (id, v) VALUES (?, randomblob(3000))`, i)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	asked, base = walWrites.asked.Load()-asked, walWrites.base.Load()-base
	// 400 rows of 3 KB are over 300 pages: two writes a frame asked, 31
	// frames a write made.
	if asked < 600 {
		t.Fatalf("SQLite asked for %d WAL writes, want at least 600 for the test to mean anything", asked)
	}
	if base > asked/20 {
		t.Errorf("%d WAL writes made for %d asked, want at most %d", base, asked, asked/20)
	}
	// The checkpoint copies those pages, in page order, to the database
	// file: the rows' pages follow each other there.
	asked, base = walWrites.asked.Load(), walWrites.base.Load()
	mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
	asked, base = walWrites.asked.Load()-asked, walWrites.base.Load()-base
	if asked < 300 {
		t.Fatalf("the checkpoint asked for %d writes, want at least 300 for the test to mean anything", asked)
	}
	if base > asked/10 {
		t.Errorf("the checkpoint made %d writes for %d asked, want at most %d", base, asked, asked/10)
	}
}

// TestWALCommitsSeenAtOnce: another connection (the readers', without
// walVFS) sees each commit as soon as it returns, through transactions
// that spill frames before they commit and read them back, roll back
// after spilling, and
// checkpoints that start the WAL over; the file is whole at the end.
func TestWALCommitsSeenAtOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "w.db")
	// A small page cache, so that large transactions write frames before
	// their commit.
	w := openWALWriter(t, file, 64)
	mustExec(t, w, `CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)`)
	r, err := sql.Open("sqlite", readerDSN(file, false, 64))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var rows, bytes int64
	next := int64(0)
	for i := range 300 {
		tx, err := w.Begin()
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + rng.IntN(4)
		if i%25 == 0 {
			n = 300 // over the 64 KiB cache: frames spill before the commit
		}
		var b int64
		for range n {
			size := 1 + rng.IntN(5000)
			mustExec(t, tx, `INSERT INTO t (id, v) VALUES (?, randomblob(?))`, next, size)
			next++
			b += int64(size)
		}
		if n > 4 {
			// The spilled pages read back, from the WAL, in the transaction.
			var got int64
			if err := tx.QueryRow(`SELECT sum(length(v)) FROM t`).Scan(&got); err != nil || got != bytes+b {
				t.Fatalf("transaction %d reads %d bytes back (%v), want %d", i, got, err, bytes+b)
			}
		}
		if i%7 == 3 {
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			rows += int64(n)
			bytes += b
		}
		switch i % 50 {
		case 10:
			mustExec(t, w, `PRAGMA wal_checkpoint(PASSIVE)`)
		case 40:
			mustExec(t, w, `PRAGMA wal_checkpoint(RESTART)`)
		}
		var gotRows, gotBytes int64
		if err := r.QueryRow(`SELECT count(*), coalesce(sum(length(v)), 0) FROM t`).Scan(&gotRows, &gotBytes); err != nil {
			t.Fatalf("after transaction %d: reader: %v", i, err)
		}
		if gotRows != rows || gotBytes != bytes {
			t.Fatalf("after transaction %d: the reader sees %d rows of %d bytes, want %d of %d", i, gotRows, gotBytes, rows, bytes)
		}
	}
	var ok string
	if err := r.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q, %v", ok, err)
	}
}

// TestWALCommitFrameWritten: when a commit returns, its frames are in
// the WAL file whatever the commit frame's place in the buffer, and so
// are the frame headers a commit rewrites (SQLite rewrites the headers
// of the frames after one a transaction overwrote, the commit frame's
// last, with no other call to the file before it publishes the commit).
// Transactions of 1 to 80 pages put the commit frame at every place in
// the buffer, among them its header as the last write that fits and its
// page past the end; every fifth one also overwrites pages it spilled.
// After each commit a reader reads every row, and a copy of the files, as
// a process killed then would leave them, opens with every row.
func TestWALCommitFrameWritten(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "w.db")
	w, r := openWALPair(t, file, 64) // spills: frames written before the commit
	var rows, bytes int64
	for k := 1; k <= 80; k++ {
		tx, err := w.Begin()
		if err != nil {
			t.Fatal(err)
		}
		first := rows
		for range k {
			mustExec(t, tx, `INSERT INTO t (id, v) VALUES (?, zeroblob(4000))`, rows)
			rows++
			bytes += 4000
		}
		if k%5 == 0 {
			// Pages written to the log before the commit, changed again:
			// overwritten in place, their headers rewritten at the commit.
			mustExec(t, tx, `UPDATE t SET v = randomblob(3999) WHERE id BETWEEN ? AND ?`, first, first+int64(k)/2)
			bytes -= int64(k)/2 + 1
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%d rows of %d bytes", rows, bytes)
		if got, err := countRows(r); err != nil || got != want {
			t.Fatalf("after a transaction of %d rows the reader sees %s (%v), want %s", k, got, err, want)
		}
		cp := filepath.Join(dir, fmt.Sprintf("copy%d.db", k))
		for _, suffix := range []string{"", "-wal"} {
			b, err := os.ReadFile(file + suffix)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cp+suffix, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, err := sql.Open("sqlite", "file:"+cp)
		if err != nil {
			t.Fatal(err)
		}
		got, err := countRows(c)
		c.Close()
		if err != nil || got != want {
			t.Fatalf("after a transaction of %d rows a copy of the files holds %s (%v), want %s", k, got, err, want)
		}
	}
}

// openWALPair opens file's writer as openWALWriter does, without
// automatic checkpoints, with a table t of rows, and a reader connection
// as the store's readers are.
func openWALPair(t *testing.T, file string, cacheKiB int) (w, r *sql.DB) {
	t.Helper()
	w = openWALWriter(t, file, cacheKiB)
	mustExec(t, w, `PRAGMA wal_autocheckpoint = 0`)
	mustExec(t, w, `CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)`)
	r, err := sql.Open("sqlite", readerDSN(file, false, 64))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return w, r
}

// countRows reads every row of t and says how many there are and their
// bytes.
func countRows(d *sql.DB) (string, error) {
	var n, b int64
	err := d.QueryRow(`SELECT count(*), coalesce(sum(length(v)), 0) FROM t`).Scan(&n, &b)
	return fmt.Sprintf("%d rows of %d bytes", n, b), err
}

// TestCheckpointCopiesSeenAtOnce: a checkpoint that copies part of the
// log (a reader holds an older snapshot) records the pages it copied, and
// readers that start after it read those pages from the database file:
// they must be there when it does.
func TestCheckpointCopiesSeenAtOnce(t *testing.T) {
	w, r := openWALPair(t, filepath.Join(t.TempDir(), "w.db"), 2048)
	var rows, bytes int64
	insert := func(n int) {
		t.Helper()
		tx, err := w.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			mustExec(t, tx, `INSERT INTO t (id, v) VALUES (?, randomblob(?))`, rows, 100+rows%3000)
			bytes += 100 + rows%3000
			rows++
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		var gotRows, gotBytes int64
		if err := r.QueryRow(`SELECT count(*), coalesce(sum(length(v)), 0) FROM t`).Scan(&gotRows, &gotBytes); err != nil {
			t.Fatalf("%s: reader: %v", when, err)
		}
		if gotRows != rows || gotBytes != bytes {
			t.Fatalf("%s: the reader sees %d rows of %d bytes, want %d of %d", when, gotRows, gotBytes, rows, bytes)
		}
	}
	for round := range 5 {
		insert(300)
		// A reader's snapshot at this commit holds the checkpoint back to it.
		old, err := r.Begin()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := old.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		insert(300)
		var busy, logged, copied int
		if err := w.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logged, &copied); err != nil {
			t.Fatal(err)
		}
		if copied == 0 || copied >= logged {
			t.Fatalf("round %d: the checkpoint copied %d of %d frames, want part of them", round, copied, logged)
		}
		old.Rollback()
		check(fmt.Sprintf("round %d, after a partial checkpoint", round))
	}
}

// TestWALCommitsSurviveKill: every commit that returned is in the
// database after the process is killed (SIGKILL) and the file opened
// again: no committed frame waited in the buffer.
func TestWALCommitsSurviveKill(t *testing.T) {
	if file := os.Getenv("ACRAWLER_TEST_WAL_CHILD"); file != "" {
		walCommitForever(t, file)
		return
	}
	file := filepath.Join(t.TempDir(), "w.db")
	cmd, lines := startChild(t, "TestWALCommitsSurviveKill", "ACRAWLER_TEST_WAL_CHILD", file)
	last := killAt(t, cmd, lines, 400)
	d := openWALWriter(t, file, 2048) // as the next run opens it
	var most int64
	if err := d.QueryRow(`SELECT max(id) FROM t`).Scan(&most); err != nil {
		t.Fatal(err)
	}
	if most < last {
		t.Errorf("after the kill the database holds rows up to %d, but %d was committed", most, last)
	}
}

// startChild runs the test named again in a process of its own, with
// the environment variable env set to file, and returns the process and
// the lines it prints. The process is killed when the test ends, or
// after a minute.
func startChild(t *testing.T, test, env, file string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+file)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timeout := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() {
		timeout.Stop()
		cmd.Process.Kill()
	})
	return cmd, bufio.NewScanner(out)
}

// killAt kills the child cmd (SIGKILL) once it has printed a number of
// at least n on a line of lines, and returns the last number it printed;
// it fails t if the child stopped before.
func killAt(t *testing.T, cmd *exec.Cmd, lines *bufio.Scanner, n int64) int64 {
	t.Helper()
	last := int64(-1)
	for last < n && lines.Scan() {
		if v, err := strconv.ParseInt(strings.TrimSpace(lines.Text()), 10, 64); err == nil {
			last = v
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if last < n {
		t.Fatalf("the child printed up to %d before it stopped, want %d", last, n)
	}
	return last
}

// walCommitForever commits a row a transaction to file and prints each
// row's ID once its commit has returned, until it is killed.
func walCommitForever(t *testing.T, file string) {
	w := openWALWriter(t, file, 2048)
	mustExec(t, w, `CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)`)
	ctx := context.Background()
	for i := int64(0); ; i++ {
		if _, err := w.ExecContext(ctx, `INSERT INTO t (id, v) VALUES (?, randomblob(100))`, i); err != nil {
			t.Fatal(err)
		}
		fmt.Println(i)
	}
}
