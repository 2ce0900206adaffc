package frontier

import (
	"context"
	"maps"
	"slices"

	"github.com/acrawler/acrawler/internal/crawl"
)

// valueHosts learns the values of the hosts a round claimed, when the
// frontier ranks hosts by value and the store can tell: a host claimed is
// ranked by its value from the start. The hosts it refilled are valued
// anew in the background (valueRefilledLocked), so that their URLs are
// not held up by it.
func (f *Frontier) valueHosts(ctx context.Context, r ioRound, res *ioResult) {
	if _, ok := f.store.(HostValuer); !f.cfg.HostValues || !ok {
		return
	}
	ids := make([]crawl.ID, 0, len(res.claimed))
	for _, h := range res.claimed {
		ids = append(ids, h.ID)
	}
	res.values = f.learnValues(ctx, ids)
}

// learnValues asks the store for the values of hosts; nil when it fails
// (ranks go on from the values known).
func (f *Frontier) learnValues(ctx context.Context, ids []crawl.ID) map[crawl.ID]int {
	if len(ids) == 0 {
		return nil
	}
	values, err := f.store.(HostValuer).ValueHosts(ctx, ids)
	if err != nil {
		f.cfg.Log.Warn("value hosts", "hosts", len(ids), "err", err)
		return nil
	}
	out := make(map[crawl.ID]int, len(ids))
	for i, id := range ids {
		if i < len(values) {
			out[id] = values[i]
		}
	}
	return out
}

// valueRefilledLocked queues the hosts a round refilled to be valued
// anew, in the background: what their last pages turned out to be.
func (f *Frontier) valueRefilledLocked(ctx context.Context, r ioRound) {
	if _, ok := f.store.(HostValuer); !f.cfg.HostValues || !ok || len(r.refill) == 0 || f.stopped {
		return
	}
	for _, h := range r.refill {
		if !slices.Contains(f.toValue, h.ID) {
			f.toValue = append(f.toValue, h.ID)
		}
	}
	if f.valuing {
		return
	}
	f.valuing = true
	ctx, f.valueCancel = context.WithCancel(context.WithoutCancel(ctx))
	cancel := f.valueCancel
	go func() {
		defer cancel()
		for {
			f.mu.Lock()
			ids := f.toValue
			f.toValue = nil
			if len(ids) == 0 || f.stopped {
				f.valuing = false
				f.ioCond.Broadcast()
				f.mu.Unlock()
				return
			}
			f.mu.Unlock()
			values := f.learnValues(ctx, ids)
			f.mu.Lock()
			f.applyValuesLocked(values)
			f.mu.Unlock()
		}
	}()
}

// applyValuesLocked sets the values learned and ranks the ready hosts
// whose value changed anew.
func (f *Frontier) applyValuesLocked(values map[crawl.ID]int) {
	for id, v := range values {
		if h := f.hosts[id]; h != nil && h.value != v {
			h.value = v
			f.rerankLocked(h)
		}
	}
}

// rankLocked ranks a host with URLs buffered by its best one (plus its
// value: it is zero unless HostValues). Under a budget, a host whose URLs
// are only recorded as skipped (its address refused, its robots.txt
// unavailable) ranks last: recording them spends no budget, but claiming
// them holds some until their results are committed.
func (f *Frontier) rankLocked(h *host) {
	h.rank = f.bufRank(h)
	h.ranked = true
}

// bufRank is the rank of a host with URLs buffered (see rankLocked).
func (f *Frontier) bufRank(h *host) int {
	if f.budgeted() && (h.refused != nil || f.gaveUpRobots(h)) {
		return skipRank
	}
	return f.rankOf(h.buf[0].Priority, h.worth())
}

// rerankLocked ranks a ready host anew after its value changed.
func (f *Frontier) rerankLocked(h *host) {
	if len(h.buf) > 0 && f.ready.has(h) {
		f.rankLocked(h)
		f.ready.fix(h)
	}
}

// rankOf is the rank of a URL of priority p on a host of value v: p + v,
// but a URL below ValueFloor gains no positive value.
func (f *Frontier) rankOf(p, v int) int {
	if p < f.cfg.ValueFloor {
		v = min(v, 0)
	}
	return p + v
}

// worth is the host's value, at most what its copies of other hosts'
// pages leave it while they are most of what it gave (Copies).
func (h *host) worth() int {
	v := h.value
	if h.copied {
		v = min(v, h.copyValue)
	}
	if h.spent {
		v = min(v, 0)
	}
	if h.mirror {
		v = min(v, crawl.MirrorValue)
	}
	return v
}

// Mirror tells the frontier that a host is taken for a copy of another
// (a mirror: its pages are linked under another host's paths with the
// same titles): it ranks by at most crawl.MirrorValue, held now or later.
// Without HostValues it does nothing.
func (f *Frontier) Mirror(host crawl.ID) {
	if !f.cfg.HostValues {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mirrors == nil {
		f.mirrors = map[crawl.ID]bool{}
	}
	f.mirrors[host] = true
	if h := f.hosts[host]; h != nil && !h.mirror {
		h.mirror = true
		f.rerankLocked(h)
	}
}

// NotMirror tells the frontier that a host taken for a mirror (Mirror) is
// not taken for one any more (the original of the host taken for its
// mirror instead): it ranks by its value again.
func (f *Frontier) NotMirror(host crawl.ID) {
	if !f.cfg.HostValues {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.mirrors[host] {
		return
	}
	delete(f.mirrors, host)
	if h := f.hosts[host]; h != nil && h.mirror {
		h.mirror = false
		f.rerankLocked(h)
	}
}

// Copies tells the frontier what the pages a held host gave this process
// turned out to be, as they are committed: of pages, copies are copies of
// another host's pages (exact or near duplicates), most of them of host
// of (0: not known). While the copies are at least half of the pages,
// the host ranks by at most what the store will learn it is worth from
// them, (−24·copies − 6·pages) / (pages + 4) (the research among them not
// counted): a mirror falls from its first copies on, before the store
// revalues it, and its next copies wait. Once mirrorCopies of them show
// it to be a mirror of of, and whenever that changes, the frontier
// records it in a store that is a MirrorKeeper, in its next round of
// store I/O: the host is worth at most crawl.MirrorValue from then on, in
// this process and others, after a restart too. Without HostValues it
// does nothing.
func (f *Frontier) Copies(host crawl.ID, pages, copies int, of crawl.ID) {
	if !f.cfg.HostValues || pages <= 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.markLocked(host, pages, copies, of)
	h := f.hosts[host]
	if h == nil {
		return
	}
	copied, v := copies > 0 && copies*2 >= pages, (-24*copies-6*pages)/(pages+4)
	if copied == h.copied && v == h.copyValue {
		return
	}
	h.copied, h.copyValue = copied, v
	f.rerankLocked(h)
}

// Plain tells the frontier how many pages a held host committed in a row,
// up to now, that were no research (of no research type, people or
// publication list, nor a copy of another host's page: news items, posts,
// course pages). After spentRun of them the host's research is taken for
// spent: its positive value lifts none of its URLs, until a page of
// research comes again. A host's value is learned from its last pages and
// relearned only as its fetches grow by half, so a site valued for its
// research would otherwise lift its news, numbered like its papers
// (/node/N) and linked by titles that sound like research, above other
// hosts' research. Without HostValues it does nothing.
func (f *Frontier) Plain(host crawl.ID, run int) {
	if !f.cfg.HostValues {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hosts[host]
	if h == nil || h.spent == (run >= spentRun) {
		return
	}
	h.spent = run >= spentRun
	f.rerankLocked(h)
}

// markLocked queues the mark of host as a mirror of of, or its clearing,
// when what its copies show (Copies) differs from what this process last
// recorded of it. Only a mark this process made is cleared.
func (f *Frontier) markLocked(host crawl.ID, pages, copies int, of crawl.ID) {
	if _, ok := f.store.(MirrorKeeper); !ok {
		return
	}
	var mirrorOf crawl.ID
	if of != 0 && of != host && copies >= mirrorCopies && copies*2 >= pages {
		mirrorOf = of
	}
	was, known := f.marked[host]
	if mirrorOf == was && (known || mirrorOf == 0) {
		return
	}
	if f.marked == nil {
		f.marked = map[crawl.ID]crawl.ID{}
	}
	if f.toMark == nil {
		f.toMark = map[crawl.ID]crawl.ID{}
	}
	f.marked[host], f.toMark[host] = mirrorOf, mirrorOf
	if mirrorOf != 0 {
		f.cfg.Log.Debug("host's pages are copies of another's: recorded as its mirror", "host_id", int64(host), "of", int64(mirrorOf),
			"pages", pages, "copies", copies)
	}
}

// flushMarks records the mirror marks queued since the last round
// (markLocked). A mark that fails is logged: the host still ranks by what
// its copies leave it worth in this process.
func (f *Frontier) flushMarks(ctx context.Context, marks map[crawl.ID]crawl.ID) {
	if len(marks) == 0 {
		return
	}
	mk := f.store.(MirrorKeeper)
	ctx = context.WithoutCancel(ctx)
	for _, host := range slices.Sorted(maps.Keys(marks)) {
		if err := mk.MarkMirror(ctx, host, marks[host]); err != nil {
			f.cfg.Log.Warn("record mirror", "host_id", int64(host), "of", int64(marks[host]), "err", err)
		}
	}
}
