package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Value hosts' bench web: benchValueHosts hosts of crawl.HostValueWindow
// pages, each page of no research type (one in ten a person's) linking to
// 20 pages of its host and 8 of other hosts, all recorded: the shape of
// the throughput benchmark's web, where no page cites research, so that
// every link of every page is looked at.
const (
	benchValueHosts = 20
	benchSameLinks  = 20
	benchOtherLinks = 8
)

// BenchValueHosts records the bench web in s, then measures ValueHosts
// over its hosts, all of them to revalue at each op (stale makes them
// so), and reports the milliseconds a host took.
func BenchValueHosts(b *testing.B, s crawl.Store, stale func(ids []crawl.ID)) {
	ctx := context.Background()
	v, ok := s.(hostValuer)
	if !ok {
		b.Skip("the store does not value hosts")
	}
	const pages = crawl.HostValueWindow
	page := func(h, j int) string { return fmt.Sprintf("http://value%d.test/page/%d", h, j) }
	var urls []crawl.NewURL
	ids := make([]crawl.ID, benchValueHosts)
	for h := range benchValueHosts {
		ids[h] = crawl.HashID(fmt.Sprintf("http://value%d.test", h))
		for j := range pages {
			urls = append(urls, U(page(h, j), 1, 0))
		}
	}
	if _, err := s.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		b.Fatal(err)
	}
	links := func(h, j int) []crawl.Link {
		var ls []crawl.Link
		for k := 1; k <= benchSameLinks; k++ {
			ls = append(ls, crawl.Link{Target: page(h, (j+k)%pages), Anchor: "next"})
		}
		for k := 1; k <= benchOtherLinks; k++ {
			ls = append(ls, crawl.Link{Target: page((h+k)%benchValueHosts, (j*7+k)%pages), Anchor: "elsewhere"})
		}
		for i := range ls {
			ls[i].TargetID = crawl.URLID(ls[i].Target)
		}
		return ls
	}
	now := time.Unix(1_800_000_000, 0)
	for recorded := 0; recorded < len(urls); {
		hs, err := s.ClaimHosts(ctx, "bench", 64, time.Minute, now)
		if err != nil {
			b.Fatal(err)
		}
		if len(hs) == 0 {
			b.Fatalf("%d of %d pages recorded, no host to claim", recorded, len(urls))
		}
		hids := make([]crawl.ID, len(hs))
		rel := make([]crawl.HostRelease, len(hs))
		for i, h := range hs {
			hids[i], rel[i] = h.ID, crawl.HostRelease{ID: h.ID}
		}
		cs, err := s.ClaimURLsOf(ctx, "bench", hids, 50, crawl.Limits{}, now)
		if err != nil {
			b.Fatal(err)
		}
		var rs []crawl.Result
		for _, c := range cs {
			for _, u := range c.URLs {
				var h, j int
				if _, err := fmt.Sscanf(u.URL, "http://value%d.test/page/%d", &h, &j); err != nil {
					b.Fatal(err)
				}
				r := done(u, "text of "+u.URL)
				r.Page.Meta = &crawl.Metadata{Type: "other", Title: "t"}
				if j%10 == 0 {
					r.Page.Meta.Type = "person"
				}
				r.Links = links(h, j)
				rs = append(rs, r)
			}
		}
		if _, err := s.Commit(ctx, rs, crawl.Limits{}); err != nil {
			b.Fatal(err)
		}
		if err := s.ReleaseHosts(ctx, "bench", rel); err != nil {
			b.Fatal(err)
		}
		recorded += len(rs)
	}
	values, err := v.ValueHosts(ctx, ids)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("values %v", values)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		stale(ids)
		b.StartTimer()
		if _, err := v.ValueHosts(ctx, ids); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(ids)), "ms/host")
}
