package testweb

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestRedirects(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	for _, tc := range []struct {
		url      string
		status   int
		location string
	}{
		{"http://faults.test/redirect/1", 301, "http://faults.test/redirect/2"},
		{"http://faults.test/redirect/2", 302, "/redirect/3"},
		{"http://faults.test/redirect/3", 307, "../landing"},
		{"http://faults.test/loop/a", 301, "/loop/b"},
		{"http://faults.test/loop/b", 302, "/loop/a"},
		{"http://faults.test/elsewhere", 308, "http://www.northfield-university.test/about"},
		{"http://faults.test/robots.txt", 301, "/robots-real.txt"},
		{"http://journal-of-applied-crawling.test/doi/10.5555/jac.1001", 301, "/article/1001"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			rec := serve(t, w, tc.url)
			if rec.Code != tc.status || rec.Header().Get("Location") != tc.location {
				t.Errorf("GET %s = %d Location %q, want %d %q", tc.url, rec.Code, rec.Header().Get("Location"), tc.status, tc.location)
			}
			info, ok := w.Lookup(tc.url)
			if !ok || info.Status != tc.status || info.Kind != "redirect" && info.Kind != "robots" {
				t.Errorf("Lookup(%q) = %+v, %v", tc.url, info, ok)
			}
		})
	}
	if info, _ := w.Lookup("http://faults.test/redirect/3"); info.Location != "http://faults.test/landing" {
		t.Errorf("Lookup(/redirect/3).Location = %q, want http://faults.test/landing", info.Location)
	}
}

func TestStatusPages(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/missing", 404}, {"/gone", 410}, {"/error", 500}, {"/landing", 200}, {"/forbidden/page", 200},
		{"/malformed", 200}, {"/refresh", 200}, {"/feed.xml", 200}, {"/images/photo.jpg", 200},
	} {
		u := "http://faults.test" + tc.path
		rec := serve(t, w, u)
		if rec.Code != tc.want {
			t.Errorf("GET %s = %d, want %d", u, rec.Code, tc.want)
		}
		if info, ok := w.Lookup(u); !ok || info.Status != tc.want {
			t.Errorf("Lookup(%q) = %+v, %v; want Status %d", u, info, ok, tc.want)
		}
	}
	if body := serve(t, w, "http://faults.test/refresh").Body.String(); !strings.Contains(body, `<meta http-equiv="refresh" content="0; url=/landing">`) {
		t.Error("/refresh has no meta refresh")
	}
	if body := serve(t, w, "http://faults.test/malformed").Body.String(); !strings.Contains(body, "\xff\xfe\x00") || !strings.Contains(body, "<a href=/landing>") {
		t.Error("/malformed is not malformed enough")
	}
}

func TestFlakyAndBusy(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	var got []int
	for i := 0; i < 4; i++ {
		got = append(got, serve(t, w, "http://faults.test/flaky").Code)
	}
	if want := []int{503, 503, 200, 200}; !equalInts(got, want) {
		t.Errorf("GET /flaky ×4 = %v, want %v", got, want)
	}
	first := serve(t, w, "http://faults.test/busy")
	if first.Code != 429 || first.Header().Get("Retry-After") != "1" {
		t.Errorf("first GET /busy = %d Retry-After %q, want 429 and 1", first.Code, first.Header().Get("Retry-After"))
	}
	if rec := serve(t, w, "http://faults.test/busy"); rec.Code != 200 {
		t.Errorf("second GET /busy = %d, want 200", rec.Code)
	}
	// The counters belong to one web.
	if rec := serve(t, New(Config{PagesPerSite: 10}), "http://faults.test/flaky"); rec.Code != 503 {
		t.Errorf("GET /flaky on a new web = %d, want 503", rec.Code)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := New(Config{PagesPerSite: 10, Slow: 3 * time.Second})
		start := time.Now()
		rec := serve(t, w, "http://faults.test/slow")
		if rec.Code != 200 {
			t.Errorf("GET /slow = %d", rec.Code)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Errorf("GET /slow took %v, want 3s", d)
		}

		// A client that gives up ends the wait.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		req := httptest.NewRequest(http.MethodGet, "http://faults.test/slow", nil).WithContext(ctx)
		w.ServeHTTP(httptest.NewRecorder(), req)
		if d := time.Since(start); d != time.Second {
			t.Errorf("GET /slow with a 1s deadline returned after %v", d)
		}
	})
}

// lockedRecorder is a ResponseWriter safe to read while a handler writes.
type lockedRecorder struct {
	mu      sync.Mutex
	h       http.Header
	code    int
	body    bytes.Buffer
	flushed int
}

func (l *lockedRecorder) Header() http.Header { return l.h }
func (l *lockedRecorder) WriteHeader(c int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.code = c
}
func (l *lockedRecorder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.body.Write(p)
}
func (l *lockedRecorder) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushed++
}
func (l *lockedRecorder) state() (int, int, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.code, l.body.Len(), l.flushed
}

func TestDrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := New(Config{PagesPerSite: 10, Slow: time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		rec := &lockedRecorder{h: http.Header{}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			w.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://faults.test/drip", nil).WithContext(ctx))
		}()
		synctest.Wait()
		if code, n, flushed := rec.state(); code != 200 || n != 0 || flushed != 1 {
			t.Errorf("at once: status %d, %d bytes, %d flushes; want 200, 0, 1", code, n, flushed)
		}
		time.Sleep(550 * time.Millisecond)
		synctest.Wait()
		if _, n, _ := rec.state(); n != 5 {
			t.Errorf("after 550ms at one byte per 100ms: %d bytes, want 5", n)
		}
		cancel()
		<-done
		if _, n, _ := rec.state(); n != 5 {
			t.Errorf("after the client left: %d bytes, want 5", n)
		}
		if got := w.Requests()[0]; got.Status != 200 || got.Bytes != 5 {
			t.Errorf("logged %+v", got)
		}
	})
}

func TestHuge(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	rec := serve(t, w, "http://faults.test/huge")
	body := rec.Body.String()
	if rec.Code != 200 || len(body) != 6<<20 || rec.Header().Get("Content-Length") != "6291456" {
		t.Fatalf("GET /huge = %d, %d bytes, Content-Length %q; want 200 and 6 MiB", rec.Code, len(body), rec.Header().Get("Content-Length"))
	}
	if !strings.HasPrefix(body, "<!DOCTYPE html>") || !strings.HasSuffix(body, "</html>\n") {
		t.Error("/huge is not a whole HTML document")
	}
}

func TestBomb(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	srv := httptest.NewServer(w)
	defer srv.Close()
	w.bomb() // build the stream before measuring

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := proxyClient(t, srv).Get("http://faults.test/bomb")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding = %q, want gzip", resp.Header.Get("Content-Encoding"))
	}
	if resp.ContentLength <= 0 || resp.ContentLength > 4<<20 {
		t.Errorf("Content-Length = %d, want a small compressed body", resp.ContentLength)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, len(bombPrefix))
	if _, err := io.ReadFull(zr, head); err != nil || string(head) != bombPrefix {
		t.Fatalf("decompressed stream starts %q, %v", head, err)
	}
	if n, err := io.CopyN(io.Discard, zr, 10<<20); n != 10<<20 || err != nil {
		t.Fatalf("read %d decompressed bytes: %v", n, err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("serving and reading 10 MiB of the bomb allocated %d MiB", alloc>>20)
	}
	info, _ := w.Lookup("http://faults.test/bomb")
	if info.Kind != "fault" || info.Status != 200 {
		t.Errorf("Lookup(/bomb) = %+v", info)
	}
}

// TestBombStream checks that the repeated units make one valid gzip
// member: right length, right CRC.
func TestBombStream(t *testing.T) {
	b := newBomb(3)
	var z bytes.Buffer
	z.Write(b.head)
	for i := 0; i < b.units; i++ {
		z.Write(b.unit)
	}
	z.Write(b.tail)
	if int64(z.Len()) != b.size() {
		t.Errorf("size() = %d, stream has %d bytes", b.size(), z.Len())
	}
	zr, err := gzip.NewReader(&z)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		t.Fatalf("decompress: %v", err)
	}
	if want := int64(len(bombPrefix) + 4<<20); n != want {
		t.Errorf("decompressed %d bytes, want %d", n, want)
	}
	if z.Len() != 0 {
		t.Errorf("%d bytes after the gzip member", z.Len())
	}
}

func TestFiles(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	rec := serve(t, w, "http://faults.test/images/photo.jpg")
	if ct := rec.Header().Get("Content-Type"); ct != "image/jpeg" {
		t.Errorf("photo Content-Type = %q", ct)
	}
	if _, err := jpeg.Decode(rec.Body); err != nil {
		t.Errorf("photo: %v", err)
	}

	rec = serve(t, w, "http://faults.test/files/archive.zip")
	if ct := rec.Header().Get("Content-Type"); ct != "application/zip" {
		t.Errorf("zip Content-Type = %q", ct)
	}
	zr, err := zip.NewReader(bytes.NewReader(rec.Body.Bytes()), int64(rec.Body.Len()))
	if err != nil {
		t.Fatalf("zip: %v", err)
	}
	if len(zr.File) != 1 || zr.File[0].UncompressedSize64 != zipSize {
		t.Errorf("zip holds %d files", len(zr.File))
	}

	rec = serve(t, w, "http://faults.test/feed.xml")
	if ct := rec.Header().Get("Content-Type"); ct != "application/rss+xml" {
		t.Errorf("feed Content-Type = %q", ct)
	}
	var feed struct {
		Items []struct {
			Link string `xml:"link"`
		} `xml:"channel>item"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &feed); err != nil || len(feed.Items) == 0 {
		t.Fatalf("feed: %v, %d items", err, len(feed.Items))
	}
	for _, it := range feed.Items {
		if _, ok := w.Lookup(it.Link); !ok {
			t.Errorf("feed links %s, which is not on the web", it.Link)
		}
	}
}

func TestNoContentType(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	srv := httptest.NewServer(w)
	defer srv.Close()
	resp, body := get(t, proxyClient(t, srv), "http://faults.test/no-content-type")
	if _, ok := resp.Header["Content-Type"]; ok || resp.StatusCode != 200 || !strings.Contains(body, "<html>") {
		t.Errorf("GET /no-content-type = %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestNoFaults(t *testing.T) {
	w := New(Config{PagesPerSite: 10, NoFaults: true})
	home := serve(t, w, "http://faults.test/").Body.String()
	for _, path := range []string{"/slow", "/drip", "/huge", "/bomb"} {
		u := "http://faults.test" + path
		if rec := serve(t, w, u); rec.Code != 404 {
			t.Errorf("NoFaults: GET %s = %d, want 404", u, rec.Code)
		}
		if _, ok := w.Lookup(u); ok {
			t.Errorf("NoFaults: Lookup(%q) found it", u)
		}
		if strings.Contains(home, `href="`+path+`"`) {
			t.Errorf("NoFaults: home page links %s", path)
		}
	}
	if !strings.Contains(home, `href="/redirect/1"`) {
		t.Error("NoFaults: home page lost the ordinary faults")
	}
}
