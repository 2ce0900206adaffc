package engine

import (
	"bytes"
	"context"
	"errors"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/sitemap"
)

const (
	sitemapMaxDepth = 3        // sitemap index nesting followed
	sitemapMaxBody  = 50 << 20 // the protocol's size limit
	sitemapPriority = 900      // sitemaps are read early: they list what a host has
	// sitemapSlots is how many sitemaps are fetched and read at once, so
	// that the bodies held in memory stay under sitemapSlots ×
	// sitemapMaxBody whatever the number of workers. The parser streams
	// over the body; the body itself is held once, for the WARC record.
	sitemapSlots = 2
)

// sitemapURL is a sitemap file offered to the frontier; its entries are
// read when it is fetched, like any other URL (politeness, robots.txt).
func (e *Engine) sitemapURL(u string, depth int, parent crawl.ID) crawl.NewURL {
	nu := e.newURL(u, "", depth, parent, crawl.ViaSitemap)
	nu.Kind, nu.Priority = crawl.KindSitemap, sitemapPriority-depth
	return nu
}

// offerSitemaps queues a host's sitemaps once its robots.txt is known: its
// Sitemap: lines, or /sitemap.xml when there are none. It returns the
// store's error when they could not be queued: the caller then does not
// record robots.txt as read, or they would never be offered again.
func (e *Engine) offerSitemaps(ctx context.Context, host string, lines []string) error {
	if e.cfg.NoSitemaps {
		return nil
	}
	var urls []crawl.NewURL
	if len(lines) == 0 {
		lines = []string{host + "/sitemap.xml"}
	}
	for _, l := range lines {
		u, err := e.cfg.Normalizer.Normalize(l)
		if err != nil {
			continue
		}
		if r := e.cfg.Scope.Check(u); r != scope.In && r != scope.Excluded {
			continue // a sitemap on another site is not ours to read
		}
		urls = append(urls, e.sitemapURL(u, 0, 0))
	}
	if len(urls) == 0 {
		return nil
	}
	// Offered whether or not seen: a host's sitemaps are few, the store
	// knows the ones it holds, and one marked seen but not queued (the
	// store lost with this add) would not be offered again.
	if _, err := e.storeRetry(ctx, "add sitemaps", func() error {
		_, err := e.store.AddURLs(ctx, urls, e.cfg.Frontier.Limits)
		return err
	}); err != nil {
		e.cfg.Log.Warn("queue sitemaps", "host", host, "err", err)
		return err
	}
	for _, u := range urls {
		e.seen.testAndAdd(u.ID)
	}
	return nil
}

// fetchSitemap fetches a sitemap (or index) and offers its entries.
// The caller holds one of e.sitemapSlots until it is done with the body.
func (e *Engine) fetchSitemap(ctx context.Context, r crawl.Result, u crawl.ClaimedURL) (crawl.Result, *fetch.Response, error) {
	etag, lastMod := conditional(u)
	resp, err := e.cfg.Fetcher.Fetch(ctx, fetch.Request{URL: u.URL, Accept: func(string) bool { return true }, MaxBody: sitemapMaxBody,
		ETag: etag, LastModified: lastMod})
	if err != nil {
		return r, nil, err
	}
	p := pageOf(u, resp)
	r.Outcome, r.Page = crawl.OutcomeDone, p
	if resp.Status < 200 || resp.Status > 299 {
		return r, resp, nil
	}
	e.readSitemap(&r, u, resp)
	return r, resp, nil
}

// readSitemap parses a fetched sitemap (or index), offers its entries and
// records a parse error on the page. A body that is no sitemap at all
// (some other XML document) offers nothing and is not an error.
func (e *Engine) readSitemap(r *crawl.Result, u crawl.ClaimedURL, resp *fetch.Response) {
	p := r.Page
	var entries []sitemap.Entry // at most the protocol's 50,000
	kind, perr := sitemap.Parse(bytes.NewReader(resp.Body), sitemap.Limits{}, func(en sitemap.Entry) error {
		entries = append(entries, en)
		return nil
	})
	if u.Kind != crawl.KindSitemap && (kind != sitemap.URLSet && kind != sitemap.Index || perr != nil && len(entries) == 0) {
		return // an XML document that is not a sitemap
	}
	e.stats.sitemapEntries.Add(int64(len(entries)))
	for _, en := range entries {
		loc, err := e.cfg.Normalizer.Resolve(u.URL, en.Loc)
		if err != nil {
			continue
		}
		e.offerEntry(r, loc, en, kind == sitemap.Index, u)
	}
	if perr != nil {
		// Entries read before the error stand; the error is recorded.
		p.Error, p.ErrorKind = "sitemap: "+perr.Error(), "sitemap"
		if errors.Is(perr, sitemap.ErrTooManyURLs) || errors.Is(perr, sitemap.ErrTooLarge) {
			p.ErrorKind = "sitemap limit"
		}
		e.cfg.Log.Info("sitemap error", "url", u.URL, "err", perr)
	}
	if kind == sitemap.Index {
		p.ContentType = "application/x-sitemap-index"
	}
}

// offerEntry offers one sitemap entry: a child sitemap of an index, or a
// page with its <lastmod> and <changefreq>.
func (e *Engine) offerEntry(r *crawl.Result, loc string, en sitemap.Entry, child bool, parent crawl.ClaimedURL) {
	scopeOK := e.cfg.Scope.Check(loc)
	if child {
		if parent.Depth+1 > sitemapMaxDepth || (scopeOK != scope.In && scopeOK != scope.Excluded) {
			return
		}
		if e.seen.testAndAdd(crawl.URLID(loc)) {
			return
		}
		r.Discovered = append(r.Discovered, e.sitemapURL(loc, parent.Depth+1, parent.ID))
		return
	}
	if scopeOK != scope.In {
		return // outside the sitemap's host and not in scope by the usual rules
	}
	id := crawl.URLID(loc)
	// The sitemap links to the page (a page that no page and no sitemap
	// links to any more becomes inactive), and its date may make it due.
	r.Links = append(r.Links, crawl.Link{TargetID: id, Target: loc})
	if !en.LastMod.IsZero() {
		r.Touched = append(r.Touched, crawl.Touch{ID: id, LastMod: en.LastMod})
	}
	if e.seen.testAndAdd(id) {
		e.stats.knownEarly.Add(1)
		return
	}
	nu := e.newURL(loc, "", 1, parent.ID, crawl.ViaSitemap)
	nu.LastMod, nu.ChangeFreq = en.LastMod, en.ChangeFreq
	nu.Priority += e.cfg.Score.LastModBonus(en.LastMod, e.cfg.Now())
	r.Discovered = append(r.Discovered, nu)
}

// pageOf is the page record of a response, before any parsing.
func pageOf(u crawl.ClaimedURL, resp *fetch.Response) *crawl.Page {
	return &crawl.Page{
		URL:          u.URL,
		Status:       resp.Status,
		ContentType:  resp.MediaType,
		Bytes:        resp.Bytes,
		WireBytes:    resp.WireBytes,
		ETag:         resp.Header.Get("ETag"),
		LastModified: resp.Header.Get("Last-Modified"),
		Duration:     resp.Duration,
	}
}
