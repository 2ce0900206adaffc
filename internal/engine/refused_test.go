package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fetch"
)

// TestRefusedHostIsFinal: a seed whose address the SSRF guard refuses is
// recorded at once as failed with the refusal, without a request, a
// robots.txt retry or a retry of the URL.
func TestRefusedHostIsFinal(t *testing.T) {
	t.Parallel()
	const want = "refused: private address (use --allow-private)"
	check := func(t *testing.T, tc *testCrawl, seed string, hits func() int) {
		t.Helper()
		sum := tc.crawl(20 * time.Second)
		if n := hits(); n != 0 {
			t.Errorf("the server received %d requests, want none", n)
		}
		rec, ok := tc.url(seed)
		if !ok {
			t.Fatalf("%s not recorded", seed)
		}
		if rec.State != crawl.StateFailed || rec.Error != want || !rec.RetryAt.IsZero() {
			t.Errorf("%s: state %v, error %q, retry at %v; want failed, %q, no retry", seed, rec.State, rec.Error, rec.RetryAt, want)
		}
		hs, err := tc.open().HostStats(context.Background(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 1 || hs[0].Errors["refused"] != 1 {
			t.Errorf("host stats %+v, want one host with one \"refused\" error", hs)
		}
		if sum.Failed != 1 || sum.Retried != 0 || sum.Skipped != 0 || sum.Robots != 0 {
			t.Errorf("summary failed %d, retried %d, skipped %d, robots %d; want 1 failed and nothing else",
				sum.Failed, sum.Retried, sum.Skipped, sum.Robots)
		}
	}
	t.Run("localhost name", func(t *testing.T) {
		// Through the proxy of the test web: the name is refused before
		// the proxy is asked.
		tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) { html(rw, "private") }, "http://intranet.localhost/")
		check(t, tc, "http://intranet.localhost/", func() int {
			return tc.web.requests("http://intranet.localhost/robots.txt") + tc.web.requests("http://intranet.localhost/")
		})
	})
	t.Run("loopback address", func(t *testing.T) {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			html(rw, "private")
		}))
		t.Cleanup(srv.Close)
		tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {}, srv.URL+"/")
		client, err := fetch.New(fetch.Config{UserAgent: "acrawler-test/1.0", Timeout: 5 * time.Second, Proxy: "none"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(client.Close)
		tc.cfg.Fetcher = client
		check(t, tc, tc.cfg.Seeds[0], func() int { return int(hits.Load()) })
	})
}
