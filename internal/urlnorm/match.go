package urlnorm

import (
	"fmt"
	"strings"
)

// paramMatcher tells whether a query or matrix parameter name is one of
// Options.StripParams. Names are compared in their normalized spelling,
// ASCII case folded.
type paramMatcher struct {
	exact    map[string]struct{} // lowercase names
	maxExact int                 // longest key of exact
	prefixes []string            // lowercase prefixes, from "name*" patterns
}

func newParamMatcher(patterns []string) (paramMatcher, error) {
	m := paramMatcher{exact: make(map[string]struct{}, len(patterns))}
	for _, p := range patterns {
		name, prefix := strings.CutSuffix(p, "*")
		if name == "" || strings.ContainsAny(name, "*&=#") {
			return paramMatcher{}, fmt.Errorf("urlnorm: strip param pattern %q: want a name, optionally ending in '*'", p)
		}
		// Spell the pattern as a normalized name would be spelled.
		name = strings.ToLower(string(appendComponent(nil, name, queryKeep)))
		if prefix {
			m.prefixes = append(m.prefixes, name)
			continue
		}
		m.exact[name] = struct{}{}
		m.maxExact = max(m.maxExact, len(name))
	}
	return m, nil
}

// match reports whether the normalized parameter name matches a pattern.
func (m *paramMatcher) match(name []byte) bool {
	for _, p := range m.prefixes {
		if len(name) >= len(p) && equalFoldLower(name[:len(p)], p) {
			return true
		}
	}
	if len(name) > m.maxExact || len(m.exact) == 0 {
		return false
	}
	var buf [64]byte
	var lower []byte
	if len(name) <= len(buf) {
		lower = buf[:len(name)]
	} else {
		lower = make([]byte, len(name))
	}
	for i, c := range name {
		lower[i] = toLower(c)
	}
	_, ok := m.exact[string(lower)]
	return ok
}

// equalFoldLower reports whether b equals the lowercase ASCII string lower,
// ignoring ASCII case in b.
func equalFoldLower(b []byte, lower string) bool {
	for i := range len(lower) {
		if toLower(b[i]) != lower[i] {
			return false
		}
	}
	return true
}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hostMatcher tells whether a normalized hostname matches one of
// Options.KeepQueryOrder.
type hostMatcher struct {
	exact    map[string]struct{}
	suffixes []string // ".example.org" for "*.example.org"
}

func newHostMatcher(patterns []string) (hostMatcher, error) {
	m := hostMatcher{exact: make(map[string]struct{}, len(patterns))}
	for _, p := range patterns {
		name, wild := strings.CutPrefix(p, "*.")
		ascii, ok := patternHost(name)
		if !ok || !isHostPattern(ascii) {
			return hostMatcher{}, fmt.Errorf("urlnorm: keep query order pattern %q: want a host name, optionally starting with \"*.\"", p)
		}
		if wild {
			m.suffixes = append(m.suffixes, "."+ascii)
		} else {
			m.exact[ascii] = struct{}{}
		}
	}
	return m, nil
}

// patternHost returns name spelled as Normalize spells the host of a URL,
// by the same WHATWG host parser and rules, so that a pattern matches the
// hosts Normalize outputs: the IDNA Lookup profile would refuse '_' and
// hyphens in the third and fourth place ("r3---sn-x.googlevideo.com"),
// which the WHATWG parser allows. ok is false when name is not a host.
func patternHost(name string) (host string, ok bool) {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || strings.ContainsRune("/?#@:[]\\%", r) }) {
		return "", false
	}
	u, err := whatwg.Parse("http://" + name + "/")
	if err != nil {
		return "", false
	}
	p, err := partsOf(u)
	if err != nil {
		return "", false
	}
	b, ok := appendHost(nil, p.host)
	return string(b), ok
}

func isHostPattern(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !isHostByte(c) && !('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// isHostByte reports whether c may appear in a normalized DNS hostname.
func isHostByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_'
}

// match reports whether the normalized hostname host matches a pattern.
func (m *hostMatcher) match(host []byte) bool {
	if len(m.exact) > 0 {
		if _, ok := m.exact[string(host)]; ok {
			return true
		}
	}
	for _, s := range m.suffixes {
		if len(host) > len(s) && string(host[len(host)-len(s):]) == s {
			return true
		}
	}
	return false
}
