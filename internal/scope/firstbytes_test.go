package scope

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The bytes a match can start with; "" for none.
func TestExclusionFirstBytes(t *testing.T) {
	const high = "\x80-\xff" // every byte from 0x80
	tests := []struct {
		pattern string
		want    string // the set's bytes, ranges written a-b; unfiltered when none
		none    bool   // no filter: the pattern can match the empty string
		start   bool   // matches start at the URL's first byte only
	}{
		{pattern: `abc`, want: "a"},
		{pattern: `(?i)abc`, want: "Aa"},
		{pattern: `(?i)k`, want: "Kk" + high}, // K also folds to the Kelvin sign
		{pattern: `(?i)s`, want: "Ss" + high}, // and s to the long s
		{pattern: `a|b|cd`, want: "a-c"},
		{pattern: `[?&;](sid|cfid)=`, want: "&;?"},
		{pattern: `(?i)[a-c]x`, want: "A-Ca-c"},
		{pattern: `[^a]`, want: "\x00-`b-\xff"},
		{pattern: `.`, want: "\x00-\xff"},
		{pattern: `(?s).`, want: "\x00-\xff"},
		{pattern: `a*b`, want: "ab"},
		{pattern: `(a|)b`, want: "ab"},
		{pattern: `(ab){0,2}c`, want: "ac"},
		{pattern: `(ab){2}`, want: "a"},
		{pattern: `é`, want: high},
		{pattern: `\x{FFFD}`, want: high}, // invalid UTF-8 reads as U+FFFD
		{pattern: `[\x{100}-\x{10FFFF}]`, want: high},
		{pattern: `[^\x00-\x{10FFFF}]`, want: ""}, // matches nothing
		{pattern: `\bfoo`, want: "f"},
		{pattern: `^http:`, want: "h", start: true},
		{pattern: `\A(x)`, want: "x", start: true},
		{pattern: `(?m)^a`, want: "a"},
		{pattern: `^a|b`, want: "ab"},
		{pattern: `\.(jpe?g|png)(\?|$)`, want: "."},
		{pattern: DefaultExcludes[0], want: "/"},
		{pattern: DefaultExcludes[2], want: "&?"},
		{pattern: ``, none: true},
		{pattern: `^`, none: true},
		{pattern: `$`, none: true},
		{pattern: `\b`, none: true},
		{pattern: `a*`, none: true},
		{pattern: `(a|b)?`, none: true},
		{pattern: `x{0}`, none: true},
		{pattern: `a|`, none: true},
		{pattern: `(ab){0,2}`, none: true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			x, err := newExclusion(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if x.filtered == tt.none {
				t.Fatalf("newExclusion(%q) filtered %v, want %v", tt.pattern, x.filtered, !tt.none)
			}
			if tt.none {
				return
			}
			if got := setString(x.first); got != tt.want {
				t.Errorf("newExclusion(%q) first bytes %+q, want %+q", tt.pattern, got, tt.want)
			}
			if x.start != tt.start {
				t.Errorf("newExclusion(%q) start %v, want %v", tt.pattern, x.start, tt.start)
			}
		})
	}
}

// setString writes s's bytes in order, runs of three or more as a-b.
func setString(s byteSet) string {
	var b strings.Builder
	for i := 0; i < 256; {
		if !s.has(byte(i)) {
			i++
			continue
		}
		j := i
		for j+1 < 256 && s.has(byte(j+1)) {
			j++
		}
		b.WriteByte(byte(i))
		if j-i >= 2 {
			b.WriteByte('-')
		}
		if j > i {
			b.WriteByte(byte(j))
		}
		i = j + 1
	}
	return b.String()
}

// FuzzExclusion holds the first-byte filter to the plain regexp: a URL is
// excluded by a pattern exactly when the pattern matches it.
func FuzzExclusion(f *testing.F) {
	urls := []string{"http://a.test/", "http://a.test/logo.PNG?x=1", "http://a.test/x;jsessionid=1", "http://a.test/\xff\xfe",
		"HTTP://A.TEST/CALENDAR", "http://a.test/\u212a", "", "k"}
	for i, p := range append([]string{`(?i)k`, `^h`, `[^a]`, `\x{FFFD}`, `(?i)ſ`, `a*`, `\bx`, `(?m)^a`}, DefaultExcludes...) {
		f.Add(p, urls[i%len(urls)])
	}
	f.Fuzz(func(t *testing.T, pattern, u string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		s, err := New(Any, nil, []string{pattern}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := s.Check(u) == Excluded, re.MatchString(u); got != want {
			t.Errorf("pattern %q: Check(%q) excluded %v, the regexp matches %v", pattern, u, got, want)
		}
	})
}

// BenchmarkCheck checks URLs of the seeds' shape, and some the default
// exclusions refuse, against a domain scope with the default exclusions.
func BenchmarkCheck(b *testing.B) {
	pad := "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
	var urls, seeds []string
	for i := range 1000 {
		urls = append(urls, fmt.Sprintf("http://www.inst%06d.edu/dept-%d/%s/page-%d.html", i%100, i%7, pad[:i%53], i))
	}
	for i := range 100 {
		seeds = append(seeds, fmt.Sprintf("http://www.inst%06d.edu/", i))
	}
	for _, query := range []bool{false, true} {
		b.Run(fmt.Sprintf("query=%v", query), func(b *testing.B) {
			s, err := New(Domain, seeds, DefaultExcludes, DefaultLimits)
			if err != nil {
				b.Fatal(err)
			}
			us := urls
			if query {
				us = nil
				for i, u := range urls {
					us = append(us, fmt.Sprintf("%s?id=%d&page=%d", u, i, i%9))
				}
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				s.Check(us[i%len(us)])
			}
		})
	}
}
