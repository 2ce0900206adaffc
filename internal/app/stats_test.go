package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

func TestStats(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testStats)
}

// testStats checks `acrawler stats` and `stats --json` against
// what the store holds after a crawl of the blog: a trap suspect, soft
// blocks, skipped URLs.
func testStats(t *testing.T, be apptest.Backend) {
	web, db, _ := clTrapCrawl(t, be, "--trap-policy", "stop", "--max-pages", "300")
	d := apptest.OpenDB(t, db)
	fetched := int64(len(clHostRequests(web, clBlog)))
	r := clStatsJSON(t, db)
	f := r.Figures

	if c := r.Counters; c.Pages != apptest.QueryInt(t, d, `SELECT count(*) FROM pages`) || c.Queued != 0 || c.InFlight != 0 ||
		c.Skipped != apptest.QueryInt(t, d, `SELECT count(*) FROM urls WHERE state = 5`) || c.Skipped == 0 {
		t.Errorf("counters = %+v, want the store's pages and skipped URLs, nothing queued", c)
	}
	if f.Fetched != fetched {
		t.Errorf("figures: %d fetched, the web served %d pages", f.Fetched, fetched)
	}
	if want := clUseful(t, d); f.Useful != want || f.Useful+f.SoftBlocks > f.Fetched {
		t.Errorf("figures: %d useful (store: %d), %d soft blocks, %d fetched", f.Useful, want, f.SoftBlocks, f.Fetched)
	}
	if f.SoftBlocks != 3 {
		t.Errorf("figures: %d soft blocks, want the blog's 3 captcha pages", f.SoftBlocks)
	}
	// A trap keeps finding new URLs: well over one per page.
	if f.DiscoveryRate < 1 || f.DuplicateRate <= 0 || f.DuplicateRate >= 1 {
		t.Errorf("figures: discovery rate %.2f, duplicate rate %.2f; want ≥ 1 and a share", f.DiscoveryRate, f.DuplicateRate)
	}
	if f.BytesPerUseful < 1000 || f.BytesPerUseful > 100000 || f.BytesSpent != clHostRow(t, d, clBlog).bytes {
		t.Errorf("figures: %.0f bytes per useful page, %d bytes spent", f.BytesPerUseful, f.BytesSpent)
	}
	if f.PagesReserved != f.Fetched {
		t.Errorf("figures: %d pages counted against --max-pages, %d fetched", f.PagesReserved, f.Fetched)
	}
	var seriesFetched, seriesBlocked int64
	for _, iv := range r.Series {
		seriesFetched += iv.Fetched
		seriesBlocked += iv.Blocked
		if iv.At.IsZero() {
			t.Errorf("series interval without a time: %+v", iv)
		}
	}
	if len(r.Series) == 0 || seriesFetched != f.Fetched || seriesBlocked != f.SoftBlocks {
		t.Errorf("series of %d intervals sums to %d fetched, %d blocked; want %d and %d", len(r.Series), seriesFetched,
			seriesBlocked, f.Fetched, f.SoftBlocks)
	}
	if len(r.Hosts) != 1 || r.Hosts[0].Host != clBlog || r.Hosts[0].Fetched != fetched || r.Hosts[0].Status2xx != fetched ||
		r.Hosts[0].SoftBlocks != 3 {
		t.Errorf("hosts = %+v, want the blog with %d fetched, all 2xx, 3 soft blocks", r.Hosts, fetched)
	}
	if len(r.Traps) != 1 || r.Traps[0].Host != clBlog || !strings.HasPrefix(r.Traps[0].Trap, "discovery rate not falling") {
		t.Errorf("trap suspects = %+v, want the blog", r.Traps)
	}

	// The text report says the same.
	out, errs, err := runCmd(t, "stats", "--db", db)
	if err != nil {
		t.Fatalf("stats: %v\n%s", err, errs)
	}
	for _, want := range []string{
		fmt.Sprintf("%d fetched, %d useful", f.Fetched, f.Useful),
		"3 soft blocks",
		"trap suspects:\n  " + clBlog + ": discovery rate not falling",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stats output lacks %q:\n%s", want, out)
		}
	}
	if !regexpMatch(`(?m)^`+regexp.QuoteMeta(clBlog)+`\s+`+strconv.FormatInt(fetched, 10)+`\s.*\syes\s+-?\d+\s`, out) {
		t.Errorf("stats host table has no row for the blog with %d fetched, flagged as a trap, with its value:\n%s", fetched, out)
	}
}

// clMetric reads one sample of a Prometheus text exposition.
func clMetric(body, name string) (float64, bool) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}

func clFreeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestPrometheusMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	web := apptest.NewWeb(t, testweb.Config{Seed: 4, PagesPerSite: 20})
	db := apptest.Backends[0].NewDB(t)
	addr := clFreeAddr(t)
	args := web.CrawlArgs(db, "--delay", "10ms", "--scope", "host", "--max-depth", "0", "--max-path-repeats", "0",
		"--trap-policy", "warn", "--max-pages", "1000", "--metrics-addr", addr, clBlog+"/")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, &stdout, &stderr) }()

	// Scrape while the crawl runs, until it has flagged the trap.
	client := &http.Client{Timeout: 2 * time.Second}
	scrape := func() (string, error) {
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("status %s", resp.Status)
		}
		return string(b), err
	}
	var body string
	var runErr error
	finished := false
	deadline := time.Now().Add(30 * time.Second)
poll:
	for time.Now().Before(deadline) {
		select {
		case runErr = <-done:
			finished = true
			break poll
		default:
		}
		if b, err := scrape(); err == nil {
			body = b
			if v, _ := clMetric(b, "acrawler_trap_suspects"); v >= 1 {
				break poll
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if finished {
		t.Fatalf("the crawl ended (%v) before /metrics showed a trap suspect; last scrape:\n%s\n%s", runErr, body, stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("interrupted crawl: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "interrupted") {
		t.Errorf("summary does not say the crawl was interrupted:\n%s", stdout.String())
	}

	if v, _ := clMetric(body, "acrawler_trap_suspects"); v != 1 {
		t.Fatalf("/metrics never showed the trap suspect; last scrape:\n%s", body)
	}
	fetched, ok := clMetric(body, "acrawler_pages_fetched_total")
	if !ok || fetched < 100 {
		t.Errorf("acrawler_pages_fetched_total = %v (%v), want ≥ 100 pages when the trap is flagged", fetched, ok)
	}
	if total := len(clHostRequests(web, clBlog)); fetched > float64(total) {
		t.Errorf("acrawler_pages_fetched_total = %v, but only %d pages were served", fetched, total)
	}
	for _, name := range []string{"acrawler_bytes_total", "acrawler_responses_2xx_total", "acrawler_urls_admitted_total",
		"acrawler_links_offered_total", "acrawler_pages_useful_total"} {
		if v, ok := clMetric(body, name); !ok || v <= 0 {
			t.Errorf("%s = %v (%v), want > 0", name, v, ok)
		}
	}
	for _, name := range []string{"acrawler_soft_blocks_total", "acrawler_frontier_urls", "acrawler_urls_trapped_total", "go_goroutines"} {
		if _, ok := clMetric(body, name); !ok {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if !strings.Contains(body, "# TYPE acrawler_pages_fetched_total counter") {
		t.Error("/metrics lacks the TYPE line of acrawler_pages_fetched_total")
	}
	// The endpoint goes away with the crawl.
	if _, err := scrape(); err == nil {
		t.Error("/metrics still answers after the crawl ended")
	}
}
