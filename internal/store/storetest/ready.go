package storetest

import (
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// readyTests check the ready-host index through ClaimHosts: a host given a
// next fetch time waits for it whatever its rank, comes back by its rank
// once its time has come, and stops being due when a commit pushes its
// next fetch time past now.
var readyTests = []test{
	{"ReadyHostsComeDueAndGoBack", testReadyHosts},
}

func testReadyHosts(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://hi.test/", 0, 9), U("http://lo.test/", 0, 1), U("http://mid.test/", 0, 5))
	hi, mid, lo := crawl.HashID("http://hi.test"), crawl.HashID("http://mid.test"), crawl.HashID("http://lo.test")
	at := func(d time.Duration, ids ...crawl.ID) []crawl.HostRelease {
		out := rel(ids...)
		for i := range out {
			out[i].NextFetchAt = e.now.Add(d)
		}
		return out
	}
	release := func(owner string, rs ...[]crawl.HostRelease) {
		t.Helper()
		var all []crawl.HostRelease
		for _, r := range rs {
			all = append(all, r...)
		}
		if err := e.s.ReleaseHosts(e.ctx, owner, all); err != nil {
			t.Fatal(err)
		}
	}
	if got := idsOf(e.claimHosts("p", 3)); !idsEq(got, hi, mid, lo) {
		t.Fatalf("claimed %v, want hi, mid, lo (by rank)", got)
	}
	release("p", at(3*time.Minute, hi), at(2*time.Minute, mid), rel(lo))
	// Only lo is due: it comes first whatever its rank.
	if got := idsOf(e.claimHosts("q", 1)); !idsEq(got, lo) {
		t.Fatalf("claimed %v, want lo (the only due host)", got)
	}
	release("q", at(time.Minute, lo))
	// Later lo and mid have come due, hi has not: the due ones by rank,
	// then hi.
	e.now = e.now.Add(150 * time.Second)
	if got := idsOf(e.claimHosts("r", 3)); !idsEq(got, mid, lo, hi) {
		t.Fatalf("after 150 s claimed %v, want mid, lo (due, by rank), then hi", got)
	}
	// A commit pushes hi's next fetch time an hour on while it is leased,
	// and the release leaves it: hi is no longer due.
	cs := e.claimURLs("r", hi, 1, crawl.Limits{})
	if len(cs) != 1 {
		t.Fatalf("claimed %d URLs of hi, want 1", len(cs))
	}
	e.commit(crawl.Limits{}, crawl.Result{URL: cs[0], Outcome: crawl.OutcomeRelease, Host: crawl.HostUpdate{NextFetchAt: e.now.Add(time.Hour)}})
	release("r", rel(hi, mid, lo))
	if got := idsOf(e.claimHosts("s", 1)); !idsEq(got, mid) {
		t.Fatalf("after hi was pushed an hour on claimed %v, want mid (the only due host)", got)
	}
	e.checkBalance(3)
}

func idsEq(got []crawl.ID, want ...crawl.ID) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
