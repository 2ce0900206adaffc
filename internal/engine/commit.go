package engine

import (
	"context"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// isUsefulType reports whether a media type is what the crawl is for.
func isUsefulType(mediaType string) bool {
	return isHTML(mediaType) || mediaType == "application/pdf"
}

// A commit is one transaction for up to commitBatch results or
// commitEvery, whichever comes first: fewer, larger transactions rewrite
// the hot pages of the store (counters, hosts, index roots) less often.
const (
	commitBatch = 512
	commitEvery = 100 * time.Millisecond
)

// heldBytes is how many bytes the results on their way to the store may
// hold (Engine.heldOf), queued or in the batch being committed: the
// queue's count alone let a crawl of large PDFs (up to 2 MiB of text
// each, the PDF reader's bound) hold gigabytes. A batch is committed once
// it holds half of it; pages of the usual size fill a batch long before.
const heldBytes = 64 << 20

// commitLoop records results in batches: one transaction for up to
// commitBatch results or commitEvery, whichever comes first, or at once
// when no other result is on its way (the workers idle, none queued): the
// workers may be waiting for the URLs this batch adds. A crash loses
// at most the uncommitted batch, whose URLs are still in flight in the
// store and are fetched again on resume.
func (e *Engine) commitLoop(ctx context.Context) error {
	batch := make([]crawl.Result, 0, commitBatch)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var failed error
	var batchHeld int64 // the room its results take (heldOf)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		n := int64(len(batch))
		if failed == nil {
			var st crawl.CommitStats
			_, err := e.storeRetry(ctx, "commit", func() error {
				var err error
				st, err = e.store.Commit(ctx, batch, e.cfg.Frontier.Limits)
				return err
			})
			if err != nil {
				failed = err
				// What was not recorded is still in flight in the store:
				// it is fetched again when the crawl resumes.
				e.cfg.Log.Error("commit failed; stopping", "err", err, "results", n)
				e.gaveUpErr = err
				close(e.gaveUp)
			} else {
				if e.copies != nil {
					if err := e.copies.learnOriginals(ctx, batch, e.store.URL); err != nil {
						e.cfg.Log.Warn("copies: the copied host not known; its mirror is not recorded yet", "err", err)
					}
				}
				e.account(st, batch)
				e.fr.Admitted(st.Add.Hosts)
				if st.Stale > 0 {
					e.readmit(ctx, batch)
				}
				if st.Touched > 0 {
					e.queueTouched(ctx, batch)
				}
			}
		}
		clear(batch)
		batch = batch[:0]
		e.held.Release(batchHeld)
		batchHeld = 0
		e.pending.Add(-n)
		if e.pending.Load() == 0 && e.working.Load() == 0 {
			// The hosts that wait to see whether these results bring
			// them URLs need not wait.
			e.fr.Settle()
		}
		e.notify()
	}
	for {
		var r crawl.Result
		var ok bool
		if len(batch) == 0 {
			r, ok = <-e.results
		} else {
			select {
			case r, ok = <-e.results:
			case <-timer.C:
				flush()
				continue
			}
		}
		if !ok {
			flush()
			return failed
		}
		if len(batch) == 0 {
			timer.Reset(e.cfg.commitEvery)
		}
		batch = append(batch, r)
		batchHeld += e.heldOf(&r)
		// Nothing else on its way: none queued, no worker at a task.
		if len(batch) >= commitBatch || 2*batchHeld >= e.cfg.heldBytes || len(e.results) == 0 && e.working.Load() == 0 {
			flush()
		}
	}
}

// account folds a committed batch into the crawl figures.
func (e *Engine) account(st crawl.CommitStats, batch []crawl.Result) {
	s := &e.stats
	for i := range batch {
		r := &batch[i]
		p := r.Page
		if r.Outcome != crawl.OutcomeDone || p == nil || p.Status < 200 || p.Status > 299 || !isUsefulType(p.ContentType) {
			continue
		}
		if p.DuplicateOf == 0 && !p.Blocked {
			s.useful.Add(1)
		}
		if trap := e.traps.pageCommitted(r.URL.HostID, p.DuplicateOf != 0); trap != "" {
			e.cfg.Log.Warn("suspected auto-generated space", "host", urlnorm.HostKey(r.URL.URL), "why", trap)
		}
	}
	if e.copies != nil {
		for host, c := range e.copies.committed(batch, e.mirrors.mirrorsOf, e.mirrors.isSeed) {
			e.tellCopies(host, c)
		}
	}
	s.added.Add(int64(st.Add.Added))
	s.known.Add(int64(st.Add.Known))
	s.overHostCap.Add(int64(st.Add.OverHostCap))
	s.duplicates.Add(int64(st.Duplicates))
	s.stale.Add(int64(st.Stale))
	s.committedPages.Add(int64(st.Pages))
	if len(st.Add.CappedHosts) > 0 {
		s.mu.Lock()
		if s.cappedHosts == nil {
			s.cappedHosts = map[crawl.ID]bool{}
		}
		for _, h := range st.Add.CappedHosts {
			if !s.cappedHosts[h] {
				s.cappedHosts[h] = true
				e.cfg.Log.Warn("host page budget reached; its new URLs are refused", "host_id", int64(h),
					"max_pages_per_host", e.cfg.Frontier.Limits.MaxPagesPerHost)
			}
		}
		s.mu.Unlock()
	}
}

// readmit offers the store again the URLs discovered by a batch in which
// some results were stale (their lease was lost, so the store ignored them,
// discovered URLs included). The seen filter took those URLs when they were
// offered: if this process fetches the page again, they would never reach
// the store. URLs the batch did admit are known and ignored.
func (e *Engine) readmit(ctx context.Context, batch []crawl.Result) {
	var urls []crawl.NewURL
	for i := range batch {
		urls = append(urls, batch[i].Discovered...)
	}
	if len(urls) == 0 {
		return
	}
	var as crawl.AddStats
	if _, err := e.storeRetry(ctx, "add the URLs of stale results", func() error {
		var err error
		as, err = e.store.AddURLs(ctx, urls, e.cfg.Frontier.Limits)
		return err
	}); err != nil {
		e.cfg.Log.Warn("add the URLs of stale results", "urls", len(urls), "err", err)
		return
	}
	e.stats.added.Add(int64(as.Added))
	e.stats.overHostCap.Add(int64(as.OverHostCap))
	e.fr.Admitted(as.Hosts)
}
