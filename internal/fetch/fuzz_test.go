package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParseRetryAfter: the result is always within [0, 24h], delta-seconds
// mean what they say, and an HTTP-date k seconds ahead means k seconds.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "120", " 7 ", "-1", "1e3", "99999999999999999999", "Sat, 01 Mar 2025 12:10:00 GMT", "Saturday, 01-Mar-25 13:00:00 GMT", "garbage"} {
		f.Add(s, uint32(90))
	}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string, k uint32) {
		d := parseRetryAfter(s, now)
		if d < 0 || d > maxRetryAfter {
			t.Fatalf("parseRetryAfter(%q) = %v, out of [0, %v]", s, d, maxRetryAfter)
		}
		secs := time.Duration(k%(24*3600+1)) * time.Second
		if got := parseRetryAfter(strconv.Itoa(int(secs/time.Second)), now); got != secs {
			t.Fatalf("parseRetryAfter(%q) = %v, want %v", strconv.Itoa(int(secs/time.Second)), got, secs)
		}
		date := now.Add(secs).Format(http.TimeFormat)
		if got := parseRetryAfter(date, now); got != secs {
			t.Fatalf("parseRetryAfter(%q) = %v, want %v", date, got, secs)
		}
	})
}

// FuzzMediaType: the result is "" or a lowercase type/subtype of token
// characters; it is idempotent and ignores parameters and ASCII case.
func FuzzMediaType(f *testing.F) {
	for _, s := range []string{"text/html", "Text/HTML; charset=utf-8", "", "html", "a/b/c", " image/png ", "tëxt/html"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := mediaType(s)
		if m != "" {
			typ, sub, ok := strings.Cut(m, "/")
			if !ok || typ == "" || sub == "" || strings.Contains(sub, "/") || m != strings.ToLower(m) {
				t.Fatalf("mediaType(%q) = %q, not a lowercase type/subtype", s, m)
			}
			for i := 0; i < len(m); i++ {
				if m[i] != '/' && !isTokenByte(m[i]) {
					t.Fatalf("mediaType(%q) = %q, with non-token byte %q", s, m, m[i])
				}
			}
		}
		if again := mediaType(m); again != m {
			t.Fatalf("mediaType(mediaType(%q)) = %q, want %q", s, again, m)
		}
		if !strings.Contains(s, ";") {
			if got := mediaType(s + "; charset=utf-8"); got != m {
				t.Fatalf("mediaType(%q) = %q, want %q as without the parameter", s+"; charset=utf-8", got, m)
			}
		}
		if got := mediaType(asciiUpper(s)); got != m {
			t.Fatalf("mediaType(%q) = %q, want %q as in lowercase", asciiUpper(s), got, m)
		}
	})
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// FuzzBlockedAddr: the verdict on an IPv4 address is the same in its
// IPv4-mapped IPv6 form, carries over to its NAT64 and 6to4 forms, ignores
// zones, and is the one the dial guard and the host check give.
func FuzzBlockedAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "8.8.8.8", "10.0.0.1", "::1", "fe80::1", "2001:4860::1", "64:ff9b::a00:1", "2002:a00:1::"} {
		f.Add(netip.MustParseAddr(s).AsSlice())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var raw [16]byte
		copy(raw[:], b)
		a := netip.AddrFrom16(raw)
		why, bad := blockedAddr(a)
		if bad && why == "" {
			t.Fatalf("blockedAddr(%s) blocked without a reason", a)
		}
		if _, z := blockedAddr(a.WithZone("eth0")); z != bad {
			t.Fatalf("blockedAddr(%s%%eth0) = %v, want %v as without zone", a, z, bad)
		}
		ap := netip.AddrPortFrom(a, 443)
		if err := controlDial(context.Background(), "tcp", ap.String(), nil); (err != nil) != bad {
			t.Fatalf("controlDial(%s) = %v, want blocked %v", ap, err, bad)
		}
		if err := checkHost(a.String()); (err != nil) != bad {
			t.Fatalf("checkHost(%s) = %v, want blocked %v", a, err, bad)
		}

		v4 := netip.AddrFrom4([4]byte(raw[:4]))
		_, bad4 := blockedAddr(v4)
		mapped := netip.AddrFrom16(v4.As16())
		nat := netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 10: 0, 11: 0, 12: raw[0], 13: raw[1], 14: raw[2], 15: raw[3]})
		six := netip.AddrFrom16([16]byte{0x20, 0x02, raw[0], raw[1], raw[2], raw[3], 15: 1})
		for _, form := range []netip.Addr{mapped, nat, six} {
			if _, got := blockedAddr(form); got != bad4 {
				t.Fatalf("blockedAddr(%s) = %v, want %v as for %s", form, got, bad4, v4)
			}
		}
	})
}

// FuzzCheckHost: the verdict ignores ASCII case and trailing dots, and is
// the address verdict for IP literals.
func FuzzCheckHost(f *testing.F) {
	for _, s := range []string{"localhost", "www.example-uni.test", "127.0.0.1", "0x7f.1", "2130706433", "::1", "ｌｏｃａｌｈｏｓｔ", "a.b.localhost."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		bad := checkHost(h) != nil
		for _, v := range []string{asciiUpper(h), h + ".", strings.TrimRight(h, ".")} {
			if got := checkHost(v) != nil; got != bad {
				t.Fatalf("checkHost(%q) blocked = %v, want %v as for %q", v, got, bad, h)
			}
		}
		if a, err := netip.ParseAddr(h); err == nil {
			if _, want := blockedAddr(a); want != bad {
				t.Fatalf("checkHost(%q) blocked = %v, want %v", h, bad, want)
			}
		}
		if l := strings.ToLower(strings.TrimRight(h, ".")); l == "localhost" || strings.HasSuffix(l, ".localhost") {
			if !bad {
				t.Fatalf("checkHost(%q) allowed a localhost name", h)
			}
		}
	})
}

// FuzzDecode: compressed data decodes to itself within the limit and is
// refused as too large beyond it, after reading exactly limit+1 bytes;
// arbitrary bytes under any encoding always answer within limit+1 bytes.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("<html><body>hello</body></html>"), uint16(100))
	f.Add([]byte{}, uint16(0))
	f.Add(bytes.Repeat([]byte{0}, 5000), uint16(4096))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, uint16(10))
	f.Fuzz(func(t *testing.T, data []byte, limit16 uint16) {
		limit := int64(limit16)
		for _, enc := range []string{"gzip", "deflate", "raw-deflate", "identity"} {
			compressed := compress(t, enc, data)
			if enc == "raw-deflate" {
				enc = "deflate"
			}
			got, read, err := decodeAll(enc, compressed, limit)
			switch {
			case int64(len(data)) <= limit:
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("decode(%s(%d bytes), limit %d) = %d bytes, %v; want the input", enc, len(data), limit, len(got), err)
				}
			default:
				if !errors.Is(err, errTooLarge) || got != nil || read != limit+1 {
					t.Fatalf("decode(%s(%d bytes), limit %d) = %d bytes, %v after reading %d; want errTooLarge after %d",
						enc, len(data), limit, len(got), err, read, limit+1)
				}
			}
			got, read, err = decodeAll(enc, data, limit)
			if read > limit+1 || int64(len(got)) > limit || err == nil && int64(len(got)) != read {
				t.Fatalf("decode(%s, %d raw bytes, limit %d) = %d bytes, %v after reading %d", enc, len(data), limit, len(got), err, read)
			}
		}
	})
}

// decodeAll decodes b and reads it with readBody, reporting how many
// decoded bytes were read.
func decodeAll(enc string, b []byte, limit int64) ([]byte, int64, error) {
	r, release, err := decoder(enc, bytes.NewReader(b))
	if err != nil {
		return nil, 0, err
	}
	defer release()
	cr := &countingReader{r: r}
	body, err := readBody(cr, nil, limit, -1)
	return body, cr.n, err
}

// Writers reused across fuzz inputs: creating a compressor costs far more
// than compressing a small input.
var (
	gzw, _  = gzip.NewWriterLevel(nil, gzip.BestSpeed)
	zlw, _  = zlib.NewWriterLevel(nil, zlib.BestSpeed)
	flw, _  = flate.NewWriter(nil, flate.BestSpeed)
	writers = map[string]interface {
		Reset(io.Writer)
		Write([]byte) (int, error)
		Close() error
	}{"gzip": gzw, "deflate": zlw, "raw-deflate": flw}
)

func compress(t *testing.T, enc string, data []byte) []byte {
	w, ok := writers[enc]
	if !ok {
		return data
	}
	var buf bytes.Buffer
	w.Reset(&buf)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
