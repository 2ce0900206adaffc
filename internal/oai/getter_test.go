package oai

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
	}{
		{"", 0},
		{"120", 2 * time.Minute},
		{" 5 ", 5 * time.Second},
		{"-3", 0},
		{"99999999999", 7 * 24 * time.Hour},
		{"Sat, 01 Mar 2025 09:31:00 GMT", time.Minute},
		{"Sat, 01 Mar 2025 09:00:00 GMT", 0},
		{"soon", 0},
	} {
		if got := retryAfter(tc.v, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// TestHTTPGetterLimit: a body over MaxBytes reaches Parse as too large,
// not as truncated XML.
func TestHTTPGetterLimit(t *testing.T) {
	body := `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>` + strings.Repeat("x", 200) + `</responseDate></OAI-PMH>`
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != "ua" {
			rw.WriteHeader(http.StatusForbidden)
			return
		}
		rw.Write([]byte(body))
	}))
	defer srv.Close()
	g := &HTTPGetter{Client: srv.Client(), UserAgent: "ua", MaxBytes: 100}
	status, got, _, err := g.Get(t.Context(), srv.URL)
	if err != nil || status != http.StatusOK {
		t.Fatalf("Get = %d, %v", status, err)
	}
	if _, err := Parse(got, Limits{MaxBytes: 100}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Parse of a cut body = %v, want ErrTooLarge", err)
	}
}
