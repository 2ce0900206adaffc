// Package scope decides which normalized URLs a crawl may admit: the
// registrable domains or hosts of its seeds, minus exclusion patterns and
// over-long URLs.
package scope

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/acrawler/acrawler/internal/urlnorm"
)

// Mode is how far a crawl may wander from its seeds.
type Mode string

// Scope modes.
const (
	Domain Mode = "domain" // the registrable domains (eTLD+1) of the seeds
	Host   Mode = "host"   // the exact hosts of the seeds
	Any    Mode = "any"    // anywhere
)

// ParseMode validates a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case Domain, Host, Any:
		return m, nil
	}
	return "", fmt.Errorf("scope: unknown scope %q (want domain, host or any)", s)
}

// DefaultExcludes are the patterns excluded unless the user replaces them:
// calendars, faceted-navigation explosions, session ids and files a text
// crawler has no use for. They are matched against the normalized URL.
//
// A lone year= is not a calendar (publication lists and archives by year
// use it; a calendar's month and day parameters or its path give it away),
// and view= is not a facet (Joomla names every article page
// index.php?option=com_content&view=article&id=N).
var DefaultExcludes = []string{
	`(?i)/(calendar|events/(calendar|month|week|day)|kalender|takvim)(/|\?|$)`,
	`(?i)[?&](month|date|day|week|tribe-bar-date)=\d`,
	`(?i)[?&](sort|order|orderby|sortby|filter|facet|display|limit)=`,
	`(?i)[?&;](jsessionid|phpsessid|sid|sessionid|session_id|cfid|cftoken)=`,
	`(?i)/(login|logout|signin|signout|register|cart|checkout|basket|wp-admin|wp-login\.php)(/|\?|$)`,
	`(?i)\.(jpe?g|png|gif|bmp|ico|svg|webp|tiff?|css|js|mjs|json|woff2?|ttf|eot|otf|mp3|mp4|m4a|avi|mov|mkv|webm|wav|flac|ogg|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|iso|apk|msi|bin|pkg|deb|rpm|ppt|pptx|xls|xlsx|doc|docx)(\?|$)`,
}

// Limits are the shape limits that keep URL traps out.
type Limits struct {
	MaxLength      int // bytes of the whole URL (0: no limit)
	MaxQueryParams int // query parameters (0: no limit)
	MaxRepeats     int // times one path segment may appear (/a/b/a/b/a/...; 0: no limit)
}

// DefaultLimits are the limits used unless configured otherwise.
var DefaultLimits = Limits{MaxLength: 2048, MaxQueryParams: 12, MaxRepeats: 3}

// Scope answers whether a URL is in scope. Check is safe for concurrent
// use; Allow is not, and must be done before the crawl starts.
type Scope struct {
	mode    Mode
	allowed map[string]bool // registrable domains or hosts, per mode
	exclude []exclusion
	lim     Limits
}

// exclusion is an exclusion pattern and, when it has one, the lead of
// its matches (newLead): it is run on a URL only where a match may begin.
type exclusion struct {
	re   *regexp.Regexp
	lead *lead
}

func newExclusion(pattern string) (exclusion, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return exclusion{}, fmt.Errorf("scope: exclude pattern %q: %w", pattern, err)
	}
	return exclusion{re: re, lead: newLead(pattern)}, nil
}

// matches reports whether x's pattern matches u.
func (x *exclusion) matches(u string) bool {
	return (x.lead == nil || x.lead.mayMatch(u)) && x.re.MatchString(u)
}

// New builds a scope from the seeds' normalized URLs. Exclusion patterns
// are Go regular expressions, matched unanchored against the whole
// normalized URL (scheme, host, path and sorted query).
func New(mode Mode, seeds []string, excludes []string, lim Limits) (*Scope, error) {
	s := &Scope{mode: mode, allowed: map[string]bool{}, lim: lim}
	for _, u := range seeds {
		if k := s.key(u); k != "" {
			s.allowed[k] = true
		}
	}
	for _, e := range excludes {
		x, err := newExclusion(e)
		if err != nil {
			return nil, err
		}
		s.exclude = append(s.exclude, x)
	}
	return s, nil
}

func (s *Scope) key(u string) string {
	switch s.mode {
	case Domain:
		return urlnorm.RegistrableDomain(urlnorm.Hostname(u))
	case Host:
		return urlnorm.Hostname(u)
	}
	return ""
}

// Reason says why a URL is out of scope; "" means it is in.
type Reason string

// Reasons a URL is refused.
const (
	In          Reason = ""
	Outside     Reason = "outside scope"
	Excluded    Reason = "excluded by pattern"
	TooLong     Reason = "URL too long"
	TooManyArgs Reason = "too many query parameters"
	Repeating   Reason = "repeated path segments"
)

// Check tells whether a normalized URL is in scope and, if not, why.
func (s *Scope) Check(u string) Reason {
	if s.lim.MaxLength > 0 && len(u) > s.lim.MaxLength {
		return TooLong
	}
	if r := s.shape(u); r != In {
		return r
	}
	if s.mode != Any && !s.allowed[s.key(u)] {
		return Outside
	}
	for i := range s.exclude {
		if s.exclude[i].matches(u) {
			return Excluded
		}
	}
	return In
}

// Allow extends the scope to the domain or host of a URL (for seeds added
// later, such as the hosts of a resumed crawl). It must not run
// concurrently with Check.
func (s *Scope) Allow(u string) {
	if k := s.key(u); k != "" {
		s.allowed[k] = true
	}
}

// shape checks the query parameter count and repeated path segments.
func (s *Scope) shape(u string) Reason {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	path := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		path = rest[i:]
	} else {
		return In
	}
	query := ""
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	if s.lim.MaxQueryParams > 0 && query != "" && strings.Count(query, "&")+1 > s.lim.MaxQueryParams {
		return TooManyArgs
	}
	if s.lim.MaxRepeats > 0 && strings.Count(path, "/") > s.lim.MaxRepeats {
		// Count each segment; paths are short, a quadratic scan is cheap.
		segs := strings.Split(strings.Trim(path, "/"), "/")
		for i, a := range segs {
			if a == "" {
				continue
			}
			n := 1
			for _, b := range segs[i+1:] {
				if a == b {
					n++
				}
			}
			if n > s.lim.MaxRepeats {
				return Repeating
			}
		}
	}
	return In
}
