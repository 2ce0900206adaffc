package urlnorm

import (
	"strings"
	"sync"

	wurl "github.com/nlnwa/whatwg-url/url"
)

// Base is a parsed base URL for resolving the links of one page. It is
// immutable and safe for concurrent use.
type Base struct {
	n *Normalizer
	// The base as the WHATWG parser holds it, for the WHATWG path: parsed
	// when first needed, as most pages' links all take the fast path.
	url func() (*wurl.Url, error)
	// The base's parts as the WHATWG parser holds them, for the fast path.
	scheme string
	host   string
	port   int
	path   string // "/a/b/c"
	dir    string // path without its last segment and slash: "/a/b"
	query  string
}

// ParseBase parses base, the absolute http(s) URL that a page's links are
// resolved against: the page URL, or its <base href> already resolved
// against the page URL. Errors wrap ErrUnsupportedScheme or ErrInvalid; a
// page whose <base href> fails should fall back to the page URL, as
// browsers do.
func (n *Normalizer) ParseBase(base string) (*Base, error) {
	if len(base) > MaxLength {
		return nil, &Error{Op: "parse base", URL: base, Err: errTooLong}
	}
	b, err := n.parseBase(base)
	if err != nil {
		return nil, &Error{Op: "parse base", URL: base, Err: err}
	}
	return b, nil
}

func (n *Normalizer) parseBase(base string) (*Base, error) {
	switch sniffScheme(base) {
	case noScheme:
		return nil, errNotAbsolute
	case schemeOther:
		return nil, ErrUnsupportedScheme
	}
	parse := func() (*wurl.Url, error) {
		u, err := whatwg.Parse(base)
		if err != nil {
			return nil, invalid(err)
		}
		// The WHATWG parser sets search params lazily, in Clone too;
		// doing it now keeps resolving against u free of writes, hence
		// of data races.
		u.SearchParams()
		return u, nil
	}
	var url func() (*wurl.Url, error)
	p, ok := basePartsFast(base)
	if ok {
		url = sync.OnceValues(parse)
	} else {
		u, err := parse()
		if err != nil {
			return nil, err
		}
		if p, err = partsOf(u); err != nil {
			return nil, err
		}
		url = func() (*wurl.Url, error) { return u, nil }
	}
	// A base whose own host does not normalize gives no URL.
	if _, ok := appendHost(nil, p.host); !ok {
		return nil, errBadHost
	}
	return &Base{
		n:      n,
		url:    url,
		scheme: p.scheme,
		host:   p.host,
		port:   p.port,
		path:   p.dir,
		dir:    p.dir[:max(strings.LastIndexByte(p.dir, '/'), 0)],
		query:  p.query,
	}, nil
}

// basePartsFast returns the parts of base as partsOf has them from the
// WHATWG parser, for a base in the form the fast path handles whose path
// and query the WHATWG parser keeps as they are: no dot segment, no byte
// it percent-encodes, no default port. ok is false for any other base
// (FuzzParseBaseFast checks the two agree).
func basePartsFast(base string) (p parts, ok bool) {
	if k := sniffScheme(base); k != schemeHTTP && k != schemeHTTPS {
		return parts{}, false
	}
	in, clean := cleanPrefix(base)
	// A host's trailing dot is kept or not by the kind of host: left to
	// the WHATWG parser.
	if !clean || !parseAbsolute(&p, in) || strings.HasSuffix(p.host, ".") {
		return parts{}, false
	}
	if p.port == 80 && p.scheme == "http" || p.port == 443 && p.scheme == "https" {
		p.port = -1
	}
	p.host = strings.ToLower(p.host)
	for i := range len(p.ref) {
		switch p.ref[i] {
		case '"', '<', '>', '`', '{', '}':
			return parts{}, false
		}
	}
	for seg := range strings.SplitSeq(p.ref, "/") {
		if isDotSegment(seg) {
			return parts{}, false
		}
	}
	for i := range len(p.query) {
		switch p.query[i] {
		case '"', '<', '>', '\'':
			return parts{}, false
		}
	}
	p.dir, p.ref, p.hasRef = "/"+p.ref, "", false
	return p, true
}

// isDotSegment reports whether a path segment is one the WHATWG parser
// reads as "." or "..", "%2e" standing for a dot.
func isDotSegment(seg string) bool {
	dots := 0
	for len(seg) > 0 {
		switch {
		case seg[0] == '.':
			seg = seg[1:]
		case len(seg) >= 3 && seg[0] == '%' && seg[1] == '2' && (seg[2] == 'e' || seg[2] == 'E'):
			seg = seg[3:]
		default:
			return false
		}
		dots++
	}
	return dots == 1 || dots == 2
}

// String returns the base URL as the WHATWG parser serializes it, without
// its fragment.
func (b *Base) String() string {
	u, err := b.url()
	if err != nil {
		return ""
	}
	return u.Href(true)
}

// Resolve resolves ref (an href as found in HTML: surrounding whitespace,
// newlines and tabs are allowed and ignored as browsers do) against b, then
// normalizes the result. Errors wrap ErrUnsupportedScheme when ref has a
// scheme other than http or https (mailto:, javascript:, ...), ErrInvalid
// when it does not parse.
func (b *Base) Resolve(ref string) (string, error) {
	if len(ref) > MaxLength {
		return "", &Error{Op: "resolve", URL: ref, Err: errTooLong}
	}
	s, ok, err := b.resolveFast(ref)
	if !ok {
		s, err = b.resolveSlow(ref)
	}
	if err != nil {
		return "", &Error{Op: "resolve", URL: ref, Err: err}
	}
	return s, nil
}

// resolveSlow is Resolve by the WHATWG parser.
func (b *Base) resolveSlow(ref string) (string, error) {
	if sniffScheme(ref) == schemeOther {
		return "", ErrUnsupportedScheme
	}
	base, err := b.url()
	if err != nil {
		return "", err
	}
	u, err := base.Parse(ref)
	if err != nil {
		return "", invalid(err)
	}
	return b.n.buildURL(u)
}

// resolveFast is Resolve for the common case. ok is false when ref needs
// the WHATWG parser.
func (b *Base) resolveFast(ref string) (s string, ok bool, err error) {
	kind := sniffScheme(ref)
	if kind == schemeOther {
		return "", true, ErrUnsupportedScheme
	}
	in, clean := cleanPrefix(ref)
	if !clean {
		return "", false, nil
	}
	p := parts{scheme: b.scheme, host: b.host, port: b.port}
	switch {
	case kind != noScheme:
		// "http:g" is relative to an http base: leave it to the WHATWG path.
		if !parseAbsolute(&p, in) {
			return "", false, nil
		}
	case strings.HasPrefix(in, "//"):
		// Scheme-relative: "//host/path".
		if strings.HasPrefix(in[2:], "/") || !parseAuthorityPath(&p, in[2:]) {
			return "", false, nil
		}
	case in == "":
		p.dir, p.query = b.path, b.query
	case in[0] == '?':
		p.dir, p.query = b.path, in[1:]
	case in[0] == '/':
		path, query, _ := strings.Cut(in[1:], "?")
		p.ref, p.hasRef, p.query = path, true, query
	default:
		path, query, _ := strings.Cut(in, "?")
		p.dir, p.ref, p.hasRef, p.query = b.dir, path, true, query
	}
	s, err = b.n.build(&p)
	return s, true, err
}
