// Package frontier schedules a crawl over a crawl.Store: it leases hosts,
// keeps a small buffer of each active host's best URLs, and hands out the
// best URL of a host whose politeness time has come. Next never blocks
// waiting for time: it answers "nothing ready until T" and the caller
// decides what to do.
package frontier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/robots"
)

// Config configures a Frontier.
type Config struct {
	Owner         string        // lease owner name, unique per process
	Lease         time.Duration // host lease length (default 60s)
	MaxHosts      int           // hosts held at once (default 256)
	MinReady      int           // claim more hosts while fewer than this are ready (default 8; the number of workers)
	Batch         int           // URLs claimed from the store per host at a time (default 8)
	Limits        crawl.Limits
	Delay         time.Duration // minimum gap between requests to one host
	MaxCrawlDelay time.Duration // cap on robots.txt Crawl-delay (default 30s)
	HostInflight  int           // requests in flight per host (default 1); their starts are still the host's delay apart
	Token         string        // robots.txt product token
	RobotsTTL     time.Duration // how long a robots.txt is cached (default 24h)
	RobotsRetry   time.Duration // first retry of an unreachable robots.txt (default 1m, doubling)
	RobotsTries   int           // unreachable robots.txt attempts before the host's URLs are skipped (default 4)
	MaxBackoff    time.Duration // cap on throttling back-off (default 10m)
	ClaimEvery    time.Duration // how often idle capacity looks for new hosts (default 250ms)
	Now           func() time.Time
	Log           *slog.Logger
	Wake          func() // called when background store I/O has made work ready
	// Settled reports whether every result of the tasks handed out so
	// far has been committed, its new URLs admitted (Admitted). A claim
	// of a host's URLs that finds none, made while the process was
	// settled and with no URLs admitted since, lets the host go at once:
	// no result of its own can still add any. Otherwise, or without
	// Settled, the host is looked at again a few times first.
	Settled func() bool
	// HostValues ranks a host by its best buffered URL's priority plus the
	// host's value, which the store learns from what the host's recorded
	// pages turned out to be (HostValuer): the priority order. With a page
	// or byte budget in Limits it also spends the budget across hosts by
	// rank: a host whose rank is more than BudgetSlack below the best rank
	// among the held hosts that may take a request within BudgetHorizon
	// waits, its slot unused, and holds one claimed URL at a time.
	HostValues bool
	// ValueFloor is the priority below which a URL gains none of its
	// host's positive value (a negative value still counts): the URLs the
	// priority policy avoids (news, events, about and shop pages: its
	// avoid penalty, 16, less what inbound links and a topic word in the
	// host's name add) rank by themselves, so that a research site whose
	// research is spent ranks by its news, not by the research it had
	// (default −8).
	ValueFloor    int
	BudgetSlack   int           // default 6
	BudgetHorizon time.Duration // default 4 delays, at least 1s
	// Aging is, with HostValues and no budget, the wait that is worth one
	// rank point: a ready host that waited for a worker while better ones
	// were served gains a point per Aging, so that when the workers cannot
	// serve every host in its time, the hosts of lower rank (where links
	// to hosts not seen yet often are) still move (default: the delay, at
	// least 50ms; negative: never).
	Aging time.Duration
}

func (c *Config) defaults() {
	if c.Lease <= 0 {
		c.Lease = time.Minute
	}
	if c.MaxHosts <= 0 {
		c.MaxHosts = 256
	}
	if c.Batch <= 0 {
		c.Batch = 8
	}
	if c.MinReady <= 0 {
		c.MinReady = 8
	}
	if c.MaxCrawlDelay <= 0 {
		c.MaxCrawlDelay = 30 * time.Second
	}
	if c.HostInflight <= 0 {
		c.HostInflight = 1
	}
	if c.RobotsTTL <= 0 {
		c.RobotsTTL = 24 * time.Hour
	}
	if c.RobotsRetry <= 0 {
		c.RobotsRetry = time.Minute
	}
	if c.RobotsTries <= 0 {
		c.RobotsTries = 4
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 10 * time.Minute
	}
	if c.ClaimEvery <= 0 {
		c.ClaimEvery = 250 * time.Millisecond
	}
	if c.ValueFloor == 0 {
		c.ValueFloor = -8
	}
	if c.BudgetSlack <= 0 {
		c.BudgetSlack = 6
	}
	if c.BudgetHorizon <= 0 {
		c.BudgetHorizon = max(4*c.Delay, time.Second)
	}
	if c.Aging == 0 {
		c.Aging = max(c.Delay, 50*time.Millisecond)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Kind is what a Task asks the caller to do.
type Kind int

// Task kinds.
const (
	FetchURL    Kind = iota // fetch Task.URL (after checking Task.Robots)
	FetchRobots             // fetch the host's robots.txt
	SkipURL                 // record Task.URL as skipped without a request (Task.Reason)
	ReturnURL               // commit Task.URL with crawl.OutcomeRelease, unattempted: a claim given back (a page budget's end, spend.go)
)

// Task is one unit of work handed out by Next.
type Task struct {
	Kind   Kind
	HostID crawl.ID
	Host   string // host key (scheme://host[:port])
	URL    crawl.ClaimedURL
	Robots *robots.Group // rules for Task.URL; nil for FetchRobots
	Reason string        // for SkipURL
	Trap   string        // the host's suspected-trap description as recorded in the store when it was claimed
	// Err is, for SkipURL, the permanent error that stands for the request
	// (the host's address was refused: see RobotsRefused); nil when policy
	// skips the URL.
	Err error
	// Delay is, for FetchRobots, the host's politeness gap: a request the
	// task makes after its first (a redirect hop) waits this long after
	// the previous one.
	Delay time.Duration

	h *host // the claim of the host the task came from
}

// ErrStopped is returned by Next after Stop.
var ErrStopped = errors.New("frontier stopped")

// Frontier is the in-memory scheduler in front of a Store. Its methods are
// safe for concurrent use.
type Frontier struct {
	store Store
	cfg   Config

	mu        sync.Mutex
	hosts     map[crawl.ID]*host
	waiting   heap // hosts that may take a request at readyAt (earliest first)
	ready     heap // hosts whose time has come, best next URL first
	lastClaim time.Time
	claimSoon bool                // unheld hosts received URLs: claim without waiting
	toRelease []crawl.HostRelease // hosts let go, leases to give up
	budget    error               // ErrPageBudget/ErrByteBudget once reached
	// tight is set once a page budget was reached and held-back hosts
	// gave their claims back (returns, handed out first), at returnedAt
	// (spend.go).
	tight      bool
	returns    []Task
	returnedAt time.Time
	stopped    bool
	lostHosts  int
	// unheld is, under a budget, what the hosts not held may rank
	// (explore.go): unheldUnknown until a claim tells.
	unheld int
	// ioBusy is set while a round of store I/O runs in the background;
	// pending is the round queued behind it, ioErr its last failure.
	ioBusy   bool
	ioCond   *sync.Cond
	ioCancel context.CancelFunc // cancels the running round (Stop, past its wait)
	pending  ioRound
	ioErr    error
	// admits counts the calls of Admitted and AdmittedAny, settles those
	// of Settle; a round of I/O notes both when it starts (stampLocked).
	// ended counts the tasks done (Done), for waitIO.
	admits  uint64
	settles uint64
	ended   uint64
	mirrors map[crawl.ID]bool // hosts taken for mirrors (Mirror)
	// marked is what this process recorded, or queued to record, of the
	// hosts its copy counts show to be mirrors (Copies): the host each is
	// a mirror of, 0 for a mark cleared; toMark the marks queued for the
	// next round of store I/O (MirrorKeeper).
	marked map[crawl.ID]crawl.ID
	toMark map[crawl.ID]crawl.ID
	// valuing is set while the values of refilled hosts are learned in
	// the background (valueRefilledLocked), toValue the hosts queued
	// behind it.
	valuing     bool
	toValue     []crawl.ID
	valueCancel context.CancelFunc // cancels the background valuing (Stop, past its wait)
	// hostsOverShare counts hosts found past their byte share.
	hostsOverShare int
}

type host struct {
	crawl.Host
	buf         []crawl.ClaimedURL
	inflight    int
	group       *robots.Group
	robots      *robots.Robots
	robotsBusy  bool
	refused     error     // the host's address was refused for good (RobotsRefused)
	readyAt     time.Time // politeness: no request before this
	spacedUntil time.Time // while requests are in flight, no other starts before this (the last start + the delay)
	delay       time.Duration
	backoff     int
	wakeAt      time.Time // not before this either: a retry time or an idle re-check
	emptyClaims int       // consecutive claims that found nothing queued
	overShare   bool      // the host spent its byte share
	shareChecks int       // claims since that still found URLs (the store had not recorded it yet)
	rank        int       // priority of the next task (plus the host's value), while in the ready heap
	since       time.Time // when it could first take the task it waits for in the ready heap
	value       int       // what the store learned the host is worth (HostValues)
	copyValue   int       // while copied: the most the host's copies of other hosts' pages leave it worth (Copies)
	copied      bool
	spent       bool // its last committed pages were no research (Plain): its value lifts none of its URLs
	mirror      bool // taken for a copy of another host (Mirror)
	ranked      bool // the host had URLs buffered: rank is its last known rank
	claimN      int  // URLs asked for by the claim on its way
	heapIndex   int  // position in the heap holding it, -1 in none
	idle        bool // nothing left to claim; release after the last Done
	refilling   bool // a claim of its URLs is on its way
	renewing    bool // its lease ran short and its renewal is on its way (leaseShort)
}

// New returns a frontier over store.
func New(store Store, cfg Config) *Frontier {
	cfg.defaults()
	f := &Frontier{store: store, cfg: cfg, hosts: map[crawl.ID]*host{},
		waiting: heap{less: byReadyAt}, ready: heap{less: byRank}, unheld: unheldUnknown}
	if cfg.HostValues && cfg.Aging > 0 && cfg.Limits.MaxPages <= 0 && cfg.Limits.MaxBytes <= 0 {
		unit := cfg.Aging.Milliseconds()
		f.ready.less = func(a, b *host) bool {
			// Ranks clamped: a robots.txt fetch ranks first (the largest
			// int), and the product must not overflow.
			ra, rb := int64(min(max(a.rank, skipRank), -skipRank)), int64(min(max(b.rank, skipRank), -skipRank))
			ka, kb := ra*unit-a.since.UnixMilli(), rb*unit-b.since.UnixMilli()
			if ka != kb {
				return ka > kb
			}
			return byRank(a, b)
		}
	}
	f.ioCond = sync.NewCond(&f.mu)
	return f
}

// Status summarizes the frontier's in-memory state.
type Status struct {
	Hosts    int   // hosts held
	Buffered int   // URLs claimed and not yet handed out
	InFlight int   // tasks handed out and not yet done
	Budget   error // the budget that stopped claims, if any
	// Pending counts the tasks Next may still hand out from what it holds,
	// without claiming anything new: buffered URLs of hosts that need no
	// robots.txt fetch first and may take a request within their usual
	// delay (not those paused by an unavailable robots.txt or backing off), a robots.txt fetch for each host that needs
	// one (none once a budget is reached: no robots.txt is fetched then),
	// and one for each host whose URLs are being claimed. It is 0 once the
	// byte budget is reached. With a budget reached, nothing in flight and
	// nothing pending, the frontier has nothing left to do.
	Pending   int
	LostHosts int // leases lost to expiry (another process took over)
	// HostsOverShare counts the hosts this process found past their byte
	// share (Limits.MaxHostBytes).
	HostsOverShare int
}

// Status returns the in-memory state.
func (f *Frontier) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Status{Hosts: len(f.hosts), Budget: f.budget, LostHosts: f.lostHosts, HostsOverShare: f.hostsOverShare, Pending: len(f.returns)}
	now := f.cfg.Now()
	bytesSpent := errors.Is(f.budget, crawl.ErrByteBudget)
	for _, h := range f.hosts {
		s.Buffered += len(h.buf)
		s.InFlight += h.inflight
		switch {
		case bytesSpent || f.stopped:
		case h.refilling, h.renewing:
			s.Pending++
		case f.needsRobots(h, now):
			if f.budget == nil && !h.robotsBusy {
				s.Pending++
			}
		case h.Robots != nil && h.Robots.Failures > 0:
			// robots.txt unavailable: the host waits for a retry.
		case h.due().After(now.Add(max(2*f.cfg.Delay, f.cfg.MaxCrawlDelay))):
			// Backing off (429, 503, a soft block): not soon.
		default:
			s.Pending += len(h.buf)
		}
	}
	return s
}

// Next returns the next task. When nothing is ready it returns ok=false and
// the time at which something may be (zero when only a Done, Admitted or
// background I/O can make work ready). It never waits for politeness. The
// store I/O it needs (claiming hosts and URLs, releasing idle hosts) runs
// without the frontier's lock, so Done never waits for the store; and when
// other hosts have work ready, that I/O runs in the background while Next
// hands their work out, so one host's claim waiting behind a long commit
// does not hold up the others. Next waits for the store only when it has
// nothing else to hand out, and not past the end of a request (Done), the
// time a host comes due or the end of ctx; the store I/O goes on without
// it all the same, so that what a claim took reaches the frontier (and
// Stop returns it) whenever the caller stops waiting. A host's buffer is
// topped up in the background before it runs dry. Among the hosts whose
// time has come, the one whose best URL has the highest priority goes
// first. Next is meant to be called from one goroutine; Config.Wake is
// called when background I/O has made work ready.
func (f *Frontier) Next(ctx context.Context) (Task, bool, time.Time, error) {
	for {
		t, ok, wake, st, err := f.next(ctx)
		if st == waitIO {
			if err := f.waitIO(ctx); err != nil {
				return Task{}, false, time.Time{}, err
			}
			continue // hosts the I/O claimed may be due now
		}
		return t, ok, wake, err
	}
}

// nextState says whether next handed out its answer or wants the caller
// to wait for the background store I/O first.
type nextState int

const (
	answered nextState = iota
	waitIO
)

func (f *Frontier) next(ctx context.Context) (t Task, ok bool, wake time.Time, st nextState, err error) {
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		return Task{}, false, time.Time{}, answered, ErrStopped
	}
	if err := f.ioErr; err != nil {
		f.ioErr = nil
		f.mu.Unlock()
		return Task{}, false, time.Time{}, answered, err
	}
	if t, ok := f.nextReturnLocked(); ok {
		// A claim given back costs no request: it goes back to the queue
		// whatever budget is spent (Status counts it pending till then).
		f.mu.Unlock()
		return t, true, time.Time{}, answered, nil
	}
	if errors.Is(f.budget, crawl.ErrByteBudget) {
		// Bandwidth is spent: not even claimed URLs are fetched.
		f.mu.Unlock()
		return Task{}, false, time.Time{}, answered, nil
	}
	now := f.cfg.Now()
	// Hosts whose time has come move to the ready heap, each with its next
	// URL buffered (or a robots.txt fetch due) so it can be ranked; those
	// with an empty buffer are refilled first.
	var refill []*host
	for f.waiting.Len() > 0 && !f.waiting.top().due().After(now) {
		h := f.waiting.pop()
		switch {
		case h.inflight >= f.cfg.HostInflight:
			// rescheduled by Done
		case f.needsRobots(h, now) && f.budget != nil:
			// A budget is reached: no robots.txt is fetched, first or
			// again; what the host holds goes back at Stop.
			f.releaseIfIdleLocked(h)
		case f.needsRobots(h, now):
			if !h.robotsBusy {
				h.rank = int(^uint(0) >> 1) // robots.txt unblocks the host: first
				f.ready.push(h)
			}
		case len(h.buf) > 0:
			f.rankLocked(h)
			h.since = h.due()
			f.ready.push(h)
		case h.refilling, h.renewing:
			// its claim or renewal is on its way and puts it back
		case f.budget != nil:
			f.releaseIfIdleLocked(h)
		default:
			h.refilling = true
			h.claimN = f.claimSizeLocked(h, now)
			refill = append(refill, h)
		}
	}
	// A host whose lease may run out before a request to it ends is not
	// handed out until its lease is renewed: another process may take it
	// over once the lease expires, and fetch what this one holds.
	var renew []*host
	for f.ready.Len() > 0 && f.leaseShort(f.ready.top(), now) {
		h := f.ready.pop()
		h.renewing = true
		renew = append(renew, h)
	}
	// Lease more hosts only when too few are ready to keep the workers
	// busy, a few at a time: a process holds what it can work, and several
	// processes share the hosts of one crawl. Under a budget, hosts held
	// back by rank do not count.
	bar, barred := f.barLocked(now)
	readyCount := f.ready.Len() + len(refill)
	if barred {
		readyCount = len(refill)
		for _, h := range f.ready.items {
			if !f.heldBack(h.rank, bar) {
				readyCount++
			}
		}
	}
	due := f.claimSoon || now.Sub(f.lastClaim) >= f.cfg.ClaimEvery
	claim := f.budget == nil && len(f.hosts) < f.cfg.MaxHosts && f.mayClaimTightLocked(now) &&
		(readyCount < f.cfg.MinReady && due || f.exploreLocked(bar, barred, now))
	if claim && f.ioBusy && f.pending.claim {
		claim = false // the round queued behind the running one claims already
	}
	room := min(f.cfg.MaxHosts-len(f.hosts), max(f.cfg.MinReady-readyCount, f.cfg.MinReady/2, 1))
	if claim {
		f.lastClaim, f.claimSoon = now, false
	}
	r := ioRound{claim: claim, room: room, refill: refill, renew: renew, budget: f.budget, now: now}
	switch {
	case f.ioBusy:
		// A round is running: this one follows it (its releases too).
		f.pending.claim = f.pending.claim || r.claim
		f.pending.room = max(f.pending.room, r.room)
		f.pending.refill = append(f.pending.refill, r.refill...)
		f.pending.renew = append(f.pending.renew, r.renew...)
		if f.ready.Len() == 0 {
			f.mu.Unlock()
			return Task{}, false, time.Time{}, waitIO, nil
		}
	case f.ready.Len() > 0:
		// Work is ready: hand it out and do the store I/O meanwhile.
		r.releases, f.toRelease = f.toRelease, nil
		r.marks, f.toMark = f.toMark, nil
		if !r.empty() {
			f.startIOLocked(ctx, r)
		}
	default:
		// Nothing to hand out: do the store I/O and wait for it. It runs
		// as a background round does, whatever becomes of ctx: a claim
		// the store makes lands in the frontier, for Stop to return, and
		// is not lost to a caller that stopped waiting (a claim cut off
		// by the end of the crawl's time would leave its URLs in flight).
		r.releases, f.toRelease = f.toRelease, nil
		r.marks, f.toMark = f.toMark, nil
		if !r.empty() {
			f.startIOLocked(ctx, r)
			f.mu.Unlock()
			return Task{}, false, time.Time{}, waitIO, nil
		}
	}
	defer f.mu.Unlock()
	if f.budget != nil {
		// Hosts made ready for a robots.txt fetch before the budget was
		// reached do not fetch it now either.
		for _, h := range slices.Clone(f.ready.items) {
			if f.needsRobots(h, now) {
				f.ready.remove(h)
				f.releaseIfIdleLocked(h)
			}
		}
	}
	if f.ready.Len() == 0 {
		// The next claim, if one may come; else only a Done (or a host's
		// time) makes work ready: a zero wake says no time is known.
		if f.budget == nil && len(f.hosts) < f.cfg.MaxHosts && f.mayClaimTightLocked(now) {
			wake = f.lastClaim.Add(f.cfg.ClaimEvery)
		}
		if f.waiting.Len() > 0 && (wake.IsZero() || f.waiting.top().due().Before(wake)) {
			wake = f.waiting.top().due()
		}
		if len(f.toRelease) > 0 {
			wake = now // releases to flush
		}
		return Task{}, false, wake, answered, nil
	}
	if bar, barred := f.barLocked(now); barred && f.heldBack(f.ready.top().rank, bar) {
		// Under a budget, the best ready host ranks too far below a host
		// that may take a request soon: its slot stays unused, until that
		// host's time or its URLs come.
		if f.ioBusy {
			return Task{}, false, time.Time{}, waitIO, nil
		}
		if f.waiting.Len() > 0 {
			wake = f.waiting.top().due()
		}
		return Task{}, false, wake, answered, nil
	}
	h := f.ready.pop()
	if f.needsRobots(h, now) {
		h.robotsBusy = true
		h.inflight++
		h.spacedUntil = now.Add(f.gap(h))
		return Task{Kind: FetchRobots, HostID: h.ID, Host: h.Key, Delay: f.gap(h), h: h}, true, time.Time{}, answered, nil
	}
	u := h.buf[0]
	h.buf = h.buf[1:]
	if h.refused != nil {
		f.schedule(h)
		return Task{Kind: SkipURL, HostID: h.ID, Host: h.Key, URL: u, Reason: h.refused.Error(), Err: h.refused, h: h}, true, time.Time{}, answered, nil
	}
	if f.gaveUpRobots(h) {
		f.schedule(h)
		return Task{Kind: SkipURL, HostID: h.ID, Host: h.Key, URL: u, Reason: "robots.txt unavailable", h: h}, true, time.Time{}, answered, nil
	}
	h.inflight++
	h.spacedUntil = now.Add(f.gap(h))
	f.schedule(h)
	if low := f.cfg.Batch / 4; low > 0 && len(h.buf) == low && !h.refilling && f.budget == nil && !h.idle {
		// Top the buffer up before it runs dry.
		h.refilling = true
		h.claimN = f.claimSizeLocked(h, now)
		if f.ioBusy {
			f.pending.refill = append(f.pending.refill, h)
		} else {
			f.startIOLocked(ctx, ioRound{refill: []*host{h}, now: now})
		}
	}
	return Task{Kind: FetchURL, HostID: h.ID, Host: h.Key, URL: u, Robots: h.group, Trap: h.Trap, h: h}, true, time.Time{}, answered, nil
}

// spentRun is how many pages in a row that are no research take a host's
// research for spent (Plain).
const spentRun = 8

// mirrorCopies is how many copies of another host's pages, at least half
// of the pages a host gave, show it to be a mirror of that host (Copies):
// a host that copies a few pages of another (a reprint, a shared notice)
// is not one.
const mirrorCopies = 3

// skipRank is the rank of a host whose URLs are skipped, under a budget.
const skipRank = -1 << 30

// budgeted reports whether hosts are held back by rank: the frontier
// ranks hosts by value and a page or byte budget is set. Once the budget
// is reached, the URLs of hosts held back are not fetched either: they go
// back to the queue at Stop.
func (f *Frontier) budgeted() bool {
	return f.cfg.HostValues && (f.cfg.Limits.MaxPages > 0 || f.cfg.Limits.MaxBytes > 0)
}

// barLocked returns, under a budget (budgeted), the best rank among the
// held hosts that may take a request within BudgetHorizon (a host waiting
// for its robots.txt too): by their best buffered URL, or for a host
// whose buffer is being refilled or is in flight, by its last rank. A
// host ranking more than BudgetSlack below it waits. No host waits once
// the budget is reached.
func (f *Frontier) barLocked(now time.Time) (bar int, ok bool) {
	if !f.budgeted() || f.budget != nil {
		// Once the budget is reached nothing more is claimed: holding a
		// host back would only leave its claimed URLs unfetched.
		return 0, false
	}
	horizon := now.Add(f.cfg.BudgetHorizon)
	for _, h := range f.hosts {
		if h.refused != nil || h.overShare || f.gaveUpRobots(h) || h.idle || h.due().After(horizon) {
			continue
		}
		if h.heapIndex < 0 && !h.refilling && !h.renewing && h.inflight == 0 {
			continue // waits for nothing that would make it ready
		}
		if h.robots == nil && (f.budget != nil || h.Robots != nil && h.Robots.Failures > 0) {
			continue // no robots.txt fetch now, or not a sure one
		}
		var r int
		switch {
		case len(h.buf) > 0:
			r = f.bufRank(h)
		case f.budget == nil && h.ranked && h.emptyClaims == 0:
			r = h.rank
		default:
			continue
		}
		if r >= firstRank {
			continue // a seed or a sitemap: fetched first, it says nothing of the host's pages
		}
		if !ok || r > bar {
			bar, ok = r, true
		}
	}
	return bar, ok
}

// firstRank is the least rank of a URL that is fetched first whatever
// its host is worth (a seed, +1000; a sitemap, 900; a robots.txt fetch):
// such a rank is no bar for other hosts (barLocked). Were it one, a host's
// sitemap claimed as the budget is reached would hold every other host
// back, their claims would go back and the hosts left held, however low
// (a mirror), would spend the budget's end.
const firstRank = 500

// heldBack reports whether, under a budget, a host of rank waits for the
// hosts ranking bar: it ranks more than BudgetSlack below it, or below
// both the bar and 0 (below a plain page of a host not known: a shop's, a
// blog archive's, a spent host's news), which the slack does not cover.
func (f *Frontier) heldBack(rank, bar int) bool {
	return rank < bar-f.cfg.BudgetSlack || rank < 0 && rank < bar
}

// schedule puts a host back in the waiting heap when it may take another
// request now or later; a host at its in-flight limit waits for Done.
func (f *Frontier) schedule(h *host) {
	if f.stopped || h.inflight >= f.cfg.HostInflight || h.robotsBusy {
		return
	}
	f.waiting.push(h)
}

func (f *Frontier) needsRobots(h *host, now time.Time) bool {
	if h.refused != nil {
		return false
	}
	if h.robots == nil {
		return true
	}
	if f.gaveUpRobots(h) {
		return false
	}
	return !h.Robots.ExpiresAt.After(now)
}

func (f *Frontier) gaveUpRobots(h *host) bool {
	return h.Robots != nil && h.Robots.Status == 0 && h.Robots.Failures >= f.cfg.RobotsTries
}

// overShareLocked records that the host spent its byte share: it takes no
// request more, and what it holds claimed goes back to the queue, which
// the store skips at the host's next claim.
func (f *Frontier) overShareLocked(h *host) {
	if h.overShare {
		return
	}
	h.overShare = true
	f.hostsOverShare++
	f.cfg.Log.Info("host reached its byte share; its queued URLs are skipped", "host", h.Key)
	f.giveBackLocked(h, h.buf)
	h.buf = nil
	f.ready.remove(h)
}

// giveBackLocked hands claimed URLs of the host out as ReturnURL tasks
// (the caller commits them with crawl.OutcomeRelease).
func (f *Frontier) giveBackLocked(h *host, us []crawl.ClaimedURL) {
	for _, u := range us {
		f.returns = append(f.returns, Task{Kind: ReturnURL, HostID: h.ID, Host: h.Key, URL: u, h: h})
	}
}

// Admitted tells the frontier which hosts just received new URLs: held
// hosts waiting for work are woken, and unheld ones are claimed at the
// next opportunity.
func (f *Frontier) Admitted(hosts []crawl.ID) {
	if len(hosts) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.admits++
	for _, id := range hosts {
		h := f.hosts[id]
		if h == nil {
			f.claimSoon = true
			f.unheldAdmittedLocked()
			continue
		}
		f.wakeLocked(h)
	}
}

// AdmittedAny tells the frontier that any host may just have received
// new URLs (pages queued again for a revisit): every held host waiting
// for work is woken, and unheld ones are claimed at the next opportunity.
func (f *Frontier) AdmittedAny() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.admits++
	f.claimSoon = true
	f.unheldAdmittedLocked()
	for _, h := range f.hosts {
		f.wakeLocked(h)
	}
}

// Settle tells the frontier that every result of the tasks it handed out
// has been recorded (Config.Settled holds): the held hosts whose last
// claim found nothing, and which wait ClaimEvery to look again in case
// those results brought them URLs, look again at once, and that look is
// final. Without it every crawl's end waited up to ClaimEvery for them.
func (f *Frontier) Settle() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settles++
	f.settleLocked()
}

// settleLocked makes the held hosts whose last claim found nothing look
// again at once (Settle).
func (f *Frontier) settleLocked() {
	for _, h := range f.hosts {
		if h.emptyClaims > 0 && !h.wakeAt.IsZero() {
			h.wakeAt = time.Time{}
			f.waiting.fix(h)
		}
	}
}

// wakeLocked makes a held host waiting for work claim again at once.
func (f *Frontier) wakeLocked(h *host) {
	h.emptyClaims = 0
	if !h.wakeAt.IsZero() {
		h.wakeAt = time.Time{}
		f.waiting.fix(h)
	}
}

// releaseIfIdleLocked lets go of a host with nothing buffered and nothing
// in flight (its lease is given up by the next Next, outside the lock); one
// with tasks out is let go by the last Done.
func (f *Frontier) releaseIfIdleLocked(h *host) {
	if h.inflight > 0 || len(h.buf) > 0 {
		h.idle = true
		return
	}
	f.waiting.remove(h)
	f.ready.remove(h)
	delete(f.hosts, h.ID)
	f.toRelease = append(f.toRelease, crawl.HostRelease{ID: h.ID, HostUpdate: f.updateLocked(h)})
}

func (f *Frontier) updateLocked(h *host) crawl.HostUpdate {
	return crawl.HostUpdate{NextFetchAt: h.readyAt, Delay: h.delay, Backoff: h.backoff}
}

func (f *Frontier) dropLocked(h *host) {
	f.waiting.remove(h)
	f.ready.remove(h)
	delete(f.hosts, h.ID)
	f.lostHosts++
}

func (f *Frontier) setRobotsLocked(h *host, rec *crawl.RobotsRecord) {
	h.Robots = rec
	if rec.Status == 0 && rec.FetchedAt.IsZero() && rec.Failures == 0 {
		h.robots, h.group = nil, nil
		return
	}
	h.robots = robots.FromStatus(rec.Status, rec.Body)
	h.group = h.robots.Group(f.cfg.Token)
	h.delay = f.cfg.Delay
	if d, ok := h.group.CrawlDelay(); ok && d > h.delay {
		h.delay = min(d, max(f.cfg.MaxCrawlDelay, f.cfg.Delay))
	}
}

// Feedback is what the caller learned from doing a task.
type Feedback struct {
	Requested  bool          // a request reached the network (politeness applies)
	Finished   time.Time     // when the exchange ended (zero: now)
	Throttled  bool          // the host answered 429 or 503
	RetryAfter time.Duration // the host's Retry-After, if any
	Canceled   bool          // the task was abandoned (shutdown); its URL goes back
	// Bytes are the response's bytes, counted against the host's byte
	// share (Limits.MaxHostBytes) before the store records them.
	Bytes int64
}

// hostOf returns the held host a task came from, or nil when the host was
// let go or lost since (even if it was claimed again: the task's request
// is not one of the new claim's).
func (f *Frontier) hostOf(t Task) *host {
	h := f.hosts[t.HostID]
	if h == nil || t.h != nil && t.h != h {
		return nil
	}
	return h
}

// Done reports a finished task and returns the politeness state to record
// with its result.
func (f *Frontier) Done(ctx context.Context, t Task, fb Feedback) crawl.HostUpdate {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hosts[t.HostID]
	if h == nil {
		return crawl.HostUpdate{}
	}
	// A task of an earlier claim of the host (lost, then claimed again) is
	// not one of this claim's in flight; its request still counts.
	stale := t.h != nil && t.h != h
	if !stale && t.Kind != SkipURL && t.Kind != ReturnURL {
		h.inflight--
	}
	if !stale && t.Kind == FetchRobots {
		h.robotsBusy = false
	}
	if h.Bytes += fb.Bytes; f.cfg.Limits.MaxHostBytes > 0 && h.Bytes >= f.cfg.Limits.MaxHostBytes {
		f.overShareLocked(h)
	}
	now := fb.Finished
	if now.IsZero() {
		now = f.cfg.Now()
	}
	if fb.Requested {
		gap := f.gap(h)
		if fb.Throttled {
			h.backoff++
			exp := min(max(gap, time.Second)<<min(h.backoff-1, 20), f.cfg.MaxBackoff)
			gap = max(gap, exp, min(fb.RetryAfter, f.cfg.MaxBackoff))
		} else if h.backoff > 0 {
			h.backoff--
		}
		h.readyAt = maxTime(h.readyAt, now.Add(gap))
	}
	upd := f.updateLocked(h)
	f.ended++
	f.ioCond.Broadcast() // waitIO: the host may be ready
	if !stale && h.idle && h.inflight == 0 && len(h.buf) == 0 {
		h.idle = false
		f.releaseIfIdleLocked(h)
		return upd
	}
	if !stale {
		h.idle = false
	}
	switch {
	case f.ready.has(h) && h.due().After(now):
		f.ready.remove(h) // its time moved: wait again
		f.schedule(h)
	case f.ready.has(h):
		f.ready.fix(h)
	case f.waiting.has(h):
		f.waiting.fix(h)
	case h.heapIndex < 0 && !stale:
		f.schedule(h)
	}
	return upd
}

// RobotsDone records the outcome of a FetchRobots task and persists it.
// status 0 means unreachable. It returns the politeness state to keep.
func (f *Frontier) RobotsDone(ctx context.Context, t Task, status int, body []byte, fb Feedback) error {
	f.mu.Lock()
	h := f.hostOf(t)
	if h == nil {
		f.mu.Unlock()
		f.Done(ctx, t, fb)
		return nil
	}
	now := f.cfg.Now()
	rec := &crawl.RobotsRecord{Status: status, Body: body, FetchedAt: now, ExpiresAt: now.Add(f.cfg.RobotsTTL)}
	// As robots.FromStatus reads it: 429, 5xx, unreachable (0) or a status
	// outside 200-499 mean nothing is allowed for now.
	if status < 200 || status == http.StatusTooManyRequests || status >= 500 {
		prev := 0
		if h.Robots != nil && (h.Robots.Status == 0 || h.Robots.Status >= 500) {
			prev = h.Robots.Failures
		}
		rec.Status, rec.Failures = 0, prev+1
		rec.ExpiresAt = now.Add(min(f.cfg.RobotsRetry<<min(prev, 16), 24*time.Hour))
		rec.Body = nil
		if rec.Failures >= f.cfg.RobotsTries {
			f.cfg.Log.Warn("robots.txt unavailable; skipping the host's URLs", "host", h.Key, "attempts", rec.Failures)
		} else {
			f.cfg.Log.Info("robots.txt unavailable; host paused", "host", h.Key, "attempt", rec.Failures, "retry_at", rec.ExpiresAt)
		}
		// Disallowed for now: nothing of the host before the retry.
		if rec.Failures < f.cfg.RobotsTries {
			h.readyAt = maxTime(h.readyAt, rec.ExpiresAt)
		}
	}
	f.setRobotsLocked(h, rec)
	f.mu.Unlock()
	upd := f.Done(ctx, t, fb)
	if err := f.store.SaveRobots(ctx, t.HostID, *rec, upd); err != nil {
		return fmt.Errorf("frontier: %w", err)
	}
	return nil
}

// RobotsRefused records that a FetchRobots task's request was refused for
// good before anything was sent: err is permanent (the fetcher's guard
// refused the host's address). No retry is scheduled and nothing is saved
// (a later crawl, perhaps allowed to connect, asks again): the host's URLs
// are handed out at once as SkipURL tasks carrying err. It returns the
// politeness state to keep.
func (f *Frontier) RobotsRefused(ctx context.Context, t Task, err error) crawl.HostUpdate {
	f.mu.Lock()
	if h := f.hostOf(t); h != nil && h.refused == nil {
		h.refused = err
		f.cfg.Log.Warn("host refused; its URLs are recorded as failed", "host", h.Key, "err", err)
	}
	f.mu.Unlock()
	return f.Done(ctx, t, Feedback{})
}

// Renew extends the leases of every held host and drops the ones lost.
func (f *Frontier) Renew(ctx context.Context) error {
	f.mu.Lock()
	held := make(map[crawl.ID]*host, len(f.hosts))
	ids := make([]crawl.ID, 0, len(f.hosts))
	for id, h := range f.hosts {
		held[id] = h
		ids = append(ids, id)
	}
	f.mu.Unlock()
	now := f.cfg.Now()
	lost, err := f.store.RenewHosts(ctx, f.cfg.Owner, ids, f.cfg.Lease, now)
	if err != nil {
		return fmt.Errorf("frontier: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range lost {
		// A host let go and claimed again meanwhile is held by the new claim.
		if h := f.hosts[id]; h != nil && h == held[id] {
			f.cfg.Log.Warn("host lease lost", "host", h.Key)
			f.dropLocked(h)
		}
	}
	for id, h := range held {
		if f.hosts[id] == h && !slices.Contains(lost, id) {
			h.LeaseUntil = now.Add(f.cfg.Lease)
		}
	}
	return nil
}

// Stop stops handing out tasks and returns the URLs claimed but never
// handed out, which the caller commits with OutcomeRelease before calling
// ReleaseAll. The URLs of claims on their way are returned too: Stop waits
// for them up to wait, then cancels the store's I/O, so that a stop ends
// in time whatever the store is doing (URLs a cancelled claim took stay
// in flight until their host is claimed again, which returns them to the
// queue).
func (f *Frontier) Stop(wait time.Duration) []crawl.ClaimedURL {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
	cut := time.AfterFunc(wait, func() {
		f.mu.Lock()
		if f.ioBusy && f.ioCancel != nil {
			f.ioCancel()
		}
		if f.valuing && f.valueCancel != nil {
			f.valueCancel()
		}
		f.mu.Unlock()
	})
	defer cut.Stop()
	for f.ioBusy || f.valuing {
		f.ioCond.Wait()
	}
	var out []crawl.ClaimedURL
	for _, t := range f.returns {
		out = append(out, t.URL)
	}
	f.returns = nil
	for _, h := range f.hosts {
		out = append(out, h.buf...)
		h.buf = nil
	}
	return out
}

// ReleaseAll gives up every lease. Call it after the last result is
// committed.
func (f *Frontier) ReleaseAll(ctx context.Context) error {
	f.mu.Lock()
	rel := append(make([]crawl.HostRelease, 0, len(f.hosts)+len(f.toRelease)), f.toRelease...)
	f.toRelease = nil
	for id, h := range f.hosts {
		rel = append(rel, crawl.HostRelease{ID: id, HostUpdate: f.updateLocked(h)})
	}
	f.hosts = map[crawl.ID]*host{}
	f.waiting.items, f.ready.items = nil, nil
	marks := f.toMark
	f.toMark = nil
	f.mu.Unlock()
	f.flushMarks(ctx, marks)
	if err := f.store.ReleaseHosts(ctx, f.cfg.Owner, rel); err != nil {
		return fmt.Errorf("frontier: %w", err)
	}
	return nil
}

// SetBudget records that a crawl budget is spent (the caller may know it
// before the store does: bytes are counted as they arrive). After
// ErrByteBudget no more tasks are handed out; after ErrPageBudget no more
// URLs are claimed and no robots.txt is fetched (first or again): only the
// URLs already claimed of hosts whose robots.txt is in hand are handed out
// (Status.Pending counts them).
func (f *Frontier) SetBudget(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.budget == nil || errors.Is(err, crawl.ErrByteBudget) {
		if f.budget == nil {
			f.cfg.Log.Info("crawl budget reached; finishing what is in flight", "budget", err.Error())
		}
		f.budget = err
	}
}

// Budget returns the budget error that stopped claims, or nil.
func (f *Frontier) Budget() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.budget
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// due is when the host may next be asked for work. With requests in
// flight (HostInflight > 1) the next one also waits a delay after the last
// start; once all are done, readyAt (set from when each ended) says it.
func (h *host) due() time.Time {
	t := maxTime(h.readyAt, h.wakeAt)
	if h.inflight > 0 {
		t = maxTime(t, h.spacedUntil)
	}
	return t
}

// gap is the host's politeness delay.
func (f *Frontier) gap(h *host) time.Duration {
	if h.delay > 0 {
		return h.delay
	}
	return f.cfg.Delay
}
