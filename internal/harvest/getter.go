package harvest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/oai"
	"github.com/acrawler/acrawler/internal/robots"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// redirects is how many redirects a request follows (an endpoint moved
// from http to https); each hop passes the fetcher's SSRF guard.
const redirects = 5

// politeGetter is the harvester's Getter: the crawl's fetcher, under the
// host's robots.txt, one request at a time, spaced by the host's delay.
type politeGetter struct {
	cfg   *Config
	res   *Result
	group *robots.Group
	delay time.Duration
	sent  time.Time // when the last request ended; zero before the first
	last  string    // the last URL asked for
}

var _ oai.Getter = (*politeGetter)(nil)

// readRobots fetches robots.txt of the endpoint's host and checks the
// endpoint against it; a Crawl-delay longer than the crawl's delay is
// taken, up to MaxCrawlDelay. It returns the URL at fault with its error.
func (g *politeGetter) readRobots(ctx context.Context) (string, error) {
	g.delay = g.cfg.Delay
	u := urlnorm.HostKey(g.cfg.Endpoint) + "/robots.txt"
	g.last = u
	resp, err := g.fetch(ctx, fetch.Request{URL: u, Accept: func(string) bool { return true },
		MaxBody: robots.MaxSize, Truncate: true, FollowRedirects: redirects})
	status := 0
	var body []byte
	if err == nil {
		status, body = resp.Status, resp.Body
	} else if ctx.Err() != nil {
		return u, err
	}
	rb := robots.FromStatus(status, body)
	if rb.Unreachable() {
		if err != nil {
			return u, fmt.Errorf("%w: %w", ErrRobotsUnreachable, err)
		}
		return u, fmt.Errorf("%w: status %d", ErrRobotsUnreachable, status)
	}
	g.group = rb.Group(g.cfg.Token)
	if d, ok := g.group.CrawlDelay(); ok && d > g.delay {
		g.delay = min(d, max(g.cfg.MaxCrawlDelay, g.cfg.Delay))
	}
	if !g.group.Allowed(urlnorm.PathQuery(g.cfg.Endpoint)) {
		return g.cfg.Endpoint, fmt.Errorf("%s: %w", g.cfg.Endpoint, ErrDisallowed)
	}
	return "", nil
}

// Get fetches one OAI-PMH request.
func (g *politeGetter) Get(ctx context.Context, u string) (int, []byte, time.Duration, error) {
	g.last = u
	if g.group != nil && !g.group.Allowed(urlnorm.PathQuery(u)) {
		return 0, nil, 0, ErrDisallowed
	}
	resp, err := g.fetch(ctx, fetch.Request{URL: u, Accept: func(string) bool { return true },
		MaxBody: g.cfg.MaxBody, FollowRedirects: redirects})
	if err != nil {
		var fe *fetch.Error
		if errors.As(err, &fe) && fe.Kind == fetch.KindTooLarge {
			return 0, nil, 0, fmt.Errorf("%w: over %d bytes", oai.ErrTooLarge, g.cfg.MaxBody)
		}
		return 0, nil, 0, err
	}
	return resp.Status, resp.Body, resp.RetryAfter, nil
}

// fetch sends one request once the host's delay since the last has passed.
func (g *politeGetter) fetch(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	if !g.waitDelay(ctx) {
		return nil, ctx.Err()
	}
	g.res.Requests++
	resp, err := g.cfg.Fetcher.Fetch(ctx, req)
	g.sent = g.cfg.Now()
	return resp, err
}

// waitDelay waits until the host's delay has passed since the last
// request; false when ctx ended first.
func (g *politeGetter) waitDelay(ctx context.Context) bool {
	if g.sent.IsZero() {
		return ctx.Err() == nil
	}
	return g.cfg.Sleep(ctx, g.sent.Add(g.delay).Sub(g.cfg.Now()))
}
