package frontier

import (
	"context"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Store is what the frontier needs from a store: host leases (claim,
// renew, release with their politeness state), the URLs of the hosts it
// holds, and the robots.txt cache. Every crawl.Store has it (the frontier
// role, crawl.FrontierStore, of which this is the part the frontier
// calls); the methods are documented there. A store that is also a
// HostValuer lets the frontier rank hosts by what they are worth
// (Config.HostValues).
type Store interface {
	ClaimHosts(ctx context.Context, owner string, n int, lease time.Duration, now time.Time) ([]crawl.Host, error)
	RenewHosts(ctx context.Context, owner string, ids []crawl.ID, lease time.Duration, now time.Time) (lost []crawl.ID, err error)
	ReleaseHosts(ctx context.Context, owner string, hosts []crawl.HostRelease) error
	ClaimURLsOf(ctx context.Context, owner string, hosts []crawl.ID, n int, lim crawl.Limits, now time.Time) ([]crawl.Claim, error)
	SaveRobots(ctx context.Context, host crawl.ID, rec crawl.RobotsRecord, upd crawl.HostUpdate) error
}

// HostValuer is a store that learns what hosts are worth to a crawl after
// research from their recorded pages. ValueHosts returns the value of each
// host, in the order of ids, learning it anew for hosts with responses
// recorded since it was last learned. The frontier asks its store for it
// when Config.HostValues is set; both stores have it.
type HostValuer interface {
	ValueHosts(ctx context.Context, ids []crawl.ID) ([]int, error)
}

// MirrorKeeper is a store that records which hosts are mirrors of others
// (their pages are copies of another host's pages). MarkMirror records
// host as a mirror of original, or with original 0 as none; the store
// values a mirror at most crawl.MirrorValue (HostValuer) and its crawl
// report names the original. A host or an original the store does not
// know is left as it is. The frontier records what the copy counts it is
// told of show (Frontier.Copies); both stores have it.
type MirrorKeeper interface {
	MarkMirror(ctx context.Context, host, original crawl.ID) error
}

// Every crawl.Store is a Store.
var _ Store = crawl.Store(nil)
