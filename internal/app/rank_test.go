package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
)

// fleetStore is a fresh PostgreSQL --db value, and a store handle on it
// that plays another process of the fleet, for a test that crawls the test
// web (skipped with -short) in parallel with the others.
func fleetStore(t *testing.T) (string, crawl.Store) {
	t.Helper()
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	db := apptest.Backends[1].NewDB(t) // skips without a PostgreSQL server
	st, err := OpenStore(context.Background(), db, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return db, st
}

// TestRankLeftToTheLastProcess: on PostgreSQL, a crawl process that ends
// while another process of the crawl holds hosts leaves the
// PageRank pass to the last one (every process ranking the whole graph
// when it ends would rewrite every page's rank once per process); the
// last one ranks.
func TestRankLeftToTheLastProcess(t *testing.T) {
	db, st := fleetStore(t)
	ctx := context.Background()
	// Another process holds a URL of a host outside the crawl's scope.
	const other = "http://other-process.test/paper"
	host := crawl.HostKey(other)
	if _, err := st.AddURLs(ctx, []crawl.NewURL{{ID: crawl.URLID(other), URL: other, HostID: crawl.HashID(host), Host: host}}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	hosts, err := st.ClaimHosts(ctx, "other-process", 1, time.Hour, now)
	if err != nil || len(hosts) != 1 {
		t.Fatalf("claim the other process's host: %v, %d hosts", err, len(hosts))
	}
	claimed, _, err := st.ClaimURLs(ctx, "other-process", hosts[0].ID, 1, crawl.Limits{}, now)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim the other process's URL: %v, %d URLs", err, len(claimed))
	}

	web := apptest.NewWeb(t, testweb.Config{Seed: 5, PagesPerSite: 10, NoFaults: true})
	crawlOnce := func() string {
		_, stderr, err := apptest.Run(t, run, web.CrawlArgs(db, "--delay", "0", "--max-depth", "0", "--no-pdf", "--log-level", "info",
			"--max-pages", "40", "http://www.northfield-university.test/")...)
		if err != nil {
			t.Fatalf("crawl: %v\n%s", err, stderr)
		}
		return stderr
	}
	d := apptest.OpenDB(t, db)
	ranked := func() int64 { return apptest.QueryInt(t, d, `SELECT count(*) FROM ranks WHERE rank <> 0`) }

	log := crawlOnce()
	if !strings.Contains(log, "PageRank left to the crawl's last process") || strings.Contains(log, "PageRank computed") {
		t.Errorf("a process ending while another held a host ranked, or did not say why not:\n%s", log)
	}
	if n := ranked(); n != 0 {
		t.Errorf("%d pages ranked by a process that was not the last", n)
	}

	// The other process hands its URL and host back; the next process to
	// end is the last and ranks.
	if _, err := st.Commit(ctx, []crawl.Result{{URL: claimed[0], Outcome: crawl.OutcomeRelease}}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := st.ReleaseHosts(ctx, "other-process", []crawl.HostRelease{{ID: hosts[0].ID}}); err != nil {
		t.Fatal(err)
	}
	log = crawlOnce()
	if !strings.Contains(log, "PageRank computed") {
		t.Errorf("the last process did not rank:\n%s", log)
	}
	if n := ranked(); n == 0 {
		t.Error("no page ranked after the last process ended")
	}
}

// TestRankEvery: with --rank-every, the rank pass runs while the crawl
// runs, on each store: a crawl that skips the end's pass (--no-rank) ends
// with its pages ranked and the anchor texts of links found indexed.
func TestRankEvery(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		db := be.NewDB(t)
		stderr := crawlRankingEvery(t, db)
		if !strings.Contains(stderr, "rank pass during the crawl") || strings.Contains(stderr, "PageRank computed") {
			t.Errorf("the crawl's log shows no rank pass during the crawl, or an end-of-crawl pass despite --no-rank:\n%s", stderr)
		}
		d := apptest.OpenDB(t, db)
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM ranks WHERE rank <> 0`); n == 0 {
			t.Error("no page ranked by the passes during the crawl")
		}
	})
}

// crawlRankingEvery crawls 40 pages of the test web into db with rank
// passes every 50 ms and none at the end, and returns the crawl's log.
func crawlRankingEvery(t *testing.T, db string) string {
	t.Helper()
	web := apptest.NewWeb(t, testweb.Config{Seed: 5, PagesPerSite: 10, NoFaults: true})
	_, stderr, err := apptest.Run(t, run, web.CrawlArgs(db, "--delay", "50ms", "--no-pdf", "--no-rank", "--rank-every", "50ms",
		"--log-level", "info", "--max-pages", "40", "http://www.northfield-university.test/")...)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, stderr)
	}
	return stderr
}

// TestRankEveryTakesTurns: on PostgreSQL, a process whose time for a rank
// pass during the crawl comes while another process of the fleet runs
// one leaves its own out, and says so; a pass that is to run waits for
// the other's, then ranks.
func TestRankEveryTakesTurns(t *testing.T) {
	db, st := fleetStore(t)
	ctx := context.Background()
	// Another process is ranking.
	unlock, ok, err := st.(rankLocker).LockRanks(ctx, false)
	if err != nil || !ok {
		t.Fatalf("LockRanks = %v, %v", ok, err)
	}
	stderr := crawlRankingEvery(t, db)
	if !strings.Contains(stderr, "rank pass during the crawl left to the process running one") || strings.Contains(stderr, "rank pass during the crawl\" pages=") {
		t.Errorf("a crawl ranked while another process held the rank lock, or did not say it left the pass:\n%s", stderr)
	}
	d := apptest.OpenDB(t, db)
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM ranks WHERE rank <> 0`); n != 0 {
		t.Errorf("%d pages ranked by a process while another held the rank lock", n)
	}
	// A pass that is to run (the end of a crawl's, acrawler rank) waits
	// for the other process's, then ranks.
	time.AfterFunc(300*time.Millisecond, unlock)
	if _, errs, err := apptest.Run(t, run, "rank", "--db", db); err != nil {
		t.Fatalf("rank: %v\n%s", err, errs)
	}
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM ranks WHERE rank <> 0`); n == 0 {
		t.Error("no page ranked once the other process let the lock go")
	}
}
