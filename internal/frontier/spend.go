package frontier

import (
	"errors"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Under a page budget the store counts a URL against the budget when it is
// claimed. A host held back by rank (budgeted) holds its best URL, claimed
// to rank it; were those claims fetched once the budget is reached, the
// held-back hosts' pages would spend the budget's end. So a page budget
// reached while held-back hosts hold claims is not yet final: those hosts
// are let go and their claimed URLs handed out as ReturnURL tasks (the
// caller commits them with crawl.OutcomeRelease: back to the queue, their
// budget given back), and the budget they free goes to the hosts ranked
// near the best, whose claims are tried again. While the budget is that
// tight, new hosts are claimed only when no held host may take a request
// within BudgetHorizon. The budget is final when a claim finds it spent,
// no held-back host holds a claim and no returned URL may still be on
// its way back (returnWait).

// returnWait is how long after URLs were returned a claim that finds the
// budget spent is tried again rather than taken as final: the returned
// URLs give their budget back when the caller has committed them.
const returnWait = 2 * time.Second

// budgetReachedLocked records that a claim found the budget spent; by,
// when not nil, is the host whose claim it was (its last rank counts for
// the bar). It reports whether the budget is final (false: budget is being
// given back and claims go on).
func (f *Frontier) budgetReachedLocked(err error, by *host, now time.Time) bool {
	if f.budget != nil {
		return true
	}
	if errors.Is(err, crawl.ErrPageBudget) && f.budgeted() {
		if f.returnHeldBackLocked(by, now) > 0 {
			f.tight, f.returnedAt = true, now
			return false
		}
		if f.tight && now.Sub(f.returnedAt) < returnWait {
			return false
		}
	}
	f.cfg.Log.Info("crawl budget reached; finishing what is in flight", "budget", err.Error())
	f.budget = err
	return true
}

// returnHeldBackLocked lets go of the held-back hosts (ranked more than
// BudgetSlack below the bar, by's last rank counted) that hold claimed
// URLs and nothing in flight; their URLs are queued as ReturnURL tasks.
// It returns how many hosts.
func (f *Frontier) returnHeldBackLocked(by *host, now time.Time) int {
	bar, ok := f.barLocked(now)
	if by != nil && by.ranked && by.rank < firstRank && (!ok || by.rank > bar) {
		bar, ok = by.rank, true
	}
	if !ok {
		return 0
	}
	n := 0
	for _, h := range f.hosts {
		if len(h.buf) == 0 || h.inflight > 0 || h.refilling || h.renewing || h.robotsBusy || !f.heldBack(f.bufRank(h), bar) {
			continue
		}
		f.unheld = max(f.unheld, f.bufRank(h)) // let go: a host not held that ranks so
		f.giveBackLocked(h, h.buf)
		h.buf = nil
		f.releaseIfIdleLocked(h)
		n++
	}
	if n > 0 {
		f.cfg.Log.Debug("page budget reached: held-back hosts give their claims back", "hosts", n, "urls", len(f.returns))
	}
	return n
}

// nextReturnLocked hands out a returned URL, if any.
func (f *Frontier) nextReturnLocked() (Task, bool) {
	if len(f.returns) == 0 {
		return Task{}, false
	}
	t := f.returns[0]
	f.returns = f.returns[1:]
	return t, true
}

// mayClaimTightLocked reports whether new hosts may be claimed: while the
// budget is tight, only when no held host may take a request soon, or
// when the best held host ranks below 0 (a spent university's news) and
// a host not held is known to rank 0 or more (one let go when the budget
// was reached, a journal, ranking below the research then held). (Hosts
// claimed beside held hosts ranking as high would hold claims that the
// next return gives back, and their claims again, so that the budget
// never became final; hosts claimed above 0 beside hosts below it hold
// these back, and what the hosts not held rank is learned again from the
// claim: only a return of hosts ranking 0 or more, held back by a bar
// above 0, makes the next such claim.)
func (f *Frontier) mayClaimTightLocked(now time.Time) bool {
	if !f.tight || f.budget != nil {
		return true
	}
	bar, ok := f.barLocked(now)
	return !ok || bar < 0 && f.unheld >= 0 && f.unheld != unheldUnknown
}
