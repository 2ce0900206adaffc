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

// RunClaimLarge runs BenchClaimLarge over the frontiers setup writes:
// urls URLs over hosts hosts (every host with as many URLs queued, the
// first of them at priority 9, the others 0–8, every host due), read by
// owners store handles it returns. Sizes are URLS:HOSTS pairs from
// ACRAWLER_BENCH_FRONTIER (1000000:100000 by default), owners from
// ACRAWLER_BENCH_OWNERS (1 by default).
func RunClaimLarge(b *testing.B, setup func(b *testing.B, urls, hosts, owners int) []crawl.Store) {
	sizes := [][2]int{{1_000_000, 100_000}}
	if v := os.Getenv("ACRAWLER_BENCH_FRONTIER"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			u, h, ok := strings.Cut(strings.TrimSpace(f), ":")
			nu, err1 := strconv.Atoi(u)
			nh, err2 := strconv.Atoi(h)
			if !ok || err1 != nil || err2 != nil || nu < nh || nh <= 0 {
				b.Fatalf("ACRAWLER_BENCH_FRONTIER: %q is not a list of URLS:HOSTS", v)
			}
			sizes = append(sizes, [2]int{nu, nh})
		}
	}
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
	for _, size := range sizes {
		for _, n := range owners {
			b.Run(fmt.Sprintf("urls=%d/hosts=%d/owners=%d", size[0], size[1], n), func(b *testing.B) {
				if b.N > size[0] {
					b.Fatalf("%d ops: more than the %d URLs to claim", b.N, size[0])
				}
				start := time.Now()
				stores := setup(b, size[0], size[1], n)
				b.Logf("%d URLs over %d hosts written in %s", size[0]/size[1]*size[1], size[1], time.Since(start).Round(time.Second))
				BenchClaimLarge(b, stores)
			})
		}
	}
}

// BenchClaimLarge runs the cycle of crawl processes over a large frontier
// the caller wrote into the stores (one handle an owner, as if each were a
// process of its own; every host due): ClaimHosts (64), then ClaimRound
// over them (up to 4 URLs a host, released a minute on), the clock
// advancing 100 ms a cycle.
func BenchClaimLarge(b *testing.B, stores []crawl.Store) {
	BenchClaims(b, stores, ClaimCycle{Hosts: 64, PerHost: 4, Step: 100 * time.Millisecond, Next: time.Minute})
}

// ClaimCycle is what a cycle of BenchClaims claims and how its clock moves.
type ClaimCycle struct {
	Hosts, PerHost int           // hosts a ClaimHosts, URLs a host
	Lim            crawl.Limits  // the limits of claims and commits
	Step           time.Duration // how far the clock moves a cycle; 0: it stands, and no host to claim ends the owner's work
	Next           time.Duration // a host's next fetch after its release; 0: none
	// Links gives a fetched page's links (nil: none).
	Links func(url string) []crawl.Link
}

// BenchClaims runs cycles of c on every store at once, one owner a store,
// until b.N URLs are claimed and committed, and reports URLs claimed and
// committed per second and the milliseconds a ClaimHosts call took on
// average.
func BenchClaims(b *testing.B, stores []crawl.Store, c ClaimCycle) {
	ctx := context.Background()
	links := c.Links
	if links == nil {
		links = func(string) []crawl.Link { return nil }
	}
	var clock atomic.Int64
	clock.Store(time.Unix(1_800_000_000, 0).UnixMilli())
	var claimed, claims, inClaim atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
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
				n, err := ClaimRound(ctx, s, owner, hs, c.PerHost, c.Lim, now, next, links)
				if err != nil {
					failed.Store(err)
					return
				}
				claimed.Add(int64(n))
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
}

// ClaimRound is the cycle of a crawl process over the hosts hs it leased:
// ClaimURLsOf (up to n a host), one Commit of the fetched results (pages
// with the links of links), ReleaseHosts with the next fetch time next (or
// none, if zero). It returns the URLs claimed and committed.
func ClaimRound(ctx context.Context, s crawl.Store, owner string, hs []crawl.Host, n int, lim crawl.Limits, now, next time.Time,
	links func(url string) []crawl.Link) (int, error) {
	ids := make([]crawl.ID, len(hs))
	rel := make([]crawl.HostRelease, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
		rel[i] = crawl.HostRelease{ID: h.ID}
		if !next.IsZero() {
			rel[i].HostUpdate = crawl.HostUpdate{NextFetchAt: next, Delay: time.Second}
		}
	}
	cs, err := s.ClaimURLsOf(ctx, owner, ids, n, lim, now)
	if err != nil {
		return 0, err
	}
	var rs []crawl.Result
	for _, c := range cs {
		for _, u := range c.URLs {
			rs = append(rs, crawl.Result{URL: u, Outcome: crawl.OutcomeDone, Links: links(u.URL),
				Page: &crawl.Page{URL: u.URL, Status: 200, Title: "t", Text: "text of " + u.URL, Bytes: 1000}})
		}
	}
	if _, err := s.Commit(ctx, rs, lim); err != nil {
		return 0, err
	}
	return len(rs), s.ReleaseHosts(ctx, owner, rel)
}
