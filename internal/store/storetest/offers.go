package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

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

// Stager is a store that adds offers at once (AddURLs) and stages them
// (StageURLs, MergeStaged), for OfferAsAdds.
type Stager interface {
	offerStager
	AddURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error)
}

// OfferAsAdds gives the same random offers to added by AddURLs and to
// staged by StageURLs, batch by batch, then merges staged's stage, and
// returns how many StageURLs calls merged. The offers repeat URLs (in a
// batch and across batches; the last batches offer mostly URLs offered
// before), include URLs already stored (a first batch added to both)
// and offers over the depth limit and over the host cap; each batch is
// made under one host cap (25) or none, so that a host's offers in one
// stage share a cap (see StageURLs). A store's test then compares the
// two frontiers.
func OfferAsAdds(t *testing.T, added, staged Stager) (merges int) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	offer := func() crawl.NewURL {
		u := U(fmt.Sprintf("http://h%d.test/p%d", rng.IntN(12), rng.IntN(400)), rng.IntN(4), rng.IntN(5))
		u.Parent = crawl.ID(rng.IntN(3))
		u.LastMod = time.UnixMilli(int64(rng.IntN(2)) * 1_700_000_000_000)
		return u
	}
	var first []crawl.NewURL
	for range 30 {
		first = append(first, offer())
	}
	for _, s := range []Stager{added, staged} {
		if _, err := s.AddURLs(ctx, first, crawl.Limits{MaxPagesPerHost: 20}); err != nil {
			t.Fatal(err)
		}
	}
	offered := first
	for i := range 40 {
		batch := make([]crawl.NewURL, rng.IntN(30))
		for j := range batch {
			// The last batches offer mostly URLs offered before, as a
			// crawl's pages do: the stages they make are mostly known.
			if i >= 25 && rng.IntN(5) != 0 {
				batch[j] = offered[rng.IntN(len(offered))]
				continue
			}
			batch[j] = offer()
			offered = append(offered, batch[j])
		}
		lim := crawl.Limits{MaxDepth: 2}
		if i%3 != 0 {
			lim.MaxPagesPerHost = 25
		}
		if _, err := added.AddURLs(ctx, batch, lim); err != nil {
			t.Fatal(err)
		}
		st, err := staged.StageURLs(ctx, batch, lim)
		if err != nil {
			t.Fatal(err)
		}
		if st.Added > 0 {
			merges++
		}
	}
	if _, err := staged.MergeStaged(ctx); err != nil {
		t.Fatal(err)
	}
	return merges
}

// SameURLs fails t unless each of ids reads alike in added and packed
// (crawl.Store.URL), but for when it was found; when says when.
func SameURLs(t *testing.T, when string, added, packed crawl.Store, ids []crawl.ID) {
	t.Helper()
	ctx := context.Background()
	for _, id := range ids {
		a, err := added.URL(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		p, err := packed.URL(ctx, id)
		if err != nil {
			t.Fatalf("%s: URL(%s) of the packed store: %v", when, a.URL, err)
		}
		a.DiscoveredAt, p.DiscoveredAt = time.Time{}, time.Time{}
		if a != p {
			t.Fatalf("%s: URL(%d) = %+v, want %+v", when, id, p, a)
		}
	}
}

// LinkToQueued claims the first URL of added and of packed (two stores
// of the same frontier: the same URL) and commits its page, of the given
// bytes, with links to every fourth of ids that added holds queued, under
// lim, in both. It returns the page's URL and the links' targets, then
// read alike (SameURLs) and counted.
func LinkToQueued(t *testing.T, added, packed crawl.Store, ids []crawl.ID, lim crawl.Limits, bytes int64) (crawl.ClaimedURL, []crawl.ID) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	var page crawl.ClaimedURL
	for i, s := range []crawl.Store{added, packed} {
		hs, err := s.ClaimHosts(ctx, "o", 1, time.Hour, now)
		if err != nil || len(hs) != 1 {
			t.Fatalf("ClaimHosts = %+v, %v", hs, err)
		}
		cs, _, err := s.ClaimURLs(ctx, "o", hs[0].ID, 1, lim, now)
		if err != nil || len(cs) != 1 {
			t.Fatalf("ClaimURLs = %+v, %v", cs, err)
		}
		if i == 1 && cs[0] != page {
			t.Fatalf("the packed store claimed %+v first, want %+v", cs[0], page)
		}
		page = cs[0]
	}
	var targets []crawl.ID
	var links []crawl.Link
	for i, id := range ids {
		if u, _ := added.URL(ctx, id); i%4 == 0 && u.State == crawl.StateQueued {
			targets = append(targets, id)
			links = append(links, crawl.Link{TargetID: id, Target: u.URL, Anchor: "a"})
		}
	}
	if len(targets) < 20 {
		t.Fatalf("only %d queued URLs to link to", len(targets))
	}
	res := crawl.Result{URL: page, Outcome: crawl.OutcomeDone, Links: links,
		Page: &crawl.Page{URL: page.URL, Status: 200, ContentType: "text/html", Text: "a page", FetchedAt: now, Bytes: bytes}}
	for _, s := range []crawl.Store{added, packed} {
		if _, err := s.Commit(ctx, []crawl.Result{res}, lim); err != nil {
			t.Fatal(err)
		}
		if err := s.ReleaseHosts(ctx, "o", []crawl.HostRelease{{ID: page.HostID}}); err != nil {
			t.Fatal(err)
		}
	}
	SameURLs(t, "linked", added, packed, targets)
	if u, _ := packed.URL(ctx, targets[0]); u.Inlinks != 1 || u.Priority == 0 {
		t.Fatalf("a linked URL reads %+v: want its inbound link counted", u)
	}
	return page, targets
}
