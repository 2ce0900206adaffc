package frontier_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// clock is the tests' time; the frontier reads it from its background
// store I/O too.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// set moves the clock to t.
func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func setup(t *testing.T, cfg frontier.Config, urls ...crawl.NewURL) (*frontier.Frontier, *clock, crawl.Store) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.AddURLs(context.Background(), urls, cfg.Limits); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	cfg.Now = c.now
	if cfg.Owner == "" {
		cfg.Owner = "test"
	}
	if cfg.Token == "" {
		cfg.Token = "acrawler"
	}
	return frontier.New(st, cfg), c, st
}

func next(t *testing.T, f *frontier.Frontier) (frontier.Task, bool, time.Time) {
	t.Helper()
	task, ok, wake, err := f.Next(context.Background())
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return task, ok, wake
}

// waitTask advances the clock to each wake time until a task comes, and
// returns it with the time it came.
func waitTask(t *testing.T, f *frontier.Frontier, c *clock) (frontier.Task, time.Time) {
	t.Helper()
	for range 10000 {
		task, ok, wake := next(t, f)
		if ok {
			return task, c.now()
		}
		if !wake.After(c.now()) {
			t.Fatalf("nothing ready and wake %v is not after now %v", wake, c.now())
		}
		c.set(wake)
	}
	t.Fatal("no task after 10000 wake-ups")
	return frontier.Task{}, time.Time{}
}

func robotsOK(t *testing.T, f *frontier.Frontier, c *clock, task frontier.Task, body string) {
	t.Helper()
	if task.Kind != frontier.FetchRobots {
		t.Fatalf("task = %+v, want a robots.txt fetch first", task)
	}
	if err := f.RobotsDone(context.Background(), task, 200, []byte(body), frontier.Feedback{Requested: true, Finished: c.now()}); err != nil {
		t.Fatal(err)
	}
}

func TestPolitenessAndRobotsFirst(t *testing.T) {
	f, c, _ := setup(t, frontier.Config{Delay: 2 * time.Second},
		storetest.U("http://a.test/1", 0, 5), storetest.U("http://a.test/2", 0, 1))
	task, ok, _ := next(t, f)
	if !ok {
		t.Fatal("nothing ready at the start")
	}
	robotsOK(t, f, c, task, "User-agent: *\nDisallow: /private\n")
	// The robots.txt request counts: the first page waits a full delay.
	start := c.now()
	task, at := waitTask(t, f, c)
	if at.Sub(start) != 2*time.Second {
		t.Fatalf("first page after %v, want the 2s delay after robots.txt", at.Sub(start))
	}
	if task.Kind != frontier.FetchURL || task.URL.URL != "http://a.test/1" {
		t.Fatalf("task = %+v; want the best URL", task)
	}
	if task.Robots == nil || task.Robots.Allowed("/private/x") {
		t.Fatalf("task carries robots rules %v that do not disallow /private", task.Robots)
	}
	// One request in flight per host: nothing more until it is done.
	if _, ok, _ := next(t, f); ok {
		t.Fatal("a second task for a host with a request in flight")
	}
	c.advance(500 * time.Millisecond)
	upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	if want := c.now().Add(2 * time.Second); !upd.NextFetchAt.Equal(want) {
		t.Fatalf("NextFetchAt = %v, want finish + delay = %v", upd.NextFetchAt, want)
	}
	start = c.now()
	task, at = waitTask(t, f, c)
	if at.Sub(start) != 2*time.Second || task.URL.URL != "http://a.test/2" {
		t.Fatalf("second page %s after %v, want http://a.test/2 after 2s", task.URL.URL, at.Sub(start))
	}
}

func TestCrawlDelayAndThrottle(t *testing.T) {
	f, c, _ := setup(t, frontier.Config{Delay: time.Second, MaxCrawlDelay: 5 * time.Second},
		storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0), storetest.U("http://a.test/3", 0, 0))
	task, _, _ := next(t, f)
	robotsOK(t, f, c, task, "User-agent: *\nCrawl-delay: 60\n")
	start := c.now()
	task, at := waitTask(t, f, c)
	if got := at.Sub(start); got != 5*time.Second {
		t.Fatalf("gap after robots.txt = %v, want Crawl-delay 60s capped at 5s", got)
	}
	upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now(), Throttled: true, RetryAfter: 30 * time.Second})
	if got := upd.NextFetchAt.Sub(c.now()); got != 30*time.Second || upd.Backoff != 1 {
		t.Fatalf("after a 429 with Retry-After 30s: next in %v backoff %d", got, upd.Backoff)
	}
}

func TestBestReadyHostFirst(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://low.test/", 0, 1), storetest.U("http://high.test/", 0, 9), storetest.U("http://mid.test/", 0, 5)}
	f, c, st := setup(t, frontier.Config{}, urls...)
	// robots.txt known already: the three hosts are due together.
	for _, u := range urls {
		rec := crawl.RobotsRecord{Status: 404, FetchedAt: c.now(), ExpiresAt: c.now().Add(time.Hour)}
		if err := st.SaveRobots(context.Background(), u.HostID, rec, crawl.HostUpdate{}); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	for range 3 {
		task, ok, _ := next(t, f)
		if !ok || task.Kind != frontier.FetchURL {
			t.Fatalf("task %+v ok=%v, want a page", task, ok)
		}
		order = append(order, task.URL.URL)
	}
	want := []string{"http://high.test/", "http://mid.test/", "http://low.test/"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order = %v, want %v", order, want)
		}
	}
}

func TestUnreachableRobotsPausesThenSkips(t *testing.T) {
	f, c, st := setup(t, frontier.Config{RobotsRetry: time.Minute, RobotsTries: 2},
		storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0))
	task, _, _ := next(t, f)
	if err := f.RobotsDone(context.Background(), task, 503, nil, frontier.Feedback{Requested: true, Finished: c.now()}); err != nil {
		t.Fatal(err)
	}
	start := c.now()
	task, at := waitTask(t, f, c)
	if at.Sub(start) != time.Minute || task.Kind != frontier.FetchRobots {
		t.Fatalf("after a 503 robots.txt: %+v after %v, want robots.txt again after a minute", task, at.Sub(start))
	}
	if err := f.RobotsDone(context.Background(), task, 0, nil, frontier.Feedback{Requested: true, Finished: c.now()}); err != nil {
		t.Fatal(err)
	}
	// Two failures: give up on the host, skipping its URLs without requests.
	skipped := 0
	for range 4 {
		task, ok, _ := next(t, f)
		if !ok {
			break
		}
		if task.Kind != frontier.SkipURL {
			t.Fatalf("task %+v, want SkipURL", task)
		}
		upd := f.Done(context.Background(), task, frontier.Feedback{})
		if _, err := st.Commit(context.Background(), []crawl.Result{{URL: task.URL, Outcome: crawl.OutcomeSkipped, Host: upd}}, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		skipped++
	}
	if skipped != 2 {
		t.Fatalf("skipped %d URLs, want 2", skipped)
	}
}

func TestPageBudgetStopsClaims(t *testing.T) {
	var urls []crawl.NewURL
	for _, h := range []string{"a", "b", "c"} {
		for _, p := range []string{"1", "2", "3"} {
			urls = append(urls, storetest.U("http://"+h+".test/"+p, 0, 0))
		}
	}
	f, c, st := setup(t, frontier.Config{Limits: crawl.Limits{MaxPages: 4}, Batch: 1}, urls...)
	fetched := 0
	for range 100 {
		task, ok, wake := next(t, f)
		if !ok {
			if f.Status().Hosts == 0 {
				break
			}
			c.set(wake)
			continue
		}
		switch task.Kind {
		case frontier.FetchRobots:
			robotsOK(t, f, c, task, "")
		case frontier.FetchURL:
			fetched++
			upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
			r := crawl.Result{URL: task.URL, Outcome: crawl.OutcomeDone, Host: upd,
				Page: &crawl.Page{URL: task.URL.URL, Status: 200, FetchedAt: c.now()}}
			if _, err := st.Commit(context.Background(), []crawl.Result{r}, crawl.Limits{MaxPages: 4}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if fetched != 4 {
		t.Fatalf("fetched %d pages under a 4-page budget", fetched)
	}
	if !errors.Is(f.Status().Budget, crawl.ErrPageBudget) {
		t.Fatalf("Budget = %v, want ErrPageBudget", f.Status().Budget)
	}
}

// BenchmarkFrontier measures the frontier over a real SQLite store: URLs
// added (in batches of 1,000 over 100 hosts), then handed out with Next and
// committed back as fetched, with politeness delay 0.
//
//	go test -run '^$' -bench BenchmarkFrontier ./internal/frontier
func BenchmarkFrontier(b *testing.B) {
	const n = 20000
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "b.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		c := &clock{t: time.Unix(1_800_000_000, 0)}
		f := frontier.New(st, frontier.Config{Owner: "bench", Token: "acrawler", Now: c.now, Batch: 32})
		urls := make([]crawl.NewURL, 0, n)
		for i := range n {
			urls = append(urls, storetest.U(fmt.Sprintf("http://h%03d.test/page/%d", i%100, i), 1, i%7))
		}
		b.StartTimer()
		addStart := time.Now()
		for i := 0; i < n; i += 1000 {
			if _, err := st.AddURLs(context.Background(), urls[i:i+1000], crawl.Limits{}); err != nil {
				b.Fatal(err)
			}
		}
		addTime := time.Since(addStart)
		nextStart := time.Now()
		got := 0
		var batch []crawl.Result
		for got < n {
			task, ok, wake, err := f.Next(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				if len(batch) > 0 {
					if _, err := st.Commit(context.Background(), batch, crawl.Limits{}); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
				if wake.After(c.now()) {
					c.set(wake)
				}
				continue
			}
			if task.Kind == frontier.FetchRobots {
				f.RobotsDone(context.Background(), task, 404, nil, frontier.Feedback{Requested: true})
				continue
			}
			upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true})
			batch = append(batch, crawl.Result{URL: task.URL, Outcome: crawl.OutcomeDone, Host: upd,
				Page: &crawl.Page{URL: task.URL.URL, Status: 200}})
			if len(batch) == 512 {
				if _, err := st.Commit(context.Background(), batch, crawl.Limits{}); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
			got++
		}
		nextTime := time.Since(nextStart)
		b.ReportMetric(float64(n)/addTime.Seconds(), "added-URLs/s")
		b.ReportMetric(float64(n)/nextTime.Seconds(), "next+commit-URLs/s")
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}

// gatedStore holds ClaimURLsOf calls until the gate opens, first telling
// entered (when not nil) that a call waits.
type gatedStore struct {
	crawl.Store
	gate    chan struct{} // nil: open
	entered chan struct{}
}

func (g *gatedStore) ClaimURLsOf(ctx context.Context, owner string, hosts []crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.Claim, error) {
	if g.gate != nil {
		if g.entered != nil {
			g.entered <- struct{}{}
		}
		<-g.gate
	}
	return g.Store.ClaimURLsOf(ctx, owner, hosts, n, lim, now)
}

// gatedTwoHosts is a store behind a gate holding a.test/1 and a.test/2
// (in that order) and b.test/1, their robots.txt known.
func gatedTwoHosts(t *testing.T) (*gatedStore, *clock) {
	t.Helper()
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 9), storetest.U("http://a.test/2", 0, 8), storetest.U("http://b.test/1", 0, 1)}
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.AddURLs(context.Background(), urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	knownRobots(t, st, c, urls...)
	return &gatedStore{Store: st}, c
}

// knownRobots records a robots.txt for each URL's host, so the hosts are
// due at once.
func knownRobots(t *testing.T, st crawl.Store, c *clock, urls ...crawl.NewURL) {
	t.Helper()
	for _, u := range urls {
		rec := crawl.RobotsRecord{Status: 404, FetchedAt: c.now(), ExpiresAt: c.now().Add(time.Hour)}
		if err := st.SaveRobots(context.Background(), u.HostID, rec, crawl.HostUpdate{}); err != nil {
			t.Fatal(err)
		}
	}
}

// nextLater calls Next in a goroutine of its own, for a test to go on
// while it waits; the task comes on the channel.
func nextLater(t *testing.T, f *frontier.Frontier) <-chan frontier.Task {
	got := make(chan frontier.Task, 1)
	go func() {
		task, ok, _, err := f.Next(context.Background())
		if err != nil || !ok {
			t.Errorf("Next = %+v, %v, %v", task, ok, err)
		}
		got <- task
	}()
	return got
}

// TestClaimDoesNotHoldUpReadyHosts: while one host's URLs are being claimed
// (the store busy, as behind a long commit), Next hands out the work other
// hosts have ready, and the claimed URLs come when the store answers.
func TestClaimDoesNotHoldUpReadyHosts(t *testing.T) {
	gs, c := gatedTwoHosts(t)
	woken := make(chan struct{}, 16)
	f := frontier.New(gs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, Batch: 1,
		Wake: func() { woken <- struct{}{} }})
	task, ok, _ := next(t, f)
	if !ok || task.URL.URL != "http://a.test/1" {
		t.Fatalf("first task %+v ok=%v, want http://a.test/1", task, ok)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	// a's buffer is empty and its claim waits for the store: b's URL,
	// ready meanwhile, comes first.
	gs.gate = make(chan struct{})
	got := nextLater(t, f)
	select {
	case task = <-got:
	case <-time.After(10 * time.Second):
		close(gs.gate)
		t.Fatal("Next waited for another host's claim while b had work ready")
	}
	if task.URL.URL != "http://b.test/1" {
		t.Fatalf("task while a's claim waits = %s, want http://b.test/1", task.URL.URL)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	close(gs.gate)
	<-woken // the claim landed
	task, ok, _ = next(t, f)
	if !ok || task.URL.URL != "http://a.test/2" {
		t.Fatalf("task after the claim = %+v ok=%v, want http://a.test/2", task, ok)
	}
}

// TestEndedRequestDoesNotWaitForClaim: with nothing ready while one
// host's claim waits for the store, Next waits, but a request that ends
// meanwhile (Done) makes its host's next URL come at once, not when the
// store answers.
func TestEndedRequestDoesNotWaitForClaim(t *testing.T) {
	gs, c := gatedTwoHosts(t)
	more := storetest.U("http://b.test/2", 0, 0)
	if _, err := gs.AddURLs(context.Background(), []crawl.NewURL{more}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	f := frontier.New(gs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, Batch: 2, Wake: func() {}})
	for _, want := range []string{"http://a.test/1", "http://a.test/2"} {
		task, ok, _ := next(t, f)
		if !ok || task.URL.URL != want {
			t.Fatalf("task %+v ok=%v, want %s", task, ok, want)
		}
		f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	}
	// a's buffer is empty and its claim waits for the store; b's first
	// URL goes out, and nothing else is ready while it is in flight.
	gate := make(chan struct{})
	gs.gate = gate
	t.Cleanup(func() { close(gate) })
	task, ok, _ := next(t, f)
	if !ok || task.URL.URL != "http://b.test/1" {
		t.Fatalf("task while a's claim waits = %+v ok=%v, want http://b.test/1", task, ok)
	}
	got := nextLater(t, f)
	time.Sleep(50 * time.Millisecond) // Next waits
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	select {
	case task = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("Next waited for a's claim after b's request ended")
	}
	if task.URL.URL != "http://b.test/2" {
		t.Fatalf("task after b's request = %s, want http://b.test/2", task.URL.URL)
	}
}

// TestStopReturnsAClaimOnItsWay: Stop waits for a claim the store has not
// answered yet (up to its wait) and returns its URLs with the others, so
// that a clean stop leaves nothing in flight.
func TestStopReturnsAClaimOnItsWay(t *testing.T) {
	gs, c := gatedTwoHosts(t)
	f := frontier.New(gs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, Batch: 1})
	task, ok, _ := next(t, f)
	if !ok || task.URL.URL != "http://a.test/1" {
		t.Fatalf("first task %+v ok=%v, want http://a.test/1", task, ok)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	gs.gate = make(chan struct{})
	task, ok, _ = next(t, f) // b's URL; a's claim goes to the store and waits
	if !ok || task.URL.URL != "http://b.test/1" {
		t.Fatalf("second task %+v ok=%v, want http://b.test/1", task, ok)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	go func() {
		time.Sleep(50 * time.Millisecond)
		close(gs.gate)
	}()
	back := f.Stop(time.Minute)
	if len(back) != 1 || back[0].URL != "http://a.test/2" {
		t.Fatalf("Stop returned %+v, want the claim on its way (http://a.test/2)", back)
	}
}

// TestBufferToppedUpBeforeItRunsDry: a host's buffer is refilled in the
// background when it runs low, and its URLs still come best first.
func TestBufferToppedUpBeforeItRunsDry(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 20 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/%d", i), 0, 100-i))
	}
	f, c, st := setup(t, frontier.Config{Batch: 8, Wake: func() {}}, urls...)
	knownRobots(t, st, c, urls[0])
	prev := 1 << 30
	for i := range 20 {
		task, _ := waitTask(t, f, c)
		if task.URL.Priority > prev {
			t.Fatalf("URL %d (%s, priority %d) after one of priority %d: not best first", i, task.URL.URL, task.URL.Priority, prev)
		}
		prev = task.URL.Priority
		if i == 5 {
			// 8 claimed, 6 handed out: 2 left, the top-up is on its way.
			f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
			deadline := time.Now().Add(10 * time.Second)
			for f.Status().Buffered != 10 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if b := f.Status().Buffered; b != 10 {
				t.Fatalf("buffered %d URLs after the top-up, want 2 left + 8 claimed", b)
			}
			continue
		}
		f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	}
}

// TestAdmittedAnyWakesHeldHosts: pages queued again for a revisit (by the
// due-page pass or a sitemap's lastmod) may be on any host, so
// AdmittedAny wakes the held hosts that found nothing to claim, and their
// new URLs come at once instead of after ClaimEvery.
func TestAdmittedAnyWakesHeldHosts(t *testing.T) {
	first := storetest.U("http://a.test/1", 0, 1)
	f, c, st := setup(t, frontier.Config{Batch: 4, ClaimEvery: time.Hour, Wake: func() {}}, first)
	knownRobots(t, st, c, first)
	task, _ := waitTask(t, f, c)
	if task.URL.URL != first.URL {
		t.Fatalf("task = %+v, want %s", task, first.URL)
	}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	// The host finds nothing more to claim and waits ClaimEvery (an hour)
	// to look again; the clock stands still from here.
	for range 100 {
		if _, ok, _ := next(t, f); ok {
			t.Fatal("a task with nothing queued")
		}
		time.Sleep(5 * time.Millisecond)
	}
	later := storetest.U("http://a.test/2", 0, 1)
	if _, err := st.AddURLs(context.Background(), []crawl.NewURL{later}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	f.AdmittedAny()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if task, ok, _ := next(t, f); ok {
			if task.URL.URL != later.URL {
				t.Fatalf("task = %+v, want %s", task, later.URL)
			}
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the URL queued after AdmittedAny did not come without the clock moving")
}

// TestClaimsOnWhileHostsWait: without a budget, a claim that found as
// many hosts as it asked for is followed at once by another while too few
// held hosts are ready (here none: each has its request in flight), not
// after ClaimEvery; hosts with queued URLs are not left unheld while the
// workers wait. With a page budget the claims still come ClaimEvery apart.
func TestClaimsOnWhileHostsWait(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 9 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://h%d.test/1", i), 0, 1))
	}
	for _, budget := range []int64{0, 100} {
		f, c, st := setup(t, frontier.Config{MinReady: 2, Batch: 4, ClaimEvery: time.Hour, Wake: func() {},
			Limits: crawl.Limits{MaxPages: budget}}, urls...)
		knownRobots(t, st, c, urls...)
		hosts := map[string]bool{}
		// The clock stands still and no task is done: each host gives one.
		for range 200 {
			task, ok, _ := next(t, f)
			if ok {
				hosts[task.Host] = true
			}
			if len(hosts) == len(urls) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		want := len(urls)
		if budget > 0 {
			want = 2 // one claim of MinReady hosts, the next an hour later
		}
		if len(hosts) != want {
			t.Errorf("budget %d: %d hosts handed out before ClaimEvery passed, want %d", budget, len(hosts), want)
		}
	}
}

// TestSettledClaimLetsHostGo: a host whose URLs ran out is let go at its
// first claim that finds nothing when every result made has been
// committed (Config.Settled); otherwise it is looked at again a few times,
// ClaimEvery apart, since a result still on its way may add URLs to it.
func TestSettledClaimLetsHostGo(t *testing.T) {
	for _, settled := range []bool{true, false} {
		t.Run(fmt.Sprintf("settled=%v", settled), func(t *testing.T) {
			only := storetest.U("http://a.test/1", 0, 1)
			f, c, st := setup(t, frontier.Config{Batch: 4, ClaimEvery: time.Hour, Wake: func() {},
				Settled: func() bool { return settled }}, only)
			knownRobots(t, st, c, only)
			task, _ := waitTask(t, f, c)
			upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
			if _, err := st.Commit(context.Background(), []crawl.Result{{URL: task.URL, Outcome: crawl.OutcomeSkipped, Host: upd}}, crawl.Limits{}); err != nil {
				t.Fatal(err)
			}
			if want, held := map[bool]int{true: 0, false: 1}[settled], heldWhileIdle(t, f); held != want {
				t.Fatalf("hosts held after the claim that found nothing = %d, want %d", held, want)
			}
		})
	}
}

// TestSettleEndsIdleChecks: a host whose claim found nothing while results
// were on their way waits ClaimEvery to look again; once they are all
// recorded (Settle), it looks again at once, and is let go.
func TestSettleEndsIdleChecks(t *testing.T) {
	var settled atomic.Bool
	only := storetest.U("http://a.test/1", 0, 1)
	f, c, st := setup(t, frontier.Config{Batch: 4, ClaimEvery: time.Hour, Wake: func() {},
		Settled: settled.Load}, only)
	knownRobots(t, st, c, only)
	task, _ := waitTask(t, f, c)
	upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	if _, err := st.Commit(context.Background(), []crawl.Result{{URL: task.URL, Outcome: crawl.OutcomeSkipped, Host: upd}}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if n := heldWhileIdle(t, f); n != 1 {
		t.Fatalf("hosts held after a claim that found nothing, results on their way = %d, want 1", n)
	}
	settled.Store(true)
	f.Settle()
	if n := heldWhileIdle(t, f); n != 0 {
		t.Fatalf("hosts held once settled = %d, want 0", n)
	}
}

// TestSettleDuringClaim: a claim that started before the last results
// were recorded and finds nothing after Settle came does not make its
// host wait ClaimEvery: the host looks again at once, and is let go.
func TestSettleDuringClaim(t *testing.T) {
	var settled atomic.Bool
	only := storetest.U("http://a.test/1", 0, 1)
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.AddURLs(context.Background(), []crawl.NewURL{only}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	knownRobots(t, st, c, only)
	gs := &gatedStore{Store: st}
	f := frontier.New(gs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, Batch: 4,
		ClaimEvery: time.Hour, Wake: func() {}, Settled: settled.Load})
	task, _ := waitTask(t, f, c)
	upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	if _, err := st.Commit(context.Background(), []crawl.Result{{URL: task.URL, Outcome: crawl.OutcomeSkipped, Host: upd}}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	// The host's next claim starts while the result is still counted as
	// on its way, and waits at the store.
	gs.gate, gs.entered = make(chan struct{}), make(chan struct{})
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		if task, ok, _, err := f.Next(context.Background()); err != nil || ok {
			t.Errorf("Next = %+v, %v, %v; want no task", task, ok, err)
		}
	}()
	select {
	case <-gs.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no claim of the host's URLs")
	}
	settled.Store(true)
	f.Settle()
	gs.entered = nil
	close(gs.gate)
	<-asked
	if n := heldWhileIdle(t, f); n != 0 {
		t.Fatalf("hosts held after Settle came during their claim = %d, want 0", n)
	}
}

// heldWhileIdle asks f for tasks for a while, with nothing queued and the
// clock standing still (idle checks ClaimEvery apart do not come), and
// returns how many hosts it then holds: 0 as soon as it let all go.
func heldWhileIdle(t *testing.T, f *frontier.Frontier) int {
	t.Helper()
	held := 1
	for range 100 {
		if _, ok, _ := next(t, f); ok {
			t.Fatal("a task with nothing queued")
		}
		if held = f.Status().Hosts; held == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return held
}
