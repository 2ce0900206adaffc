package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

func testDSN(tb testing.TB) string { return pgtest.DSN(tb) }

func freshSchema(tb testing.TB) (dsn, schema string) { return pgtest.Schema(tb) }

// schemaConn is a connection outside the store whose search path is
// schema; the caller closes it.
func schemaConn(tb testing.TB, dsn, schema string) *pgx.Conn {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SET search_path TO `+schema); err != nil {
		conn.Close(ctx)
		tb.Fatal(err)
	}
	return conn
}

// exec runs one statement in schema outside the store.
func exec(t testing.TB, dsn, schema, sql string, args ...any) {
	t.Helper()
	conn := schemaConn(t, dsn, schema)
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// queryInt runs one query of one number in schema outside the store.
func queryInt(t testing.TB, dsn, schema, sql string, args ...any) int64 {
	t.Helper()
	conn := schemaConn(t, dsn, schema)
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// open opens the store in schema, its sizes changed by tunes.
func open(t testing.TB, dsn, schema string, tunes ...postgres.Tune) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn, postgres.Tuned(postgres.Options{Schema: schema, MaxConns: 4}, tunes...))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestConformance(t *testing.T) {
	testDSN(t)
	t.Parallel() // beside TestConformancePageChunks
	storetest.Run(t, func(t *testing.T) func() (crawl.Store, error) {
		dsn, schema := freshSchema(t)
		return func() (crawl.Store, error) {
			return postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema})
		}
	})
}

// TestConformancePageChunks runs the page, search and recrawl checks with
// a commit's pages written a statement each (pageChunkBytes), as a commit
// of many large pages writes them: in several round trips of one
// transaction. A statement trigger on pages notes each insert's
// transaction, so that the test fails if no transaction wrote pages in
// more than one statement.
func TestConformancePageChunks(t *testing.T) {
	testDSN(t)
	t.Parallel()
	var split atomic.Int64 // transactions that inserted pages in several statements
	t.Cleanup(func() {
		if split.Load() == 0 {
			t.Error("no transaction of the suite wrote its pages in more than one statement")
		}
	})
	factory := func(t *testing.T) func() (crawl.Store, error) {
		dsn, schema := freshSchema(t)
		t.Cleanup(func() { split.Add(splitPageInserts(t, dsn, schema)) })
		return func() (crawl.Store, error) {
			db, err := postgres.Open(context.Background(), dsn, postgres.Tuned(postgres.Options{Schema: schema}, postgres.PageChunkBytes(1)))
			if err == nil {
				exec(t, dsn, schema, `CREATE TABLE IF NOT EXISTS page_inserts (xid bigint NOT NULL);
					CREATE OR REPLACE FUNCTION page_insert() RETURNS trigger LANGUAGE plpgsql AS
						$$ BEGIN INSERT INTO page_inserts VALUES (txid_current()); RETURN NULL; END $$;
					CREATE OR REPLACE TRIGGER page_inserts AFTER INSERT ON pages
						FOR EACH STATEMENT EXECUTE FUNCTION page_insert()`)
			}
			return db, err
		}
	}
	storetest.RunPages(t, factory)
	storetest.RunSearch(t, factory)
	storetest.RunRecrawl(t, factory)
}

// splitPageInserts returns how many transactions inserted rows of pages in
// schema in more than one statement, as the trigger of
// TestConformancePageChunks noted them (0 if no store was opened there).
func splitPageInserts(t *testing.T, dsn, schema string) int64 {
	t.Helper()
	var watched bool
	if err := queryRow(t, dsn, schema, `SELECT to_regclass('page_inserts') IS NOT NULL`, nil, &watched); err != nil || !watched {
		return 0
	}
	var n int64
	if err := queryRow(t, dsn, schema, `SELECT count(*) FROM (SELECT 1 FROM page_inserts GROUP BY xid HAVING count(*) > 1) AS x`,
		nil, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestNearDistance(t *testing.T) {
	testDSN(t)
	storetest.RunNearDistance(t, func(t *testing.T, near int) crawl.Store {
		dsn, schema := freshSchema(t)
		db, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, NearDistance: near})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
	dsn, schema := freshSchema(t)
	if _, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, NearDistance: 4}); err == nil {
		t.Error("Open with near-duplicate distance 4 succeeded; the band index cannot find such pairs")
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	// Several processes starting at once: the advisory lock lets one migrate.
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 1})
			if err != nil {
				errs <- err
				return
			}
			db.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Open: %v", err)
	}
	db := open(t, dsn, schema)
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	from, to, err := postgres.Migrate(ctx, dsn, postgres.Options{Schema: schema})
	if err != nil || from != postgres.SchemaVersion() || to != postgres.SchemaVersion() {
		t.Fatalf("Migrate of a current database = %d, %d, %v; want %d, %d, nil", from, to, err, postgres.SchemaVersion(), postgres.SchemaVersion())
	}
	db2 := open(t, dsn, schema)
	if c, err := db2.Counters(ctx); err != nil || c.Queued != 1 {
		t.Fatalf("Counters after reopening = %+v, %v; want the URL kept", c, err)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dsn, schema := freshSchema(t)
	open(t, dsn, schema).Close()
	newer := postgres.SchemaVersion() + 1
	exec(t, dsn, schema, `INSERT INTO schema_migrations (version) VALUES ($1)`, newer)
	for _, ro := range []bool{false, true} {
		t.Run("ReadOnly="+strconv.FormatBool(ro), func(t *testing.T) {
			_, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, ReadOnly: ro})
			if !errors.Is(err, crawl.ErrSchemaTooNew) {
				t.Fatalf("Open of a newer schema: err = %v, want ErrSchemaTooNew", err)
			}
			for _, v := range []int{newer, postgres.SchemaVersion()} {
				if !strings.Contains(err.Error(), strconv.Itoa(v)) {
					t.Errorf("error %q does not name version %d", err, v)
				}
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	if _, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, ReadOnly: true}); err == nil {
		t.Fatal("read-only Open of an empty schema succeeded")
	}
	db := open(t, dsn, schema)
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	ro, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open: %v", err)
	}
	defer ro.Close()
	if c, err := ro.Counters(ctx); err != nil || c.Queued != 1 {
		t.Errorf("read-only Counters = %+v, %v", c, err)
	}
	if _, err := ro.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/x", 0, 0)}, crawl.Limits{}); err == nil {
		t.Error("AddURLs on a read-only store succeeded")
	}
	if err := ro.SaveRobots(ctx, crawl.HashID("http://a.test"), crawl.RobotsRecord{Status: 200}, crawl.HostUpdate{}); err == nil {
		t.Error("SaveRobots on a read-only store succeeded")
	}
}

func TestConnectErrorsHidePassword(t *testing.T) {
	const secret = "s3cretPassw0rd"
	tests := []struct {
		dsn  string
		want string // the message must name this
	}{
		{"postgres://postgres:" + secret + "@127.0.0.1:1/test?sslmode=disable&connect_timeout=5", "127.0.0.1:1"},
		{"host=127.0.0.1 port=1 user=postgres password=" + secret + " dbname=test sslmode=disable connect_timeout=5", "127.0.0.1:1"},
		{"postgres://postgres:" + secret + "@127.0.0.1:notaport/test", "DSN"},
		{"postgres://postgres@127.0.0.1:1/test?password=" + secret + "&sslmode=bogus", "DSN"},
	}
	for _, tc := range tests {
		t.Run(strings.ReplaceAll(tc.dsn, secret, "SECRET"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			db, err := postgres.Open(ctx, tc.dsn, postgres.Options{})
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("Open error %q shows the password", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open error %q does not name %q", err, tc.want)
			}
			if _, _, err := postgres.Migrate(ctx, tc.dsn, postgres.Options{}); err == nil || strings.Contains(err.Error(), secret) {
				t.Errorf("Migrate error = %v, want an error without the password", err)
			}
		})
	}
}

// TestProcessesShareOneCrawl runs four owners, each with its own pool as if
// in its own process, over one frontier with a page budget.
func TestProcessesShareOneCrawl(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	const hosts, perHost, budget, hostCap = 50, 20, 500, 25
	lim := crawl.Limits{MaxPages: budget, MaxPagesPerHost: hostCap}
	var urls []crawl.NewURL
	for h := range hosts {
		for i := range perHost {
			urls = append(urls, storetest.U(fmt.Sprintf("http://h%02d.test/%d", h, i), 0, i%3))
		}
	}
	seed := open(t, dsn, schema)
	if st, err := seed.AddURLs(ctx, urls, lim); err != nil || st.Added != hosts*perHost {
		t.Fatalf("AddURLs = %+v, %v", st, err)
	}
	now := time.Unix(1_800_000_000, 0)

	var mu sync.Mutex
	leasedBy := map[crawl.ID]string{} // hosts leased now
	claimedBy := map[crawl.ID]string{}
	var problems []string
	fail := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var refused atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		db := open(t, dsn, schema)
		wg.Go(func() {
			owner := fmt.Sprintf("proc%d", w)
			for range 500 {
				hs, err := db.ClaimHosts(ctx, owner, 3, time.Minute, now)
				if err != nil {
					fail("%s ClaimHosts: %v", owner, err)
					return
				}
				mu.Lock()
				for _, h := range hs {
					if prev, ok := leasedBy[h.ID]; ok {
						problems = append(problems, fmt.Sprintf("host %s leased by %s and %s at once", h.Key, prev, owner))
					}
					leasedBy[h.ID] = owner
				}
				mu.Unlock()
				spent := false
				var rel []crawl.HostRelease
				for _, h := range hs {
					cs, _, err := db.ClaimURLs(ctx, owner, h.ID, 4, lim, now)
					if errors.Is(err, crawl.ErrPageBudget) {
						spent = true
					} else if err != nil {
						fail("%s ClaimURLs: %v", owner, err)
						return
					}
					var rs []crawl.Result
					mu.Lock()
					for _, c := range cs {
						if prev, ok := claimedBy[c.ID]; ok {
							problems = append(problems, fmt.Sprintf("URL %s claimed by %s and %s", c.URL, prev, owner))
						}
						claimedBy[c.ID] = owner
					}
					mu.Unlock()
					for k, c := range cs {
						// Links to hosts other owners work on, so that commits
						// lock overlapping sets of hosts, under the host cap.
						var found []crawl.NewURL
						for j := range 3 {
							found = append(found, storetest.U(fmt.Sprintf("http://h%02d.test/from/%d/%d", (w*7+k+j*13)%hosts, c.ID%97, j), 1, 0))
						}
						rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Discovered: found,
							Page: &crawl.Page{URL: c.URL, Status: 200, Text: "page " + c.URL, Bytes: 10},
							Host: crawl.HostUpdate{NextFetchAt: now.Add(time.Millisecond)}})
					}
					st, err := db.Commit(ctx, rs, lim)
					if err != nil || st.Stale != 0 {
						fail("%s Commit = %+v, %v", owner, st, err)
						return
					}
					refused.Add(int64(st.Add.OverHostCap))
					rel = append(rel, crawl.HostRelease{ID: h.ID})
				}
				mu.Lock()
				for _, r := range rel {
					delete(leasedBy, r.ID) // before the release: after it another owner may lease it
				}
				mu.Unlock()
				if err := db.ReleaseHosts(ctx, owner, rel); err != nil {
					fail("%s ReleaseHosts: %v", owner, err)
					return
				}
				if spent {
					return
				}
			}
			fail("%s never saw the page budget spent", owner)
		})
	}
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	c, err := seed.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Done != budget || c.Reserved != budget || c.Pages != budget || len(claimedBy) != budget {
		t.Errorf("done %d, reserved %d, pages %d, distinct URLs claimed %d; want %d each", c.Done, c.Reserved, c.Pages, len(claimedBy), budget)
	}
	var admitted, stored, overCap, nhosts int64
	q := `SELECT coalesce(sum(admitted), 0)::bigint, (SELECT count(*) FROM urls),
		count(*) FILTER (WHERE admitted > $1 OR admitted <> (SELECT count(*) FROM urls WHERE host_id = hosts.id)),
		count(*) FROM hosts`
	if err := queryRow(t, dsn, schema, q, []any{hostCap}, &admitted, &stored, &overCap, &nhosts); err != nil {
		t.Fatal(err)
	}
	if c.Hosts != nhosts {
		t.Errorf("hosts counter = %d, want %d", c.Hosts, nhosts)
	}
	if refused.Load() == 0 {
		t.Error("no discovered URL was refused at the host cap: the test does not exercise it")
	}
	if overCap != 0 || admitted != stored || stored <= hosts*perHost {
		t.Errorf("%d hosts over the cap of %d or out of step; admitted %d, stored %d URLs", overCap, hostCap, admitted, stored)
	}
	if sum := c.Queued + c.InFlight + c.Done; sum != stored || c.InFlight != 0 {
		t.Errorf("counters %+v do not add up to %d admitted", c, stored)
	}
}

// queryRow runs one query in schema outside the store.
func queryRow(t *testing.T, dsn, schema, sql string, args []any, dest ...any) error {
	t.Helper()
	conn := schemaConn(t, dsn, schema)
	defer conn.Close(context.Background())
	return conn.QueryRow(context.Background(), sql, args...).Scan(dest...)
}

// TestRestartedOwnerTakesBackItsHosts: a process that stopped uncleanly and
// comes back under the same owner name gets its hosts back at once, with
// the URLs it had in flight queued again, as SQLite's recovery does.
func TestRestartedOwnerTakesBackItsHosts(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	before := open(t, dsn, schema)
	if _, err := before.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, err := before.ClaimHosts(ctx, "p", 1, time.Hour, now)
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	if cs, _, err := before.ClaimURLs(ctx, "p", hs[0].ID, 1, crawl.Limits{}, now); err != nil || len(cs) != 1 {
		t.Fatalf("ClaimURLs = %v, %v", cs, err)
	}
	after := open(t, dsn, schema)
	if got, err := after.ClaimHosts(ctx, "q", 1, time.Hour, now); err != nil || len(got) != 0 {
		t.Fatalf("another owner claimed %v, %v; want nothing while the lease lives", got, err)
	}
	got, err := after.ClaimHosts(ctx, "p", 1, time.Hour, now)
	if err != nil || len(got) != 1 || got[0].ID != hs[0].ID {
		t.Fatalf("restarted owner claimed %v, %v; want its host back", got, err)
	}
	cs, _, err := after.ClaimURLs(ctx, "p", hs[0].ID, 10, crawl.Limits{}, now)
	if err != nil || len(cs) != 2 {
		t.Fatalf("restarted owner claimed %d URLs (%v), want 2: the one left in flight and the queued one", len(cs), err)
	}
	// The old handle lost the lease.
	if lost, err := before.RenewHosts(ctx, "p", []crawl.ID{hs[0].ID}, time.Hour, now); err != nil || len(lost) != 1 {
		t.Errorf("old handle RenewHosts = %v, %v; want the host lost", lost, err)
	}
	if _, _, err := before.ClaimURLs(ctx, "p", hs[0].ID, 10, crawl.Limits{}, now); !errors.Is(err, crawl.ErrLeaseLost) {
		t.Errorf("old handle ClaimURLs err = %v, want ErrLeaseLost", err)
	}
	if c, err := after.Counters(ctx); err != nil || c.InFlight != 2 || c.Queued != 0 || c.Reserved != 2 {
		t.Errorf("Counters = %+v, %v; want 2 in flight, 2 reserved", c, err)
	}
}

// TestTextIsStorable: PostgreSQL TEXT refuses NUL bytes and invalid UTF-8,
// which a broken page can carry; the store cleans them instead of failing
// the whole batch.
func TestTextIsStorable(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, _ := db.ClaimHosts(ctx, "p", 1, time.Minute, now)
	cs, _, err := db.ClaimURLs(ctx, "p", hs[0].ID, 1, crawl.Limits{}, now)
	if err != nil || len(cs) != 1 {
		t.Fatal(cs, err)
	}
	r := crawl.Result{URL: cs[0], Outcome: crawl.OutcomeDone,
		Page: &crawl.Page{URL: cs[0].URL, Status: 200, Title: "a\x00b", Text: "caf\xe9 ok", FetchedAt: now,
			Meta: &crawl.Metadata{Title: "a\x00b", Authors: []string{"caf\xe9", `back\slash \u0000`}}},
		Links: []crawl.Link{{TargetID: crawl.URLID("http://b.test/"), Target: "http://b.test/", Anchor: "\xff\x00"}}}
	if _, err := db.Commit(ctx, []crawl.Result{r}, crawl.Limits{}); err != nil {
		t.Fatalf("Commit of a page with NUL and invalid UTF-8: %v", err)
	}
	p, err := db.Page(ctx, cs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "ab" || p.Text != "caf\uFFFD ok" {
		t.Errorf("Page title %q text %q, want %q and %q", p.Title, p.Text, "ab", "caf\uFFFD ok")
	}
	if m := p.Meta; m == nil || m.Title != "ab" || len(m.Authors) != 2 || m.Authors[0] != "caf\uFFFD" || m.Authors[1] != `back\slash \u0000` {
		t.Errorf("Page metadata %+v, want the title and authors cleaned the same way", m)
	}
}

// TestOrphanedURLsReturn: a process that released a host and died before
// committing the URLs it had in flight there leaves them in flight on an
// unleased host; once they are older than a lease they return to the queue.
func TestOrphanedURLsReturn(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, err := db.ClaimHosts(ctx, "p", 1, time.Minute, now)
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	cs, _, err := db.ClaimURLs(ctx, "p", hs[0].ID, 10, crawl.Limits{}, now)
	if err != nil || len(cs) != 2 {
		t.Fatalf("ClaimURLs = %v, %v", cs, err)
	}
	if err := db.ReleaseHosts(ctx, "p", []crawl.HostRelease{{ID: hs[0].ID}}); err != nil {
		t.Fatal(err)
	}
	// The commit may still be on its way: nothing happens yet.
	if got, err := db.ClaimHosts(ctx, "q", 10, time.Minute, now.Add(30*time.Second)); err != nil || len(got) != 0 {
		t.Fatalf("ClaimHosts soon after the release = %v, %v; want nothing", got, err)
	}
	later := now.Add(2 * time.Minute)
	got, err := db.ClaimHosts(ctx, "q", 10, time.Minute, later)
	if err != nil || len(got) != 1 || got[0].ID != hs[0].ID {
		t.Fatalf("ClaimHosts a lease after the release = %v, %v; want the orphans' host", got, err)
	}
	again, _, err := db.ClaimURLs(ctx, "q", hs[0].ID, 10, crawl.Limits{}, later)
	if err != nil || len(again) != 2 || again[0].Attempts != 0 {
		t.Fatalf("ClaimURLs = %+v, %v; want both URLs back, with no attempt counted", again, err)
	}
	if c, err := db.Counters(ctx); err != nil || c.InFlight != 2 || c.Queued != 0 || c.Reserved != 2 {
		t.Errorf("Counters = %+v, %v; want 2 in flight, 2 reserved", c, err)
	}
}

// TestReleasedURLsWaitForTheirCommit: URLs claimed long ago and still in
// flight when their host is given up are the releaser's to commit (the
// committer batches results) for a lease after the release, not a lease
// after their claim: a host claimed again meanwhile, for URLs queued
// since, leaves them in flight.
func TestReleasedURLsWaitForTheirCommit(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, err := db.ClaimHosts(ctx, "p", 1, time.Minute, now)
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	if cs, _, err := db.ClaimURLs(ctx, "p", hs[0].ID, 10, crawl.Limits{}, now); err != nil || len(cs) != 2 {
		t.Fatalf("ClaimURLs = %v, %v", cs, err)
	}
	// The URLs took 90 s to fetch (a slow host); then the host is given up
	// and a URL of it is discovered.
	released := now.Add(90 * time.Second)
	if err := db.ReleaseHosts(ctx, "p", []crawl.HostRelease{{ID: hs[0].ID, At: released}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/3", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	soon := released.Add(30 * time.Second)
	if got, err := db.ClaimHosts(ctx, "q", 10, time.Minute, soon); err != nil || len(got) != 1 {
		t.Fatalf("ClaimHosts = %v, %v; want the host, for its new URL", got, err)
	}
	cs, _, err := db.ClaimURLs(ctx, "q", hs[0].ID, 10, crawl.Limits{}, soon)
	if err != nil || len(cs) != 1 || cs[0].URL != "http://a.test/3" {
		t.Fatalf("ClaimURLs = %+v, %v; want only the new URL, the released ones still in flight", cs, err)
	}
	if err := db.ReleaseHosts(ctx, "q", []crawl.HostRelease{{ID: hs[0].ID, At: soon}}); err != nil {
		t.Fatal(err)
	}
	// A lease after both releases, the releasers are taken for dead.
	later := soon.Add(2 * time.Minute)
	if got, err := db.ClaimHosts(ctx, "r", 10, time.Minute, later); err != nil || len(got) != 1 {
		t.Fatalf("ClaimHosts a lease after the releases = %v, %v; want the orphans' host", got, err)
	}
	again, _, err := db.ClaimURLs(ctx, "r", hs[0].ID, 10, crawl.Limits{}, later)
	if err != nil || len(again) != 3 {
		t.Fatalf("ClaimURLs = %+v, %v; want the three URLs back", again, err)
	}
}

// TestURLIDMigration: a database whose URL IDs were the URLs' whole hashes
// answers to crawl.URLID after migration 0007.
func TestURLIDMigration(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	db := open(t, dsn, schema)
	for _, s := range storetest.OldURLIDRows() {
		exec(t, dsn, schema, s)
	}
	if _, err := db.RebuildIndex(ctx); err != nil { // the search column, as the old store wrote it
		t.Fatal(err)
	}
	db.Close()
	exec(t, dsn, schema, `DELETE FROM schema_migrations WHERE version >= 7`)
	storetest.CheckURLIDMigration(t, open(t, dsn, schema))
}

// An older schema opened read-only asks for a migration by name.
func TestOlderSchemaNeedsMigration(t *testing.T) {
	dsn, schema := freshSchema(t)
	open(t, dsn, schema).Close()
	exec(t, dsn, schema, `DELETE FROM schema_migrations WHERE version = $1`, postgres.SchemaVersion())
	ctx := context.Background()
	_, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, ReadOnly: true})
	if !errors.Is(err, crawl.ErrNeedsMigration) || !strings.Contains(err.Error(), "acrawler migrate") {
		t.Fatalf("read-only Open of an older schema: err = %v, want ErrNeedsMigration naming acrawler migrate", err)
	}
	exec(t, dsn, schema, `INSERT INTO schema_migrations (version) VALUES ($1)`, postgres.SchemaVersion())
	ro, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open of the current schema: %v", err)
	}
	ro.Close()
}

// A schema that holds another program's tables is refused before anything
// is created in it, read-only or not.
func TestForeignSchemaIsRefused(t *testing.T) {
	dsn, schema := freshSchema(t)
	exec(t, dsn, schema, `CREATE TABLE orders (id int)`)
	exec(t, dsn, schema, `CREATE TABLE users (id int)`)
	ctx := context.Background()
	for _, ro := range []bool{false, true} {
		_, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, ReadOnly: ro})
		if !errors.Is(err, crawl.ErrForeign) || !strings.Contains(err.Error(), "orders, users") {
			t.Fatalf("Open(ReadOnly=%v) of a foreign schema: err = %v, want ErrForeign naming its tables", ro, err)
		}
	}
	if _, _, err := postgres.Migrate(ctx, dsn, postgres.Options{Schema: schema}); !errors.Is(err, crawl.ErrForeign) {
		t.Fatalf("Migrate of a foreign schema: err = %v, want ErrForeign", err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relnamespace = to_regnamespace($1) AND relkind IN ('r', 'p', 'v', 'S')`, schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("the foreign schema holds %d relations after the refused opens, want its 2 tables", n)
	}
}

// TestSchemaOfTheDSNCreated: a schema named first in the DSN's
// search_path that does not exist yet is created by the first open for
// writing, and the crawl's tables are made in it, as with Options.Schema.
func TestSchemaOfTheDSNCreated(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	var b [6]byte
	rand.Read(b[:])
	schema := "acrawler_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() { exec(t, dsn, "public", `DROP SCHEMA IF EXISTS `+schema+` CASCADE`) })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", strings.ToUpper(schema)+", public") // unquoted: folded
	u.RawQuery = q.Encode()
	db, err := postgres.Open(ctx, u.String(), postgres.Options{MaxConns: 2})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	db.Close()
	var tables int
	if err := queryRow(t, dsn, "public", `SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename IN ('urls', 'pages')`,
		[]any{schema}, &tables); err != nil || tables != 2 {
		t.Errorf("%d of the crawl's tables in schema %s (%v), want 2", tables, schema, err)
	}
}
