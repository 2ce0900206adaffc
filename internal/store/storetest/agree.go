package storetest

import (
	"fmt"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// The rules the backends once followed each in its own way: how inbound
// links are counted (frontierTests), how pages are streamed (pageTests).

// testInlinksOfFetched: a URL's inbound links are counted whatever its
// state, fetched ones included (in a later commit, and in the same batch
// after its own result), while only queued URLs get the priority bonus.
func testInlinksOfFetched(t *testing.T, e *env) {
	lim := crawl.Limits{InlinkBonus: 2, MaxInlinkBonus: 4}
	e.add(lim, U("http://a.test/1", 0, 10), U("http://a.test/2", 0, 9), U("http://a.test/3", 0, 8),
		U("http://a.test/4", 0, 7), U("http://a.test/5", 0, 6))
	link := func(raw string, nofollow bool) crawl.Link {
		return crawl.Link{TargetID: crawl.URLID(raw), Target: raw, NoFollow: nofollow}
	}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 5, lim)
	if got := urlsOf(cs); !eq(got, []string{"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4", "http://a.test/5"}) {
		t.Fatalf("claimed %v", got)
	}
	e.commit(lim, done(cs[0], "page 1"))
	// A page linking to a URL fetched by an earlier commit.
	r2 := done(cs[1], "page 2")
	r2.Links = []crawl.Link{link("http://a.test/1", false)}
	e.commit(lim, r2)
	// In one batch: 3, then 4 linking to 3 (fetched by then) and to 1, then
	// 5 linking to 1 with nofollow.
	r4, r5 := done(cs[3], "page 4"), done(cs[4], "page 5")
	r4.Links = []crawl.Link{link("http://a.test/3", false), link("http://a.test/1", false)}
	r5.Links = []crawl.Link{link("http://a.test/1", true)}
	e.commit(lim, done(cs[2], "page 3"), r4, r5)

	for _, w := range []struct {
		url               string
		inlinks, priority int
	}{
		{"http://a.test/1", 2, 10}, // pages 2 and 4; nofollow not counted; fetched: no bonus
		{"http://a.test/3", 1, 8},  // page 4, after page 3's result in the batch
		{"http://a.test/2", 0, 9},
	} {
		rec, err := e.s.URL(e.ctx, crawl.URLID(w.url))
		if err != nil || rec.Inlinks != w.inlinks || rec.Priority != w.priority {
			t.Errorf("%s: %+v, %v; want %d inlinks and priority %d", w.url, rec, err, w.inlinks, w.priority)
		}
	}
	e.checkBalance(5)
}

// testPagesStream: Pages yields every page once, in ID order, across the
// batches it reads them in, and stops reading when the caller stops.
func testPagesStream(t *testing.T, e *env) {
	const n = 1_100 // more than two of the stores' batches of 500
	var urls []crawl.NewURL
	for i := range n {
		urls = append(urls, U(fmt.Sprintf("http://p%d.test/%d", i%7, i), 0, 0))
	}
	e.add(crawl.Limits{}, urls...)
	want := map[crawl.ID]bool{}
	for len(want) < n {
		hs := e.claimHosts("p", 7)
		if len(hs) == 0 {
			t.Fatalf("no host to claim with %d of %d pages recorded", len(want), n)
		}
		for _, h := range hs {
			var rs []crawl.Result
			for _, c := range e.claimURLs("p", h.ID, n, crawl.Limits{}) {
				rs = append(rs, done(c, ""))
				want[c.ID] = true
			}
			e.commit(crawl.Limits{}, rs...)
		}
	}
	var got []crawl.ID
	for p, err := range e.s.Pages(e.ctx) {
		if err != nil {
			t.Fatalf("Pages: %v", err)
		}
		got = append(got, p.ID)
	}
	if len(got) != n {
		t.Fatalf("Pages yielded %d pages, want %d", len(got), n)
	}
	for i, id := range got {
		if !want[id] || i > 0 && got[i-1] >= id {
			t.Fatalf("Pages yielded %d at %d after %d: not a recorded page in increasing ID order", id, i, got[max(i-1, 0)])
		}
	}
	seen := 0
	for _, err := range e.s.Pages(e.ctx) {
		if err != nil {
			t.Fatalf("Pages: %v", err)
		}
		if seen++; seen == 3 {
			break
		}
	}
}
