package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// offerStager is a store that stages offers and decides on them later
// (the SQLite and PostgreSQL stores: StageURLs); stores without it skip
// testStagedOffers.
type offerStager interface {
	StageURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error)
	MergeStaged(ctx context.Context) (int, error)
}

// testStagedOffers: offers staged survive an unclean stop, a claim that
// finds no host queued merges them rather than ending the crawl, and
// they are decided as AddURLs decides (a URL offered twice is admitted
// once, a host's cap admits its first offers, in offer order).
func testStagedOffers(t *testing.T, e *env) {
	st, ok := e.s.(offerStager)
	if !ok {
		t.Skip("the store adds offers at once")
	}
	capped := crawl.Limits{MaxPagesPerHost: 2}
	offers := []crawl.NewURL{U("http://a.test/1", 0, 0), U("http://a.test/2", 0, 0), U("http://a.test/1", 0, 0),
		U("http://b.test/1", 0, 0), U("http://a.test/3", 0, 0)}
	if _, err := st.StageURLs(e.ctx, offers, capped); err != nil {
		t.Fatalf("StageURLs: %v", err)
	}
	e.s.Close()
	e.s = e.reopen()
	hs := e.claimHosts("p", 10)
	var keys []string
	for _, h := range hs {
		keys = append(keys, h.Key)
		got := e.claimURLs("p", h.ID, 10, capped)
		var urls []string
		for _, c := range got {
			urls = append(urls, c.URL)
		}
		want := map[string][]string{"http://a.test": {"http://a.test/1", "http://a.test/2"}, "http://b.test": {"http://b.test/1"}}[h.Key]
		if !slices.Equal(urls, want) {
			t.Errorf("claimed %q of %s, want %q", urls, h.Key, want)
		}
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"http://a.test", "http://b.test"}) {
		t.Fatalf("claimed hosts %q with only staged offers, want a.test and b.test", keys)
	}
	if got := e.add(capped, U("http://a.test/1", 0, 0)); got.Known != 1 {
		t.Errorf("AddURLs of a merged URL = %+v, want known", got)
	}
	e.checkBalance(3)
}
