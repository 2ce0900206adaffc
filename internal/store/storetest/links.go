package storetest

import (
	"reflect"
	"sort"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// testLinksKept: what a store keeps of a page's outlinks, however it lays
// them out. Of several links from a page to one URL the first is kept;
// a link to a URL the crawl did not take keeps its URL text; a target's
// inbound links name each linking page with its own anchor and nofollow
// flag; Reparse replaces a page's links and their inbound entries; the
// link count follows; all of it after the store is opened again.
func testLinksKept(t *testing.T, e *env) {
	lim := crawl.Limits{}
	e.add(lim, U("http://a.test/1", 0, 10), U("http://a.test/2", 0, 9))
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 2, lim)
	if len(cs) != 2 {
		t.Fatalf("claimed %d URLs", len(cs))
	}
	link := func(raw, anchor string, nofollow bool) crawl.Link {
		return crawl.Link{TargetID: crawl.URLID(raw), Target: raw, Anchor: anchor, NoFollow: nofollow}
	}
	const x, out = "http://a.test/x", "http://out.test/o?q=1"
	one, two := done(cs[0], "page one"), done(cs[1], "page two")
	one.Links = []crawl.Link{link(x, "first", false), link(x, "later", true), link(out, "out", false), link(cs[1].URL, "two", true)}
	one.Discovered = []crawl.NewURL{U(x, 1, 0)}
	two.Links = []crawl.Link{link(out, "out again", true), link(x, "second", false)}
	e.commit(lim, one)
	e.commit(lim, two)

	sorted := func(ls []crawl.Link) []crawl.Link {
		sort.Slice(ls, func(i, j int) bool { return ls[i].Target < ls[j].Target })
		return ls
	}
	check := func(when string, wantOne []crawl.Link, wantX []crawl.Inlink, count int64) {
		t.Helper()
		if got, err := e.s.Links(e.ctx, cs[0].ID); err != nil || !reflect.DeepEqual(sorted(got), wantOne) {
			t.Errorf("%s: links of %s = %+v, %v\nwant %+v", when, cs[0].URL, got, err, wantOne)
		}
		if got, err := e.s.Links(e.ctx, cs[1].ID); err != nil || !reflect.DeepEqual(sorted(got), []crawl.Link{link(x, "second", false), link(out, "out again", true)}) {
			t.Errorf("%s: links of %s = %+v, %v", when, cs[1].URL, got, err)
		}
		if got, err := e.s.Inlinks(e.ctx, crawl.URLID(x), 10); err != nil || !reflect.DeepEqual(got, wantX) {
			t.Errorf("%s: inlinks of %s = %+v, %v\nwant %+v", when, x, got, err, wantX)
		}
		if got, err := e.s.Inlinks(e.ctx, crawl.URLID(x), 1); err != nil || len(got) != 1 || got[0] != wantX[0] {
			t.Errorf("%s: first inlink of %s = %+v, %v", when, x, got, err)
		}
		if c := e.counters(); c.Links != count {
			t.Errorf("%s: %d links counted, want %d", when, c.Links, count)
		}
	}
	check("after the commits",
		[]crawl.Link{link(cs[1].URL, "two", true), link(x, "first", false), link(out, "out", false)},
		[]crawl.Inlink{{Source: cs[0].ID, URL: cs[0].URL, Anchor: "first"}, {Source: cs[1].ID, URL: cs[1].URL, Anchor: "second"}}, 5)
	if got, err := e.s.Inlinks(e.ctx, crawl.URLID(out), 10); err != nil || len(got) != 2 || got[1].Anchor != "out again" || !got[1].NoFollow {
		t.Errorf("inlinks of %s = %+v, %v", out, got, err)
	}
	e.s.Close()
	e.s = e.reopen()
	check("opened again",
		[]crawl.Link{link(cs[1].URL, "two", true), link(x, "first", false), link(out, "out", false)},
		[]crawl.Inlink{{Source: cs[0].ID, URL: cs[0].URL, Anchor: "first"}, {Source: cs[1].ID, URL: cs[1].URL, Anchor: "second"}}, 5)

	np := &crawl.Page{ID: cs[0].ID, Title: "Page one again", Text: "page one"}
	if err := e.s.Reparse(e.ctx, np, []crawl.Link{link(x, "reparsed", false)}); err != nil {
		t.Fatal(err)
	}
	check("after Reparse",
		[]crawl.Link{link(x, "reparsed", false)},
		[]crawl.Inlink{{Source: cs[0].ID, URL: cs[0].URL, Anchor: "reparsed"}, {Source: cs[1].ID, URL: cs[1].URL, Anchor: "second"}}, 3)
	if got, err := e.s.Inlinks(e.ctx, cs[1].ID, 10); err != nil || len(got) != 0 {
		t.Errorf("inlinks of %s after Reparse dropped its link = %+v, %v", cs[1].URL, got, err)
	}
}
