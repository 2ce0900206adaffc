package engine

import (
	"fmt"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestMirrorWatch: a host whose pages are linked under another host's
// paths with the same titles is taken for its copy after three such
// links, once; short anchors ("here", menus) and paths of one host alone
// do not count; of the two, the host linked less is the copy.
func TestMirrorWatch(t *testing.T) {
	w := newMirrorWatch()
	title := func(i int) string { return fmt.Sprintf("A Study of Crawling Number %d", i) }
	for i := range 10 {
		if _, ok := w.linked(fmt.Sprintf("http://uni.test/publications/%d", i), title(i)); ok {
			t.Fatalf("a host's own links taken for a mirror's")
		}
	}
	for i := range 5 {
		if _, ok := w.linked(fmt.Sprintf("http://other.test/publications/%d", i), "Publications"); ok {
			t.Fatalf("a menu's anchor taken for a title")
		}
		if _, ok := w.linked(fmt.Sprintf("http://other.test/papers/%d", i), title(i)); ok {
			t.Fatalf("another path with the same title taken for a copy")
		}
	}
	var found []crawl.ID
	for i := range 6 {
		if m, ok := w.linked(fmt.Sprintf("http://mirror.test/publications/%d", i), title(i)); ok {
			found = append(found, m)
		}
	}
	if len(found) != 1 || found[0] != crawl.HashID("http://mirror.test") {
		t.Errorf("taken for mirrors: %v, want mirror.test once (%v)", found, crawl.HashID("http://mirror.test"))
	}
}

// TestCopyWatch: committed pages are counted by host, the copies of
// another host's pages (exact or near duplicates) apart from those of the
// host's own.
func TestCopyWatch(t *testing.T) {
	w := newCopyWatch()
	m, o := crawl.HashID("http://m.test"), crawl.HashID("http://o.test")
	page := func(u string, dup, near crawl.ID) crawl.Result {
		return crawl.Result{URL: crawl.ClaimedURL{URL: u, ID: crawl.URLID(u), HostID: crawl.HashID(crawl.HostKey(u))}, Outcome: crawl.OutcomeDone,
			Page: &crawl.Page{URL: u, Status: 200, DuplicateOf: dup, NearDuplicateOf: near}}
	}
	got := w.committed([]crawl.Result{
		page("http://m.test/a", crawl.URLID("http://o.test/a"), 0),
		page("http://m.test/b", 0, crawl.URLID("http://o.test/b")),
		page("http://m.test/c", crawl.URLID("http://m.test/a"), 0), // its own
		page("http://o.test/a", 0, 0),
	})
	if got[m] != [2]int{3, 2} || got[o] != [2]int{1, 0} {
		t.Errorf("counts %v, want m.test 3 pages, 2 copies; o.test 1, 0", got)
	}
}
