package frontier_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// hangingStore answers every claim of URLs only when its context ends: a
// database that stopped answering without an error.
type hangingStore struct {
	crawl.Store
	claiming chan struct{}
}

func (s hangingStore) hang(ctx context.Context) error {
	select {
	case s.claiming <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s hangingStore) ClaimURLs(ctx context.Context, owner string, host crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.ClaimedURL, time.Time, error) {
	return nil, time.Time{}, s.hang(ctx)
}

func (s hangingStore) ClaimURLsOf(ctx context.Context, owner string, hosts []crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.Claim, error) {
	return nil, s.hang(ctx)
}

// A stop ends although the store hangs in a claim of URLs (made in the
// background): Next returns when its context ends, and Stop cancels the
// claim after a bounded wait.
func TestStopWhileStoreHangs(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.AddURLs(context.Background(), []crawl.NewURL{storetest.U("http://a.test/", 0, 0)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs := hangingStore{Store: st, claiming: make(chan struct{}, 1)}
	f := frontier.New(hs, frontier.Config{Owner: "test", Token: "acrawler"})
	ctx, cancel := context.WithCancel(context.Background())
	nextDone := make(chan error, 1)
	go func() {
		// The dispatcher's loop: Next until it fails or hands out a task.
		for range 100000 {
			task, ok, _, err := f.Next(ctx)
			if err != nil {
				nextDone <- err
				return
			}
			switch {
			case ok && task.Kind == frontier.FetchRobots:
				f.RobotsDone(ctx, task, 404, nil, frontier.Feedback{Requested: true})
			case ok:
				f.Done(ctx, task, frontier.Feedback{Requested: true})
			default:
				time.Sleep(time.Millisecond)
			}
		}
		nextDone <- nil
	}()
	select {
	case <-hs.claiming:
	case <-time.After(20 * time.Second):
		t.Fatal("the frontier never claimed hosts")
	}
	cancel()
	select {
	case err := <-nextDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Next after its context ended = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Next did not return after its context ended while the store hung")
	}
	stopped := make(chan struct{})
	go func() { f.Stop(5 * time.Second); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return while the store hung")
	}
}

// lateStore makes each claim of URLs the store answers too late for its
// caller: the caller's context ends while the claim runs (cancel), the
// claim is made all the same, and the store reports the end of its
// context if it saw one, as a database does that committed a statement
// whose answer came after its client gave up.
type lateStore struct {
	crawl.Store
	cancel context.CancelFunc
}

func (s lateStore) ClaimURLsOf(ctx context.Context, owner string, hosts []crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.Claim, error) {
	s.cancel()
	cs, err := s.Store.ClaimURLsOf(context.WithoutCancel(ctx), owner, hosts, n, lim, now)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return cs, err
}

// A claim running when Next's context ends (the crawl's time is up) still
// lands in the frontier, and Stop returns its URLs: a clean stop leaves no
// URL in flight.
func TestClaimOutlivingNextIsReturned(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "f.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	urls := []crawl.NewURL{storetest.U("http://a.test/1", 0, 2), storetest.U("http://a.test/2", 0, 1)}
	if _, err := st.AddURLs(context.Background(), urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	knownRobots(t, st, c, urls...)
	ctx, cancel := context.WithCancel(context.Background())
	f := frontier.New(lateStore{Store: st, cancel: cancel}, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now})
	if task, ok, _, err := f.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next whose context ended during a claim = %+v, %v, %v; want context.Canceled", task, ok, err)
	}
	back := f.Stop(5 * time.Second)
	cnt, err := st.Counters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cnt.InFlight == 0 {
		t.Fatal("the claim took no URL: the test proves nothing")
	}
	if int64(len(back)) != cnt.InFlight {
		t.Errorf("Stop returned %d URLs, the store has %d in flight", len(back), cnt.InFlight)
	}
}
