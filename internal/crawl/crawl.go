// Package crawl holds the vocabulary shared by every part of acrawler: the
// records that flow through the crawl pipeline and the Store interface that
// persists them. It imports only the standard library.
package crawl

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ID identifies a URL or a host by a fixed-length hash of its normalized
// text (see HashID and URLID). A fixed-length key keeps the seen-set index
// small and comparisons cheap.
type ID int64

// HashID returns the ID of a host key (or of any text): the first 8 bytes
// of its SHA-256, read as a big-endian signed integer.
func HashID(s string) ID {
	sum := sha256.Sum256([]byte(s))
	return ID(binary.BigEndian.Uint64(sum[:8]))
}

// URLHostBits is how many of a URL ID's high bits come from its host.
const URLHostBits = 12

// urlLowMask keeps the bits of a URL ID that come from the URL itself.
const urlLowMask = 1<<(64-URLHostBits) - 1

// HostBits returns the high URLHostBits bits of a host or URL ID: those a
// URL's ID takes from its host (URLID), so that a URL whose bits differ
// from a host's is on another host, and one whose bits agree is on the
// host or, rarely, on another host of the same bits.
func HostBits(id ID) uint64 { return uint64(id) >> (64 - URLHostBits) }

// HostBitsSpan returns the lowest and the highest ID of the given host
// bits (HostBits): the IDs of the hosts and URLs of those bits are those
// from lo to hi, in the order of the stores' indexes (as signed numbers).
func HostBitsSpan(bits uint64) (lo, hi ID) {
	lo = ID(bits << (64 - URLHostBits))
	return lo, lo | urlLowMask
}

// URLID returns the ID of a normalized URL: the high URLHostBits bits of
// its host key's HashID, then the low bits of the URL's own HashID. The
// URLs of a host thus sit together in the store's indexes, which are
// ordered by ID: a batch of results from a hundred hosts, whose links
// mostly stay on their hosts, rewrites a few neighbourhoods of each index
// instead of pages all over it. The price is a smaller hash per host: two
// URLs of one host collide with odds 1 in 2^52, so a host of 10 million
// URLs has about a 1% chance of any collision (the URL that loses is never
// fetched).
func URLID(u string) ID {
	host := HostKey(u)
	if host == "" {
		host = u // not a URL: its own host key here, as URL IDs have always been computed
	}
	return ID(uint64(HashID(host))&^urlLowMask | uint64(HashID(u))&urlLowMask)
}

// URLIDOf recomputes a URL ID from the URL's old, whole-hash ID and its
// host's ID, as URLID would from the texts (for migrating stores).
func URLIDOf(oldID, host ID) ID {
	return ID(uint64(host)&^urlLowMask | uint64(oldID)&urlLowMask)
}

// HostKey returns the host key of a normalized URL, "scheme://host[:port]":
// everything before the first "/", "?" or "#" after "://". A host is
// identified by the HashID of its key; it is the unit of politeness and
// robots.txt, and the host a search result names. An IPv6 address keeps
// its brackets ("http://[::1]:8080"); a port is kept as written (Normalize
// drops a scheme's default port); userinfo, which Normalize drops, would
// be kept. HostKey returns "" when u has no "://".
func HostKey(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexAny(u[i+3:], "/?#"); j >= 0 {
		return u[:i+3+j]
	}
	return u
}

// RelURL is the text a store keeps of URL u of the host whose key is key
// (HostKey): what follows the key, "" or text beginning with "/", "?" or
// "#", so that a host's origin is stored once, in its row. A URL that does
// not begin so with the key is kept whole behind a "!", which no relative
// text begins with, so that every text comes back exactly (FullURL).
func RelURL(u, key string) string {
	if rest, ok := strings.CutPrefix(u, key); ok && (rest == "" || strings.IndexByte("/?#", rest[0]) >= 0) {
		return rest
	}
	return "!" + u
}

// FullURL is the URL whose text a store keeps as rel, of the host whose
// key is key: RelURL's inverse.
func FullURL(rel, key string) string {
	if whole, ok := strings.CutPrefix(rel, "!"); ok {
		return whole
	}
	return key + rel
}

// RelURLID is the ID of the URL whose text a store keeps as rel, of the
// host whose key is key and ID host: URLID of the whole URL (FullURL),
// with the host's hash known, so one SHA-256 a URL rather than two.
func RelURLID(rel, key string, host ID) ID {
	if whole, ok := strings.CutPrefix(rel, "!"); ok {
		return URLID(whole)
	}
	return URLIDOf(HashID(key+rel), host)
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

// ViaCodes are the ways a URL is found, numbered by their index: the
// numbers stores keep for them (the two ways of nearly every URL are 0
// and 1). A way not listed has no number.
var ViaCodes = []Via{ViaLink, ViaSeed, ViaRedirect, ViaCanonical, ViaSitemap, ViaArchive}

// ChangeFreqs are the sitemap change frequencies stores number, by
// index; 0 is none given.
var ChangeFreqs = [...]string{"", "always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}

// Kind is what a URL is fetched as.
type Kind int8

// URL kinds.
const (
	KindPage    Kind = 0 // a page (HTML, PDF, ...)
	KindSitemap Kind = 1 // a sitemap or sitemap index: its entries are offered as new URLs
)

// NewURL is a normalized URL offered to the frontier.
type NewURL struct {
	ID         ID
	URL        string // normalized, absolute http(s)
	HostID     ID
	Host       string // host key (scheme://host[:port]) of URL
	Depth      int
	Priority   int
	Parent     ID // the page that redirected to it (the engine keeps no other); 0 for none
	Via        Via
	Kind       Kind
	LastMod    time.Time // from a sitemap, zero if unknown
	ChangeFreq string    // from a sitemap, "" if unknown
}

// Limits are the crawl budgets the store enforces atomically, so that they
// hold for the crawl as a whole even when several processes share a store.
// Zero means no limit.
type Limits struct {
	MaxDepth        int   // URLs deeper than this are not admitted
	MaxPages        int64 // URLs claimed for fetching, whole crawl
	MaxPagesPerHost int64 // URLs admitted per host
	MaxBytes        int64 // response bytes, whole crawl; no claims once reached
	MaxHostBytes    int64 // response bytes per host; the host's URLs are not claimed once reached

	// InlinkBonus raises the priority of a queued URL each time a newly
	// fetched page links to it, up to MaxInlinkBonus in all: pages many
	// pages link to come first.
	InlinkBonus, MaxInlinkBonus int
}

// OverDepth reports whether a URL at depth is deeper than MaxDepth
// allows (0: no limit), and so is not admitted.
func (l Limits) OverDepth(depth int) bool {
	return l.MaxDepth > 0 && depth > l.MaxDepth
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

// Decided adds to st what o decided (a merge of staged offers, reported
// by the commit that ran it): the URLs added, known and over a host's
// cap, and the hosts o names that st does not, after st's.
func (st *AddStats) Decided(o AddStats) {
	st.Added += o.Added
	st.Known += o.Known
	st.OverHostCap += o.OverHostCap
	st.Hosts = unionIDs(st.Hosts, o.Hosts)
	st.CappedHosts = unionIDs(st.CappedHosts, o.CappedHosts)
}

// unionIDs returns a with the IDs of b it lacks appended, in b's order.
func unionIDs(a, b []ID) []ID {
	if len(b) == 0 {
		return a
	}
	seen := make(map[ID]bool, len(a))
	for _, id := range a {
		seen[id] = true
	}
	for _, id := range b {
		if !seen[id] {
			a = append(a, id)
			seen[id] = true
		}
	}
	return a
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
	Trap        string        // recorded suspected-trap description ("": none)
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
	ID         ID
	URL        string
	HostID     ID
	Depth      int
	Priority   int
	Attempts   int // fetch attempts before this one
	Kind       Kind
	LastMod    time.Time // from a sitemap, zero if unknown
	ChangeFreq string    // from a sitemap, "" if unknown
	Via        Via
	Prev       *PrevFetch // the last recorded fetch, for a revisit; nil for a first fetch
	// ClaimedAt names the claim: a store that hands a URL out again (its
	// claim orphaned, then claimed anew) ignores a result for an earlier
	// claim. Zero answers any claim.
	ClaimedAt time.Time
}

// PrevFetch is what the store knows of a page's last fetch: validators for
// a conditional request and what its revisit schedule needs.
type PrevFetch struct {
	ETag, LastModified string
	ContentHash        []byte
	Bytes              int64
	FetchedAt          time.Time
	Interval           time.Duration
	Misses             int
	Type               string // classification of the recorded page
	ChangeFreq         string
}

// Revisit is the schedule decided for a fetched page, recorded with its
// result: when it is due again, whether it changed, and whether it still
// exists.
type Revisit struct {
	Interval    time.Duration
	NextCheck   time.Time
	Changed     bool // the content changed since the last fetch (true on a first fetch)
	NotModified bool // keep the page record as it was: a 304, or an answer that is no page (a redirect, a 5xx)
	Misses      int  // 404 answers in a row
	Gone        Gone
	Run         int // the recrawl run (0: not a recrawl)
}

// Gone says whether a recorded page still exists.
type Gone int8

// Page existence.
const (
	Active   Gone = 0
	Removed  Gone = 1 // 410, or 404 several times in a row
	Inactive Gone = 2 // no longer linked nor in a sitemap for several recrawls
)

// RunStats are the figures of one recrawl run.
type RunStats struct {
	Run         int       `json:"run"`
	Started     time.Time `json:"started"`
	Finished    time.Time `json:"finished"`
	Revisits    int64     `json:"revisits"`     // recorded pages fetched again
	NotModified int64     `json:"not_modified"` // answered 304
	Unchanged   int64     `json:"unchanged"`    // answered 200 with the same content
	Changed     int64     `json:"changed"`
	Removed     int64     `json:"removed"`
	Inactive    int64     `json:"inactive"`
	New         int64     `json:"new"`         // pages fetched for the first time
	Bytes       int64     `json:"bytes"`       // page bytes downloaded
	BytesSaved  int64     `json:"bytes_saved"` // bytes the 304 answers did not send (their last full size)
	DueLeft     int64     `json:"due_left"`    // pages due and not visited when the run ended
}

// Touch is a sitemap's word that a URL changed at LastMod: a recorded page
// fetched before that is due at once.
type Touch struct {
	ID      ID
	LastMod time.Time
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
	Kind         Kind
	LastMod      time.Time // from a sitemap
	ChangeFreq   string    // from a sitemap
	Inlinks      int       // fetched pages found linking here, whatever this URL's state (counted while Limits.InlinkBonus is set; raises a queued URL's priority)
}

// Page is what was recorded for one fetched URL.
type Page struct {
	ID           ID     // URLID(URL); filled in by the store
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
	Blocked      bool  // a soft block: a 200 answer that is really a refusal (captcha, access denied)
	Bytes        int64 // body bytes received (after decompression)
	WireBytes    int64 // bytes on the wire, headers included, best effort
	ETag         string
	LastModified string
	FetchedAt    time.Time
	Duration     time.Duration
	Error        string // why a response could not be used (too large, bad charset, ...)
	ErrorKind    string // a short class of Error, for per-host outcome counts

	Gone            Gone      // the page no longer exists (set by revisits)
	CheckedAt       time.Time // last revisit (a 304 updates only this)
	NextCheckAt     time.Time // when it is due again
	MainText        string    // the main content, boilerplate removed, paragraphs separated by blank lines
	Meta            *Metadata // scholarly metadata and classification; nil when none was extracted
	SimHash         uint64    // near-duplicate fingerprint of the main text (0: none)
	NearDuplicateOf ID        // set by the store: an earlier page within the near-duplicate distance
	WARC            WARCRef   // where the raw response is archived (zero: not archived)
}

// CountedBytes are the bytes the page counts against the byte budgets
// (Limits.MaxBytes, Limits.MaxHostBytes): those on the wire, or its body's
// when the wire's are not known.
func (p *Page) CountedBytes() int64 {
	if p.WireBytes > 0 {
		return p.WireBytes
	}
	return p.Bytes
}

// WARCRef locates a response record in the WARC archive.
type WARCRef struct {
	File   string // relative to the archive directory
	Offset int64
	Length int64
}

// Metadata is a page's scholarly description: what Highwire, schema.org,
// Dublin Core, PRISM and Open Graph tags say, and its classification.
type Metadata struct {
	Title       string   `json:"title,omitempty"`
	Authors     []string `json:"authors,omitempty"`
	Date        string   `json:"date,omitempty"`
	Year        int      `json:"year,omitempty"`
	Venue       string   `json:"venue,omitempty"`
	Volume      string   `json:"volume,omitempty"`
	Issue       string   `json:"issue,omitempty"`
	FirstPage   string   `json:"first_page,omitempty"`
	LastPage    string   `json:"last_page,omitempty"`
	DOI         string   `json:"doi,omitempty"`
	PDFURL      string   `json:"pdf_url,omitempty"`
	AbstractURL string   `json:"abstract_url,omitempty"`
	ISSN        []string `json:"issn,omitempty"`
	ISBN        []string `json:"isbn,omitempty"`
	Publisher   string   `json:"publisher,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	Abstract    string   `json:"abstract,omitempty"`
	Type        string   `json:"type,omitempty"`      // article, preprint, thesis, proceedings, book, dataset, person, listing, news, other
	TypeRule    string   `json:"type_rule,omitempty"` // the rule that decided Type
	Sources     []string `json:"sources,omitempty"`   // vocabularies that contributed
	DOIs        []string `json:"dois,omitempty"`      // every DOI found in links and text
	Created     string   `json:"created,omitempty"`   // PDFs: document creation date (RFC 3339)
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
	ErrorKind  string    // for OutcomeRetry/OutcomeFailed: the error kind alone ("timeout", "http 503")
	Page       *Page     // for OutcomeDone
	Links      []Link    // outlinks to record (followed or not)
	Discovered []NewURL  // URLs to admit to the frontier
	Touched    []Touch   // known URLs a sitemap says changed
	Host       HostUpdate
	Revisit    *Revisit // the page's schedule; nil leaves it as it is
	// Prepared is the store's own encoding of parts of the result, made
	// in the worker that fetched it when the store offers to (see the
	// engine's resultPreparer); the store's commit uses it only while it
	// still matches the result.
	Prepared any
}

// HostUpdate carries the politeness state a fetch changed.
type HostUpdate struct {
	NextFetchAt time.Time
	Delay       time.Duration
	Backoff     int
	Trap        string // when set, the host is recorded as a suspected trap, with this description
}

// HostRelease is a host lease given up, with the politeness state to keep.
type HostRelease struct {
	ID ID
	HostUpdate
	// At is when the lease was given up while results of the host's URLs
	// may still be on their way to a commit: URLs left in flight on the
	// host are the releaser's for a lease after it, and only then taken
	// for orphans (zero: every result is committed).
	At time.Time
}

// CommitStats reports the effect of a committed batch.
type CommitStats struct {
	Pages      int
	Duplicates int
	Stale      int // results ignored: their URL was no longer in flight (lease lost)
	Touched    int // recorded pages that Result.Touched made due now
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
	// Staged are URLs offered and not yet decided on (the stage: seeds,
	// and a large frontier's discoveries), which a claim that finds no
	// host decides on.
	Staged int64
}

// Metrics are one interval's figures of one crawl process, recorded over
// time so that a crawl can be measured during and after it.
type Metrics struct {
	At       time.Time
	Owner    string
	Interval time.Duration
	// Figures of the interval.
	Fetched    int64 // responses received
	Useful     int64 // HTML/PDF 2xx pages that are neither duplicates nor soft blocks
	Duplicates int64
	Blocked    int64 // soft blocks
	Errors     int64 // failures and 5xx answers
	Discovered int64 // links and redirects offered
	New        int64 // new URLs admitted
	Known      int64 // offered URLs already known
	Bytes      int64
	// Totals at the end of the interval (whole crawl).
	Frontier   int64 // URLs queued
	Reserved   int64 // URLs counted against the page budget
	TotalBytes int64 // bytes counted against the byte budget
}

// SourceError is a failure of a source of URLs outside the pages
// themselves, such as a web archive's CDX server that was down or answered
// garbage, recorded so that the crawl's report shows it. (A sitemap's
// errors are recorded on the sitemap's own URL, as a page's are.)
type SourceError struct {
	At     time.Time
	Kind   string // the kind of source: "archive"
	Source string // what was asked for: a domain
	URL    string // where it was asked: the endpoint
	Error  string
	URLs   int // URLs the source gave before it failed (kept and queued)
}

// HostStats are one host's outcomes.
type HostStats struct {
	ID         ID
	Key        string
	Admitted   int64
	Queued     int64
	Fetched    int64
	Bytes      int64
	Status     [6]int64 // responses by status class: index 2 is 2xx, ..., 5 is 5xx
	Errors     map[string]int64
	Duplicates int64
	Blocked    int64
	Discovered int64 // new URLs admitted from its pages
	Trap       string
	Robots     int // robots.txt status (0: unreachable or not fetched)
	// Value is what the store learned the host is worth to a crawl after
	// research (ValueHosts), and what from: its last ValuePages recorded
	// pages, ValueResearch of them research, ValueRelated people or
	// publication lists, ValueCopies copies of other hosts' pages.
	// ValuePages is 0 for a host not valued yet.
	Value                                                int
	ValuePages, ValueResearch, ValueRelated, ValueCopies int64
	// MirrorOf is the key of the host this one is recorded as a mirror
	// of (its pages are copies of that host's pages), "" for none: it is
	// worth at most MirrorValue whatever Value says.
	MirrorOf string
}

// Errors returned by stores.
var (
	// ErrNotFound: the requested record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrSchemaTooNew: the database was written by a newer acrawler.
	ErrSchemaTooNew = errors.New("database schema is newer than this acrawler")
	// ErrNeedsMigration: a read-only open found a database of an older
	// schema (or none yet), which only a writer can bring up to date.
	ErrNeedsMigration = errors.New("needs migration; run `acrawler migrate`")
	// ErrForeign: the database holds another program's tables; it is
	// left as it is.
	ErrForeign = errors.New("not an acrawler database")
	// ErrLocked: another process holds the database (SQLite is single-process).
	ErrLocked = errors.New("database is in use by another acrawler process")
	// ErrLeaseLost: the caller no longer holds the host lease it acts under.
	ErrLeaseLost = errors.New("host lease not held")
	// ErrRefused: the store refused the operation itself (a constraint it
	// enforces, a table or index it lacks, a value it cannot hold, a
	// damaged file), so the same operation fails again however long one
	// waits; an error without it may pass (a lost connection, a lock, a
	// full disk). Stores mark such errors with Refused.
	ErrRefused = errors.New("refused by the store")
)

// Refused marks err, a store's error, as one the store will give again
// for the same operation: errors.Is(Refused(err), ErrRefused) holds, and
// its message is err's. Refused(nil) is nil.
func Refused(err error) error {
	if err == nil {
		return nil
	}
	return refusedError{err}
}

type refusedError struct{ error }

func (e refusedError) Unwrap() error      { return e.error }
func (refusedError) Is(target error) bool { return target == ErrRefused }

// Near-duplicate distances: a page whose SimHash is within the store's
// distance (in bits, Hamming) of an earlier page's is recorded as its
// near-duplicate. Fingerprints that close agree on one of their four
// 16-bit bands, which is how the stores find candidates without a scan;
// beyond MaxNearDistance that no longer holds.
const (
	DefaultNearDistance = 3
	MaxNearDistance     = 3
)

// NearDistanceOption turns a user's setting (0 to MaxNearDistance, 0
// meaning no near-duplicate detection) into a store option (0 meaning the
// default, negative meaning none).
func NearDistanceOption(n int) (int, error) {
	switch {
	case n < 0 || n > MaxNearDistance:
		return 0, fmt.Errorf("near-duplicate distance %d out of range 0..%d", n, MaxNearDistance)
	case n == 0:
		return -1, nil
	}
	return n, nil
}
