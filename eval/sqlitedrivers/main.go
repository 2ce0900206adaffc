// Command sqlitedrivers measures how much of the SQLite store's CPU is the
// SQLite engine's translation to Go (modernc.org/sqlite, which the store
// uses) rather than the work itself: it replays the writes a crawl's
// commits make to the page, link and URL tables, and the end-of-crawl
// pass's reads of the pages, on modernc.org/sqlite and on SQLite's own C
// code through cgo (github.com/mattn/go-sqlite3), with the same
// statements, rows and settings, and reports the CPU each took a page.
// Built with -tags ncruces, it compares modernc.org/sqlite with
// github.com/ncruces/go-sqlite3 (SQLite built to WebAssembly and
// translated to Go) instead.
//
// The rows are a real crawl's: by default the program crawls the
// throughput benchmark's uniform web (100 hosts × 200 pages, 30 links a
// page) with the acrawler program into a temporary database and replays
// what it recorded; -db replays another crawl's database instead.
//
//	cd eval/sqlitedrivers && go run . -rounds 3
//	cd eval/sqlitedrivers && go run -tags ncruces . -rounds 3
//
// The replay is a model of the commits, not the store's code: each batch
// of -batch pages is one transaction that inserts the pages' rows (with
// the table's seven indexes), their outlinks rows and staging rows, marks
// their URLs fetched and adds their inbound-link counts to the targets'
// URL rows (256 a statement, as countInlinks does); every -merge staged
// links are merged into inlinks, sorted by target, 256 rows a statement.
// It leaves out what the store does in Go beside SQLite (the index's
// segments, the frontier's decisions) and its own log buffer, so what it
// compares is the engine's CPU on the store's tables.
package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/store/outlinks"
	store "github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/testweb"
)

// The tables replayed, in the order their rows are needed.
var tables = []string{"urls", "pages", "outlinks", "inlinks", "inlinks_staged"}

// drivers are the database/sql drivers compared, by their registered names.
var drivers = []string{"sqlite", "sqlite3"}

// driverName names the drivers; the one registered as sqlite3 is SQLite's
// C code through cgo (mattn.go), or with -tags ncruces its translation
// from WebAssembly (ncruces.go).
var driverName = map[string]string{"sqlite": "modernc.org/sqlite", "sqlite3": sqlite3Name}

func main() {
	src := flag.String("db", "", "a crawl's SQLite database to replay (default: crawl the uniform web first)")
	hosts := flag.Int("hosts", 100, "hosts of the uniform web, when crawling it")
	pages := flag.Int("pages", 200, "pages of each host of the uniform web, when crawling it")
	rounds := flag.Int("rounds", 3, "replays of each driver, alternating")
	batch := flag.Int("batch", 320, "pages a transaction")
	merge := flag.Int("merge", 1<<17, "staged links that make a merge into inlinks")
	flag.Parse()
	log.SetFlags(0)
	if err := run(context.Background(), *src, *hosts, *pages, *rounds, *batch, *merge); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, src string, hosts, pages, rounds, batch, merge int) error {
	dir, err := os.MkdirTemp("", "sqlitedrivers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The store gives SQLite its page cache in one buffer when it is the
	// first to open a database in the process (a crawl's writer): modernc's
	// connections here get it too, as the store's do.
	st, err := store.Open(ctx, filepath.Join(dir, "first.db"), store.Options{})
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	if src == "" {
		src = filepath.Join(dir, "crawl.db")
		if err := crawlUniform(ctx, dir, src, hosts, pages); err != nil {
			return err
		}
	}
	data, err := load(ctx, src)
	if err != nil {
		return fmt.Errorf("read %s: %w", src, err)
	}
	fmt.Printf("replaying %d pages, %d links, %d URLs from %s\n", len(data.pages), data.links, len(data.urls), src)
	fmt.Printf("CPU a page: the writes (merges included), the merges into inlinks, the reads of the pages' texts\n")
	fmt.Printf("%-30s %5s %14s %14s %14s %10s\n", "driver", "round", "write µs/page", "merge µs/page", "read µs/page", "write s")
	for r := range rounds {
		order := slices.Clone(drivers)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, drv := range order {
			res, err := replay(ctx, drv, filepath.Join(dir, fmt.Sprintf("%s-%d.db", drv, r)), data, batch, merge)
			if err != nil {
				return fmt.Errorf("%s: %w", drv, err)
			}
			n := float64(len(data.pages))
			fmt.Printf("%-30s %5d %14.1f %14.1f %14.1f %10.2f\n", driverName[drv], r+1,
				float64(res.write.Microseconds())/n, float64(res.merge.Microseconds())/n, float64(res.read.Microseconds())/n, res.writeWall.Seconds())
		}
	}
	return nil
}

// crawlUniform crawls the uniform web into db with the acrawler program,
// built from this repository.
func crawlUniform(ctx context.Context, dir, db string, hosts, pages int) error {
	web := testweb.NewUniform(testweb.UniformConfig{Seed: 1, Hosts: hosts, Pages: pages})
	srv := httptest.NewServer(web)
	defer srv.Close()
	// The program is built in its own module, the repository's.
	root, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/acrawler/acrawler").Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	bin := filepath.Join(dir, "acrawler")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/acrawler")
	build.Dir = strings.TrimSpace(string(root))
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	args := []string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--max-crawl-delay", "1ms",
		"--max-depth", "0", "--progress", "off", "--log-level", "error", "--workers", "64", "--no-sitemaps",
		"--warc", "off", "--no-rank"}
	cmd := exec.CommandContext(ctx, bin, append(args, web.Seeds()...)...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	fmt.Printf("crawled the uniform web (%d × %d pages) in %v\n", hosts, pages, time.Since(start).Round(time.Millisecond))
	return nil
}

// source is what the replay writes: the tables' definitions and the rows
// of urls, pages (in the order they were fetched) and outlinks.
type source struct {
	ddl      []string
	urlCols  int
	pageCols int
	urls     [][]any
	pages    [][]any
	links    int
	out      map[int64][]byte // outlinks by source
	pageID   []int64
	targets  map[int64][]int64 // each page's distinct followed targets
}

func load(ctx context.Context, file string) (*source, error) {
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	s := &source{out: map[int64][]byte{}, targets: map[int64][]int64{}}
	for _, t := range tables {
		rows, err := db.QueryContext(ctx, `SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type DESC`, t)
		if err != nil {
			return nil, err
		}
		n := len(s.ddl)
		for rows.Next() {
			var q string
			if err := rows.Scan(&q); err != nil {
				return nil, err
			}
			s.ddl = append(s.ddl, q)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if len(s.ddl) == n {
			return nil, fmt.Errorf("no table %s: not an acrawler database", t)
		}
	}
	// The URLs as a claim leaves them: in flight, not fetched, no links
	// counted.
	if s.urls, s.urlCols, err = all(ctx, db, `SELECT * FROM urls ORDER BY rowid`); err != nil {
		return nil, err
	}
	cols, err := columns(ctx, db, "urls")
	if err != nil {
		return nil, err
	}
	for _, u := range s.urls {
		for i, c := range cols {
			switch c {
			case "state":
				u[i] = int64(1)
			case "fetched_at", "inlinks", "attempts":
				u[i] = int64(0)
			}
		}
	}
	if s.pages, s.pageCols, err = all(ctx, db, `SELECT * FROM pages ORDER BY fetched_at, url_id`); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT source_id, links FROM outlinks`)
	if err != nil {
		return nil, err
	}
	var scratch []int64
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		s.out[id] = b
		var ts []int64
		scratch, err = outlinks.Walk(b, scratch, func(target int64, _ []byte, nofollow bool) {
			s.links++
			if !nofollow {
				ts = append(ts, target)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("outlinks of %d: %w", id, err)
		}
		slices.Sort(ts)
		s.targets[id] = slices.Compact(ts)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for _, p := range s.pages {
		s.pageID = append(s.pageID, p[0].(int64))
	}
	if len(s.pages) == 0 {
		return nil, errors.New("no pages")
	}
	return s, nil
}

// columns returns the names of table's columns, in order.
func columns(ctx context.Context, db *sql.DB, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` LIMIT 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

// all reads every row of q, and its number of columns.
func all(ctx context.Context, db *sql.DB, q string) ([][]any, int, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, 0, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, 0, err
		}
		out = append(out, vals)
	}
	return out, len(cols), rows.Err()
}

type result struct {
	write, merge, read time.Duration // CPU
	writeWall          time.Duration
}

// cpu is the process's CPU time so far (user and system).
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func replay(ctx context.Context, drv, file string, s *source, batch, mergeEvery int) (result, error) {
	var res result
	db, err := sql.Open(drv, "file:"+file)
	if err != nil {
		return res, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = 0",
		fmt.Sprintf("PRAGMA cache_size = -%d", 24<<10), "PRAGMA wal_autocheckpoint = 64000"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return res, fmt.Errorf("%s: %w", q, err)
		}
	}
	for _, q := range s.ddl {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return res, fmt.Errorf("%s: %w", q, err)
		}
	}
	// The URLs are rows before their pages are fetched.
	if err := inTx(ctx, db, func(tx *sql.Tx) error {
		ins, err := tx.PrepareContext(ctx, `INSERT INTO urls VALUES (`+marks(s.urlCols)+`)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, u := range s.urls {
			if _, err := ins.ExecContext(ctx, u...); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return res, err
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return res, err
	}
	var staged []int64
	stagedLinks := 0
	c0, w0 := cpu(), time.Now()
	for at := 0; at < len(s.pages); at += batch {
		part := s.pages[at:min(at+batch, len(s.pages))]
		var mergeCPU time.Duration
		if err := inTx(ctx, db, func(tx *sql.Tx) error {
			if err := writeBatch(ctx, tx, s, part); err != nil {
				return err
			}
			for _, p := range part {
				staged = append(staged, p[0].(int64))
				stagedLinks += len(s.targets[p[0].(int64)])
			}
			if stagedLinks >= mergeEvery {
				m := cpu()
				if err := mergeStaged(ctx, tx, s, staged); err != nil {
					return err
				}
				mergeCPU = cpu() - m
				staged, stagedLinks = staged[:0], 0
			}
			return nil
		}); err != nil {
			return res, err
		}
		res.merge += mergeCPU
	}
	if err := inTx(ctx, db, func(tx *sql.Tx) error { return mergeStaged(ctx, tx, s, staged) }); err != nil {
		return res, err
	}
	res.write, res.writeWall = cpu()-c0, time.Since(w0)
	// The end-of-crawl pass reads each waiting page's texts back.
	c0 = cpu()
	if err := inTx(ctx, db, func(tx *sql.Tx) error {
		read, err := tx.PrepareContext(ctx, `SELECT title, text, main_text FROM pages WHERE url_id = ?`)
		if err != nil {
			return err
		}
		defer read.Close()
		for _, id := range s.pageID {
			var title, text, main []byte
			if err := read.QueryRowContext(ctx, id).Scan(&title, &text, &main); err != nil {
				return fmt.Errorf("read %d: %w", id, err)
			}
		}
		return nil
	}); err != nil {
		return res, err
	}
	res.read = cpu() - c0
	return res, nil
}

// writeBatch writes a batch of pages as a commit does.
func writeBatch(ctx context.Context, tx *sql.Tx, s *source, part [][]any) error {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO pages VALUES (`+marks(s.pageCols)+`)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	out, err := tx.PrepareContext(ctx, `INSERT INTO outlinks (source_id, links) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer out.Close()
	stage, err := tx.PrepareContext(ctx, `INSERT INTO inlinks_staged (source_id) VALUES (?)`)
	if err != nil {
		return err
	}
	defer stage.Close()
	done, err := tx.PrepareContext(ctx, `UPDATE urls SET state = 2, fetched_at = ?, attempts = attempts + 1 WHERE id = ?`)
	if err != nil {
		return err
	}
	defer done.Close()
	counts := map[int64]int64{}
	for _, p := range part {
		id := p[0].(int64)
		if _, err := ins.ExecContext(ctx, p...); err != nil {
			return fmt.Errorf("page %d: %w", id, err)
		}
		if b, ok := s.out[id]; ok {
			if _, err := out.ExecContext(ctx, id, b); err != nil {
				return err
			}
			if _, err := stage.ExecContext(ctx, id); err != nil {
				return err
			}
		}
		if _, err := done.ExecContext(ctx, time.Now().UnixMilli(), id); err != nil {
			return err
		}
		for _, t := range s.targets[id] {
			counts[t]++
		}
	}
	// The targets of each count together, in ID order, 256 a statement.
	byCount := map[int64][]int64{}
	for t, n := range counts {
		byCount[n] = append(byCount[n], t)
	}
	for n, ids := range byCount {
		slices.Sort(ids)
		for len(ids) > 0 {
			k := min(len(ids), 256)
			args := []any{n}
			for _, id := range ids[:k] {
				args = append(args, id)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE urls SET inlinks = inlinks + ?1, priority = priority + CASE WHEN state = 0 THEN 1 ELSE 0 END
				WHERE id IN (`+marks(k)+`)`, args...); err != nil {
				return err
			}
			ids = ids[k:]
		}
	}
	return nil
}

// mergeStaged moves the staged sources' links into inlinks, sorted by
// target, 256 rows a statement, and empties the stage.
func mergeStaged(ctx context.Context, tx *sql.Tx, s *source, staged []int64) error {
	type pair struct {
		target, source int64
		anchor         string
	}
	var pairs []pair
	var scratch []int64
	for _, src := range staged {
		var err error
		seen := map[int64]bool{}
		scratch, err = outlinks.Walk(s.out[src], scratch, func(target int64, anchor []byte, _ bool) {
			if !seen[target] {
				seen[target] = true
				pairs = append(pairs, pair{target, src, string(anchor)})
			}
		})
		if err != nil {
			return err
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int { return cmp.Or(cmp.Compare(a.target, b.target), cmp.Compare(a.source, b.source)) })
	for len(pairs) > 0 {
		k := min(len(pairs), 256)
		args := make([]any, 0, 3*k)
		for _, p := range pairs[:k] {
			args = append(args, p.target, p.source, p.anchor)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO inlinks (target_id, source_id, anchor) VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", k), ", "), args...); err != nil {
			return err
		}
		pairs = pairs[k:]
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM inlinks_staged`)
	return err
}

func inTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }
