package htmlx

import "math"

// parseRefresh parses the content of <meta http-equiv="refresh"> by the
// HTML standard's "shared declarative refresh steps": a delay in seconds,
// then optionally a URL, as in "5; URL='/next'". It returns the delay and
// the URL as written (unresolved; "" means the page itself), or ok false if
// the content is not a refresh.
func parseRefresh(s string) (delay int, target string, ok bool) {
	i := skipASCIISpace(s, 0)
	start := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		if delay < math.MaxInt32/10 {
			delay = delay*10 + int(s[i]-'0')
		} else {
			delay = math.MaxInt32
		}
		i++
	}
	if i == start && (i == len(s) || s[i] != '.') {
		return 0, "", false
	}
	for i < len(s) && ('0' <= s[i] && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == len(s) {
		return delay, "", true
	}
	if c := s[i]; c != ';' && c != ',' && !isASCIISpace(c) {
		return 0, "", false
	}
	i = skipASCIISpace(s, i)
	if i < len(s) && (s[i] == ';' || s[i] == ',') {
		i++
	}
	i = skipASCIISpace(s, i)
	if i == len(s) {
		return delay, "", true
	}
	target = s[i:]
	// "url", then optional spaces and "=", may come before the URL; if the
	// text does not go on like that, all of it is the URL.
	if s[i] == 'U' || s[i] == 'u' {
		i++
		if i < len(s) && (s[i] == 'R' || s[i] == 'r') &&
			i+1 < len(s) && (s[i+1] == 'L' || s[i+1] == 'l') {
			i = skipASCIISpace(s, i+2)
			if i < len(s) && s[i] == '=' {
				i = skipASCIISpace(s, i+1)
				target = unquoteRefresh(s[i:])
			}
		}
		return delay, target, true
	}
	return delay, unquoteRefresh(target), true
}

// unquoteRefresh removes a leading quote from s and cuts s at the matching
// closing quote, if any.
func unquoteRefresh(s string) string {
	if s == "" || s[0] != '\'' && s[0] != '"' {
		return s
	}
	q := s[0]
	s = s[1:]
	for i := 0; i < len(s); i++ {
		if s[i] == q {
			return s[:i]
		}
	}
	return s
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func skipASCIISpace(s string, i int) int {
	for i < len(s) && isASCIISpace(s[i]) {
		i++
	}
	return i
}
