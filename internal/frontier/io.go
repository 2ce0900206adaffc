package frontier

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// ioRound is one round of store I/O: host leases to claim and give up,
// and URLs to claim for hosts whose buffers ran dry or run low.
type ioRound struct {
	claim    bool
	room     int
	releases []crawl.HostRelease
	marks    map[crawl.ID]crawl.ID // mirror marks to record (MirrorKeeper): host → its original, 0 to clear
	refill   []*host
	renew    []*host // hosts whose leases ran short (leaseShort)
	budget   error
	now      time.Time
	// settled is whether the process was settled (Config.Settled, and no
	// task in flight) when the round started; admits and settles are the
	// frontier's counts of admissions and of Settle then.
	settled bool
	admits  uint64
	settles uint64
}

func (r *ioRound) empty() bool {
	return !r.claim && len(r.releases) == 0 && len(r.marks) == 0 && len(r.refill) == 0 && len(r.renew) == 0
}

type refilled struct {
	us   []crawl.ClaimedURL
	next time.Time
	err  error
}

type ioResult struct {
	claimed  []crawl.Host
	claimErr error
	lost     []crawl.ID // of the hosts renewed, those whose leases were lost
	renewErr error
	got      []refilled
	first    []refilled       // the first URLs of the hosts claimed, under a budget
	values   map[crawl.ID]int // host values learned (HostValues)
}

// startIOLocked runs a round of store I/O in the background, then the
// rounds queued behind it.
func (f *Frontier) startIOLocked(ctx context.Context, r ioRound) {
	f.ioBusy = true
	f.stampLocked(&r)
	// Claims in progress complete, and Stop returns their URLs; only a
	// store that does not answer is cut off, by Stop (its wait).
	ctx, f.ioCancel = context.WithCancel(context.WithoutCancel(ctx))
	cancel := f.ioCancel
	go func() {
		defer cancel()
		for {
			res := f.doIO(ctx, r)
			f.mu.Lock()
			if err := f.applyLocked(ctx, r, res); err != nil {
				f.ioErr = err
			}
			r = ioRound{}
			if !f.stopped {
				r = f.pending
				r.now, r.budget = f.cfg.Now(), f.budget
				r.releases, f.toRelease = f.toRelease, nil
				r.marks, f.toMark = f.toMark, nil
				f.stampLocked(&r)
			}
			f.pending = ioRound{}
			if r.empty() {
				f.ioBusy = false
				f.ioCond.Broadcast()
			}
			f.mu.Unlock()
			if f.cfg.Wake != nil {
				f.cfg.Wake()
			}
			if r.empty() {
				return
			}
		}
	}()
}

// stampLocked notes in a round of I/O about to start whether the process
// is settled: Config.Settled says so, and no task is in flight (its
// result is not made yet).
func (f *Frontier) stampLocked(r *ioRound) {
	r.admits = f.admits
	r.settles = f.settles
	r.settled = f.cfg.Settled != nil && f.cfg.Settled()
	for _, h := range f.hosts {
		if !r.settled {
			break
		}
		r.settled = h.inflight == 0
	}
}

// waitIO waits for the background store I/O to finish, or for ctx to
// end (a store that hangs does not hold up a stop). It also returns when
// a host may have work before then, for Next to look again: a request
// ends (Done), or the earliest host waiting for its time comes due. A
// round of I/O can wait behind a long commit, and with no politeness delay
// a host is due again a moment after its request ends.
func (f *Frontier) waitIO(ctx context.Context) error {
	wake := context.AfterFunc(ctx, func() {
		f.mu.Lock()
		f.ioCond.Broadcast()
		f.mu.Unlock()
	})
	defer wake()
	f.mu.Lock()
	defer f.mu.Unlock()
	due := false
	if f.waiting.Len() > 0 {
		d := f.waiting.top().due().Sub(f.cfg.Now())
		if d <= 0 {
			return ctx.Err()
		}
		t := time.AfterFunc(d, func() {
			f.mu.Lock()
			due = true
			f.ioCond.Broadcast()
			f.mu.Unlock()
		})
		defer t.Stop()
	}
	ended := f.ended
	for f.ioBusy && ctx.Err() == nil && f.ended == ended && !due {
		f.ioCond.Wait()
	}
	return ctx.Err()
}

// doIO does a round's store I/O, without the frontier's lock.
func (f *Frontier) doIO(ctx context.Context, r ioRound) ioResult {
	res := f.claimIO(ctx, r)
	f.valueHosts(ctx, r, &res)
	return res
}

// claimIO gives up leases and claims hosts and URLs.
func (f *Frontier) claimIO(ctx context.Context, r ioRound) ioResult {
	f.flushReleases(ctx, r.releases)
	f.flushMarks(ctx, r.marks)
	var res ioResult
	if len(r.renew) > 0 {
		ids := make([]crawl.ID, len(r.renew))
		for i, h := range r.renew {
			ids[i] = h.ID
		}
		res.lost, res.renewErr = f.store.RenewHosts(ctx, f.cfg.Owner, ids, f.cfg.Lease, r.now)
	}
	if r.claim && r.budget == nil {
		res.claimed, res.claimErr = f.store.ClaimHosts(ctx, f.cfg.Owner, r.room, f.cfg.Lease, r.now)
		if len(res.claimed) > 0 && f.budgeted() {
			// Under a budget, a host is ranked from the start, while its
			// robots.txt is fetched: by its best URL, claimed with it.
			ids := make([]crawl.ID, len(res.claimed))
			for i, h := range res.claimed {
				ids[i] = h.ID
			}
			cs, err := f.store.ClaimURLsOf(ctx, f.cfg.Owner, ids, 1, f.cfg.Limits, r.now)
			res.first = make([]refilled, len(ids))
			for i := range res.first {
				if i < len(cs) {
					res.first[i] = refilled{us: cs[i].URLs, err: cs[i].Err}
				} else {
					res.first[i].err = err
				}
			}
		}
	}
	res.got = make([]refilled, len(r.refill))
	if len(r.refill) == 0 {
		return res
	}
	if r.budget != nil {
		for i := range res.got {
			res.got[i].err = r.budget
		}
		return res
	}
	// One claim per claim size (see claimSizeLocked), the hosts of each
	// in the order given.
	sizes := map[int][]int{} // claim size → indexes in r.refill
	var order []int
	for i, h := range r.refill {
		n := max(h.claimN, 1)
		if sizes[n] == nil {
			order = append(order, n)
		}
		sizes[n] = append(sizes[n], i)
	}
	for _, n := range order {
		at := sizes[n]
		ids := make([]crawl.ID, len(at))
		for j, i := range at {
			ids[j] = r.refill[i].ID
		}
		cs, err := f.store.ClaimURLsOf(ctx, f.cfg.Owner, ids, n, f.cfg.Limits, r.now)
		for j, i := range at {
			if j < len(cs) {
				res.got[i] = refilled{us: cs[j].URLs, next: cs[j].Next, err: cs[j].Err}
			} else {
				res.got[i].err = err
			}
		}
	}
	return res
}

// claimSizeLocked is how many URLs to claim for a host: Batch, but under
// a budget (whose claimed URLs count against it) one for a host not known
// to rank near the best and two for the others.
func (f *Frontier) claimSizeLocked(h *host, now time.Time) int {
	if !f.budgeted() || f.budget != nil {
		return f.cfg.Batch
	}
	if bar, ok := f.barLocked(now); !h.ranked || ok && f.heldBack(h.rank, bar) {
		return 1
	}
	return min(2, f.cfg.Batch)
}

// applyLocked applies a round's outcome: claimed hosts join the waiting
// heap, claimed URLs the buffers of their hosts.
func (f *Frontier) applyLocked(ctx context.Context, r ioRound, res ioResult) error {
	f.applyValuesLocked(res.values)
	defer f.valueRefilledLocked(ctx, r)
	for i, sh := range res.claimed {
		h := &host{Host: sh, delay: sh.Delay, backoff: sh.Backoff, readyAt: sh.NextFetchAt, heapIndex: -1, value: res.values[sh.ID],
			mirror: f.mirrors[sh.ID]}
		if sh.Robots != nil {
			f.setRobotsLocked(h, sh.Robots)
		}
		f.hosts[h.ID] = h
		if i < len(res.first) {
			switch c := res.first[i]; {
			case len(c.us) > 0:
				h.buf = c.us
				f.rankLocked(h)
			case errors.Is(c.err, crawl.ErrPageBudget), errors.Is(c.err, crawl.ErrByteBudget):
				f.budgetReachedLocked(c.err, nil, r.now)
			}
		}
		f.waiting.push(h)
	}
	if len(res.claimed) > 0 {
		f.cfg.Log.Debug("claimed hosts", "count", len(res.claimed), "held", len(f.hosts))
	}
	if r.claim && res.claimErr == nil {
		f.unheldClaimedLocked(r, res)
		if len(res.claimed) >= r.room && f.cfg.Limits.MaxPages <= 0 && f.cfg.Limits.MaxBytes <= 0 {
			// Without a budget, a claim that found as many hosts as it
			// asked for may have left more waiting: while too few held
			// hosts are ready, the next looks at once, not after
			// ClaimEvery. Hosts with queued URLs left unheld while the
			// workers wait would waste their politeness windows (a journal
			// linked from a seed's home page, ranked below the seeds' own
			// pages, waited seconds to be claimed).
			f.claimSoon = true
		}
	}
	var storeErr error
	if res.claimErr != nil {
		storeErr = fmt.Errorf("frontier: %w", res.claimErr)
	}
	// A claim that finds nothing is final if nothing could be on its way.
	final := r.settled && r.admits == f.admits
	for i, h := range r.refill {
		if err := f.claimedLocked(h, res.got[i], r.now, final); err != nil {
			storeErr = err
		}
	}
	if f.settles != r.settles {
		// Settle came while the round ran: the hosts whose claims found
		// nothing, stamped before it, look again at once, not ClaimEvery
		// later; that look is final if the process is still settled.
		f.settleLocked()
	}
	if err := f.renewedLocked(r, res); err != nil {
		storeErr = err
	}
	return storeErr
}

// leaseShort says whether h's lease may run out before a request handed
// out now ends: less than a third of the lease is left, the time between
// two renewals (Renew), so at least one was missed (a stalled process, a
// store slow to answer). A lease of unknown end is not checked.
func (f *Frontier) leaseShort(h *host, now time.Time) bool {
	return !h.LeaseUntil.IsZero() && now.After(h.LeaseUntil.Add(-f.cfg.Lease/3))
}

// renewedLocked applies the renewal of the hosts whose leases ran short:
// a host renewed is scheduled again, one lost is dropped, and one whose
// renewal failed waits as after a failed claim.
func (f *Frontier) renewedLocked(r ioRound, res ioResult) error {
	for _, h := range r.renew {
		h.renewing = false
		if f.hosts[h.ID] != h {
			continue // let go or lost meanwhile
		}
		switch {
		case res.renewErr != nil:
			h.wakeAt = r.now.Add(f.cfg.ClaimEvery)
		case slices.Contains(res.lost, h.ID):
			f.cfg.Log.Warn("host lease lost", "host", h.Key)
			f.dropLocked(h)
			continue
		default:
			h.LeaseUntil = r.now.Add(f.cfg.Lease)
		}
		f.schedule(h)
	}
	if res.renewErr != nil {
		return fmt.Errorf("frontier: %w", res.renewErr)
	}
	return nil
}

// claimedLocked applies the outcome of claiming URLs for a host: a refill
// when its buffer had run dry (and it waits outside the heaps), otherwise
// a top-up merged into what it still has. final says that a claim that
// found nothing lets the host go at once (see Config.Settled).
func (f *Frontier) claimedLocked(h *host, c refilled, now time.Time, final bool) error {
	h.refilling = false
	if f.hosts[h.ID] != h {
		return nil // dropped meanwhile (lease lost)
	}
	if f.stopped {
		h.buf = append(h.buf, c.us...) // returned by Stop
		return nil
	}
	if h.overShare && len(c.us) > 0 {
		// The host spent its share by this process's count before the
		// store recorded it: what the claim found goes back, and the
		// claim is made again once the results have reached the store
		// (which then skips the host's queue). A store that still finds
		// the share unspent after a few looks has the last word: the host
		// is let go, and claimed again with the store's count.
		f.giveBackLocked(h, c.us)
		c.us = nil
		if h.shareChecks++; h.shareChecks > idleChecks {
			f.releaseIfIdleLocked(h)
			return nil
		}
		if c.err == nil {
			c.next = now.Add(f.cfg.ClaimEvery)
		}
	}
	if len(h.buf) == 0 && h.heapIndex < 0 && h.inflight < f.cfg.HostInflight && !h.robotsBusy {
		if err := f.refilledLocked(h, c.us, c.next, c.err, now, final); err != nil {
			h.wakeAt = now.Add(f.cfg.ClaimEvery) // try again later
			f.waiting.push(h)
			return err
		}
		return nil
	}
	switch {
	case c.err == nil:
	case errors.Is(c.err, crawl.ErrLeaseLost), errors.Is(c.err, crawl.ErrPageBudget),
		errors.Is(c.err, crawl.ErrByteBudget), errors.Is(c.err, crawl.ErrHostBytes):
		return f.refilledLocked(h, nil, time.Time{}, c.err, now, false)
	default:
		return fmt.Errorf("frontier: %w", c.err)
	}
	if len(c.us) == 0 {
		return nil // when the buffer runs dry, a refill looks again
	}
	h.buf = append(h.buf, c.us...)
	slices.SortStableFunc(h.buf, func(a, b crawl.ClaimedURL) int { return cmp.Compare(b.Priority, a.Priority) })
	h.emptyClaims = 0
	switch {
	case f.ready.has(h):
		f.rankLocked(h)
		f.ready.fix(h)
	case h.heapIndex < 0:
		f.schedule(h)
	}
	return nil
}

// flushReleases gives up the leases of hosts let go since the last call.
func (f *Frontier) flushReleases(ctx context.Context, rel []crawl.HostRelease) {
	if len(rel) == 0 {
		return
	}
	// The hosts' last results may not be committed yet (the committer
	// batches them).
	at := f.cfg.Now()
	for i := range rel {
		rel[i].At = at
	}
	if err := f.store.ReleaseHosts(context.WithoutCancel(ctx), f.cfg.Owner, rel); err != nil {
		// The leases will expire on their own; nothing is lost.
		f.cfg.Log.Warn("release host leases", "hosts", len(rel), "err", err)
	}
}

// refilledLocked applies the outcome of claiming a batch of a host's URLs.
// With none ready it parks the host until its next retry time, re-checks
// it shortly a few times (unless the claim is final: Config.Settled), or
// lets it go when it has nothing in flight.
func (f *Frontier) refilledLocked(h *host, us []crawl.ClaimedURL, next time.Time, err error, now time.Time, final bool) error {
	switch {
	case errors.Is(err, crawl.ErrPageBudget), errors.Is(err, crawl.ErrByteBudget):
		if !f.budgetReachedLocked(err, h, now) {
			// Budget is being given back (spend.go): claim again shortly.
			if h.heapIndex < 0 {
				h.wakeAt = now.Add(f.cfg.ClaimEvery)
				f.schedule(h)
			}
			return nil
		}
		f.releaseIfIdleLocked(h)
		return nil
	case errors.Is(err, crawl.ErrHostBytes):
		f.overShareLocked(h)
		f.releaseIfIdleLocked(h)
		return nil
	case errors.Is(err, crawl.ErrLeaseLost):
		f.cfg.Log.Warn("host lease lost", "host", h.Key)
		f.dropLocked(h)
		return nil
	case err != nil:
		return fmt.Errorf("frontier: %w", err)
	}
	h.wakeAt = time.Time{}
	if len(us) > 0 {
		h.buf = us
		h.emptyClaims = 0
		f.rankLocked(h)
		h.since = now
		f.ready.push(h)
		return nil
	}
	if !next.IsZero() {
		h.wakeAt = next // a retry time, not politeness: not persisted
		f.waiting.push(h)
		return nil
	}
	// Nothing queued. New URLs for the host may still be on their way (the
	// results of its last fetches are committed asynchronously), so look
	// again shortly a few times before letting the host go; Admitted wakes
	// it at once when they land. A final claim knew that none were.
	if !final && h.emptyClaims < idleChecks && !f.stopped {
		h.emptyClaims++
		h.wakeAt = now.Add(f.cfg.ClaimEvery)
		f.waiting.push(h)
		return nil
	}
	f.releaseIfIdleLocked(h)
	return nil
}

// idleChecks is how many empty claims a host gets before it is released.
const idleChecks = 3
