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
