package testweb

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// proxyClient returns a client that uses srv as its HTTP proxy.
func proxyClient(t *testing.T, srv *httptest.Server) *http.Client {
	t.Helper()
	pu, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{
		Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableCompression: true},
		Timeout:   10 * time.Second,
	}
}

// originClient returns a client that connects to srv whatever the URL's
// host, as a crawler with its own resolver would.
func originClient(t *testing.T, srv *httptest.Server) *http.Client {
	t.Helper()
	addr := srv.Listener.Addr().String()
	return &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, network, addr)
			},
			DisableCompression: true,
		},
		Timeout: 10 * time.Second,
	}
}

func get(t *testing.T, c *http.Client, rawURL string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read: %v", rawURL, err)
	}
	return resp, string(body)
}

func TestProxyAndOriginModes(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	srv := httptest.NewServer(w)
	defer srv.Close()
	for _, mode := range []struct {
		name   string
		client *http.Client
		proxy  bool
	}{
		{"proxy", proxyClient(t, srv), true},
		{"origin", originClient(t, srv), false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			w.ResetRequests()
			for _, u := range w.Seeds() {
				resp, body := get(t, mode.client, u)
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s = %d, want 200", u, resp.StatusCode)
				}
				if u == "http://www.northfield-university.test/" && !strings.Contains(body, "Northfield University") {
					t.Errorf("GET %s: body does not name the site", u)
				}
			}
			// Redirects are followed through the proxy, across hosts too.
			resp, _ := get(t, mode.client, "http://faults.test/redirect/1")
			if resp.StatusCode != 200 || resp.Request.URL.String() != "http://faults.test/landing" {
				t.Errorf("GET /redirect/1 ended at %s with %d, want http://faults.test/landing 200", resp.Request.URL, resp.StatusCode)
			}
			resp, _ = get(t, mode.client, "http://faults.test/elsewhere")
			if resp.Request.URL.String() != "http://www.northfield-university.test/about" {
				t.Errorf("GET /elsewhere ended at %s", resp.Request.URL)
			}
			reqs := w.Requests()
			if len(reqs) != len(w.Seeds())+6 {
				t.Errorf("%d requests logged, want %d", len(reqs), len(w.Seeds())+6)
			}
			for _, r := range reqs {
				if r.Proxy != mode.proxy {
					t.Errorf("logged %+v: Proxy = %v, want %v", r, r.Proxy, mode.proxy)
				}
				if r.Host == "" || r.Path == "" || r.Status == 0 || r.UserAgent == "" {
					t.Errorf("logged %+v: missing fields", r)
				}
			}
		})
	}
}

func TestUnknownHost(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	srv := httptest.NewServer(w)
	defer srv.Close()

	resp, _ := get(t, proxyClient(t, srv), "http://no-such-site.test/")
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("proxy GET unknown host = %d, want 502", resp.StatusCode)
	}
	resp, _ = get(t, proxyClient(t, srv), "http://www.northfield-university.test:8080/")
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("proxy GET known host on port 8080 = %d, want 502", resp.StatusCode)
	}
	resp, body := get(t, http.DefaultClient, srv.URL+"/")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("origin GET %s = %d, want 404", srv.URL, resp.StatusCode)
	}
	for _, s := range w.Sites() {
		if !strings.Contains(body, s.Origin+"/") {
			t.Errorf("unknown-host page does not list %s", s.Origin)
		}
	}
}

func TestMethods(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	for _, tc := range []struct {
		method, target string
		want           int
	}{
		{http.MethodConnect, "www.northfield-university.test:443", http.StatusMethodNotAllowed},
		{http.MethodPost, "http://www.northfield-university.test/login", http.StatusMethodNotAllowed},
		{http.MethodHead, "http://www.northfield-university.test/", http.StatusOK},
		{http.MethodGet, "http://www.northfield-university.test/no-such-page", http.StatusNotFound},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.target, nil))
			if rec.Code != tc.want {
				t.Errorf("%s %s = %d, want %d", tc.method, tc.target, rec.Code, tc.want)
			}
			if tc.method == http.MethodHead && rec.Body.Len() != 0 {
				t.Errorf("HEAD sent %d body bytes", rec.Body.Len())
			}
		})
	}
}

func TestConnectThroughProxy(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	srv := httptest.NewServer(w)
	defer srv.Close()
	_, err := proxyClient(t, srv).Get("https://www.northfield-university.test/")
	if err == nil || !strings.Contains(err.Error(), "Method Not Allowed") {
		t.Errorf("GET https:// through the proxy: err = %v, want the CONNECT refused", err)
	}
}

func TestConditionalRequests(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	for _, u := range []string{
		"http://www.northfield-university.test/",
		"http://www.karadeniz-universitesi.test/yayinlar/",
		"http://journal-of-applied-crawling.test/pdf/1001.pdf",
		"http://www.northfield-university.test/sitemap-pubs.xml.gz",
	} {
		t.Run(u, func(t *testing.T) {
			first := serve(t, w, u)
			etag, lm := first.Header().Get("ETag"), first.Header().Get("Last-Modified")
			if first.Code != 200 || etag == "" || lm == "" {
				t.Fatalf("GET %s = %d, ETag %q, Last-Modified %q", u, first.Code, etag, lm)
			}
			mod, err := http.ParseTime(lm)
			if err != nil {
				t.Fatalf("Last-Modified %q: %v", lm, err)
			}
			for _, tc := range []struct {
				header, value string
				want          int
			}{
				{"If-None-Match", etag, http.StatusNotModified},
				{"If-None-Match", `"other"`, http.StatusOK},
				{"If-Modified-Since", lm, http.StatusNotModified},
				{"If-Modified-Since", mod.Add(-time.Hour).Format(http.TimeFormat), http.StatusOK},
			} {
				if rec := serve(t, w, u, tc.header, tc.value); rec.Code != tc.want {
					t.Errorf("GET %s with %s: %s = %d, want %d", u, tc.header, tc.value, rec.Code, tc.want)
				}
			}
			if second := serve(t, w, u); second.Header().Get("ETag") != etag {
				t.Errorf("ETag changed between two GETs: %q, %q", etag, second.Header().Get("ETag"))
			}
		})
	}
}

func TestSessionIDs(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	const u = "http://shop.campus-store.test/catalog"
	a, b := serve(t, w, u), serve(t, w, u)
	la, lb := pageLinks(t, u, a.Body.Bytes()), pageLinks(t, u, b.Body.Bytes())
	if len(la) < 30 || len(la) != len(lb) {
		t.Fatalf("catalogue has %d and %d links", len(la), len(lb))
	}
	withSession := 0
	for i := range la {
		if !strings.HasPrefix(la[i], "http://shop.campus-store.test/") || strings.Contains(la[i], "/static/") || strings.HasSuffix(la[i], "/favicon.ico") {
			continue // other sites and assets
		}
		if !strings.Contains(la[i], ";jsessionid=") && !strings.Contains(la[i], "PHPSESSID=") {
			t.Errorf("internal link %s has no session id", la[i])
			continue
		}
		withSession++
		if la[i] == lb[i] {
			t.Errorf("link %s is the same in two responses: session ids must change", la[i])
		}
		info, ok := w.Lookup(la[i])
		if !ok {
			t.Errorf("Lookup(%q) found nothing", la[i])
			continue
		}
		if strings.Contains(info.Canonical, "sessionid") || strings.Contains(info.Canonical, "PHPSESSID") {
			t.Errorf("Lookup(%q).Canonical = %q keeps the session id", la[i], info.Canonical)
		}
		if !info.Disallowed {
			t.Errorf("Lookup(%q).Disallowed = false; the shop's robots.txt answers 500", la[i])
		}
	}
	if withSession < 30 {
		t.Errorf("only %d internal links", withSession)
	}
	if c := a.Header().Get("Set-Cookie"); !strings.HasPrefix(c, "JSESSIONID=") {
		t.Errorf("Set-Cookie = %q", c)
	}
}
