package testweb

import (
	"iter"
	"net/http"
	"sort"
	"strings"
	"time"
)

// A site is one origin of the web: its pages, its robots.txt and the
// furniture (navigation, footer) its templates share.
type site struct {
	w        *Web
	host     string
	origin   string // "http://" + host
	slug     string // host as a path segment
	name     string // display name
	kind     string
	academic bool
	seed     bool // a crawl of a varied web starts here (Seeds)
	notes    string
	lang     string // "en" or "tr"
	text     *vocab
	robots   *robotsFile

	pages map[string]*page // by key
	order []*page          // enumerable pages in build order

	// dynamic answers the URL spaces that cannot be enumerated (traps);
	// path has no session id, q no tracking parameters and is sorted.
	dynamic func(s *site, path string, q []param) *page

	nav    []navLink
	footer []navLink

	canonicalTags bool // every HTML page carries <link rel="canonical">
	tracking      bool // some internal links carry tracking parameters
	session       bool // every internal link carries a session id

	home    *page
	pubs    []*page
	people  []*page
	stories []*page
	extra   []*page // more pages to link from home and footers

	// Lists that grow as the web advances: pages born in later epochs are
	// appended to pubs, stories and sitemaps, so that the pages born by
	// epoch v are a prefix of each list (see visible).
	feeds    []feed        // where new pages appear (Advance)
	sitemaps []*[]*page    // the lists behind the site's sitemaps
	decorate func(p *page) // sets per-site page attributes on new pages (charsets)
}

type navLink struct {
	label string
	href  string
	rel   string
}

// A page is one URL of a site with what is needed to generate it.
type page struct {
	key      string // decoded path without dot segments, then "?" and the raw query if any
	kind     string
	academic bool
	status   int
	title    string
	canon    *page // primary copy (duplicates, aliases); nil: the page itself
	// canonSite is the site of canon when it is another's (a mirror's
	// copies); nil: this page's site.
	canonSite *site
	ctype     string // Content-Type; "" means HTML in the page's charset
	note      string
	loc       string // redirect Location as sent (absolute or relative)

	// render writes the body; serve, when set, handles the request itself
	// (redirects, faults, streams) and render is not used.
	render func(d *doc)
	serve  func(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request)

	xRobots    string // X-Robots-Tag header
	metaRobots string // <meta name="robots"> content
	charset    string // "" (utf-8) or "windows-1254", "iso-8859-9"
	declare    declMode
	hidden     bool // served and known to Lookup but not listed by Pages (variants of listings)

	pub    *pubData
	person *personData
	story  *storyData
	items  []*page // listing entries, related pages
	series []*page // listing: every page of the series, page 1 first
	num    int     // listing: page number (1-based); calendar: month index
	total  int     // listing: number of listing pages
	base   string  // listing: key of page 1
	parent *page   // the page this one belongs to (department, section, issue)
	label  string  // HTML for templates (sort links, calendar link)
	// baseHref is the page's <base href>; links written with aBase are
	// relative to it.
	baseHref string
	cat      catalogState
	refs     []navLink // absolute links a post cites (varied webs)

	// History (see Advance). A page is born in some epoch (0 for pages
	// New builds), takes a new version in each epoch it changes, and may
	// be removed (gone) in a later one, answering tomb from then on.
	born    int
	version int   // epoch of the current content; seeds the page and its Last-Modified
	gone    int   // epoch of removal; 0 while the page is on the web
	tomb    *page // the 404 or 410 page served once gone
	pinned  bool  // linked by fixed hrefs (navigation, hand-written links): never removed
}

// declMode says how an HTML page declares its charset.
type declMode int8

const (
	declHeader    declMode = iota // Content-Type header and <meta charset>
	declMeta                      // only <meta charset>
	declHTTPEquiv                 // only <meta http-equiv="Content-Type">
	declBOM                       // UTF-8 with a byte order mark, nothing else
)

type pubData struct {
	title       string
	authors     []author
	year        int
	month       int
	day         int
	venue       string
	venueKind   string // "journal", "conference", "thesis", "report"
	volume      int
	issue       int
	first       int
	last        int
	doi         string
	keywords    []string
	keywordList string // keywords joined by "; "
	publisher   string
	lang        string
	textSeed    uint64 // seeds the abstract and body, shared by every copy
	main        *page
	pdf         *page
	print       *page
	alias       *page
	mirror      *page
	extURL      string // a copy of this publication elsewhere on the web
	ext         *page  // the page at extURL
	rev         int    // epoch of the current text (abstract, body, PDF)
	// of is the published paper this record is a copy or version of (a
	// library's or repository's deposit, a preprint); nil for a paper of
	// its own. Papers follows it.
	of       *pubData
	preprint *preprint // the preprint server's record, for its pages
}

type author struct {
	name   string // "First Last"
	first  string
	last   string
	person *page // nil for authors without a page on this site
}

type personData struct {
	first     string
	last      string
	role      string
	dept      *page
	email     string
	orcid     string
	phone     string
	interests []string
	pubs      []*page
}

type storyData struct {
	year, month, day int
	byline           string
	tags             []string
}

type param struct{ name, value string } // raw, still percent-encoded

func newSite(w *Web, host, name, kind string, academic bool) *site {
	s := &site{
		w:        w,
		host:     host,
		origin:   "http://" + host,
		slug:     slugify(host, 10),
		name:     name,
		kind:     kind,
		academic: academic,
		lang:     "en",
		text:     enAcademic,
		pages:    make(map[string]*page),
	}
	return s
}

// add registers p as an enumerable page of s.
func (s *site) add(p *page) *page {
	if s.pages[p.key] != nil {
		panic("testweb: duplicate page " + s.host + p.key)
	}
	if p.status == 0 {
		p.status = http.StatusOK
	}
	s.pages[p.key] = p
	s.order = append(s.order, p)
	return p
}

// url returns the absolute URL of key on s.
func (s *site) url(key string) string { return s.origin + key }

// buildRNG returns the generator for building part of s.
func (s *site) buildRNG(part string) rng { return seedFor(s.w.seed, s.host, "build:"+part, 0) }

// epochLength is the time between two states of the web: Advance moves
// the web's clock on by a day.
const epochLength = 24 * time.Hour

// lastModified is the Last-Modified of p's current version. Pages unchanged
// since New date from up to 400 days before the web's base date, by a hash
// of the page; a page that changed in epoch v dates from v days after the
// base date, plus up to 20 hours by a hash of the page, so that every
// version is newer than the one before.
func (s *site) lastModified(p *page) time.Time {
	h := mix(fnvString(fnvString(fnvOffset, s.host), p.key) ^ s.w.seed)
	if p.version == 0 {
		return s.w.base.Add(-time.Duration(h%(400*24*3600)) * time.Second)
	}
	h = mix(h ^ uint64(p.version)*0x9e3779b97f4a7c15)
	return s.w.base.Add(time.Duration(p.version)*epochLength + time.Duration(h%(20*3600))*time.Second)
}

// dead reports that p has been removed from the web.
func (p *page) dead() bool { return p.gone != 0 }

// visible returns the members of list born by epoch v. Pages born later
// are appended to lists, so they form a suffix; random picks from the
// prefix stay the same when pages are added.
func visible(list []*page, v int) []*page {
	n := len(list)
	for n > 0 && list[n-1].born > v {
		n--
	}
	return list[:n]
}

// core returns the first half of the pages of list that New built: the
// pages the random links of the site (related pages, featured
// publications) point to. Only pages outside the core may be removed, so
// that a removal changes the few pages that list the removed one, not
// every page that happened to pick it; pages added later are outside too.
func core(list []*page) []*page {
	n := len(visible(list, 0))
	return list[:(n+1)/2]
}

// newestFirst iterates over the living pages of list: those added as the
// web advanced first, newest first, then the others in list order.
func newestFirst(list []*page) iter.Seq[*page] {
	return func(yield func(*page) bool) {
		n := len(list)
		for n > 0 && list[n-1].born > 0 {
			n--
		}
		for i := len(list) - 1; i >= n; i-- {
			if !list[i].dead() && !yield(list[i]) {
				return
			}
		}
		for _, p := range list[:n] {
			if !p.dead() && !yield(p) {
				return
			}
		}
	}
}

// resolve finds the page at a decoded, dot-free path and a raw query
// (removed pages included). The caller holds w.mu.
// variant reports that the URL spells the page's own URL differently
// (session id, tracking parameters, parameter order).
func (s *site) resolve(path, rawQuery string) (p *page, variant bool) {
	key := path
	if rawQuery != "" {
		key = path + "?" + rawQuery
	}
	if p := s.pages[key]; p != nil {
		return p, false
	}
	cpath := stripPathSession(path)
	q := cleanQuery(parseQuery(rawQuery))
	ckey := cpath
	if len(q) > 0 {
		ckey = cpath + "?" + encodeQuery(q)
	}
	if ckey != key {
		if p := s.pages[ckey]; p != nil {
			return p, true
		}
	}
	if s.dynamic != nil {
		if p := s.dynamic(s, cpath, q); p != nil {
			if p.status == 0 {
				p.status = http.StatusOK
			}
			p.key = ckey
			p.hidden = true
			// Endless URL spaces are generated anew in every epoch.
			p.version = s.w.epoch
			return p, ckey != key
		}
	}
	return nil, false
}

// parseQuery splits a raw query into raw name/value pairs, in order.
func parseQuery(raw string) []param {
	if raw == "" {
		return nil
	}
	var out []param
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		if kv == "" {
			continue
		}
		name, value, _ := strings.Cut(kv, "=")
		out = append(out, param{name, value})
	}
	return out
}

func encodeQuery(q []param) string {
	var b strings.Builder
	for i, p := range q {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.name)
		b.WriteByte('=')
		b.WriteString(p.value)
	}
	return b.String()
}

// trackingParam reports parameters that servers ignore: analytics tags and
// session ids.
func trackingParam(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "utm_") || n == "fbclid" || n == "gclid" || n == "mc_cid" ||
		n == "mc_eid" || n == "phpsessid" || n == "jsessionid" || n == "sid" || n == "ref"
}

// cleanQuery drops tracking parameters and sorts the rest by name, keeping
// the order of repeated names.
func cleanQuery(q []param) []param {
	out := q[:0:0]
	for _, p := range q {
		if !trackingParam(p.name) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// stripPathSession removes ";jsessionid=..." path parameters.
func stripPathSession(path string) string {
	for {
		i := strings.Index(strings.ToLower(path), ";jsessionid=")
		if i < 0 {
			return path
		}
		j := strings.IndexByte(path[i:], '/')
		if j < 0 {
			path = path[:i]
		} else {
			path = path[:i] + path[i+j:]
		}
	}
}

// cleanPath removes dot segments (RFC 3986, section 5.2.4) and makes an
// empty path "/". Repeated slashes are kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.Contains(p, "/.") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, sg := range segs {
		last := i == len(segs)-1
		switch sg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, sg)
		}
	}
	r := strings.Join(out, "/")
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}
