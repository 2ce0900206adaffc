package sqlite

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
	"github.com/acrawler/acrawler/internal/urlrun"
)

// benchSizes reads a list of sizes from the environment variable name
// ("20000,1000000"), or returns def.
func benchSizes(b *testing.B, name string, def ...int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("%s: %q is not a list of sizes", name, v)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkClaimHosts measures choosing hosts among many, in the steady
// state of a crawl: every host has a URL queued; an op is one ClaimHosts
// of 64 hosts at a clock advancing 100 ms an op, and their release with a
// next fetch time half a cycle on, where a cycle is hosts/640 s, so that
// as many hosts come due in an op as are claimed. The next fetch times
// start spread over a cycle around now (half the hosts due), the best
// priorities over 0–9. Sizes (hosts) come from ACRAWLER_BENCH_HOSTS, 20,000
// by default:
//
//	ACRAWLER_BENCH_HOSTS=20000,1000000 go test -run '^$' -bench BenchmarkClaimHosts -benchtime 2000x ./internal/store/sqlite
//
// The hosts and URLs are written straight with SQL.
func BenchmarkClaimHosts(b *testing.B) {
	for _, hosts := range benchSizes(b, "ACRAWLER_BENCH_HOSTS", 20_000) {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "claim.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			now := time.Unix(1_800_000_000, 0)
			spread := int64(hosts) * 1000 / 640 // ms
			for _, q := range []string{
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
				 INSERT INTO hosts (id, key, queued, admitted, top_priority, next_fetch_at)
				 SELECT i, 'http://h' || i || '.test', 1, 1, i * 7919 % 10, ?2 - ?3 / 2 + (i * 104729 % ?3) FROM n`,
				// As ReleaseHosts and claims leave them.
				`UPDATE hosts SET due = next_fetch_at <= ?2`,
				`INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
				 SELECT id << 32, '/', id, 0, top_priority, 0, 1, 0 FROM hosts`,
				`UPDATE counters SET value = ?1 WHERE name = 'queued'`,
			} {
				if _, err := db.w.ExecContext(ctx, q, hosts, now.UnixMilli(), spread); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := db.w.ExecContext(ctx, `ANALYZE`); err != nil {
				b.Fatal(err)
			}
			rel := func(hs []crawl.Host) []crawl.HostRelease {
				out := make([]crawl.HostRelease, len(hs))
				for j, h := range hs {
					out[j] = crawl.HostRelease{ID: h.ID, HostUpdate: crawl.HostUpdate{NextFetchAt: now.Add(time.Duration(spread/2) * time.Millisecond), Delay: time.Second}}
				}
				return out
			}
			// The first claim sets the due flags of hosts written
			// straight with SQL (as the first claim after the migration
			// that adds them does): not part of the measure.
			start := time.Now()
			hs, err := db.ClaimHosts(ctx, "bench", 64, time.Minute, now)
			if err != nil || len(hs) != 64 {
				b.Fatalf("first claim: %d hosts, %v", len(hs), err)
			}
			if err := db.ReleaseHosts(ctx, "bench", rel(hs)); err != nil {
				b.Fatal(err)
			}
			b.Logf("first claim and release: %s", time.Since(start).Round(time.Millisecond))
			var inClaim time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				hs, err = db.ClaimHosts(ctx, "bench", 64, time.Minute, now)
				inClaim += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if len(hs) != 64 {
					b.Fatalf("claimed %d hosts, want 64", len(hs))
				}
				if err := db.ReleaseHosts(ctx, "bench", rel(hs)); err != nil {
					b.Fatal(err)
				}
				now = now.Add(100 * time.Millisecond)
			}
			b.StopTimer()
			b.ReportMetric(float64(inClaim.Microseconds())/float64(b.N), "µs/claim")
		})
	}
}

// BenchmarkAddURLs measures admitting new URLs into a growing frontier:
// URLs of 60–120 bytes over 20,000 hosts (ACRAWLER_BENCH_ADD_HOSTS sets
// another number; Zipf-spread: a few hosts have most URLs, as on the web), offered in batches of 10,000 (one AddURLs
// each), none known, up to each size of ACRAWLER_BENCH_URLS (100,000 by
// default). It reports, over the last million URLs added (the last half
// below two million), the adds per second and the bytes the process read
// and wrote per URL (the kernel's read_bytes and write_bytes, and the
// read and write calls' rchar and wchar, from /proc/self/io); then the
// database's bytes per URL (file and write-ahead log; and by table and
// index, packed URLs' runs and free pages included: reportFrontierBytes)
// and the process's peak RSS. all-adds/s and all-written-B/URL are over the whole run: a
// staged run merges in large steps (the last of 10M URLs merges the
// 3.6M staged after 6.4M), which the last million does not take whole.
//
//	ACRAWLER_BENCH_URLS=1000000 go test -run '^$' -bench BenchmarkAddURLs -benchtime 1x -timeout 60m ./internal/store/sqlite
//
// The long run, 100M URLs over a million hosts, staged:
//
//	ACRAWLER_BENCH_URLS=100000000 ACRAWLER_BENCH_ADD_HOSTS=1000000 ACRAWLER_BENCH_PATH=stage \
//	    go test -run '^$' -bench BenchmarkAddURLs -benchtime 1x -timeout 600m ./internal/store/sqlite
//
// Each size runs twice: path=add offers each batch with AddURLs,
// path=stage with StageURLs (merged when the stage is large, and by a
// MergeStaged at the end, within the measure). ACRAWLER_BENCH_PATH picks
// one ("add" or "stage").
func BenchmarkAddURLs(b *testing.B) {
	paths := []string{"add", "stage"}
	if p := os.Getenv("ACRAWLER_BENCH_PATH"); p != "" {
		paths = []string{p}
	}
	hosts := benchSizes(b, "ACRAWLER_BENCH_ADD_HOSTS", 20_000)[0]
	for _, n := range benchSizes(b, "ACRAWLER_BENCH_URLS", 100_000) {
		for _, path := range paths {
			b.Run(fmt.Sprintf("urls=%d/hosts=%d/path=%s", n, hosts, path), func(b *testing.B) {
				for range b.N {
					benchAdd(b, n, hosts, path == "stage")
				}
			})
		}
	}
}

func benchAdd(b *testing.B, n, hosts int, stage bool) {
	ctx := context.Background()
	file := filepath.Join(b.TempDir(), "add.db")
	db, err := Open(ctx, file, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const batch = 10_000
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(hosts-1))
	pad := strings.Repeat("abcdefghij", 7)
	last := min(1_000_000, n/2)
	var io0 procIO
	var start time.Time
	var cpu0 time.Duration
	ioAll, startAll := readProcIO(b), time.Now()
	urls := make([]crawl.NewURL, 0, batch)
	added := 0
	for i := 0; i < n; {
		if i == n-last || (i == 0 && last == n) {
			io0, start, cpu0 = readProcIO(b), time.Now(), cpuTime()
		}
		urls = urls[:0]
		for ; len(urls) < batch && i < n; i++ {
			h := zipf.Uint64()
			host := fmt.Sprintf("http://www.inst%05d.edu", h)
			u := fmt.Sprintf("%s/d%d/%s/%d.html", host, i%13, pad[:rng.IntN(len(pad)-30)], i)
			urls = append(urls, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(host), Host: host,
				Depth: 1, Priority: i % 7, Via: crawl.ViaLink})
		}
		if stage {
			st, err := db.StageURLs(ctx, urls, crawl.Limits{})
			if err != nil {
				b.Fatalf("StageURLs = %+v, %v", st, err)
			}
			added += st.Added
			continue
		}
		st, err := db.AddURLs(ctx, urls, crawl.Limits{})
		if err != nil || st.Added != len(urls) {
			b.Fatalf("AddURLs = %+v, %v", st, err)
		}
		added += st.Added
	}
	if stage {
		m, err := db.MergeStaged(ctx)
		if err != nil {
			b.Fatal(err)
		}
		added += m
	}
	if added != n {
		b.Fatalf("%d URLs added, want %d", added, n)
	}
	took, cpu := time.Since(start), cpuTime()-cpu0
	io1 := readProcIO(b)
	disk := diskSize(file)
	per := func(v int64) float64 { return float64(v) / float64(last) }
	b.ReportMetric(float64(last)/took.Seconds(), "adds/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(last), "CPU-µs/URL")
	b.ReportMetric(per(io1.writeBytes-io0.writeBytes), "written-B/URL")
	b.ReportMetric(per(io1.readBytes-io0.readBytes), "read-B/URL")
	b.ReportMetric(per(io1.wchar-io0.wchar), "wchar-B/URL")
	b.ReportMetric(per(io1.rchar-io0.rchar), "rchar-B/URL")
	b.ReportMetric(float64(n)/time.Since(startAll).Seconds(), "all-adds/s")
	b.ReportMetric(float64(io1.writeBytes-ioAll.writeBytes)/float64(n), "all-written-B/URL")
	b.ReportMetric(float64(io1.cancelledBytes-ioAll.cancelledBytes)/float64(n), "all-cancelled-B/URL")
	b.ReportMetric(float64(disk)/float64(n), "disk-B/URL")
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MB")
	reportFrontierBytes(b, db, n)
	b.ReportMetric(float64(settledDisk(b, db, file))/float64(n), "settled-disk-B/URL")
}

// reportFrontierBytes reports the pages the frontier's tables and
// indexes fill (SQLite's dbstat: its rows and its packed URLs' runs and
// seen entries), per URL, what the table's rows hold of them, and the
// free pages.
func reportFrontierBytes(b *testing.B, db *DB, n int) {
	rows, err := db.r.Query(`SELECT name, sum(pgsize), sum(payload) FROM dbstat
		WHERE name IN (` + frontierTables + `, 'offers') GROUP BY name`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var all int64
	for rows.Next() {
		var name string
		var size, payload int64
		if err := rows.Scan(&name, &size, &payload); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(size)/float64(n), name+"-B/URL")
		if name == "urls" {
			b.ReportMetric(float64(payload)/float64(n), "urls-payload-B/URL")
		}
		if name != "offers" {
			all += size
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(all)/float64(n), "frontier-B/URL")
	var free int64
	if err := db.r.QueryRow(`SELECT freelist_count * page_size FROM pragma_freelist_count, pragma_page_size`).Scan(&free); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(free)/float64(n), "free-B/URL")
}

// cpuTime is the CPU time the process used so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procIO is the process's I/O counters from /proc/self/io.
type procIO struct{ rchar, wchar, readBytes, writeBytes, cancelledBytes int64 }

func readProcIO(b *testing.B) procIO {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skipf("no /proc/self/io: %v", err)
	}
	var p procIO
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "rchar":
			p.rchar = n
		case "wchar":
			p.wchar = n
		case "read_bytes":
			p.readBytes = n
		case "write_bytes":
			p.writeBytes = n
		case "cancelled_write_bytes":
			p.cancelledBytes = n
		}
	}
	return p
}

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkClaimLarge measures the claim cycle in a large frontier
// (storetest.RunClaimLarge), the URLs and hosts written straight with SQL:
//
//	ACRAWLER_BENCH_FRONTIER=10000000:1000000 go test -run '^$' -bench BenchmarkClaimLarge -benchtime 30000x -timeout 60m ./internal/store/sqlite
func BenchmarkClaimLarge(b *testing.B) {
	storetest.RunClaimLarge(b, func(b *testing.B, urls, hosts, owners int) storetest.LargeFrontier {
		db := claimLargeStore(b, owners)
		writeClaimLargeRows(b, db, urls, hosts)
		return claimLargeFrontier(b, db)
	})
}

// writeClaimLargeRows writes the frontier of BenchmarkClaimLarge into db:
// urls URLs over hosts hosts, as rows.
func writeClaimLargeRows(b *testing.B, db *DB, urls, hosts int) {
	urlLow := strconv.FormatInt(1<<(64-crawl.URLHostBits)-1, 10) // the bits of a URL ID that are the URL's
	for _, q := range []string{
		claimLargeHosts,
		// The URL IDs the packed benchmark's URLs have (crawl.RelURLID: the
		// host's ID in the high bits, the URL's hash below), so that
		// the pages a commit inserts fall where a crawl's do, not in
		// ID order.
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1),
		 m(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM m WHERE j < ?2)
		 INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
		 SELECT (i & ~` + urlLow + `) | (acrawler_url_id('http://h' || i || '.test/papers/' || j || '/a-page-of-research') & ` + urlLow + `),
		        '/papers/' || j || '/a-page-of-research', i, 1,
		        CASE WHEN j = 1 THEN 9 ELSE (i * 7919 + j * 31) % 9 END, 0, 0, 0
		 FROM n, m ORDER BY i, j`,
		// No ANALYZE: the store runs none, so a crawl's planner has no
		// statistics either.
		`UPDATE counters SET value = ?1 * ?2 WHERE name = 'queued'`,
	} {
		if _, err := db.w.ExecContext(context.Background(), q, hosts, urls/hosts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitWrites tells where the writes of page commits go in a
// large frontier: BenchmarkClaimLarge's rows (the first size of
// ACRAWLER_BENCH_FRONTIER, 1000000:100000 by default), then b.N of its
// claim rounds (64 hosts, 4 URLs a host, one Commit), the pages shaped by
// storetest.LinkedPage (ACRAWLER_BENCH_LINKS: 1, the default, links or
// found). The checkpointer is held off, so the write-ahead log keeps a
// frame for every page each commit wrote; it reports the frames a page
// crawled, in all and by table or index (dbstat names each frame's page),
// with the frames a page of it written (how many of the commits wrote
// it), and the bytes the write calls wrote a page crawled (wchar: more
// than the frames when a commit's pages outgrow the writer's cache and
// are written to the log more than once). A checkpoint would write each
// page once more.
//
//	ACRAWLER_BENCH_FRONTIER=3000000:300000 go test -run '^$' -bench BenchmarkCommitWrites -benchtime 40x ./internal/store/sqlite
func BenchmarkCommitWrites(b *testing.B) {
	defer func(n int64) { checkpointFrames = n }(checkpointFrames)
	checkpointFrames = 1 << 40 // and wal_autocheckpoint twice that
	ctx := context.Background()
	sizes := storetest.LargeFrontierSizes(b)
	urls, hosts := sizes[0][0], sizes[0][1]
	parts := cmp.Or(os.Getenv("ACRAWLER_BENCH_LINKS"), "1")
	file := filepath.Join(b.TempDir(), "writes.db")
	db, err := Open(ctx, file, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	writeClaimLargeRows(b, db, urls, hosts)
	if _, err := db.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	page := storetest.LinkedPage(hosts, urls/hosts, claimLargeFrontier(b, db).URLID, parts)
	now := time.Unix(1_800_000_000, 0)
	crawled, added := 0, 0
	io0 := readProcIO(b)
	b.ResetTimer()
	for range b.N {
		now = now.Add(100 * time.Millisecond)
		hs, err := db.ClaimHosts(ctx, "bench", 64, time.Minute, now)
		if err != nil {
			b.Fatal(err)
		}
		n, a, err := storetest.ClaimRound(ctx, db, "bench", hs, 4, crawl.Limits{}, now, now.Add(time.Minute), page, nil)
		if err != nil {
			b.Fatal(err)
		}
		crawled, added = crawled+n, added+a
	}
	b.StopTimer()
	io1 := readProcIO(b)
	if crawled == 0 {
		b.Fatal("no page crawled")
	}
	wal, err := os.ReadFile(file + "-wal")
	if err != nil {
		b.Fatal(err)
	}
	const walHeader, frameHeader = 32, 24
	size := int(binary.BigEndian.Uint32(wal[8:]))
	frames := map[uint32]int{} // by page number
	total := 0
	for off := walHeader; off+frameHeader+size <= len(wal); off += frameHeader + size {
		frames[binary.BigEndian.Uint32(wal[off:])]++
		total++
	}
	names := map[uint32]string{}
	rows, err := db.w.QueryContext(ctx, `SELECT name, pageno FROM dbstat`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var name string
		var pgno uint32
		if err := rows.Scan(&name, &pgno); err != nil {
			b.Fatal(err)
		}
		names[pgno] = name
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	type tally struct{ frames, pages int }
	by := map[string]*tally{}
	for pgno, n := range frames {
		name := cmp.Or(names[pgno], "(free pages)")
		if by[name] == nil {
			by[name] = &tally{}
		}
		by[name].frames += n
		by[name].pages++
	}
	per := func(n int64) float64 { return float64(n) / float64(crawled) }
	b.ReportMetric(per(int64(total)), "frames/page")
	b.ReportMetric(float64(added)/float64(crawled), "added/page")
	b.ReportMetric(per(io1.wchar-io0.wchar), "wchar-B/page")
	for name, t := range by {
		if per(int64(t.frames)) >= 0.05 {
			b.ReportMetric(per(int64(t.frames)), name+"-frames/page")
			b.ReportMetric(float64(t.frames)/float64(t.pages), name+"-frames/page-written")
		}
	}
}

// claimLargeFrontier is what a claim benchmark measures of db: its URL
// IDs (crawl.RelURLID, the host keys "http://hI.test"), the bytes the process
// writes.
func claimLargeFrontier(b *testing.B, db *DB) storetest.LargeFrontier {
	return storetest.LargeFrontier{
		Stores: []crawl.Store{db},
		URLID: func(u string, host crawl.ID) crawl.ID {
			key := crawl.HostKey(u)
			return crawl.RelURLID(u[len(key):], key, host)
		},
		Written:  func() int64 { return readProcIO(b).writeBytes },
		Frontier: func() int64 { return frontierBytes(b, db) },
	}
}

// frontierBytes is the bytes of the pages the frontier's tables and
// indexes fill (dbstat), the stage of offers and inbound links not merged
// yet left out.
func frontierBytes(b *testing.B, db *DB) int64 {
	var n int64
	if err := db.r.QueryRow(`SELECT sum(pgsize) FROM dbstat WHERE name IN (` + frontierTables + `)`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// frontierTables are the frontier's tables and indexes: its rows, and its
// packed URLs' runs and seen entries.
const frontierTables = `'urls', 'urls_id', 'urls_queue', 'urls_inflight', 'urls_host_fetched', 'queue_runs', 'queue_runs_host', 'seen'`

// claimLargeStore opens the empty store of a claim benchmark, for one
// owner (one process writes a SQLite store).
func claimLargeStore(b *testing.B, owners int) *DB {
	if owners != 1 {
		b.Skip("one process writes a SQLite store")
	}
	db, err := Open(context.Background(), filepath.Join(b.TempDir(), "claim.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// claimLargeHosts writes the hosts of a large frontier (?1 of them, ?2
// URLs each, every host due), for BenchmarkClaimLarge and
// BenchmarkClaimLargePacked.
const claimLargeHosts = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
	INSERT INTO hosts (id, key, queued, admitted, top_priority, next_fetch_at, due)
	SELECT i, 'http://h' || i || '.test', ?2, ?2, 9, 0, 1 FROM n`

// BenchmarkClaimLargePacked is BenchmarkClaimLarge with the URLs packed
// into runs, as a large merge of staged offers writes them (runs.go): the
// same hosts, paths and priorities, each host's URLs best first in runs
// of runSize.
//
//	ACRAWLER_BENCH_FRONTIER=10000000:1000000 go test -run '^$' -bench BenchmarkClaimLargePacked -benchtime 30000x -timeout 60m ./internal/store/sqlite
func BenchmarkClaimLargePacked(b *testing.B) {
	storetest.RunClaimLarge(b, func(b *testing.B, urls, hosts, owners int) storetest.LargeFrontier {
		ctx := context.Background()
		db := claimLargeStore(b, owners)
		per := urls / hosts
		if _, err := db.w.ExecContext(ctx, claimLargeHosts, hosts, per); err != nil {
			b.Fatal(err)
		}
		err := db.tx(ctx, func(t *txn) error {
			p := packer{t: t}
			for i := 1; i <= hosts; i++ {
				p.key = fmt.Sprintf("http://h%d.test", i)
				p.hosts = append(p.hosts[:0], hostAdded{id: crawl.ID(i)})
				entries := make([]urlrun.Entry, per)
				for j := range entries {
					prio := (i*7919 + (j+1)*31) % 9
					if j == 0 {
						prio = 9
					}
					entries[j] = urlrun.Entry{Path: fmt.Sprintf("/papers/%d/a-page-of-research", j+1), Priority: int64(prio), Depth: 1}
				}
				slices.SortStableFunc(entries, func(a, b urlrun.Entry) int { return cmp.Compare(b.Priority, a.Priority) })
				for _, e := range entries {
					p.add(e, crawl.RelURLID(e.Path, p.key, crawl.ID(i)))
				}
				if err := p.endHost(ctx); err != nil {
					return err
				}
			}
			if err := p.flush(ctx, 0); err != nil {
				return err
			}
			t.add("queued", p.packed)
			t.add("packed", p.packed)
			t.db.hasRuns = true
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return claimLargeFrontier(b, db)
	})
}

// settledDisk is the database's size on disk, file and WAL, once the WAL
// that the last transactions grew is copied back (a checkpoint, as the
// store's checkpointer makes) and the next write transaction starts it
// over, cutting it to walSizeLimit: what a crawl keeps on disk after a
// large merge.
func settledDisk(b *testing.B, db *DB, file string) int64 {
	ctx := context.Background()
	// The store's checkpointer may be copying the log back already (a
	// checkpoint of a 4 GB log takes minutes): until it is all copied,
	// a checkpoint here is busy or copies what is left.
	for deadline := time.Now().Add(time.Hour); ; {
		var busy, log, done int
		if err := db.w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &done); err != nil {
			b.Fatal(err)
		}
		if log == done {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the log is not copied back after an hour: %d of %d frames", done, log)
		}
		time.Sleep(time.Second)
	}
	// The transaction must change a page: SQLite writes no frame for
	// a row rewritten unchanged, and a transaction that writes none
	// leaves the log as it is.
	if err := db.tx(ctx, func(t *txn) error {
		for _, step := range []string{"+ 1", "- 1"} {
			if _, err := t.exec(ctx, `UPDATE counters SET value = value `+step+` WHERE name = 'queued'`); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return diskSize(file)
}

// diskSize is the bytes a database takes on disk, file and WAL.
func diskSize(file string) int64 {
	var disk int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(file + suffix); err == nil {
			disk += fi.Size()
		}
	}
	return disk
}
