package engine

import (
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/htmlx"
)

// TestPageLinksIDs: each link a page records carries its target's URL ID,
// computed once for the links and the offers (linkIDs) with the hosts'
// hashes kept between links of one host; the page's own URL is left out
// and a meta refresh comes first.
func TestPageLinksIDs(t *testing.T) {
	p := &crawl.Page{URL: "http://a.test/"}
	x := &extract.Result{Refresh: "http://a.test/next", Links: []htmlx.Link{
		{URL: "http://a.test/1", Anchor: "one"},
		{URL: "http://a.test/"},
		{URL: "http://b.test/2", Anchor: "two", NoFollow: true},
		{URL: "http://b.test/3?q"},
		{URL: "https://a.test/4"},
		{URL: "http://a.test/5#x"},
		{URL: "not a url"},
	}}
	want := []string{"http://a.test/next", "http://a.test/1", "http://b.test/2", "http://b.test/3?q", "https://a.test/4",
		"http://a.test/5#x", "not a url"}
	got := PageLinks(p, x)
	if len(got) != len(want) {
		t.Fatalf("PageLinks = %d links, want %d: %+v", len(got), len(want), got)
	}
	for i, l := range got {
		if l.Target != want[i] || l.TargetID != crawl.URLID(want[i]) {
			t.Errorf("link %d = %q (ID %d), want %q (ID %d)", i, l.Target, l.TargetID, want[i], crawl.URLID(want[i]))
		}
	}
	if got[2].Anchor != "two" || !got[2].NoFollow || got[1].Anchor != "one" {
		t.Errorf("anchors and nofollow not kept: %+v", got)
	}
	ids := linkIDs(x, new(hostIDCache))
	for i, l := range x.Links {
		if ids[i] != crawl.URLID(l.URL) {
			t.Errorf("linkIDs[%d] = %d, want crawl.URLID(%q) = %d", i, ids[i], l.URL, crawl.URLID(l.URL))
		}
	}
}
