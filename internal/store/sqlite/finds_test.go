package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestStagedFindsDecideAsCommits: commits that stage their pages'
// discoveries and the inbound links of URLs not known to be rows, merged
// once at the end, leave the store as the same commits adding them at
// once: the same URLs admitted (known, over depth and over a host's cap
// refused), in the same order, with the same priorities and inbound-link
// counts, the same host counts (discovered included), the same texts
// kept for the link targets the frontier does not hold, and the same
// links read back.
func TestStagedFindsDecideAsCommits(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, from int64) (string, int) {
		db := openTuned(t, filepath.Join(dir, name+".db"), stagedFinds(from, 1<<62))
		defer db.Close()
		added, staged := commitFinds(t, db)
		if from == 0 {
			if staged == 0 {
				t.Fatal("nothing was staged")
			}
			n, err := db.MergeStaged(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			added += n
		}
		return dumpFinds(t, db), added
	}
	direct, directAdded := run("direct", 1<<62)
	staged, stagedAdded := run("staged", 0)
	if direct != staged {
		t.Errorf("staged discoveries left\n%s\nadded at once\n%s", staged, direct)
	}
	if directAdded != stagedAdded {
		t.Errorf("%d URLs added staged, %d at once", stagedAdded, directAdded)
	}
	for _, want := range []string{"link_urls", "capped"} {
		if !strings.Contains(direct, want) {
			t.Errorf("the test made no %s", want)
		}
	}
}

// commitFinds claims a few hosts' seeds and commits them in batches,
// each page linking to seeds and to new URLs, offering the new ones the
// first time it sees them (as the engine does) and some again. It
// returns the URLs the commits added and the offers staged at the end.
func commitFinds(t *testing.T, db *DB) (added int, staged int64) {
	t.Helper()
	ctx := context.Background()
	lim := crawl.Limits{MaxDepth: 2, MaxPagesPerHost: 7, InlinkBonus: 3, MaxInlinkBonus: 9}
	rng := rand.New(rand.NewPCG(7, 8))
	var seeds []crawl.NewURL
	for h := range 5 {
		for i := range 4 {
			seeds = append(seeds, offerURL(fmt.Sprintf("http://h%d.test/s%d", h, i), 0, 10))
		}
	}
	if _, err := db.AddURLs(ctx, seeds, lim); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	hosts, err := db.ClaimHosts(ctx, "o", 100, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	var claimed []crawl.ClaimedURL
	for _, h := range hosts {
		us, _, err := db.ClaimURLs(ctx, "o", h.ID, 100, lim, now)
		if err != nil {
			t.Fatal(err)
		}
		claimed = append(claimed, us...)
	}
	slices.SortFunc(claimed, func(a, b crawl.ClaimedURL) int { return strings.Compare(a.URL, b.URL) })
	if len(claimed) != len(seeds) {
		t.Fatalf("claimed %d of %d seeds", len(claimed), len(seeds))
	}
	// New URLs on the seeds' hosts and on two new ones.
	var pool []string
	for h := range 7 {
		for i := range 6 {
			pool = append(pool, fmt.Sprintf("http://h%d.test/p%d", h, i))
		}
	}
	offered := map[string]bool{}
	depth := map[string]int{}
	var batch []crawl.Result
	for i, c := range claimed {
		r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
			Page: &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", FetchedAt: now, Title: "t", Text: "x"}}
		for range 6 {
			target := pool[rng.IntN(len(pool))]
			if rng.IntN(4) == 0 {
				target = claimed[rng.IntN(len(claimed))].URL
			}
			r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(target), Target: target,
				Anchor: "a", NoFollow: rng.IntN(8) == 0})
			if strings.Contains(target, "/p") && (!offered[target] || rng.IntN(6) == 0) {
				offered[target] = true
				// A URL is over depth every time or never: one refused
				// over depth and admitted later loses the links counted
				// before when added at once, not when staged.
				if depth[target] == 0 {
					depth[target] = 1 + rng.IntN(3)/2*2
				}
				u := offerURL(target, depth[target], rng.IntN(5))
				u.Parent = c.ID
				r.Discovered = append(r.Discovered, u)
			}
		}
		batch = append(batch, r)
		if len(batch) == 3 || i == len(claimed)-1 {
			st, err := db.Commit(ctx, batch, lim)
			if err != nil {
				t.Fatal(err)
			}
			added += st.Add.Added
			batch = batch[:0]
		}
	}
	staged, err = db.stagedOffersForTest(ctx)
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

// dumpFinds is dumpFrontier with the URLs' inbound links, the hosts'
// discovered counts, the texts of link targets, the links each seed
// reads back, and whether a cap refused any URL.
func dumpFinds(t *testing.T, db *DB) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	b.WriteString(dumpFrontier(t, db))
	dumpRows(t, db, &b,
		`SELECT 'inlinks', id, inlinks FROM urls ORDER BY id`,
		`SELECT 'discovered', id, discovered FROM hosts ORDER BY id`,
		`SELECT 'link_urls', id, url FROM link_urls ORDER BY id`,
		`SELECT 'capped', count(*) FROM hosts WHERE admitted >= 7`,
		`SELECT 'staged', (SELECT count(*) FROM offers), (SELECT count(*) FROM inlink_counts)`)
	for _, s := range queryIDs(t, db, `SELECT source_id FROM outlinks ORDER BY source_id`) {
		ls, err := db.Links(ctx, s)
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
