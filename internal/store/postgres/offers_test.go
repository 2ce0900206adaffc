package postgres_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// dumpFrontier is what a frontier holds: its URLs (each with its place in
// its host's order), hosts and queued counter, one line each.
func dumpFrontier(t *testing.T, db *postgres.DB, dsn, schema string) string {
	t.Helper()
	var urls, hosts string
	if err := queryRow(t, dsn, schema, `SELECT
		(SELECT coalesce(string_agg(concat_ws(' ', id, url, host_id, depth, priority, state, via, parent_id, kind, lastmod,
			changefreq, k), E'\n' ORDER BY id), '')
			FROM (SELECT *, row_number() OVER (PARTITION BY host_id ORDER BY seq) AS k FROM urls) u),
		(SELECT coalesce(string_agg(concat_ws(' ', id, key, admitted, queued, top_priority), E'\n' ORDER BY id), '') FROM hosts)`,
		nil, &urls, &hosts); err != nil {
		t.Fatal(err)
	}
	c, err := db.Counters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\n%s\nqueued %d hosts %d\n", urls, hosts, c.Queued, c.Hosts)
}

func offerOf(raw string, depth, priority int) crawl.NewURL { return storetest.U(raw, depth, priority) }

// TestStagedOffersDecideAsAdds: offers staged and merged (some merges
// when the stage is large, the rest at the end) leave the frontier as the
// same offers added batch by batch: the same URLs admitted (known ones,
// those offered twice, over depth and over a host's cap refused), each
// host's in the same order, the same priorities, host counts and
// counters. Each batch is offered under one host cap or none: a host's
// offers in one stage share a cap (see StageURLs).
func TestStagedOffersDecideAsAdds(t *testing.T) {
	for _, apart := range []bool{false, true} {
		t.Run(fmt.Sprintf("apart=%v", apart), func(t *testing.T) {
			tunes := []postgres.Tune{postgres.StageThresholds(50, 1<<40)}
			if apart {
				// Every merge in three ranges, each a transaction of its own.
				tunes = append(tunes, postgres.MergeApart(1, 3))
			}
			dsnA, schemaA := freshSchema(t)
			dsnS, schemaS := freshSchema(t)
			added, staged := open(t, dsnA, schemaA, tunes...), open(t, dsnS, schemaS, tunes...)
			merges := storetest.OfferAsAdds(t, added, staged)
			if merges == 0 {
				t.Error("the stage was never merged before the end")
			}
			a, s := dumpFrontier(t, added, dsnA, schemaA), dumpFrontier(t, staged, dsnS, schemaS)
			if a != s {
				t.Errorf("staged offers left\n%s\nadded batch by batch\n%s", s, a)
			}
			if strings.Count(a, "\n") < 100 {
				t.Errorf("only %d rows: the test offers too little", strings.Count(a, "\n"))
			}
			checkShared(t, staged, dsnS, schemaS, false)
		})
	}
}

// TestHostRanges: the ranges of a merge in ranges cover every host ID
// once, in order, for any number of ranges.
func TestHostRanges(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7} {
		next := int64(math.MinInt64)
		for r := range n {
			lo, hi := postgres.HostRangeForTest(r, n)
			if lo != next || hi < lo {
				t.Errorf("%d ranges: range %d is %d..%d, want it to begin at %d", n, r, lo, hi, next)
			}
			next = hi + 1
			if r == n-1 && hi != math.MaxInt64 {
				t.Errorf("%d ranges: the last ends at %d", n, hi)
			}
		}
	}
}

// TestStagedOffersBeforeAdmissions: offers staged are decided before a
// later AddURLs or a Commit's discovered URLs of any handle (a host's cap
// admits the first offers), and a claim finding no host merges them.
func TestStagedOffersBeforeAdmissions(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	p1, p2 := open(t, dsn, schema), open(t, dsn, schema)
	capped := crawl.Limits{MaxPagesPerHost: 2}
	if _, err := p1.StageURLs(ctx, []crawl.NewURL{offerOf("http://a.test/1", 0, 0), offerOf("http://a.test/1", 0, 0)}, capped); err != nil {
		t.Fatal(err)
	}
	if st, err := p2.AddURLs(ctx, []crawl.NewURL{offerOf("http://a.test/1", 0, 0), offerOf("http://a.test/2", 0, 0)}, capped); err != nil || st.Added != 1 || st.Known != 1 {
		t.Fatalf("AddURLs after a staged offer = %+v, %v; want a.test/1 known, a.test/2 added", st, err)
	}
	hs, err := p1.ClaimHosts(ctx, "p1", 1, time.Minute, now)
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	cs, _, err := p1.ClaimURLs(ctx, "p1", hs[0].ID, 1, crawl.Limits{}, now)
	if err != nil || len(cs) != 1 || cs[0].URL != "http://a.test/1" {
		t.Fatalf("ClaimURLs = %v, %v; want the staged offer first", cs, err)
	}
	if _, err := p2.StageURLs(ctx, []crawl.NewURL{offerOf("http://b.test/1", 0, 0), offerOf("http://b.test/2", 0, 0)}, capped); err != nil {
		t.Fatal(err)
	}
	res := crawl.Result{URL: cs[0], Outcome: crawl.OutcomeDone, Page: &crawl.Page{URL: cs[0].URL, Status: 200, Bytes: 5},
		Discovered: []crawl.NewURL{offerOf("http://b.test/3", 1, 0), offerOf("http://b.test/1", 1, 0)}}
	st, err := p1.Commit(ctx, []crawl.Result{res}, capped)
	if err != nil || st.Add.Known != 1 || st.Add.OverHostCap != 1 || st.Add.Added != 0 {
		t.Fatalf("Commit after staged offers = %+v, %v; want b.test/1 known and b.test/3 over the cap", st.Add, err)
	}
	var staged int64
	if err := queryRow(t, dsn, schema, `SELECT count(*) FROM offers`, nil, &staged); err != nil || staged != 0 {
		t.Fatalf("%d offers staged after the merges (%v), want 0", staged, err)
	}
	checkShared(t, p1, dsn, schema, false)
}

// TestStagedHostKeys: a merge gives each new host the key its offers
// name, whichever offer of the stage names it: a host first offered with
// a URL that does not begin with its key (the key named) and then with
// one that does (an empty key, the URL's), in either order, and a host
// whose offers all leave the key to their URLs. Reads give back the
// whole URLs.
func TestStagedHostKeys(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	db := open(t, dsn, schema)
	elsewhere := func(raw, host string) crawl.NewURL {
		u := crawl.NewURL{URL: raw, Host: host, Via: crawl.ViaLink}
		u.ID, u.HostID = crawl.HashID(u.URL), crawl.HashID(u.Host)
		return u
	}
	batches := [][]crawl.NewURL{
		{elsewhere("http://a.test/named", "http://k.test"), offerOf("http://m.test/1", 0, 0)},
		{offerOf("http://k.test/own", 0, 0), offerOf("http://j.test/own", 0, 0), offerOf("http://m.test/2", 0, 0)},
		{elsewhere("http://a.test/named-later", "http://j.test")},
	}
	var all []crawl.NewURL
	for _, b := range batches {
		if _, err := db.StageURLs(ctx, b, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if n, err := db.MergeStaged(ctx); err != nil || n != len(all) {
		t.Fatalf("MergeStaged = %d, %v; want %d", n, err, len(all))
	}
	for _, host := range []string{"http://k.test", "http://j.test", "http://m.test"} {
		var key string
		if err := queryRow(t, dsn, schema, `SELECT key FROM hosts WHERE id = $1`, []any{int64(crawl.HashID(host))}, &key); err != nil || key != host {
			t.Errorf("host %s has key %q (%v)", host, key, err)
		}
	}
	for _, u := range all {
		if r, err := db.URL(ctx, u.ID); err != nil || r.URL != u.URL {
			t.Errorf("URL(%d) = %q, %v; want %q", u.ID, r.URL, err, u.URL)
		}
	}
}

// TestStagedOffersMergedWithoutRangeConnections: a large merge whose
// ranges cannot have connections of their own (the store's role may hold
// one connection, which its pool holds) decides them in its own
// transaction, as AddURLs would, and a role that does not own the tables
// empties the stage and starts its count again.
func TestStagedOffersMergedWithoutRangeConnections(t *testing.T) {
	dsn, schema := freshSchema(t)
	open(t, dsn, schema).Close() // the schema, migrated by the test's user
	role := schema + "_one"
	exec(t, dsn, schema, `DO $$ BEGIN CREATE ROLE `+role+` LOGIN CONNECTION LIMIT 1;
		EXCEPTION WHEN insufficient_privilege THEN NULL; END $$`)
	var ok bool
	if err := queryRow(t, dsn, schema, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1 AND NOT rolsuper)`, []any{role}, &ok); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("the test's user cannot create a role")
	}
	t.Cleanup(func() {
		exec(t, dsn, schema, `DROP OWNED BY `+role)
		exec(t, dsn, schema, `DROP ROLE `+role)
	})
	exec(t, dsn, schema, `GRANT ALL ON SCHEMA `+schema+` TO `+role+`;
		GRANT ALL ON ALL TABLES IN SCHEMA `+schema+` TO `+role+`;
		GRANT ALL ON ALL SEQUENCES IN SCHEMA `+schema+` TO `+role)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	ctx := context.Background()
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	db, err := postgres.Open(ctx, u.String(), postgres.Tuned(postgres.Options{Schema: schema, MaxConns: 1, Log: log}, postgres.MergeApart(1, 2)))
	if err != nil {
		t.Fatalf("Open as %s: %v", role, err)
	}
	defer db.Close()
	var offers []crawl.NewURL
	for i := range 40 {
		offers = append(offers, offerOf(fmt.Sprintf("http://h%d.test/p%d", i%7, i), 0, i%3))
	}
	if _, err := db.StageURLs(ctx, offers, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.MergeStaged(ctx); err != nil || n != len(offers) {
		t.Fatalf("MergeStaged = %d, %v; want %d", n, err, len(offers))
	}
	// The merge asked for a connection for each range, was refused, and
	// said so.
	for _, want := range []string{`level=INFO msg="postgres: staged URLs merged in one transaction: the server refused`,
		`level=DEBUG msg="postgres: staged URLs merged" offers=40 added=40 ranges_apart=0`} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the merge logged\n%s\nwithout %q", logged.String(), want)
		}
	}
	var staged, stored int64
	if err := queryRow(t, dsn, schema, `SELECT (SELECT count(*) FROM offers), (SELECT count(*) FROM urls)`, nil, &staged, &stored); err != nil ||
		staged != 0 || stored != int64(len(offers)) {
		t.Fatalf("%d offers staged and %d URLs stored after the merge (%v), want 0 and %d", staged, stored, err, len(offers))
	}
	// The stage's count starts again (the role does not own the sequence).
	var called bool
	if err := queryRow(t, dsn, schema, `SELECT is_called FROM offers_ord_seq`, nil, &called); err != nil || called {
		t.Errorf("offers_ord_seq is_called = %v (%v) after the merge, want it started again", called, err)
	}
}

// TestStagedOffersConcurrent: processes staging, merging and adding at
// once, with the same URLs offered by several, admit each URL once and
// lose none: each host ends with as many URLs as it was offered, up to
// its cap, and the counters agree with the rows.
func TestStagedOffersConcurrent(t *testing.T) {
	// Merges of 100 offers or more in ranges apart.
	tunes := []postgres.Tune{postgres.StageThresholds(200, 1<<40), postgres.MergeApart(100, 2)}
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	const hosts, paths, cap = 40, 60, 50
	lim := crawl.Limits{MaxPagesPerHost: cap}
	var logged strings.Builder // one handler for the three: it writes a record at a time
	log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	procs := make([]*postgres.DB, 3)
	for i := range procs {
		db, err := postgres.Open(ctx, dsn, postgres.Tuned(postgres.Options{Schema: schema, MaxConns: 4, Log: log}, tunes...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		procs[i] = db
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 6 {
		db := procs[w%len(procs)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range 40 {
				batch := make([]crawl.NewURL, 50)
				for j := range batch {
					batch[j] = offerOf(fmt.Sprintf("http://h%d.test/p%d", rng.IntN(hosts), rng.IntN(paths)), 0, rng.IntN(3))
				}
				var err error
				switch {
				case w == 0 && i%10 == 9:
					_, err = db.AddURLs(ctx, batch, lim)
				case w == 1 && i%8 == 7:
					_, err = db.MergeStaged(ctx)
				default:
					_, err = db.StageURLs(ctx, batch, lim)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := procs[2].MergeStaged(ctx); err != nil {
		t.Fatal(err)
	}
	// Every offer was of one of hosts×paths URLs; with 12,000 offers each
	// was made, and each host keeps its first cap.
	var bad, urls int64
	if err := queryRow(t, dsn, schema, `SELECT (SELECT count(*) FROM hosts WHERE admitted <> $1), (SELECT count(*) FROM urls)`,
		[]any{int64(cap)}, &bad, &urls); err != nil {
		t.Fatal(err)
	}
	if bad != 0 || urls != hosts*cap {
		t.Errorf("%d URLs, %d hosts without %d admitted; want %d URLs", urls, bad, cap, hosts*cap)
	}
	checkShared(t, procs[0], dsn, schema, false)
	if !strings.Contains(logged.String(), " ranges_apart=2") {
		t.Errorf("no merge in two ranges apart; the merges logged\n%s", logged.String())
	}
}
