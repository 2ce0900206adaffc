package urlnorm

import (
	"strings"

	"golang.org/x/net/publicsuffix"
)

// The accessors below take a URL returned by Normalize or Resolve and cut
// it without parsing it again. On other input they still answer, but what
// they answer is unspecified.

// splitAuthority returns the end of "scheme://" and the end of the
// authority in a normalized URL, or ok == false when there is no "://".
func splitAuthority(normalized string) (authStart, authEnd int, ok bool) {
	i := strings.Index(normalized, "://")
	if i < 0 {
		return 0, 0, false
	}
	authStart = i + 3
	end := strings.IndexAny(normalized[authStart:], "/?#")
	if end < 0 {
		return authStart, len(normalized), true
	}
	return authStart, authStart + end, true
}

// HostKey returns "scheme://host[:port]" of a normalized URL: the origin,
// the unit of politeness and robots.txt. It returns "" when normalized has
// no "://". It is crawl.HostKey, the definition of a host, which this
// package may not import; crawl's tests hold the two equal.
func HostKey(normalized string) string {
	_, end, ok := splitAuthority(normalized)
	if !ok {
		return ""
	}
	return normalized[:end]
}

// Hostname returns the host of a normalized URL without its port. Like
// net/url's URL.Hostname, an IPv6 address comes without its brackets.
func Hostname(normalized string) string {
	start, end, ok := splitAuthority(normalized)
	if !ok {
		return ""
	}
	host := normalized[start:end]
	if strings.HasPrefix(host, "[") {
		if i := strings.IndexByte(host, ']'); i >= 0 {
			return host[1:i]
		}
		return host[1:]
	}
	if i := strings.IndexByte(host, ':'); i >= 0 {
		return host[:i]
	}
	return host
}

// PathQuery returns "/path?query" of a normalized URL: what robots.txt
// rules match against.
func PathQuery(normalized string) string {
	_, end, ok := splitAuthority(normalized)
	if !ok {
		return ""
	}
	rest := normalized[end:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if !strings.HasPrefix(rest, "/") {
		return "/" + rest
	}
	return rest
}

// RegistrableDomain returns the registrable domain (eTLD+1, by the public
// suffix list) of a hostname as returned by Hostname: "www.cs.ox.ac.uk" →
// "ox.ac.uk", "user.github.io" → "user.github.io". For IP addresses,
// single-label names and public suffixes themselves it returns hostname.
func RegistrableDomain(hostname string) string {
	if hostname == "" || strings.IndexByte(hostname, ':') >= 0 || isIPv4(hostname) {
		return hostname
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(hostname)
	if err != nil {
		return hostname
	}
	return d
}

// isIPv4 reports whether host, a normalized hostname, is an IPv4 address:
// its last label is a number (the WHATWG parser turns any such host into a
// dotted quad or rejects it).
func isIPv4(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	for i := range len(last) {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}
