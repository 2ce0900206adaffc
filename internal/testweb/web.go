// Package testweb is acrawler's synthetic web: one http.Handler that serves
// many fictional hosts (universities, a journal, a lab, a shop, a news site,
// a blog and a host of faults) chosen by the Host header, usable both as an
// origin server and as an HTTP proxy. Every byte is derived from a seed, so
// two webs built from one Config serve the same pages, and the web knows the
// ground truth about each of its URLs (Lookup, Pages) for tests and
// benchmarks to compare a crawl against.
//
// The site structure (titles, authors, links between pages) is built once by
// New; page bodies are generated on request from a per-page generator seeded
// by seed, host, path and the epoch of the page's current version, into
// pooled buffers.
//
// The web can move on in time: Advance takes it to its next state (an
// epoch, one day later), in which some pages have changed, some are gone
// and new ones have appeared, all derived from the seed; Changes says
// which. A page that did not change serves the same bytes, ETag and
// Last-Modified as before.
package testweb

import (
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Config describes a web. The zero value is a small web of the fixed named
// sites with default page counts and fault timings.
type Config struct {
	// Seed selects the web: the same seed gives the same web, byte for byte,
	// except where a response depends on the request by design (session ids,
	// the counters behind /flaky and /busy).
	Seed int64
	// Sites is the number of generated sites added to the fixed named ones:
	// universities, journals and labs in turn, named www.uni-017.test,
	// journal-018.test, lab-019.test.
	Sites int
	// PagesPerSite is the target number of content pages per site
	// (default 60).
	PagesPerSite int
	// Slow is how long the /slow endpoint takes to answer (default 3s);
	// /drip sends one byte every Slow/10.
	Slow time.Duration
	// NoFaults omits the slow, drip, bomb and huge endpoints (for
	// benchmarks); they are then neither linked nor served.
	NoFaults bool
	// Varied builds a web drawn whole from Seed instead of the fixed named
	// sites and the generated ones: Sites sites (default 40) of every kind
	// (universities, journals, labs, a Turkish university, blogs and news
	// sites whose posts cite research, shops with faceted catalogues,
	// mirrors of universities), their host names, URL vocabularies (seven
	// languages; slugs, /node/1234, /handle/123/456, /record/…, /eprint/…)
	// and link structures drawn from the seed. Its Seeds are its
	// universities and blogs; the other sites are reached by links.
	Varied bool
	// LogLimit bounds the request log (default 1<<20 entries); when it is
	// full the oldest half is dropped.
	LogLimit int
}

const (
	defaultPagesPerSite = 60
	defaultSlow         = 3 * time.Second
	defaultLogLimit     = 1 << 20
)

// Web is a synthetic web. It is safe for concurrent use.
type Web struct {
	cfg   Config
	seed  uint64
	sites []*site

	// mu guards what Advance changes: the epoch, the pages' history, the
	// lists pages are added to and the sites' page maps.
	mu      sync.RWMutex
	epoch   int
	changes [3][]string // changed, removed, added by the last Advance

	byHost map[string]*site
	base   time.Time // newest Last-Modified of any page

	flaky   atomic.Int64
	busy    atomic.Int64
	session atomic.Uint64

	logMu    sync.Mutex
	log      []Request
	logStart int // absolute index of log[0]
	logGen   int // incremented by ResetRequests

	bufs sync.Pool // *bytes.Buffer

	lazyMu sync.Mutex
	lazy   map[string][]byte // precomputed bodies built on first use
	bombs  *bombStream
}

// SiteInfo describes one site (one origin) of the web.
type SiteInfo struct {
	Origin   string // "http://www.northfield-university.test"
	Host     string // "www.northfield-university.test"
	Kind     string // "university", "journal", "lab", "shop", "news", "blog", "faults", "mirror"
	Academic bool   // an academic site (university, journal, lab)
	Robots   string // what its robots.txt is: "agent-groups", "crawl-delay", "404", "500", "redirect", "huge", "allow-all", "disallow-paths"
	Notes    string // what the site exercises, for people reading test output
	Pages    int    // number of enumerable pages (see Web.Pages)
}

// PageInfo is the ground truth about one URL of the web.
type PageInfo struct {
	// URL is the page's own URL: the URL looked up, normalized as Lookup
	// does, without tracking parameters or session ids and with query
	// parameters in order. Every spelling of one page gives one URL.
	URL string
	// Kind is what the URL is: "home", "page", "listing", "publication",
	// "person", "research", "news", "event", "post", "product", "login",
	// "trap", "duplicate" (same content as Canonical, another template),
	// "alias" (another URL for Canonical), "redirect", "fault", "blocked"
	// (a soft block), "asset", "pdf", "robots", "sitemap", "feed", "file".
	// A URL that only spells another page differently (session id,
	// tracking parameters, parameter order) has that page's Kind.
	Kind string
	// Academic marks research content: publications, theses, person and
	// research pages, publication listings, PDFs (and their duplicates).
	Academic bool
	// Status is the status a patient client ends with (the first answer of
	// a redirect; 200 for /flaky and /busy).
	Status int
	Title  string
	// Canonical is the URL of the primary copy of the content: the URL
	// itself for primary pages, the main page for duplicates, aliases and
	// variants, the target for redirects.
	Canonical string
	// Disallowed reports that robots.txt forbids the URL for the product
	// token "acrawler" (as RFC 9309 reads it: the acrawler group replaces
	// "*", only the first 500 KiB count, a 5xx robots.txt forbids all).
	Disallowed  bool
	NoIndex     bool   // X-Robots-Tag or <meta name=robots> says noindex
	NoFollow    bool   // <meta name=robots> says nofollow
	Location    string // for redirects: the absolute target
	ContentType string // the Content-Type header as served ("" if none)
	Charset     string // the document's actual encoding for HTML ("utf-8", "windows-1254", "iso-8859-9")
	Citation    *Citation
	Note        string // what the URL does when it is not an ordinary page
}

// Citation is the bibliographic ground truth of a publication page, as its
// citation_* meta tags state it.
type Citation struct {
	Title   string
	Authors []string // "First Last", in order
	Date    string   // YYYY-MM-DD
	Venue   string
	DOI     string
	PDF     string // absolute URL of the PDF, "" if none
}

// Request is one request the web served.
type Request struct {
	Time      time.Time
	Host      string // normalized: lower case, no port
	Path      string // path?query as received
	Method    string
	UserAgent string
	Status    int   // 0 while the response is still being written
	Bytes     int64 // body bytes written
	Proxy     bool  // the request came in proxy form (absolute URI)
}

// New builds the web described by cfg.
func New(cfg Config) *Web {
	if cfg.PagesPerSite <= 0 {
		cfg.PagesPerSite = defaultPagesPerSite
	}
	if cfg.Slow <= 0 {
		cfg.Slow = defaultSlow
	}
	if cfg.LogLimit <= 0 {
		cfg.LogLimit = defaultLogLimit
	}
	if cfg.Sites < 0 {
		cfg.Sites = 0
	}
	w := &Web{
		cfg:    cfg,
		seed:   mix(uint64(cfg.Seed) ^ 0x5eed_7e57_3eb0_0001),
		byHost: make(map[string]*site),
		lazy:   make(map[string][]byte),
	}
	// The newest Last-Modified: a fixed instant in 2025 that depends on the
	// seed only.
	w.base = time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC).
		Add(time.Duration(w.seed%(200*24*3600)) * time.Second)
	if cfg.Varied {
		w.buildVaried()
		return w
	}
	w.buildFixed()
	for i := 1; i <= cfg.Sites; i++ {
		w.buildGenerated(i)
	}
	return w
}

func (w *Web) addSite(s *site) {
	if w.byHost[s.host] != nil {
		panic("testweb: duplicate host " + s.host)
	}
	w.sites = append(w.sites, s)
	w.byHost[s.host] = s
}

// Seeds returns the home page of every site, e.g.
// "http://www.northfield-university.test/"; of a varied web, those of its
// universities and blogs only.
func (w *Web) Seeds() []string {
	out := make([]string, 0, len(w.sites))
	for _, s := range w.sites {
		if !w.cfg.Varied || s.seed {
			out = append(out, s.origin+"/")
		}
	}
	return out
}

// Sites describes every site, fixed ones first.
func (w *Web) Sites() []SiteInfo {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]SiteInfo, len(w.sites))
	for i, s := range w.sites {
		n := 0
		for _, p := range s.order {
			if !p.dead() && !p.hidden {
				n++
			}
		}
		out[i] = SiteInfo{
			Origin:   s.origin,
			Host:     s.host,
			Kind:     s.kind,
			Academic: s.academic,
			Robots:   s.robots.kind,
			Notes:    s.notes,
			Pages:    n,
		}
	}
	return out
}

// Requests returns a copy of the request log in arrival order.
func (w *Web) Requests() []Request {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	out := make([]Request, len(w.log))
	copy(out, w.log)
	return out
}

// ResetRequests empties the request log. Responses still being written when
// it is called are not logged. The counters behind /flaky and /busy are not
// reset.
func (w *Web) ResetRequests() {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	w.log = nil
	w.logStart = 0
	w.logGen++
}

// logBegin records an arriving request and returns the handle logEnd needs.
func (w *Web) logBegin(req Request) (gen, idx int) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	if len(w.log) >= w.cfg.LogLimit {
		drop := len(w.log) / 2
		if drop == 0 {
			drop = len(w.log)
		}
		n := copy(w.log, w.log[drop:])
		clear(w.log[n:])
		w.log = w.log[:n]
		w.logStart += drop
	}
	w.log = append(w.log, req)
	return w.logGen, w.logStart + len(w.log) - 1
}

// logSet records the status and body size of a logged request.
func (w *Web) logSet(gen, idx, status int, n int64) {
	w.logMu.Lock()
	defer w.logMu.Unlock()
	i := idx - w.logStart
	if gen != w.logGen || i < 0 || i >= len(w.log) {
		return
	}
	w.log[i].Status = status
	w.log[i].Bytes = n
}

// lazyBody returns the body cached under key, building it on first use.
func (w *Web) lazyBody(key string, build func() []byte) []byte {
	w.lazyMu.Lock()
	defer w.lazyMu.Unlock()
	if b, ok := w.lazy[key]; ok {
		return b
	}
	b := build()
	w.lazy[key] = b
	return b
}

// sortedHosts returns the hosts in name order (for the unknown-host page).
func (w *Web) sortedHosts() []*site {
	out := append([]*site(nil), w.sites...)
	sort.Slice(out, func(i, j int) bool { return out[i].host < out[j].host })
	return out
}

var _ http.Handler = (*Web)(nil)
