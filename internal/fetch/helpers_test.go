package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"testing"
	"time"
)

// testUA is the User-Agent of test clients.
const testUA = "acrawler-test/1.0 (+https://example.org/bot)"

// newClient returns a client for tests: the test User-Agent, no proxy
// whatever the environment, a 2s timeout, closed at the end of the test.
func newClient(t testing.TB, cfg Config) *Client {
	t.Helper()
	if cfg.UserAgent == "" {
		cfg.UserAgent = testUA
	}
	if cfg.Proxy == "" {
		cfg.Proxy = "none"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Second
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// mustFetch fetches u and fails the test on error.
func mustFetch(t *testing.T, c *Client, req Request) *Response {
	t.Helper()
	resp, err := c.Fetch(context.Background(), req)
	if err != nil {
		t.Fatalf("Fetch(%q) error: %v", req.URL, err)
	}
	return resp
}

// fetchKind fetches and requires an *Error of kind want.
func fetchKind(t *testing.T, c *Client, req Request, want Kind) *Error {
	t.Helper()
	resp, err := c.Fetch(context.Background(), req)
	return requireKind(t, req.URL, resp, err, want)
}

func requireKind(t *testing.T, u string, resp *Response, err error, want Kind) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("Fetch(%q) = status %d, want error of kind %v", u, resp.Status, want)
	}
	if resp != nil {
		t.Errorf("Fetch(%q) returned both a response and an error", u)
	}
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("Fetch(%q) error %v is %T, want *Error", u, err, err)
	}
	if fe.Kind != want {
		t.Fatalf("Fetch(%q) error kind = %v, want %v (%v)", u, fe.Kind, want, err)
	}
	return fe
}

// gzipBytes compresses b.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// waitDone waits for ch, failing the test after a generous hang guard.
func waitDone(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not finish", what)
	}
}
