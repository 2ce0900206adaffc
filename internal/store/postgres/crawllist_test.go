package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// page returns a done result for c whose page links to targets (followed)
// and to nofollow targets.
func page(c crawl.ClaimedURL, now time.Time, targets, nofollow []string) crawl.Result {
	r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
		Page: &crawl.Page{URL: c.URL, Status: 200, Text: "text of " + c.URL, Bytes: 10, FetchedAt: now}}
	for _, t := range targets {
		r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(t), Target: t})
	}
	for _, t := range nofollow {
		r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(t), Target: t, NoFollow: true})
	}
	return r
}

// inlinkBatch commits, in one batch, pages linking to a queued URL (x)
// and to one in flight (y) whose release comes in the middle of the batch,
// and returns the records of x and y.
func inlinkBatch(t *testing.T, s crawl.Store, lim crawl.Limits) []crawl.URLRecord {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	var urls []crawl.NewURL
	for i := range 5 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/%d", i), 0, 10-i))
	}
	x, y := "http://a.test/x", "http://a.test/y"
	urls = append(urls, storetest.U(x, 1, 0), storetest.U(y, 1, 5))
	if _, err := s.AddURLs(ctx, urls, lim); err != nil {
		t.Fatal(err)
	}
	hs, err := s.ClaimHosts(ctx, "p", 1, time.Minute, now)
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	cs, _, err := s.ClaimURLs(ctx, "p", hs[0].ID, 6, lim, now)
	if err != nil || len(cs) != 6 || cs[5].URL != y {
		t.Fatalf("ClaimURLs = %+v, %v; want the five pages then y", cs, err)
	}
	rs := []crawl.Result{
		page(cs[0], now, []string{x, y, x}, nil), // y in flight; a repeated link counts once
		{URL: cs[5], Outcome: crawl.OutcomeRelease},
		page(cs[1], now, []string{x, y}, nil), // y queued again
		page(cs[2], now, []string{x}, []string{y}),
		page(cs[3], now, nil, []string{x}), // nofollow only: does not count
		page(cs[4], now, []string{x, "http://elsewhere.test/"}, nil),
	}
	if _, err := s.Commit(ctx, rs, lim); err != nil {
		t.Fatal(err)
	}
	var out []crawl.URLRecord
	for _, u := range []string{x, y} {
		r, err := s.URL(ctx, crawl.URLID(u))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestInlinksOfOneBatch: several new pages of one commit linking to a URL
// count as many inbound links, with the priority bonus capped and given
// only while the URL is queued, as if the pages were committed one by one:
// the results agree with SQLite's.
func TestInlinksOfOneBatch(t *testing.T) {
	tests := []struct {
		name                   string
		lim                    crawl.Limits
		inX, prioX, inY, prioY int
	}{
		{"bonus 2 up to 4", crawl.Limits{InlinkBonus: 2, MaxInlinkBonus: 4}, 4, 4, 2, 7},
		{"bonus 1 up to 10", crawl.Limits{InlinkBonus: 1, MaxInlinkBonus: 10}, 4, 4, 2, 6},
		{"bonus 3 up to 3", crawl.Limits{InlinkBonus: 3, MaxInlinkBonus: 3}, 4, 3, 2, 5},
		{"bonus 5 up to 0", crawl.Limits{InlinkBonus: 5}, 4, 0, 2, 5},
		{"no bonus", crawl.Limits{}, 0, 0, 0, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dsn, schema := freshSchema(t)
			pg := inlinkBatch(t, open(t, dsn, schema), tc.lim)
			lite, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "crawl.db"), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer lite.Close()
			want := inlinkBatch(t, lite, tc.lim)
			if x := pg[0]; x.Inlinks != tc.inX || x.Priority != tc.prioX {
				t.Errorf("x: %d inlinks, priority %d; want %d and %d", x.Inlinks, x.Priority, tc.inX, tc.prioX)
			}
			if y := pg[1]; y.Inlinks != tc.inY || y.Priority != tc.prioY || y.State != crawl.StateQueued {
				t.Errorf("y: %d inlinks, priority %d, state %v; want %d, %d, queued", y.Inlinks, y.Priority, y.State, tc.inY, tc.prioY)
			}
			for i := range pg {
				if pg[i].Inlinks != want[i].Inlinks || pg[i].Priority != want[i].Priority {
					t.Errorf("%s: PostgreSQL has %d inlinks, priority %d; SQLite %d, %d",
						pg[i].URL, pg[i].Inlinks, pg[i].Priority, want[i].Inlinks, want[i].Priority)
				}
			}
		})
	}
}

// TestRefetchedPageIsNoNewInlink: a page recorded again (an update of its
// row) does not count as an inbound link a second time.
func TestRefetchedPageIsNoNewInlink(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	lim := crawl.Limits{InlinkBonus: 1, MaxInlinkBonus: 10}
	db := open(t, dsn, schema)
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/", 0, 1), storetest.U("http://a.test/x", 1, 0)}, lim); err != nil {
		t.Fatal(err)
	}
	hs, _ := db.ClaimHosts(ctx, "p", 1, time.Minute, now)
	cs, _, err := db.ClaimURLs(ctx, "p", hs[0].ID, 1, lim, now)
	if err != nil || len(cs) != 1 {
		t.Fatalf("ClaimURLs = %v, %v", cs, err)
	}
	r := page(cs[0], now, []string{"http://a.test/x"}, nil)
	for range 2 {
		if st, err := db.Commit(ctx, []crawl.Result{r}, lim); err != nil || st.Pages != 1 {
			t.Fatalf("Commit = %+v, %v", st, err)
		}
		// Back in flight, as for a fetch again.
		exec(t, dsn, schema, `UPDATE urls SET state = 1 WHERE id = $1`, int64(cs[0].ID))
	}
	x, err := db.URL(ctx, crawl.URLID("http://a.test/x"))
	if err != nil || x.Inlinks != 1 || x.Priority != 1 {
		t.Errorf("target after the page was recorded twice: %+v, %v; want 1 inlink, priority 1", x, err)
	}
}

// TestCrossLinkingCommits: owners commit, at the same time, pages linking
// to the URLs the others have in flight and to common targets, while
// merges of the staged inbound links run (one after every commit): no
// commit fails, no inbound link is lost or counted twice, before the last
// merge and after it.
func TestCrossLinkingCommits(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	lim := crawl.Limits{InlinkBonus: 1, MaxInlinkBonus: 1 << 20}
	const owners, rounds, batch = 4, 20, 8
	var urls, common []crawl.NewURL
	for w := range owners {
		for i := range rounds * batch {
			urls = append(urls, storetest.U(fmt.Sprintf("http://h%d.test/%d", w, i), 0, 0))
		}
		// Last in their host's queue: never claimed.
		common = append(common, storetest.U(fmt.Sprintf("http://h%d.test/common", w), 0, -1000))
	}
	seed := open(t, dsn, schema, postgres.MergeRows(1))
	if _, err := seed.AddURLs(ctx, append(urls, common...), lim); err != nil {
		t.Fatal(err)
	}
	dbs := make([]*postgres.DB, owners)
	hosts := make([]crawl.ID, owners)
	for w := range owners {
		dbs[w] = open(t, dsn, schema, postgres.MergeRows(1))
		hs, err := dbs[w].ClaimHosts(ctx, fmt.Sprint("o", w), 1, time.Hour, now)
		if err != nil || len(hs) != 1 {
			t.Fatalf("ClaimHosts = %v, %v", hs, err)
		}
		hosts[w] = hs[0].ID
	}
	for round := range rounds {
		claimed := make([][]crawl.ClaimedURL, owners)
		for w, db := range dbs {
			cs, _, err := db.ClaimURLs(ctx, fmt.Sprint("o", w), hosts[w], batch, lim, now)
			if err != nil || len(cs) != batch {
				t.Fatalf("round %d: ClaimURLs = %d URLs, %v", round, len(cs), err)
			}
			claimed[w] = cs
		}
		var wg sync.WaitGroup
		errs := make([]error, owners)
		for w, db := range dbs {
			var rs []crawl.Result
			for i, c := range claimed[w] {
				var targets []string
				for v := range owners {
					if v != w {
						// A URL another owner is committing now.
						targets = append(targets, claimed[v][(i+v)%batch].URL)
					}
					targets = append(targets, common[v].URL)
				}
				rs = append(rs, page(c, now, targets, nil))
			}
			wg.Go(func() { _, errs[w] = db.Commit(ctx, rs, lim) })
		}
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("round %d: owner %d Commit: %v", round, w, err)
			}
		}
	}
	for _, u := range common {
		r, err := seed.URL(ctx, u.ID)
		if want := owners * rounds * batch; err != nil || r.Inlinks != want || r.Priority != -1000+want {
			t.Errorf("%s: %+v, %v; want %d inlinks and priority raised by as many", u.URL, r, err, want)
		}
	}
	// The merges ran while the owners committed: without them, half of
	// the links would still be staged.
	var staged, links int64
	if err := queryRow(t, dsn, schema, `SELECT (SELECT count(*) FROM inlinks_staged), (SELECT count(*) FROM links)`,
		nil, &staged, &links); err != nil || staged > links/4 {
		t.Errorf("%d of %d links staged before the stores close (%v): the merges did not run", staged, links, err)
	}
	// Closing the stores ends their merges and merges what is left.
	for _, db := range append(dbs, seed) {
		db.Close()
	}
	if err := queryRow(t, dsn, schema, `SELECT count(*) FROM inlinks_staged`, nil, &staged); err != nil || staged != 0 {
		t.Errorf("%d inbound-link rows left staged, %v", staged, err)
	}
	var total int64
	if err := queryRow(t, dsn, schema, `SELECT coalesce(sum(inlinks), 0)::bigint FROM urls WHERE url NOT LIKE '%/common'`,
		nil, &total); err != nil {
		t.Fatal(err)
	}
	if want := int64(owners * rounds * batch * (owners - 1)); total != want {
		t.Errorf("inlinks of the crawled URLs sum to %d, want %d", total, want)
	}
	for _, u := range common {
		var n, prio int
		if err := queryRow(t, dsn, schema, `SELECT inlinks, priority FROM urls WHERE id = $1`, []any{int64(u.ID)}, &n, &prio); err != nil ||
			n != owners*rounds*batch || prio != -1000+n {
			t.Errorf("%s merged: %d inlinks, priority %d, %v; want %d", u.URL, n, prio, err, owners*rounds*batch)
		}
	}
}

// TestHostByteBudgetOrder: the host byte budget skips a host's queued URLs
// only for the lease holder and only while the crawl's own budgets allow
// claims, as in SQLite; the counters stay balanced.
func TestHostByteBudgetOrder(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	var urls []crawl.NewURL
	for i := range 4 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, _ := db.ClaimHosts(ctx, "p", 1, time.Minute, now)
	cs, _, err := db.ClaimURLs(ctx, "p", hs[0].ID, 1, crawl.Limits{}, now)
	if err != nil || len(cs) != 1 {
		t.Fatalf("ClaimURLs = %v, %v", cs, err)
	}
	r := page(cs[0], now, nil, nil)
	r.Page.WireBytes = 500
	if _, err := db.Commit(ctx, []crawl.Result{r}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		owner string
		lim   crawl.Limits
		err   error
		queue int64 // queued URLs left
	}{
		{"q", crawl.Limits{MaxHostBytes: 500}, crawl.ErrLeaseLost, 3},
		{"p", crawl.Limits{MaxHostBytes: 500, MaxBytes: 500}, crawl.ErrByteBudget, 3},
		{"p", crawl.Limits{MaxHostBytes: 500, MaxPages: 1}, crawl.ErrPageBudget, 3},
		{"p", crawl.Limits{MaxHostBytes: 501, MaxPages: 2}, nil, 2}, // under its share: one claimed
		{"p", crawl.Limits{MaxHostBytes: 500, MaxPages: 10}, crawl.ErrHostBytes, 0},
	}
	for _, s := range steps {
		got, next, err := db.ClaimURLs(ctx, s.owner, hs[0].ID, 1, s.lim, now)
		if !errors.Is(err, s.err) || !next.IsZero() || (s.err != nil || s.lim.MaxHostBytes == 500) && len(got) != 0 {
			t.Errorf("%s ClaimURLs under %+v = %v, %v, %v; want nothing and %v", s.owner, s.lim, urlsOfClaim(got), next, err, s.err)
		}
		c, err := db.Counters(ctx)
		if err != nil || c.Queued != s.queue || c.Queued+c.InFlight+c.Done+c.Skipped != 4 {
			t.Errorf("after %s ClaimURLs under %+v: counters %+v, %v; want %d queued, balanced", s.owner, s.lim, c, err, s.queue)
		}
	}
	st, err := db.HostStats(ctx, 0)
	if err != nil || len(st) != 1 || st[0].Queued != 0 || st[0].Bytes != 500 {
		t.Errorf("HostStats = %+v, %v; want nothing queued, 500 bytes", st, err)
	}
	rec, err := db.URL(ctx, crawl.URLID("http://a.test/3"))
	if err != nil || rec.State != crawl.StateSkipped || rec.Error != "host byte budget reached" {
		t.Errorf("URL = %+v, %v; want skipped for the host byte budget", rec, err)
	}
}

func urlsOfClaim(cs []crawl.ClaimedURL) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.URL)
	}
	return out
}

// TestHostStatsOrderAndLimit: most fetched first, then by key in byte
// order (as SQLite sorts), at most limit hosts, error kinds only where
// recorded.
func TestHostStatsOrderAndLimit(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	keys := []string{"http://b.test", "http://B.test", "http://a-b.test", "http://ab.test", "http://c.test"}
	var urls []crawl.NewURL
	for _, k := range keys {
		urls = append(urls, storetest.U(k+"/", 0, 0))
	}
	if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, _ := db.ClaimHosts(ctx, "p", 10, time.Minute, now)
	for _, h := range hs {
		if h.Key != "http://c.test" {
			continue
		}
		cs, _, err := db.ClaimURLs(ctx, "p", h.ID, 1, crawl.Limits{}, now)
		if err != nil || len(cs) != 1 {
			t.Fatalf("ClaimURLs = %v, %v", cs, err)
		}
		r := page(cs[0], now, nil, nil)
		r.Page.Status, r.Page.ErrorKind = 503, "http 503"
		if _, err := db.Commit(ctx, []crawl.Result{r}, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		limit int
		want  []string
	}{
		{0, []string{"http://c.test", "http://B.test", "http://a-b.test", "http://ab.test", "http://b.test"}},
		{2, []string{"http://c.test", "http://B.test"}},
	}
	for _, tc := range tests {
		st, err := db.HostStats(ctx, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range st {
			got = append(got, h.Key)
			if (h.Key == "http://c.test") != (h.Errors != nil) {
				t.Errorf("HostStats: %s has errors %v", h.Key, h.Errors)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("HostStats(%d) = %v, want %v", tc.limit, got, tc.want)
		}
		if st[0].Status[5] != 1 || st[0].Errors["http 503"] != 1 {
			t.Errorf("HostStats(%d)[0] = %+v; want one 5xx answer of kind http 503", tc.limit, st[0])
		}
	}
}

// TestMigrateFromVersion1: a crawl written before the crawl-list columns
// existed is migrated in place, its rows reading as pages with no sitemap
// data, no inbound links and no outcomes.
func TestMigrateFromVersion1(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	v1, err := os.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	exec(t, dsn, schema, string(v1))
	exec(t, dsn, schema, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
		INSERT INTO schema_migrations (version) VALUES (1);
		INSERT INTO hosts (id, key, admitted, queued, fetched) VALUES (1, 'http://a.test', 1, 1, 2), (2, 'http://b.test', 2, 2, 0);
		INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at) VALUES (7, 'http://a.test/', 1, 0, 3, 0, 'seed', 1),
			(8, 'http://b.test/', 2, 0, 1, 0, 'seed', 1), (9, 'http://b.test/x', 2, 1, 8, 0, 'link', 1)`)
	from, to, err := postgres.Migrate(ctx, dsn, postgres.Options{Schema: schema})
	if err != nil || from != 1 || to != postgres.SchemaVersion() || to < 2 {
		t.Fatalf("Migrate = %d, %d, %v; want from 1 to %d", from, to, err, postgres.SchemaVersion())
	}
	db := open(t, dsn, schema)
	u, err := db.URL(ctx, 7)
	if err != nil || u.Kind != crawl.KindPage || !u.LastMod.IsZero() || u.ChangeFreq != "" || u.Inlinks != 0 || u.Priority != 3 {
		t.Errorf("URL after migration = %+v, %v", u, err)
	}
	st, err := db.HostStats(ctx, 1)
	if err != nil || len(st) != 1 || st[0].Fetched != 2 || st[0].Trap != "" || st[0].Errors != nil || st[0].Status != [6]int64{} {
		t.Errorf("HostStats after migration = %+v, %v", st, err)
	}
	// The hosts' best queued priorities were computed: b.test (8) first.
	hs, err := db.ClaimHosts(ctx, "p", 1, time.Minute, time.Unix(1_800_000_000, 0))
	if err != nil || len(hs) != 1 || hs[0].Key != "http://b.test" {
		t.Errorf("ClaimHosts after migration = %+v, %v; want b.test, whose best URL is better", hs, err)
	}
}
