package frontier

import "time"

// Under a budget, a process claims new hosts not only when too few held
// hosts are ready, but also while a host not held may rank near the best
// held ones: the hosts held may have spent their research and be left
// with their news and about pages, while a journal linked from their home
// pages, not held, waits with its articles. The store hands hosts out
// best first (by their best queued URL plus their value), so the hosts
// claimed last tell what the others may rank: no more than the lowest of
// them; a claim that returns fewer hosts than asked says no other host is
// due. New URLs for hosts not held, when none was left, make it unknown
// again.

// Ranks of the hosts not held, besides those learned from a claim.
const (
	unheldUnknown = -skipRank // not known: a claim tells
	unheldNone    = skipRank  // none is due
)

// exploreLocked reports whether, under a budget, more hosts are claimed
// although enough held hosts are ready: a host not held may rank within
// BudgetSlack of the bar (the best held host that may take a request
// soon), and no claim was made for ClaimEvery.
func (f *Frontier) exploreLocked(bar int, barred bool, now time.Time) bool {
	if !barred || !f.budgeted() || f.budget != nil || now.Sub(f.lastClaim) < f.cfg.ClaimEvery {
		return false
	}
	return f.unheld >= bar-f.cfg.BudgetSlack
}

// unheldClaimedLocked learns, under a budget, what the hosts not held may
// rank from a claim's outcome.
func (f *Frontier) unheldClaimedLocked(r ioRound, res ioResult) {
	if !f.budgeted() {
		return
	}
	if len(res.claimed) < r.room {
		f.unheld = unheldNone
		return
	}
	low, ok := 0, false
	for i, sh := range res.claimed {
		if i >= len(res.first) || len(res.first[i].us) == 0 {
			continue
		}
		if rank := f.rankOf(res.first[i].us[0].Priority, res.values[sh.ID]); !ok || rank < low {
			low, ok = rank, true
		}
	}
	if ok {
		f.unheld = low
	}
}

// unheldAdmittedLocked notes that hosts not held received URLs: when none
// was left, what they rank is not known.
func (f *Frontier) unheldAdmittedLocked() {
	if f.unheld == unheldNone {
		f.unheld = unheldUnknown
	}
}
