package frontier_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestRobots429PausesHost: a robots.txt answered with 429 means nothing is
// allowed for now (as 5xx or unreachable): the host pauses and robots.txt
// is asked again, instead of its pages being handed out under a
// disallow-everything rule (and recorded as disallowed).
func TestRobots429PausesHost(t *testing.T) {
	f, c, _ := setup(t, frontier.Config{Delay: time.Second, RobotsRetry: time.Minute},
		storetest.U("http://a.test/1", 0, 0))
	task, ok, _ := next(t, f)
	if !ok || task.Kind != frontier.FetchRobots {
		t.Fatalf("first task %+v ok=%v, want robots.txt", task, ok)
	}
	fb := frontier.Feedback{Requested: true, Finished: c.now(), Throttled: true, RetryAfter: 5 * time.Second}
	if err := f.RobotsDone(context.Background(), task, 429, nil, fb); err != nil {
		t.Fatal(err)
	}
	start := c.now()
	task, at := waitTask(t, f, c)
	if task.Kind != frontier.FetchRobots {
		t.Fatalf("after a 429 robots.txt: %+v (robots %v) after %v, want robots.txt asked again", task, task.Robots, at.Sub(start))
	}
	if at.Sub(start) != time.Minute {
		t.Fatalf("robots.txt asked again after %v, want the 1m robots retry", at.Sub(start))
	}
}

// TestRetryAfterCappedByMaxBackoff: a host's Retry-After is honoured up to
// MaxBackoff, not for a day.
func TestRetryAfterCappedByMaxBackoff(t *testing.T) {
	u := storetest.U("http://a.test/1", 0, 0)
	f, c, st := setup(t, frontier.Config{Delay: time.Second, MaxBackoff: 2 * time.Minute}, u)
	knownRobots(t, st, c, u)
	task, _ := waitTask(t, f, c)
	upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now(), Throttled: true, RetryAfter: 24 * time.Hour})
	if got := upd.NextFetchAt.Sub(c.now()); got != 2*time.Minute {
		t.Fatalf("after a 429 with Retry-After 24h and MaxBackoff 2m: next in %v", got)
	}
}

// TestHostInflightSpacesStarts: with more than one request allowed in
// flight per host, requests still start at least the delay apart.
func TestHostInflightSpacesStarts(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 3), storetest.U("http://a.test/2", 0, 2), storetest.U("http://a.test/3", 0, 1)}
	f, c, st := setup(t, frontier.Config{Delay: 2 * time.Second, HostInflight: 2}, urls...)
	knownRobots(t, st, c, urls...)
	first, t1 := waitTask(t, f, c)
	second, t2 := waitTask(t, f, c)
	if first.Kind != frontier.FetchURL || second.Kind != frontier.FetchURL {
		t.Fatalf("tasks %+v, %+v; want pages", first, second)
	}
	if gap := t2.Sub(t1); gap < 2*time.Second {
		t.Fatalf("two requests to one host started %v apart, want at least the 2s delay", gap)
	}
	// Two in flight: the third waits for one of them, then for the delay.
	c.advance(10 * time.Second)
	if task, ok, _ := next(t, f); ok {
		t.Fatalf("a third task %+v with two in flight", task)
	}
	f.Done(context.Background(), first, frontier.Feedback{Requested: true, Finished: c.now()})
	done := c.now()
	third, t3 := waitTask(t, f, c)
	if third.URL.URL != urls[2].URL || t3.Sub(done) != 2*time.Second {
		t.Fatalf("third task %s %v after a request finished, want %s after 2s", third.URL.URL, t3.Sub(done), urls[2].URL)
	}
}

// TestNoPastWakeAfterPageBudget: once the page budget is reached, with a
// request still in flight and nothing else to do, Next does not answer
// with a wake time in the past (which makes its caller spin until the
// request is done).
func TestNoPastWakeAfterPageBudget(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0),
		storetest.U("http://b.test/1", 0, 0), storetest.U("http://b.test/2", 0, 0)}
	lim := crawl.Limits{MaxPages: 2}
	f, c, st := setup(t, frontier.Config{Limits: lim, Batch: 1}, urls...)
	knownRobots(t, st, c, urls...)
	a, _ := waitTask(t, f, c)
	b, _ := waitTask(t, f, c)
	if a.Kind != frontier.FetchURL || b.Kind != frontier.FetchURL || a.HostID == b.HostID {
		t.Fatalf("tasks %+v, %+v; want a page of each host", a, b)
	}
	c.advance(time.Second)
	f.Done(context.Background(), a, frontier.Feedback{Requested: true, Finished: c.now()})
	// b stays in flight; a's next claim finds the budget spent, and a is
	// let go (its lease given up by the call after).
	var wake time.Time
	for range 5 {
		var task frontier.Task
		var ok bool
		if task, ok, wake = next(t, f); ok {
			t.Fatalf("task %+v past the page budget", task)
		}
	}
	if st := f.Status(); !errors.Is(st.Budget, crawl.ErrPageBudget) || st.Hosts != 1 || st.InFlight != 1 {
		t.Fatalf("status %+v, want the page budget reached and b alone held, in flight", st)
	}
	// Time passes while b's request runs.
	c.advance(time.Second)
	if task, ok, w := next(t, f); ok {
		t.Fatalf("task %+v past the page budget", task)
	} else {
		wake = w
	}
	if !wake.IsZero() && !wake.After(c.now()) {
		t.Fatalf("nothing ready until b's request is done, but wake %v is not after now %v", wake, c.now())
	}
}

// TestStaleDoneAfterLeaseLost: a task of a host whose lease was lost, done
// after the host was claimed again, is not counted against the new claim's
// requests in flight.
func TestStaleDoneAfterLeaseLost(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 3), storetest.U("http://a.test/2", 0, 2), storetest.U("http://a.test/3", 0, 1)}
	cfg := frontier.Config{Lease: time.Minute, Batch: 1, Delay: time.Second}
	f1, c, st := setup(t, cfg, urls...)
	knownRobots(t, st, c, urls...)
	stale, _ := waitTask(t, f1, c)
	// f1 stops renewing; another process takes the host over, then lets it go.
	c.advance(2 * time.Minute)
	cfg2 := cfg
	cfg2.Owner, cfg2.Now, cfg2.Token = "other", c.now, "acrawler"
	f2 := frontier.New(st, cfg2)
	if _, ok, _ := next(t, f2); !ok {
		t.Fatal("the other process found nothing to do")
	}
	f2.Stop(time.Second)
	if err := f2.ReleaseAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f1.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := f1.Status(); st.LostHosts != 1 || st.Hosts != 0 {
		t.Fatalf("status %+v, want the host lost", st)
	}
	// f1 claims the host again and has a request in flight.
	c.advance(time.Second)
	task, _ := waitTask(t, f1, c)
	if task.Kind != frontier.FetchURL {
		t.Fatalf("task %+v, want a page", task)
	}
	// Its request reached the host all the same: the delay holds after it.
	upd := f1.Done(context.Background(), stale, frontier.Feedback{Requested: true, Finished: c.now()})
	if want := c.now().Add(time.Second); !upd.NextFetchAt.Equal(want) {
		t.Fatalf("NextFetchAt = %v after a stale task was done, want %v", upd.NextFetchAt, want)
	}
	if st := f1.Status(); st.InFlight != 1 {
		t.Fatalf("in flight %d after a stale task was done, want 1", st.InFlight)
	}
	for range 5 {
		if extra, ok, _ := next(t, f1); ok {
			t.Fatalf("a second task %+v for a host with a request in flight", extra)
		}
		c.advance(time.Second)
	}
}

// renewHookStore runs hooks around RenewHosts.
type renewHookStore struct {
	crawl.Store
	before, after func()
}

func (s *renewHookStore) RenewHosts(ctx context.Context, owner string, ids []crawl.ID, lease time.Duration, now time.Time) ([]crawl.ID, error) {
	if s.before != nil {
		s.before()
	}
	lost, err := s.Store.RenewHosts(ctx, owner, ids, lease, now)
	if s.after != nil {
		s.after()
	}
	return lost, err
}

// TestRenewKeepsHostClaimedAgain: a host let go while Renew talks to the
// store (so the store no longer counts it as held) and claimed again
// before Renew looks at the answer is held by the new claim, not dropped
// as lost (its URLs would stay in flight, unfetched, with nobody to
// requeue them).
func TestRenewKeepsHostClaimedAgain(t *testing.T) {
	first := storetest.U("http://a.test/1", 0, 1)
	f, c, st := setup(t, frontier.Config{}, first)
	knownRobots(t, st, c, first)
	hs := &renewHookStore{Store: st}
	f = frontier.New(hs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now})
	task, _ := waitTask(t, f, c)
	upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	r := crawl.Result{URL: task.URL, Outcome: crawl.OutcomeDone, Host: upd, Page: &crawl.Page{URL: task.URL.URL, Status: 200, FetchedAt: c.now()}}
	if _, err := st.Commit(context.Background(), []crawl.Result{r}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	var again frontier.Task
	hs.before = func() {
		// Nothing left: the host is let go and its lease given up.
		for range 20 {
			if task, ok, wake := next(t, f); ok {
				t.Fatalf("task %+v with nothing queued", task)
			} else if f.Status().Hosts == 0 && wake.After(c.now()) {
				return
			} else if wake.After(c.now()) {
				c.set(wake)
			}
		}
		t.Fatalf("status %+v: the host was not let go", f.Status())
	}
	hs.after = func() {
		// A new URL for the host: it is claimed again.
		later := storetest.U("http://a.test/2", 0, 1)
		if _, err := st.AddURLs(context.Background(), []crawl.NewURL{later}, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		f.Admitted([]crawl.ID{later.HostID})
		again, _ = waitTask(t, f, c)
	}
	if err := f.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again.Kind != frontier.FetchURL {
		t.Fatalf("task after the host was claimed again: %+v", again)
	}
	if st := f.Status(); st.Hosts != 1 || st.LostHosts != 0 || st.InFlight != 1 {
		t.Fatalf("status %+v after Renew, want the host claimed again still held", st)
	}
}

// TestShortLeaseRenewedBeforeHandOut: a process that missed its renewals
// (stalled) hands out no more of a host's URLs until its lease is renewed,
// and none of a host another process took over once the lease expired;
// the other process fetches them, once.
func TestShortLeaseRenewedBeforeHandOut(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 3), storetest.U("http://a.test/2", 0, 2), storetest.U("http://a.test/3", 0, 1)}
	cfg := frontier.Config{Lease: time.Minute, Delay: time.Second}
	_, c, st := setup(t, cfg, urls...)
	knownRobots(t, st, c, urls...)
	renewals := 0
	hs := &renewHookStore{Store: st, before: func() { renewals++ }}
	cfg.Owner, cfg.Token, cfg.Now = "test", "acrawler", c.now
	f1 := frontier.New(hs, cfg)
	first, _ := waitTask(t, f1, c)
	f1.Done(context.Background(), first, frontier.Feedback{Requested: true, Finished: c.now()})

	// Two thirds of the lease pass without a renewal: the lease is renewed
	// before the next URL goes out.
	c.advance(45 * time.Second)
	second, _ := waitTask(t, f1, c)
	if renewals != 1 {
		t.Fatalf("%d renewals before %s was handed out with a third of the lease left, want 1", renewals, second.URL.URL)
	}
	f1.Done(context.Background(), second, frontier.Feedback{Requested: true, Finished: c.now()})

	// Now the lease runs out and another process takes the host over.
	c.advance(2 * time.Minute)
	cfg2 := cfg
	cfg2.Owner = "other"
	f2 := frontier.New(st, cfg2)
	taken, _ := waitTask(t, f2, c)
	if taken.Kind != frontier.FetchURL {
		t.Fatalf("the other process's task %+v, want a page", taken)
	}
	for range 5 {
		if task, ok, wake := next(t, f1); ok {
			t.Fatalf("the stalled process handed out %+v of a host taken over (the other has %s)", task, taken.URL.URL)
		} else if wake.After(c.now()) {
			c.set(wake)
		}
	}
	if st := f1.Status(); st.LostHosts != 1 || st.Hosts != 0 {
		t.Fatalf("status %+v of the stalled process, want the host lost", st)
	}
}
