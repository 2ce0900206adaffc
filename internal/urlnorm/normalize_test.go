package urlnorm

import (
	"errors"
	"strings"
	"testing"
)

func defaultNormalizer(t testing.TB) *Normalizer {
	t.Helper()
	n, err := New(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// normCase is one Normalize example: want is the output, or err the
// sentinel the error must wrap.
type normCase struct {
	in   string
	want string
	err  error
}

// checkNormalize runs cases through Normalize and, separately, through the
// WHATWG path, so that every example also holds for the slow path.
func checkNormalize(t *testing.T, n *Normalizer, cases []normCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := n.Normalize(c.in)
			checkResult(t, "Normalize", c.in, got, err, c.want, c.err)
			if len(c.in) <= MaxLength {
				got, err = n.normalizeSlow(c.in)
				checkResult(t, "normalizeSlow", c.in, got, err, c.want, c.err)
			}
		})
	}
}

func checkResult(t *testing.T, op, in, got string, err error, want string, wantErr error) {
	t.Helper()
	switch {
	case wantErr != nil && !errors.Is(err, wantErr):
		t.Errorf("%s(%q) = %q, %v; want error %v", op, in, got, err, wantErr)
	case wantErr == nil && err != nil:
		t.Errorf("%s(%q) error: %v; want %q", op, in, err, want)
	case wantErr == nil && got != want:
		t.Errorf("%s(%q) = %q, want %q", op, in, got, want)
	}
}

// The five URLs of the source guide. Host case, the default port and the
// tracking parameter collapse; path case and the trailing slash do not,
// because paths are case-sensitive and removing a trailing slash is unsafe.
func TestNormalizeGuideExamples(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		{in: "http://Example.com/Products", want: "http://example.com/Products"},
		{in: "http://example.com/products", want: "http://example.com/products"},
		{in: "http://example.com/products/", want: "http://example.com/products/"},
		{in: "http://example.com:80/products", want: "http://example.com/products"},
		{in: "http://example.com/products?utm_source=email", want: "http://example.com/products"},
	})
	groups := map[string][]string{}
	for _, in := range []string{
		"http://Example.com/Products",
		"http://example.com/products",
		"http://example.com/products/",
		"http://example.com:80/products",
		"http://example.com/products?utm_source=email",
	} {
		got, err := n.Normalize(in)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", in, err)
		}
		groups[got] = append(groups[got], in)
	}
	want := map[string][]string{
		"http://example.com/Products":  {"http://Example.com/Products"},
		"http://example.com/products":  {"http://example.com/products", "http://example.com:80/products", "http://example.com/products?utm_source=email"},
		"http://example.com/products/": {"http://example.com/products/"},
	}
	for key, ins := range want {
		if strings.Join(groups[key], " ") != strings.Join(ins, " ") {
			t.Errorf("URLs normalizing to %q = %q, want %q", key, groups[key], ins)
		}
	}
	if len(groups) != len(want) {
		t.Errorf("got %d distinct URLs, want %d: %q", len(groups), len(want), groups)
	}
}

// RFC 3986 section 6.2: the comparison ladder's examples.
func TestNormalizeRFC3986Section6(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		// 6.2.2.1 case normalization
		{in: "HTTP://www.EXAMPLE.com/", want: "http://www.example.com/"},
		{in: "HTTP://www.Example.com/", want: "http://www.example.com/"},
		{in: "http://example.com/a%3ab", want: "http://example.com/a%3Ab"},
		{in: "http://example.com/a%3Ab", want: "http://example.com/a%3Ab"},
		// 6.2.2.2 percent-encoding normalization
		{in: "http://example.com/~smith/", want: "http://example.com/~smith/"},
		{in: "http://example.com/%7Esmith/", want: "http://example.com/~smith/"},
		{in: "http://example.com/%7esmith/", want: "http://example.com/~smith/"},
		// 6.2.2 all three, adapted to http
		{in: "HTTP://a/./b/../b/%63/%7bfoo%7d", want: "http://a/b/c/%7Bfoo%7D"},
		// 6.2.3 scheme-based normalization
		{in: "http://example.com", want: "http://example.com/"},
		{in: "http://example.com/", want: "http://example.com/"},
		{in: "http://example.com:/", want: "http://example.com/"},
		{in: "http://example.com:80/", want: "http://example.com/"},
	})
}

func TestNormalizeSchemeAndHost(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		{in: "HtTpS://Example.COM/", want: "https://example.com/"},
		{in: "http://bücher.example/", want: "http://xn--bcher-kva.example/"},
		{in: "http://BÜCHER.example/", want: "http://xn--bcher-kva.example/"},
		{in: "http://xn--bcher-kva.example/", want: "http://xn--bcher-kva.example/"},
		{in: "http://例え.テスト/", want: "http://xn--r8jz45g.xn--zckzah/"},
		{in: "http://example.com./", want: "http://example.com/"},
		{in: "http://example.com.:8080/", want: "http://example.com:8080/"},
		{in: "http://%65xample.com/", want: "http://example.com/"},
		{in: "http://my_host.example.com/", want: "http://my_host.example.com/"},
		{in: "http://-a-.example/", want: "http://-a-.example/"},
		{in: "http://www.example.com/", want: "http://www.example.com/"},
		// IPv4 in canonical dotted form
		{in: "http://192.168.0.1/", want: "http://192.168.0.1/"},
		{in: "http://192.168.0.1./", want: "http://192.168.0.1/"},
		{in: "http://0x7f.1/", want: "http://127.0.0.1/"},
		{in: "http://0.0.0.0/", want: "http://0.0.0.0/"},
		{in: "http://255.255.255.255:8080/", want: "http://255.255.255.255:8080/"},
		{in: "http://192.168.010.1/", want: "http://192.168.8.1/"},
		{in: "http://192.168.1/", want: "http://192.168.0.1/"},
		{in: "http://1.2.3.4.5/", err: ErrInvalid},
		{in: "http://1.2.3.256/", err: ErrInvalid},
		{in: "http://1234.2.3.4/", err: ErrInvalid},
		{in: "http://3232235521/", want: "http://192.168.0.1/"},
		{in: "http://0300.0250.0.1/", want: "http://192.168.0.1/"},
		// IPv6 in canonical form
		{in: "http://[2001:DB8:0:0:0:0:0:1]:8080/", want: "http://[2001:db8::1]:8080/"},
		{in: "http://[::FFFF:1.2.3.4]/", want: "http://[::ffff:102:304]/"},
		{in: "http://[::1]:80/", want: "http://[::1]/"},
		{in: "http://a.-b/", want: "http://a.-b/"},
		{in: "http://1-2/", want: "http://1-2/"},
		{in: "http://a-1.example-2/", want: "http://a-1.example-2/"},
		// whatwg-url v0.6.2 reads a signed number as IPv4 ("-1" as
		// 255.255.255.255); the standard does not, and these are refused.
		{in: "http://-0", err: ErrInvalid},
		{in: "http://-1/", err: ErrInvalid},
		{in: "http://0x-1/", err: ErrInvalid},
		{in: "http://%2D1/", err: ErrInvalid},
		{in: "http://\uff0d\uff11/", err: ErrInvalid},
		{in: "http://1.-1.0.0/", err: ErrInvalid},
		{in: "http://-1.2/", err: ErrInvalid},
		{in: "http://" + strings.Repeat("a", 63) + ".example/", want: "http://" + strings.Repeat("a", 63) + ".example/"},
		{in: "http://" + strings.Repeat("a.", 126) + "a/", want: "http://" + strings.Repeat("a.", 126) + "a/"},
		{in: "http://" + strings.Repeat("a.", 126) + "a./", want: "http://" + strings.Repeat("a.", 126) + "a/"},
		{in: "http://" + strings.Repeat("a", 64) + ".example/", err: ErrInvalid},
		{in: "http://" + strings.Repeat("a.", 127) + "a/", err: ErrInvalid},
		{in: "http://" + strings.Repeat("r", 60) + "ü.example/", err: ErrInvalid},
		// not hosts
		{in: "http://a..b/", err: ErrInvalid},
		{in: "http://.a/", err: ErrInvalid},
		{in: "http://a.b../", err: ErrInvalid},
		{in: "http://a`b/", err: ErrInvalid},
		{in: "http://a b/", err: ErrInvalid},
		{in: "http://xn--a.example/", err: ErrInvalid},
		{in: "http://1.2.3.256.5/", err: ErrInvalid},
		{in: "http://a.1/", err: ErrInvalid},
		{in: "http://[::1/", err: ErrInvalid},
		{in: "http://", err: ErrInvalid},
		{in: "http:///", err: ErrInvalid},
		{in: "http://:80/", err: ErrInvalid},
		{in: "http://user@/", err: ErrInvalid},
	})
}

func TestNormalizePort(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		{in: "http://a:80/", want: "http://a/"},
		{in: "https://a:443/", want: "https://a/"},
		{in: "https://a:80/", want: "https://a:80/"},
		{in: "http://a:443/", want: "http://a:443/"},
		{in: "http://a:0080/", want: "http://a/"},
		{in: "http://a:08080/", want: "http://a:8080/"},
		{in: "http://a:0/", want: "http://a:0/"},
		{in: "http://a:65535/", want: "http://a:65535/"},
		{in: "http://a:/x", want: "http://a/x"},
		{in: "http://a:65536/", err: ErrInvalid},
		{in: "http://a:8x/", err: ErrInvalid},
		{in: "http://a:1:2/", err: ErrInvalid},
	})
}

func TestNormalizePath(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		{in: "http://a", want: "http://a/"},
		{in: "http://a?x", want: "http://a/?x"},
		{in: "http://a/a/./b/../c", want: "http://a/a/c"},
		{in: "http://a/a/%2e/b/%2E%2e/c", want: "http://a/a/c"},
		{in: "http://a/a/.%2E/b", want: "http://a/b"},
		{in: "http://a/a/%2e./b", want: "http://a/b"},
		{in: "http://a/b/c/..", want: "http://a/b/"},
		{in: "http://a/b/c/.", want: "http://a/b/c/"},
		{in: "http://a/../../x", want: "http://a/x"},
		{in: "http://a/x%2ey/...", want: "http://a/x.y/..."},
		// percent-encoding: decode unreserved, uppercase the rest
		{in: "http://a/%41%42%2D%5F%2e%7e%30", want: "http://a/AB-_.~0"},
		{in: "http://a/%2F%3F%23%26%3D%25%2B%3A%40", want: "http://a/%2F%3F%23%26%3D%25%2B%3A%40"},
		{in: "http://a/%2f%3f%23%26%3d%25%2b", want: "http://a/%2F%3F%23%26%3D%25%2B"},
		{in: "http://a/%c3%a9", want: "http://a/%C3%A9"},
		{in: "http://a/100%", want: "http://a/100%25"},
		{in: "http://a/%zz%4", want: "http://a/%25zz%254"},
		// characters that must be encoded
		{in: "http://a/a b", want: "http://a/a%20b"},
		{in: "http://a/é", want: "http://a/%C3%A9"},
		{in: "http://a/日本", want: "http://a/%E6%97%A5%E6%9C%AC"},
		{in: "http://a/a|b^c[d]e`f{g}\"<>", want: "http://a/a%7Cb%5Ec%5Bd%5De%60f%7Bg%7D%22%3C%3E"},
		{in: "http://a/!$&'()*+,;=:@", want: "http://a/!$&'()*+,;=:@"},
		// never changed
		{in: "http://a/Products/Index.HTML", want: "http://a/Products/Index.HTML"},
		{in: "http://a/dir/", want: "http://a/dir/"},
		{in: "http://a/dir", want: "http://a/dir"},
		{in: "http://a/index.html", want: "http://a/index.html"},
		{in: "http://a//b//", want: "http://a//b//"},
		// browser parsing
		{in: "http:\\\\a\\b\\c", want: "http://a/b/c"},
		{in: "http:/a/b", want: "http://a/b"},
		{in: "http:a/b", want: "http://a/b"},
		{in: "http:////a/b", want: "http://a/b"},
		{in: "ht\ttp://a/\nb\r", want: "http://a/b"},
		{in: " \x00http://a/ b \x1f", want: "http://a/%20b"},
	})
}

func TestNormalizeFragmentAndUserinfo(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		{in: "http://a/b#frag", want: "http://a/b"},
		{in: "http://a/b#", want: "http://a/b"},
		{in: "http://a/b#c?d=1", want: "http://a/b"},
		{in: "http://a/b?x#y", want: "http://a/b?x"},
		{in: "http://user:pass@a/b", want: "http://a/b"},
		{in: "http://user@a:8080/b", want: "http://a:8080/b"},
		{in: "http://u@v@a/", want: "http://a/"},
		{in: "http://@a/", want: "http://a/"},
	})
}

func TestNormalizeQuery(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		{in: "http://a/?", want: "http://a/"},
		{in: "http://a/?#x", want: "http://a/"},
		{in: "http://a/?&&", want: "http://a/"},
		{in: "http://a/?a=&b", want: "http://a/?a=&b"},
		{in: "http://a/?b&a=", want: "http://a/?a=&b"},
		{in: "http://a/?a=1&b=2", want: "http://a/?a=1&b=2"},
		{in: "http://a/?b=2&a=1", want: "http://a/?a=1&b=2"},
		{in: "http://a/?b=1&a=2&a=1&c&a=0", want: "http://a/?a=2&a=1&a=0&b=1&c"},
		{in: "http://a/?a=1&&b=2&", want: "http://a/?a=1&b=2"},
		{in: "http://a/?=x&a", want: "http://a/?=x&a"},
		{in: "http://a/?Q=ABC&q=abc", want: "http://a/?Q=ABC&q=abc"},
		{in: "http://a/?q=a+b&r=a%20b", want: "http://a/?q=a+b&r=a%20b"},
		{in: "http://a/?x='y'", want: "http://a/?x=%27y%27"},
		{in: "http://a/?q=é", want: "http://a/?q=%C3%A9"},
		{in: "http://a/?a=%7e&b=%2f&c=%26d&e=%3d", want: "http://a/?a=~&b=%2F&c=%26d&e=%3D"},
		{in: "http://a/?a=%&b=%zz", want: "http://a/?a=%25&b=%25zz"},
		{in: "http://a/?f[x]=1&g=a|b\\c^{}`", want: "http://a/?f%5Bx%5D=1&g=a%7Cb%5Cc%5E%7B%7D%60"},
		{in: "http://a/?x=/?:@", want: "http://a/?x=/?:@"},
		// tracking parameters and session ids
		{in: "http://a/?utm_source=x&utm_medium=y", want: "http://a/"},
		{in: "http://a/?UTM_Source=x&id=1", want: "http://a/?id=1"},
		{in: "http://a/?utm%5Fsource=x&id=1", want: "http://a/?id=1"},
		{in: "http://a/?fbclid=1&gclid=2&q=go&dclid&msclkid=3", want: "http://a/?q=go"},
		{in: "http://a/?mc_eid=1&mc_cid=2&_ga=3&_gl=4&igshid=5&yclid=6&twclid=7&ref_src=8&spm=9&p=1", want: "http://a/?p=1"},
		{in: "http://a/?jsessionid=1&PHPSESSID=2&sid=3&sessionid=4&session_id=5&cfid=6&cftoken=7&x", want: "http://a/?x"},
		{in: "http://a/?ASPSESSIONIDQATCQRCB=1&x=1", want: "http://a/?x=1"},
		{in: "http://a/?sidebar=1&utm=2&xutm_source=3", want: "http://a/?sidebar=1&utm=2&xutm_source=3"},
		// session ids in the last path segment
		{in: "http://a/shop/item;jsessionid=ABC123?x=1", want: "http://a/shop/item?x=1"},
		{in: "http://a/shop/item;JSESSIONID=ABC;color=red", want: "http://a/shop/item;color=red"},
		{in: "http://a/item;phpsessid=1;sid=2", want: "http://a/item"},
		{in: "http://a/item;jsessionid", want: "http://a/item"},
		{in: "http://a/dir/;jsessionid=1", want: "http://a/dir/"},
		{in: "http://a/x;jsessionid=1/b", want: "http://a/x;jsessionid=1/b"},
		{in: "http://a/item;p=1", want: "http://a/item;p=1"},
		{in: "http://a/b/..;jsessionid=1", want: "http://a/b/..;jsessionid=1"},
		{in: "http://a/b/.;jsessionid=1", want: "http://a/b/.;jsessionid=1"},
	})
}

func TestNormalizeErrors(t *testing.T) {
	n := defaultNormalizer(t)
	checkNormalize(t, n, []normCase{
		{in: "mailto:someone@example.com", err: ErrUnsupportedScheme},
		{in: "javascript:void(0)", err: ErrUnsupportedScheme},
		{in: "JavaScript:alert(1)", err: ErrUnsupportedScheme},
		{in: " java\nscript:alert(1)", err: ErrUnsupportedScheme},
		{in: "tel:+441234567890", err: ErrUnsupportedScheme},
		{in: "data:text/plain,hello", err: ErrUnsupportedScheme},
		{in: "ftp://example.com/file", err: ErrUnsupportedScheme},
		{in: "file:///etc/passwd", err: ErrUnsupportedScheme},
		{in: "ws://example.com/", err: ErrUnsupportedScheme},
		{in: "httpx://example.com/", err: ErrUnsupportedScheme},
		{in: "ftp://[broken/", err: ErrUnsupportedScheme},
		// "localhost:8080" reads as scheme "localhost", in browsers too
		{in: "localhost:8080/x", err: ErrUnsupportedScheme},
		{in: "", err: ErrInvalid},
		{in: "/relative/path", err: ErrInvalid},
		{in: "example.com/x", err: ErrInvalid},
		{in: "//example.com/x", err: ErrInvalid},
		{in: "1http://a/", err: ErrInvalid},
		{in: "http://a/" + strings.Repeat("x", MaxLength), err: ErrInvalid},
	})
	// The output is bounded too, so that it always normalizes again.
	long := "http://a/" + strings.Repeat("é", (MaxLength-9)/2)
	if _, err := n.Normalize(long); !errors.Is(err, ErrInvalid) {
		t.Errorf("Normalize(%d bytes expanding to %d) error = %v, want ErrInvalid", len(long), 9+(len(long)-9)*3, err)
	}
	_, err := n.Normalize("mailto:x")
	var e *Error
	if !errors.As(err, &e) || e.Op != "normalize" || e.URL != "mailto:x" {
		t.Errorf("Normalize(%q) error = %#v, want an *Error", "mailto:x", err)
	}
	if got, want := err.Error(), `urlnorm: normalize "mailto:x": unsupported scheme`; got != want {
		t.Errorf("error text = %q, want %q", got, want)
	}
}

func TestOptions(t *testing.T) {
	n, err := New(Options{
		StripParams:    []string{"x", "Tr_*", "f[a]"},
		SortQuery:      true,
		KeepQueryOrder: []string{"shop.example.com", "*.example.org", "bücher.example", "Upper.Example."},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkNormalize(t, n, []normCase{
		{in: "http://a/?b=2&a=1", want: "http://a/?a=1&b=2"},
		{in: "http://shop.example.com/?b=2&a=1", want: "http://shop.example.com/?b=2&a=1"},
		{in: "http://SHOP.example.com.:8080/?b=2&a=1", want: "http://shop.example.com:8080/?b=2&a=1"},
		{in: "http://other.example.com/?b=2&a=1", want: "http://other.example.com/?a=1&b=2"},
		{in: "http://www.example.org/?b=2&a=1", want: "http://www.example.org/?b=2&a=1"},
		{in: "http://a.b.example.org/?b=2&a=1", want: "http://a.b.example.org/?b=2&a=1"},
		{in: "http://example.org/?b=2&a=1", want: "http://example.org/?a=1&b=2"},
		{in: "http://badexample.org/?b=2&a=1", want: "http://badexample.org/?a=1&b=2"},
		{in: "http://bücher.example/?b=2&a=1", want: "http://xn--bcher-kva.example/?b=2&a=1"},
		{in: "http://upper.example/?b=2&a=1", want: "http://upper.example/?b=2&a=1"},
		// stripping still applies where the order is kept
		{in: "http://shop.example.com/?x=1&b=2&TR_a=3&a=1", want: "http://shop.example.com/?b=2&a=1"},
		{in: "http://a/?f[a]=1&f%5bb%5d=2&F%5BA%5D=3", want: "http://a/?f%5Bb%5D=2"},
		// only StripParams is stripped: no defaults here
		{in: "http://a/?utm_source=1", want: "http://a/?utm_source=1"},
		{in: "http://a/p;x=1;jsessionid=2", want: "http://a/p;jsessionid=2"},
	})

	unsorted, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkNormalize(t, &Normalizer{}, []normCase{
		{in: "http://a/?b=2&a=1&utm_source=x", want: "http://a/?b=2&a=1&utm_source=x"},
	})
	checkNormalize(t, unsorted, []normCase{
		{in: "http://a/?b=2&a=1&utm_source=x", want: "http://a/?b=2&a=1&utm_source=x"},
		{in: "http://a/p;jsessionid=1", want: "http://a/p;jsessionid=1"},
	})
}

func TestNewBadPatterns(t *testing.T) {
	for _, opts := range []Options{
		{StripParams: []string{""}},
		{StripParams: []string{"*"}},
		{StripParams: []string{"a*b"}},
		{StripParams: []string{"a**"}},
		{StripParams: []string{"a=b"}},
		{StripParams: []string{"a&b"}},
		{KeepQueryOrder: []string{""}},
		{KeepQueryOrder: []string{"*"}},
		{KeepQueryOrder: []string{"*.*.example.com"}},
		{KeepQueryOrder: []string{"a..b"}},
		{KeepQueryOrder: []string{"a/b"}},
		{KeepQueryOrder: []string{"a:8080"}},
		{KeepQueryOrder: []string{"exa mple.com"}},
		{KeepQueryOrder: []string{"example.com.."}},
		{KeepQueryOrder: []string{"*."}},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", opts)
		}
	}
	if _, err := New(DefaultOptions()); err != nil {
		t.Errorf("New(DefaultOptions()): %v", err)
	}
}

// KeepQueryOrder takes every host that Normalize puts in a URL: the WHATWG
// host parser allows '_' and puts no rule on hyphens (as in YouTube's
// "r3---sn-....googlevideo.com"), which the IDNA Lookup profile refuses.
func TestKeepQueryOrderHostsAsNormalized(t *testing.T) {
	hosts := []string{"my_host.example.com", "r3---sn-4g5e6nsz.googlevideo.com", "-a-.example", "ab--cd.example"}
	patterns := append([]string{"*.my_sub.example"}, hosts...)
	n, err := New(Options{SortQuery: true, KeepQueryOrder: patterns})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	cases := []normCase{
		{in: "http://a.My_Sub.example/?b&a", want: "http://a.my_sub.example/?b&a"},
		{in: "http://my_sub.example/?b&a", want: "http://my_sub.example/?a&b"},
	}
	for _, h := range hosts {
		cases = append(cases, normCase{in: "http://" + h + "/?b&a", want: "http://" + h + "/?b&a"})
	}
	checkNormalize(t, n, cases)
}
