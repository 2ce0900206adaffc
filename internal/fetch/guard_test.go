package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestBlockedAddr(t *testing.T) {
	blocked := []string{
		"127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"169.254.169.254", "0.0.0.0", "0.1.2.3", "100.64.0.1", "100.127.255.255", "224.0.0.1",
		"239.255.255.250", "255.255.255.255", "240.0.0.1", "192.0.2.1", "198.18.0.1", "192.0.0.8",
		"::", "::1", "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0", "ff02::1", "fec0::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
		"64:ff9b::10.0.0.1", "64:ff9b::127.0.0.1", "64:ff9b:1::1", "2002:7f00:1::1", "2002:a00:1::",
		"::ffff:0:10.0.0.1", "2001:db8::1", "100::1",
		"2001::1", "2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:2::1", "3fff::1", // Teredo, benchmarking, documentation
	}
	allowed := []string{
		"8.8.8.8", "93.184.215.14", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1",
		"11.0.0.1", "192.169.0.1", "2001:4860:4860::8888", "2606:4700::1111", "::ffff:8.8.8.8",
		"64:ff9b::8.8.8.8", "2002:808:808::1", "2001:200::1", "2001:1::1",
	}
	for _, s := range blocked {
		if why, bad := blockedAddr(netip.MustParseAddr(s)); !bad {
			t.Errorf("blockedAddr(%s) = %q, false; want blocked", s, why)
		}
	}
	for _, s := range allowed {
		if why, bad := blockedAddr(netip.MustParseAddr(s)); bad {
			t.Errorf("blockedAddr(%s) = %q, true; want allowed", s, why)
		}
	}
	if _, bad := blockedAddr(netip.Addr{}); !bad {
		t.Errorf("blockedAddr(zero Addr) allowed, want blocked")
	}
}

func TestCheckHost(t *testing.T) {
	blocked := []string{
		"localhost", "LOCALHOST", "localhost.", "localhost..", "a.localhost", "www.Example.LocalHost.",
		"127.0.0.1", "127.0.0.1.", "::1", "fe80::1%25en0", "10.0.0.1", "::ffff:7f00:1",
		"2130706433", "0x7f000001", "0x7f.1", "127.1", "017700000001", "www.example.123", "a.0x",
		"ｌｏｃａｌｈｏｓｔ", "", ".",
	}
	allowed := []string{
		"www.example-uni.test", "example.org", "EXAMPLE.ORG.", "8.8.8.8", "2001:4860:4860::8888",
		"localhost.example.org", "mylocalhost", "1password.com", "www.example.0xz", "xn--bcher-kva.example", "bücher.example",
	}
	for _, h := range blocked {
		if err := checkHost(h); err == nil {
			t.Errorf("checkHost(%q) = nil, want blocked", h)
		}
	}
	for _, h := range allowed {
		if err := checkHost(h); err != nil {
			t.Errorf("checkHost(%q) = %v, want nil", h, err)
		}
	}
}

func TestBlocked(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	c := newClient(t, Config{})

	for _, u := range []string{
		srv.URL,
		fmt.Sprintf("http://localhost:%d/", port), // resolves to loopback
		fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port),
		"http://169.254.169.254/latest/meta-data/",
	} {
		t.Run(u, func(t *testing.T) {
			e := fetchKind(t, c, Request{URL: u}, KindBlocked)
			var be *blockedError
			if !errors.As(e, &be) || e.Temporary() {
				t.Errorf("Fetch(%q) = %v; want a blockedError, not Temporary", u, e)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server received %d requests, want none", n)
	}
	t.Run("AllowPrivate", func(t *testing.T) {
		c := newClient(t, Config{AllowPrivate: true})
		mustFetch(t, c, Request{URL: fmt.Sprintf("http://localhost:%d/", port)})
		mustFetch(t, c, Request{URL: srv.URL})
	})
}

// TestDialOverride uses Config.Dial to make a loopback server answer for
// a public-looking name, as a resolver would: what the guard checks is the
// address handed to Dial, including on every redirect hop.
func TestDialOverride(t *testing.T) {
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("private server reached: %s", r.URL)
	}))
	defer private.Close()
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, private.URL+"/", http.StatusFound)
		case "/to-localhost":
			http.Redirect(w, r, "http://localhost/", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page)
		}
	}))
	defer public.Close()
	var mu sync.Mutex
	var dialled []string
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		if addr == "www.example-uni.test:80" {
			addr = public.Listener.Addr().String()
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	c := newClient(t, Config{Dial: dial})

	resp := mustFetch(t, c, Request{URL: "http://www.example-uni.test/"})
	if string(resp.Body) != page {
		t.Errorf("Fetch(www.example-uni.test) = %q, want the page", resp.Body)
	}
	for _, tt := range []struct {
		url    string
		follow int
	}{
		{"http://www.example-uni.test/to-private", 5},
		{"http://www.example-uni.test/to-localhost", 5},
		{"http://localhost/", 0},
		{"http://2130706433/", 0},
		{"http://[fd00::1]/", 0},
	} {
		t.Run(tt.url, func(t *testing.T) {
			fetchKind(t, c, Request{URL: tt.url, FollowRedirects: tt.follow}, KindBlocked)
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range dialled {
		if a != "www.example-uni.test:80" {
			t.Errorf("Dial called for %s, want only www.example-uni.test:80", a)
		}
	}
}

// proxyServer is an HTTP proxy that serves www.example-uni.test itself.
func proxyServer(t *testing.T) (srv *httptest.Server, seen func() []string) {
	var mu sync.Mutex
	var hosts []string
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		if r.Host != "www.example-uni.test" {
			http.Error(w, "unknown host", http.StatusBadGateway)
			return
		}
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, "http://10.0.0.1/", http.StatusFound)
		case "/to-localhost":
			http.Redirect(w, r, "http://printer.localhost/", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<p>via proxy: %s</p>", r.URL)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), hosts...)
	}
}

func TestProxy(t *testing.T) {
	proxy, seen := proxyServer(t)
	c := newClient(t, Config{Proxy: proxy.URL})

	resp := mustFetch(t, c, Request{URL: "http://www.example-uni.test/people"})
	if want := "<p>via proxy: http://www.example-uni.test/people</p>"; string(resp.Body) != want {
		t.Errorf("Fetch through proxy = %q, want %q", resp.Body, want)
	}
	for _, tt := range []struct {
		url    string
		follow int
	}{
		{"http://127.0.0.1:1/", 0},
		{"http://localhost/", 0},
		{"http://[::1]/", 0},
		{"http://0x7f.1/", 0},
		{"http://www.example-uni.test/to-private", 3},
		{"http://www.example-uni.test/to-localhost", 3},
	} {
		t.Run(tt.url, func(t *testing.T) {
			fetchKind(t, c, Request{URL: tt.url, FollowRedirects: tt.follow}, KindBlocked)
		})
	}
	for _, h := range seen() {
		if h != "www.example-uni.test" {
			t.Errorf("proxy received a request for %q", h)
		}
	}
	t.Run("AllowPrivate", func(t *testing.T) {
		c := newClient(t, Config{Proxy: proxy.URL, AllowPrivate: true})
		resp := mustFetch(t, c, Request{URL: "http://localhost/"})
		if resp.Status != http.StatusBadGateway {
			t.Errorf("Fetch(localhost) through proxy = %d, want the proxy's 502", resp.Status)
		}
	})
	t.Run("proxy down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		c := newClient(t, Config{Proxy: addr}) // host:port means http
		fetchKind(t, c, Request{URL: "http://www.example-uni.test/"}, KindConnect)
	})
}

func TestProxyFromEnvironment(t *testing.T) {
	proxy, _ := proxyServer(t)
	for k, v := range map[string]string{
		"http_proxy": proxy.URL, "HTTP_PROXY": "", "https_proxy": "", "HTTPS_PROXY": "",
		"no_proxy": "", "NO_PROXY": "", "REQUEST_METHOD": "",
	} {
		t.Setenv(k, v)
	}
	c, err := New(Config{UserAgent: testUA})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp := mustFetch(t, c, Request{URL: "http://www.example-uni.test/"})
	if !strings.HasPrefix(string(resp.Body), "<p>via proxy") {
		t.Errorf("Fetch with http_proxy set = %q, want the proxy's answer", resp.Body)
	}
	// The environment's rules never proxy localhost; it is dialled directly
	// and refused.
	fetchKind(t, c, Request{URL: "http://localhost:1/"}, KindBlocked)
	// Only connections made to reach the proxy skip the guard, not direct
	// requests to the proxy's address.
	fetchKind(t, c, Request{URL: proxy.URL + "/"}, KindBlocked)

	t.Run("none", func(t *testing.T) {
		direct := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<p>direct</p>")
		}))
		defer direct.Close()
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == "www.example-uni.test:80" {
				addr = direct.Listener.Addr().String()
			}
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
		c, err := New(Config{UserAgent: testUA, Proxy: "none", Dial: dial})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		resp := mustFetch(t, c, Request{URL: "http://www.example-uni.test/"})
		if string(resp.Body) != "<p>direct</p>" {
			t.Errorf("Fetch with Proxy none = %q, want the server's own answer", resp.Body)
		}
	})
}

// TestLocalhostNamesRefusedWithoutDNS: names that are loopback by
// definition (RFC 6761) are refused before any resolver is asked, with a
// permanent error that matches ErrPrivate; AllowPrivate lifts it.
func TestLocalhostNamesRefusedWithoutDNS(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	c := newClient(t, Config{})
	var lookups atomic.Int32
	c.checked.Resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		lookups.Add(1)
		return nil, errors.New("no DNS in tests")
	}}
	for _, u := range []string{
		fmt.Sprintf("http://a.localhost:%d/", port),
		fmt.Sprintf("http://Deep.Name.LOCALHOST.:%d/", port),
		fmt.Sprintf("http://localhost:%d/", port),
		srv.URL, // an IP literal: refused by range, no lookup either
	} {
		resp, err := c.Fetch(context.Background(), Request{URL: u})
		e := requireKind(t, u, resp, err, KindBlocked)
		if !errors.Is(err, ErrPrivate) || e.Temporary() {
			t.Errorf("Fetch(%q) = %v; want an error matching ErrPrivate, not Temporary", u, err)
		}
		if got, want := e.Kind.String(), "refused"; got != want {
			t.Errorf("Fetch(%q) kind = %q, want %q", u, got, want)
		}
	}
	if n := lookups.Load(); n != 0 {
		t.Errorf("resolver asked %d times, want none", n)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server received %d requests, want none", n)
	}
}
