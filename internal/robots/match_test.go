package robots

import (
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"/", "/"},
		{"/a/b?c=d&e=f", "/a/b?c=d&e=f"},
		{"/%62%61%7A", "/baz"},
		{"/%7e%7E%2d%2e%5f%30", "/~~-._0"},
		{"/%2f%2F", "/%2F%2F"},
		{"/%3a%3A", "/%3A%3A"},
		{"/%e3%83%84", "/%E3%83%84"},
		{"/ツ", "/%E3%83%84"},
		{"/\xff", "/%FF"},
		{"/a b\tc", "/a%20b%09c"},
		{"/\x00\x7f", "/%00%7F"},
		{"/*$", "/%2A%24"},
		{"/%2a%24", "/%2A%24"},
		{"/<>\"{}|\\^`#", "/%3C%3E%22%7B%7D%7C%5C%5E%60%23"},
		{"/100%", "/100%25"},
		{"/%", "/%25"},
		{"/%4", "/%254"},
		{"/%zz", "/%25zz"},
		{"/%%41", "/%25A"},
		{"/%25", "/%25"},
		{"/%2525", "/%2525"},
		{"/!'()+,;=:@", "/!'()+,;=:@"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := canonical(tt.in)
			if got != tt.want {
				t.Errorf("canonical(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := canonical(got); again != got {
				t.Errorf("canonical(%q) = %q, not idempotent", got, again)
			}
		})
	}
}

func TestRuleLength(t *testing.T) {
	tests := []struct {
		pattern string
		want    int
	}{
		{"/", 1},
		{"/*", 2},
		{"/$", 2},
		{"/fish", 5},
		{"/fish*", 6},
		{"/*.php$", 7},
		{"*", 1},
		{"/ツ", 10},
		{"/%62az", 4},
		{"/%2a", 4},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			r, ok := compile(tt.pattern, false)
			if !ok || r.length != tt.want {
				t.Errorf("compile(%q).length = %d (ok %v), want %d", tt.pattern, r.length, ok, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"*", "/", true},
		{"*$", "/", true},
		{"/**", "/x", true},
		{"/a**b", "/ab", true},
		{"/a*b*c", "/abc", true},
		{"/a*b*c", "/acb", false},
		{"/a*b*c$", "/abcbc", true},
		{"/a*b*c$", "/abcb", false},
		{"/*ab$", "/ab", true},
		{"/*ab$", "/aab", true},
		{"/*aa$", "/a", false},
		{"/a*aa$", "/aa", false},
		{"/a*aa$", "/aaa", true},
		{"/x*x$", "/x", false},
		{"/x*x$", "/xx", true},
		{"*.gif$", "/a.gif", true},
		{"*.gif$", "/a.gif.gif", true},
		{"*.gif$", "/a.giff", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			r, _ := compile(tt.pattern, false)
			if got := r.match(canonical(tt.path)); got != tt.want {
				t.Errorf("pattern %q matches %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
			}
			if ref := referenceMatch(r.pattern(), canonical(tt.path)); ref != tt.want {
				t.Errorf("referenceMatch(%q, %q) = %v, want %v", r.pattern(), tt.path, ref, tt.want)
			}
		})
	}
}

// pattern returns the canonical pattern the rule was compiled from.
func (r *rule) pattern() string {
	s := r.prefix
	for _, p := range r.parts {
		s += "*" + p
	}
	if r.anchored {
		s += "$"
	}
	return s
}

// referenceMatch is a plain dynamic-programming matcher, the one Google's
// robots.cc uses: it tracks every path position a pattern prefix can reach.
// It is quadratic, and obviously right; the fuzz target compares rule.match
// with it.
func referenceMatch(pattern, path string) bool {
	reach := make([]bool, len(path)+1) // reach[i]: the pattern so far can end at path[:i]
	next := make([]bool, len(path)+1)
	reach[0] = true
	for k := 0; k < len(pattern); k++ {
		c := pattern[k]
		next[0] = false
		switch {
		case c == '$' && k == len(pattern)-1:
			return reach[len(path)]
		case c == '*':
			on := false
			for i := range reach {
				on = on || reach[i]
				next[i] = on
			}
		default:
			for i := 0; i < len(path); i++ {
				next[i+1] = reach[i] && path[i] == c
			}
		}
		reach, next = next, reach
	}
	for _, ok := range reach {
		if ok {
			return true
		}
	}
	return false
}

// FuzzMatch checks the greedy matcher against the reference matcher, the
// idempotence of canonical, that the rule's length is that of its
// canonical pattern, and that only patterns starting with '/' or '*'
// compile.
func FuzzMatch(f *testing.F) {
	f.Add("/fish*.php", "/fishheads/catfish.php?parameters")
	f.Add("/*.php$", "/folder/filename.php")
	f.Add("*a*a*b$", "/aaaab")
	f.Add("/%2A*$", "/*x")
	f.Add("/a$b$", "/a$b")
	f.Add("/ツ*%e3", "/%E3%83%84/%e3")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		cp := canonical(path)
		if again := canonical(cp); again != cp {
			t.Fatalf("canonical(%q) = %q, not idempotent: %q", path, cp, again)
		}
		r, ok := compile(pattern, false)
		if valid := strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "*"); ok != valid {
			t.Fatalf("compile(%q) ok = %v, want %v: a pattern starts with '/' or '*'", pattern, ok, valid)
		}
		if !ok {
			return
		}
		p := r.pattern()
		if len(p) != r.length {
			t.Fatalf("compile(%q): length %d, canonical pattern %q", pattern, r.length, p)
		}
		if got, want := r.match(cp), referenceMatch(p, cp); got != want {
			t.Fatalf("pattern %q (%q) matches %q = %v, reference says %v", pattern, p, cp, got, want)
		}
		if strings.HasPrefix(cp, "/") && !strings.ContainsAny(pattern, "*$") {
			// A plain pattern is a prefix of what it matches.
			if r.match(cp) != strings.HasPrefix(cp, p) {
				t.Fatalf("plain pattern %q (%q) matches %q = %v", pattern, p, cp, r.match(cp))
			}
		}
	})
}
