package oai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HTTPGetter is a plain Getter over an http.Client, for tools and tests;
// a crawl passes its own client, which keeps the host's politeness.
type HTTPGetter struct {
	Client    *http.Client // nil: http.DefaultClient
	UserAgent string
	// MaxBytes bounds a body (default DefaultMaxBytes); one byte more is
	// read, so that Parse with the same limit reports ErrTooLarge rather
	// than truncated XML.
	MaxBytes int64
}

var _ Getter = (*HTTPGetter)(nil)

// Get fetches u. Its error means no response was obtained.
func (g *HTTPGetter) Get(ctx context.Context, u string) (int, []byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, 0, err
	}
	if g.UserAgent != "" {
		req.Header.Set("User-Agent", g.UserAgent)
	}
	req.Header.Set("Accept", "text/xml, application/xml;q=0.9, */*;q=0.1")
	c := g.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	max := g.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return 0, nil, 0, fmt.Errorf("read body: %w", err)
	}
	return resp.StatusCode, body, retryAfter(resp.Header.Get("Retry-After"), time.Now()), nil
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, 7*24*3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
