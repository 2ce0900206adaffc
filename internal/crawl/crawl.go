// Package crawl holds the vocabulary shared by every part of acrawler: the
// records that flow through the crawl pipeline and the Store interface that
// persists them. It imports only the standard library.
package crawl

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"
)

// ID identifies a URL or a host: the first 8 bytes of the SHA-256 of its
// normalized text, read as a big-endian signed integer. A fixed-length key
// keeps the seen-set index small and comparisons cheap; at 10 million URLs
// the chance of any collision is about 3 in a million.
type ID int64

// HashID returns the ID of a normalized URL or host key.
func HashID(s string) ID {
	sum := sha256.Sum256([]byte(s))
	return ID(binary.BigEndian.Uint64(sum[:8]))
}

// State is where a URL is in its life cycle.
type State int8

// URL states. Queued URLs wait in the frontier; claimed URLs are in flight
// under a lease; the others are final for this crawl.
const (
	StateQueued     State = 0 // waiting in the frontier (possibly with a retry time)
	StateInFlight   State = 1 // claimed by a crawl process, lease in urls.lease_until
	StateDone       State = 2 // fetched; a page row exists (any HTTP status)
	StateFailed     State = 3 // no usable response after the allowed attempts
	StateDisallowed State = 4 // refused by robots.txt, never fetched
	StateSkipped    State = 5 // refused by policy after admission (e.g. host never reachable)
)

func (s State) String() string {
	switch s {
	case StateQueued:
		return "queued"
	case StateInFlight:
		return "in-flight"
	case StateDone:
		return "done"
	case StateFailed:
		return "failed"
	case StateDisallowed:
		return "disallowed"
	case StateSkipped:
		return "skipped"
	}
	return "unknown"
}

// Via says how a URL was discovered.
type Via string

// Discovery sources.
const (
	ViaSeed      Via = "seed"
	ViaLink      Via = "link"
	ViaRedirect  Via = "redirect"
	ViaCanonical Via = "canonical"
	ViaSitemap   Via = "sitemap"
	ViaArchive   Via = "archive"
)

// NewURL is a normalized URL offered to the frontier.
type NewURL struct {
	ID       ID
	URL      string // normalized, absolute http(s)
	HostID   ID
	Host     string // host key (scheme://host[:port]) of URL
	Depth    int
	Priority int
	Parent   ID // the page it was found on; 0 for seeds
	Via      Via
}

// Limits are the crawl budgets the store enforces atomically, so that they
// hold for the crawl as a whole even when several processes share a store.
// Zero means no limit.
type Limits struct {
	MaxDepth        int   // URLs deeper than this are not admitted
	MaxPages        int64 // URLs claimed for fetching, whole crawl
	MaxPagesPerHost int64 // URLs admitted per host
	MaxBytes        int64 // response bytes, whole crawl; no claims once reached
}

// AddStats reports what happened to a batch of offered URLs.
type AddStats struct {
	Offered     int
	Added       int  // new URLs queued
	Known       int  // already in the seen-set
	OverDepth   int  // refused: deeper than Limits.MaxDepth
	OverHostCap int  // refused: host reached Limits.MaxPagesPerHost
	Hosts       []ID // hosts that received new URLs
	CappedHosts []ID // hosts that refused new URLs at Limits.MaxPagesPerHost
}

// Host is the per-host state the scheduler needs. The host key is the
// origin (scheme://host[:port]); robots.txt and politeness apply to it.
type Host struct {
	ID          ID
	Key         string
	NextFetchAt time.Time     // politeness: no request before this time
	Delay       time.Duration // current gap between requests (0: crawl default)
	Backoff     int           // consecutive throttling answers (429/503)
	Robots      *RobotsRecord // nil: never fetched
	Admitted    int64         // URLs admitted for this host
	Fetched     int64         // responses recorded for this host
	Bytes       int64         // response bytes for this host
	LeaseUntil  time.Time
}

// RobotsRecord is the cached outcome of fetching a host's robots.txt.
type RobotsRecord struct {
	Status    int // HTTP status; 0 when the server was unreachable
	Body      []byte
	FetchedAt time.Time
	ExpiresAt time.Time
	Failures  int // consecutive unreachable/5xx outcomes
}

// ClaimedURL is a URL handed to this process for fetching.
type ClaimedURL struct {
	ID       ID
	URL      string
	HostID   ID
	Depth    int
	Priority int
	Attempts int // fetch attempts before this one
}

// Outcome is the final disposition of one claimed URL.
type Outcome int8

// Outcomes of a fetch attempt.
const (
	OutcomeDone       Outcome = iota // a response was obtained and recorded
	OutcomeRetry                     // transient failure; requeue at RetryAt
	OutcomeFailed                    // no usable response; give up
	OutcomeDisallowed                // robots.txt refuses it
	OutcomeSkipped                   // policy refused it before fetching
	OutcomeRelease                   // not attempted; back to the queue unchanged
)

// URLRecord is the store's view of one known URL.
type URLRecord struct {
	ID           ID
	URL          string
	HostID       ID
	Depth        int
	Priority     int
	State        State
	Attempts     int
	Via          Via
	Parent       ID
	DiscoveredAt time.Time
	FetchedAt    time.Time // zero until fetched
	RetryAt      time.Time // zero unless waiting for a retry
	Error        string    // last error, if any
}

// Page is what was recorded for one fetched URL.
type Page struct {
	ID           ID     // HashID(URL); filled in by the store
	URL          string // the URL requested (normalized)
	Status       int
	ContentType  string
	Charset      string
	Title        string
	Text         string
	Lang         string
	ContentHash  []byte // SHA-256 of normalized text; nil when no text
	DuplicateOf  ID     // set by the store when ContentHash was seen on another URL
	Canonical    string // normalized canonical URL when it differs from URL
	RedirectTo   string // normalized Location for 3xx answers
	NoIndex      bool
	NoFollow     bool
	Bytes        int64 // body bytes received (after decompression)
	WireBytes    int64 // bytes on the wire, headers included, best effort
	ETag         string
	LastModified string
	FetchedAt    time.Time
	Duration     time.Duration
	Error        string // why a response could not be used (too large, bad charset, ...)
}

// Link is one hyperlink found on a page.
type Link struct {
	TargetID ID
	Target   string // normalized absolute URL
	Anchor   string
	NoFollow bool
}

// Result is everything one fetch attempt produced, committed atomically.
type Result struct {
	URL        ClaimedURL
	Outcome    Outcome
	RetryAt    time.Time // for OutcomeRetry
	Error      string    // for OutcomeRetry/OutcomeFailed: the error kind and message
	Page       *Page     // for OutcomeDone
	Links      []Link    // outlinks to record (followed or not)
	Discovered []NewURL  // URLs to admit to the frontier
	Host       HostUpdate
}

// HostUpdate carries the politeness state a fetch changed.
type HostUpdate struct {
	NextFetchAt time.Time
	Delay       time.Duration
	Backoff     int
}

// HostRelease is a host lease given up, with the politeness state to keep.
type HostRelease struct {
	ID ID
	HostUpdate
}

// CommitStats reports the effect of a committed batch.
type CommitStats struct {
	Pages      int
	Duplicates int
	Stale      int // results ignored: their URL was no longer in flight (lease lost)
	Add        AddStats
}

// Counters are crawl-wide figures kept by the store.
type Counters struct {
	Queued     int64 // URLs waiting (including those waiting for a retry time)
	InFlight   int64
	Done       int64
	Failed     int64
	Disallowed int64
	Skipped    int64
	Reserved   int64 // URLs counted against Limits.MaxPages
	Bytes      int64 // response bytes counted against Limits.MaxBytes
	Hosts      int64
	Pages      int64
	Links      int64
	Duplicates int64
}

// Errors returned by stores.
var (
	// ErrNotFound: the requested record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrSchemaTooNew: the database was written by a newer acrawler.
	ErrSchemaTooNew = errors.New("database schema is newer than this acrawler")
	// ErrLocked: another process holds the database (SQLite is single-process).
	ErrLocked = errors.New("database is in use by another acrawler process")
	// ErrLeaseLost: the caller no longer holds the host lease it acts under.
	ErrLeaseLost = errors.New("host lease not held")
)
