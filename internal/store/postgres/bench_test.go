package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// BenchmarkAddURLs adds new URLs in batches of 1,000 over 100 hosts; an op
// is one batch.
func BenchmarkAddURLs(b *testing.B) {
	dsn, schema := freshSchema(b)
	db := open(b, dsn, schema)
	ctx := context.Background()
	const batch = 1000
	urls := make([]crawl.NewURL, batch)
	i := 0
	for b.Loop() {
		b.StopTimer()
		for j := range urls {
			urls[j] = storetest.U(fmt.Sprintf("http://h%03d.test/%d/%d", j%100, i, j), 1, j%5)
		}
		i++
		b.StartTimer()
		st, err := db.AddURLs(ctx, urls, crawl.Limits{MaxPagesPerHost: 1 << 40})
		if err != nil || st.Added != batch {
			b.Fatalf("AddURLs = %+v, %v", st, err)
		}
	}
	b.ReportMetric(float64(i*batch)/b.Elapsed().Seconds(), "urls/s")
}

// BenchmarkClaim measures the claim cycle of concurrent owners, each with
// its own pool as if in its own process: ClaimHosts (8), ClaimURLs (8 per
// host), one Commit of the fetched results, ReleaseHosts. An op is one URL
// claimed and committed. The budget variants set a (never reached) page
// budget, under which claims take turns. The links variants give every
// page links to the other URLs of its host and to one URL of another host,
// with or without an inbound-link bonus (and a host byte budget, never
// reached).
func BenchmarkClaim(b *testing.B) {
	for _, budget := range []bool{false, true} {
		for _, owners := range []int{1, 2, 4} {
			lim := crawl.Limits{}
			name := fmt.Sprintf("owners=%d", owners)
			if budget {
				lim.MaxPages = 1 << 40
				name += "/budget"
			}
			b.Run(name, func(b *testing.B) {
				benchClaim(b, owners, lim, false)
			})
		}
	}
	for _, bonus := range []bool{false, true} {
		for _, owners := range []int{1, 4} {
			lim := crawl.Limits{}
			name := fmt.Sprintf("owners=%d/links", owners)
			if bonus {
				lim = crawl.Limits{InlinkBonus: 1, MaxInlinkBonus: 5, MaxHostBytes: 1 << 40}
				name += "/bonus"
			}
			b.Run(name, func(b *testing.B) {
				benchClaim(b, owners, lim, true)
			})
		}
	}
}

func benchClaim(b *testing.B, owners int, lim crawl.Limits, links bool) {
	dsn, schema := freshSchema(b)
	ctx := context.Background()
	seed := open(b, dsn, schema)
	const perHost = 16
	total := b.N
	var urls []crawl.NewURL
	for i := range total + owners*8*perHost {
		urls = append(urls, storetest.U(fmt.Sprintf("http://h%06d.test/%d", i/perHost, i%perHost), 1, 0))
		if len(urls) == 1000 {
			if _, err := seed.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
				b.Fatal(err)
			}
			urls = urls[:0]
		}
	}
	if _, err := seed.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		b.Fatal(err)
	}
	dbs := make([]*postgres.DB, owners)
	for w := range dbs {
		db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 2})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		dbs[w] = db
	}
	now := time.Unix(1_800_000_000, 0)
	var claimed atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	b.ResetTimer()
	for w, db := range dbs {
		wg.Go(func() {
			owner := fmt.Sprintf("bench%d", w)
			for claimed.Load() < int64(total) {
				hs, err := db.ClaimHosts(ctx, owner, 8, time.Minute, now)
				if err != nil {
					failed.Store(err)
					return
				}
				if len(hs) == 0 {
					return
				}
				var rs []crawl.Result
				rel := make([]crawl.HostRelease, len(hs))
				for i, h := range hs {
					rel[i] = crawl.HostRelease{ID: h.ID}
					cs, _, err := db.ClaimURLs(ctx, owner, h.ID, 8, lim, now)
					if err != nil {
						failed.Store(err)
						return
					}
					for _, c := range cs {
						r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
							Page: &crawl.Page{URL: c.URL, Status: 200, Title: "t", Text: "text of " + c.URL, Bytes: 1000}}
						if links {
							r.Links = hostLinks(c.URL, perHost)
						}
						rs = append(rs, r)
					}
				}
				if _, err := db.Commit(ctx, rs, lim); err != nil {
					failed.Store(err)
					return
				}
				if err := db.ReleaseHosts(ctx, owner, rel); err != nil {
					failed.Store(err)
					return
				}
				claimed.Add(int64(len(rs)))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(claimed.Load())/b.Elapsed().Seconds(), "urls/s")
}

// hostLinks returns links from the page at u (http://hNNNNNN.test/i) to
// the other URLs of its host and to one URL of the next host.
func hostLinks(u string, perHost int) []crawl.Link {
	var h, i int
	fmt.Sscanf(u, "http://h%d.test/%d", &h, &i)
	var out []crawl.Link
	for j := range perHost {
		if j != i {
			t := fmt.Sprintf("http://h%06d.test/%d", h, j)
			out = append(out, crawl.Link{TargetID: crawl.HashID(t), Target: t, Anchor: "a"})
		}
	}
	t := fmt.Sprintf("http://h%06d.test/%d", h+1, i)
	return append(out, crawl.Link{TargetID: crawl.HashID(t), Target: t, Anchor: "next"})
}

// BenchmarkCommitPages commits pages in batches of 64, without content
// fields (plain) and with main text, metadata and SimHashes, a quarter of
// them near one fingerprint (content: the near-duplicate lookups). An op
// is one page.
func BenchmarkCommitPages(b *testing.B) {
	for _, content := range []bool{false, true} {
		name := "plain"
		if content {
			name = "content"
		}
		b.Run(name, func(b *testing.B) {
			dsn, schema := freshSchema(b)
			db := open(b, dsn, schema)
			ctx := context.Background()
			now := time.Unix(1_800_000_000, 0)
			const hosts = 100
			var urls []crawl.NewURL
			for i := range b.N {
				urls = append(urls, storetest.U(fmt.Sprintf("http://h%03d.test/%d", i%hosts, i), 1, 0))
			}
			for i := 0; i < len(urls); i += 1000 {
				if _, err := db.AddURLs(ctx, urls[i:min(i+1000, len(urls))], crawl.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			hs, err := db.ClaimHosts(ctx, "bench", hosts, time.Hour, now)
			if err != nil {
				b.Fatal(err)
			}
			var rs []crawl.Result
			for _, h := range hs {
				cs, _, err := db.ClaimURLs(ctx, "bench", h.ID, b.N, crawl.Limits{}, now)
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range cs {
					p := &crawl.Page{URL: c.URL, Status: 200, Title: "t", Text: "text of " + c.URL, Bytes: 1000,
						ContentHash: []byte(c.URL)}
					if content {
						p.MainText = "main text of " + c.URL
						p.Meta = &crawl.Metadata{Title: "t", Authors: []string{"A. Author", "B. Author"}, Year: 2024,
							DOI: "10.5555/" + c.URL, Type: "article"}
						p.SimHash = rand.Uint64()
						if rand.IntN(4) == 0 {
							p.SimHash = 0x0123456789abcdef ^ 1<<rand.IntN(64)
						}
					}
					rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p})
				}
			}
			b.ResetTimer()
			for i := 0; i < len(rs); i += 64 {
				if _, err := db.Commit(ctx, rs[i:min(i+64, len(rs))], crawl.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rs))/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
