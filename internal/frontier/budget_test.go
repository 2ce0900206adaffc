package frontier_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestNoRobotsAfterBudget: once a budget is reached no robots.txt is
// fetched, neither a host's first nor the retry of an unreachable one, and
// Status says nothing is pending when the last task is done.
func TestNoRobotsAfterBudget(t *testing.T) {
	for _, budget := range []error{crawl.ErrPageBudget, crawl.ErrByteBudget} {
		t.Run(budget.Error(), func(t *testing.T) {
			f, c, _ := setup(t, frontier.Config{RobotsRetry: time.Minute, RobotsTries: 4},
				storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0),
				storetest.U("http://b.test/1", 0, 0), storetest.U("http://c.test/1", 0, 0))
			first, _ := waitTask(t, f, c)
			if first.Kind != frontier.FetchRobots {
				t.Fatalf("first task %+v, want a robots.txt fetch", first)
			}
			if err := f.RobotsDone(context.Background(), first, 503, nil, frontier.Feedback{Requested: true, Finished: c.now()}); err != nil {
				t.Fatal(err)
			}
			second, _ := waitTask(t, f, c)
			if second.Kind != frontier.FetchRobots || second.HostID == first.HostID {
				t.Fatalf("second task %+v, want another host's robots.txt", second)
			}
			f.SetBudget(budget)
			if err := f.RobotsDone(context.Background(), second, 200, nil, frontier.Feedback{Requested: true, Finished: c.now()}); err != nil {
				t.Fatal(err)
			}
			// The third host's robots.txt, and the first's retry a minute
			// on, are not fetched.
			for range 20 {
				task, ok, wake := next(t, f)
				if ok {
					t.Fatalf("task %+v handed out past the budget", task)
				}
				if wake.IsZero() {
					break
				}
				c.set(maxTime(c.now(), wake)) // now: leases to give up first
			}
			if st := f.Status(); st.InFlight != 0 || st.Pending != 0 {
				t.Fatalf("status %+v past the budget; want nothing in flight or pending", st)
			}
		})
	}
}

// TestBudgetKeepsClaimedURLsOfReadyHosts: after the page budget, URLs
// claimed within it are still handed out (Pending counts them) when their
// host's robots.txt is in hand.
func TestBudgetKeepsClaimedURLsOfReadyHosts(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0)}
	f, c, st := setup(t, frontier.Config{Batch: 8}, urls...)
	knownRobots(t, st, c, urls...)
	task, _ := waitTask(t, f, c)
	if task.Kind != frontier.FetchURL {
		t.Fatalf("task %+v, want a page", task)
	}
	f.SetBudget(crawl.ErrPageBudget)
	if s := f.Status(); s.Pending != 1 || s.InFlight != 1 {
		t.Fatalf("status %+v; want the other claimed URL pending and one in flight", s)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	task, _ = waitTask(t, f, c)
	if task.Kind != frontier.FetchURL {
		t.Fatalf("task %+v, want the other claimed page", task)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	if s := f.Status(); s.Pending != 0 || s.InFlight != 0 {
		t.Fatalf("status %+v; want nothing pending or in flight", s)
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestHostShareCountedAtDone: a host's byte share is spent by the bytes
// its fetches report to Done, before the store has recorded them (the
// caller commits results later): no URL of the host is handed out past
// the fetch that spent it, its claimed URLs go back, and the store skips
// its queue once the results are in.
func TestHostShareCountedAtDone(t *testing.T) {
	const share, page = 1000, 600
	var urls []crawl.NewURL
	for i := range 6 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	lim := crawl.Limits{MaxHostBytes: share}
	f, c, st := setup(t, frontier.Config{Limits: lim, Batch: 8}, urls...)
	knownRobots(t, st, c, urls...)
	ctx := context.Background()
	// Results reach the store late: when the next release is committed
	// (the caller's commits keep their order), or at the end.
	var unrecorded []crawl.Result
	commit := func(rs ...crawl.Result) {
		t.Helper()
		if _, err := st.Commit(ctx, append(unrecorded, rs...), lim); err != nil {
			t.Fatal(err)
		}
		unrecorded = nil
	}
	fetched, returned := 0, 0
	for range 1000 {
		task, ok, wake := next(t, f)
		if !ok {
			if f.Status().Hosts == 0 {
				break
			}
			c.set(maxTime(c.now().Add(time.Millisecond), wake))
			continue
		}
		switch task.Kind {
		case frontier.FetchURL:
			fetched++
			upd := f.Done(ctx, task, frontier.Feedback{Requested: true, Finished: c.now(), Bytes: page})
			unrecorded = append(unrecorded, crawl.Result{URL: task.URL, Outcome: crawl.OutcomeDone, Host: upd,
				Page: &crawl.Page{URL: task.URL.URL, Status: 200, FetchedAt: c.now(), Bytes: page}})
		case frontier.ReturnURL:
			returned++
			commit(crawl.Result{URL: task.URL, Outcome: crawl.OutcomeRelease})
		default:
			t.Fatalf("unexpected task %+v", task)
		}
	}
	commit()
	if fetched != 2 {
		t.Errorf("fetched %d pages of %d bytes under a share of %d, want 2", fetched, page, share)
	}
	if returned == 0 {
		t.Error("no claimed URL was given back")
	}
	if n := f.Status().HostsOverShare; n != 1 {
		t.Errorf("HostsOverShare = %d, want 1", n)
	}
	cs, err := st.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Skipped != 4 || cs.Queued != 0 || cs.InFlight != 0 {
		t.Errorf("counters %+v, want the 4 unfetched URLs skipped and none queued or in flight", cs)
	}
}

// TestReturnsAfterByteBudget: claimed URLs given back (a host past its
// byte share) are still handed out as ReturnURL tasks once the crawl's
// byte budget is spent, so that nothing stays pending and the crawl ends.
func TestReturnsAfterByteBudget(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 4 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	f, c, st := setup(t, frontier.Config{Limits: crawl.Limits{MaxBytes: 10_000, MaxHostBytes: 1000}, Batch: 8}, urls...)
	knownRobots(t, st, c, urls...)
	task, _ := waitTask(t, f, c)
	if task.Kind != frontier.FetchURL {
		t.Fatalf("task %+v, want a page", task)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now(), Bytes: 1500})
	f.SetBudget(crawl.ErrByteBudget)
	returned := 0
	for range 10 {
		task, ok, _ := next(t, f)
		if !ok {
			break
		}
		if task.Kind != frontier.ReturnURL {
			t.Fatalf("task %+v past the byte budget, want only claims given back", task)
		}
		returned++
	}
	if s := f.Status(); returned == 0 || s.Pending != 0 {
		t.Fatalf("%d URLs given back, status %+v; want the host's claims given back and nothing pending", returned, s)
	}
}
