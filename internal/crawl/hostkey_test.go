package crawl_test

import (
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

func TestHostKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://a.test/x/y", "http://a.test"},
		{"http://a.test/", "http://a.test"},
		{"http://a.test", "http://a.test"},
		{"http://a.test?q=1", "http://a.test"},    // a query right after the authority
		{"http://a.test#frag", "http://a.test"},   // a fragment right after the authority
		{"http://a.test/p?q=/x", "http://a.test"}, // a slash in the query
		{"https://b.test:8443", "https://b.test:8443"},
		{"https://b.test:8443/", "https://b.test:8443"},
		{"http://[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080"},
		{"http://[::1]/", "http://[::1]"},
		{"http://user:pw@c.test/?q=1", "http://user:pw@c.test"}, // userinfo kept; Normalize drops it
		{"http:///path", "http://"},
		{"no scheme/path", ""},
		{"mailto:a@b.test", ""},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := crawl.HostKey(tc.in); got != tc.want {
				t.Errorf("HostKey(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestURLIDOfANonURL: a text without "://" is its own host key in its ID,
// as IDs were computed before HostKey answered "" for it.
func TestURLIDOfANonURL(t *testing.T) {
	const high = ^uint64(1<<(64-crawl.URLHostBits) - 1)
	for _, s := range []string{"", "x", "no scheme/path"} {
		if got, want := uint64(crawl.URLID(s))&high, uint64(crawl.HashID(s))&high; got != want {
			t.Errorf("URLID(%q) high bits %x, want %x (its own hash)", s, got, want)
		}
	}
}

// FuzzHostKey: the host key is the beginning of its input up to the first
// "/", "?" or "#" after "://" (empty without "://"); of a normalized URL
// it is the scheme and host net/url finds, urlnorm.HostKey agrees, and the
// URL's ID takes its high bits from the key's hash.
func FuzzHostKey(f *testing.F) {
	for _, s := range []string{"http://a.test/x", "https://b.test:8443", "x://", "://a/b", "a/b://c/d",
		"http://a.test?q", "http://[::1]:80#f", "HTTP://User@Ex.Test:80/a", "http://a.test:0080/"} {
		f.Add(s)
	}
	n, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, u string) {
		k := crawl.HostKey(u)
		i := strings.Index(u, "://")
		if i < 0 {
			if k != "" {
				t.Fatalf("HostKey(%q) = %q, want empty: no \"://\"", u, k)
			}
		} else {
			if !strings.HasPrefix(u, k) || len(k) < i+3 || strings.ContainsAny(k[i+3:], "/?#") {
				t.Fatalf("HostKey(%q) = %q, want its beginning up to the authority's end", u, k)
			}
			if rest := u[len(k):]; rest != "" && !strings.ContainsRune("/?#", rune(rest[0])) {
				t.Fatalf("HostKey(%q) = %q, which ends inside the authority", u, k)
			}
			if kk := crawl.HostKey(k); kk != k {
				t.Fatalf("HostKey(HostKey(%q)) = %q, want %q", u, kk, k)
			}
		}
		norm, err := n.Normalize(u)
		if err != nil {
			return
		}
		k = crawl.HostKey(norm)
		p, err := url.Parse(norm)
		if err != nil {
			t.Fatalf("url.Parse(Normalize(%q) = %q): %v", u, norm, err)
		}
		if want := p.Scheme + "://" + p.Host; k != want {
			t.Fatalf("HostKey(%q) = %q, want %q (net/url)", norm, k, want)
		}
		if uk := urlnorm.HostKey(norm); uk != k {
			t.Fatalf("urlnorm.HostKey(%q) = %q, crawl.HostKey %q", norm, uk, k)
		}
		const high = ^uint64(1<<(64-crawl.URLHostBits) - 1)
		if uint64(crawl.URLID(norm))&high != uint64(crawl.HashID(k))&high {
			t.Fatalf("URLID(%q): high bits not those of its host key %q", norm, k)
		}
	})
}

// TestHostBits: a URL's ID has its host's bits, the span of those bits
// holds both IDs and is ordered as signed IDs are, its ends have the same
// bits, and the IDs just outside it have others.
func TestHostBits(t *testing.T) {
	for _, u := range []string{"http://a.test/x", "https://b.test:8443/y?q", "http://[::1]/", "http://c.test"} {
		host := crawl.HashID(crawl.HostKey(u))
		id := crawl.URLID(u)
		bits := crawl.HostBits(host)
		if crawl.HostBits(id) != bits {
			t.Errorf("HostBits(URLID(%q)) = %x, want its host's %x", u, crawl.HostBits(id), bits)
		}
		if bits >= 1<<crawl.URLHostBits {
			t.Errorf("HostBits(%q's host) = %x, more than %d bits", u, bits, crawl.URLHostBits)
		}
		lo, hi := crawl.HostBitsSpan(bits)
		if !(lo <= host && host <= hi && lo <= id && id <= hi) {
			t.Errorf("span of %q [%d, %d] does not hold host %d and URL %d", u, lo, hi, host, id)
		}
		if crawl.HostBits(lo) != bits || crawl.HostBits(hi) != bits {
			t.Errorf("span of %q [%x, %x]: ends of other bits", u, uint64(lo), uint64(hi))
		}
	}
	for _, bits := range []uint64{0, 1, 1<<(crawl.URLHostBits-1) - 1, 1 << (crawl.URLHostBits - 1), 1<<crawl.URLHostBits - 1} {
		lo, hi := crawl.HostBitsSpan(bits)
		if lo > hi {
			t.Errorf("span of %x: [%d, %d] out of order", bits, lo, hi)
		}
		if crawl.HostBits(lo) != bits || crawl.HostBits(hi) != bits {
			t.Errorf("span of %x: [%x, %x] has other bits", bits, uint64(lo), uint64(hi))
		}
		if lo != math.MinInt64 && crawl.HostBits(lo-1) == bits {
			t.Errorf("span of %x: %x below it has its bits", bits, uint64(lo-1))
		}
		if hi != math.MaxInt64 && crawl.HostBits(hi+1) == bits {
			t.Errorf("span of %x: %x above it has its bits", bits, uint64(hi+1))
		}
	}
}

// FuzzRelURL: FullURL undoes RelURL for any text and key; the text kept
// is what follows the key when the text begins with it up to a "/", "?",
// "#" or its end (so a URL's own host key always cuts it), and the text
// behind a "!" otherwise.
func FuzzRelURL(f *testing.F) {
	for _, s := range [][2]string{{"http://a.test/x", "http://a.test"}, {"http://a.test", "http://a.test"},
		{"http://a.test.evil/x", "http://a.test"}, {"/x", "http://a.test"}, {"!x", ""}, {"", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, u, key string) {
		rel := crawl.RelURL(u, key)
		if back := crawl.FullURL(rel, key); back != u {
			t.Fatalf("FullURL(RelURL(%q, %q) = %q) = %q", u, key, rel, back)
		}
		rest, cut := strings.CutPrefix(u, key)
		cut = cut && (rest == "" || strings.ContainsRune("/?#", rune(rest[0])))
		if cut && rel != rest || !cut && rel != "!"+u {
			t.Fatalf("RelURL(%q, %q) = %q", u, key, rel)
		}
		if k := crawl.HostKey(u); k != "" && strings.HasPrefix(crawl.RelURL(u, k), "!") {
			t.Fatalf("RelURL(%q, its host key %q) = %q, kept whole", u, k, crawl.RelURL(u, k))
		}
	})
}
