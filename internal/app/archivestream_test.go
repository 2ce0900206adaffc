package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// pagedCDX is a CDX server holding pages×perPage captures of big.test,
// each twice in a row, served a page at a time with resume keys; it
// counts the pages it served.
type pagedCDX struct {
	pages, perPage int
	served         atomic.Int64
}

func (c *pagedCDX) url(page, i int) string { return fmt.Sprintf("http://big.test/p%d/%d", page, i) }

func (c *pagedCDX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page, _ := strconv.Atoi(r.URL.Query().Get("resumeKey"))
	c.served.Add(1)
	w.Header().Set("Content-Type", "application/json")
	var b strings.Builder
	b.WriteString(`[["original","timestamp","statuscode","mimetype"]`)
	for i := range c.perPage {
		for range 2 {
			fmt.Fprintf(&b, `,
["%s","20190301000000","200","text/html"]`, c.url(page, i))
		}
	}
	if page+1 < c.pages {
		fmt.Fprintf(&b, `,
[],
["%d"]`, page+1)
	}
	b.WriteString("]")
	w.Write([]byte(b.String()))
}

// The web archive's URLs reach the crawl in batches of seedBatch at most,
// each URL once (its captures come together), read from the archive as the batches are
// taken: when the first batch is handed over, the archive has served no
// more pages than that batch needed.
func TestArchiveStreamsInBatches(t *testing.T) {
	t.Parallel()
	cdx := &pagedCDX{pages: 7, perPage: 4000}
	srv := httptest.NewServer(cdx)
	defer srv.Close()
	norm, err := (&Config{}).normalizer()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{SeedArchive: []string{"big.test"}, CDXEndpoint: srv.URL + "/cdx", ArchiveLimit: 100_000, Proxy: "none"}
	stream := archiveBatches(cfg, &seedList{norm: norm}, nil, slog.New(slog.DiscardHandler))
	seen := map[string]bool{}
	batches := 0
	err = stream(context.Background(), func(batch []string) error {
		batches++
		if len(batch) > seedBatch {
			t.Fatalf("batch of %d URLs, want at most %d", len(batch), seedBatch)
		}
		if batches == 1 {
			if n := cdx.served.Load(); n > int64((seedBatch+cdx.perPage-1)/cdx.perPage) {
				t.Errorf("the archive served %d pages of %d captures before the first batch", n, cdx.perPage)
			}
		}
		for _, u := range batch {
			if seen[u] {
				t.Fatalf("%s offered twice", u)
			}
			seen[u] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := cdx.pages * cdx.perPage; len(seen) != want || batches != (want+seedBatch-1)/seedBatch {
		t.Errorf("%d URLs in %d batches, want %d in %d", len(seen), batches, want, (want+seedBatch-1)/seedBatch)
	}
	if !seen[cdx.url(0, 0)] || !seen[cdx.url(cdx.pages-1, cdx.perPage-1)] {
		t.Errorf("the first or the last URL is missing")
	}
	// A store that fails stops the stream with its error.
	stop := fmt.Errorf("store down")
	if err := stream(context.Background(), func([]string) error { return stop }); err != stop {
		t.Errorf("stream with a failing add = %v, want %v", err, stop)
	}
}
