package frontier_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// valuedStore is a store whose hosts have fixed values.
type valuedStore struct {
	crawl.Store
	values map[string]int // by host key
	asked  int
}

func (s *valuedStore) ValueHosts(ctx context.Context, ids []crawl.ID) ([]int, error) {
	s.asked++
	out := make([]int, len(ids))
	for i, id := range ids {
		for k, v := range s.values {
			if crawl.HashID(k) == id {
				out[i] = v
			}
		}
	}
	return out, nil
}

// crawlOrder hands out tasks until n pages were handed out, doing each at
// once (a request: the host's delay applies from then), and returns the
// page URLs in order.
func crawlOrder(t *testing.T, f *frontier.Frontier, c *clock, n int) []string {
	t.Helper()
	var order []string
	for len(order) < n {
		task, _ := waitTask(t, f, c)
		if task.Kind == frontier.FetchURL {
			order = append(order, task.URL.URL)
		}
		f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	}
	return order
}

func hostsOf(urls []string) string {
	var b strings.Builder
	for _, u := range urls {
		b.WriteString(u[len("http://") : len("http://")+1])
	}
	return b.String()
}

// TestBudgetWaitsForTheBestHost: under a page budget, a host of research
// (priority 10) takes every request its politeness allows, and the slots
// in between stay unused rather than go to a blog (priority 0) that is
// ready; without a budget, the blog takes them.
func TestBudgetWaitsForTheBestHost(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 6 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://research.test/%d", i), 1, 10),
			storetest.U(fmt.Sprintf("http://blog.test/%d", i), 1, 0))
	}
	for _, tc := range []struct {
		name   string
		budget int64
		want   string
	}{
		{"budget", 100, "rrrrrr"},
		{"no budget", 0, "rbrbrb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := frontier.Config{HostValues: true, Delay: time.Second, Limits: crawl.Limits{MaxPages: tc.budget}}
			f, c, st := setup(t, cfg, urls...)
			knownRobots(t, st, c, urls...)
			if got := hostsOf(crawlOrder(t, f, c, 6)); got != tc.want {
				t.Errorf("hosts of the first six pages: %s, want %s (r: research.test, b: blog.test)", got, tc.want)
			}
		})
	}
}

// TestHostValueRanksHosts: among hosts whose best URLs have one priority,
// the one the store values most goes first, with or without a budget; with
// HostValues off (the breadth-first and depth-first orders), values are
// not asked for.
func TestHostValueRanksHosts(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/", 1, 5), storetest.U("http://m.test/", 1, 5), storetest.U("http://j.test/", 1, 5)}
	for _, tc := range []struct {
		name   string
		values bool
		budget int64
		want   string
	}{
		{"values", true, 0, "jam"},
		{"values under a budget", true, 100, "jam"},
		{"no values", false, 0, "ajm"}, // by host ID
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c, st := setup(t, frontier.Config{HostValues: tc.values, Limits: crawl.Limits{MaxPages: tc.budget}}, urls...)
			knownRobots(t, st, c, urls...)
			vs := &valuedStore{Store: st, values: map[string]int{"http://j.test": 12, "http://a.test": 2, "http://m.test": -20}}
			f = frontier.New(vs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, HostValues: tc.values,
				Limits: crawl.Limits{MaxPages: tc.budget}})
			got := crawlOrder(t, f, c, 3)
			if tc.values {
				if h := hostsOf(got); h != tc.want {
					t.Errorf("hosts in order %s, want %s (by value)", h, tc.want)
				}
			} else if vs.asked > 0 {
				t.Errorf("ValueHosts asked %d times with HostValues off", vs.asked)
			}
		})
	}
}

// TestAgingMovesLowerHosts: without a budget, when one host always has a
// better URL ready, a host of lower rank is still served once it has
// waited Aging per rank point between them; with aging off, only after
// the better host runs out.
func TestAgingMovesLowerHosts(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 60 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/%d", i), 1, 10))
	}
	urls = append(urls, storetest.U("http://b.test/", 1, 0))
	for _, tc := range []struct {
		name    string
		aging   time.Duration
		atLeast int
		atMost  int
	}{
		{"aging", 50 * time.Millisecond, 40, 55}, // 10 points × 50ms = 500ms, 10ms a task
		{"no aging", -1, 61, 61},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c, st := setup(t, frontier.Config{HostValues: true, Aging: tc.aging, Batch: 64}, urls...)
			knownRobots(t, st, c, urls...)
			at := 0
			for n := 1; n <= len(urls); n++ {
				task, _ := waitTask(t, f, c)
				if task.URL.URL == "http://b.test/" {
					at = n
				}
				f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
				c.advance(10 * time.Millisecond)
			}
			t.Logf("b.test served as task %d", at)
			if at < tc.atLeast || at > tc.atMost {
				t.Errorf("b.test served as task %d, want between %d and %d", at, tc.atLeast, tc.atMost)
			}
		})
	}
}

// TestMirrorAndCopiesRankLow: a host taken for a mirror (Mirror) ranks
// by at most the value of a host of copies, and one whose committed pages
// are mostly copies of other hosts' (Copies) by what they leave it worth,
// before the store has revalued either: among three hosts of one value
// and priority, the plain one goes first, the mirror last.
func TestMirrorAndCopiesRankLow(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/p", 1, 5), storetest.U("http://c.test/p", 1, 5), storetest.U("http://m.test/p", 1, 5)}
	f, c, st := setup(t, frontier.Config{HostValues: true}, urls...)
	knownRobots(t, st, c, urls...)
	f.Mirror(crawl.HashID("http://m.test")) // not held yet: applies when claimed
	// Claims the hosts; their URLs are ranked once buffered.
	task, _ := waitTask(t, f, c)
	f.Copies(crawl.HashID("http://c.test"), 2, 1, 0) // (−24 − 12) / 6 = −6
	f.Copies(crawl.HashID("http://a.test"), 3, 1, 0) // a third: not mostly copies
	order := []string{task.URL.URL}
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	order = append(order, crawlOrder(t, f, c, 2)...)
	// The first task is handed out before Copies is told (a or c, by ID;
	// the mirror ranks low from its claim on).
	want := "acm"
	if order[0] == "http://c.test/p" {
		want = "cam"
	}
	if got := hostsOf(order); got != want {
		t.Errorf("hosts in order %s, want %s (a: plain, c: copies, m: a mirror)", got, want)
	}
}

// TestValueFloor: a host's positive value does not lift its URLs below
// ValueFloor (news, about pages): a research site whose research is spent
// ranks by its news, below a plain page of a host not known; its negative
// value still counts.
func TestValueFloor(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://r.test/news/1", 1, -14), storetest.U("http://n.test/", 1, -2)}
	f, c, st := setup(t, frontier.Config{HostValues: true}, urls...)
	knownRobots(t, st, c, urls...)
	vs := &valuedStore{Store: st, values: map[string]int{"http://r.test": 18}}
	f = frontier.New(vs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, HostValues: true})
	if got := hostsOf(crawlOrder(t, f, c, 2)); got != "nr" {
		t.Errorf("hosts in order %s, want n (a plain page) before r (its news, its value not counted)", got)
	}
}

// TestBudgetHoldsBackBelowZero: under a page budget, a host ranking below
// 0 waits for one ranking above it even within BudgetSlack of it (a
// shop's home page beside a research host's plain page); without a budget
// it takes the slots the research host leaves.
func TestBudgetHoldsBackBelowZero(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 6 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://research.test/%d", i), 1, 3),
			storetest.U(fmt.Sprintf("http://shop.test/%d", i), 1, -1))
	}
	for _, tc := range []struct {
		name   string
		budget int64
		want   string
	}{
		{"budget", 100, "rrrrrr"},
		{"no budget", 0, "rsrsrs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c, st := setup(t, frontier.Config{HostValues: true, Delay: time.Second, Limits: crawl.Limits{MaxPages: tc.budget}}, urls...)
			knownRobots(t, st, c, urls...)
			if got := hostsOf(crawlOrder(t, f, c, 6)); got != tc.want {
				t.Errorf("hosts of the first six pages: %s, want %s (r: research.test, s: shop.test)", got, tc.want)
			}
		})
	}
}

// TestNotMirror: a host no longer taken for a mirror (NotMirror: it was
// met before its mirror and taken for it) ranks by its value and its URLs
// again, held now or claimed later.
func TestNotMirror(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/p", 1, 5), storetest.U("http://o.test/p", 1, 6)}
	f, c, st := setup(t, frontier.Config{HostValues: true}, urls...)
	knownRobots(t, st, c, urls...)
	o := crawl.HashID("http://o.test")
	f.Mirror(o)
	f.NotMirror(o)
	if got := hostsOf(crawlOrder(t, f, c, 2)); got != "oa" {
		t.Errorf("hosts in order %s, want oa (o: no longer taken for a mirror, ranking above a)", got)
	}
}

// markingStore records the mirror marks it is asked to make, and makes
// them in its store.
type markingStore struct {
	crawl.Store
	mu    sync.Mutex
	marks [][2]crawl.ID // host, original
}

func (s *markingStore) ValueHosts(ctx context.Context, ids []crawl.ID) ([]int, error) {
	return s.Store.(frontier.HostValuer).ValueHosts(ctx, ids)
}

func (s *markingStore) MarkMirror(ctx context.Context, host, original crawl.ID) error {
	s.mu.Lock()
	s.marks = append(s.marks, [2]crawl.ID{host, original})
	s.mu.Unlock()
	return s.Store.(frontier.MirrorKeeper).MarkMirror(ctx, host, original)
}

func (s *markingStore) made() [][2]crawl.ID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.marks)
}

// TestCopiesRecordMirror: a host whose committed pages are mostly copies
// of another host's, at least three (Copies), is recorded in the store as
// that host's mirror, not as Copies is told but in the frontier's next
// round of store I/O; the crawl report names its original and the store
// values it at crawl.MirrorValue at most. Fewer copies, copies of a host
// not known, or copies of less than half the pages record nothing; a
// host whose copies turn out to be less than half its pages has its mark
// cleared (here by ReleaseAll, which records the marks still queued).
func TestCopiesRecordMirror(t *testing.T) {
	urls := []crawl.NewURL{storetest.U("http://a.test/p", 1, 5), storetest.U("http://m.test/p", 1, 5),
		storetest.U("http://c.test/p", 1, 5), storetest.U("http://a.test/q", 1, 5)}
	_, c, st := setup(t, frontier.Config{}, urls...)
	knownRobots(t, st, c, urls...)
	ms := &markingStore{Store: st}
	f := frontier.New(ms, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, HostValues: true})
	a, m, cc := crawl.HashID("http://a.test"), crawl.HashID("http://m.test"), crawl.HashID("http://c.test")
	task, _ := waitTask(t, f, c)
	f.Done(context.Background(), task, frontier.Feedback{Requested: true, Finished: c.now()})
	f.Copies(m, 4, 3, a)
	f.Copies(cc, 4, 2, a) // two copies: not enough
	f.Copies(a, 1, 1, 0)  // a copy of a host not known
	f.Copies(cc, 8, 3, a) // three copies of eight pages
	if got := ms.made(); len(got) > 0 {
		t.Fatalf("marks made as Copies was told: %v, want none before the next round", got)
	}
	crawlOrder(t, f, c, 1)
	f.Stop(time.Minute) // waits for the round
	if got, want := ms.made(), [][2]crawl.ID{{m, a}}; !slices.Equal(got, want) {
		t.Errorf("marks made %v, want %v (m.test a mirror of a.test)", got, want)
	}
	stats, err := st.HostStats(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range stats {
		want := map[string]string{"http://m.test": "http://a.test"}[h.Key]
		if h.MirrorOf != want {
			t.Errorf("HostStats of %s: mirror of %q, want %q", h.Key, h.MirrorOf, want)
		}
	}
	if vs, err := ms.ValueHosts(context.Background(), []crawl.ID{m}); err != nil || vs[0] > crawl.MirrorValue {
		t.Errorf("ValueHosts(m.test) = %v, %v; want at most %d", vs, err, crawl.MirrorValue)
	}
	f.Copies(m, 7, 3, a) // its other pages are its own
	if err := f.ReleaseAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := ms.made(), [][2]crawl.ID{{m, a}, {m, 0}}; !slices.Equal(got, want) {
		t.Errorf("marks made %v, want %v (m.test's mark cleared)", got, want)
	}
}

// TestPlainRunStopsTheLift: a host valued for its research whose last
// committed pages were no research, spentRun of them in a row (Plain),
// ranks its URLs by themselves: the pages of a host not known (ranking
// 2) go before its next one (/node/N news titled like research, ranking
// 0), which its value lifted above them before; a page of research again
// gives the lift back.
func TestPlainRunStopsTheLift(t *testing.T) {
	var urls []crawl.NewURL
	for i := range 4 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://r.test/node/%d", i), 1, 0), storetest.U(fmt.Sprintf("http://n.test/%d", i), 1, 2))
	}
	_, c, st := setup(t, frontier.Config{}, urls...)
	knownRobots(t, st, c, urls...)
	vs := &valuedStore{Store: st, values: map[string]int{"http://r.test": 12}}
	f := frontier.New(vs, frontier.Config{Owner: "test", Token: "acrawler", Now: c.now, HostValues: true})
	r := crawl.HashID("http://r.test")
	order := crawlOrder(t, f, c, 2)
	f.Plain(r, 7)
	order = append(order, crawlOrder(t, f, c, 1)...)
	f.Plain(r, 8)
	order = append(order, crawlOrder(t, f, c, 2)...)
	f.Plain(r, 0)
	order = append(order, crawlOrder(t, f, c, 1)...)
	if got, want := hostsOf(order), "rrrnnr"; got != want {
		t.Errorf("hosts in order %s, want %s (r lifted by its value, then not after 8 pages of no research, then again)", got, want)
	}
}
