package urlnorm

import "strings"

// The fast path parses the common case by hand: printable ASCII without
// backslashes up to the fragment, "scheme://" with exactly two slashes, a
// host of letters, digits, '-' and '.' that is neither punycode nor an IPv4
// address in another than canonical form, an optional decimal port. For
// that input it gives the same parts as the WHATWG parser
// (FuzzNormalizeFast and FuzzResolveFast check this); anything else makes
// it answer ok == false and the caller takes the WHATWG path.

// normalizeFast is Normalize for the common case. ok is false when raw
// needs the WHATWG parser.
func (n *Normalizer) normalizeFast(raw string) (s string, ok bool, err error) {
	switch sniffScheme(raw) {
	case noScheme:
		return "", true, errNotAbsolute
	case schemeOther:
		return "", true, ErrUnsupportedScheme
	}
	in, clean := cleanPrefix(raw)
	if !clean {
		return "", false, nil
	}
	var p parts
	if !parseAbsolute(&p, in) {
		return "", false, nil
	}
	s, err = n.build(&p)
	return s, true, err
}

// cleanPrefix trims leading and trailing C0 controls and spaces from s and
// cuts off its fragment. clean is false when what is left has bytes the
// fast path does not handle: controls, space, DEL, non-ASCII, backslash.
func cleanPrefix(s string) (in string, clean bool) {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	} else {
		for len(s) > 0 && s[len(s)-1] <= ' ' {
			s = s[:len(s)-1]
		}
	}
	for i := range len(s) {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return "", false
		}
	}
	return s, true
}

// parseAbsolute fills p from a clean absolute http(s) URL s. It reports
// false when s is not in the form the fast path handles.
func parseAbsolute(p *parts, s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon == 4 {
		p.scheme = "http"
	} else {
		p.scheme = "https"
	}
	rest, ok := strings.CutPrefix(s[colon+1:], "//")
	if !ok || strings.HasPrefix(rest, "/") {
		return false
	}
	return parseAuthorityPath(p, rest)
}

// parseAuthorityPath fills p from the text after "scheme://": authority,
// path and query.
func parseAuthorityPath(p *parts, s string) bool {
	end := strings.IndexAny(s, "/?")
	if end < 0 {
		end = len(s)
	}
	auth, rest := s[:end], s[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:] // userinfo is dropped
	}
	p.port = -1
	if colon := strings.IndexByte(auth, ':'); colon >= 0 {
		port := auth[colon+1:]
		auth = auth[:colon]
		if port != "" {
			if len(port) > 5 {
				return false
			}
			v := 0
			for i := range len(port) {
				c := port[i]
				if c < '0' || c > '9' {
					return false
				}
				v = v*10 + int(c-'0')
			}
			if v > 65535 {
				return false
			}
			p.port = v
		}
	}
	if !isPlainHost(auth) {
		return false
	}
	p.host = auth
	path, query, _ := strings.Cut(rest, "?")
	p.ref = strings.TrimPrefix(path, "/")
	p.hasRef = true
	p.query = query
	return true
}

// isPlainHost reports whether the WHATWG host parser would return host
// lowercased and otherwise unchanged: letters, digits, '-' and '.', no empty
// label (but for one trailing dot), no punycode label to validate, and a
// last label that cannot be read as an IPv4 number, unless host is an IPv4
// address in canonical form.
func isPlainHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" {
		return false
	}
	label := 0 // start of the current label
	for i := 0; i <= len(host); i++ {
		if i < len(host) && host[i] != '.' {
			c := host[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		if i == label {
			return false // empty label
		}
		if i-label >= 4 && (host[label] == 'x' || host[label] == 'X') && (host[label+1] == 'n' || host[label+1] == 'N') &&
			host[label+2] == '-' && host[label+3] == '-' {
			return false
		}
		label = i + 1
	}
	// The last label must start with a letter: one starting with a digit or
	// a hyphen may read as an IPv4 number ("1", "0x7f", "-0"), which the
	// WHATWG path reads or rejects. Only an IPv4 address already in
	// canonical form stays here.
	last := host[strings.LastIndexByte(host, '.')+1:]
	return 'a' <= last[0] && last[0] <= 'z' || 'A' <= last[0] && last[0] <= 'Z' || isCanonicalIPv4(host)
}

// isCanonicalIPv4 reports whether s is an IPv4 address as the WHATWG
// parser serializes it: four decimal numbers from 0 to 255 without leading
// zeros.
func isCanonicalIPv4(s string) bool {
	for part := range 4 {
		n, v := 0, 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			v = v*10 + int(s[n]-'0')
			n++
			if n > 3 {
				return false
			}
		}
		if n == 0 || v > 255 || n > 1 && s[0] == '0' {
			return false
		}
		s = s[n:]
		if part < 3 {
			if s == "" || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
	}
	return s == ""
}
