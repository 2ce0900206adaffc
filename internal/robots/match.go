package robots

import "strings"

// rule is a compiled allow or disallow line. Its pattern, in canonical
// form, is prefix, then for each element of parts a '*' and that element,
// then a '$' if anchored.
type rule struct {
	allow    bool
	anchored bool     // the pattern ends with '$': the path must end there too
	length   int      // octets of the canonical pattern; the longest match wins
	prefix   string   // literal text before the first '*'
	parts    []string // literal text after each '*'; nil without wildcards
}

// disallowRoot is "Disallow: /", the only rule of DisallowAll.
var disallowRoot = rule{prefix: "/", length: 1}

// compile compiles the value of an allow or disallow line. ok is false for
// an empty value, which RFC 9309 reads as no rule at all, and for a value
// that starts with neither '/' nor '*' ("private", a full URL): RFC 9309's
// grammar has paths start with '/', and such a pattern, anchored at the
// start of a path that always starts with '/', can match nothing (as in
// Google's parser, which also accepts a leading '*').
func compile(pattern string, allow bool) (r rule, ok bool) {
	if pattern == "" || pattern[0] != '/' && pattern[0] != '*' {
		return rule{}, false
	}
	r.allow = allow
	if strings.HasSuffix(pattern, "$") {
		r.anchored = true
		r.length = 1
		pattern = pattern[:len(pattern)-1]
	}
	if !strings.Contains(pattern, "*") {
		r.prefix = canonical(pattern)
		r.length += len(r.prefix)
		return r, true
	}
	pieces := strings.Split(pattern, "*")
	for i, p := range pieces {
		pieces[i] = canonical(p)
		r.length += len(pieces[i])
	}
	r.length += len(pieces) - 1 // the '*'s
	r.prefix, r.parts = pieces[0], pieces[1:]
	return r, true
}

// match reports whether the rule matches the canonical path p.
//
// Each literal part is found at its leftmost place after the previous one.
// For patterns whose only operators are '*' and a final '$' this greedy
// search finds a match whenever there is one. Each part is searched for
// once, from where the previous one ended, so the work is about linear in
// len(p): no backtracking, whatever the pattern.
func (r *rule) match(p string) bool {
	if !strings.HasPrefix(p, r.prefix) {
		return false
	}
	if r.parts == nil {
		return !r.anchored || len(p) == len(r.prefix)
	}
	rest := p[len(r.prefix):]
	last := len(r.parts) - 1
	for _, part := range r.parts[:last] {
		i := strings.Index(rest, part)
		if i < 0 {
			return false
		}
		rest = rest[i+len(part):]
	}
	if r.anchored {
		return strings.HasSuffix(rest, r.parts[last])
	}
	return strings.Contains(rest, r.parts[last])
}

// Byte classes for canonical.
const (
	unreserved = 1 << iota // RFC 3986 unreserved: decoded when escaped
	escape                 // always written as %XX
	hexDigit
)

var class = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~':
			t[c] |= unreserved
		case c <= ' ', c >= 0x7f, strings.IndexByte("\"#$*<>\\^`{|}", byte(c)) >= 0:
			t[c] |= escape
		}
		if '0' <= c && c <= '9' || 'A' <= c && c <= 'F' || 'a' <= c && c <= 'f' {
			t[c] |= hexDigit
		}
	}
	return t
}()

const upperHex = "0123456789ABCDEF"

// canonical returns the form in which paths and patterns are compared
// (RFC 9309 2.2.2): an escape "%xx" of an unreserved character is decoded,
// other escapes get uppercase hex digits, a '%' that starts no escape
// becomes "%25", and controls, space, non-ASCII bytes and the characters
// "#$*<>\^`{|} are escaped. A path's '*' and '$' are thereby told apart
// from the operators of a pattern, which is split on them before this, and
// "%2A" in a pattern matches a literal '*' in a path. canonical is
// idempotent, and returns s itself when s is already canonical.
func canonical(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '%' {
			if !wellEscaped(s, i) {
				break
			}
			i += 3
			continue
		}
		if class[c]&escape != 0 {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && class[s[i+1]]&hexDigit != 0 && class[s[i+2]]&hexDigit != 0 {
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
			if class[d]&unreserved != 0 {
				b.WriteByte(d)
				continue
			}
			c = d
		} else if c != '%' && class[c]&escape == 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

// wellEscaped reports whether s[i:] starts with an escape already in
// canonical form: '%', two uppercase hex digits, and not an unreserved
// character.
func wellEscaped(s string, i int) bool {
	if i+2 >= len(s) {
		return false
	}
	h, l := s[i+1], s[i+2]
	if class[h]&hexDigit == 0 || class[l]&hexDigit == 0 || h >= 'a' || l >= 'a' {
		return false
	}
	return class[unhex(h)<<4|unhex(l)]&unreserved == 0
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
