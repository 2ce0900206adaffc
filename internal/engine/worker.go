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

// work does tasks until there are none, each result handed to the
// committer. A worker counts itself out (working) before its result is
// queued, so that the committer and the frontier (Config.Settled) can
// tell when no other result is on its way; pending counts the result
// first, so that it is always counted in one or the other.
func (e *Engine) work(ctx context.Context, tasks <-chan frontier.Task) {
	for t := range tasks {
		e.working.Add(1)
		r, ok := e.handle(ctx, t)
		if ok {
			e.pending.Add(1)
		}
		e.working.Add(-1)
		if ok {
			e.queue(r)
		}
		e.notify()
	}
}

// handle does one task and returns its result for the committer, if it
// has one (a robots.txt fetch has none).
func (e *Engine) handle(ctx context.Context, t frontier.Task) (crawl.Result, bool) {
	switch t.Kind {
	case frontier.FetchRobots:
		e.fetchRobots(ctx, t)
		return crawl.Result{}, false
	case frontier.ReturnURL:
		// A claim given back unfetched: its URL goes back to the queue.
		return crawl.Result{URL: t.URL, Outcome: crawl.OutcomeRelease}, true
	case frontier.SkipURL:
		upd := e.fr.Done(ctx, t, frontier.Feedback{})
		if t.Err != nil {
			// The request the URL stands for was refused for good (the
			// host's address): recorded as that request's failure.
			r, _ := e.fetchFailed(ctx, crawl.Result{URL: t.URL}, t.Err, frontier.Feedback{})
			r.Host = upd
			return r, true
		}
		e.stats.skipped.Add(1)
		return crawl.Result{URL: t.URL, Outcome: crawl.OutcomeSkipped, Error: t.Reason, Host: upd}, true
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
			if r.Outcome == crawl.OutcomeDone && r.Page != nil {
				fb.Bytes = r.Page.CountedBytes() // as the store counts them
				e.budgetBytes.Add(fb.Bytes)
			}
			r.Host = e.fr.Done(ctx, t, fb)
		}
		// A flag raised at commit (duplicate content) may first be seen
		// here by a URL the policy skips: it is recorded all the same.
		if trap, report := e.traps.flagged(t.HostID); report {
			r.Host.Trap = trap
		}
		if p, ok := e.store.(resultPreparer); ok && r.Page != nil {
			p.PrepareResult(&r)
		}
		return r, true
	}
	return crawl.Result{}, false
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

// robotsHops is how many redirects are followed to reach a robots.txt
// (RFC 9309 2.3.1.2: at least five).
const robotsHops = 5

// fetchRobots gets a host's robots.txt. Redirects are followed here, not
// inside the fetcher, so that each hop keeps the host's politeness delay;
// redirects that reach no file (more than robotsHops, a loop, a target
// that cannot be fetched for good) leave the last 3xx as the answer,
// which reads as "unavailable": everything allowed, as for a 404.
func (e *Engine) fetchRobots(ctx context.Context, t frontier.Task) {
	u := t.Host + "/robots.txt"
	seen := map[string]bool{u: true}
	var (
		fb   frontier.Feedback
		resp *fetch.Response
		err  error
		last *fetch.Response // the last redirect followed
	)
	for hop := 0; ; hop++ {
		if hop > 0 && !sleepCtx(ctx, t.Delay) {
			err = ctx.Err()
			break
		}
		resp, err = e.cfg.Fetcher.Fetch(ctx, fetch.Request{
			URL:      u,
			Accept:   func(string) bool { return true },
			MaxBody:  robots.MaxSize,
			Truncate: true,
		})
		if err != nil && hop == 0 && errors.Is(err, fetch.ErrPrivate) {
			// Refused before any request: final, not a flaky robots.txt.
			e.cfg.Log.Debug("robots.txt refused", "host", t.Host, "err", err)
			e.fr.RobotsRefused(ctx, t, err)
			return
		}
		fb = frontier.Feedback{Requested: true, Finished: e.cfg.Now()}
		if err != nil {
			break
		}
		e.archive(fb.Finished, resp)
		e.stats.robotsBytes.Add(max(resp.WireBytes, resp.Bytes))
		if resp.Status < 300 || resp.Status > 399 || resp.Location == "" || hop == robotsHops || seen[resp.Location] {
			break
		}
		last = resp
		u = resp.Location
		seen[u] = true
	}
	status := 0
	var body []byte
	var fe *fetch.Error
	switch {
	case err != nil && (errors.As(err, &fe) && fe.Kind == fetch.KindCanceled || ctx.Err() != nil):
		// The crawl is stopping: robots.txt was not found unreachable,
		// and nothing is recorded (a resumed crawl fetches it at once).
		e.fr.Done(ctx, t, frontier.Feedback{Canceled: true})
		return
	case err != nil && last != nil && errors.As(err, &fe) && !fe.Temporary():
		// A redirect to where nothing can be fetched: no file reached.
		e.cfg.Log.Debug("robots.txt redirect leads nowhere", "host", t.Host, "err", err)
		status = last.Status
		e.stats.robots.Add(1)
	case err != nil:
		e.cfg.Log.Debug("robots.txt unreachable", "host", t.Host, "err", err)
	default:
		status, body = resp.Status, resp.Body
		e.stats.robots.Add(1)
		if last != nil && status >= 300 && status <= 399 {
			e.cfg.Log.Debug("robots.txt not reached through its redirects", "host", t.Host, "last", u)
		}
		if status == http.StatusTooManyRequests {
			fb.Throttled, fb.RetryAfter = true, resp.RetryAfter
		}
	}
	// The sitemaps are queued before robots.txt is recorded as read. When
	// they could not be (the store away, or the crawl stopping), robots.txt
	// is not recorded: it is fetched again when the host's URLs are next
	// handed out (by a resumed crawl, at once), and the sitemaps offered
	// again. A store that refused them would refuse them again: robots.txt
	// is recorded then.
	if status != 0 && status < 500 && status != http.StatusTooManyRequests {
		var lines []string
		if status >= 200 && status < 300 {
			lines = robots.Parse(body).Sitemaps()
		}
		if err := e.offerSitemaps(ctx, t.Host, lines); err != nil && !errors.Is(err, crawl.ErrRefused) {
			e.fr.Done(ctx, t, fb)
			return
		}
	}
	if err := e.fr.RobotsDone(ctx, t, status, body, fb); err != nil {
		e.cfg.Log.Warn("save robots.txt", "host", t.Host, "err", err)
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
		e.stats.fetched.Add(1)
		e.stats.bytes.Add(max(resp.WireBytes, resp.Bytes))
		e.stats.status(resp.Status)
		sr.Page.FetchedAt = started
		// A sitemap is retried and redirected like a page: a 503 or a
		// move must not lose the URLs it lists.
		if rr, ok := e.transient(u, resp, &fb); ok {
			return rr, fb
		}
		if resp.Status >= 300 && resp.Status < 400 {
			e.redirect(ctx, &sr, resp)
		}
		e.revisit(&sr)
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
	if rr, ok := e.transient(u, resp, &fb); ok {
		return rr, fb
	}
	switch st := resp.Status; {
	case st >= 300 && st < 400:
		e.redirect(ctx, &r, resp)
	case st >= 200 && st < 300 && !resp.BodySkipped && isXML(resp.MediaType):
		// A sitemap reached through a link before its host's robots.txt
		// named it (the seen-set then keeps it from being queued again as
		// a sitemap) is read as one all the same.
		e.readSitemap(&r, u, resp)
	case st >= 200 && st < 300 && !resp.BodySkipped && extract.IsPDF(resp.MediaType):
		e.parse(ctx, &r, resp)
		if p.ErrorKind != "" && ctx.Err() != nil {
			// The crawl stopped during the extraction, which failed for
			// that: the PDF goes back to the queue, not on record as broken.
			return crawl.Result{URL: u, Outcome: crawl.OutcomeRelease}, fb
		}
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

// transient turns an answer worth another attempt into a retry, within
// MaxAttempts: 429 and 503 (which also slow the host down, as they do on
// the last attempt) and 500, 502 and 504. It reports false for any other
// answer, or when the attempts are spent: the answer is then recorded.
func (e *Engine) transient(u crawl.ClaimedURL, resp *fetch.Response, fb *frontier.Feedback) (crawl.Result, bool) {
	r := crawl.Result{URL: u}
	switch st := resp.Status; st {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		fb.Throttled, fb.RetryAfter = true, resp.RetryAfter
		if u.Attempts+1 < e.cfg.MaxAttempts {
			// Retry-After is honoured up to MaxBackoff, as it is for the
			// host's gap: a server asking for a day must not hold the
			// crawl open for a day.
			after := min(resp.RetryAfter, e.cfg.Frontier.MaxBackoff)
			return e.retry(r, fmt.Sprintf("http %d", st), max(after, e.retryDelay(u.Attempts))), true
		}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		if u.Attempts+1 < e.cfg.MaxAttempts {
			return e.retry(r, fmt.Sprintf("http %d", st), e.retryDelay(u.Attempts)), true
		}
	}
	return crawl.Result{}, false
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
	if errors.Is(fe.Err, fetch.ErrPrivate) {
		// The address refused is in the debug log; the record says what
		// to do about it.
		return fetch.ErrPrivate.Error()
	}
	if fe.Err == nil {
		return fe.Kind.String()
	}
	s := fe.Err.Error()
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// maxRedirectHops is how many redirects in a row are followed: a
// redirect target keeps its source's depth, so without a bound a server
// that redirects to ever new URLs would never be left, whatever
// --max-depth says.
const maxRedirectHops = 10

// redirect records where a 3xx answer points and offers the target as a
// new URL: each hop goes through normalization, scope, robots and
// politeness like any other URL.
func (e *Engine) redirect(ctx context.Context, r *crawl.Result, resp *fetch.Response) {
	location := resp.Location
	if location == "" {
		switch resp.Status {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			// A redirect that leads nowhere is recorded as such.
			r.Page.Error, r.Page.ErrorKind = "redirect without a Location", "bad redirect"
			if raw := resp.Header.Get("Location"); raw != "" {
				r.Page.Error = fmt.Sprintf("bad redirect location %.200q", raw)
			}
		}
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
	if hops := e.redirectHops(ctx, r.URL); hops >= maxRedirectHops {
		r.Page.Error, r.Page.ErrorKind = fmt.Sprintf("more than %d redirects in a row", maxRedirectHops), "redirects"
		return
	}
	if r.URL.Kind == crawl.KindSitemap {
		// A moved sitemap is still a sitemap: its target is read as one.
		e.stats.discovered.Add(1)
		if sc := e.cfg.Scope.Check(target); sc != scope.In && sc != scope.Excluded {
			e.stats.outOfScope.Add(1)
			return
		}
		if e.seen.testAndAdd(id) {
			e.stats.knownEarly.Add(1)
			return
		}
		nu := e.sitemapURL(target, r.URL.Depth, r.URL.ID)
		nu.Via = crawl.ViaRedirect
		r.Discovered = append(r.Discovered, nu)
		return
	}
	e.offer(r, nil, target, "", r.URL.Depth, crawl.ViaRedirect, 0)
}

// redirectHops counts the redirects in a row that led to u: the chain of
// URLs first found as redirect targets, read back from the store (only
// for a URL that was one), up to maxRedirectHops.
func (e *Engine) redirectHops(ctx context.Context, u crawl.ClaimedURL) int {
	if u.Via != crawl.ViaRedirect {
		return 0
	}
	hops := 0
	for id := u.ID; hops < maxRedirectHops; hops++ {
		rec, err := e.store.URL(ctx, id)
		if err != nil || rec.Via != crawl.ViaRedirect || rec.Parent == 0 {
			break
		}
		id = rec.Parent
	}
	return hops
}

// parse extracts text and links from an HTML answer.
func (e *Engine) parse(ctx context.Context, r *crawl.Result, resp *fetch.Response) {
	p, u := r.Page, r.URL
	var x extract.Result
	if extract.IsPDF(resp.MediaType) {
		x = e.extractor.PDF(ctx, resp.Body, u.URL, resp.Header)
		x.Apply(p)
		if x.ErrorKind != "" && ctx.Err() == nil { // a stop is not a broken PDF
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
	var hosts hostIDCache
	ids := linkIDs(&x, &hosts)
	r.Links = pageLinks(p, &x, ids)
	// The canonical URL is the record's name: queue it if unseen (an alias
	// never hides it), and keep this page as its alias.
	if p.Canonical != "" && e.cfg.Scope.Check(p.Canonical) == scope.In {
		e.offer(r, &hosts, p.Canonical, "", u.Depth, crawl.ViaCanonical, 0)
	}
	if x.Refresh != "" && x.Refresh != u.URL && !p.NoFollow {
		e.offer(r, &hosts, x.Refresh, "", u.Depth, crawl.ViaRedirect, 0)
	}
	// Links to the page's own host rank by the page too: a publication
	// listing's higher, a news listing's lower (score's Context).
	fromPage := e.cfg.Score.Context(u.URL)
	from := crawl.HostKey(u.URL)
	for i, l := range x.Links {
		if l.URL != u.URL && !l.NoFollow && !p.NoFollow {
			e.offerID(r, ids[i], l.URL, l.Anchor, u.Depth+1, crawl.ViaLink, fromPage)
		}
		if e.mirrors != nil {
			for _, h := range e.mirrors.linked(from, l.URL, l.Anchor) {
				e.mirrorChanged(h)
			}
		}
	}
}

// hostIDCache remembers the ID of the last host key it was asked for: a
// page's links mostly stay on its host, and a URL's ID takes a hash of its
// host key and one of its own.
type hostIDCache struct {
	key string
	id  crawl.ID
}

// urlID returns crawl.URLID(u), the host's hash taken from c when u is on
// the host asked for last. c may be nil.
func (c *hostIDCache) urlID(u string) crawl.ID {
	host := crawl.HostKey(u)
	if c == nil || host == "" {
		return crawl.URLID(u)
	}
	if host != c.key {
		c.key, c.id = host, crawl.HashID(host)
	}
	return crawl.URLIDOf(crawl.HashID(u), c.id)
}

// mirrorChanged tells the frontier what the mirror watch now takes a host
// for, when it has taken it or the other host of a pair for a mirror: a
// mirror, or no longer one (a mirror met before its original, taken for
// the original until the evidence turned), and its copies again without
// those of its mirrors.
func (e *Engine) mirrorChanged(h crawl.ID) {
	if e.mirrors.isMirror(h) {
		e.cfg.Log.Debug("host taken for a mirror: its pages are linked under another host's paths and titles", "host_id", int64(h))
		e.fr.Mirror(h)
	} else {
		e.fr.NotMirror(h)
	}
	if c, ok := e.copies.recount(h, e.mirrors.mirrorsOf(h)); ok {
		e.tellCopies(h, c)
	}
}

// tellCopies tells the frontier what a host's committed pages turned out
// to be (frontier.Frontier.Copies), the host they copy left out for a
// seed's host: a seed is taken for an original, not recorded as a mirror
// (an original fetched after its mirror copies the mirror's pages), though
// its copies still lower its rank.
func (e *Engine) tellCopies(h crawl.ID, c copies) {
	if e.mirrors.isSeed(h) {
		c.of = 0
	}
	e.fr.Copies(h, c.pages, c.copies, c.of)
	e.fr.Plain(h, c.plain)
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
// depth budget and not seen before by this process; fromPage is added to
// its priority when it is on the page's own host. hosts, if not nil,
// holds the host ID of the URLs offered before from the same page.
func (e *Engine) offer(r *crawl.Result, hosts *hostIDCache, target, anchor string, depth int, via crawl.Via, fromPage int) {
	e.offerID(r, hosts.urlID(target), target, anchor, depth, via, fromPage)
}

// offerID is offer with the target's URL ID (crawl.URLID).
func (e *Engine) offerID(r *crawl.Result, id crawl.ID, target, anchor string, depth int, via crawl.Via, fromPage int) {
	e.stats.discovered.Add(1)
	if e.cfg.Frontier.Limits.OverDepth(depth) {
		e.stats.overDepth.Add(1)
		return
	}
	// The seen filter goes before the scope rules: most links on a page are
	// known already, and a URL's scope verdict never changes, so a URL
	// refused once is remembered as seen too (depth is checked first
	// because a URL refused as too deep may later be found shallower).
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
	nu := e.newURL(target, anchor, depth, r.URL.ID, via)
	if nu.HostID == r.URL.HostID {
		nu.Priority += fromPage
	}
	r.Discovered = append(r.Discovered, nu)
}
