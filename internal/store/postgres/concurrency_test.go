package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// checkShared asserts what processes sharing one crawl rely on: every
// counter equals what the rows say, every host's queued and admitted
// counts equal its URLs, and no host row exists without a URL. When
// reservedIsClaimed, the reserved count is the URLs claimed and not handed
// back: those in flight, done or failed.
func checkShared(t *testing.T, s crawl.Store, dsn, schema string, reservedIsClaimed bool) crawl.Counters {
	t.Helper()
	c, err := s.Counters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var w crawl.Counters
	var badQueued, badAdmitted, empty int64
	err = queryRow(t, dsn, schema, `SELECT
		count(*) FILTER (WHERE state = 0), count(*) FILTER (WHERE state = 1), count(*) FILTER (WHERE state = 2),
		count(*) FILTER (WHERE state = 3), count(*) FILTER (WHERE state = 4), count(*) FILTER (WHERE state = 5),
		(SELECT count(*) FROM hosts), (SELECT count(*) FROM pages), (SELECT count(*) FROM links),
		(SELECT coalesce(sum(bytes), 0)::bigint FROM hosts),
		(SELECT count(*) FROM hosts h WHERE h.queued <> (SELECT count(*) FROM urls u WHERE u.host_id = h.id AND u.state = 0)),
		(SELECT count(*) FROM hosts h WHERE h.admitted <> (SELECT count(*) FROM urls u WHERE u.host_id = h.id)),
		(SELECT count(*) FROM hosts h WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.host_id = h.id))
		FROM urls`, nil, &w.Queued, &w.InFlight, &w.Done, &w.Failed, &w.Disallowed, &w.Skipped,
		&w.Hosts, &w.Pages, &w.Links, &w.Bytes, &badQueued, &badAdmitted, &empty)
	if err != nil {
		t.Fatal(err)
	}
	w.Duplicates = c.Duplicates // counted per fetch, not per row
	w.Reserved = c.Reserved
	if reservedIsClaimed {
		w.Reserved = w.InFlight + w.Done + w.Failed
	}
	if c != w {
		t.Errorf("counters %+v\nrows say %+v", c, w)
	}
	if badQueued != 0 || badAdmitted != 0 || empty != 0 {
		t.Errorf("%d hosts with a queued count and %d with an admitted count out of step with their URLs; %d hosts without a URL",
			badQueued, badAdmitted, empty)
	}
	return c
}

// claimOne adds u to an empty store and claims it, its host leased by
// owner for a minute at now.
func claimOne(t *testing.T, db *postgres.DB, u, owner string, now time.Time) []crawl.ClaimedURL {
	t.Helper()
	ctx := context.Background()
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U(u, 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, err := db.ClaimHosts(ctx, owner, 1, time.Minute, now)
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	cs, _, err := db.ClaimURLs(ctx, owner, hs[0].ID, 1, crawl.Limits{}, now)
	if err != nil || len(cs) != 1 {
		t.Fatalf("ClaimURLs = %v, %v", cs, err)
	}
	return cs
}

// TestStaleResultAddsNoHost: a result whose lease was lost (its host taken
// over, its URL back in the queue) records nothing, not even the hosts of
// the URLs it discovered: a commit inserts the hosts of every offer before
// it learns which of its results are stale.
func TestStaleResultAddsNoHost(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	cs := claimOne(t, db, "http://a.test/1", "p1", now)
	host := cs[0].HostID
	later := now.Add(2 * time.Minute)
	if got, err := db.ClaimHosts(ctx, "p2", 1, time.Minute, later); err != nil || len(got) != 1 {
		t.Fatalf("p2 took over %v, %v; want p1's expired host", got, err)
	}
	result := func(c crawl.ClaimedURL) crawl.Result {
		return crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: &crawl.Page{URL: c.URL, Status: 200, Bytes: 5},
			Discovered: []crawl.NewURL{storetest.U("http://new.test/x", 1, 0), storetest.U("http://a.test/2", 1, 0)}}
	}
	st, err := db.Commit(ctx, []crawl.Result{result(cs[0])}, crawl.Limits{})
	if err != nil || st.Stale != 1 || st.Add.Added != 0 {
		t.Fatalf("late commit = %+v, %v; want it stale", st, err)
	}
	if c := checkShared(t, db, dsn, schema, true); c.Hosts != 1 {
		t.Errorf("hosts = %d after a stale result, want 1", c.Hosts)
	}
	// The same discoveries from a live result create the host.
	cs, _, err = db.ClaimURLs(ctx, "p2", host, 1, crawl.Limits{}, later)
	if err != nil || len(cs) != 1 {
		t.Fatalf("p2 ClaimURLs = %v, %v", cs, err)
	}
	st, err = db.Commit(ctx, []crawl.Result{result(cs[0])}, crawl.Limits{})
	if err != nil || st.Stale != 0 || st.Add.Added != 2 {
		t.Fatalf("live commit = %+v, %v; want 2 URLs added", st, err)
	}
	if c := checkShared(t, db, dsn, schema, true); c.Hosts != 2 {
		t.Errorf("hosts = %d, want 2", c.Hosts)
	}
}

// TestResultOfAnEarlierClaimIsStale: a URL claimed, its host let go with
// the URL still in flight (a claim given back under a page budget, its
// result not yet committed), taken as an orphan by another process and
// claimed again: the first claim's late result must not apply to the new
// claim (it would send the URL back to the queue, to be fetched twice).
func TestResultOfAnEarlierClaimIsStale(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	old := claimOne(t, db, "http://a.test/1", "p1", now)
	host := old[0].HostID
	if err := db.ReleaseHosts(ctx, "p1", []crawl.HostRelease{{ID: host}}); err != nil {
		t.Fatal(err)
	}
	later := now.Add(2 * time.Minute)
	if got, err := db.ClaimHosts(ctx, "p2", 1, time.Minute, later); err != nil || len(got) != 1 {
		t.Fatalf("p2 ClaimHosts = %v, %v; want the orphan's host", got, err)
	}
	cur, _, err := db.ClaimURLs(ctx, "p2", host, 1, crawl.Limits{}, later)
	if err != nil || len(cur) != 1 || cur[0].ID != old[0].ID {
		t.Fatalf("p2 ClaimURLs = %v, %v; want the orphaned URL", cur, err)
	}
	st, err := db.Commit(ctx, []crawl.Result{{URL: old[0], Outcome: crawl.OutcomeRelease}}, crawl.Limits{})
	if err != nil || st.Stale != 1 {
		t.Fatalf("the earlier claim's release = %+v, %v; want it stale", st, err)
	}
	st, err = db.Commit(ctx, []crawl.Result{{URL: cur[0], Outcome: crawl.OutcomeDone,
		Page: &crawl.Page{URL: cur[0].URL, Status: 200, Bytes: 5}}}, crawl.Limits{})
	if err != nil || st.Stale != 0 || st.Pages != 1 {
		t.Fatalf("the current claim's result = %+v, %v; want its page recorded", st, err)
	}
	if c := checkShared(t, db, dsn, schema, true); c.Queued != 0 || c.InFlight != 0 {
		t.Errorf("counters = %+v, want nothing queued or in flight", c)
	}
}

// lockProbe opens stores whose connections carry a name, so that a test
// can see from pg_stat_activity when a store's transaction waits for a
// lock, and a deadlock_timeout of an hour: a deadlock between them is not
// broken by PostgreSQL (and retried by the store, at the cost of a second)
// but hangs until the test's context ends, and so shows.
type lockProbe struct {
	t           *testing.T
	dsn, schema string
}

func newLockProbe(t *testing.T) *lockProbe {
	dsn, schema := freshSchema(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Skip("ACRAWLER_TEST_POSTGRES is not a URL: cannot name the test's connections")
	}
	return &lockProbe{t: t, dsn: dsn, schema: schema}
}

// name returns the application name of the store opened as who.
func (p *lockProbe) name(who string) string { return "acrawler-test-" + who + "-" + p.schema }

func (p *lockProbe) open(ctx context.Context, who string) (*postgres.DB, error) {
	u, _ := url.Parse(p.dsn)
	q := u.Query()
	q.Set("application_name", p.name(who))
	q.Set("options", "-c deadlock_timeout=1h")
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // pgx reads no + as a space
	return postgres.Open(ctx, u.String(), postgres.Options{Schema: p.schema, MaxConns: 2})
}

// mustOpen opens a store as who, skipping the test when the server does
// not let the user set deadlock_timeout.
func (p *lockProbe) mustOpen(who string) *postgres.DB {
	p.t.Helper()
	db, err := p.open(context.Background(), who)
	if err != nil && strings.Contains(err.Error(), "permission denied") && strings.Contains(err.Error(), "deadlock_timeout") {
		p.t.Skipf("cannot set deadlock_timeout (needs a superuser or GRANT SET): %v", err)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { db.Close() })
	return db
}

// waitForLock returns once a connection of the store opened as who waits
// for a lock.
func (p *lockProbe) waitForLock(who string) {
	p.t.Helper()
	for range 1000 {
		var n int
		if err := queryRow(p.t, p.dsn, p.schema, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock'`, []any{p.name(who)}, &n); err != nil {
			p.t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("%s never waited for a lock", who)
}

// hold locks rows of the test's schema in a transaction of its own until
// the returned function commits it.
func (p *lockProbe) hold(sql string, args ...any) (release func()) {
	p.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, p.dsn)
	if err != nil {
		p.t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err == nil {
		_, err = tx.Exec(ctx, `SET LOCAL search_path TO `+pgx.Identifier{p.schema}.Sanitize())
	}
	if err == nil {
		_, err = tx.Exec(ctx, sql, args...)
	}
	if err != nil {
		conn.Close(ctx)
		p.t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			tx.Commit(ctx)
			conn.Close(ctx)
		}
	}
	p.t.Cleanup(release)
	return release
}

// TestOpenWhileARunStarts: Open folds the counters rows into slot 0 while
// StartRun, in another process, locks every counters row in slot order,
// slot 0 first. Folding in another order deadlocked with it, and Open, not
// retried, failed.
func TestOpenWhileARunStarts(t *testing.T) {
	p := newLockProbe(t)
	ctx := context.Background()
	s := p.mustOpen("run")
	// Counters rows left by earlier processes, stored out of slot order.
	exec(t, p.dsn, p.schema, `INSERT INTO counters (slot, queued) VALUES (7, 2), (5, 3)`)
	exec(t, p.dsn, p.schema, `UPDATE counters SET queued = queued - 5 WHERE slot = 0`)

	// A transaction of a third process holds slot 5's row, so that
	// StartRun stops there holding slot 0; Open comes in meanwhile.
	release := p.hold(`SELECT 1 FROM counters WHERE slot = 5 FOR NO KEY UPDATE`)
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	errs := make(chan error, 2)
	go func() { _, err := s.StartRun(cctx, time.Unix(1_800_000_000, 0)); errs <- err }()
	p.waitForLock("run")
	go func() {
		db, err := p.open(cctx, "open")
		if err == nil {
			db.Close()
		}
		errs <- err
	}()
	p.waitForLock("open")
	release()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("%v (deadlocked)", err)
		}
	}
	if c, err := s.Counters(ctx); err != nil || c != (crawl.Counters{}) {
		t.Errorf("Counters = %+v, %v; want all 0", c, err)
	}
}

// TestProcessesTakeOverExpiredLeases runs four owners, each with its own
// pool, whose leases run out while they work: they take each other's
// hosts over, commit results of URLs they lost (stale), and record every
// outcome, with a page budget, a host cap and an inbound-link bonus. The
// counters must agree with the rows and the page budget must hold.
func TestProcessesTakeOverExpiredLeases(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	const hosts, budget = 12, 300
	lim := crawl.Limits{MaxPages: budget, MaxPagesPerHost: 60, InlinkBonus: 1, MaxInlinkBonus: 5}
	seed := open(t, dsn, schema)
	var urls []crawl.NewURL
	for h := range hosts {
		for i := range 10 {
			urls = append(urls, storetest.U(fmt.Sprintf("http://h%02d.test/%d", h, i), 0, i%3))
		}
	}
	if _, err := seed.AddURLs(ctx, urls, lim); err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1_800_000_000, 0)
	var mu sync.Mutex
	var problems []string
	fail := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var stale int
	var wg sync.WaitGroup
	for w := range 4 {
		db := open(t, dsn, schema)
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			owner := fmt.Sprintf("p%d", w)
			now := base
			for it := range 120 {
				// Each owner's clock runs at its own pace, so that leases
				// expire in the eyes of the others.
				now = now.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
				if it%10 == 0 {
					var add []crawl.NewURL
					for range 5 {
						add = append(add, storetest.U(fmt.Sprintf("http://h%02d.test/a%d", r.IntN(hosts+3), r.IntN(50)), 1, r.IntN(5)))
					}
					if _, err := db.AddURLs(ctx, add, lim); err != nil {
						fail("%s AddURLs: %v", owner, err)
						return
					}
				}
				hs, err := db.ClaimHosts(ctx, owner, 2, 5*time.Second, now)
				if err != nil {
					fail("%s ClaimHosts: %v", owner, err)
					return
				}
				var rel []crawl.HostRelease
				for _, h := range hs {
					cs, _, err := db.ClaimURLs(ctx, owner, h.ID, 3, lim, now)
					if err != nil && !errors.Is(err, crawl.ErrPageBudget) && !errors.Is(err, crawl.ErrLeaseLost) {
						fail("%s ClaimURLs: %v", owner, err)
						return
					}
					if c, err := db.Counters(ctx); err != nil || c.Reserved > budget {
						fail("%s: %d pages reserved, %v; budget %d", owner, c.Reserved, err, budget)
					}
					var rs []crawl.Result
					for _, c := range cs {
						rs = append(rs, randomResult(r, c, now, hosts))
					}
					r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
					if r.IntN(4) == 0 {
						now = now.Add(6 * time.Second) // a slow fetch: the lease may be gone
					}
					st, err := db.Commit(ctx, rs, lim)
					if err != nil {
						fail("%s Commit: %v", owner, err)
						return
					}
					mu.Lock()
					stale += st.Stale
					mu.Unlock()
					if r.IntN(3) == 0 {
						rel = append(rel, crawl.HostRelease{ID: h.ID})
					}
				}
				if err := db.ReleaseHosts(ctx, owner, rel); err != nil {
					fail("%s ReleaseHosts: %v", owner, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	c := checkShared(t, seed, dsn, schema, true)
	if stale == 0 || c.Reserved != budget {
		t.Errorf("%d stale results, %d pages reserved: the test does not exercise lost leases and the budget", stale, c.Reserved)
	}
}

// randomResult is one of the outcomes of a fetch of c, a page linking to
// and discovering URLs of known and new hosts.
func randomResult(r *rand.Rand, c crawl.ClaimedURL, now time.Time, hosts int) crawl.Result {
	switch r.IntN(8) {
	case 0:
		return crawl.Result{URL: c, Outcome: crawl.OutcomeRetry, RetryAt: now.Add(time.Second), Error: "timeout", ErrorKind: "timeout"}
	case 1:
		return crawl.Result{URL: c, Outcome: crawl.OutcomeRelease}
	case 2:
		return crawl.Result{URL: c, Outcome: crawl.OutcomeFailed, Error: "no such host", ErrorKind: "dns"}
	case 3:
		return crawl.Result{URL: c, Outcome: crawl.OutcomeDisallowed}
	}
	var links []crawl.Link
	var found []crawl.NewURL
	for j := range 3 {
		u := fmt.Sprintf("http://h%02d.test/f%d", r.IntN(hosts+40), r.IntN(40))
		if j == 0 {
			u = fmt.Sprintf("http://h%02d.test/%d", r.IntN(hosts), r.IntN(10))
		}
		links = append(links, crawl.Link{TargetID: crawl.URLID(u), Target: u})
		found = append(found, storetest.U(u, c.Depth+1, 0))
	}
	text := fmt.Sprintf("text %d", r.IntN(30))
	return crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Links: links, Discovered: found,
		Host: crawl.HostUpdate{NextFetchAt: now.Add(time.Millisecond)},
		Page: &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", Text: text, Bytes: 10,
			ContentHash: []byte(fmt.Sprintf("%016x", uint64(crawl.HashID(text))))}}
}
