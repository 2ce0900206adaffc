package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/app"
	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestMultiProcess runs three real acrawler crawl processes against one
// PostgreSQL database and the test web, kills one with SIGKILL mid-crawl,
// and checks that the crawl completes as a whole: no URL fetched twice
// except those in flight at the kill, no host asked faster than its delay
// across all processes, the page budget held crawl-wide.
func TestMultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three crawl processes")
	}
	t.Parallel()
	db := pgtest.SchemaDSN(t)
	bin := programPath(t)
	web := apptest.NewWeb(t, testweb.Config{Seed: 21, Sites: 9, PagesPerSite: 30, NoFaults: true})
	var seeds []string
	for _, s := range web.Sites() {
		if s.Academic && s.Host != "www.karadeniz-universitesi.test" { // its Crawl-delay: 1 would make this slow
			seeds = append(seeds, s.Origin+"/")
		}
	}
	const maxPages = 450
	const delay = 40 * time.Millisecond
	// The killed process's hosts are taken over when their leases expire;
	// a lease long enough that a live process, renewing every third of
	// it, does not lose one to a scheduling stall on a loaded machine
	// (a host taken over while its URL is fetched is fetched twice).
	const lease = 5 * time.Second
	procs := make([]*exec.Cmd, 3)
	outs := make([]*bytes.Buffer, 3)
	for i := range procs {
		args := append(web.CrawlArgs(db, "--delay", delay.String(), "--max-pages", fmt.Sprint(maxPages),
			"--lease", lease.String(), "--max-depth", "0", "--workers", "3",
			"--user-agent", fmt.Sprintf("acrawler/0.1 (+https://example.org/proc%d)", i)), seeds...)
		procs[i] = programCommand(bin, args...)
		outs[i] = &bytes.Buffer{}
		procs[i].Stdout, procs[i].Stderr = outs[i], outs[i]
	}
	defer func() {
		for _, p := range procs {
			if p.Process != nil {
				p.Process.Kill()
			}
		}
	}()
	// requestsBy counts the web's requests by the process that made them.
	requestsBy := func() map[string]int {
		byProc := map[string]int{}
		for _, r := range web.Requests() {
			if i := strings.Index(r.UserAgent, "proc"); i >= 0 {
				byProc[r.UserAgent[i:i+5]]++
			}
		}
		return byProc
	}
	// waitFor waits, a minute at most, until done holds.
	waitFor := func(what string, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after a minute (%d pages fetched, by %v)", what, len(apptest.PageRequests(web)), requestsBy())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// Process 1, the one killed, starts first and the others once it
	// fetches: started together on a loaded machine, it could open the
	// database after the others had spent the budget.
	for _, i := range []int{1, 0, 2} {
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			waitFor("process 1 fetches", func() bool { return requestsBy()["proc1"] > 0 })
		}
	}
	// Kill process 1 once the crawl is well under way.
	waitFor("a third of the budget fetched", func() bool { return len(apptest.PageRequests(web)) >= maxPages/3 })
	procs[1].Process.Kill()
	procs[1].Wait()
	killedAt := len(web.Requests())
	atKill := map[string]bool{}
	for _, u := range apptest.FinalURLs(t, db) {
		atKill[u] = true
	}
	for _, i := range []int{0, 2} {
		done := make(chan error, 1)
		go func() { done <- procs[i].Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("process %d: %v\n%s", i, err, outs[i])
			}
		case <-time.After(3 * time.Minute):
			t.Fatalf("process %d did not finish\n%s", i, outs[i])
		}
		if out := outs[i].String(); !strings.Contains(out, "page budget reached") && !strings.Contains(out, "frontier exhausted") {
			t.Errorf("process %d ended without finishing the crawl:\n%s", i, out)
		}
	}

	reqs := web.Requests()
	// Every process took part, the killed one included.
	byProc := requestsBy()
	for i := range 3 {
		if byProc[fmt.Sprintf("proc%d", i)] == 0 {
			t.Errorf("process %d made no request: %v", i, byProc)
		}
	}
	// The page budget holds for the crawl as a whole.
	d := apptest.OpenDB(t, db)
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages`); n > maxPages {
		t.Errorf("%d pages recorded under a crawl-wide budget of %d", n, maxPages)
	}
	c := counters(t, db)
	if c.Reserved > maxPages {
		t.Errorf("counters after the crawl: %d reserved (budget %d)", c.Reserved, maxPages)
	}
	if c.InFlight != 0 {
		// A process that reaches the budget stops without waiting for the
		// killed one's leases to expire: URLs still in flight must be the
		// killed process's, and go back to the queue when their hosts are
		// next claimed (as by the next run).
		rows, err := d.Query(`SELECT DISTINCT coalesce(h.lease_owner, '') FROM urls u JOIN hosts h ON h.id = u.host_id WHERE u.state = 1`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var owner string
			if err := rows.Scan(&owner); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(owner, fmt.Sprintf("/%d/", procs[1].Process.Pid)) {
				t.Errorf("URLs left in flight on a host leased by %q, not by the killed process %d", owner, procs[1].Process.Pid)
			}
		}
		rows.Close()
		st, err := app.OpenStore(context.Background(), db, 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.ClaimHosts(context.Background(), "next-run", 100, time.Minute, time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		st.Close()
		if after := counters(t, db); after.InFlight != 0 {
			t.Errorf("%d URLs in flight after the crawl, %d still after their hosts were claimed again", c.InFlight, after.InFlight)
		}
		t.Logf("%d URLs of the killed process were in flight at the end; back in the queue after a claim", c.InFlight)
	}
	// No URL fetched twice, except one in flight at the kill: first asked
	// before it and not recorded when it happened.
	count := map[string]int{}
	first := map[string]int{}
	killedFetched := map[string]bool{} // asked by the killed process
	for i, r := range reqs {
		if r.Method == "CONNECT" || strings.HasPrefix(r.Path, "/robots") || r.Status >= 500 || r.Status == 429 {
			continue
		}
		u := "http://" + r.Host + r.Path
		if strings.Contains(r.UserAgent, "proc1") {
			killedFetched[u] = true
		}
		if count[u] == 0 {
			first[u] = i
		}
		count[u]++
	}
	again := 0
	for u, n := range count {
		if n < 2 {
			continue
		}
		if n > 2 || first[u] >= killedAt || atKill[u] {
			t.Errorf("%s fetched %d times (first at request %d, kill at %d, recorded before the kill: %v)", u, n, first[u], killedAt, atKill[u])
		}
		again++
	}
	// The budget counts recorded pages: what the killed process fetched
	// and never recorded went with it (its URLs go back to the queue when
	// their hosts are claimed again), and is not fetched again if the
	// budget is spent first.
	final := map[string]bool{}
	for _, u := range apptest.FinalURLs(t, db) {
		final[u] = true
	}
	lost := 0
	for u := range count {
		if !final[u] && count[u] == 1 && killedFetched[u] {
			lost++
		}
	}
	if len(count) > maxPages+again+lost {
		t.Errorf("%d distinct pages fetched under a budget of %d (%d fetched again after the kill, %d lost with the killed process)",
			len(count), maxPages, again, lost)
	}
	// No host asked faster than the delay, across all processes.
	byHost := map[string][]testweb.Request{}
	for _, r := range reqs {
		if r.Method != "CONNECT" {
			byHost[r.Host] = append(byHost[r.Host], r)
		}
	}
	for host, rs := range byHost {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Time.Before(rs[j].Time) })
		for i := 1; i < len(rs); i++ {
			if strings.HasPrefix(rs[i-1].Path, "/robots") && strings.HasPrefix(rs[i].Path, "/robots") {
				continue
			}
			if gap := rs[i].Time.Sub(rs[i-1].Time); gap < delay {
				t.Errorf("%s: %s (%s) then %s (%s) only %v apart", host, rs[i-1].Path, rs[i-1].UserAgent, rs[i].Path, rs[i].UserAgent, gap)
			}
		}
	}
	t.Logf("%d hosts; requests per process %v; %d distinct pages; %d fetched again after the kill", len(byHost), byProc, len(count), again)
}
