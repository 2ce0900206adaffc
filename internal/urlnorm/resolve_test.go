package urlnorm

import (
	"errors"
	"testing"
)

// resolveCase is one Resolve example against a base.
type resolveCase struct {
	ref  string
	want string
	err  error
}

// checkResolve runs cases through Base.Resolve, Normalizer.Resolve and the
// WHATWG path.
func checkResolve(t *testing.T, n *Normalizer, base string, cases []resolveCase) {
	t.Helper()
	b, err := n.ParseBase(base)
	if err != nil {
		t.Fatalf("ParseBase(%q): %v", base, err)
	}
	for _, c := range cases {
		t.Run(c.ref, func(t *testing.T) {
			got, err := b.Resolve(c.ref)
			checkResult(t, "Resolve", c.ref, got, err, c.want, c.err)
			got, err = n.Resolve(base, c.ref)
			checkResult(t, "Normalizer.Resolve", c.ref, got, err, c.want, c.err)
			got, err = b.resolveSlow(c.ref)
			checkResult(t, "resolveSlow", c.ref, got, err, c.want, c.err)
		})
	}
}

// RFC 3986 section 5.4: the reference resolution examples, with the base's
// scheme http; results are normalized (fragment dropped, "/" for an empty
// path).
func TestResolveRFC3986(t *testing.T) {
	n := defaultNormalizer(t)
	const base = "http://a/b/c/d;p?q"
	t.Run("normal", func(t *testing.T) {
		checkResolve(t, n, base, []resolveCase{
			{ref: "g:h", err: ErrUnsupportedScheme},
			{ref: "g", want: "http://a/b/c/g"},
			{ref: "./g", want: "http://a/b/c/g"},
			{ref: "g/", want: "http://a/b/c/g/"},
			{ref: "/g", want: "http://a/g"},
			{ref: "//g", want: "http://g/"},
			{ref: "?y", want: "http://a/b/c/d;p?y"},
			{ref: "g?y", want: "http://a/b/c/g?y"},
			{ref: "#s", want: "http://a/b/c/d;p?q"},
			{ref: "g#s", want: "http://a/b/c/g"},
			{ref: "g?y#s", want: "http://a/b/c/g?y"},
			{ref: ";x", want: "http://a/b/c/;x"},
			{ref: "g;x", want: "http://a/b/c/g;x"},
			{ref: "g;x?y#s", want: "http://a/b/c/g;x?y"},
			{ref: "", want: "http://a/b/c/d;p?q"},
			{ref: ".", want: "http://a/b/c/"},
			{ref: "./", want: "http://a/b/c/"},
			{ref: "..", want: "http://a/b/"},
			{ref: "../", want: "http://a/b/"},
			{ref: "../g", want: "http://a/b/g"},
			{ref: "../..", want: "http://a/"},
			{ref: "../../", want: "http://a/"},
			{ref: "../../g", want: "http://a/g"},
		})
	})
	t.Run("abnormal", func(t *testing.T) {
		checkResolve(t, n, base, []resolveCase{
			{ref: "../../../g", want: "http://a/g"},
			{ref: "../../../../g", want: "http://a/g"},
			{ref: "/./g", want: "http://a/g"},
			{ref: "/../g", want: "http://a/g"},
			{ref: "g.", want: "http://a/b/c/g."},
			{ref: ".g", want: "http://a/b/c/.g"},
			{ref: "g..", want: "http://a/b/c/g.."},
			{ref: "..g", want: "http://a/b/c/..g"},
			{ref: "./../g", want: "http://a/b/g"},
			{ref: "./g/.", want: "http://a/b/c/g/"},
			{ref: "g/./h", want: "http://a/b/c/g/h"},
			{ref: "g/../h", want: "http://a/b/c/h"},
			{ref: "g;x=1/./y", want: "http://a/b/c/g;x=1/y"},
			{ref: "g;x=1/../y", want: "http://a/b/c/y"},
			{ref: "g?y/./x", want: "http://a/b/c/g?y/./x"},
			{ref: "g?y/../x", want: "http://a/b/c/g?y/../x"},
			{ref: "g#s/./x", want: "http://a/b/c/g"},
			{ref: "g#s/../x", want: "http://a/b/c/g"},
			// Browsers take the RFC's "backward compatible" reading.
			{ref: "http:g", want: "http://a/b/c/g"},
		})
	})
}

func TestResolveHTML(t *testing.T) {
	n := defaultNormalizer(t)
	checkResolve(t, n, "https://www.Example.com/dir/page.html?x=1#top", []resolveCase{
		{ref: "other.html", want: "https://www.example.com/dir/other.html"},
		{ref: "//cdn.example.net/lib.js", want: "https://cdn.example.net/lib.js"},
		{ref: "//CDN.example.net:443", want: "https://cdn.example.net/"},
		{ref: "?page=2", want: "https://www.example.com/dir/page.html?page=2"},
		{ref: "?", want: "https://www.example.com/dir/page.html"},
		{ref: "#section", want: "https://www.example.com/dir/page.html?x=1"},
		{ref: "#", want: "https://www.example.com/dir/page.html?x=1"},
		{ref: "../../../../up", want: "https://www.example.com/up"},
		{ref: "/../../x", want: "https://www.example.com/x"},
		{ref: "%2e%2E/x", want: "https://www.example.com/x"},
		// backslashes are slashes
		{ref: "\\other\\x", want: "https://www.example.com/other/x"},
		{ref: "..\\y", want: "https://www.example.com/y"},
		{ref: "\\\\host\\x", want: "https://host/x"},
		// whitespace and newlines inside hrefs
		{ref: "  /a\n/b\t ", want: "https://www.example.com/a/b"},
		{ref: "\n  page2.html  \n", want: "https://www.example.com/dir/page2.html"},
		{ref: "a b.html", want: "https://www.example.com/dir/a%20b.html"},
		{ref: "ja\nvascript:alert(1)", err: ErrUnsupportedScheme},
		// non-ASCII
		{ref: "über/straße?q=ü", want: "https://www.example.com/dir/%C3%BCber/stra%C3%9Fe?q=%C3%BC"},
		{ref: "http://bücher.example/", want: "http://xn--bcher-kva.example/"},
		{ref: "//bücher.example/x", want: "https://xn--bcher-kva.example/x"},
		// IP literals and ports
		{ref: "//[2001:DB8::1]:8080/x", want: "https://[2001:db8::1]:8080/x"},
		{ref: "http://[::1]/", want: "http://[::1]/"},
		{ref: "http://127.0.0.1:80/", want: "http://127.0.0.1/"},
		{ref: "http://example.com:8080/a", want: "http://example.com:8080/a"},
		{ref: "https://example.com:443/a", want: "https://example.com/a"},
		{ref: "//example.com:8443/a", want: "https://example.com:8443/a"},
		// scheme-only forms
		{ref: "https:foo", want: "https://www.example.com/dir/foo"},
		{ref: "http:foo", want: "http://foo/"},
		{ref: "HTTP://Other.example/", want: "http://other.example/"},
		// tracking parameters in links
		{ref: "/p?utm_campaign=x&id=2&fbclid=1", want: "https://www.example.com/p?id=2"},
		// not http(s)
		{ref: "mailto:someone@example.com", err: ErrUnsupportedScheme},
		{ref: "javascript:void(0)", err: ErrUnsupportedScheme},
		{ref: " javascript:void(0);", err: ErrUnsupportedScheme},
		{ref: "tel:+441234567890", err: ErrUnsupportedScheme},
		{ref: "data:image/png;base64,iVBORw0KGgo=", err: ErrUnsupportedScheme},
		{ref: "ftp://example.com/", err: ErrUnsupportedScheme},
		// malformed
		{ref: "//", err: ErrInvalid},
		{ref: "http://", err: ErrInvalid},
		{ref: "https://a..b/", err: ErrInvalid},
		{ref: "//a:99999/", err: ErrInvalid},
		{ref: "http://[::1/", err: ErrInvalid},
	})
}

func TestResolveBases(t *testing.T) {
	n := defaultNormalizer(t)
	t.Run("directory base", func(t *testing.T) {
		checkResolve(t, n, "http://example.org/docs/v2/", []resolveCase{
			{ref: "intro.html", want: "http://example.org/docs/v2/intro.html"},
			{ref: "../v1/", want: "http://example.org/docs/v1/"},
			{ref: "", want: "http://example.org/docs/v2/"},
		})
	})
	t.Run("no path", func(t *testing.T) {
		checkResolve(t, n, "http://example.org", []resolveCase{
			{ref: "a", want: "http://example.org/a"},
			{ref: "..", want: "http://example.org/"},
			{ref: "?q", want: "http://example.org/?q"},
		})
	})
	t.Run("session id and userinfo", func(t *testing.T) {
		checkResolve(t, n, "http://u:p@example.org:8080/shop;jsessionid=1?x=1#f", []resolveCase{
			{ref: "#top", want: "http://example.org:8080/shop?x=1"},
			{ref: "?y", want: "http://example.org:8080/shop?y"},
			{ref: "cart", want: "http://example.org:8080/cart"},
			{ref: "//other/", want: "http://other/"},
		})
	})
	t.Run("unnormalized base", func(t *testing.T) {
		checkResolve(t, n, " HTTP://Example.ORG.:80/a/%7Eb/./c/../d%2fe?b=2&a=1 ", []resolveCase{
			{ref: "", want: "http://example.org/a/~b/d%2Fe?a=1&b=2"},
			{ref: "x", want: "http://example.org/a/~b/x"},
			{ref: "../x", want: "http://example.org/a/x"},
		})
	})
	t.Run("IP base", func(t *testing.T) {
		checkResolve(t, n, "http://[::1]:8080/a/b", []resolveCase{
			{ref: "c", want: "http://[::1]:8080/a/c"},
		})
	})
}

func TestParseBaseErrors(t *testing.T) {
	n := defaultNormalizer(t)
	for _, c := range []struct {
		base string
		err  error
	}{
		{"mailto:x@example.com", ErrUnsupportedScheme},
		{"about:blank", ErrUnsupportedScheme},
		{"file:///tmp/x.html", ErrUnsupportedScheme},
		{"/relative", ErrInvalid},
		{"", ErrInvalid},
		{"http://", ErrInvalid},
		{"http://a..b/", ErrInvalid},
		{"http://a`b/", ErrInvalid},
	} {
		t.Run(c.base, func(t *testing.T) {
			_, err := n.ParseBase(c.base)
			if !errors.Is(err, c.err) {
				t.Errorf("ParseBase(%q) error = %v, want %v", c.base, err, c.err)
			}
			if _, err := n.Resolve(c.base, "x"); !errors.Is(err, c.err) {
				t.Errorf("Resolve(%q, %q) error = %v, want %v", c.base, "x", err, c.err)
			}
		})
	}
}

func TestBaseString(t *testing.T) {
	n := defaultNormalizer(t)
	b, err := n.ParseBase("HTTP://Example.com:80/a/../b?q#f")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "http://example.com/b?q"; got != want {
		t.Errorf("Base.String() = %q, want %q", got, want)
	}
}

// A Base is shared by the goroutines that extract a page's links; the
// WHATWG path must not write to it. Run with -race.
func TestBaseConcurrent(t *testing.T) {
	n := defaultNormalizer(t)
	b, err := n.ParseBase(benchBase)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(benchRefs))
	for i, ref := range benchRefs {
		want[i], _ = b.resolveSlow(ref)
	}
	done := make(chan error)
	for range 4 {
		go func() {
			for i, ref := range benchRefs {
				got, _ := b.resolveSlow(ref)
				if got != want[i] {
					done <- errors.New("resolveSlow(" + ref + ") = " + got + ", want " + want[i])
					return
				}
				b.Resolve(ref)
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestPageResolver: resolving through a PageResolver, page after page and
// back, gives what Normalizer.Resolve gives, errors included.
func TestPageResolver(t *testing.T) {
	n, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r := n.PageResolver()
	for _, c := range []struct{ base, ref string }{
		{"http://a.example/dir/page", "../x?b=2&a=1"},
		{"http://a.example/dir/page", "y#frag"},
		{"https://b.example/", "/z"},
		{"mailto:someone@example.org", "x"}, // not a base a page can have
		{"mailto:someone@example.org", "/y"},
		{"http://a.example/dir/page", "//c.example/w"},
		{"http://a.example/dir/page", "javascript:void(0)"},
	} {
		got, gotErr := r.Resolve(c.base, c.ref)
		want, wantErr := n.Resolve(c.base, c.ref)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("Resolve(%q, %q) = %q, %v; Normalizer.Resolve gives %q, %v", c.base, c.ref, got, gotErr, want, wantErr)
		}
	}
}
