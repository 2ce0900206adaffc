package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/robots"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// handle does one task and hands its result to the committer.
func (e *Engine) handle(ctx context.Context, t frontier.Task) {
	defer e.notify()
	switch t.Kind {
	case frontier.FetchRobots:
		e.fetchRobots(ctx, t)
	case frontier.SkipURL:
		upd := e.fr.Done(ctx, t, frontier.Feedback{})
		e.stats.skipped.Add(1)
		e.send(crawl.Result{URL: t.URL, Outcome: crawl.OutcomeSkipped, Error: t.Reason, Host: upd})
	case frontier.FetchURL:
		if t.Trap != "" && e.traps.seed(t.HostID, t.Trap) {
			e.cfg.Log.Info("host recorded as a suspected crawler trap", "host", t.Host, "policy", string(e.cfg.TrapPolicy), "why", t.Trap)
		}
		var r crawl.Result
		if why := e.leftAlone(t.HostID); why != "" {
			upd := e.fr.Done(ctx, t, frontier.Feedback{})
			e.stats.skipped.Add(1)
			r = crawl.Result{URL: t.URL, Outcome: crawl.OutcomeSkipped, Error: why, Host: upd}
		} else {
			var fb frontier.Feedback
			r, fb = e.fetchPage(ctx, t)
			r.Host = e.fr.Done(ctx, t, fb)
		}
		// A flag raised at commit (duplicate content) may first be seen
		// here by a URL the policy skips: it is recorded all the same.
		if trap, report := e.traps.flagged(t.HostID); report {
			r.Host.Trap = trap
		}
		e.send(r)
	}
}

// leftAlone says why a host's URLs are no longer fetched, if they are not:
// it soft-blocked too often, or it is a suspected trap under TrapStop.
func (e *Engine) leftAlone(host crawl.ID) string {
	if e.traps.stopped(host) {
		return "host soft-blocks the crawler"
	}
	if e.cfg.TrapPolicy == TrapStop {
		if trap := e.traps.trapOf(host); trap != "" {
			return "suspected trap: " + trap
		}
	}
	return ""
}

// fetchRobots gets a host's robots.txt, following up to five redirects.
func (e *Engine) fetchRobots(ctx context.Context, t frontier.Task) {
	u := t.Host + "/robots.txt"
	resp, err := e.cfg.Fetcher.Fetch(ctx, fetch.Request{
		URL:             u,
		Accept:          func(string) bool { return true },
		MaxBody:         robots.MaxSize,
		Truncate:        true,
		FollowRedirects: 5,
	})
	fb := frontier.Feedback{Requested: true, Finished: e.cfg.Now()}
	status := 0
	var body []byte
	switch {
	case err != nil:
		var fe *fetch.Error
		if errors.As(err, &fe) && fe.Kind == fetch.KindCanceled {
			fb.Requested = false
		}
		e.cfg.Log.Debug("robots.txt unreachable", "host", t.Host, "err", err)
	default:
		status, body = resp.Status, resp.Body
		e.archive(fb.Finished, resp)
		e.stats.robots.Add(1)
		e.stats.robotsBytes.Add(max(resp.WireBytes, resp.Bytes))
		if status == http.StatusTooManyRequests {
			fb.Throttled, fb.RetryAfter = true, resp.RetryAfter
		}
	}
	if err := e.fr.RobotsDone(ctx, t, status, body, fb); err != nil {
		e.cfg.Log.Warn("save robots.txt", "host", t.Host, "err", err)
	}
	if status != 0 && status < 500 && status != http.StatusTooManyRequests {
		var lines []string
		if status >= 200 && status < 300 {
			lines = robots.Parse(body).Sitemaps()
		}
		e.offerSitemaps(ctx, t.Host, lines)
	}
}

// fetchPage fetches one URL and builds its result.
func (e *Engine) fetchPage(ctx context.Context, t frontier.Task) (crawl.Result, frontier.Feedback) {
	u := t.URL
	r := crawl.Result{URL: u}
	if t.Robots != nil && !t.Robots.Allowed(urlnorm.PathQuery(u.URL)) {
		e.stats.disallowed.Add(1)
		r.Outcome = crawl.OutcomeDisallowed
		return r, frontier.Feedback{}
	}
	started := e.cfg.Now()
	if u.Kind == crawl.KindSitemap {
		select {
		case e.sitemapSlots <- struct{}{}:
		case <-ctx.Done():
			return e.fetchFailed(ctx, r, ctx.Err(), frontier.Feedback{})
		}
		sr, resp, err := e.fetchSitemap(ctx, r, u)
		fb := frontier.Feedback{Requested: true, Finished: e.cfg.Now()}
		if err != nil {
			<-e.sitemapSlots
			return e.fetchFailed(ctx, r, err, fb)
		}
		sr.Page.WARC = e.archive(started, resp)
		<-e.sitemapSlots
		e.revisit(&sr)
		e.stats.fetched.Add(1)
		e.stats.bytes.Add(max(resp.WireBytes, resp.Bytes))
		e.stats.status(resp.Status)
		sr.Page.FetchedAt = started
		if resp.Status == http.StatusTooManyRequests || resp.Status == http.StatusServiceUnavailable {
			fb.Throttled, fb.RetryAfter = true, resp.RetryAfter
		}
		return sr, fb
	}
	etag, lastMod := conditional(u)
	resp, err := e.cfg.Fetcher.Fetch(ctx, fetch.Request{URL: u.URL, MaxBody: e.cfg.MaxBody, Accept: e.accept, Limit: e.bodyLimit,
		ETag: etag, LastModified: lastMod})
	fb := frontier.Feedback{Requested: true, Finished: e.cfg.Now()}
	if err != nil {
		return e.fetchFailed(ctx, r, err, fb)
	}
	ref := e.archive(started, resp)
	e.stats.fetched.Add(1)
	e.stats.bytes.Add(max(resp.WireBytes, resp.Bytes))
	e.stats.status(resp.Status)
	p := pageOf(u, resp)
	p.FetchedAt, p.WARC = started, ref
	r.Outcome, r.Page = crawl.OutcomeDone, p
	switch st := resp.Status; {
	case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable:
		fb.Throttled, fb.RetryAfter = true, resp.RetryAfter
		if u.Attempts+1 < e.cfg.MaxAttempts {
			return e.retry(r, fmt.Sprintf("http %d", st), max(resp.RetryAfter, e.retryDelay(u.Attempts))), fb
		}
	case st == http.StatusInternalServerError || st == http.StatusBadGateway || st == http.StatusGatewayTimeout:
		if u.Attempts+1 < e.cfg.MaxAttempts {
			return e.retry(r, fmt.Sprintf("http %d", st), e.retryDelay(u.Attempts)), fb
		}
	case st >= 300 && st < 400:
		e.redirect(&r, resp.Location)
	case st >= 200 && st < 300 && !resp.BodySkipped && isXML(resp.MediaType):
		// A sitemap reached through a link before its host's robots.txt
		// named it (the seen-set then keeps it from being queued again as
		// a sitemap) is read as one all the same.
		e.readSitemap(&r, u, resp)
	case st >= 200 && st < 300 && !resp.BodySkipped && extract.IsPDF(resp.MediaType):
		e.parse(ctx, &r, resp)
	case st >= 200 && st < 300 && !resp.BodySkipped && isHTML(resp.MediaType):
		e.parse(ctx, &r, resp)
		slow, paused := e.traps.softBlock(u.HostID, p.Blocked)
		if paused {
			e.cfg.Log.Warn("host keeps refusing the crawler (soft blocks); its URLs are skipped", "host", urlnorm.HostKey(u.URL),
				"soft_blocks", blockStopAfter)
		}
		if slow {
			fb.Throttled = true // back off from a host that keeps refusing
		}
		if p.Blocked {
			e.stats.blocked.Add(1)
		}
		e.watchDiscovery(&r)
	}
	e.revisit(&r)
	return r, fb
}

// watchDiscovery feeds the trap detector with the new URLs of a page and
// applies the trap policy to a host suspected of generating URLs.
func (e *Engine) watchDiscovery(r *crawl.Result) {
	host := r.URL.HostID
	if trap := e.traps.pageDiscovered(host, r.Discovered); trap != "" {
		e.cfg.Log.Warn("suspected crawler trap", "host", urlnorm.HostKey(r.URL.URL), "policy", string(e.cfg.TrapPolicy), "why", trap)
	}
	if e.cfg.TrapPolicy == TrapWarn {
		return
	}
	if e.traps.trapOf(host) == "" {
		return
	}
	// Fetch what is known, admit nothing new from the host's own pages.
	kept := r.Discovered[:0]
	for _, d := range r.Discovered {
		if d.HostID != host {
			kept = append(kept, d)
		} else {
			e.stats.trapped.Add(1)
		}
	}
	r.Discovered = kept
}

func isHTML(mediaType string) bool {
	return mediaType == "text/html" || mediaType == "application/xhtml+xml"
}

func (e *Engine) retryDelay(attempts int) time.Duration {
	return e.cfg.RetryBase << min(attempts, 16)
}

func (e *Engine) retry(r crawl.Result, why string, after time.Duration) crawl.Result {
	e.stats.retried.Add(1)
	return crawl.Result{URL: r.URL, Outcome: crawl.OutcomeRetry, RetryAt: e.cfg.Now().Add(after), Error: why, ErrorKind: why}
}

// fetchFailed turns a fetch error into a retry, a failure or (at shutdown)
// a release.
func (e *Engine) fetchFailed(ctx context.Context, r crawl.Result, err error, fb frontier.Feedback) (crawl.Result, frontier.Feedback) {
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		fe = &fetch.Error{Kind: fetch.KindProtocol, URL: r.URL.URL, Err: err}
	}
	if fe.Kind == fetch.KindCanceled || ctx.Err() != nil {
		return crawl.Result{URL: r.URL, Outcome: crawl.OutcomeRelease}, frontier.Feedback{Canceled: true}
	}
	if fe.Kind == fetch.KindBlocked || fe.Kind == fetch.KindBadURL {
		fb.Requested = false
	}
	msg := fe.Kind.String() + ": " + errText(fe)
	if fe.Temporary() && r.URL.Attempts+1 < e.cfg.MaxAttempts {
		rr := e.retry(r, msg, e.retryDelay(r.URL.Attempts))
		rr.ErrorKind = fe.Kind.String()
		return rr, fb
	}
	e.stats.failed.Add(1)
	e.cfg.Log.Debug("fetch failed", "url", r.URL.URL, "err", err)
	return crawl.Result{URL: r.URL, Outcome: crawl.OutcomeFailed, Error: msg, ErrorKind: fe.Kind.String()}, fb
}

func errText(fe *fetch.Error) string {
	if fe.Err == nil {
		return fe.Kind.String()
	}
	s := fe.Err.Error()
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// redirect records where a 3xx answer points and offers the target as a
// new URL: each hop goes through normalization, scope, robots and
// politeness like any other URL.
func (e *Engine) redirect(r *crawl.Result, location string) {
	if location == "" {
		return
	}
	target, err := e.cfg.Normalizer.Normalize(location)
	if err != nil {
		r.Page.Error, r.Page.ErrorKind = "bad redirect location: "+err.Error(), "bad redirect"
		return
	}
	r.Page.RedirectTo = target
	if target == r.URL.URL {
		return
	}
	id := crawl.URLID(target)
	r.Links = append(r.Links, crawl.Link{TargetID: id, Target: target})
	e.offer(r, target, "", r.URL.Depth, crawl.ViaRedirect)
}

// parse extracts text and links from an HTML answer.
func (e *Engine) parse(ctx context.Context, r *crawl.Result, resp *fetch.Response) {
	p, u := r.Page, r.URL
	var x extract.Result
	if extract.IsPDF(resp.MediaType) {
		x = e.extractor.PDF(ctx, resp.Body, u.URL)
		x.Apply(p)
		if x.ErrorKind != "" {
			e.stats.parseErrors.Add(1)
		}
		return
	}
	x = e.extractor.HTML(resp.Body, resp.ContentType, u.URL, resp.Header)
	x.Apply(p)
	if x.Error != "" && x.Text == "" {
		e.stats.parseErrors.Add(1)
		return
	}
	p.Blocked = e.softBlocked(u.HostID, p.Title, p.Text)
	r.Links = make([]crawl.Link, 0, len(x.Links)+1)
	if x.Canonical != "" && x.Canonical != u.URL {
		p.Canonical = x.Canonical
		// The canonical URL is the record's name: queue it if unseen (an
		// alias never hides it), and keep this page as its alias.
		if e.cfg.Scope.Check(x.Canonical) == scope.In {
			e.offer(r, x.Canonical, "", u.Depth, crawl.ViaCanonical)
		}
	}
	if x.Refresh != "" && x.Refresh != u.URL {
		r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(x.Refresh), Target: x.Refresh})
		if !p.NoFollow {
			e.offer(r, x.Refresh, "", u.Depth, crawl.ViaRedirect)
		}
	}
	for _, l := range x.Links {
		if l.URL == u.URL {
			continue
		}
		r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(l.URL), Target: l.URL, Anchor: l.Anchor, NoFollow: l.NoFollow})
		if !l.NoFollow && !p.NoFollow {
			e.offer(r, l.URL, l.Anchor, u.Depth+1, crawl.ViaLink)
		}
	}
}

// softBlockText is the text length under which a page is checked for
// soft-block phrases: a long page that mentions "captcha" is an article
// about captchas.
const softBlockText = 1500

// softBlocked reports whether a 200 HTML page is really a refusal: a short
// page with a blocking phrase, or one far shorter than the host's usual
// page.
func (e *Engine) softBlocked(host crawl.ID, title, text string) bool {
	if len(text) < softBlockText {
		lt := strings.ToLower(title + " " + text)
		for _, m := range e.cfg.BlockMarkers {
			if strings.Contains(lt, m) {
				return true
			}
		}
	}
	return e.traps.shortPage(host, len(text)) && len(text) < softBlockText
}

// offer adds a discovered URL to the result if it is in scope, within the
// depth budget and not seen before by this process.
func (e *Engine) offer(r *crawl.Result, target, anchor string, depth int, via crawl.Via) {
	e.stats.discovered.Add(1)
	if e.cfg.Limits.MaxDepth > 0 && depth > e.cfg.Limits.MaxDepth {
		e.stats.overDepth.Add(1)
		return
	}
	// The seen filter goes before the scope rules: most links on a page are
	// known already, and a URL's scope verdict never changes, so a URL
	// refused once is remembered as seen too (depth is checked first
	// because a URL refused as too deep may later be found shallower).
	id := crawl.URLID(target)
	if e.seen.testAndAdd(id) {
		e.stats.knownEarly.Add(1)
		return
	}
	switch e.cfg.Scope.Check(target) {
	case scope.In:
	case scope.Excluded:
		e.stats.excluded.Add(1)
		return
	default:
		e.stats.outOfScope.Add(1)
		return
	}
	r.Discovered = append(r.Discovered, e.newURL(target, anchor, depth, r.URL.ID, via))
}
