package frontier

import (
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestExploreWhileUnheldHostsMayRank: under a budget, more hosts are
// claimed while the hosts not held may rank within BudgetSlack of the
// bar: unknown at first, then no more than the lowest host of the last
// claim; none after a claim that found fewer hosts than asked, unknown
// again when hosts not held receive URLs. Never without a budget, nor
// within ClaimEvery of the last claim.
func TestExploreWhileUnheldHostsMayRank(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	f := New(nil, Config{HostValues: true, Limits: crawl.Limits{MaxPages: 100}})
	claimed := func(prios ...int) {
		var res ioResult
		res.values = map[crawl.ID]int{}
		for i, p := range prios {
			id := crawl.ID(i + 1)
			res.claimed = append(res.claimed, crawl.Host{ID: id})
			res.first = append(res.first, refilled{us: []crawl.ClaimedURL{{Priority: p}}})
			res.values[id] = 1 // each host's value counts in its rank
		}
		f.unheldClaimedLocked(ioRound{claim: true, room: 2}, res)
	}
	steps := []struct {
		name string
		do   func()
		bar  int
		want bool
	}{
		{"unknown at first", func() {}, 100, true},
		{"the last claim's lowest host ranks 2", func() { claimed(5, 1) }, 8, true},
		{"which is more than BudgetSlack below the bar", func() {}, 9, false},
		{"a claim found fewer hosts than asked", func() { claimed(20) }, -100, false},
		{"hosts not held received URLs", func() { f.unheldAdmittedLocked() }, 100, true},
		{"they received more", func() { claimed(3, 3); f.unheldAdmittedLocked() }, 11, false},
	}
	for _, s := range steps {
		s.do()
		if got := f.exploreLocked(s.bar, true, now); got != s.want {
			t.Errorf("%s: explore with bar %d = %v, want %v", s.name, s.bar, got, s.want)
		}
	}
	f.unheld = unheldUnknown
	if f.lastClaim = now.Add(-f.cfg.ClaimEvery / 2); f.exploreLocked(0, true, now) {
		t.Error("explores within ClaimEvery of the last claim")
	}
	if nb := New(nil, Config{HostValues: true}); nb.exploreLocked(0, true, now) {
		t.Error("explores without a budget")
	}
}

// TestTightClaimsAboveHeldNews: while the page budget is tight, new hosts
// are claimed when no held host may take a request soon, and also when
// the best held one ranks below 0 (a spent university's news) while a
// host not held is known to rank 0 or more: a host let go when the budget
// was reached, held back by research ranking higher then, is one.
func TestTightClaimsAboveHeldNews(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	f := New(nil, Config{HostValues: true, Limits: crawl.Limits{MaxPages: 100}, Now: func() time.Time { return now }})
	held := func(id crawl.ID, prio int) *host {
		h := &host{Host: crawl.Host{ID: id}, buf: []crawl.ClaimedURL{{Priority: prio}}, heapIndex: -1}
		f.hosts[id] = h
		f.rankLocked(h)
		f.ready.push(h)
		return h
	}
	uni := held(1, 10)
	journal := held(2, 3)
	if n := f.returnHeldBackLocked(nil, now); n != 1 || len(journal.buf) != 0 || f.unheld != unheldUnknown {
		t.Fatalf("returned %d hosts (journal's buffer %d), unheld %d: want the journal let go, unheld still unknown", n, len(journal.buf), f.unheld)
	}
	f.tight = true
	f.unheld = unheldNone
	f.ready.remove(journal)
	delete(f.hosts, journal.ID)
	journal = held(2, 3)
	f.returnHeldBackLocked(nil, now)
	if f.unheld != 3 {
		t.Fatalf("unheld %d after the journal (rank 3) was let go, want 3", f.unheld)
	}
	if f.mayClaimTightLocked(now) {
		t.Error("claims while the held university's research ranks 10, above the journal")
	}
	uni.buf[0].Priority = -14 // its news
	f.rerankLocked(uni)
	if !f.mayClaimTightLocked(now) {
		t.Error("claims nothing while the held university's news ranks -14 and the journal let go ranks 3")
	}
	for _, u := range []int{-20, unheldUnknown, unheldNone} {
		if f.unheld = u; f.mayClaimTightLocked(now) {
			t.Errorf("claims while the held university's news ranks -14 and the hosts not held rank %d", u)
		}
	}
}
