package urlnorm

import (
	"errors"
	"net/url"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// fuzzSeeds are the URLs every fuzz target starts from.
func fuzzSeeds() []string {
	seeds := append([]string(nil), benchURLs...)
	seeds = append(seeds, benchRefs...)
	return append(seeds,
		"http://a/%2e%2E/./b/..;jsessionid=1",
		"http:\\\\a\\b",
		"ht\ttp://a/\nb",
		"http://0x7f.1/",
		"http://1.2.3.4/",
		"http://01.2.3.4:0/",
		"http://1.2.3.4.5/",
		"http://256.1.1.1/",
		"http://-1.example/",
		"http://[::FFFF:1.2.3.4]:0080/",
		"http://a.b../",
		"http://a:65536/",
		"http://a/?b&a=&utm_x=1&&",
		"http://a/x?q='|'[]#y",
		"http://a_b.example./",
		"https://例え.テスト/パス?キー=値",
	)
}

// checkNormalized fails unless got, the output for in, is a normalized URL:
// absolute http(s) that net/url parses, in RFC 3986 syntax, with no
// fragment or userinfo, that normalizes to itself.
func checkNormalized(t *testing.T, n *Normalizer, in, got string) {
	t.Helper()
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("output for %q = %q, which url.Parse rejects: %v", in, got, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" || u.User != nil || u.Fragment != "" {
		t.Fatalf("output for %q = %q, not an absolute http(s) URL without fragment or userinfo", in, got)
	}
	if len(got) > MaxLength {
		t.Fatalf("output for %q is %d bytes, more than MaxLength", in, len(got))
	}
	for i := range len(got) {
		if c := got[i]; c <= ' ' || c >= 0x7f || c == '#' {
			t.Fatalf("output for %q = %q has byte %q at %d", in, got, c, i)
		}
	}
	again, err := n.Normalize(got)
	if err != nil || again != got {
		t.Fatalf("Normalize(%q) = %q, %v; not idempotent (input %q)", got, again, err, in)
	}
	if HostKey(got)+PathQuery(got) != got {
		t.Fatalf("HostKey(%q) + PathQuery = %q + %q", got, HostKey(got), PathQuery(got))
	}
	if h := Hostname(got); h != u.Hostname() {
		t.Fatalf("Hostname(%q) = %q, url.Parse says %q", got, h, u.Hostname())
	}
	// A URL ID's host bits are its host key's: the stores' migrations to
	// crawl.URLID compute them from the host's ID.
	if id, want := crawl.URLID(got), crawl.URLIDOf(crawl.HashID(got), crawl.HashID(HostKey(got))); id != want {
		t.Fatalf("URLID(%q) = %d, from its host key %q %d", got, id, HostKey(got), want)
	}
}

// checkErr fails unless err wraps exactly one of the package's sentinels.
func checkErr(t *testing.T, op, in string, err error) {
	t.Helper()
	if errors.Is(err, ErrUnsupportedScheme) == errors.Is(err, ErrInvalid) {
		t.Fatalf("%s(%q) error %v wraps neither or both sentinels", op, in, err)
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	n := defaultNormalizer(f)
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := n.Normalize(raw)
		if err != nil {
			checkErr(t, "Normalize", raw, err)
			return
		}
		checkNormalized(t, n, raw, got)
	})
}

func FuzzResolve(f *testing.F) {
	for _, base := range fuzzBases {
		for _, ref := range fuzzSeeds() {
			f.Add(base, ref)
		}
	}
	n := defaultNormalizer(f)
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := n.ParseBase(base)
		if err != nil {
			checkErr(t, "ParseBase", base, err)
			return
		}
		got, err := b.Resolve(ref)
		if err != nil {
			checkErr(t, "Resolve", ref, err)
			return
		}
		checkNormalized(t, n, ref, got)
		// A normalized URL is a fixed point of resolution too.
		nb, err := n.ParseBase(got)
		if err != nil {
			t.Fatalf("ParseBase(%q): %v", got, err)
		}
		if again, err := nb.Resolve(""); again != got || err != nil {
			t.Fatalf("ParseBase(%q).Resolve(\"\") = %q, %v", got, again, err)
		}
	})
}

// sameOutcome fails unless the fast and the WHATWG path agree.
func sameOutcome(t *testing.T, in, fast string, fastErr error, slow string, slowErr error) {
	t.Helper()
	if fast != slow || (fastErr == nil) != (slowErr == nil) ||
		errors.Is(fastErr, ErrUnsupportedScheme) != errors.Is(slowErr, ErrUnsupportedScheme) {
		t.Fatalf("%q: fast path = %q, %v; WHATWG path = %q, %v", in, fast, fastErr, slow, slowErr)
	}
}

// FuzzNormalizeFast checks that the fast path of Normalize agrees with the
// WHATWG path wherever it answers.
func FuzzNormalizeFast(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	n := defaultNormalizer(f)
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > MaxLength {
			return
		}
		fast, ok, fastErr := n.normalizeFast(raw)
		if !ok {
			return
		}
		slow, slowErr := n.normalizeSlow(raw)
		sameOutcome(t, raw, fast, fastErr, slow, slowErr)
	})
}

// FuzzResolveFast checks that the fast path of Base.Resolve agrees with the
// WHATWG path wherever it answers.
func FuzzResolveFast(f *testing.F) {
	for _, base := range fuzzBases {
		for _, ref := range fuzzSeeds() {
			f.Add(base, ref)
		}
	}
	n := defaultNormalizer(f)
	f.Fuzz(func(t *testing.T, base, ref string) {
		if len(ref) > MaxLength {
			return
		}
		b, err := n.ParseBase(base)
		if err != nil {
			return
		}
		fast, ok, fastErr := b.resolveFast(ref)
		if !ok {
			return
		}
		slow, slowErr := b.resolveSlow(ref)
		sameOutcome(t, ref, fast, fastErr, slow, slowErr)
	})
}

// FuzzParseBaseFast checks that the parts of a base read without the
// WHATWG parser are those the WHATWG parser gives, wherever that reading
// answers.
func FuzzParseBaseFast(f *testing.F) {
	for _, s := range append(fuzzSeeds(), fuzzBases...) {
		f.Add(s)
	}
	for _, s := range []string{"http://a:80/", "https://a:443/b", "http://a:0443/", "HTTP://A.Example/B?C",
		"http://a/b/%2E/c", "http://a/b/.%2e", "http://a/..x/.y/", "http://a/{b}", "http://a/?'", "http://a?q",
		"http://a/b/c.", "http://a/%2e%2e%2e/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, base string) {
		if len(base) > MaxLength {
			return
		}
		fast, ok := basePartsFast(base)
		if !ok {
			return
		}
		u, err := whatwg.Parse(base)
		if err != nil {
			t.Fatalf("basePartsFast(%q) = %+v; the WHATWG parser fails: %v", base, fast, err)
		}
		slow, err := partsOf(u)
		if err != nil || fast != slow {
			t.Fatalf("basePartsFast(%q) = %+v; the WHATWG parser's = %+v, %v", base, fast, slow, err)
		}
	})
}
