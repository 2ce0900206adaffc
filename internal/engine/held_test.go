package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// blockingStore holds the first commit that records a page whose URL has
// block in it until open is closed, and tells entered when it starts
// waiting.
type blockingStore struct {
	crawl.Store
	block   string
	once    sync.Once
	entered chan struct{}
	open    chan struct{}
}

func (s *blockingStore) Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error) {
	for _, r := range results {
		if r.Page != nil && strings.Contains(r.URL.URL, s.block) {
			s.once.Do(func() {
				close(s.entered)
				<-s.open
			})
			break
		}
	}
	return s.Store.Commit(ctx, results, lim)
}

// TestResultsHeldBounded: while a commit is slow, the workers stop once
// the results on their way to the store hold heldBytes, whatever the
// queue's length, and nothing is lost once the commit ends.
func TestResultsHeldBounded(t *testing.T) {
	t.Parallel()
	const pages = 40
	big := "<p>" + strings.Repeat("many words of a long document ", 4000) + "</p>" // 120 KB of text
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			var b strings.Builder
			for i := range pages {
				fmt.Fprintf(&b, `<a href="/p%d">%d</a> `, i, i)
			}
			html(rw, b.String())
			return
		}
		if strings.HasPrefix(r.URL.Path, "/p") {
			html(rw, big)
			return
		}
		http.NotFound(rw, r)
	}, "http://a.test/")
	tc.cfg.NoSitemaps = true
	// Each page's result is estimated at more than 240 KB (its text and
	// main text, twice): the results on their way hold three at most.
	tc.cfg.heldBytes = 750 << 10
	st := &blockingStore{Store: tc.open(), block: "/p", entered: make(chan struct{}), open: make(chan struct{})}
	e, err := New(st, tc.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := runLater(ctx, e)
	select {
	case <-st.entered:
	case <-time.After(30 * time.Second):
		close(st.open)
		cancel()
		<-done
		t.Fatal("no page committed")
	}
	// Wait until the workers stop fetching (no new request for 300 ms).
	fetched := func() int {
		n := 0
		for i := range pages {
			n += tc.web.requests(fmt.Sprintf("http://a.test/p%d", i))
		}
		return n
	}
	last, since := fetched(), time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && time.Since(since) < 300*time.Millisecond; {
		time.Sleep(20 * time.Millisecond)
		if n := fetched(); n != last {
			last, since = n, time.Now()
		}
	}
	close(st.open)
	// Three results held (the commit's and the queue's) and one waiting
	// in each of the two workers.
	if last > 5 {
		t.Errorf("%d pages fetched while a commit held, want at most 5", last)
	}
	end := <-done
	if end.err != nil || end.sum.Reason != StopDone {
		t.Fatalf("the crawl stopped for %q (%v), want %q", end.sum.Reason, end.err, StopDone)
	}
	for i := range pages {
		u := fmt.Sprintf("http://a.test/p%d", i)
		if p := tc.page(u); p == nil || p.Status != 200 || len(p.Text) < 100_000 {
			t.Fatalf("%s not recorded whole: %+v", u, p != nil)
		}
	}
}

// heldPrep is a preparation that says how much it holds.
type heldPrep int

func (h heldPrep) HeldBytes() int { return int(h) }

// A result's room counts what the store prepared of it: a store that
// moves the page's texts into its preparation (SQLite) leaves them out of
// the page, and the preparation holds them.
func TestHeldOfCountsPreparation(t *testing.T) {
	e := &Engine{cfg: Config{heldBytes: heldBytes}}
	page := &crawl.Page{URL: "http://a.test/", Text: strings.Repeat("x", 10_000)}
	plain := e.heldOf(&crawl.Result{Page: page})
	moved := e.heldOf(&crawl.Result{Page: &crawl.Page{URL: page.URL}, Prepared: heldPrep(3_000)})
	if plain < 20_000 || moved < 3_000 || moved >= plain {
		t.Errorf("heldOf: %d with the text in the page, %d with 3,000 bytes prepared in its place", plain, moved)
	}
}
