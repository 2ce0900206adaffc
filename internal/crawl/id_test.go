package crawl

import "testing"

// TestURLID: a URL ID takes its high bits from its host key and the rest
// from the URL's own hash, so a host's URLs share their first bits.
func TestURLID(t *testing.T) {
	hostOf := map[string]string{
		"http://a.test/":             "http://a.test",
		"http://a.test/x?y=1":        "http://a.test",
		"https://a.test:8443/p":      "https://a.test:8443",
		"http://[2001:db8::1]:80/q":  "http://[2001:db8::1]:80",
		"http://b.test?q":            "http://b.test",
		"http://xn--tda.test/%C3%BC": "http://xn--tda.test",
	}
	const high = ^uint64(urlLowMask)
	for u, host := range hostOf {
		id := URLID(u)
		if uint64(id)&high != uint64(HashID(host))&high {
			t.Errorf("URLID(%q) = %x: high bits not those of its host %q (%x)", u, uint64(id), host, uint64(HashID(host)))
		}
		if uint64(id)&^high != uint64(HashID(u))&^high {
			t.Errorf("URLID(%q) = %x: low bits not those of the URL's hash %x", u, uint64(id), uint64(HashID(u)))
		}
		if got := URLIDOf(HashID(u), HashID(host)); got != id {
			t.Errorf("URLIDOf(HashID(%q), HashID(%q)) = %x, want %x", u, host, uint64(got), uint64(id))
		}
	}
	if URLID("http://a.test/1") == URLID("http://a.test/2") {
		t.Error("two URLs of a host share an ID")
	}
}
