package storetest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// searchTests are the search tests beyond testSearch.
var searchTests = []struct {
	name string
	fn   func(*testing.T, *env)
}{
	{"SearchAfterCancelledSearches", testSearchCancelled},
}

// cancelPages records n indexable pages that all hold the word
// "learning", and returns their URLs, sorted.
func (e *env) cancelPages(n int) []string {
	e.t.Helper()
	var pages []*crawl.Page
	var urls []string
	for i := range n {
		u := fmt.Sprintf("http://l%d.test/p", i%7) + fmt.Sprint(i)
		pages = append(pages, &crawl.Page{URL: u, Title: fmt.Sprintf("Notes %d on machine learning", i),
			Text: fmt.Sprintf("Page %d: deep learning, reinforcement learning and learning rates, with remarks on reading and writing.", i),
			Lang: "en", Meta: &crawl.Metadata{Year: 2000 + i%30}})
		urls = append(urls, u)
	}
	e.commitPages(pages...)
	sort.Strings(urls)
	return urls
}

// testSearchCancelled: searches whose context ends at any point of their
// work (a client that gives up, a timeout) leave nothing behind: the
// searches after them answer in full. The SQLite store used to give back
// to its pool a snippet connection still holding its scratch table, after
// which every search with hits failed.
func testSearchCancelled(t *testing.T, e *env) {
	want := e.cancelPages(120)
	check := func(when string) {
		t.Helper()
		res, err := e.s.Search(e.ctx, crawl.SearchRequest{Query: "learning", Limit: 100})
		if err != nil {
			t.Fatalf("Search(learning) %s: %v", when, err)
		}
		if res.Total != len(want) || len(res.Hits) != 100 {
			t.Fatalf("Search(learning) %s: total %d, %d hits, want %d and 100", when, res.Total, len(res.Hits), len(want))
		}
		for _, h := range res.Hits {
			if h.Snippet == "" {
				t.Fatalf("Search(learning) %s: hit %s has no snippet", when, h.URL)
			}
		}
	}
	check("before any cancelled search")
	// The time a whole search takes spreads the deadlines over every
	// stage of the work (no timing is asserted).
	start := time.Now()
	check("to time a search")
	full := time.Since(start)
	const rounds = 25
	for i := range rounds {
		d := full * time.Duration(i) / rounds
		for _, q := range []string{"learning", "learn*", "r* re* learning", `"deep learning"`} {
			// A deadline, as a timeout sets.
			ctx, cancel := context.WithTimeout(e.ctx, d)
			e.s.Search(ctx, crawl.SearchRequest{Query: q, Limit: 100})
			cancel()
			// A client that goes away: the context is cancelled from
			// another goroutine while the search runs.
			ctx, cancel = context.WithCancel(e.ctx)
			stop := time.AfterFunc(d, cancel)
			e.s.Search(ctx, crawl.SearchRequest{Query: q, Limit: 100})
			stop.Stop()
			cancel()
		}
	}
	// A search cancelled before it starts.
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if _, err := e.s.Search(ctx, crawl.SearchRequest{Query: "learning", Limit: 100}); err == nil {
		t.Log("a search with a cancelled context answered")
	}
	for i := range 5 {
		check(fmt.Sprintf("after cancelled searches (%d)", i))
	}
	got := e.search(crawl.SearchRequest{Query: "learning", Limit: 200})
	urls := hitURLs(got)
	sort.Strings(urls)
	if !eq(urls, want) {
		t.Errorf("Search(learning) after cancelled searches found %d pages, want %d", len(urls), len(want))
	}
}
