package engine

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/schedule"
)

// revisit decides a fetched page's schedule: its next check, whether it
// changed, and whether it still exists.
func (e *Engine) revisit(r *crawl.Result) {
	p, u := r.Page, r.URL
	if p == nil || r.Outcome != crawl.OutcomeDone {
		return
	}
	now := e.cfg.Now()
	pol := e.cfg.Schedule
	rv := &crawl.Revisit{Run: e.cfg.Run}
	prev := u.Prev
	if prev == nil {
		e.stats.newPages.Add(1)
		typ := ""
		if p.Meta != nil {
			typ = p.Meta.Type
		}
		path := "/"
		if pu, err := url.Parse(u.URL); err == nil {
			path = pu.Path
		}
		rv.Interval = pol.Initial(schedule.Page{Type: typ, Depth: u.Depth, Path: path, ChangeFreq: u.ChangeFreq, LastMod: u.LastMod})
		rv.Changed = true
		rv.NextCheck = now.Add(rv.Interval)
		r.Revisit = rv
		return
	}
	e.stats.revisits.Add(1)
	switch {
	case p.Status == 304:
		rv.NotModified = true
		rv.Interval = pol.Next(prev.Interval, false)
		e.stats.notModified.Add(1)
		e.stats.bytesSaved.Add(prev.Bytes)
	case p.Status == 404 || p.Status == 410:
		var g schedule.Gone
		rv.Misses, g = pol.Missing(p.Status, prev.Misses)
		rv.Gone = crawl.Gone(g)
		rv.Interval = pol.Next(prev.Interval, false)
		if rv.Gone != crawl.Active {
			e.stats.removed.Add(1)
		}
	case p.Status >= 200 && p.Status <= 299:
		rv.Changed = !bytes.Equal(p.ContentHash, prev.ContentHash) || len(p.ContentHash) == 0 && p.Bytes != prev.Bytes
		rv.Interval = pol.Next(prev.Interval, rv.Changed)
		if rv.Changed {
			e.stats.changed.Add(1)
		} else {
			e.stats.unchanged.Add(1)
		}
	case p.Status >= 500 || p.Status == 429:
		// A server error (after the retries) says nothing about the page:
		// the recorded page stays as it is, its 404s in a row still count
		// (an error between two of them does not break the row), and its
		// interval does not grow as an unchanged page's would.
		rv.NotModified = true
		rv.Misses = prev.Misses
		rv.Interval = prev.Interval
		if rv.Interval <= 0 {
			rv.Interval = pol.Other
		}
		rv.Interval = min(max(rv.Interval, pol.Min), pol.Max)
	default:
		// Not a page (a redirect): the recorded page stays as it is and
		// is checked again later.
		rv.NotModified = true
		rv.Interval = pol.Next(prev.Interval, false)
	}
	rv.NextCheck = now.Add(rv.Interval)
	r.Revisit = rv
}

// conditional is the validators to send when revisiting a page.
func conditional(u crawl.ClaimedURL) (etag, lastModified string) {
	if u.Prev == nil {
		return "", ""
	}
	return u.Prev.ETag, u.Prev.LastModified
}

// RunStats are this run's recrawl figures.
func (e *Engine) RunStats() crawl.RunStats {
	s := &e.stats
	return crawl.RunStats{
		Run:         e.cfg.Run,
		Started:     s.start,
		Finished:    e.cfg.Now(),
		Revisits:    s.revisits.Load(),
		NotModified: s.notModified.Load(),
		Unchanged:   s.unchanged.Load(),
		Changed:     s.changed.Load(),
		Removed:     s.removed.Load(),
		New:         s.newPages.Load(),
		Bytes:       s.bytes.Load(),
		BytesSaved:  s.bytesSaved.Load(),
	}
}

// queueDue returns the pages due for a revisit (or all) to the queue.
func (e *Engine) queueDue(ctx context.Context, all bool) (int, error) {
	total := 0
	for {
		var n int
		_, err := e.storeRetry(ctx, "queue due pages", func() error {
			var err error
			n, err = e.store.ScheduleDue(ctx, e.cfg.Now(), all, 10000)
			return err
		})
		if err != nil {
			return total, err
		}
		total += n
		if n < 10000 {
			if n > 0 {
				e.fr.AdmittedAny()
			}
			return total, nil
		}
	}
}

// queueTouched queues within this run the pages that a committed batch's
// sitemap entries made due (their <lastmod> is newer than their fetch): the
// run chose its due pages before it read the sitemaps. Only those pages
// are queued, and only when done, so none is queued twice. It runs before
// the batch stops counting as pending, so the crawl cannot end in between.
func (e *Engine) queueTouched(ctx context.Context, batch []crawl.Result) {
	if !e.cfg.DueAtStart && e.cfg.RevisitEvery <= 0 {
		return // this crawl does not revisit pages
	}
	var ids []crawl.ID
	for i := range batch {
		for _, tc := range batch[i].Touched {
			ids = append(ids, tc.ID)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var n int
	if _, err := e.storeRetry(ctx, "queue pages a sitemap made due", func() error {
		var err error
		n, err = e.store.ScheduleDueURLs(ctx, ids, e.cfg.Now())
		return err
	}); err != nil {
		e.cfg.Log.Warn("queue pages a sitemap made due", "err", err)
		return
	}
	if n > 0 {
		// A sitemap may list pages of other hosts: any host may have work.
		e.fr.AdmittedAny()
		e.cfg.Log.Info("pages a sitemap made due queued", "pages", n)
	}
}

// revisitLoop queues pages as they come due during a long crawl.
func (e *Engine) revisitLoop(ctx context.Context) {
	t := time.NewTicker(e.cfg.RevisitEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := e.queueDue(ctx, false); err != nil {
				e.cfg.Log.Warn("queue due pages", "err", err)
			} else if n > 0 {
				e.cfg.Log.Info("pages due for a revisit queued", "pages", n)
				e.notify()
			}
		}
	}
}
