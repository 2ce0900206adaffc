package urlnorm

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	wurlerrors "github.com/nlnwa/whatwg-url/errors"
	wurl "github.com/nlnwa/whatwg-url/url"
)

// whatwg is the reference parser: the WHATWG URL standard with its default
// options, plus guardSignedIPv4. It is stateless and safe for concurrent use.
var whatwg = wurl.NewParser(wurl.WithPreParseHostFunc(guardSignedIPv4))

// whatwgIDNA is the IDNA profile of the WHATWG parser (domain to ASCII).
var whatwgIDNA = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.VerifyDNSLength(false),
	idna.StrictDomainName(true),
	idna.ValidateLabels(true),
	idna.CheckHyphens(false),
	idna.CheckJoiners(true),
	idna.Transitional(false),
)

// guardSignedIPv4 works around a bug of github.com/nlnwa/whatwg-url v0.6.2:
// it reads IPv4 numbers with strconv.ParseInt, which accepts a sign, so
// "http://-1/" becomes "http://255.255.255.255/" where the standard reads a
// domain "-1", and "http://-1.0/" an address where the standard fails. It
// replaces such a host, before the parser sees it, by one the parser
// rejects: a crawler has no use for a top-level domain "-1" either.
func guardSignedIPv4(_ *wurl.Url, host string) string {
	encoded := strings.ContainsFunc(host, func(r rune) bool { return r == '%' || r >= utf8.RuneSelf })
	if !encoded && !strings.ContainsAny(host, "+-") {
		return host
	}
	domain := host
	if encoded {
		if d, err := url.PathUnescape(host); err == nil {
			domain = d
		}
		// On error the parser maps what it can and goes on; so does this.
		domain, _ = whatwgIDNA.ToASCII(domain)
	}
	labels := strings.Split(strings.TrimSuffix(domain, "."), ".")
	if !looseIPv4Number(labels[len(labels)-1]) {
		return host
	}
	for _, l := range labels {
		if strings.ContainsAny(l, "+-") && looseIPv4Number(l) {
			return "\x00" // a forbidden domain code point
		}
	}
	return host
}

// looseIPv4Number reports whether the WHATWG parser's IPv4 number parser
// accepts s, sign included.
func looseIPv4Number(s string) bool {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		return true
	}
	base := 10
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return true
	}
	_, err := strconv.ParseInt(s, base, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// schemeKind is what sniffScheme finds at the start of a URL.
type schemeKind int8

const (
	noScheme schemeKind = iota // relative reference
	schemeHTTP
	schemeHTTPS
	schemeOther
)

// sniffScheme finds the scheme of s the way the WHATWG parser would: after
// leading C0 controls and spaces, ignoring tabs and newlines, an ASCII
// letter then letters, digits, '+', '-' or '.' up to a ':'. Deciding
// ErrUnsupportedScheme from the scheme alone keeps the answer the same
// whether or not the rest of a mailto: or javascript: URL would parse.
func sniffScheme(s string) schemeKind {
	i := 0
	for i < len(s) && s[i] <= ' ' {
		i++
	}
	const http = "http"
	n := 0 // scheme bytes seen
	isHTTP := true
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			continue
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case n > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case n > 0 && c == ':':
			switch {
			case isHTTP && n == 4:
				return schemeHTTP
			case isHTTP && n == 5:
				return schemeHTTPS
			}
			return schemeOther
		default:
			return noScheme
		}
		c = toLower(c)
		if n < 4 && c != http[n] || n == 4 && c != 's' || n > 4 {
			isHTTP = false
		}
		n++
	}
	return noScheme
}

// normalizeSlow is Normalize by the WHATWG parser.
func (n *Normalizer) normalizeSlow(raw string) (string, error) {
	switch sniffScheme(raw) {
	case noScheme:
		return "", errNotAbsolute
	case schemeOther:
		return "", ErrUnsupportedScheme
	}
	u, err := whatwg.Parse(raw)
	if err != nil {
		return "", invalid(err)
	}
	return n.buildURL(u)
}

// buildURL normalizes a URL parsed by the WHATWG parser.
func (n *Normalizer) buildURL(u *wurl.Url) (string, error) {
	p, err := partsOf(u)
	if err != nil {
		return "", err
	}
	return n.build(&p)
}

// partsOf returns the parts of a parsed URL.
func partsOf(u *wurl.Url) (parts, error) {
	scheme := u.Scheme()
	if scheme != "http" && scheme != "https" {
		return parts{}, ErrUnsupportedScheme
	}
	host := u.Hostname()
	// The parser accepts some punycode that it would refuse, or read
	// differently, when given its own output: only a fixed point of domain
	// to ASCII normalizes again to itself.
	if strings.Contains(strings.ToLower(host), "xn--") {
		if a, err := whatwgIDNA.ToASCII(host); err != nil || a != host {
			return parts{}, errBadHost
		}
	}
	port := -1
	if s := u.Port(); s != "" {
		var err error
		if port, err = strconv.Atoi(s); err != nil {
			return parts{}, invalid(err)
		}
	}
	return parts{
		scheme: scheme,
		host:   host,
		port:   port,
		dir:    u.Pathname(),
		query:  u.Query(),
	}, nil
}

// invalid wraps a parse error from the WHATWG parser in ErrInvalid.
func invalid(err error) error {
	if t := wurlerrors.Type(err); t != "" {
		return wrapInvalid(string(t))
	}
	return fmt.Errorf("%w: %w", ErrInvalid, err)
}
