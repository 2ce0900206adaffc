package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// A reached page budget ends the crawl once what is in flight is done,
// even when a host's robots.txt keeps failing and its next attempt is far
// off: the budget lets nothing new start, robots.txt retries included.
func TestPageBudgetEndsCrawlDespiteRobotsRetry(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		if r.Host == "b.test" {
			if r.URL.Path == "/robots.txt" {
				http.Error(rw, "unavailable", http.StatusInternalServerError)
				return
			}
			html(rw, `b`)
			return
		}
		switch r.URL.Path {
		case "/robots.txt":
			rw.Write([]byte("User-agent: *\nAllow: /\n"))
		default:
			var links strings.Builder
			for i := range 20 {
				fmt.Fprintf(&links, `<a href="/p%d">page %d</a> `, i, i)
			}
			html(rw, links.String())
		}
	}, "http://a.test/", "http://b.test/")
	tc.cfg.NoSitemaps = true
	tc.cfg.Frontier.RobotsRetry = time.Hour // the next robots.txt attempt is far off
	tc.cfg.Frontier.RobotsTries = 5
	tc.cfg.Frontier.Limits.MaxPages = 5
	sum := tc.crawl(30 * time.Second)
	if sum.Reason != StopPages {
		t.Errorf("stop reason %q, want %q", sum.Reason, StopPages)
	}
	if n := tc.web.requests("http://b.test/robots.txt"); n != 1 {
		t.Errorf("b.test/robots.txt requested %d times, want 1", n)
	}
}

// errOutage is what a store that lost its database answers.
var errOutage = errors.New("connection refused")

// outageStore is a store that can become unavailable: every call fails
// until it is back; with hang, the engine's own calls (commits, counters,
// figures) wait for their context instead.
type outageStore struct {
	crawl.Store
	mu      sync.Mutex
	down    bool
	hang    bool   // calls wait for their context instead of failing
	noticed func() // called at the first call that finds the store down
	once    sync.Once
}

func (s *outageStore) set(down, hang bool) {
	s.mu.Lock()
	s.down, s.hang = down, hang
	s.mu.Unlock()
}

func (s *outageStore) check(ctx context.Context) error {
	return s.checkHang(ctx, false)
}

func (s *outageStore) checkHang(ctx context.Context, mayHang bool) error {
	s.mu.Lock()
	down, hang := s.down, s.hang && mayHang
	s.mu.Unlock()
	if !down {
		return nil
	}
	if s.noticed != nil {
		s.once.Do(s.noticed)
	}
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	return errOutage
}

func (s *outageStore) AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	if err := s.check(ctx); err != nil {
		return crawl.AddStats{}, err
	}
	return s.Store.AddURLs(ctx, urls, lim)
}

func (s *outageStore) ClaimHosts(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]crawl.Host, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return s.Store.ClaimHosts(ctx, owner, n, lease, now)
}

func (s *outageStore) RenewHosts(ctx context.Context, owner string, ids []crawl.ID, lease time.Duration, now time.Time) ([]crawl.ID, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return s.Store.RenewHosts(ctx, owner, ids, lease, now)
}

func (s *outageStore) ReleaseHosts(ctx context.Context, owner string, hosts []crawl.HostRelease) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	return s.Store.ReleaseHosts(ctx, owner, hosts)
}

func (s *outageStore) RecordTraps(ctx context.Context, traps map[crawl.ID]string) error {
	if err := s.checkHang(ctx, true); err != nil {
		return err
	}
	return s.Store.RecordTraps(ctx, traps)
}

func (s *outageStore) ClaimURLs(ctx context.Context, owner string, host crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.ClaimedURL, time.Time, error) {
	if err := s.check(ctx); err != nil {
		return nil, time.Time{}, err
	}
	return s.Store.ClaimURLs(ctx, owner, host, n, lim, now)
}

func (s *outageStore) ClaimURLsOf(ctx context.Context, owner string, hosts []crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.Claim, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	return s.Store.ClaimURLsOf(ctx, owner, hosts, n, lim, now)
}

func (s *outageStore) Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error) {
	if err := s.checkHang(ctx, true); err != nil {
		return crawl.CommitStats{}, err
	}
	return s.Store.Commit(ctx, results, lim)
}

func (s *outageStore) SaveRobots(ctx context.Context, host crawl.ID, rec crawl.RobotsRecord, upd crawl.HostUpdate) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	return s.Store.SaveRobots(ctx, host, rec, upd)
}

func (s *outageStore) URL(ctx context.Context, id crawl.ID) (crawl.URLRecord, error) {
	if err := s.check(ctx); err != nil {
		return crawl.URLRecord{}, err
	}
	return s.Store.URL(ctx, id)
}

func (s *outageStore) Counters(ctx context.Context) (crawl.Counters, error) {
	if err := s.checkHang(ctx, true); err != nil {
		return crawl.Counters{}, err
	}
	return s.Store.Counters(ctx)
}

func (s *outageStore) RecordMetrics(ctx context.Context, m crawl.Metrics) error {
	if err := s.checkHang(ctx, true); err != nil {
		return err
	}
	return s.Store.RecordMetrics(ctx, m)
}

// chainSite is a site of pages /0 ... /n-1, each linking to the next
// eight; /0 links to all.
func chainSite(n int) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			rw.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		i := atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if i < 0 || i >= n || r.URL.Path != "/"+strconv.Itoa(i) && r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		last := min(n, i+9)
		if i == 0 {
			last = n // claims fill the hosts' buffers
		}
		var links strings.Builder
		for j := i + 1; j < last; j++ {
			fmt.Fprintf(&links, `<a href="/%d">page %d</a> `, j, j)
		}
		html(rw, fmt.Sprintf("page %d: %s", i, links.String()))
	}
}

// chainSeeds are the first pages of n chain sites, hosts h0.test, h1.test, …
func chainSeeds(n int) []string {
	var seeds []string
	for h := range n {
		seeds = append(seeds, fmt.Sprintf("http://h%d.test/0", h))
	}
	return seeds
}

// totalRequests counts the requests a test web received.
func (w *web) total() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.reqs {
		n += c
	}
	return n
}

// With the store unavailable nothing is fetched whose result could not be
// recorded: once the engine meets the outage, only what it had already
// handed out is requested; after StoreOutage the crawl ends with an error
// saying so; and a resumed crawl records every page once.
func TestStoreOutageStopsFetching(t *testing.T) {
	t.Parallel()
	const hosts, pages = 5, 60
	tc := newTestCrawl(t, chainSite(pages), chainSeeds(hosts)...)
	tc.cfg.NoSitemaps = true
	tc.cfg.Workers = 4
	tc.cfg.TrapPolicy = TrapWarn // a chain of new pages is not a trap here
	tc.cfg.StoreOutage = time.Second
	tc.cfg.Frontier.Lease = time.Second // a resumed crawl takes the hosts back soon
	atNotice := make(chan int, 1)
	st := &outageStore{Store: tc.open(), noticed: func() { atNotice <- tc.web.total() }}
	e, err := New(st, tc.cfg)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for tc.web.total() < 30 {
			time.Sleep(time.Millisecond)
		}
		st.set(true, false)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := e.Run(ctx)
	if ctx.Err() != nil {
		t.Fatal("the crawl did not end during the outage")
	}
	if err == nil || !errors.Is(err, errOutage) || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("Run error %v, want the outage, said to be one", err)
	}
	if sum.Reason != StopStoreError {
		t.Errorf("stop reason %q, want %q", sum.Reason, StopStoreError)
	}
	noticed := <-atNotice
	// Each worker may hold a task handed out before the outage was met,
	// and the dispatcher one more it was handing out.
	if after := tc.web.total() - noticed; after > tc.cfg.Workers+1 {
		t.Errorf("%d requests after the outage was met, want at most %d (in flight)", after, tc.cfg.Workers+1)
	}
	t.Logf("%d requests before the outage was met, %d after", noticed, tc.web.total()-noticed)

	// Resume with the store back: every page recorded, each fetched at
	// most twice (again only when its first result was lost).
	st.set(false, false)
	tc.cfg.Seeds = nil
	tc.cfg.Frontier.Owner = "resumed" // a new process
	time.Sleep(tc.cfg.Frontier.Lease) // the dead run's lease expires
	tc.crawl(30 * time.Second)
	for h := range hosts {
		for i := range pages {
			u := fmt.Sprintf("http://h%d.test/%d", h, i)
			if p := tc.page(u); p == nil || p.Status != 200 {
				t.Errorf("%s not recorded after resuming", u)
			}
			if n := tc.web.requests(u); n > 2 {
				t.Errorf("%s requested %d times", u, n)
			}
		}
	}
}

// A stop (a signal) during an outage ends the crawl promptly, whether the
// store fails or does not answer at all.
func TestStopDuringStoreOutage(t *testing.T) {
	t.Parallel() // it waits more than it computes
	for _, hang := range []bool{false, true} {
		t.Run(fmt.Sprintf("hang=%v", hang), func(t *testing.T) {
			t.Parallel() // each its own web and store; they wait out the stop's grace
			tc := newTestCrawl(t, chainSite(200), "http://a.test/0")
			tc.cfg.NoSitemaps = true
			tc.cfg.StoreOutage = time.Hour
			st := &outageStore{Store: tc.open()}
			e, err := New(st, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			e.grace = time.Second // shutdownGrace's role, shorter
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				for tc.web.total() < 20 {
					time.Sleep(time.Millisecond)
				}
				st.set(true, hang)
				time.Sleep(500 * time.Millisecond) // the crawl meets the outage
				cancel()                           // SIGINT
			}()
			done := runLater(ctx, e)
			select {
			case got := <-done:
				if got.sum.Reason != StopInterrupt {
					t.Errorf("stop reason %q, want %q", got.sum.Reason, StopInterrupt)
				}
				// The results the store could not take are named as such.
				if !errors.Is(got.err, errGraceOver) || !strings.Contains(got.err.Error(), "grace of 1s") {
					t.Errorf("Run error %v; want it to say the stop's grace of 1s ran out", got.err)
				}
			case <-time.After(40 * time.Second):
				t.Fatal("Run did not return after a stop during a store outage")
			}
		})
	}
}

// The first progress report counts the URLs found since the start: it
// does not say 0.0 new URLs per page.
func TestFirstProgressCountsNewURLs(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, chainSite(30), "http://a.test/0")
	tc.cfg.NoSitemaps = true
	var mu sync.Mutex
	var reports []Progress
	tc.cfg.ProgressEvery = time.Hour // only the final report comes
	tc.cfg.Progress = func(p Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}
	tc.crawl(30 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 {
		t.Fatalf("%d progress reports, want the final one", len(reports))
	}
	if p := reports[0]; p.Fetched == 0 || p.NewPerPage <= 0 {
		t.Errorf("first report: %d fetched, %.2f new URLs per page; want the rate since the start", p.Fetched, p.NewPerPage)
	}
}

// cancelingStore is a store whose calls of one kind cancel the crawl's
// context and fail as a database driver does then.
type cancelingStore struct {
	crawl.Store
	cancel func()
	in     string // "add": AddURLs; "due": ScheduleDue
}

func (s *cancelingStore) AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	if s.in == "add" {
		s.cancel()
		return crawl.AddStats{}, ctx.Err()
	}
	return s.Store.AddURLs(ctx, urls, lim)
}

func (s *cancelingStore) ScheduleDue(ctx context.Context, now time.Time, all bool, limit int) (int, error) {
	if s.in == "due" {
		s.cancel()
		return 0, ctx.Err()
	}
	return s.Store.ScheduleDue(ctx, now, all, limit)
}

// A crawl whose context ends while it adds its seeds or queues the pages
// due for a revisit stops as interrupted, without an error: the store did
// not fail.
func TestStopBeforeTheCrawlIsNoError(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"add", "due"} {
		t.Run(in, func(t *testing.T) {
			tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) { html(rw, "a") }, "http://a.test/")
			tc.cfg.NoSitemaps = true
			tc.cfg.DueAtStart = true
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e, err := New(&cancelingStore{Store: tc.open(), cancel: cancel, in: in}, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := e.Run(ctx)
			if err != nil {
				t.Fatalf("Run: %v; want a stop without an error", err)
			}
			if sum.Reason != StopInterrupt {
				t.Errorf("stop reason %q, want %q", sum.Reason, StopInterrupt)
			}
		})
	}
}

// addOutageStore fails every AddURLs while down, and nothing else: an
// outage met first by a worker queueing a host's sitemaps.
type addOutageStore struct {
	crawl.Store
	mu      sync.Mutex
	down    bool
	noticed func() // called at the first AddURLs that finds the store down
	once    sync.Once
}

func (s *addOutageStore) set(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

func (s *addOutageStore) AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down {
		s.once.Do(s.noticed)
		return crawl.AddStats{}, errOutage
	}
	return s.Store.AddURLs(ctx, urls, lim)
}

// A store call other than a commit that meets the outage pauses fetching
// as a failing commit does: only what was handed out before is requested
// until the store answers again, and then the crawl goes on to the end.
func TestStoreOutageMetByAnAddPausesFetching(t *testing.T) {
	t.Parallel()
	const hosts, pages = 6, 100
	// The store goes down as the last host's robots.txt is served, held
	// until the other hosts are partly crawled: the sitemaps it names are
	// the first thing the crawl cannot queue, while the other workers have
	// pages left to fetch.
	st := &addOutageStore{}
	site := chainSite(pages)
	last := fmt.Sprintf("h%d.test", hosts-1)
	var tc *testCrawl
	tc = newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		if r.Host == last && r.URL.Path == "/robots.txt" {
			for deadline := time.Now().Add(time.Minute); tc.web.total() < 60 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			st.set(true)
		}
		site(rw, r)
	}, chainSeeds(hosts)...)
	tc.cfg.Workers = 4
	tc.cfg.TrapPolicy = TrapWarn
	tc.cfg.StoreOutage = time.Minute
	atNotice := make(chan int, 1)
	st.Store, st.noticed = tc.open(), func() { atNotice <- tc.web.total() }
	done := make(chan ended, 1)
	go func() {
		e, err := New(st, tc.cfg)
		if err != nil {
			done <- ended{err: err}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		sum, err := e.Run(ctx)
		if ctx.Err() != nil {
			err = fmt.Errorf("the crawl did not end in 2 minutes: %w", ctx.Err())
		}
		done <- ended{sum, err}
	}()
	var noticed int
	select {
	case noticed = <-atNotice:
	case got := <-done:
		t.Fatalf("the crawl ended (%v) before the outage", got.err)
	}
	time.Sleep(time.Second)
	after := tc.web.total() - noticed
	t.Logf("%d requests before the outage was met, %d in the second after", noticed, after)
	// Each worker may hold a task handed out before the outage was met,
	// and the dispatcher one more it was handing out.
	if after > tc.cfg.Workers+1 {
		t.Errorf("%d requests after the outage was met, want at most %d (in flight)", after, tc.cfg.Workers+1)
	}
	st.set(false)
	got := <-done
	if got.err != nil {
		t.Fatalf("Run after the store came back: %v", got.err)
	}
	for h := range hosts {
		for i := range pages {
			if u := fmt.Sprintf("http://h%d.test/%d", h, i); tc.page(u) == nil {
				t.Errorf("%s not recorded", u)
			}
		}
	}
}
