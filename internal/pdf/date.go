package pdf

import (
	"strings"
	"time"
)

// parseDate parses a PDF date string (PDF 32000-1, 7.9.4):
// "D:YYYYMMDDHHmmSSOHH'mm'", where everything after the year is optional
// and O is "+", "-" or "Z". The "D:" prefix may be missing, the
// apostrophes too (or be colons), and the time zone may be followed by
// junk such as a trailing apostrophe. A date without a time zone is taken
// as UTC. It reports false for anything else, including out-of-range
// fields and ISO 8601 dates such as "2024-03-12".
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "D:")
	num := func(n, lo, hi, def int) (int, bool) {
		if len(s) == 0 || s[0] < '0' || s[0] > '9' {
			return def, true
		}
		if len(s) < n {
			return 0, false
		}
		v := 0
		for i := 0; i < n; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		s = s[n:]
		return v, lo <= v && v <= hi
	}
	if len(s) < 4 || s[0] < '0' || s[0] > '9' {
		return time.Time{}, false
	}
	year, ok := num(4, 1, 9999, 0)
	if !ok {
		return time.Time{}, false
	}
	var f [5]int
	limits := [5][3]int{{2, 1, 12}, {2, 1, 31}, {2, 0, 23}, {2, 0, 59}, {2, 0, 60}}
	defaults := [5]int{1, 1, 0, 0, 0}
	for i, l := range limits {
		if f[i], ok = num(l[0], l[1], l[2], defaults[i]); !ok {
			return time.Time{}, false
		}
	}
	if f[1] > daysIn(time.Month(f[0]), year) {
		return time.Time{}, false
	}
	loc := time.UTC
	if len(s) > 0 {
		sign := s[0]
		s = s[1:]
		switch sign {
		case 'Z':
		case '+', '-':
			hh, ok := num(2, 0, 23, 0)
			if !ok {
				return time.Time{}, false
			}
			// The hours end the string or go on with the minutes: in
			// "2024-03-12" the "-" is no time zone.
			if len(s) > 0 && s[0] != '\'' && s[0] != ':' && (s[0] < '0' || s[0] > '9') {
				return time.Time{}, false
			}
			s = strings.TrimPrefix(s, "'")
			s = strings.TrimPrefix(s, ":")
			mm, ok := num(2, 0, 59, 0)
			if !ok {
				return time.Time{}, false
			}
			off := hh*3600 + mm*60
			if sign == '-' {
				off = -off
			}
			if off != 0 {
				loc = time.FixedZone("", off)
			}
		default:
			return time.Time{}, false
		}
	}
	return time.Date(year, time.Month(f[0]), f[1], f[2], f[3], min(f[4], 59), 0, loc), true
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
