package postgres_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// dumpHosts is what a frontier's hosts and counters hold, whatever keeps
// its URLs.
func dumpHosts(t *testing.T, db *postgres.DB, dsn, schema string) string {
	t.Helper()
	var hosts string
	if err := queryRow(t, dsn, schema, `SELECT coalesce(string_agg(concat_ws(' ', id, key, admitted, queued, top_priority), E'\n'
		ORDER BY id), '') FROM hosts`, nil, &hosts); err != nil {
		t.Fatal(err)
	}
	c, err := db.Counters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\nqueued %d in flight %d hosts %d\n", hosts, c.Queued, c.InFlight, c.Hosts)
}

// packedCounts are the runs of a store and the URLs packed in them (seen
// entries without a row).
func packedCounts(t *testing.T, dsn, schema string) (runs, packed int64) {
	t.Helper()
	if err := queryRow(t, dsn, schema, `SELECT (SELECT count(*) FROM queue_runs),
		(SELECT count(*) FROM seen, unnest(ids) AS x(id) WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = x.id))`,
		nil, &runs, &packed); err != nil {
		t.Fatal(err)
	}
	checkSeen(t, dsn, schema)
	return runs, packed
}

// packedAmong is how many of ids are packed URLs.
func packedAmong(t *testing.T, dsn, schema string, ids []crawl.ID) (n int64) {
	t.Helper()
	raw := make([]int64, len(ids))
	for i, id := range ids {
		raw[i] = int64(id)
	}
	if err := queryRow(t, dsn, schema, `SELECT count(*) FROM unnest($1::bigint[]) AS x(id)
		WHERE EXISTS (SELECT 1 FROM seen s WHERE x.id = ANY(s.ids)) AND NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = x.id)`,
		[]any{raw}, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkSeen fails t unless each row of seen holds its IDs sorted (64 at
// most), the
// first its lo, all of one host-bit group, with a run each, below the
// next row's lo; and returns how many IDs seen holds.
func checkSeen(t *testing.T, dsn, schema string) int64 {
	t.Helper()
	conn := schemaConn(t, dsn, schema)
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT lo, ids, runs FROM seen ORDER BY lo`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int64
	last := int64(math.MinInt64)
	for first := true; rows.Next(); first = false {
		var lo int64
		var ids, runs []int64
		if err := rows.Scan(&lo, &ids, &runs); err != nil {
			t.Fatal(err)
		}
		if len(ids) == 0 || len(ids) > 64 || len(ids) != len(runs) || ids[0] != lo || !first && lo <= last || !slices.IsSorted(ids) ||
			len(slices.Compact(slices.Clone(ids))) != len(ids) || crawl.HostBits(crawl.ID(ids[0])) != crawl.HostBits(crawl.ID(ids[len(ids)-1])) {
			t.Fatalf("a row of seen at %d holds %v with runs %v (the row before ended at %d)", lo, ids, runs, last)
		}
		last = ids[len(ids)-1]
		n += int64(len(ids))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSeenMerges: IDs merged into seen batch by batch, most of them in
// a few host-bit groups (so that rows fill, split and take IDs below
// them), are each found with its run after every merge, IDs not merged
// are not, and the rows keep their order (checkSeen).
func TestSeenMerges(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	ctx := context.Background()
	conn := schemaConn(t, dsn, schema)
	defer conn.Close(ctx)
	rng := rand.New(rand.NewPCG(7, 8))
	random := func() int64 {
		id := rng.Int64()
		if rng.IntN(10) != 0 {
			// One of three groups.
			id = int64(uint64(rng.IntN(3))<<(64-crawl.URLHostBits)) | id&(1<<(64-crawl.URLHostBits)-1)
		}
		return id
	}
	found := `SELECT count(*) FROM unnest($1::bigint[], $2::bigint[]) AS x(id, run) WHERE ` + postgres.SeenRunSQL("x.id") + ` = x.run`
	var all, allRuns []int64
	have := map[int64]bool{}
	for batch := range 6 {
		var ids []int64
		for len(ids) < 50<<batch {
			if id := random(); !have[id] {
				have[id] = true
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		runs := make([]int64, len(ids))
		for i := range runs {
			runs[i] = int64(batch*100_000 + i + 1)
		}
		if err := db.MergeSeen(ctx, ids, runs); err != nil {
			t.Fatalf("merge %d: %v", batch, err)
		}
		all, allRuns = append(all, ids...), append(allRuns, runs...)
		if n := checkSeen(t, dsn, schema); n != int64(len(all)) {
			t.Fatalf("after merge %d seen holds %d IDs, want %d", batch, n, len(all))
		}
		var n int64
		if err := conn.QueryRow(ctx, found, all, allRuns).Scan(&n); err != nil || n != int64(len(all)) {
			t.Fatalf("after merge %d, %d of %d IDs found with their runs (%v)", batch, n, len(all), err)
		}
		var absent []int64
		for len(absent) < 500 {
			if id := random(); !have[id] {
				absent = append(absent, id)
			}
		}
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM unnest($1::bigint[]) AS x(id) WHERE `+postgres.SeenRunSQL("x.id")+` IS NOT NULL`,
			absent).Scan(&n); err != nil || n != 0 {
			t.Fatalf("after merge %d, %d IDs never merged found (%v)", batch, n, err)
		}
	}
	// The three groups' rows are at least a third full.
	var rows, ids int64
	if err := conn.QueryRow(ctx, `SELECT count(*), sum(cardinality(ids)) FROM seen WHERE lo >= 0 AND lo < $1`,
		int64(3)<<(64-crawl.URLHostBits)).Scan(&rows, &ids); err != nil || rows*20 > ids {
		t.Fatalf("%d IDs in %d rows (%v): want rows about full", ids, rows, err)
	}
}

// TestPackedLastRun: a merge adds a host's URLs to its last run when
// they fit there, best first among its URLs, and writes runs of their
// own when they do not.
func TestPackedLastRun(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema, postgres.PackMin(0))
	ctx := context.Background()
	stage := func(from, to, priority int) {
		t.Helper()
		var urls []crawl.NewURL
		for i := from; i < to; i++ {
			urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/p%d", i), 1, priority))
		}
		if _, err := db.StageURLs(ctx, urls, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.MergeStaged(ctx); err != nil {
			t.Fatal(err)
		}
	}
	runs := func() string {
		var s string
		if err := queryRow(t, dsn, schema, `SELECT coalesce(string_agg(top::text, ' ' ORDER BY id), '') FROM queue_runs`, nil, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	stage(0, 10, 1)
	stage(10, 20, 3) // into the run of ten, first
	if got := runs(); got != "3" {
		t.Fatalf("runs' tops after 10 and 10 URLs: %q, want one run, its best 3", got)
	}
	stage(20, 70, 2) // 70 do not fit in a run
	if got := runs(); got != "3 2" {
		t.Fatalf("runs' tops after 50 URLs more: %q, want a second run", got)
	}
	if _, packed := packedCounts(t, dsn, schema); packed != 70 {
		t.Fatalf("%d URLs packed, want 70", packed)
	}
	hs, err := db.ClaimHosts(ctx, "o", 1, time.Hour, time.Now())
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	cs, _, err := db.ClaimURLs(ctx, "o", hs[0].ID, 12, crawl.Limits{}, time.Now())
	if err != nil || len(cs) != 12 || cs[0].URL != "http://a.test/p10" || cs[10].Priority != 2 || cs[11].URL != "http://a.test/p21" {
		t.Fatalf("ClaimURLs = %+v, %v; want p10..p19 (priority 3), then p20, p21", cs, err)
	}
}

// TestPackedNewHostsCounted: a packing merge inserts the hosts it gives
// URLs with their counts, and corrects those it counted wrong: a host
// offered one URL twice (counted two, admitted one), a host whose cap
// refuses its best offer (counted a better priority than it admitted),
// and a host whose only offer is a URL ID stored under another host
// (admitted nothing).
func TestPackedNewHostsCounted(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema, postgres.PackMin(0))
	ctx := context.Background()
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/x", 1, 1)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	taken := storetest.U("http://b.test/y", 1, 1)
	taken.ID = storetest.U("http://a.test/x", 1, 1).ID
	offers := []crawl.NewURL{
		taken,
		storetest.U("http://c.test/1", 1, 1), storetest.U("http://c.test/1", 1, 1),
		storetest.U("http://d.test/1", 1, 1), storetest.U("http://d.test/2", 1, 1), storetest.U("http://d.test/3", 1, 5),
		storetest.U("http://e.test/1", 1, 2), storetest.U("http://e.test/2", 1, 4),
	}
	if _, err := db.StageURLs(ctx, offers, crawl.Limits{MaxPagesPerHost: 2}); err != nil {
		t.Fatal(err)
	}
	if added, err := db.MergeStaged(ctx); err != nil || added != 5 {
		t.Fatalf("MergeStaged = %d, %v; want 5 added", added, err)
	}
	if _, packed := packedCounts(t, dsn, schema); packed != 5 {
		t.Fatalf("%d URLs packed, want 5", packed)
	}
	var hosts string
	if err := queryRow(t, dsn, schema, `SELECT string_agg(concat_ws(' ', key, admitted, queued, top_priority), ', ' ORDER BY key)
		FROM hosts`, nil, &hosts); err != nil {
		t.Fatal(err)
	}
	want := "http://a.test 1 1 1, http://b.test 0 0 -1000000000, http://c.test 1 1 1, http://d.test 2 2 1, http://e.test 2 2 4"
	if hosts != want {
		t.Errorf("hosts (key, admitted, queued, best priority):\n%s\nwant\n%s", hosts, want)
	}
}

// TestConformancePacked runs the store suite's frontier checks (the
// only ones that stage offers, which a merge packs) with every merge of
// staged offers packing what it admits, and fails unless one of its
// stores packed a URL.
func TestConformancePacked(t *testing.T) {
	testDSN(t)
	t.Parallel()
	var packed atomic.Int64
	storetest.RunFrontier(t, func(t *testing.T) func() (crawl.Store, error) {
		dsn, schema := freshSchema(t)
		t.Cleanup(func() {
			packed.Add(checkSeen(t, dsn, schema))
		})
		return func() (crawl.Store, error) {
			return postgres.Open(context.Background(), dsn, postgres.Tuned(postgres.Options{Schema: schema}, postgres.PackMin(0)))
		}
	})
	if packed.Load() == 0 {
		t.Error("no store of the suite packed a URL: it ran on rows alone")
	}
}

// TestConformanceStagedFinds runs the store suite with every commit
// staging its discoveries and the inbound links of URLs that are not
// rows, and merging them before it returns (finds.go), as commits in a
// large frontier do once the stage is large; and its frontier checks
// with every merge packing too. No offer or finder count is left behind.
func TestConformanceStagedFinds(t *testing.T) {
	testDSN(t)
	t.Parallel()
	for _, pack := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", pack), func(t *testing.T) {
			t.Parallel()
			var packed atomic.Int64
			tunes := []postgres.Tune{postgres.StagedFinds(0, 1)}
			run := storetest.Run
			if pack {
				tunes, run = append(tunes, postgres.PackMin(0)), storetest.RunFrontier
			}
			run(t, func(t *testing.T) func() (crawl.Store, error) {
				dsn, schema := freshSchema(t)
				t.Cleanup(func() {
					packed.Add(checkSeen(t, dsn, schema))
					for _, q := range []string{`SELECT count(*) FROM offers`, `SELECT count(*) FROM host_finds`,
						`SELECT count(*) FROM inlinks_found`} {
						if n := queryInt(t, dsn, schema, q); n != 0 {
							t.Errorf("%s: %d at the end", q, n)
						}
					}
				})
				return func() (crawl.Store, error) {
					return postgres.Open(context.Background(), dsn, postgres.Tuned(postgres.Options{Schema: schema}, tunes...))
				}
			})
			if pack && packed.Load() == 0 {
				t.Error("no store of the suite packed a URL: it ran on rows alone")
			}
		})
	}
}

// TestPackedOffersClaimAsAdds: offers staged and merged into runs leave
// the frontier as the same offers added batch by batch, as the store
// answers for it. The hosts' counts and ranks are the same; each URL
// reads the same by ID; a committed page's links to packed URLs count
// and raise their priority as they do rows'; and the hosts' URLs are
// claimed in the same order, rows and runs together, until none is left
// and the runs are gone.
func TestPackedOffersClaimAsAdds(t *testing.T) {
	for _, apart := range []bool{false, true} {
		t.Run(fmt.Sprintf("apart=%v", apart), func(t *testing.T) {
			tunes := []postgres.Tune{postgres.StageThresholds(50, 1<<40)}
			if apart {
				tunes = append(tunes, postgres.MergeApart(1, 3))
			}
			dsnA, schemaA := freshSchema(t)
			dsnS, schemaS := freshSchema(t)
			added := open(t, dsnA, schemaA, tunes...)
			staged := open(t, dsnS, schemaS, append(tunes, postgres.PackMin(0))...)
			storetest.OfferAsAdds(t, added, staged)
			packedClaimAsAdds(t, added, staged, dsnA, schemaA, dsnS, schemaS)
		})
	}
}

func packedClaimAsAdds(t *testing.T, added, staged *postgres.DB, dsnA, schemaA, dsnS, schemaS string) {
	ctx := context.Background()
	runs, packed := packedCounts(t, dsnS, schemaS)
	if runs == 0 || packed < 100 {
		t.Fatalf("%d runs holding %d URLs: want the offers packed", runs, packed)
	}
	if a, s := dumpHosts(t, added, dsnA, schemaA), dumpHosts(t, staged, dsnS, schemaS); a != s {
		t.Fatalf("packed offers left the hosts\n%s\nadded batch by batch\n%s", s, a)
	}
	var all string
	if err := queryRow(t, dsnA, schemaA, `SELECT string_agg(id::text, ' ' ORDER BY id) FROM urls`, nil, &all); err != nil {
		t.Fatal(err)
	}
	var ids []crawl.ID
	for _, f := range strings.Fields(all) {
		var id int64
		fmt.Sscan(f, &id)
		ids = append(ids, crawl.ID(id))
	}
	storetest.SameURLs(t, "packed", added, staged, ids)

	// A page links to queued URLs, packed in one store: the commit
	// counts the links and raises their priority in both alike, the
	// packed URLs left packed until their counts are merged. Its host is
	// then over a byte share of 500.
	now := time.Now()
	page, targets := storetest.LinkToQueued(t, added, staged, ids, crawl.Limits{InlinkBonus: 3, MaxInlinkBonus: 9}, 1000)
	if n := packedAmong(t, dsnS, schemaS, targets); n < int64(len(targets))/2 {
		t.Fatalf("%d of the %d URLs a commit linked to left packed, want most (those of other hosts)", n, len(targets))
	}
	for _, db := range []*postgres.DB{added, staged} {
		if _, err := db.MergeInlinks(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	if n := packedAmong(t, dsnS, schemaS, targets); n != 0 {
		t.Fatalf("%d of the %d URLs a commit linked to still packed after the links were merged", n, len(targets))
	}
	storetest.SameURLs(t, "linked, merged", added, staged, targets)
	if a, s := dumpHosts(t, added, dsnA, schemaA), dumpHosts(t, staged, dsnS, schemaS); a != s {
		t.Fatalf("after the commit, the packed store's hosts\n%s\nwant\n%s", s, a)
	}

	// Every host's URLs, claimed a few at a time, many hosts a call,
	// the page's host over its byte share (its queued URLs skipped):
	// claims of rows and runs alike.
	claimAll := func(db *postgres.DB, after func()) []string {
		var out []string
		for round := range 100 {
			hs, err := db.ClaimHosts(ctx, "p", 1000, time.Hour, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) == 0 {
				return out
			}
			slices.SortFunc(hs, func(a, b crawl.Host) int { return strings.Compare(a.Key, b.Key) })
			var ids []crawl.ID
			for _, h := range hs {
				ids = append(ids, h.ID)
			}
			for {
				cls, err := db.ClaimURLsOf(ctx, "p", ids, 3+round%5, crawl.Limits{MaxHostBytes: 500}, now)
				if err != nil {
					t.Fatal(err)
				}
				if after != nil && slices.Contains(ids, page.HostID) {
					after()
					after = nil
				}
				n := 0
				for _, c := range cls {
					for _, u := range c.URLs {
						out = append(out, fmt.Sprintf("%+v", u))
						n++
					}
				}
				if n == 0 {
					break
				}
			}
			var rel []crawl.HostRelease
			for _, h := range hs {
				rel = append(rel, crawl.HostRelease{ID: h.ID})
			}
			if err := db.ReleaseHosts(ctx, "p", rel); err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("hosts still claimable after 100 rounds")
		return nil
	}
	pageRuns := func() (n int64) {
		if err := queryRow(t, dsnS, schemaS, `SELECT count(*) FROM queue_runs WHERE host_id = $1`, []any{int64(page.HostID)}, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if pageRuns() == 0 {
		t.Fatal("the page's host has no runs left to skip")
	}
	a := claimAll(added, nil)
	s := claimAll(staged, func() {
		// The first claim skipped every queued URL of the page's host,
		// packed ones too.
		if n := pageRuns(); n != 0 {
			t.Fatalf("%d runs of a host over its byte share left after a claim", n)
		}
	})
	if len(a) < 100 {
		t.Fatalf("claimed %d URLs: the test claims too few", len(a))
	}
	if !slices.Equal(a, s) {
		for i := range min(len(a), len(s)) {
			if a[i] != s[i] {
				t.Fatalf("claim %d of the packed store: %s\nwant %s", i, s[i], a[i])
			}
		}
		t.Fatalf("the packed store claimed %d URLs, want %d", len(s), len(a))
	}
	if runs, packed := packedCounts(t, dsnS, schemaS); runs != 0 || packed != 0 {
		t.Errorf("after every URL was claimed: %d runs holding %d URLs", runs, packed)
	}
	if a, s := dumpHosts(t, added, dsnA, schemaA), dumpHosts(t, staged, dsnS, schemaS); a != s {
		t.Errorf("after the claims, the packed store's hosts\n%s\nwant\n%s", s, a)
	}
}

// TestLinkedPackedURLsMerged: a commit whose page links to packed URLs
// stages the links and leaves the URLs packed; a merge of the staged
// links makes rows of those whose host it can lock and counts them, and
// leaves the others packed, their links staged, for a later merge. A
// read by ID gives the counts the commits made throughout.
func TestLinkedPackedURLsMerged(t *testing.T) {
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema, postgres.PackMin(0))
	ctx := context.Background()
	now := time.Now()
	var urls []crawl.NewURL
	for i := range 10 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/p%d", i), 1, 1), storetest.U(fmt.Sprintf("http://b.test/p%d", i), 1, 1))
	}
	urls = append(urls, storetest.U("http://c.test/", 0, 5))
	if _, err := db.StageURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MergeStaged(ctx); err != nil {
		t.Fatal(err)
	}
	if _, packed := packedCounts(t, dsn, schema); packed != 21 {
		t.Fatalf("%d URLs packed, want 21", packed)
	}
	hs, err := db.ClaimHosts(ctx, "o", 1, time.Hour, now)
	if err != nil || len(hs) != 1 || hs[0].Key != "http://c.test" {
		t.Fatalf("ClaimHosts = %+v, %v; want c.test", hs, err)
	}
	cs, _, err := db.ClaimURLs(ctx, "o", hs[0].ID, 1, crawl.Limits{}, now)
	if err != nil || len(cs) != 1 {
		t.Fatalf("ClaimURLs = %+v, %v", cs, err)
	}
	a, b := storetest.U("http://a.test/p3", 1, 1), storetest.U("http://b.test/p7", 1, 1)
	lim := crawl.Limits{InlinkBonus: 3, MaxInlinkBonus: 9}
	res := crawl.Result{URL: cs[0], Outcome: crawl.OutcomeDone,
		Links: []crawl.Link{{TargetID: a.ID, Target: a.URL}, {TargetID: b.ID, Target: b.URL}},
		Page:  &crawl.Page{URL: cs[0].URL, Status: 200, ContentType: "text/html", Text: "a page", FetchedAt: now}}
	if _, err := db.Commit(ctx, []crawl.Result{res}, lim); err != nil {
		t.Fatal(err)
	}
	linked := func(when string) {
		t.Helper()
		for _, id := range []crawl.ID{a.ID, b.ID} {
			u, err := db.URL(ctx, id)
			if err != nil || u.Inlinks != 1 || u.Priority != 4 || u.State != crawl.StateQueued {
				t.Fatalf("%s: URL %d = %+v, %v; want 1 inbound link, priority 4, queued", when, id, u, err)
			}
		}
	}
	staged := func() (n int64) {
		t.Helper()
		if err := queryRow(t, dsn, schema, `SELECT count(*) FROM inlinks_staged`, nil, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rowOf := func(id crawl.ID) (n int64) {
		t.Helper()
		if err := queryRow(t, dsn, schema, `SELECT count(*) FROM urls WHERE id = $1`, []any{int64(id)}, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, packed := packedCounts(t, dsn, schema); packed != 20 || staged() != 2 {
		t.Fatalf("after the commit: %d URLs packed, %d links staged; want 20 (c.test's claimed) and 2", packed, staged())
	}
	linked("staged")

	// b.test's row held by another transaction: its URL stays packed.
	hold := schemaConn(t, dsn, schema)
	defer hold.Close(ctx)
	tx, err := hold.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM hosts WHERE id = $1 FOR UPDATE`, int64(b.HostID)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MergeInlinks(ctx, true); err != nil {
		t.Fatal(err)
	}
	if rowOf(a.ID) != 1 || rowOf(b.ID) != 0 || staged() != 1 {
		t.Fatalf("merged beside a held host: rows %d and %d, %d links staged; want a.test's URL a row, b.test's packed, its link staged",
			rowOf(a.ID), rowOf(b.ID), staged())
	}
	linked("merged beside a held host")
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.MergeInlinks(ctx, true); err != nil {
		t.Fatal(err)
	}
	if rowOf(b.ID) != 1 || staged() != 0 {
		t.Fatalf("merged again: b.test's URL %d rows, %d links staged; want a row and none", rowOf(b.ID), staged())
	}
	linked("merged")
	if _, packed := packedCounts(t, dsn, schema); packed != 18 {
		t.Fatalf("%d URLs packed after the merges, want 18", packed)
	}
}
