package scope

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The bytes a match can begin with (runs of three bytes and more written
// a-b; "" for no filter), and texts the filter skips.
func TestExclusionFirstBytes(t *testing.T) {
	tests := []struct {
		pattern string
		first   string
		start   bool     // matches start at the text's first byte only
		skip    []string // texts the pattern is not run on
	}{
		{pattern: `abc`, first: "a", skip: []string{"xyz", "ab", "abd", "xabxbc"}},
		{pattern: `(?i)abc`, first: "Aa", skip: []string{"aBd"}},
		{pattern: `(?i)ks`, first: "Kk", skip: []string{"kx"}}, // the Kelvin sign is not ASCII
		{pattern: `a|b|cd`, first: "a-c", skip: []string{"ce", "xyz"}},
		{pattern: `[?&;](sid|cfid)=`, first: "&;?", skip: []string{"/a?id=1", "?cf=", "?sid"}},
		{pattern: `(?i)[a-c]x`, first: "A-Ca-c", skip: []string{"ay"}},
		{pattern: `[^a]b`, first: "\\x00-`b-\\x7f", skip: []string{"ab", "b"}},
		{pattern: `.x`, first: `\x00-\t\v-\x7f`, skip: []string{"\nx"}},
		{pattern: `(?s).x`, first: `\x00-\x7f`},
		{pattern: `a*b`, first: "ab", skip: []string{"aaa"}},
		{pattern: `(a|)b`, first: "ab"},
		{pattern: `(ab){0,2}c`, first: "ac", skip: []string{"abab"}},
		{pattern: `é`, first: "{}", skip: []string{"e"}}, // the text's bytes from 0x80 are candidates
		{pattern: `\x{FFFD}x`, first: "{}"},              // invalid UTF-8, read as U+FFFD
		{pattern: `[^\x00-\x{10FFFF}]`, first: "{}"},     // matches nothing
		{pattern: `\bfoo`, first: "f"},
		{pattern: `^http:`, first: "h", start: true, skip: []string{"xhttp:"}},
		{pattern: `\A(x)y`, first: "x", start: true},
		{pattern: `(?m)^ab`, first: "a"},
		{pattern: `^a|b`, first: "ab"},
		{pattern: `a$`, first: "a", skip: []string{"ab"}},
		{pattern: `a$b`, first: "a", skip: []string{"ab", "a"}}, // nothing follows the end
		{pattern: `(?m)a$`, first: "a"},
		{pattern: `\.(jpe?g|png)(\?|$)`, first: ".", skip: []string{".jpgx", ".pn", "a.jpe"}},
		{pattern: DefaultExcludes[0], first: "/", skip: []string{"http://www.inst000001.edu/dept-1/abc/page-1.html", "/eventful"}},
		{pattern: DefaultExcludes[2], first: "&?", skip: []string{"http://a.test/?a=1", "/x?sorted=1"}},
		{pattern: DefaultExcludes[5], first: ".", skip: []string{"http://www.inst000001.edu/dept-1/abc/page-1.html", "/a.jsp"}},
		{pattern: ``},
		{pattern: `(a?){300}x`}, // too many ways in to follow
		{pattern: `^`},
		{pattern: `$`},
		{pattern: `a*$`},
		{pattern: `\b`},
		{pattern: `a*`},
		{pattern: `(a|b)?`},
		{pattern: `x{0}`},
		{pattern: `a|`},
		{pattern: `(ab){0,2}`},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			x, err := newExclusion(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if x.lead == nil {
				if tt.first != "" {
					t.Errorf("newExclusion(%q) has no filter, want first bytes %q", tt.pattern, tt.first)
				}
				return
			}
			if got := setString(x.lead.first); got != tt.first {
				t.Errorf("newExclusion(%q) first bytes %q, want %q", tt.pattern, got, tt.first)
			}
			if x.lead.start != tt.start {
				t.Errorf("newExclusion(%q) start %v, want %v", tt.pattern, x.lead.start, tt.start)
			}
			for _, u := range tt.skip {
				if x.re.MatchString(u) {
					t.Fatalf("%q matches %q: not a text to skip", tt.pattern, u)
				}
				if x.lead.mayMatch(u) {
					t.Errorf("newExclusion(%q) runs on %q, want it skipped", tt.pattern, u)
				}
			}
		})
	}
}

// setString writes s's bytes in order, runs of three or more as a-b,
// and the empty set as {}.
func setString(s byteSet) string {
	if s == (byteSet{}) {
		return "{}"
	}
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
		b.WriteString(byteString(i))
		if j-i >= 2 {
			b.WriteByte('-')
		}
		if j > i {
			b.WriteString(byteString(j))
		}
		i = j + 1
	}
	return b.String()
}

// byteString writes b as Go would quote it, without the quotes.
func byteString(b int) string {
	q := strconv.QuoteToASCII(string(rune(b)))
	return q[1 : len(q)-1]
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
		if len(pattern) > 100 || len(u) > 4096 { // the regexps' own cost grows with both
			return
		}
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
