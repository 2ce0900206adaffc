// Package urlnorm normalizes URLs for the crawl frontier, so that the many
// spellings of one resource map to one key.
//
// Parsing and resolution follow the WHATWG URL standard, as browsers do
// (github.com/nlnwa/whatwg-url is the reference implementation used here).
// On top of that, normalization applies RFC 3986's safe rules (lowercase
// scheme and host, default port dropped, dot segments removed, percent
// encoding with uppercase hex and unreserved characters decoded) and a few
// crawler rules: the fragment and userinfo are dropped, tracking and session
// parameters are removed and the query may be sorted. Paths are never
// lowercased and trailing slashes, index pages and "www." are left alone,
// since servers may tell those apart.
//
// Only http and https URLs normalize; every other scheme is
// ErrUnsupportedScheme. Output is always an absolute http(s) URL in RFC 3986
// syntax (no raw spaces, non-ASCII or other characters that must be
// percent-encoded) and normalizing it again gives it back unchanged.
//
// A hand-written fast path handles the common case (clean ASCII, plain DNS
// host); everything else goes through the WHATWG parser. Both give the same
// answers, which a differential fuzz test checks.
package urlnorm

import (
	"errors"
	"strconv"
)

// MaxLength is the longest input, and the longest output, this package
// accepts, in bytes. Longer URLs are ErrInvalid.
const MaxLength = 8 << 10

// Errors reported, wrapped in an *Error. Test them with errors.Is.
var (
	// ErrUnsupportedScheme means the URL is well-formed enough to have a
	// scheme, and it is not http or https (mailto:, javascript:, tel:,
	// data:, ftp:, ...).
	ErrUnsupportedScheme = errors.New("unsupported scheme")
	// ErrInvalid means the URL cannot be parsed or cannot be crawled
	// (relative where an absolute URL is needed, bad host or port, too long).
	ErrInvalid = errors.New("invalid URL")
)

// Reasons for ErrInvalid that carry no data, prebuilt so that reporting them
// does not allocate.
var (
	errTooLong     = wrapInvalid("longer than " + strconv.Itoa(MaxLength) + " bytes")
	errNotAbsolute = wrapInvalid("missing scheme")
	errBadHost     = wrapInvalid("host is not a DNS name or IP address")
)

type reasonError struct {
	reason string
	err    error
}

func (e *reasonError) Error() string { return e.err.Error() + ": " + e.reason }
func (e *reasonError) Unwrap() error { return e.err }

func wrapInvalid(reason string) error { return &reasonError{reason: reason, err: ErrInvalid} }

// Error records a failed normalization and the URL that caused it, like
// net/url's Error. Its Err wraps ErrUnsupportedScheme or ErrInvalid.
type Error struct {
	Op  string // "normalize", "resolve" or "parse base"
	URL string // the input (for resolve, the reference)
	Err error
}

func (e *Error) Error() string {
	u := e.URL
	if len(u) > 200 {
		u = u[:200] + "..."
	}
	return "urlnorm: " + e.Op + " " + strconv.Quote(u) + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Options configure normalization beyond RFC 3986's safe rules.
type Options struct {
	// StripParams are query parameter names removed from every URL, compared
	// case-insensitively; a trailing '*' matches a prefix ("utm_*"). They
	// also remove the matching ";name=value" parameters of the last path
	// segment (the ";jsessionid=..." form of session ids).
	StripParams []string
	// SortQuery sorts the remaining query parameters by name (stable for
	// equal names, keep values' order).
	SortQuery bool
	// KeepQueryOrder lists host patterns where the query is left in its
	// original order even when SortQuery is on ("shop.example.com",
	// "*.example.org"), because some sites are order-sensitive. A "*."
	// pattern matches every subdomain but not the domain itself.
	KeepQueryOrder []string
}

// DefaultOptions strips common tracking parameters and session ids and
// sorts the query.
func DefaultOptions() Options {
	return Options{
		StripParams: []string{
			// tracking
			"utm_*", "fbclid", "gclid", "dclid", "msclkid", "mc_eid", "mc_cid",
			"_ga", "_gl", "igshid", "yclid", "twclid", "ref_src", "spm",
			// session ids
			"jsessionid", "phpsessid", "sid", "sessionid", "session_id",
			"aspsessionid*", "cfid", "cftoken",
		},
		SortQuery: true,
	}
}

// Normalizer normalizes URLs with fixed Options. It is immutable and safe
// for concurrent use. The zero Normalizer applies no Options.
type Normalizer struct {
	strip     paramMatcher
	sortQuery bool
	keepOrder hostMatcher
}

// New returns a Normalizer for opts. It fails when a pattern in opts is
// malformed.
func New(opts Options) (*Normalizer, error) {
	strip, err := newParamMatcher(opts.StripParams)
	if err != nil {
		return nil, err
	}
	keep, err := newHostMatcher(opts.KeepQueryOrder)
	if err != nil {
		return nil, err
	}
	return &Normalizer{strip: strip, sortQuery: opts.SortQuery, keepOrder: keep}, nil
}

// Normalize returns the normalized form of raw, which must be an absolute
// URL. Errors wrap ErrUnsupportedScheme when raw's scheme is not http or
// https, ErrInvalid otherwise.
func (n *Normalizer) Normalize(raw string) (string, error) {
	if len(raw) > MaxLength {
		return "", &Error{Op: "normalize", URL: raw, Err: errTooLong}
	}
	s, ok, err := n.normalizeFast(raw)
	if !ok {
		s, err = n.normalizeSlow(raw)
	}
	if err != nil {
		return "", &Error{Op: "normalize", URL: raw, Err: err}
	}
	return s, nil
}

// Resolve resolves ref (an href as found in HTML) against the absolute URL
// base (the page URL or its <base href>) by the browsers' rules, then
// normalizes the result. To resolve many references against one base,
// ParseBase once and use Base.Resolve. Errors are those of ParseBase and
// Base.Resolve.
func (n *Normalizer) Resolve(base, ref string) (string, error) {
	b, err := n.ParseBase(base)
	if err != nil {
		return "", err
	}
	return b.Resolve(ref)
}

// PageResolver resolves the links of pages, one page after another,
// against their base, parsing each base once rather than once per link.
// It is not safe for concurrent use: give each worker its own.
type PageResolver struct {
	n    *Normalizer
	base string
	b    *Base
	err  error
}

// PageResolver returns a resolver of page links by n's rules.
func (n *Normalizer) PageResolver() *PageResolver { return &PageResolver{n: n} }

// Resolve resolves ref against base as Normalizer.Resolve does.
func (r *PageResolver) Resolve(base, ref string) (string, error) {
	if base != r.base || r.b == nil && r.err == nil {
		r.base = base
		r.b, r.err = r.n.ParseBase(base)
	}
	if r.err != nil {
		return "", r.err
	}
	return r.b.Resolve(ref)
}
