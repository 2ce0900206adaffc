package frontier_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestBudgetEndGoesToTheBestHost: under a page budget a held-back host
// holds its best URL, claimed to rank it; when the budget is reached that
// claim is handed back (ReturnURL, committed as a release: back to the
// queue, its budget given back) and the budget's last page goes to the
// research host. Every page of the budget is research, the blog's URL is
// queued again, and the budget is then final.
func TestBudgetEndGoesToTheBestHost(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 10 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://research.test/%d", i), 1, 10),
			storetest.U(fmt.Sprintf("http://blog.test/%d", i), 1, 0))
	}
	const budget = 6
	lim := crawl.Limits{MaxPages: budget}
	f, c, st := setup(t, frontier.Config{HostValues: true, Delay: time.Second, Limits: lim}, urls...)
	knownRobots(t, st, c, urls...)
	commit := func(r crawl.Result) {
		t.Helper()
		if _, err := st.Commit(context.Background(), []crawl.Result{r}, lim); err != nil {
			t.Fatal(err)
		}
	}
	var fetched []string
	returned := 0
	for range 1000 {
		task, ok, wake := next(t, f)
		if !ok {
			s := f.Status()
			if s.Budget != nil && s.Pending == 0 && s.InFlight == 0 {
				break
			}
			if wake.IsZero() {
				wake = c.now().Add(50 * time.Millisecond)
			}
			c.set(maxTime(c.now(), wake))
			continue
		}
		switch task.Kind {
		case frontier.ReturnURL:
			returned++
			commit(crawl.Result{URL: task.URL, Outcome: crawl.OutcomeRelease})
		case frontier.FetchURL:
			fetched = append(fetched, task.URL.URL)
			upd := f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
			commit(crawl.Result{URL: task.URL, Outcome: crawl.OutcomeDone, Host: upd,
				Page: &crawl.Page{URL: task.URL.URL, Status: 200, FetchedAt: c.now()}})
		default:
			t.Fatalf("unexpected task %+v", task)
		}
	}
	t.Logf("fetched %v; %d claims returned; status %+v at %v", fetched, returned, f.Status(), c.now())
	if got := hostsOf(fetched); got != "rrrrrr" {
		t.Errorf("hosts of the budget's pages: %s, want rrrrrr (r: research.test, b: blog.test)", got)
	}
	if returned == 0 {
		t.Errorf("the blog's claimed URL was not handed back")
	}
	if !errors.Is(f.Status().Budget, crawl.ErrPageBudget) {
		t.Errorf("Budget = %v, want ErrPageBudget", f.Status().Budget)
	}
	if stop := f.Stop(time.Second); len(stop) != 0 {
		t.Errorf("Stop returned %d claimed URLs, want none left", len(stop))
	}
	cs, err := st.Counters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cs.Reserved != budget || cs.InFlight != 0 || cs.Queued != int64(len(urls)-budget) {
		t.Errorf("counters %+v: want %d reserved, nothing in flight, %d queued", cs, budget, len(urls)-budget)
	}
}

// TestFirstURLsHoldNoHostBack: under a page budget, a host whose next URL
// is fetched first whatever the host is worth (a sitemap, priority 900)
// does not hold the other hosts back while it waits for its delay: were it
// the bar, every host would wait for it, and a sitemap claimed as the
// budget is reached would have every other host's claims handed back.
func TestFirstURLsHoldNoHostBack(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 3 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://research.test/%d", i), 1, 10),
			storetest.U(fmt.Sprintf("http://sitemaps.test/sitemap%d.xml", i), 1, 900))
	}
	f, c, st := setup(t, frontier.Config{HostValues: true, Delay: time.Second, Limits: crawl.Limits{MaxPages: 100}}, urls...)
	knownRobots(t, st, c, urls...)
	if got := hostsOf(crawlOrder(t, f, c, 6)); got != "srsrsr" {
		t.Errorf("hosts of the first six pages: %s, want srsrsr (s: sitemaps.test, r: research.test)", got)
	}
}
