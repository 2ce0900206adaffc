package urlnorm

import "testing"

func TestAccessors(t *testing.T) {
	for _, c := range []struct {
		url, hostKey, hostname, pathQuery string
	}{
		{"http://example.com/", "http://example.com", "example.com", "/"},
		{"https://example.com:8443/a/b?x=1&y", "https://example.com:8443", "example.com", "/a/b?x=1&y"},
		{"http://[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080", "2001:db8::1", "/x"},
		{"http://[::1]/", "http://[::1]", "::1", "/"},
		{"http://127.0.0.1/robots.txt", "http://127.0.0.1", "127.0.0.1", "/robots.txt"},
		{"http://a.example?q", "http://a.example", "a.example", "/?q"},
		{"not a url", "", "", ""},
	} {
		t.Run(c.url, func(t *testing.T) {
			if got := HostKey(c.url); got != c.hostKey {
				t.Errorf("HostKey(%q) = %q, want %q", c.url, got, c.hostKey)
			}
			if got := Hostname(c.url); got != c.hostname {
				t.Errorf("Hostname(%q) = %q, want %q", c.url, got, c.hostname)
			}
			if got := PathQuery(c.url); got != c.pathQuery {
				t.Errorf("PathQuery(%q) = %q, want %q", c.url, got, c.pathQuery)
			}
		})
	}
}

func TestRegistrableDomain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{"www.example.com", "example.com"},
		{"a.b.c.example.com", "example.com"},
		{"www.cs.ox.ac.uk", "ox.ac.uk"},
		{"ox.ac.uk", "ox.ac.uk"},
		{"user.github.io", "user.github.io"},
		{"www.xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"co.uk", "co.uk"},
		{"localhost", "localhost"},
		{"127.0.0.1", "127.0.0.1"},
		{"2001:db8::1", "2001:db8::1"},
		{"", ""},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := RegistrableDomain(c.in); got != c.want {
				t.Errorf("RegistrableDomain(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// The benchmark mixes should exercise the fast path, as real links do.
func TestBenchMixFastPathShare(t *testing.T) {
	n := defaultNormalizer(t)
	fast := 0
	for _, u := range benchURLs {
		if _, ok, _ := n.normalizeFast(u); ok {
			fast++
		} else {
			t.Logf("WHATWG path: %q", u)
		}
	}
	base, err := n.ParseBase(benchBase)
	if err != nil {
		t.Fatal(err)
	}
	fastRefs := 0
	for _, r := range benchRefs {
		if _, ok, _ := base.resolveFast(r); ok {
			fastRefs++
		} else {
			t.Logf("WHATWG path: %q", r)
		}
	}
	t.Logf("fast path: %d/%d URLs, %d/%d refs", fast, len(benchURLs), fastRefs, len(benchRefs))
}
