package warc

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// htmlPage returns about n bytes of HTML made of varied words, which
// compresses about as well as real pages do.
func htmlPage(seed uint64, n int) []byte {
	words := strings.Fields("research group laboratory faculty publication seminar thesis department " +
		"professor student lecture journal conference abstract theorem experiment data analysis " +
		"model university campus library archive project funding grant colloquium")
	rng := rand.New(rand.NewPCG(seed, 2))
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><head><title>Page</title></head><body>\n")
	for sb.Len() < n {
		fmt.Fprintf(&sb, `<p id="p%d"><a href="/%s/%d">`, rng.IntN(1000), words[rng.IntN(len(words))], rng.IntN(100000))
		for range 12 {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		sb.WriteString("</a></p>\n")
	}
	sb.WriteString("</body></html>\n")
	return []byte(sb.String())
}

// binaryBody returns n random bytes that start like a PDF and hold the
// sequences that end HTTP headers and WARC records.
func binaryBody(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.UintN(256))
	}
	copy(b, "%PDF-1.7\r\n%\xe2\xe3\xcf\xd3\r\n")
	copy(b[n/2:], "\r\n\r\nWARC/1.1\r\n\r\n\x1f\x8b\x08\x00")
	return b
}

var baseTime = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

// sampleExchanges returns the kinds of exchange a crawler archives.
func sampleExchanges() []Exchange {
	reqHeader := func() http.Header {
		return http.Header{
			"User-Agent":      {"acrawler/0.1.0 (+https://example.org/bot)"},
			"Accept":          {"text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"},
			"Accept-Encoding": {"gzip"},
		}
	}
	html := htmlPage(1, 20<<10)
	pdf := binaryBody(2, 50<<10)
	return []Exchange{
		{
			URL: "https://www.example.edu/dept/people.html?sort=name", ReqHeader: reqHeader(),
			Time: baseTime, IP: "192.0.2.10", Status: 200, Proto: "HTTP/1.1",
			RespHeader: http.Header{
				"Content-Type":     {"text/html; charset=utf-8"},
				"Content-Encoding": {"gzip"},
				"Content-Length":   {"4711"},
				"Etag":             {`"abc"`},
				"Set-Cookie":       {"a=1", "b=2"},
			},
			Body: html, Decoded: true,
		},
		{
			URL: "https://www.example.edu/papers/thesis.pdf", ReqHeader: reqHeader(),
			Time: baseTime.Add(time.Second), IP: "[2001:db8::1]:443", Status: 200, Proto: "HTTP/2.0",
			RespHeader: http.Header{
				"Content-Type":   {"application/pdf"},
				"Content-Length": {strconv.Itoa(len(pdf))},
			},
			Body: pdf,
		},
		{
			URL: "https://www.example.edu/dept/", Method: "GET",
			ReqHeader: http.Header{"If-None-Match": {`"abc"`}, "User-Agent": {"acrawler/0.1.0"}},
			Time:      baseTime.Add(2 * time.Second), Status: 304, Proto: "HTTP/1.1",
			RespHeader: http.Header{"Etag": {`"abc"`}},
		},
		{
			URL: "http://example.edu/old", ReqHeader: reqHeader(),
			Time: baseTime.Add(3 * time.Second), IP: "198.51.100.7", Status: 301,
			RespHeader: http.Header{
				"Location":       {"https://www.example.edu/new"},
				"Content-Type":   {"text/html"},
				"Content-Length": {"56"},
			},
			Body: []byte(`<a href="https://www.example.edu/new">Moved Permanently</a>`),
		},
		{
			URL: "https://www.example.edu/robots.txt", ReqHeader: reqHeader(),
			Time: baseTime.Add(4 * time.Second), Status: 404,
			RespHeader: http.Header{
				"Content-Type":      {"text/plain"},
				"Transfer-Encoding": {"chunked"},
				"X-Weird":           {"a\x00b\x01c\td"},
			},
			Body: []byte("not found\n"),
		},
		{
			URL: "https://www.example.edu/big.html", ReqHeader: reqHeader(),
			Time: baseTime.Add(5 * time.Second), Status: 200,
			RespHeader: http.Header{"Content-Type": {"text/html"}, "Content-Length": {"99999999"}},
			Body:       htmlPage(3, 8<<10), Truncated: "length",
		},
	}
}

// checkRecord reports how rec differs from what x should read back as.
func checkRecord(t *testing.T, what string, rec *Record, x Exchange) {
	t.Helper()
	if rec.URL != x.URL {
		t.Errorf("%s: URL = %q, want %q", what, rec.URL, x.URL)
	}
	if !rec.Time.Equal(x.Time.Truncate(time.Microsecond)) {
		t.Errorf("%s: Time = %v, want %v", what, rec.Time, x.Time.Truncate(time.Microsecond))
	}
	if rec.Status != x.Status {
		t.Errorf("%s: Status = %d, want %d", what, rec.Status, x.Status)
	}
	if rec.Type != "response" {
		t.Errorf("%s: Type = %q, want response", what, rec.Type)
	}
	if rec.Truncated != x.Truncated {
		t.Errorf("%s: Truncated = %q, want %q", what, rec.Truncated, x.Truncated)
	}
	if !bytes.Equal(rec.Body, x.Body) {
		t.Errorf("%s: Body = %d bytes %.40q, want %d bytes %.40q", what, len(rec.Body), rec.Body, len(x.Body), x.Body)
	}
	if got, want := rec.Header.Get("Content-Length"), strconv.Itoa(len(x.Body)); got != want {
		t.Errorf("%s: Content-Length = %q, want %q", what, got, want)
	}
	if te := rec.Header.Values("Transfer-Encoding"); len(te) > 0 {
		t.Errorf("%s: Transfer-Encoding = %q, want none", what, te)
	}
	for k, want := range x.RespHeader {
		switch k {
		case "Content-Length", "Transfer-Encoding", "X-Weird":
			continue
		case "Content-Encoding":
			if x.Decoded {
				if got := rec.Header.Values(k); len(got) > 0 {
					t.Errorf("%s: Content-Encoding = %q, want none", what, got)
				}
				k = HeaderOriginalContentEncoding
			}
		}
		if got := rec.Header.Values(k); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: header %s = %q, want %q", what, k, got, want)
		}
	}
}

// writeAll writes xs with a new Writer on dir and returns their locations.
func writeAll(t testing.TB, opts Options, xs []Exchange) []Location {
	t.Helper()
	w, err := NewWriter(opts)
	if err != nil {
		t.Fatal(err)
	}
	locs := make([]Location, len(xs))
	for i, x := range xs {
		if locs[i], err = w.Write(x); err != nil {
			t.Fatalf("Write(%s) = %v", x.URL, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	return locs
}

// scanned is what Scan delivered.
type scanned struct {
	rec *Record
	loc Location
}

// scanAll scans every file of dir, oldest first.
func scanAll(t *testing.T, dir string) []scanned {
	t.Helper()
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []scanned
	for _, f := range files {
		skipped, err := Scan(f, func(r *Record, l Location) error {
			out = append(out, scanned{r, l})
			return nil
		})
		if err != nil || skipped != 0 {
			t.Fatalf("Scan(%s) = %d, %v; want 0, nil", f, skipped, err)
		}
	}
	return out
}

// readFile returns the content of path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
