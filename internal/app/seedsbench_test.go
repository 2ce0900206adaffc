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
)

// TestSeedsScale measures `acrawler crawl --seeds FILE` as a program of
// its own on a generated file of ACRAWLER_SEEDS_BENCH lines over a tenth
// as many hosts (URLs of 60–120 bytes, hosts interleaved), stopped by
// --max-duration 1ns once the seeds are added (nothing is fetched). It
// reports the URLs added per second of the whole run, the bytes the
// process wrote per URL (the kernel's write_bytes, /proc/self/io, from
// its rusage), the database's bytes per URL and the peak RSS (VmHWM, its
// rusage maxrss). ACRAWLER_SEEDS_BASELINE names the tree of an earlier
// commit (`git archive COMMIT | tar -x -C DIR`) whose program runs the
// same file right after, for a same-run comparison:
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
	for _, name := range order {
		db := filepath.Join(dir, name+".db")
		cmd := exec.Command(bins[name], "crawl", "--db", db, "--seeds", file, "--max-duration", "1ns", "--no-sitemaps",
			"--progress", "off", "--log-level", "warn", "--warc", "off")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		var disk int64
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if fi, err := os.Stat(db + suffix); err == nil {
				disk += fi.Size()
			}
		}
		d := apptest.OpenDB(t, db)
		var queued int
		if err := d.Row(`SELECT count(*) FROM urls`).Scan(&queued); err != nil || queued != n {
			t.Fatalf("%s: %d URLs queued (%v), want %d", name, queued, err, n)
		}
		t.Logf("%s: %d seeds over %d hosts in %.1fs: %.0f URLs/s, %.0f B written/URL, %.0f B/URL on disk, peak RSS %.0f MB",
			name, n, hosts, took.Seconds(), float64(n)/took.Seconds(), float64(ru.Oublock*512)/float64(n),
			float64(disk)/float64(n), float64(ru.Maxrss)/1024)
		if !d.PG {
			// Where the bytes are: the pages of each table and index
			// (SQLite's dbstat), per URL.
			by := apptest.QueryStrings(t, d, `SELECT name || ' ' || printf('%.1f', sum(pgsize) * 1.0 / ?) FROM dbstat
				GROUP BY name HAVING sum(pgsize) > ? ORDER BY sum(pgsize) DESC`, n, n)
			t.Logf("%s: B/URL by table and index: %s", name, strings.Join(by, ", "))
		}
	}
}
