package archive

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// keyPrefix starts the resume keys of cdxServer, which look like the
// Wayback Machine's: a URL key and timestamp, form-encoded.
const keyPrefix = "edu%2Cexample%29%2Fpage+20240503100000%21"

// cdxServer implements enough of the Wayback CDX server for Captures: the
// domain query with its filter, limit and resume keys, in JSON or text. It
// checks the parameters it receives.
type cdxServer struct {
	t        *testing.T
	domain   string
	captures []Capture // the domain's captures, one per URL, in order
	pageSize int       // the server's own limit per answer (0: none)
	format   string    // "json" (default), "text" (ignores output=json) or "classic" (ignores fl and output)
	gzip     bool      // compress the body, without Content-Encoding
	ua       string    // the User-Agent expected

	mu       sync.Mutex
	requests []url.Values
}

func (s *cdxServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.requests = append(s.requests, q)
	s.mu.Unlock()
	for k, want := range map[string]string{
		"url": s.domain, "matchType": "domain", "collapse": "urlkey", "output": "json",
		"fl": "original,timestamp,statuscode,mimetype", "showResumeKey": "true",
	} {
		if got := q.Get(k); got != want {
			s.t.Errorf("CDX request %s: %s=%q, want %q", r.URL, k, got, want)
		}
	}
	if got := r.Header.Get("User-Agent"); s.ua != "" && got != s.ua {
		s.t.Errorf("CDX request User-Agent %q, want %q", got, s.ua)
	}
	rows := s.captures
	switch f := q["filter"]; {
	case len(f) == 0:
	case len(f) == 1 && f[0] == "statuscode:200":
		rows = slices.DeleteFunc(slices.Clone(rows), func(c Capture) bool { return c.Status != 200 })
	default:
		s.t.Errorf("CDX request %s: filter=%q", r.URL, f)
	}
	start := 0
	if key := q.Get("resumeKey"); key != "" {
		n, ok := strings.CutPrefix(key, keyPrefix)
		i, err := strconv.Atoi(n)
		if !ok || err != nil || i <= 0 || i > len(rows) {
			http.Error(w, "bad resume key", http.StatusBadRequest)
			return
		}
		start = i
	}
	n := len(rows)
	if s.pageSize > 0 {
		n = s.pageSize
	}
	if l := q.Get("limit"); l != "" {
		lim, err := strconv.Atoi(l)
		if err != nil || lim <= 0 {
			s.t.Errorf("CDX request %s: limit=%q", r.URL, l)
		}
		n = min(n, lim)
	}
	end := min(start+n, len(rows))
	key := ""
	if end < len(rows) {
		key = keyPrefix + strconv.Itoa(end)
	}
	var body bytes.Buffer
	writeCDX(&body, s.format, rows[start:end], key)
	if s.gzip {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(body.Bytes())
		zw.Close()
		body = z
	}
	w.Write(body.Bytes())
}

// writeCDX writes captures in a CDX output format, with a resume key if key
// is not "".
func writeCDX(w *bytes.Buffer, format string, captures []Capture, key string) {
	status := func(c Capture) string {
		if c.Status == 0 {
			return "-"
		}
		return strconv.Itoa(c.Status)
	}
	mime := func(c Capture) string {
		if c.MIME == "" {
			return "-"
		}
		return c.MIME
	}
	ts := func(c Capture) string { return c.Time.Format("20060102150405") }
	switch format {
	case "text":
		for _, c := range captures {
			fmt.Fprintf(w, "%s %s %s %s\n", c.URL, ts(c), status(c), mime(c))
		}
		if key != "" {
			fmt.Fprintf(w, "\n%s\n", key)
		}
	case "classic":
		for _, c := range captures {
			fmt.Fprintf(w, "edu,example)/x %s %s %s %s SHA1DIGEST %d\n", ts(c), c.URL, mime(c), status(c), 1000+len(c.URL))
		}
		if key != "" {
			fmt.Fprintf(w, "\n%s\n", key)
		}
	default:
		rows := [][]string{{"original", "timestamp", "statuscode", "mimetype"}}
		for _, c := range captures {
			rows = append(rows, []string{c.URL, ts(c), status(c), mime(c)})
		}
		if key != "" {
			rows = append(rows, []string{}, []string{key})
		}
		// The Wayback Machine writes a row per line.
		w.WriteString("[")
		for i, row := range rows {
			b, _ := json.Marshal(row)
			if i > 0 {
				w.WriteString(",\n")
			}
			w.Write(b)
		}
		w.WriteString("]\n")
	}
}

// testCaptures returns n captures of example.edu; every fifth has status
// 404 and every seventh is a revisit without status.
func testCaptures(n int) []Capture {
	var cs []Capture
	for i := range n {
		c := Capture{
			URL:    fmt.Sprintf("https://www.example.edu/page/%d?q=a b&r=<%d>", i, i),
			Time:   time.Date(2010+i%10, time.Month(1+i%12), 1+i%28, i%24, i%60, i%60, 0, time.UTC),
			Status: 200,
			MIME:   "text/html",
		}
		switch {
		case i%5 == 4:
			c.Status = 404
		case i%7 == 6:
			c.Status, c.MIME = 0, "warc/revisit"
		}
		cs = append(cs, c)
	}
	return cs
}

// only200 returns the captures with status 200.
func only200(cs []Capture) []Capture {
	return slices.DeleteFunc(slices.Clone(cs), func(c Capture) bool { return c.Status != 200 })
}

// noSpaces returns the captures with spaces in URLs escaped, as the text
// format needs.
func noSpaces(cs []Capture) []Capture {
	cs = slices.Clone(cs)
	for i := range cs {
		cs[i].URL = strings.ReplaceAll(cs[i].URL, " ", "%20")
	}
	return cs
}

// collect runs Captures against s and returns what it delivered.
func collect(t *testing.T, c *Client, limit int) ([]Capture, error) {
	t.Helper()
	var got []Capture
	err := c.Captures(t.Context(), "example.edu", limit, func(cp Capture) error {
		got = append(got, cp)
		return nil
	})
	return got, err
}

func TestCaptures(t *testing.T) {
	all := testCaptures(25)
	for _, tc := range []struct {
		name        string
		format      string
		gzip        bool
		pageSize    int
		limit       int
		allStatuses bool
		want        []Capture
		limits      []string // the limit parameter of each request
		keys        []string // the resumeKey parameter of each request
	}{
		{name: "json", want: only200(all), limits: []string{""}, keys: []string{""}},
		{name: "json all statuses", allStatuses: true, want: all, limits: []string{""}, keys: []string{""}},
		{name: "json gzip", gzip: true, want: only200(all), limits: []string{""}, keys: []string{""}},
		{name: "text", format: "text", want: noSpaces(only200(all)), limits: []string{""}, keys: []string{""}},
		{name: "classic text", format: "classic", allStatuses: true, want: noSpaces(all), limits: []string{""}, keys: []string{""}},
		{name: "json limit", limit: 5, want: only200(all)[:5], limits: []string{"5"}, keys: []string{""}},
		{name: "json pages", pageSize: 4, want: only200(all), limits: []string{"", "", "", "", ""}, keys: []string{"", "4", "8", "12", "16"}},
		{name: "json pages limit", pageSize: 4, limit: 10, want: only200(all)[:10], limits: []string{"10", "6", "2"}, keys: []string{"", "4", "8"}},
		{name: "json pages limit at a page end", pageSize: 4, limit: 8, want: only200(all)[:8], limits: []string{"8", "4"}, keys: []string{"", "4"}},
		{name: "text pages", format: "text", pageSize: 7, allStatuses: true, want: noSpaces(all), limits: []string{"", "", "", ""}, keys: []string{"", "7", "14", "21"}},
		{name: "classic pages gzip", format: "classic", gzip: true, pageSize: 10, want: noSpaces(only200(all)), limits: []string{"", ""}, keys: []string{"", "10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &cdxServer{t: t, domain: "example.edu", captures: all, format: tc.format, gzip: tc.gzip, pageSize: tc.pageSize, ua: "acrawler-test/1.0"}
			if tc.format != "" {
				s.captures = noSpaces(all)
			}
			srv := httptest.NewServer(s)
			defer srv.Close()
			c := &Client{Endpoint: srv.URL + "/cdx/search/cdx", HTTP: srv.Client(), UserAgent: "acrawler-test/1.0", AllStatuses: tc.allStatuses}
			got, err := collect(t, c, tc.limit)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Captures(limit %d) = %d captures, %v; want %d\ngot  %v\nwant %v", tc.limit, len(got), err, len(tc.want), got, tc.want)
			}
			var limits, keys []string
			for _, q := range s.requests {
				limits = append(limits, q.Get("limit"))
				keys = append(keys, strings.TrimPrefix(q.Get("resumeKey"), keyPrefix))
			}
			if !slices.Equal(limits, tc.limits) || !slices.Equal(keys, tc.keys) {
				t.Errorf("Captures(limit %d) made requests with limits %q and resume keys %q; want %q and %q", tc.limit, limits, keys, tc.limits, tc.keys)
			}
		})
	}
}

// TestCapturesEndpoint: parameters in the endpoint are kept; the default
// endpoint is the Wayback Machine's.
func TestCapturesEndpoint(t *testing.T) {
	c := &Client{Endpoint: "http://127.0.0.1:1/cdx?token=abc&output=xml"}
	u, err := c.query("example.edu", 3, "k y")
	if err != nil {
		t.Fatal(err)
	}
	const want = "http://127.0.0.1:1/cdx?collapse=urlkey&filter=statuscode%3A200&fl=original%2Ctimestamp%2Cstatuscode%2Cmimetype&limit=3&matchType=domain&output=json&resumeKey=k+y&showResumeKey=true&token=abc&url=example.edu"
	if u != want {
		t.Errorf("query = %q, want %q", u, want)
	}
	if u, _ := (&Client{}).query("example.edu", 0, ""); !strings.HasPrefix(u, DefaultEndpoint+"?") {
		t.Errorf("query with the default endpoint = %q", u)
	}
	if err := (&Client{Endpoint: "http://[::1"}).Captures(t.Context(), "example.edu", 0, nil); err == nil {
		t.Error("Captures with a bad endpoint succeeded")
	}
	if err := (&Client{}).Captures(t.Context(), "", 0, nil); err == nil {
		t.Error("Captures of an empty domain succeeded")
	}
}

// handler answers every request with status and body.
func handler(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
}

const twoRows = `[["original","timestamp","statuscode","mimetype"],
["http://www.example.edu/","20010203040506","200","text/html"],
["http://www.example.edu/a","2002","200","text/html"]`

func TestCapturesErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		h         http.Handler
		want      int // captures delivered
		status    int // the StatusError's code, or 0
		temporary bool
		malformed bool
	}{
		{name: "500", h: handler(500, "java.lang.RuntimeException"), status: 500, temporary: true},
		{name: "503", h: handler(503, ""), status: 503, temporary: true},
		{name: "429", h: handler(429, "slow down"), status: 429, temporary: true},
		{name: "403 blocked", h: handler(403, "Blocked Site Error"), status: 403},
		{name: "404", h: handler(404, "not found"), status: 404},
		{name: "html", h: handler(200, "<!DOCTYPE html><html><body>Wayback Machine is down</body></html>"), malformed: true},
		{name: "garbage", h: handler(200, "\x00\x01\x02 garbage garbage"), malformed: true},
		{name: "json object", h: handler(200, `{"error": "too many"}`), malformed: true},
		{name: "json numbers", h: handler(200, `[["original","timestamp"],[1,2]]`), malformed: true},
		{name: "json without header", h: handler(200, `[["http://www.example.edu/","20010203040506","200","text/html"]]`), malformed: true},
		{name: "truncated json", h: handler(200, twoRows+",\n[\"http://www.example.edu/b\",\"2003"), want: 2, malformed: true},
		{name: "truncated json after a row", h: handler(200, twoRows), want: 2, malformed: true},
		{name: "bad timestamp", h: handler(200, twoRows+`,["http://www.example.edu/c","yesterday","200","text/html"]]`), want: 2, malformed: true},
		{name: "short row", h: handler(200, twoRows+`,["http://www.example.edu/c","2003","200"]]`), want: 2, malformed: true},
		{name: "text wrong field count", h: handler(200, "http://www.example.edu/ 20010203040506 200 text/html\nhttp://www.example.edu/a 2002\n"), want: 1, malformed: true},
		{name: "text after the key", h: handler(200, "http://www.example.edu/ 20010203040506 200 text/html\n\nkey\nmore\n"), want: 1, malformed: true},
		{name: "gzip garbage", h: handler(200, "\x1f\x8b\x08garbage"), malformed: false},
		{name: "repeated resume key", h: handler(200, twoRows+`,[],["k"]]`), want: 4, malformed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			got, err := collect(t, &Client{Endpoint: srv.URL, HTTP: srv.Client()}, 0)
			var se *StatusError
			isStatus := errors.As(err, &se)
			if err == nil || len(got) != tc.want || errors.Is(err, ErrMalformed) != tc.malformed || isStatus != (tc.status != 0) ||
				isStatus && (se.Code != tc.status || se.Temporary() != tc.temporary) || !strings.HasPrefix(err.Error(), "archive: captures example.edu: ") {
				t.Errorf("Captures(%s) = %d captures, %v; want %d, status %d (temporary %v), malformed %v", tc.name, len(got), err, tc.want, tc.status, tc.temporary, tc.malformed)
			}
		})
	}
}

// TestCapturesEmpty: no captures is no error.
func TestCapturesEmpty(t *testing.T) {
	for _, body := range []string{"", "\n", "[]", " [ ] \n", `[["original","timestamp","statuscode","mimetype"]]`} {
		t.Run(body, func(t *testing.T) {
			srv := httptest.NewServer(handler(200, body))
			defer srv.Close()
			got, err := collect(t, &Client{Endpoint: srv.URL, HTTP: srv.Client()}, 0)
			if err != nil || len(got) != 0 {
				t.Errorf("Captures(%q) = %v, %v; want none, nil", body, got, err)
			}
		})
	}
}

// TestCapturesServerDown: a closed server is an error that is not a
// StatusError nor ErrMalformed.
func TestCapturesServerDown(t *testing.T) {
	srv := httptest.NewServer(handler(200, ""))
	endpoint := srv.URL
	srv.Close()
	err := (&Client{Endpoint: endpoint}).Captures(t.Context(), "example.edu", 0, func(Capture) error { return nil })
	var se *StatusError
	if err == nil || errors.As(err, &se) || errors.Is(err, ErrMalformed) {
		t.Errorf("Captures from a closed server = %v, want a connection error", err)
	}
}

// TestCapturesHang: a server that stops answering is given up when ctx
// ends; what came before it stands.
func TestCapturesHang(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("resumeKey") == "" {
			w.Write([]byte(twoRows + ",\n"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	for _, tc := range []struct {
		name string
		want int
	}{
		{"before headers", 0},
		{"in the body", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			c := &Client{Endpoint: srv.URL, HTTP: srv.Client()}
			if tc.want == 0 {
				c.Endpoint += "?resumeKey=x"
			}
			var got []Capture
			err := c.Captures(ctx, "example.edu", 0, func(cp Capture) error {
				got = append(got, cp)
				return nil
			})
			if !errors.Is(err, context.DeadlineExceeded) || len(got) != tc.want {
				t.Errorf("Captures from a hanging server = %d captures, %v; want %d, context.DeadlineExceeded", len(got), err, tc.want)
			}
		})
	}
}

// TestCapturesFnError: fn's error stops Captures and comes back as it is.
func TestCapturesFnError(t *testing.T) {
	s := &cdxServer{t: t, domain: "example.edu", captures: testCaptures(30), pageSize: 5}
	srv := httptest.NewServer(s)
	defer srv.Close()
	stop := errors.New("stop")
	calls := 0
	err := (&Client{Endpoint: srv.URL, HTTP: srv.Client()}).Captures(t.Context(), "example.edu", 0, func(Capture) error {
		if calls++; calls == 7 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 7 || len(s.requests) != 2 {
		t.Errorf("Captures with fn failing on the 7th capture = %v after %d calls and %d requests; want stop after 7 and 2", err, calls, len(s.requests))
	}
}

// TestCapturesEmptyPages: a server that keeps sending resume keys without
// captures is given up.
func TestCapturesEmptyPages(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		fmt.Fprintf(w, `[["original","timestamp"],[],["key%d"]]`, n)
	}))
	defer srv.Close()
	_, err := collect(t, &Client{Endpoint: srv.URL, HTTP: srv.Client()}, 0)
	if !errors.Is(err, ErrMalformed) || n != maxEmptyPages {
		t.Errorf("Captures from a server without captures but with keys = %v after %d requests; want ErrMalformed after %d", err, n, maxEmptyPages)
	}
}

// TestParseCDXLong: captures of over-long URLs are skipped; an over-long
// text line or resume key makes the answer malformed.
func TestParseCDXLong(t *testing.T) {
	long := "http://www.example.edu/" + strings.Repeat("x", MaxURLLen)
	huge := strings.Repeat("y", maxValue+1)
	ok := `["http://www.example.edu/ok","2001","200","text/html"]`
	for _, tc := range []struct {
		name      string
		body      string
		want      int
		malformed bool
	}{
		{"json long URL", `[["original","timestamp","statuscode","mimetype"],["` + long + `","2001","200","text/html"],` + ok + `]`, 1, false},
		{"json longest URL", `[["original","timestamp","statuscode","mimetype"],["` + long[:MaxURLLen] + `","2001","200","text/html"],` + ok + `]`, 2, false},
		{"json long escaped URL", `[["original","timestamp","statuscode","mimetype"],["` + strings.Repeat(`\u00e9`, MaxURLLen) + `","2001","200","text/html"],` + ok + `]`, 1, false},
		{"json huge field", `[["original","timestamp","statuscode","mimetype","digest"],["http://www.example.edu/","2001","200","text/html","` + huge + `"],` + ok + `]`, 1, false},
		{"json huge key", `[["original","timestamp"],` + ok + `,[],["` + huge + `"]]`, 1, true},
		{"text long URL", long + " 2001 200 text/html\nhttp://www.example.edu/ok 2001 200 text/html\n", 1, false},
		{"text huge line", "http://www.example.edu/ok 2001 200 text/html\n" + strings.Repeat("z", 70_000) + " 2001 200 text/html\n", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := parseAll([]byte(tc.body), false)
			if len(got) != tc.want || errors.Is(err, ErrMalformed) != tc.malformed || (err != nil) != tc.malformed {
				t.Errorf("parseCDX(%s) = %d captures, %v; want %d, malformed %v", tc.name, len(got), err, tc.want, tc.malformed)
			}
		})
	}
}

// TestParseCDXKeyOnly: an answer without captures but with a resume key
// (a page of results that the filter emptied) gives the key, in either
// format; a lone value without the blank line before it is malformed.
func TestParseCDXKeyOnly(t *testing.T) {
	for _, tc := range []struct {
		body, key string
		malformed bool
	}{
		{"\nk1\n", "k1", false},
		{"\r\n\r\nk1\r\n", "k1", false},
		{`[["original","timestamp"],[],["k1"]]`, "k1", false},
		{"k1\n", "", true},
	} {
		got, key, err := parseAll([]byte(tc.body), false)
		if len(got) != 0 || key != tc.key || errors.Is(err, ErrMalformed) != tc.malformed {
			t.Errorf("parseCDX(%q) = %v, %q, %v; want no captures, key %q, malformed %v", tc.body, got, key, err, tc.key, tc.malformed)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time // zero: invalid
	}{
		{"20010203040506", time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)},
		{"2001", time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"200102", time.Date(2001, 2, 1, 0, 0, 0, 0, time.UTC)},
		{"2001020304", time.Date(2001, 2, 3, 4, 0, 0, 0, time.UTC)},
		{"20000229235959", time.Date(2000, 2, 29, 23, 59, 59, 0, time.UTC)},
		{"19000229", time.Time{}},
		{"20011301", time.Time{}},
		{"20010230", time.Time{}},
		{"20010203240000", time.Time{}},
		{"20010203046000", time.Time{}},
		{"20010203040560", time.Time{}},
		{"200102030405061", time.Time{}},
		{"20010", time.Time{}},
		{"200", time.Time{}},
		{"2001-02-03", time.Time{}},
		{"", time.Time{}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := parseTimestamp([]byte(tc.in))
			if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
				t.Errorf("parseTimestamp(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
			}
		})
	}
}

// TestCapturesResumeKeyCycle: a server whose resume keys go round in a
// cycle (A, B, A, ...), each answer with captures, is given up when a key
// comes back, not asked forever.
func TestCapturesResumeKeyCycle(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n++; n > 20 {
			http.Error(w, "asked too often", http.StatusTeapot)
			return
		}
		next := map[string]string{"": "A", "A": "B", "B": "A"}[r.URL.Query().Get("resumeKey")]
		fmt.Fprintf(w, `[["original","timestamp"],["http://www.example.edu/%d","2001"],[],[%q]]`, n, next)
	}))
	defer srv.Close()
	got, err := collect(t, &Client{Endpoint: srv.URL, HTTP: srv.Client()}, 0)
	if !errors.Is(err, ErrMalformed) || n != 3 || len(got) != 3 {
		t.Errorf("Captures from a server with cycling resume keys = %d captures, %v after %d requests; want 3, ErrMalformed after 3", len(got), err, n)
	}
}

// TestCapturesQuery: a filter in the endpoint is kept beside the status
// filter (the CDX server applies every filter= given); an IDN domain is
// asked in punycode, as the archive keys it.
func TestCapturesQuery(t *testing.T) {
	c := &Client{Endpoint: "http://127.0.0.1:1/cdx?filter=mimetype:text/html"}
	u, err := c.query("bücher.example", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(u)
	q := pu.Query()
	if f := q["filter"]; !slices.Equal(f, []string{"mimetype:text/html", "statuscode:200"}) {
		t.Errorf("query with an endpoint filter: filter=%q, want the endpoint's and statuscode:200", f)
	}
	if d := q.Get("url"); d != "xn--bcher-kva.example" {
		t.Errorf("query(bücher.example): url=%q, want xn--bcher-kva.example", d)
	}
}

// TestParseCDXSurrogates: \u escapes of UTF-16 surrogates decode as
// encoding/json decodes them: a lone surrogate is U+FFFD and the escape
// after it is not lost.
func TestParseCDXSurrogates(t *testing.T) {
	for _, s := range []string{
		`\ud83d\ude00`,
		`\ud800\u0041`,
		`\udc00\ud83d\ude00`,
		`\ud800\ud800\udc00`,
		`\ud800x`,
		`\ud800\n`,
	} {
		body := `[["original","timestamp"],["http://a.example/` + s + `","2001"]]`
		var want [][]string
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		got, _, err := parseAll([]byte(body), false)
		if err != nil || len(got) != 1 || got[0].URL != want[1][0] {
			t.Errorf("parseCDX(%s) = %+v, %v; want URL %q", body, got, err, want[1][0])
		}
	}
}
