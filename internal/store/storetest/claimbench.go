package storetest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// LargeFrontier is what a setup of RunClaimLarge wrote: the store
// handles (one an owner) and how to measure them.
type LargeFrontier struct {
	Stores []crawl.Store
	// URLID gives the ID the setup gave a URL of host (the host's ID)
	// and a new URL of it takes. nil: the frontier has no links to make
	// (ACRAWLER_BENCH_LINKS skips it).
	URLID func(url string, host crawl.ID) crawl.ID
	// Written gives the bytes the store has written so far (the
	// process's writes, the server's WAL); nil: not reported.
	Written func() int64
	// Frontier gives the bytes the frontier's tables and indexes take
	// (the stage of offers not merged yet left out); nil: not reported.
	Frontier func() int64
}

// LargeFrontierSizes are the sizes of the large frontiers to measure: the
// URLS:HOSTS pairs of ACRAWLER_BENCH_FRONTIER, 1000000:100000 by default.
func LargeFrontierSizes(b *testing.B) [][2]int {
	v := os.Getenv("ACRAWLER_BENCH_FRONTIER")
	if v == "" {
		return [][2]int{{1_000_000, 100_000}}
	}
	var sizes [][2]int
	for _, f := range strings.Split(v, ",") {
		u, h, ok := strings.Cut(strings.TrimSpace(f), ":")
		nu, err1 := strconv.Atoi(u)
		nh, err2 := strconv.Atoi(h)
		if !ok || err1 != nil || err2 != nil || nu < nh || nh <= 0 {
			b.Fatalf("ACRAWLER_BENCH_FRONTIER: %q is not a list of URLS:HOSTS", v)
		}
		sizes = append(sizes, [2]int{nu, nh})
	}
	return sizes
}

// RunClaimLarge runs the cycle of crawl processes over each large
// frontier setup writes (one store handle an owner, as if each were a
// process of its own): ClaimHosts (64), then ClaimRound over them (up to
// 4 URLs a host, released a minute on), the clock advancing 100 ms a
// cycle. A frontier is urls URLs over hosts hosts, host i's key
// "http://hI.test" and its URLs "http://hI.test/papers/J/a-page-of-research"
// for J from 1 (every host with as many URLs queued, the first of them at
// priority 9, the others 0–8, every host due), read by the owners store
// handles it returns. Sizes are LargeFrontierSizes, owners from
// ACRAWLER_BENCH_OWNERS (1 by default). With ACRAWLER_BENCH_LINKS set
// (1, or "links" or "found": LinkedPage's parts) each page fetched links
// to 30 URLs and offers them, and the run reports the URLs added a page.
// Where the setup says how, it reports the bytes the store wrote a page
// and a URL added.
func RunClaimLarge(b *testing.B, setup func(b *testing.B, urls, hosts, owners int) LargeFrontier) {
	sizes := LargeFrontierSizes(b)
	owners := []int{1}
	if v := os.Getenv("ACRAWLER_BENCH_OWNERS"); v != "" {
		owners = owners[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("ACRAWLER_BENCH_OWNERS: %q is not a list of counts", v)
			}
			owners = append(owners, n)
		}
	}
	linked := os.Getenv("ACRAWLER_BENCH_LINKS")
	for _, size := range sizes {
		for _, n := range owners {
			b.Run(fmt.Sprintf("urls=%d/hosts=%d/owners=%d", size[0], size[1], n), func(b *testing.B) {
				if b.N > size[0] {
					b.Fatalf("%d ops: more than the %d URLs to claim", b.N, size[0])
				}
				start := time.Now()
				f := setup(b, size[0], size[1], n)
				b.Logf("%d URLs over %d hosts written in %s", size[0]/size[1]*size[1], size[1], time.Since(start).Round(time.Second))
				c := ClaimCycle{Hosts: 64, PerHost: 4, Step: 100 * time.Millisecond, Next: time.Minute, Written: f.Written,
					Frontier: f.Frontier}
				if linked != "" {
					if f.URLID == nil {
						b.Skip("ACRAWLER_BENCH_LINKS: this frontier makes no links")
					}
					c.Page = LinkedPage(size[1], size[0]/size[1], f.URLID, linked)
				}
				BenchClaims(b, f.Stores, c)
			})
		}
	}
}

// LinkedPage gives each page of a RunClaimLarge frontier (hosts hosts of
// per URLs) 30 links, each offered as a URL found, shaped as the
// throughput benchmark's web (docs/design/write-path.md) with new URLs
// among them as a crawl finds them: 16 to pages of its own host the
// frontier holds, 4 to new pages of its host, 8 to the first page of
// other hosts, 2 to new pages of other hosts. So 6 URLs a page are new,
// a third of them elsewhere. id gives the URLs' IDs (LargeFrontier.URLID).
// parts "links" gives the links alone, "found" the URLs found alone, to
// tell their costs apart; anything else, both.
func LinkedPage(hosts, per int, id func(url string, host crawl.ID) crawl.ID, parts string) func(crawl.ClaimedURL) ([]crawl.Link, []crawl.NewURL) {
	return func(u crawl.ClaimedURL) ([]crawl.Link, []crawl.NewURL) {
		var h, j int
		if _, err := fmt.Sscanf(u.URL, "http://h%d.test/papers/%d/", &h, &j); err != nil {
			return nil, nil // a page the frontier did not hold at the start: a new one, linking nowhere
		}
		links := make([]crawl.Link, 0, 30)
		found := make([]crawl.NewURL, 0, 30)
		add := func(host int, path string) {
			key := fmt.Sprintf("http://h%d.test", host)
			target := key + path
			tid := id(target, crawl.ID(host))
			links = append(links, crawl.Link{TargetID: tid, Target: target, Anchor: "a link"})
			found = append(found, crawl.NewURL{ID: tid, URL: target, HostID: crawl.ID(host), Host: key,
				Depth: u.Depth + 1, Priority: 1, Via: crawl.ViaLink})
		}
		for m := range 16 {
			add(h, fmt.Sprintf("/papers/%d/a-page-of-research", (j+m)%per+1))
		}
		for m := range 4 {
			add(h, fmt.Sprintf("/papers/%d/refs/%d", j, m))
		}
		for m := range 10 {
			other := (h*7919+(j*10+m)*104729)%hosts + 1
			if m < 8 {
				add(other, "/papers/1/a-page-of-research")
			} else {
				add(other, fmt.Sprintf("/cited/by/%d/%d/%d", h, j, m))
			}
		}
		switch parts {
		case "links":
			return links, nil
		case "found":
			return nil, found
		}
		return links, found
	}
}

// ClaimCycle is what a cycle of BenchClaims claims and how its clock moves.
type ClaimCycle struct {
	Hosts, PerHost int           // hosts a ClaimHosts, URLs a host
	Lim            crawl.Limits  // the limits of claims and commits
	Step           time.Duration // how far the clock moves a cycle; 0: it stands, and no host to claim ends the owner's work
	Next           time.Duration // a host's next fetch after its release; 0: none
	// Page gives a fetched page's links and the URLs it offers (nil:
	// none).
	Page func(u crawl.ClaimedURL) ([]crawl.Link, []crawl.NewURL)
	// Written gives the bytes the store has written so far, and
	// Frontier those its frontier takes (nil: not reported).
	Written, Frontier func() int64
}

// BenchClaims runs cycles of c on every store at once, one owner a store,
// until b.N URLs are claimed and committed, and reports URLs claimed and
// committed per second, the milliseconds a ClaimHosts call took on
// average, and the microseconds a URL spent in each of the cycle's other
// calls (ClaimURLsOf, Commit, ReleaseHosts; with several owners, summed
// over them); with links, the URLs added a page; with Written, the bytes
// written a page and a URL added; and with Frontier, the bytes the
// frontier grew by a URL added.
func BenchClaims(b *testing.B, stores []crawl.Store, c ClaimCycle) {
	ctx := context.Background()
	page := c.Page
	if page == nil {
		page = func(crawl.ClaimedURL) ([]crawl.Link, []crawl.NewURL) { return nil, nil }
	}
	var clock atomic.Int64
	clock.Store(time.Unix(1_800_000_000, 0).UnixMilli())
	var claimed, added, claims, inClaim atomic.Int64
	var inRounds [3]atomic.Int64 // RoundTimes' fields, in nanoseconds
	var failed atomic.Value
	var wg sync.WaitGroup
	var written0, frontier0 int64
	if c.Written != nil {
		written0 = c.Written()
	}
	if c.Frontier != nil {
		frontier0 = c.Frontier()
	}
	b.ResetTimer()
	for w, s := range stores {
		wg.Go(func() {
			owner := fmt.Sprintf("bench%d", w)
			for claimed.Load() < int64(b.N) {
				now := time.UnixMilli(clock.Add(c.Step.Milliseconds()))
				t0 := time.Now()
				hs, err := s.ClaimHosts(ctx, owner, c.Hosts, time.Minute, now)
				inClaim.Add(int64(time.Since(t0)))
				claims.Add(1)
				if err != nil {
					failed.Store(err)
					return
				}
				if len(hs) == 0 {
					if c.Step == 0 {
						return
					}
					continue // none due yet: the clock moves on
				}
				var next time.Time
				if c.Next > 0 {
					next = now.Add(c.Next)
				}
				var took RoundTimes
				n, a, err := ClaimRound(ctx, s, owner, hs, c.PerHost, c.Lim, now, next, page, &took)
				if err != nil {
					failed.Store(err)
					return
				}
				for i, d := range []time.Duration{took.ClaimURLs, took.Commit, took.Release} {
					inRounds[i].Add(int64(d))
				}
				claimed.Add(int64(n))
				added.Add(int64(a))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(claimed.Load())/b.Elapsed().Seconds(), "urls/s")
	b.ReportMetric(float64(inClaim.Load())/float64(claims.Load())/1e6, "ms/ClaimHosts")
	for i, name := range []string{"ClaimURLsOf", "Commit", "ReleaseHosts"} {
		b.ReportMetric(float64(inRounds[i].Load())/float64(claimed.Load())/1e3, name+"-µs/URL")
	}
	if c.Page != nil {
		b.ReportMetric(float64(added.Load())/float64(claimed.Load()), "added/page")
	}
	if c.Written != nil {
		w := float64(c.Written() - written0)
		b.ReportMetric(w/float64(claimed.Load()), "written-B/page")
		if a := added.Load(); a > 0 {
			b.ReportMetric(w/float64(a), "written-B/added")
		}
	}
	if a := added.Load(); c.Frontier != nil && a > 0 {
		b.ReportMetric(float64(c.Frontier()-frontier0)/float64(a), "frontier-B/added")
	}
}

// RoundTimes is how long a ClaimRound's calls took.
type RoundTimes struct{ ClaimURLs, Commit, Release time.Duration }

// ClaimRound is the cycle of a crawl process over the hosts hs it leased:
// ClaimURLsOf (up to n a host), one Commit of the fetched results (pages
// with the links and found URLs page gives them), ReleaseHosts with the
// next fetch time next (or none, if zero). It returns the URLs claimed and
// committed and the URLs the commit added, and, if took is not nil, sets
// how long each call took.
func ClaimRound(ctx context.Context, s crawl.Store, owner string, hs []crawl.Host, n int, lim crawl.Limits, now, next time.Time,
	page func(u crawl.ClaimedURL) ([]crawl.Link, []crawl.NewURL), took *RoundTimes) (claimed, added int, err error) {
	if took == nil {
		took = &RoundTimes{}
	}
	ids := make([]crawl.ID, len(hs))
	rel := make([]crawl.HostRelease, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
		rel[i] = crawl.HostRelease{ID: h.ID}
		if !next.IsZero() {
			rel[i].HostUpdate = crawl.HostUpdate{NextFetchAt: next, Delay: time.Second}
		}
	}
	t0 := time.Now()
	cs, err := s.ClaimURLsOf(ctx, owner, ids, n, lim, now)
	took.ClaimURLs = time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	var rs []crawl.Result
	for _, c := range cs {
		for _, u := range c.URLs {
			links, found := page(u)
			rs = append(rs, crawl.Result{URL: u, Outcome: crawl.OutcomeDone, Links: links, Discovered: found,
				Page: &crawl.Page{URL: u.URL, Status: 200, Title: "t", Text: "text of " + u.URL, Bytes: 1000}})
		}
	}
	t0 = time.Now()
	st, err := s.Commit(ctx, rs, lim)
	took.Commit = time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	t0 = time.Now()
	err = s.ReleaseHosts(ctx, owner, rel)
	took.Release = time.Since(t0)
	return len(rs), st.Add.Added, err
}
