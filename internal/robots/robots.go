// Package robots parses robots.txt files and answers whether a crawler may
// fetch a path, following RFC 9309 and, where the RFC leaves room, Google's
// documented behaviour.
//
// The package is a pure leaf: it takes bytes and values and returns values,
// does no I/O and keeps no global state. A *Robots and a *Group are immutable
// and safe for concurrent use.
//
// Typical use, once per host:
//
//	r := robots.FromStatus(status, body)
//	g := r.Group(robots.ProductToken(userAgent))
//
// then g.Allowed(pathQuery) for every URL of that host.
//
// Decisions where the RFC leaves room or implementations differ:
//
//   - Field names are matched whole and case-insensitively: "user-agent",
//     "allow", "disallow", "crawl-delay", "sitemap". Misspellings that Google
//     accepts ("useragent", "disalow", ...) are ignored, and so are lines
//     without a colon ("Disallow /x"). A line that is not understood never
//     changes how the other lines are read.
//   - A user-agent line names the product token of its value: its leading run
//     of HTTP token characters, lowercased ("Googlebot/2.1" names
//     "googlebot"). Matching is exact, never by prefix: "acrawl" and
//     "acrawler-news" do not select "acrawler".
//   - Crawl-delay is a group member like allow and disallow: it ends a run of
//     user-agent lines. Sitemap lines and unknown fields do not.
//   - A pattern that starts with neither '/' nor '*' ("fish/", a full URL)
//     is ignored: RFC 9309's grammar has paths start with '/', and Google's
//     parser lets such a pattern match nothing. Adding the slash, as Google
//     once documented, would turn "Disallow: /" with "Allow: private" into
//     a permission for /private.
//   - Paths and patterns are compared in one canonical percent-encoding:
//     "%xx" escapes of unreserved characters are decoded, other escapes get
//     uppercase hex, and bytes that cannot appear raw in a URL (controls,
//     space, non-ASCII, "<>{}|\^`) are escaped; so are a path's '*' and '$',
//     which a pattern can only name escaped (RFC 9309 2.2.3). The length that
//     decides between rules is the length of the canonical pattern, '*' and
//     '$' included, as Google counts it.
//   - FromStatus treats 429 like 5xx (unreachable), as Google does, rather
//     than like the other 4xx (unavailable: allow everything): a server that
//     asks us to slow down has not told us that everything is allowed.
package robots

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxSize is the number of bytes of a robots.txt that are parsed (RFC 9309:
// at least 500 KiB).
const MaxSize = 500 << 10

// MaxSitemaps bounds the number of Sitemap URLs kept from one file.
const MaxSitemaps = 1000

// MaxCrawlDelay caps the delay reported by Group.CrawlDelay: a larger
// Crawl-delay is read as this one.
const MaxCrawlDelay = 24 * time.Hour

// Robots is a parsed robots.txt, or the policy that stands in for one when
// it could not be fetched. The zero value allows everything.
type Robots struct {
	groups      []group
	sitemaps    []string
	disallowAll bool
	unreachable bool
}

// group is one group as written in the file: the agents named by its
// user-agent lines and the members that follow them.
type group struct {
	agents   []string // lowercase product tokens, "*" excluded; may repeat
	global   bool     // one of the user-agent lines is "*"
	rules    []rule
	delay    time.Duration
	hasDelay bool
}

// Group is the set of rules that applies to one crawler: the merged groups
// that name its product token, or else the merged "*" groups.
type Group struct {
	rules    []rule // by decreasing length, allow before disallow on ties
	delay    time.Duration
	hasDelay bool
}

// AllowAll returns a Robots that allows every path, as for a missing
// robots.txt.
func AllowAll() *Robots { return &Robots{} }

// DisallowAll returns a Robots that disallows every path but /robots.txt.
func DisallowAll() *Robots { return &Robots{disallowAll: true} }

// FromStatus applies RFC 9309's status semantics (section 2.3.1) to the
// outcome of fetching a robots.txt:
//
//   - 2xx: the body is parsed.
//   - 3xx, and 4xx other than 429: "unavailable", everything is allowed.
//     The caller follows at least five redirects, so a 3xx that reaches
//     here means they led to no file (more of them, a loop, a target that
//     cannot be fetched), which RFC 9309 2.3.1.2 lets us read as
//     unavailable.
//   - 429, 5xx, status 0 (no response: network error, timeout) and anything
//     else: "unreachable", everything is disallowed and Unreachable reports
//     true, so that the caller retries later.
func FromStatus(status int, body []byte) *Robots {
	switch {
	case status >= 200 && status <= 299:
		return Parse(body)
	case status == 429:
	case status >= 300 && status <= 499:
		return AllowAll()
	}
	return &Robots{disallowAll: true, unreachable: true}
}

// Unreachable reports whether r stands in for a robots.txt that could not be
// fetched (FromStatus with 429, 5xx, status 0 or a status outside
// 200-599): everything is disallowed and the caller should fetch robots.txt
// again later.
func (r *Robots) Unreachable() bool { return r.unreachable }

// Sitemaps returns the values of the file's Sitemap lines, wherever they
// stand, in order and without duplicates, at most MaxSitemaps of them. They
// are returned as written: RFC 9309 asks for absolute URLs, but the caller
// has to resolve and check them.
func (r *Robots) Sitemaps() []string { return slices.Clone(r.sitemaps) }

// Group returns the rules that apply to the crawler whose product token is
// given (a whole User-Agent string is reduced with ProductToken). These are
// the rules of every group that names the token, merged; if no group names
// it, those of every "*" group, merged; if there is none either, no rules:
// everything is allowed. Compute it once per host, then match many paths.
func (r *Robots) Group(token string) *Group {
	if r.disallowAll {
		return &Group{rules: []rule{disallowRoot}}
	}
	token = ProductToken(token)
	var chosen []*group
	if token != "" && token != "*" {
		for i := range r.groups {
			if slices.Contains(r.groups[i].agents, token) {
				chosen = append(chosen, &r.groups[i])
			}
		}
	}
	if chosen == nil {
		for i := range r.groups {
			if r.groups[i].global {
				chosen = append(chosen, &r.groups[i])
			}
		}
	}
	g := &Group{}
	for _, c := range chosen {
		if c.hasDelay && (!g.hasDelay || c.delay > g.delay) {
			g.delay, g.hasDelay = c.delay, true
		}
	}
	if len(chosen) == 1 {
		g.rules = chosen[0].rules // sorted by Parse, shared read-only
		return g
	}
	for _, c := range chosen {
		g.rules = append(g.rules, c.rules...)
	}
	sortRules(g.rules)
	return g
}

// Allowed reports whether the path may be fetched. pathQuery is the path and
// query of a URL ("/path?query", percent-encoded as in a normalized URL); a
// fragment is ignored, and an empty path is read as "/". The longest
// matching rule decides, Allow winning a tie; when no rule matches the path
// is allowed. /robots.txt is always allowed.
func (g *Group) Allowed(pathQuery string) bool {
	if i := strings.IndexByte(pathQuery, '#'); i >= 0 {
		pathQuery = pathQuery[:i]
	}
	if !strings.HasPrefix(pathQuery, "/") {
		pathQuery = "/" + pathQuery
	}
	p := canonical(pathQuery)
	if p == "/robots.txt" || strings.HasPrefix(p, "/robots.txt?") {
		return true
	}
	for i := range g.rules {
		if g.rules[i].match(p) {
			return g.rules[i].allow
		}
	}
	return true
}

// CrawlDelay returns the Crawl-delay of the group, if it has one. Fractional
// seconds are accepted ("0.5"); negative or malformed values are ignored and
// values above MaxCrawlDelay are capped. When merged groups give several
// delays, the longest is returned.
func (g *Group) CrawlDelay() (time.Duration, bool) { return g.delay, g.hasDelay }

// ProductToken returns the product token of a User-Agent string, lowercased:
// its leading run of HTTP token characters (RFC 9110 tchar), after leading
// whitespace. "acrawler/0.1 (+https://x)" gives "acrawler"; "*" gives "*".
func ProductToken(userAgent string) string {
	s := strings.TrimLeft(userAgent, " \t")
	end := 0
	for end < len(s) && isTchar(s[end]) {
		end++
	}
	return strings.ToLower(s[:end])
}

// isTchar reports whether c may appear in an HTTP token (RFC 9110 5.6.2).
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Parse parses a robots.txt body. Only the first MaxSize bytes are
// considered, and a line cut at that boundary is dropped. A UTF-8 byte order
// mark at the start is skipped; lines end with CR, LF or CRLF; '#' starts a
// comment anywhere. Parse never fails: lines it does not understand are
// ignored.
func Parse(body []byte) *Robots {
	body = truncate(body)
	if len(body) >= 3 && body[0] == 0xef && body[1] == 0xbb && body[2] == 0xbf {
		body = body[3:]
	}
	r := &Robots{}
	var seen map[string]bool // sitemaps already kept
	cur := -1                // index of the group being read, -1 before any
	inAgents := false        // the last group line was a user-agent line
	for len(body) > 0 {
		var line []byte
		line, body = nextLine(body)
		key, value, ok := splitLine(line)
		if !ok {
			continue
		}
		switch {
		case fieldIs(key, "user-agent"):
			if !inAgents {
				r.groups = append(r.groups, group{})
				cur = len(r.groups) - 1
				inAgents = true
			}
			g := &r.groups[cur]
			switch tok := ProductToken(string(value)); tok {
			case "":
			case "*":
				g.global = true
			default:
				// Not deduplicated: a repeated token changes nothing, and
				// searching the group's agents on every line made a file
				// of many agents take quadratic time.
				g.agents = append(g.agents, tok)
			}
		case fieldIs(key, "allow"), fieldIs(key, "disallow"):
			if cur < 0 {
				continue // rules before any user-agent line belong to no group
			}
			inAgents = false
			if ru, ok := compile(string(value), fieldIs(key, "allow")); ok {
				r.groups[cur].rules = append(r.groups[cur].rules, ru)
			}
		case fieldIs(key, "crawl-delay"):
			if cur < 0 {
				continue
			}
			inAgents = false
			g := &r.groups[cur]
			if d, ok := parseDelay(value); ok && (!g.hasDelay || d > g.delay) {
				g.delay, g.hasDelay = d, true
			}
		case fieldIs(key, "sitemap"):
			if len(value) == 0 || len(r.sitemaps) >= MaxSitemaps {
				continue
			}
			u := string(value)
			if seen == nil {
				seen = make(map[string]bool)
			}
			if !seen[u] {
				seen[u] = true
				r.sitemaps = append(r.sitemaps, u)
			}
		}
	}
	for i := range r.groups {
		sortRules(r.groups[i].rules)
	}
	return r
}

// sortRules puts rules in the order Allowed tries them: longest first,
// allow before disallow when equally long. Rules that tie on both keys give
// the same answer, so their order does not matter.
func sortRules(rules []rule) {
	slices.SortFunc(rules, func(a, b rule) int {
		if a.length != b.length {
			return b.length - a.length
		}
		switch {
		case a.allow == b.allow:
			return 0
		case a.allow:
			return -1
		}
		return 1
	})
}

// truncate returns the first MaxSize bytes of body, without the line that
// the limit cuts, if any.
func truncate(body []byte) []byte {
	if len(body) <= MaxSize {
		return body
	}
	if c := body[MaxSize]; c == '\n' || c == '\r' {
		return body[:MaxSize]
	}
	body = body[:MaxSize]
	for i := len(body) - 1; i >= 0; i-- {
		if c := body[i]; c == '\n' || c == '\r' {
			return body[:i+1]
		}
	}
	return nil
}

// nextLine splits off the first line of b, ended by CR, LF or CRLF.
func nextLine(b []byte) (line, rest []byte) {
	for i, c := range b {
		switch c {
		case '\n':
			return b[:i], b[i+1:]
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				return b[:i], b[i+2:]
			}
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

// splitLine returns the field name and value of a "name: value" line, both
// trimmed, with any comment removed. ok is false when there is no colon.
func splitLine(line []byte) (key, value []byte, ok bool) {
	for i, c := range line {
		if c == '#' {
			line = line[:i]
			break
		}
	}
	for i, c := range line {
		if c == ':' {
			return trim(line[:i]), trim(line[i+1:]), true
		}
	}
	return nil, nil, false
}

// trim removes leading and trailing ASCII whitespace.
func trim(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

// fieldIs reports whether key is the field name want (lowercase ASCII),
// compared case-insensitively.
func fieldIs(key []byte, want string) bool {
	if len(key) != len(want) {
		return false
	}
	for i := range len(key) {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != want[i] {
			return false
		}
	}
	return true
}

// parseDelay parses a Crawl-delay value in seconds: digits with an optional
// fraction ("10", "0.5", ".5", "2."). Anything else is rejected, including
// signs, exponents, "NaN" and "Inf". Values above MaxCrawlDelay are capped.
func parseDelay(v []byte) (time.Duration, bool) {
	digits, dots := 0, 0
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return 0, false
		}
	}
	if digits == 0 || dots > 1 {
		return 0, false
	}
	// The syntax is checked, so the only possible error is a value too large
	// for a float64, which is returned as +Inf and capped below.
	f, _ := strconv.ParseFloat(string(v), 64)
	if f >= MaxCrawlDelay.Seconds() {
		return MaxCrawlDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}
