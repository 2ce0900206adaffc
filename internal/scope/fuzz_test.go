package scope

import "testing"

// FuzzCheck feeds arbitrary strings, normalized or not, as seeds and as
// URLs: Check and Allow must answer without panicking, and a seed must be
// in scope unless a shape limit or a pattern refuses it.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"", "http://", "://", "http://[", "http://[::1", "http://[::1]:80/a/a/a/a", "http://a.b.c/",
		"https://user.github.io/x?a=1&b=2", "http://127.0.0.1:8080/", "http://host?x=/a/a/a/a/a",
		"http://xn--bcher-kva.example/~a/b/", "http://.", "http://a..b/", "x/y/z/../../", "http://h/?&&&&",
	} {
		f.Add(s, s)
	}
	lim := Limits{MaxLength: 200, MaxQueryParams: 3, MaxRepeats: 2}
	f.Fuzz(func(t *testing.T, seed, u string) {
		for _, m := range []Mode{Domain, Host, Any} {
			s, err := New(m, []string{seed}, DefaultExcludes, lim)
			if err != nil {
				t.Fatal(err)
			}
			s.Check(u)
			s.Allow(u)
			if r := s.Check(u); r == Outside && s.key(u) != "" {
				t.Errorf("%s: Check(%q) = %q after Allow", m, u, r)
			}
		}
	})
}
