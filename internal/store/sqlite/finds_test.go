package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestStagedFindsDecideAsCommits: commits that stage their pages'
// discoveries and the inbound links of URLs not known to be rows, merged
// once at the end, leave the store as the same commits adding them at
// once: the same URLs admitted (known, over depth and over a host's cap
// refused), in the same order, with the same priorities and inbound-link
// counts, the same host counts (discovered included), the same texts
// kept for the link targets the frontier does not hold, and the same
// links read back. So do they when the merge packs the URLs it admits
// into runs: each packed URL reads back by ID with the priority and
// inbound links its row has, and as a link's target with its text;
// claims take the URLs from the runs in the
// order they take them from the rows, and made rows, the runs hold what
// the rows do.
func TestStagedFindsDecideAsCommits(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var direct *DB
	run := func(name string, tu tuning) (string, int) {
		db := openTuned(t, filepath.Join(dir, name+".db"), tu)
		if name == "direct" {
			direct = db
		}
		t.Cleanup(func() { db.Close() })
		added, staged := commitFinds(t, db)
		if name != "direct" {
			if staged == 0 {
				t.Fatal("nothing was staged")
			}
			n, err := db.MergeStaged(ctx)
			if err != nil {
				t.Fatal(err)
			}
			added += n
		}
		if name == "packed" {
			packed := queryIDs(t, db, `SELECT id FROM seen ORDER BY id`)
			if len(packed) == 0 {
				t.Fatal("the merge packed no URL")
			}
			storetest.SamePacked(t, db, direct, packed)
			if got, want := dumpLinks(t, db), dumpLinks(t, direct); got != want {
				t.Errorf("links to packed URLs read back\n%s\nlinks to rows\n%s", got, want)
			}
			db.unpackAllForTest(t)
		}
		return dumpFinds(t, db), added
	}
	directDump, directAdded := run("direct", stagedFinds(1<<62, 1<<62))
	for _, c := range []struct {
		name string
		pack int64
	}{{"staged", 1 << 62}, {"packed", 0}} {
		tu := stagedFinds(0, 1<<62)
		tu.packMin = c.pack
		dump, added := run(c.name, tu)
		if directDump != dump {
			t.Errorf("%s discoveries left\n%s\nadded at once\n%s", c.name, dump, directDump)
		}
		if directAdded != added {
			t.Errorf("%d URLs added %s, %d at once", added, c.name, directAdded)
		}
	}
	claims := map[string]string{}
	for _, c := range []struct {
		name string
		pack int64
	}{{"claimed-rows", 1 << 62}, {"claimed-runs", 0}} {
		tu := stagedFinds(0, 1<<62)
		tu.packMin = c.pack
		db := openTuned(t, filepath.Join(dir, c.name+".db"), tu)
		t.Cleanup(func() { db.Close() })
		commitFinds(t, db)
		if _, err := db.MergeStaged(ctx); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, us := range claimAll(t, db) {
			for _, u := range us {
				fmt.Fprintln(&b, u.URL, u.Priority, u.Depth, u.Via, u.Kind)
			}
			b.WriteString("--\n")
		}
		claims[c.name] = b.String()
	}
	if n := strings.Count(claims["claimed-rows"], "/p"); n < 10 {
		t.Errorf("claims took %d discovered URLs: too few to tell", n)
	}
	if claims["claimed-rows"] != claims["claimed-runs"] {
		t.Errorf("claims from runs\n%s\nfrom rows\n%s", claims["claimed-runs"], claims["claimed-rows"])
	}
	for _, want := range []string{"link_urls", "capped"} {
		if !strings.Contains(directDump, want) {
			t.Errorf("the test made no %s", want)
		}
	}
}

// unpackAllForTest makes every packed URL a row of urls, queued, as a
// claim or a link would.
func (db *DB) unpackAllForTest(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	hosts := queryIDs(t, db, `SELECT DISTINCT host_id FROM queue_runs ORDER BY host_id`)
	if err := db.tx(ctx, func(tx *txn) error {
		for _, h := range hosts {
			if err := tx.unpackHost(ctx, h); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// commitFinds runs storetest.CommitFinds on db and returns the URLs the
// commits added and the offers staged at the end.
func commitFinds(t *testing.T, db *DB) (added int, staged int64) {
	t.Helper()
	added, _ = storetest.CommitFinds(t, db)
	staged, err := db.stagedOffersForTest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return added, staged
}

func (db *DB) stagedOffersForTest(ctx context.Context) (int64, error) {
	var n int64
	err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM offers`).Scan(&n)
	return n, err
}

// dumpFinds is what the frontier holds (as dumpFrontier, each host's URLs
// numbered in the order a claim takes them), with the URLs' inbound
// links, the hosts' discovered counts, the texts of link targets, the
// links each seed reads back, and whether a cap refused any URL.
func dumpFinds(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	dumpRows(t, db, &b,
		`SELECT id, url, host_id, depth, priority, state, via, parent_id, kind, lastmod, changefreq,
			row_number() OVER (PARTITION BY host_id ORDER BY priority DESC, rowid) FROM urls ORDER BY id`,
		`SELECT id, key, admitted, queued, has_queued, top_priority FROM hosts ORDER BY id`,
		`SELECT name, value FROM counters WHERE name = 'queued'`)
	dumpRows(t, db, &b,
		`SELECT 'inlinks', id, inlinks FROM urls ORDER BY id`,
		`SELECT 'discovered', id, discovered FROM hosts ORDER BY id`,
		`SELECT 'link_urls', id, url FROM link_urls ORDER BY id`,
		`SELECT 'capped', count(*) FROM hosts WHERE admitted >= 7`,
		`SELECT 'staged', (SELECT count(*) FROM offers), (SELECT count(*) FROM inlink_counts)`)
	b.WriteString(dumpLinks(t, db))
	return b.String()
}

// dumpLinks is the links each recorded page reads back.
func dumpLinks(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, s := range queryIDs(t, db, `SELECT source_id FROM outlinks ORDER BY source_id`) {
		ls, err := db.Links(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, "outlinks", s, ls)
	}
	return b.String()
}

// TestStagedCountsMerged: commits whose pages link to URLs nobody offers
// (out of the crawl's scope) stage counts for them and no offer; the
// counts alone bring the merge, which drops them.
func TestStagedCountsMerged(t *testing.T) {
	ctx := context.Background()
	db := openTuned(t, filepath.Join(t.TempDir(), "counts.db"), stagedFinds(0, 50))
	defer db.Close()
	lim := crawl.Limits{InlinkBonus: 1, MaxInlinkBonus: 5}
	var seeds []crawl.NewURL
	for i := range 30 {
		seeds = append(seeds, offerURL(fmt.Sprintf("http://a.test/s%d", i), 0, 0))
	}
	if _, err := db.AddURLs(ctx, seeds, lim); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	hosts, err := db.ClaimHosts(ctx, "o", 1, time.Hour, now)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hosts, err)
	}
	claimed, _, err := db.ClaimURLs(ctx, "o", hosts[0].ID, 30, lim, now)
	if err != nil || len(claimed) != 30 {
		t.Fatalf("claimed %d, %v", len(claimed), err)
	}
	most, merges, last := int64(0), 0, int64(0)
	for i := 0; i < len(claimed); i += 3 {
		var batch []crawl.Result
		for _, c := range claimed[i : i+3] {
			r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
				Page: &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", FetchedAt: now, Title: "t", Text: "x"}}
			for j := range 10 {
				target := fmt.Sprintf("http://elsewhere.test/%s/%d", c.URL[len("http://a.test/"):], j)
				r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(target), Target: target})
			}
			batch = append(batch, r)
		}
		if _, err := db.Commit(ctx, batch, lim); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM inlink_counts`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n < last {
			merges++
		}
		most, last = max(most, n), n
	}
	if merges == 0 || most >= 50+30 {
		t.Errorf("%d merges, at most %d counts staged: want merges once 50 are staged", merges, most)
	}
	var rows int64
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM urls`).Scan(&rows); err != nil || rows != 30 {
		t.Errorf("%d rows of urls, %v: want the 30 seeds alone", rows, err)
	}
}

// TestCountersStaged: Counters reports the URLs staged until a merge
// decides on them, so that a crawl is not over while some wait.
func TestCountersStaged(t *testing.T) {
	ctx := context.Background()
	db := openOffers(t, filepath.Join(t.TempDir(), "staged.db"))
	defer db.Close()
	if _, err := db.StageURLs(ctx, []crawl.NewURL{offerURL("http://a.test/1", 0, 0), offerURL("http://a.test/2", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	c, err := db.Counters(ctx)
	if err != nil || c.Staged != 2 || c.Queued != 0 {
		t.Fatalf("Counters = %+v, %v; want 2 staged, none queued", c, err)
	}
	if _, err := db.MergeStaged(ctx); err != nil {
		t.Fatal(err)
	}
	if c, err := db.Counters(ctx); err != nil || c.Staged != 0 || c.Queued != 2 {
		t.Fatalf("after the merge Counters = %+v, %v; want none staged, 2 queued", c, err)
	}
}

// queryIDs returns the IDs q returns.
func queryIDs(t *testing.T, db *DB, q string) []crawl.ID {
	t.Helper()
	rows, err := db.w.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []crawl.ID
	for rows.Next() {
		var id crawl.ID
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestClaimMergeReported: discoveries that a claim finding no host
// merges are reported by the next commit, as those a commit merges are.
func TestClaimMergeReported(t *testing.T) {
	ctx := context.Background()
	db := openTuned(t, filepath.Join(t.TempDir(), "claim.db"), stagedFinds(0, 1<<62))
	defer db.Close()
	if _, err := db.AddURLs(ctx, []crawl.NewURL{offerURL("http://a.test/1", 0, 0), offerURL("http://a.test/2", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	hosts, err := db.ClaimHosts(ctx, "o", 1, time.Hour, now)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hosts, err)
	}
	claimed, _, err := db.ClaimURLs(ctx, "o", hosts[0].ID, 2, crawl.Limits{}, now)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %d, %v", len(claimed), err)
	}
	result := func(c crawl.ClaimedURL, found ...string) crawl.Result {
		r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
			Page: &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", FetchedAt: now, Title: "t", Text: "x"}}
		for _, u := range found {
			r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(u), Target: u})
			r.Discovered = append(r.Discovered, offerURL(u, 1, 0))
		}
		return r
	}
	st, err := db.Commit(ctx, []crawl.Result{result(claimed[0], "http://b.test/1", "http://b.test/2")}, crawl.Limits{})
	if err != nil || st.Add.Offered != 2 || st.Add.Added != 0 {
		t.Fatalf("the first commit = %+v, %v; want 2 offered and staged", st.Add, err)
	}
	// No host to claim (a.test is held): the claim merges, and claims b.
	hosts, err = db.ClaimHosts(ctx, "p", 1, time.Hour, now)
	if err != nil || len(hosts) != 1 || hosts[0].Key != "http://b.test" {
		t.Fatalf("ClaimHosts = %+v, %v; want b.test after a merge", hosts, err)
	}
	st, err = db.Commit(ctx, []crawl.Result{result(claimed[1])}, crawl.Limits{})
	if err != nil || st.Add.Added != 2 || len(st.Add.Hosts) != 1 || st.Add.Hosts[0] != hosts[0].ID {
		t.Fatalf("the next commit = %+v, %v; want the claim's merge reported: 2 added to b.test", st.Add, err)
	}
	if st, err = db.Commit(ctx, nil, crawl.Limits{}); err != nil || st.Add.Added != 0 {
		t.Fatalf("a later commit = %+v, %v; want it reported once", st.Add, err)
	}
}

// TestPackedFindsSurvivesKill: a store whose commits stage their pages'
// discoveries and whose merges pack them into runs with their inbound
// links, killed (SIGKILL) while it claims, commits and merges, opens again
// whole: every URL a returned commit discovered is known with the link of
// the page that found it counted (staged, packed or a row), the packed
// counter is what the runs hold, and every host's queue count is its
// queued rows and packed URLs.
func TestPackedFindsSurvivesKill(t *testing.T) {
	if file := os.Getenv("ACRAWLER_TEST_PACKED_FINDS_CHILD"); file != "" {
		commitFindsForever(t, file)
		return
	}
	file := filepath.Join(t.TempDir(), "killed.db")
	cmd, lines := startChild(t, "TestPackedFindsSurvivesKill", "ACRAWLER_TEST_PACKED_FINDS_CHILD", file)
	last := killAt(t, cmd, lines, 30) // the last batch committed
	db := openKilled(t, file)
	ctx := context.Background()
	packedWhole(t, db)
	var inRuns int
	for b := range last + 1 {
		for _, u := range findsOfBatch(b) {
			r, err := db.URL(ctx, crawl.URLID(u))
			if err != nil {
				t.Fatalf("%s, found by batch %d of %d committed: %v", u, b, last, err)
			}
			if r.Inlinks < 1 {
				t.Errorf("%s: %d inbound links, want the link of the page that found it", u, r.Inlinks)
			}
			if r.State == crawl.StateQueued {
				inRuns++
			}
		}
	}
	if inRuns == 0 {
		t.Error("no URL a commit discovered is still queued: the test shows nothing of the runs")
	}
}

// findsOfBatch are the URLs the pages of batch b of commitFindsForever
// discover: four of each of its hosts.
func findsOfBatch(b int64) []string {
	var out []string
	for h := range 13 {
		for i := range 4 {
			out = append(out, fmt.Sprintf("http://h%d.test/batch/%d/found/%d", h, b, i))
		}
	}
	return out
}

// commitFindsForever claims a page of each of 13 hosts a batch and
// commits them, their pages linking to the URLs of findsOfBatch (offered
// as found) and to those of the batch before (already known), in a store
// that stages its discoveries and packs every merge, printing the batch's
// number once its commit has returned, until it is killed.
func commitFindsForever(t *testing.T, file string) {
	tu := stagedFinds(0, 150)
	tu.packMin = 0
	ctx := context.Background()
	db, err := Open(ctx, file, Options{tune: &tu})
	if err != nil {
		t.Fatal(err)
	}
	lim := crawl.Limits{InlinkBonus: 2, MaxInlinkBonus: 6}
	var seeds []crawl.NewURL
	for h := range 13 {
		for i := range 1000 {
			seeds = append(seeds, offerURL(fmt.Sprintf("http://h%d.test/seed/%d", h, i), 0, 1))
		}
	}
	if _, err := db.AddURLs(ctx, seeds, lim); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for b := int64(0); ; b++ {
		hs, err := db.ClaimHosts(ctx, "o", 13, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		var rs []crawl.Result
		var rel []crawl.HostRelease
		found := findsOfBatch(b)
		var before []string
		if b > 0 {
			before = findsOfBatch(b - 1)
		}
		for _, h := range hs {
			us, _, err := db.ClaimURLs(ctx, "o", h.ID, 1, lim, now)
			if err != nil {
				t.Fatal(err)
			}
			rel = append(rel, crawl.HostRelease{ID: h.ID})
			for _, c := range us {
				r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
					Page: &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", FetchedAt: now, Title: "t", Text: "x"}}
				for _, u := range append(slices.Clone(found), before...) {
					if crawl.HostKey(u) != crawl.HostKey(c.URL) {
						continue
					}
					r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(u), Target: u, Anchor: "a"})
					if strings.Contains(u, fmt.Sprintf("/batch/%d/", b)) {
						r.Discovered = append(r.Discovered, offerURL(u, 1, 2))
					}
				}
				rs = append(rs, r)
			}
		}
		if _, err := db.Commit(ctx, rs, lim); err != nil {
			t.Fatal(err)
		}
		fmt.Println(b)
		if err := db.ReleaseHosts(ctx, "o", rel); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
	}
}
