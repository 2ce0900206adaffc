package app

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
)

// TestSeedsScale measures `acrawler crawl --seeds FILE` as a program of
// its own on a generated file of ACRAWLER_SEEDS_BENCH lines over a tenth
// as many hosts (URLs of 60–120 bytes, hosts interleaved), stopped by
// --max-duration 1ns once the seeds are added (nothing is fetched). It
// reports the URLs added per second of the whole run, the CPU time per
// URL, the bytes the process wrote per URL (the kernel's write_bytes, in
// all and less cancelled_write_bytes: pages of the WAL or a temporary
// file dropped before they reached the disk), the database's bytes per
// URL and the peak RSS (VmHWM, its rusage maxrss). ACRAWLER_SEEDS_BASELINE names the tree of an earlier
// commit (`git archive COMMIT | tar -x -C DIR`, or a worktree) whose
// program runs the same file right after, for a same-run comparison;
// ACRAWLER_SEEDS_RUNS=N runs the programs in turn N times.
//
// With ACRAWLER_TEST_POSTGRES set, each program also runs on PostgreSQL,
// in a fresh schema of that server: there the figures are the server's
// WAL per URL (pg_current_wal_lsn before and after: on a server of its
// own, the run's alone) and the schema's tables and indexes per URL
// (pg_total_relation_size), beside the rate and the program's peak RSS.
// ACRAWLER_SEEDS_STORE=sqlite or postgres runs one store only:
//
//	ACRAWLER_SEEDS_BENCH=2000000 go test -run TestSeedsScale -v -timeout 60m ./internal/app
func TestSeedsScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ACRAWLER_SEEDS_BENCH"))
	if n <= 0 {
		t.Skip("ACRAWLER_SEEDS_BENCH=LINES runs it")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "seeds.txt")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	hosts := max(1, n/10)
	pad := "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
	for i := range n {
		fmt.Fprintf(w, "http://www.inst%06d.edu/dept-%d/%s/page-%d.html\n", i%hosts, i%7, pad[:i%53], i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	build := func(src, out string) string {
		cmd := exec.Command("go", "build", "-o", out, "./cmd/acrawler")
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build in %s: %v\n%s", src, err, b)
		}
		return out
	}
	bins := map[string]string{"this": build("../..", filepath.Join(dir, "acrawler"))}
	order := []string{"this"}
	if base := os.Getenv("ACRAWLER_SEEDS_BASELINE"); base != "" {
		bins["base"] = build(base, filepath.Join(dir, "acrawler-base"))
		order = append(order, "base")
	}
	stores := []string{"sqlite"}
	if os.Getenv("ACRAWLER_TEST_POSTGRES") != "" {
		stores = append(stores, "postgres")
	}
	if only := os.Getenv("ACRAWLER_SEEDS_STORE"); only != "" {
		stores = []string{only}
	}
	runs, _ := strconv.Atoi(os.Getenv("ACRAWLER_SEEDS_RUNS"))
	for run := range max(runs, 1) {
		for _, store := range stores {
			for _, name := range order {
				label := fmt.Sprintf("%s %s run %d", name, store, run+1)
				if store == "postgres" {
					seedsOnPostgres(t, label, bins[name], file, n, hosts)
				} else {
					seedsOnSQLite(t, label, bins[name], filepath.Join(dir, fmt.Sprintf("%s-%d.db", name, run)), file, n, hosts)
				}
			}
		}
	}
}

// seedsUse is what a run of the program took.
type seedsUse struct {
	took time.Duration
	cpu  time.Duration // user and system
	// written is the bytes the process caused to be written to storage
	// (write_bytes); cancelled, those of them dropped before they reached
	// it (cancelled_write_bytes: pages of a file truncated or deleted).
	written, cancelled int64
	maxRSS             int64 // bytes
}

// perURL is the use per URL of n: CPU µs, bytes written in all and not
// counting the cancelled ones.
func (u seedsUse) perURL(n int) (cpu, written, kept float64) {
	return float64(u.cpu.Microseconds()) / float64(n), float64(u.written) / float64(n),
		float64(u.written-u.cancelled) / float64(n)
}

// seedsRun runs bin's crawl of the seeds file on db and returns what it
// took. The bytes written come from this process's /proc/self/io, before
// and after: the kernel adds a child's I/O to its parent's once reaped.
func seedsRun(t *testing.T, label, bin, db, file string) seedsUse {
	t.Helper()
	cmd := exec.Command(bin, "crawl", "--db", db, "--seeds", file, "--max-duration", "1ns", "--no-sitemaps",
		"--progress", "off", "--log-level", "warn", "--warc", "off")
	io0 := procIO(t)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("%s: %v\n%s", label, err, out)
	}
	io1 := procIO(t)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return seedsUse{took: took, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		written: io1["write_bytes"] - io0["write_bytes"], cancelled: io1["cancelled_write_bytes"] - io0["cancelled_write_bytes"],
		maxRSS: ru.Maxrss << 10}
}

// procIO reads this process's /proc/self/io counters (with those of its
// reaped children).
func procIO(t *testing.T) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Fatalf("bytes written: %v", err)
	}
	io := map[string]int64{}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatalf("bytes written: /proc/self/io %q: %v", line, err)
			}
			io[k] = n
		}
	}
	return io
}

// checkSeeded fails unless db holds n URLs: rows of urls and, in a
// SQLite store that packs them (a baseline's may not), packed URLs.
func checkSeeded(t *testing.T, label string, d *apptest.DB, n int) {
	t.Helper()
	q, has := `SELECT count(*) FROM urls`, `SELECT count(*) FROM sqlite_master WHERE name = 'seen'`
	if d.PG {
		has = `SELECT count(*) FROM pg_class WHERE oid = to_regclass('seen')`
	}
	if apptest.QueryInt(t, d, has) == 1 {
		q = `SELECT (SELECT count(*) FROM urls) + (` + packedURLs(d) + `)`
	}
	var queued int
	if err := d.Row(q).Scan(&queued); err != nil || queued != n {
		t.Fatalf("%s: %d URLs queued (%v), want %d", label, queued, err, n)
	}
}

func seedsOnSQLite(t *testing.T, label, bin, db, file string, n, hosts int) {
	use := seedsRun(t, label, bin, db, file)
	var disk int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(db + suffix); err == nil {
			disk += fi.Size()
		}
	}
	d := apptest.OpenDB(t, db)
	checkSeeded(t, label, d, n)
	cpu, written, kept := use.perURL(n)
	t.Logf("%s: %d seeds over %d hosts in %.1fs: %.0f URLs/s, CPU %.1f µs/URL, %.0f B written/URL (%.0f not counting cancelled writes), %.0f B/URL on disk, peak RSS %.0f MB",
		label, n, hosts, use.took.Seconds(), float64(n)/use.took.Seconds(), cpu, written, kept,
		float64(disk)/float64(n), float64(use.maxRSS)/(1<<20))
	// Where the bytes are: the pages of each table and index (SQLite's
	// dbstat), per URL.
	by := apptest.QueryStrings(t, d, `SELECT name || ' ' || printf('%.1f', sum(pgsize) * 1.0 / ?) FROM dbstat
		GROUP BY name HAVING sum(pgsize) > ? ORDER BY sum(pgsize) DESC`, n, n)
	var free, page int64
	if err := d.Row(`SELECT freelist_count, page_size FROM pragma_freelist_count, pragma_page_size`).Scan(&free, &page); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: B/URL by table and index: %s; free pages %.1f", label, strings.Join(by, ", "), float64(free*page)/float64(n))
}

func seedsOnPostgres(t *testing.T, label, bin, file string, n, hosts int) {
	db := pgtest.SchemaDSN(t)
	d := apptest.OpenDB(t, db)
	// Each run starts from a checkpoint, so that none begun by the run
	// before falls in it (its full-page images and writes are counted in
	// the run that caused them). Only a superuser or pg_checkpoint may.
	if _, err := d.Exec(`CHECKPOINT`); err != nil {
		t.Logf("%s: no checkpoint before the run: %v", label, err)
	}
	var before string
	if err := d.Row(`SELECT pg_current_wal_lsn()::text`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	use := seedsRun(t, label, bin, db, file)
	var wal, size int64
	if err := d.Row(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint,
		(SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
			WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind = 'r')`, before).Scan(&wal, &size); err != nil {
		t.Fatal(err)
	}
	checkSeeded(t, label, d, n)
	cpu, _, _ := use.perURL(n)
	t.Logf("%s: %d seeds over %d hosts in %.1fs: %.0f URLs/s, CPU %.1f µs/URL (the program's), %.0f B of WAL/URL, %.0f B/URL in tables and indexes, peak RSS %.0f MB",
		label, n, hosts, use.took.Seconds(), float64(n)/use.took.Seconds(), cpu, float64(wal)/float64(n), float64(size)/float64(n),
		float64(use.maxRSS)/(1<<20))
	// Where the bytes are: each table and index (its main fork, the
	// free space map and visibility map apart), per URL.
	by := apptest.QueryStrings(t, d, `SELECT c.relname || ' ' || to_char(pg_relation_size(c.oid)::float8 / $1, 'FM9990.0')
		FROM pg_class c WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind IN ('r', 'i')
			AND pg_relation_size(c.oid) > $1 ORDER BY pg_relation_size(c.oid) DESC`, n)
	t.Logf("%s: B/URL by table and index: %s", label, strings.Join(by, ", "))
	// Row versions: dead ones wait for a vacuum (none runs here when the
	// server's autovacuum is off).
	rows := apptest.QueryStrings(t, d, `SELECT relname || ' ' || n_live_tup || ' live, ' || n_dead_tup || ' dead, '
			|| n_tup_upd || ' updated (' || n_tup_hot_upd || ' in place)'
		FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ('urls', 'hosts', 'seen', 'queue_runs') ORDER BY relname`)
	t.Logf("%s: rows: %s", label, strings.Join(rows, "; "))
}
