package fetch

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

const page = "<!doctype html><html><head><title>Lab</title></head><body><p>Research group</p></body></html>"

func TestFetchHTML(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Content-Type", "Text/HTML; charset=UTF-8")
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	resp := mustFetch(t, c, Request{URL: srv.URL + "/group#members"})
	if resp.Status != 200 || string(resp.Body) != page {
		t.Fatalf("Fetch = %d %q, want 200 %q", resp.Status, resp.Body, page)
	}
	checks := []struct{ name, got, want string }{
		{"URL", resp.URL, srv.URL + "/group"},
		{"MediaType", resp.MediaType, "text/html"},
		{"ContentType", resp.ContentType, "Text/HTML; charset=UTF-8"},
		{"Header ETag", resp.Header.Get("ETag"), `"v1"`},
		{"sent User-Agent", got.Get("User-Agent"), testUA},
		{"sent Accept", got.Get("Accept"), acceptHeader},
		{"sent Accept-Encoding", got.Get("Accept-Encoding"), "gzip, deflate"},
		{"sent If-None-Match", got.Get("If-None-Match"), ""},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %q, want %q", ch.name, ch.got, ch.want)
		}
	}
	if resp.Bytes != int64(len(page)) || resp.WireBytes <= resp.Bytes || resp.Duration <= 0 {
		t.Errorf("Bytes, WireBytes, Duration = %d, %d, %v; want %d, more, positive",
			resp.Bytes, resp.WireBytes, resp.Duration, len(page))
	}
	if resp.BodySkipped || resp.Location != "" || resp.RetryAfter != 0 {
		t.Errorf("BodySkipped, Location, RetryAfter = %v, %q, %v; want zero", resp.BodySkipped, resp.Location, resp.RetryAfter)
	}
}

func TestStatusIsAResult(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/missing":
			w.WriteHeader(http.StatusNotFound)
		case "/busy":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/slow-down":
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
		}
		fmt.Fprint(w, "<p>sorry</p>")
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	tests := []struct {
		path       string
		status     int
		retryAfter time.Duration // lower bound
	}{
		{"/missing", 404, 0},
		{"/busy", 503, 120 * time.Second},
		{"/slow-down", 429, 59 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := mustFetch(t, c, Request{URL: srv.URL + tt.path})
			if resp.Status != tt.status || string(resp.Body) != "<p>sorry</p>" {
				t.Errorf("Fetch(%q) = %d %q, want %d with body", tt.path, resp.Status, resp.Body, tt.status)
			}
			if resp.RetryAfter < tt.retryAfter || resp.RetryAfter > tt.retryAfter+2*time.Minute {
				t.Errorf("Fetch(%q).RetryAfter = %v, want about %v", tt.path, resp.RetryAfter, tt.retryAfter)
			}
		})
	}
}

func TestCompression(t *testing.T) {
	html := []byte(strings.Repeat(page, 50))
	var zl, raw bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write(html)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write(html)
	fw.Close()
	corrupt := gzipBytes(t, html)
	corrupt[len(corrupt)/2] ^= 0xff
	badCRC := gzipBytes(t, html)
	badCRC[len(badCRC)-6] ^= 0xff

	bodies := map[string]struct {
		encoding string
		body     []byte
	}{
		"/gzip":        {"gzip", gzipBytes(t, html)},
		"/x-gzip":      {"x-gzip", gzipBytes(t, html)},
		"/multimember": {"gzip", append(gzipBytes(t, html[:100]), gzipBytes(t, html[100:])...)},
		"/zlib":        {"deflate", zl.Bytes()},
		"/raw-deflate": {"deflate", raw.Bytes()},
		"/empty-gzip":  {"gzip", nil},
		"/corrupt":     {"gzip", corrupt},
		"/bad-crc":     {"gzip", badCRC},
		"/not-gzip":    {"gzip", html},
		"/truncated":   {"gzip", gzipBytes(t, html)[:40]},
		"/brotli":      {"br", []byte{0x1b, 0x2c, 0x00}},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := bodies[r.URL.Path]
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", b.encoding)
		w.Write(b.body)
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	for _, path := range []string{"/gzip", "/x-gzip", "/multimember", "/zlib", "/raw-deflate"} {
		t.Run(path, func(t *testing.T) {
			resp := mustFetch(t, c, Request{URL: srv.URL + path})
			if !bytes.Equal(resp.Body, html) {
				t.Fatalf("Fetch(%q) body = %d bytes, want the %d-byte page", path, len(resp.Body), len(html))
			}
			if resp.Bytes != int64(len(html)) || resp.WireBytes >= resp.Bytes {
				t.Errorf("Fetch(%q) Bytes, WireBytes = %d, %d; want %d and fewer on the wire", path, resp.Bytes, resp.WireBytes, len(html))
			}
		})
	}
	t.Run("/empty-gzip", func(t *testing.T) {
		resp := mustFetch(t, c, Request{URL: srv.URL + "/empty-gzip"})
		if resp.Body != nil {
			t.Errorf("Fetch(/empty-gzip) body = %q, want nil", resp.Body)
		}
	})
	for _, tt := range []struct {
		path      string
		temporary bool
	}{
		{"/corrupt", false},
		{"/bad-crc", false},
		{"/not-gzip", false},
		{"/truncated", true},
		{"/brotli", false},
	} {
		t.Run(tt.path, func(t *testing.T) {
			e := fetchKind(t, c, Request{URL: srv.URL + tt.path}, KindProtocol)
			if e.Temporary() != tt.temporary || e.Status != 200 {
				t.Errorf("Fetch(%q) Temporary, Status = %v, %d; want %v, 200 (%v)", tt.path, e.Temporary(), e.Status, tt.temporary, e)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	big := bytes.Repeat([]byte("<p>x</p>"), 1000) // 8000 bytes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/length":
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzipBytes(t, big))
			return
		}
		w.Write(big) // without Content-Length: chunked
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true, MaxBody: 4000})

	for _, path := range []string{"/length", "/chunked", "/gzip"} {
		t.Run(path, func(t *testing.T) {
			e := fetchKind(t, c, Request{URL: srv.URL + path}, KindTooLarge)
			if e.Status != 200 || e.Temporary() {
				t.Errorf("Fetch(%q) Status, Temporary = %d, %v; want 200, false", path, e.Status, e.Temporary())
			}
			// A per-request limit overrides the client's.
			resp := mustFetch(t, c, Request{URL: srv.URL + path, MaxBody: int64(len(big))})
			if len(resp.Body) != len(big) || resp.Truncated {
				t.Errorf("Fetch(%q, MaxBody %d) body = %d bytes (truncated %v), want %d", path, len(big), len(resp.Body), resp.Truncated, len(big))
			}
			// Truncate keeps the first MaxBody bytes instead of failing.
			resp = mustFetch(t, c, Request{URL: srv.URL + path, Truncate: true})
			if len(resp.Body) != 4000 || !resp.Truncated || !bytes.Equal(resp.Body, big[:4000]) {
				t.Errorf("Fetch(%q, Truncate) body = %d bytes, truncated %v; want the first 4000", path, len(resp.Body), resp.Truncated)
			}
			// A body of exactly MaxBody bytes is whole, not truncated.
			resp = mustFetch(t, c, Request{URL: srv.URL + path, Truncate: true, MaxBody: int64(len(big))})
			if !bytes.Equal(resp.Body, big) || resp.Truncated {
				t.Errorf("Fetch(%q, Truncate, MaxBody %d) body = %d bytes, truncated %v; want the whole body, not truncated",
					path, len(big), len(resp.Body), resp.Truncated)
			}
		})
	}
}

func TestGzipBomb(t *testing.T) {
	// One gzip member of 1 MiB of zeros is about 1 KB; members in a row
	// are one valid gzip stream: 16 GiB in about 17 MB, more than loopback
	// socket buffers hold.
	member := gzipBytes(t, make([]byte, 1<<20))
	const members = 16 << 10
	var written atomic.Int64
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		for range members {
			n, err := w.Write(member)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	const maxBody = 1 << 20
	c := newClient(t, Config{AllowPrivate: true, MaxBody: maxBody, Timeout: 5 * time.Second})

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e := fetchKind(t, c, Request{URL: srv.URL}, KindTooLarge)
	runtime.ReadMemStats(&after)
	if e.Status != 200 {
		t.Errorf("Status = %d, want 200", e.Status)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*maxBody {
		t.Errorf("allocated %d bytes for a %d-byte limit", alloc, maxBody)
	}
	waitDone(t, done, "bomb handler")
	if n := written.Load(); n >= members*int64(len(member)) {
		t.Errorf("server wrote the whole %d-byte bomb", n)
	}
}

func TestSkipBody(t *testing.T) {
	const huge = 100 << 20
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)
	var written atomic.Int64
	done := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/huge.png", "/huge.zip":
			defer func() { done <- struct{}{} }()
			ct := map[string]string{"/huge.png": "image/png", "/huge.zip": "application/zip"}[r.URL.Path]
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Content-Length", fmt.Sprint(huge))
			chunk := make([]byte, 32<<10)
			for written.Load() < huge {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		case "/small.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		}
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	for _, path := range []string{"/huge.png", "/huge.zip"} {
		t.Run(path, func(t *testing.T) {
			written.Store(0)
			resp := mustFetch(t, c, Request{URL: srv.URL + path})
			if !resp.BodySkipped || resp.Body != nil || resp.Bytes != 0 {
				t.Errorf("Fetch(%q) BodySkipped, Body, Bytes = %v, %d bytes, %d; want true, nil, 0", path, resp.BodySkipped, len(resp.Body), resp.Bytes)
			}
			if resp.WireBytes > 1<<10 {
				t.Errorf("Fetch(%q) read %d bytes, want only the header", path, resp.WireBytes)
			}
			waitDone(t, done, "handler")
			if n := written.Load(); n >= huge/2 {
				t.Errorf("server wrote %d bytes before the client hung up", n)
			}
		})
	}
	t.Run("accepted", func(t *testing.T) {
		accept := func(mt string) bool { return mt == "image/png" }
		resp := mustFetch(t, c, Request{URL: srv.URL + "/small.png", Accept: accept})
		if resp.BodySkipped || !bytes.Equal(resp.Body, png) || resp.MediaType != "image/png" {
			t.Errorf("Fetch(small.png, accept png) = skipped %v, %d bytes, %q", resp.BodySkipped, len(resp.Body), resp.MediaType)
		}
	})
}

func TestSniff(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2000)...)
	long := []byte("<html><body>" + strings.Repeat("<p>text</p>", 200))
	bodies := map[string][]byte{
		"/short": []byte("<html><body>hi"),
		"/long":  long,
		"/png":   png,
		"/empty": nil,
		"/gzip":  gzipBytes(t, long),
		"/pdf":   append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("stream\n"), 300)...),
	}
	bodies["/short-gzip"] = gzipBytes(t, bodies["/short"])
	bodies["/pdf-gzip"] = gzipBytes(t, bodies["/pdf"])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no Content-Type, not even a sniffed one
		if strings.HasSuffix(r.URL.Path, "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
		}
		if r.URL.Path == "/invalid" {
			w.Header()["Content-Type"] = []string{"html"}
			w.Write(long)
			return
		}
		w.Write(bodies[r.URL.Path])
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	tests := []struct {
		path    string
		media   string
		skipped bool
		body    []byte
	}{
		{"/short", "text/html", false, bodies["/short"]},
		{"/long", "text/html", false, long},
		{"/gzip", "text/html", false, long},
		{"/invalid", "text/html", false, long},
		{"/png", "image/png", true, nil},
		{"/empty", "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := mustFetch(t, c, Request{URL: srv.URL + tt.path})
			if resp.MediaType != tt.media || resp.BodySkipped != tt.skipped || !bytes.Equal(resp.Body, tt.body) {
				t.Errorf("Fetch(%q) = %q, skipped %v, %d bytes; want %q, %v, %d",
					tt.path, resp.MediaType, resp.BodySkipped, len(resp.Body), tt.media, tt.skipped, len(tt.body))
			}
		})
	}
	t.Run("limit below sniff length", func(t *testing.T) {
		fetchKind(t, c, Request{URL: srv.URL + "/long", MaxBody: 100}, KindTooLarge)
		// The whole body fits in the sniffed prefix, one byte over the limit.
		short := int64(len(bodies["/short"]))
		fetchKind(t, c, Request{URL: srv.URL + "/short-gzip", MaxBody: short - 1}, KindTooLarge)
		resp := mustFetch(t, c, Request{URL: srv.URL + "/short-gzip", MaxBody: short})
		if !bytes.Equal(resp.Body, bodies["/short"]) {
			t.Errorf("Fetch(/short-gzip, MaxBody %d) = %q, want %q", short, resp.Body, bodies["/short"])
		}
		resp = mustFetch(t, c, Request{URL: srv.URL + "/short-gzip", MaxBody: short - 1, Truncate: true})
		if !bytes.Equal(resp.Body, bodies["/short"][:short-1]) || !resp.Truncated {
			t.Errorf("Fetch(/short-gzip, MaxBody %d, Truncate) = %q, truncated %v; want %q, true", short-1, resp.Body, resp.Truncated, bodies["/short"][:short-1])
		}
	})
	t.Run("limit by sniffed type", func(t *testing.T) {
		// Request.Limit applies to a sniffed media type as to a declared one.
		pdfOrHTML := func(mt string) bool { return mt == "application/pdf" || acceptHTML(mt) }
		limit := func(n int64) func(string) int64 {
			return func(mt string) int64 {
				if mt == "application/pdf" {
					return n
				}
				return 0
			}
		}
		pdf := bodies["/pdf"]
		for _, path := range []string{"/pdf", "/pdf-gzip"} {
			resp := mustFetch(t, c, Request{URL: srv.URL + path, Accept: pdfOrHTML, MaxBody: 1000, Limit: limit(int64(len(pdf)))})
			if resp.MediaType != "application/pdf" || !bytes.Equal(resp.Body, pdf) {
				t.Errorf("Fetch(%q, PDF limit %d) = %q, %d bytes; want the %d-byte PDF", path, len(pdf), resp.MediaType, len(resp.Body), len(pdf))
			}
			fetchKind(t, c, Request{URL: srv.URL + path, Accept: pdfOrHTML, MaxBody: 1 << 20, Limit: limit(1000)}, KindTooLarge)
		}
	})
}

func TestRedirects(t *testing.T) {
	var mu sync.Mutex
	conditional := map[string]string{} // path → If-None-Match received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conditional[r.URL.Path] = r.Header.Get("If-None-Match")
		mu.Unlock()
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/hops/%d", &n); err == nil && n > 0 {
			http.Redirect(w, r, fmt.Sprintf("%d", n-1), http.StatusFound) // relative
			return
		}
		switch r.URL.Path {
		case "/ftp":
			http.Redirect(w, r, "ftp://files.example-uni.test/", http.StatusMovedPermanently)
		case "/no-location":
			w.WriteHeader(http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page)
		}
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	t.Run("not followed", func(t *testing.T) {
		resp := mustFetch(t, c, Request{URL: srv.URL + "/hops/1"})
		if resp.Status != 302 || resp.Location != srv.URL+"/hops/0" || resp.URL != srv.URL+"/hops/1" {
			t.Errorf("Fetch(/hops/1) = %d, Location %q, URL %q; want 302 to %s/hops/0", resp.Status, resp.Location, resp.URL, srv.URL)
		}
	})
	t.Run("followed", func(t *testing.T) {
		one := mustFetch(t, c, Request{URL: srv.URL + "/hops/0"})
		resp := mustFetch(t, c, Request{URL: srv.URL + "/hops/5", FollowRedirects: 5})
		if resp.Status != 200 || resp.URL != srv.URL+"/hops/0" || string(resp.Body) != page {
			t.Errorf("Fetch(/hops/5, follow 5) = %d at %q, want 200 at /hops/0", resp.Status, resp.URL)
		}
		if resp.WireBytes <= 5*(one.WireBytes-one.Bytes) {
			t.Errorf("WireBytes = %d, want the headers of 6 responses counted", resp.WireBytes)
		}
	})
	t.Run("too many", func(t *testing.T) {
		e := fetchKind(t, c, Request{URL: srv.URL + "/hops/6", FollowRedirects: 5}, KindRedirects)
		if e.Status != 302 || e.Temporary() {
			t.Errorf("Status, Temporary = %d, %v; want 302, false", e.Status, e.Temporary())
		}
	})
	t.Run("unsupported scheme", func(t *testing.T) {
		fetchKind(t, c, Request{URL: srv.URL + "/ftp", FollowRedirects: 5}, KindBadURL)
	})
	t.Run("no location", func(t *testing.T) {
		resp := mustFetch(t, c, Request{URL: srv.URL + "/no-location", FollowRedirects: 5})
		if resp.Status != 302 || resp.Location != "" {
			t.Errorf("Fetch(/no-location) = %d, Location %q; want 302, \"\"", resp.Status, resp.Location)
		}
	})
	t.Run("validators not sent to the target", func(t *testing.T) {
		mustFetch(t, c, Request{URL: srv.URL + "/hops/1", FollowRedirects: 1, ETag: `"x"`})
		mu.Lock()
		defer mu.Unlock()
		if conditional["/hops/1"] != `"x"` || conditional["/hops/0"] != "" {
			t.Errorf("If-None-Match sent = %q to the URL, %q to its target; want \"x\", \"\"", conditional["/hops/1"], conditional["/hops/0"])
		}
	})
}

func TestConditional(t *testing.T) {
	const etag, lastMod = `"abc"`, "Wed, 21 Oct 2015 07:28:00 GMT"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.Header.Get("If-None-Match") == etag && r.Header.Get("If-Modified-Since") == lastMod {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	resp := mustFetch(t, c, Request{URL: srv.URL, ETag: etag, LastModified: lastMod})
	if resp.Status != 304 || resp.Body != nil || resp.BodySkipped {
		t.Errorf("conditional Fetch = %d, %d bytes, skipped %v; want 304, nil, false", resp.Status, len(resp.Body), resp.BodySkipped)
	}
	resp = mustFetch(t, c, Request{URL: srv.URL})
	if resp.Status != 200 {
		t.Errorf("unconditional Fetch = %d, want 200", resp.Status)
	}
}

func TestTimeout(t *testing.T) {
	const timeout = 500 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/silent" {
			<-r.Context().Done()
			return
		}
		// Drip one byte every 100ms for 10s.
		w.Header().Set("Content-Type", "text/html")
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for range 100 {
			if _, err := w.Write([]byte("a")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true, Timeout: timeout})

	for _, tt := range []struct {
		path   string
		status int
	}{{"/drip", 200}, {"/silent", 0}} {
		t.Run(tt.path, func(t *testing.T) {
			start := time.Now()
			e := fetchKind(t, c, Request{URL: srv.URL + tt.path}, KindTimeout)
			if time.Since(start) > 5*timeout {
				t.Errorf("Fetch(%q) returned after %v (hang guard: 5× the %v timeout)", tt.path, time.Since(start), timeout)
			}
			if !e.Temporary() || e.Status != tt.status {
				t.Errorf("Fetch(%q) Temporary, Status = %v, %d; want true, %d", tt.path, e.Temporary(), e.Status, tt.status)
			}
		})
	}
}

func TestCallerContext(t *testing.T) {
	started := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true, Timeout: 5 * time.Second})

	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-started
			cancel()
		}()
		resp, err := c.Fetch(ctx, Request{URL: srv.URL})
		e := requireKind(t, srv.URL, resp, err, KindCanceled)
		if e.Temporary() {
			t.Errorf("canceled fetch is Temporary")
		}
	})
	t.Run("already canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		resp, err := c.Fetch(ctx, Request{URL: srv.URL})
		requireKind(t, srv.URL, resp, err, KindCanceled)
	})
	t.Run("caller deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		resp, err := c.Fetch(ctx, Request{URL: srv.URL})
		requireKind(t, srv.URL, resp, err, KindTimeout)
	})
}

func TestNetworkErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()
	c := newClient(t, Config{AllowPrivate: true})

	t.Run("refused", func(t *testing.T) {
		if e := fetchKind(t, c, Request{URL: refused}, KindConnect); !e.Temporary() {
			t.Errorf("connection refused is not Temporary")
		}
	})
	fakeDNS(t, c)
	for _, tt := range []struct {
		host      string
		temporary bool
	}{
		{"nxdomain.example-uni.test", false},
		{"servfail.example-uni.test", true},
	} {
		t.Run(tt.host, func(t *testing.T) {
			e := fetchKind(t, c, Request{URL: "http://" + tt.host + "/"}, KindDNS)
			if e.Temporary() != tt.temporary {
				t.Errorf("Fetch(%q) Temporary = %v, want %v (%v)", tt.host, e.Temporary(), tt.temporary, e)
			}
		})
	}
}

// fakeDNS makes c's resolver talk to an in-memory DNS server that answers
// NXDOMAIN for names starting with "nxdomain." and SERVFAIL otherwise.
func fakeDNS(t *testing.T, c *Client) {
	c.plain.Resolver.Dial = func(ctx context.Context, _, _ string) (net.Conn, error) {
		client, server := net.Pipe()
		go serveDNS(server)
		return client, nil
	}
}

// serveDNS answers DNS-over-TCP framed queries on conn until it is closed.
func serveDNS(conn net.Conn) {
	defer conn.Close()
	for {
		var size [2]byte
		if _, err := io.ReadFull(conn, size[:]); err != nil {
			return
		}
		msg := make([]byte, int(size[0])<<8|int(size[1]))
		if _, err := io.ReadFull(conn, msg); err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(msg)
		if err != nil {
			return
		}
		q, err := p.Question()
		if err != nil {
			return
		}
		rcode := dnsmessage.RCodeServerFailure
		if strings.HasPrefix(q.Name.String(), "nxdomain.") {
			rcode = dnsmessage.RCodeNameError
		}
		b := dnsmessage.NewBuilder(make([]byte, 2, 514), dnsmessage.Header{
			ID: h.ID, Response: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: rcode,
		})
		b.StartQuestions()
		b.Question(q)
		out, err := b.Finish()
		if err != nil {
			return
		}
		out[0], out[1] = byte((len(out)-2)>>8), byte(len(out)-2)
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<p>HTTP/%d</p>", r.ProtoMajor)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshake failures are expected
	srv.StartTLS()
	defer srv.Close()

	t.Run("unknown authority", func(t *testing.T) {
		c := newClient(t, Config{AllowPrivate: true})
		if e := fetchKind(t, c, Request{URL: srv.URL}, KindTLS); e.Temporary() {
			t.Errorf("certificate failure is Temporary")
		}
	})
	t.Run("trusted", func(t *testing.T) {
		roots := x509.NewCertPool()
		roots.AddCert(srv.Certificate())
		c := newClient(t, Config{AllowPrivate: true, RootCAs: roots})
		resp := mustFetch(t, c, Request{URL: srv.URL})
		if string(resp.Body) != "<p>HTTP/2</p>" {
			t.Errorf("Fetch(%q) = %q, want <p>HTTP/2</p>", srv.URL, resp.Body)
		}
	})
	t.Run("not TLS", func(t *testing.T) {
		plain := httptest.NewServer(http.NotFoundHandler())
		defer plain.Close()
		c := newClient(t, Config{AllowPrivate: true})
		fetchKind(t, c, Request{URL: strings.Replace(plain.URL, "http:", "https:", 1)}, KindTLS)
	})
}

func TestBadURL(t *testing.T) {
	c := newClient(t, Config{})
	for _, u := range []string{"", "/relative", "example.org/page", "ftp://example.org/", "mailto:a@example.org", "http://", "http:///path", "http://exa mple.org/", "http://[::1/"} {
		t.Run(u, func(t *testing.T) {
			e := fetchKind(t, c, Request{URL: u}, KindBadURL)
			if e.Temporary() || e.URL != u {
				t.Errorf("Fetch(%q) Temporary, URL = %v, %q; want false, %q", u, e.Temporary(), e.URL, u)
			}
		})
	}
}

func TestKeepAlive(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(make([]byte, 1000))
		case "/large.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(make([]byte, 1<<20))
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := newClient(t, Config{AllowPrivate: true})

	for _, tt := range []struct {
		path  string
		conns int32
	}{
		{"/", 1},
		{"/", 1},
		{"/small.png", 1}, // skipped, but small enough to drain: the connection is kept
		{"/", 1},
		{"/large.png", 1}, // skipped and not read: the connection is closed
		{"/", 2},
	} {
		mustFetch(t, c, Request{URL: srv.URL + tt.path})
		if n := conns.Load(); n != tt.conns {
			t.Errorf("after Fetch(%q): %d connections, want %d", tt.path, n, tt.conns)
		}
	}
}

// TestMalformed answers with raw bytes from a TCP server: the client must
// classify, never panic or hang.
func TestMalformed(t *testing.T) {
	tests := []struct {
		name      string
		reply     string
		kind      Kind // 0: a response
		temporary bool
		body      string
	}{
		{"not http", "SSH-2.0-OpenSSH_9.6\r\n", KindProtocol, false, ""},
		{"header without colon", "HTTP/1.1 200 OK\r\nContent-Type text/html\r\n\r\nhi", KindProtocol, false, ""},
		{"bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", KindProtocol, false, ""},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", KindProtocol, false, ""},
		{"truncated chunk", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", KindProtocol, true, ""},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100\r\n\r\n<p>short</p>", KindProtocol, true, ""},
		{"bad content length", "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", KindProtocol, false, ""},
		{"conflicting content lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", KindProtocol, false, ""},
		{"closed without answer", "", KindConnect, true, ""},
		{"header too large", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n", KindProtocol, false, ""},
		{"no length, closed", "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>until close</p>", 0, false, "<p>until close</p>"},
		{"informational first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi", 0, false, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, tt.reply)
			c := newClient(t, Config{AllowPrivate: true})
			u := "http://" + addr + "/"
			resp, err := c.Fetch(context.Background(), Request{URL: u})
			if tt.kind == 0 {
				if err != nil {
					t.Fatalf("Fetch(%s) error: %v", tt.name, err)
				}
				if string(resp.Body) != tt.body {
					t.Errorf("Fetch(%s) body = %q, want %q", tt.name, resp.Body, tt.body)
				}
				return
			}
			e := requireKind(t, tt.name, resp, err, tt.kind)
			if e.Temporary() != tt.temporary {
				t.Errorf("Fetch(%s) Temporary = %v, want %v (%v)", tt.name, e.Temporary(), tt.temporary, e)
			}
		})
	}
}

// rawServer answers every connection on a loopback port with reply, once
// the request header has arrived, then closes it.
func rawServer(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(5 * time.Second))
				var req []byte
				buf := make([]byte, 1024)
				for !bytes.Contains(req, []byte("\r\n\r\n")) {
					n, err := conn.Read(buf)
					if err != nil {
						return
					}
					req = append(req, buf[:n]...)
				}
				conn.Write([]byte(reply))
			})
		}
	})
	return ln.Addr().String()
}

func TestNew(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		c, err := New(Config{UserAgent: testUA, Proxy: "none"})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.timeout != DefaultTimeout || c.maxBody != DefaultMaxBody || c.transport.MaxConnsPerHost != DefaultMaxConnsPerHost {
			t.Errorf("defaults = %v, %d, %d", c.timeout, c.maxBody, c.transport.MaxConnsPerHost)
		}
	})
	bad := []struct {
		name string
		cfg  Config
		want string // in the message
	}{
		{"no user agent", Config{}, "user agent"},
		{"user agent with newline", Config{UserAgent: "bot\r\nX-Evil: 1"}, "user agent"},
		{"negative timeout", Config{UserAgent: "bot", Timeout: -time.Second}, "timeout"},
		{"negative max body", Config{UserAgent: "bot", MaxBody: -1}, "max body"},
		{"negative conns", Config{UserAgent: "bot", MaxConnsPerHost: -1}, "connections"},
		{"proxy scheme", Config{UserAgent: "bot", Proxy: "ftp://proxy.example:21"}, `"ftp://proxy.example:21"`},
		{"proxy syntax", Config{UserAgent: "bot", Proxy: "http://proxy example:3128"}, `"http://proxy example:3128"`},
		{"proxy port", Config{UserAgent: "bot", Proxy: "http://proxy.example:31x8"}, `"http://proxy.example:31x8"`},
		{"proxy without host", Config{UserAgent: "bot", Proxy: "http://:3128"}, `"http://:3128"`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if err == nil {
				c.Close()
				t.Fatalf("New(%+v) succeeded, want an error", tt.cfg)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "fetch: ") {
				t.Errorf("New(%+v) error = %q, want one naming %s", tt.cfg, err, tt.want)
			}
		})
	}
	t.Run("bad proxy in environment", func(t *testing.T) {
		t.Setenv("http_proxy", "")
		t.Setenv("HTTP_PROXY", "http://proxy example:3128")
		_, err := New(Config{UserAgent: "bot"})
		if err == nil || !strings.Contains(err.Error(), "HTTP_PROXY") {
			t.Errorf("New with a bad HTTP_PROXY: error = %v, want one naming HTTP_PROXY", err)
		}
	})
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Kind: KindTooLarge, URL: "http://a.example/", Status: 200, Err: fmt.Errorf("decoded body exceeds 10 bytes")},
			"fetch: get http://a.example/: too large (status 200): decoded body exceeds 10 bytes"},
		{&Error{Kind: KindBlocked, URL: "http://10.0.0.1/"}, "fetch: get http://10.0.0.1/: refused"},
		{&Error{Kind: 0, URL: "u"}, "fetch: get u: Kind(0)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
