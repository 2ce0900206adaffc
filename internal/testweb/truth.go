package testweb

import (
	"net/url"
	"strings"
)

// Lookup returns the ground truth for rawURL, or false when the URL is not
// on the web (unknown host, other scheme or port, a path no page has).
// Disallowed is computed for rawURL as given (tracking parameters
// included); the other fields describe the page.
// The URL is normalized lightly: the host is lower-cased, a default port
// and the fragment are dropped, dot segments are removed and the path is
// compared percent-decoded; the query is compared as given, except that
// tracking parameters and session ids are ignored and parameter order does
// not matter (as on the servers of the web). Session ids in the path
// (";jsessionid=") are ignored too.
// A page removed by Advance is still found: its Status is then 404 or 410,
// its Kind what it was and its Note says when it went.
func (w *Web) Lookup(rawURL string) (PageInfo, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || u.Opaque != "" || u.User != nil {
		return PageInfo{}, false
	}
	host, port := splitHostPort(u.Host)
	if port != "" && port != "80" {
		return PageInfo{}, false
	}
	s := w.byHost[host]
	if s == nil {
		return PageInfo{}, false
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	p, _ := s.resolve(cleanPath(u.Path), u.RawQuery)
	if p == nil {
		return PageInfo{}, false
	}
	target := cleanPath(u.EscapedPath())
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	info := s.info(p)
	info.URL = s.origin + escapeKey(p.key)
	info.Disallowed = s.robots.disallowed(target)
	return info, true
}

// Pages returns the ground truth for every enumerable URL of the web, site
// by site: pages, duplicates, aliases, redirects, faults, assets, robots
// and sitemaps, and the entry URL of each trap, but not the endless URLs
// inside traps nor other spellings of a page (session ids, tracking
// parameters). It describes the current epoch: pages removed by Advance
// are left out, pages it added come after the others of their site.
func (w *Web) Pages() []PageInfo {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var out []PageInfo
	for _, s := range w.sites {
		for _, p := range s.order {
			if p.hidden || p.dead() {
				continue
			}
			info := s.info(p)
			target := escapeKey(p.key)
			info.URL = s.origin + target
			info.Disallowed = s.robots.disallowed(target)
			out = append(out, info)
		}
	}
	return out
}

// info is the ground truth of p without the URL-dependent fields.
func (s *site) info(p *page) PageInfo {
	if p.dead() {
		t := p.tomb
		return PageInfo{
			Kind:        p.kind,
			Status:      t.status,
			Title:       t.title,
			Canonical:   s.origin + escapeKey(p.key),
			ContentType: t.contentType(),
			Charset:     "utf-8",
			Note:        t.note,
		}
	}
	canon, origin := p.key, s.origin
	if p.canon != nil {
		canon = p.canon.key
	}
	if p.canonSite != nil {
		origin = p.canonSite.origin
	}
	info := PageInfo{
		Kind:        p.kind,
		Academic:    p.academic,
		Status:      p.status,
		Title:       p.title,
		Canonical:   origin + escapeKey(canon),
		NoIndex:     strings.Contains(p.xRobots, "noindex") || strings.Contains(p.metaRobots, "noindex"),
		NoFollow:    strings.Contains(p.metaRobots, "nofollow"),
		ContentType: p.contentType(),
		Note:        p.note,
	}
	if p.serve == nil && p.ctype == "" {
		info.Charset = "utf-8"
		if p.charset != "" {
			info.Charset = p.charset
		}
	}
	if p.loc != "" {
		base, _ := url.Parse(s.url(escapeKey(p.key)))
		if ref, err := url.Parse(p.loc); err == nil && base != nil {
			info.Location = base.ResolveReference(ref).String()
			info.Canonical = info.Location
		}
	}
	if pb := p.pub; pb != nil && (p == pb.main || p == pb.mirror) {
		c := &Citation{
			Title: pb.title,
			Date:  pad4(pb.year) + "-" + pad2(pb.month) + "-" + pad2(pb.day),
			Venue: pb.venue,
			DOI:   pb.doi,
		}
		for _, a := range pb.authors {
			c.Authors = append(c.Authors, a.name)
		}
		if pb.pdf != nil {
			c.PDF = s.url(escapeKey(pb.pdf.key))
		}
		info.Citation = c
	}
	return info
}

// contentType is the Content-Type header p is served with.
func (p *page) contentType() string {
	if p.serve != nil || p.ctype != "" {
		return p.ctype
	}
	switch {
	case p.charset != "" && p.declare == declHeader:
		return "text/html; charset=" + p.charset
	case p.charset != "" || p.declare == declBOM:
		return "text/html"
	}
	return "text/html; charset=utf-8"
}

// escapeKey percent-encodes the path of a key (keys hold decoded paths).
func escapeKey(key string) string {
	path, query, hasQuery := strings.Cut(key, "?")
	for i := 0; i < len(path); i++ {
		if path[i] >= 0x80 || path[i] == ' ' {
			path = (&url.URL{Path: path}).EscapedPath()
			break
		}
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}
