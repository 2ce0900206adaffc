package fetch

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"120", 120 * time.Second},
		{" 30 ", 30 * time.Second},
		{"86400", 24 * time.Hour},
		{"86401", maxRetryAfter},
		{"99999999999999999999999", maxRetryAfter},
		{"-5", 0},
		{"+5", 0},
		{"1.5", 0},
		{"soon", 0},
		{"Sat, 01 Mar 2025 12:10:00 GMT", 10 * time.Minute},
		{"Saturday, 01-Mar-25 13:00:00 GMT", time.Hour},  // RFC 850
		{"Sat Mar  1 12:00:30 2025", 30 * time.Second},   // asctime
		{"Sat, 01 Mar 2025 11:00:00 GMT", 0},             // in the past
		{"Sat, 01 Mar 2026 12:00:00 GMT", maxRetryAfter}, // too far
		{"Sat, 01 Mar 2025 12:10:00 +0100", 0},           // not an HTTP-date
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestMediaType(t *testing.T) {
	tests := []struct{ in, want string }{
		{"text/html", "text/html"},
		{"Text/HTML; charset=UTF-8", "text/html"},
		{"  application/xhtml+xml ;q=1", "application/xhtml+xml"},
		{"image/svg+xml", "image/svg+xml"},
		{"", ""},
		{"html", ""},
		{"text/", ""},
		{"/html", ""},
		{"text/html/x", ""},
		{"text /html", ""},
		{"text/html, image/png", ""},
		{"tëxt/html", ""},
		{";charset=utf-8", ""},
	}
	for _, tt := range tests {
		if got := mediaType(tt.in); got != tt.want {
			t.Errorf("mediaType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// endless reads zeros forever and counts them.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.n += int64(len(p))
	return len(p), nil
}

func TestReadBodyLimit(t *testing.T) {
	for _, size := range []int64{-1, 0, 100, 1 << 30} {
		for _, limit := range []int64{0, 1, 511, 512, 4096, 1 << 20} {
			src := &endless{}
			buf, err := readBody(src, nil, limit, size)
			if !errors.Is(err, errTooLarge) || src.n != limit+1 || buf != nil {
				t.Errorf("readBody(endless, limit %d, size %d) = %d bytes, %v after reading %d; want errTooLarge after %d",
					limit, size, len(buf), err, src.n, limit+1)
			}
		}
	}
	body := strings.Repeat("x", 1000)
	for _, size := range []int64{-1, 0, 999, 1000, 1001, 1 << 20} {
		for _, prefix := range []int{0, 1, 512} {
			got, err := readBody(strings.NewReader(body[prefix:]), []byte(body[:prefix]), 1000, size)
			if err != nil || string(got) != body {
				t.Errorf("readBody(1000 bytes, prefix %d, limit 1000, size %d) = %d bytes, %v", prefix, size, len(got), err)
			}
		}
	}
}

func TestDecoderEmpty(t *testing.T) {
	for _, enc := range []string{"", "identity", "gzip", "x-gzip", "deflate", "GZIP"} {
		r, release, err := decoder(enc, bytes.NewReader(nil))
		if err != nil {
			t.Errorf("decoder(%q, empty) error: %v", enc, err)
			continue
		}
		b, err := io.ReadAll(r)
		release()
		if err != nil || len(b) != 0 {
			t.Errorf("decoder(%q, empty) read %q, %v; want nothing", enc, b, err)
		}
	}
	if _, _, err := decoder("br", bytes.NewReader(nil)); err == nil {
		t.Errorf("decoder(br) succeeded, want an unsupported-encoding error")
	}
}
