package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// findsStore is a store of the tests below, its name and the schema
// that holds it.
type findsStore struct {
	db                *postgres.DB
	name, dsn, schema string
}

func openFinds(t *testing.T, name string, tunes ...postgres.Tune) findsStore {
	t.Helper()
	dsn, schema := freshSchema(t)
	return findsStore{db: open(t, dsn, schema, tunes...), name: name, dsn: dsn, schema: schema}
}

func (s findsStore) count(t *testing.T, q string) int64 {
	t.Helper()
	return queryInt(t, s.dsn, s.schema, q)
}

// TestStagedFindsDecideAsCommits: commits that stage their pages'
// discoveries and the inbound links of URLs that are not rows, merged
// once at the end, leave the store as the same commits adding them at
// once: the same URLs admitted (known, over depth and over a host's cap
// refused), each host's in the same order, with the same priorities and
// inbound-link counts, the same host counts (discovered included) and
// queued counter, the same links read back, and no inbound-link count
// left staged. So do they when the
// merge packs the URLs it admits into runs: each packed URL reads back
// by ID with the priority and inbound links its row has, and made rows,
// the runs hold what the rows do. Claims take the URLs from the runs in
// the order they take them from the rows.
func TestStagedFindsDecideAsCommits(t *testing.T) {
	ctx := context.Background()
	var direct findsStore
	overDepth := 0
	run := func(name string, tunes ...postgres.Tune) (string, int) {
		s := openFinds(t, name, tunes...)
		added, over := storetest.CommitFinds(t, s.db)
		overDepth += over
		if name != "direct" {
			if s.count(t, `SELECT count(*) FROM offers`) == 0 {
				t.Fatalf("%s: nothing was staged", name)
			}
			n, err := s.db.MergeStaged(ctx)
			if err != nil {
				t.Fatal(err)
			}
			added += n
			for _, q := range []string{`SELECT count(*) FROM offers`, `SELECT count(*) FROM host_finds`} {
				if n := s.count(t, q); n != 0 {
					t.Errorf("%s: %s: %d after the merge", name, q, n)
				}
			}
		}
		mergeInlinks(t, s)
		switch name {
		case "direct":
			direct = s
		case "packed":
			samePacked(t, s, direct)
			if err := s.db.UnpackAll(ctx); err != nil {
				t.Fatal(err)
			}
			// Counts a merge left staged for packed URLs would now count twice.
			mergeInlinks(t, s)
		}
		return dumpFinds(t, s), added
	}
	directDump, directAdded := run("direct", postgres.StagedFinds(1<<62, 1<<62))
	for _, c := range []struct {
		name string
		pack int64
	}{{"staged", 1 << 62}, {"packed", 0}} {
		dump, added := run(c.name, postgres.StagedFinds(0, 1<<62), postgres.PackMin(c.pack))
		if directDump != dump {
			t.Errorf("%s discoveries left\n%s\nadded at once\n%s", c.name, dump, directDump)
		}
		if directAdded != added {
			t.Errorf("%d URLs added %s, %d at once", added, c.name, directAdded)
		}
	}
	if overDepth == 0 {
		t.Error("no offer was over depth")
	}
	if direct.count(t, `SELECT count(*) FROM hosts WHERE admitted >= 7`) == 0 {
		t.Error("no host reached its cap")
	}
	if direct.count(t, `SELECT count(*) FROM links l WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = l.target_id)`) == 0 {
		t.Error("every link target was admitted: no link counted for a URL refused")
	}

	claims := map[string]string{}
	for _, c := range []struct {
		name string
		pack int64
	}{{"claimed-rows", 1 << 62}, {"claimed-runs", 0}} {
		s := openFinds(t, c.name, postgres.StagedFinds(0, 1<<62), postgres.PackMin(c.pack))
		storetest.CommitFinds(t, s.db)
		if _, err := s.db.MergeStaged(ctx); err != nil {
			t.Fatal(err)
		}
		mergeInlinks(t, s)
		if packed := checkSeen(t, s.dsn, s.schema); (packed > 0) != (c.pack == 0) {
			t.Fatalf("%s: %d URLs packed", c.name, packed)
		}
		claims[c.name] = claimEvery(t, s.db)
	}
	if n := strings.Count(claims["claimed-rows"], "/p"); n < 10 {
		t.Errorf("claims took %d discovered URLs: too few to tell", n)
	}
	if claims["claimed-rows"] != claims["claimed-runs"] {
		t.Errorf("claims from runs\n%s\nfrom rows\n%s", claims["claimed-runs"], claims["claimed-rows"])
	}
}

// mergeInlinks merges the staged inbound links of rows, and fails t if
// any count is left for a row or for a URL that is not one (the merge of
// discoveries drops those).
func mergeInlinks(t *testing.T, s findsStore) {
	t.Helper()
	if _, err := s.db.MergeInlinks(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	var rows, others int64
	if err := queryRow(t, s.dsn, s.schema, `SELECT count(*) FILTER (WHERE u.id IS NOT NULL), count(*) FILTER (WHERE u.id IS NULL)
		FROM (SELECT target_id FROM inlinks_staged UNION ALL SELECT target_id FROM inlinks_found) s
		LEFT JOIN urls u ON u.id = s.target_id`, nil, &rows, &others); err != nil {
		t.Fatal(err)
	}
	if rows != 0 || others != 0 {
		t.Errorf("%s: inbound-link counts staged after the merges: %d of rows, %d of URLs that are not", s.name, rows, others)
	}
}

// samePacked fails t unless each URL packed in s reads back by ID as its
// row in direct does (priority, inbound links, depth, state), and some
// had inbound links.
func samePacked(t *testing.T, s, direct findsStore) {
	t.Helper()
	checkSeen(t, s.dsn, s.schema)
	var packed []int64
	if err := queryRow(t, s.dsn, s.schema, `SELECT coalesce(array_agg(x.id ORDER BY x.id), '{}') FROM seen, unnest(ids) AS x(id)`,
		nil, &packed); err != nil {
		t.Fatal(err)
	}
	if len(packed) == 0 {
		t.Fatal("the merge packed no URL")
	}
	ids := make([]crawl.ID, len(packed))
	for i, id := range packed {
		ids[i] = crawl.ID(id)
	}
	storetest.SamePacked(t, s.db, direct.db, ids)
}

// dumpFinds is what the frontier of s holds: its URLs (each with its
// place in its host's claim order and its inbound links), its hosts
// (discovered counts included), its queued and staged counters, and the
// links each recorded page reads back.
func dumpFinds(t *testing.T, s findsStore) string {
	t.Helper()
	ctx := context.Background()
	var urls, hosts string
	var sources []int64
	if err := queryRow(t, s.dsn, s.schema, `SELECT
		(SELECT coalesce(string_agg(concat_ws(' ', id, url, host_id, depth, priority, inlinks, state, via, parent_id, kind,
			lastmod, changefreq, k), E'\n' ORDER BY id), '')
			FROM (SELECT *, row_number() OVER (PARTITION BY host_id ORDER BY priority DESC, seq) AS k FROM urls) u),
		(SELECT coalesce(string_agg(concat_ws(' ', id, key, admitted, queued, has_queued, top_priority, discovered), E'\n'
			ORDER BY id), '') FROM hosts),
		(SELECT coalesce(array_agg(DISTINCT source_id ORDER BY source_id), '{}') FROM links)`,
		nil, &urls, &hosts, &sources); err != nil {
		t.Fatal(err)
	}
	c, err := s.db.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\nqueued %d staged %d\n", urls, hosts, c.Queued, c.Staged)
	for _, id := range sources {
		ls, err := s.db.Links(ctx, crawl.ID(id))
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(ls, func(a, b crawl.Link) int { return strings.Compare(a.Target, b.Target) })
		fmt.Fprintln(&b, "links", id, ls)
	}
	return b.String()
}

// claimEvery claims every queued URL of db, a few of each host at a
// time, all hosts a call, once the leases commitFinds took have run
// out, and returns what each claim took, a line a URL.
func claimEvery(t *testing.T, db *postgres.DB) string {
	t.Helper()
	ctx := context.Background()
	now := time.Now().Add(2 * time.Hour)
	var b strings.Builder
	for range 100 {
		hs, err := db.ClaimHosts(ctx, "p", 1000, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 {
			if c, err := db.Counters(ctx); err != nil || c.Queued != 0 {
				t.Fatalf("no host to claim, counters %+v, %v: want none queued", c, err)
			}
			return b.String()
		}
		slices.SortFunc(hs, func(a, b crawl.Host) int { return strings.Compare(a.Key, b.Key) })
		var ids []crawl.ID
		var rel []crawl.HostRelease
		for _, h := range hs {
			ids, rel = append(ids, h.ID), append(rel, crawl.HostRelease{ID: h.ID})
		}
		for {
			cls, err := db.ClaimURLsOf(ctx, "p", ids, 2, crawl.Limits{}, now)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, c := range cls {
				for _, u := range c.URLs {
					fmt.Fprintln(&b, u.URL, u.Priority, u.Depth, u.Via, u.Kind)
					n++
				}
			}
			if n == 0 {
				break
			}
			b.WriteString("--\n")
		}
		if err := db.ReleaseHosts(ctx, "p", rel); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("hosts still claimable after 100 rounds")
	return ""
}

// TestStagedCountsMerged: commits whose pages link to URLs nobody offers
// (out of the crawl's scope) stage inbound links for them and no offer;
// the counts alone bring a merge once 50 are staged, which drops them,
// as MergeStaged drops those left, and no such URL becomes a row. Each
// page also discovers a URL over the depth limit, which the commit
// refuses and does not stage.
func TestStagedCountsMerged(t *testing.T) {
	ctx := context.Background()
	s := openFinds(t, "counts", postgres.StagedFinds(0, 50))
	lim := crawl.Limits{MaxDepth: 1, InlinkBonus: 1, MaxInlinkBonus: 5}
	var seeds []crawl.NewURL
	for i := range 33 {
		seeds = append(seeds, storetest.U(fmt.Sprintf("http://a.test/s%d", i), 0, 0))
	}
	if _, err := s.db.AddURLs(ctx, seeds, lim); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	hosts, err := s.db.ClaimHosts(ctx, "o", 1, time.Hour, now)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hosts, err)
	}
	claimed, _, err := s.db.ClaimURLs(ctx, "o", hosts[0].ID, len(seeds), lim, now)
	if err != nil || len(claimed) != len(seeds) {
		t.Fatalf("claimed %d, %v", len(claimed), err)
	}
	const unstored = `SELECT count(*) FROM inlinks_found`
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
			deep := storetest.U(c.URL+"/deep", 2, 0)
			deep.Parent = c.ID
			r.Discovered = []crawl.NewURL{deep}
			batch = append(batch, r)
		}
		st, err := s.db.Commit(ctx, batch, lim)
		if err != nil {
			t.Fatal(err)
		}
		if st.Add.OverDepth != 3 {
			t.Fatalf("commit %d: %+v, want its 3 discoveries over depth", i/3, st.Add)
		}
		if n := s.count(t, `SELECT count(*) FROM offers`); n != 0 {
			t.Fatalf("commit %d: %d offers staged", i/3, n)
		}
		n := s.count(t, unstored)
		if n < last {
			merges++
		}
		most, last = max(most, n), n
	}
	if merges == 0 || most >= 50+30 {
		t.Errorf("%d merges, at most %d counts staged: want merges once 50 are staged", merges, most)
	}
	if last == 0 {
		t.Fatal("no count staged at the end: MergeStaged has nothing to drop")
	}
	if _, err := s.db.MergeStaged(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.count(t, unstored); n != 0 {
		t.Errorf("%d counts of URLs that are not rows left after a merge", n)
	}
	if n := s.count(t, `SELECT count(*) FROM urls`); n != int64(len(seeds)) {
		t.Errorf("%d rows of urls: want the %d seeds alone", n, len(seeds))
	}
}
