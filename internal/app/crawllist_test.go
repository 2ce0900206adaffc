package app

// End-to-end tests of the crawl list (issue 4) through Run: trap flags and
// --trap-policy, the duplicate-content flag, soft blocks, `stats` and
// Prometheus metrics, sitemap discovery and --sitemap, --seed-archive
// against a local CDX server, and --max-host-share.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/testweb"
)

const (
	clBlog    = "http://blog.deep-archive.test"
	clJournal = "http://journal-of-applied-crawling.test"
	// clOrphan is linked from no page of the test web: only the journal's
	// sitemap lists it.
	clOrphan = clJournal + "/announcements/call-for-papers"
)

// clHostRequests returns the page requests (not robots.txt, not CONNECT)
// the web served for one origin.
func clHostRequests(w *testWeb, origin string) []string {
	var out []string
	for _, u := range pageRequests(w) {
		if strings.HasPrefix(u, origin+"/") {
			out = append(out, u)
		}
	}
	return out
}

// clHost reads one row of the hosts table.
type clHost struct {
	fetched, admitted, blocked, backoff, bytes int64
	trap                                       string
}

func clHostRow(t *testing.T, d *testDB, origin string) clHost {
	t.Helper()
	var h clHost
	if err := d.row(`SELECT fetched, admitted, blocked, backoff, bytes, trap FROM hosts WHERE key = ?`, origin).
		Scan(&h.fetched, &h.admitted, &h.blocked, &h.backoff, &h.bytes, &h.trap); err != nil {
		t.Fatalf("hosts row of %s: %v", origin, err)
	}
	return h
}

// clReport is `acrawler stats --json` as a machine reads it: the field
// names are the contract.
type clReport struct {
	Counters struct {
		Queued, InFlight, Done, Skipped, Pages int64
	} `json:"counters"`
	Figures struct {
		Fetched        int64   `json:"fetched"`
		Useful         int64   `json:"useful"`
		DiscoveryRate  float64 `json:"discovery_rate"`
		DuplicateRate  float64 `json:"duplicate_rate"`
		BytesPerUseful float64 `json:"bytes_per_useful"`
		SoftBlocks     int64   `json:"soft_blocks"`
		Errors         int64   `json:"errors"`
		PagesReserved  int64   `json:"pages_reserved"`
		BytesSpent     int64   `json:"bytes_budget_spent"`
	} `json:"figures"`
	Series []struct {
		At       time.Time `json:"at"`
		Fetched  int64     `json:"fetched"`
		Blocked  int64     `json:"blocked"`
		Frontier int64     `json:"frontier"`
	} `json:"series"`
	Hosts   []clReportHost `json:"hosts"`
	Traps   []clReportHost `json:"trap_suspects"`
	Sources []struct {
		Kind   string `json:"kind"`
		Source string `json:"source"`
		URL    string `json:"url"`
		Error  string `json:"error"`
		URLs   int    `json:"urls"`
	} `json:"source_errors"`
}

type clReportHost struct {
	Host       string `json:"host"`
	Fetched    int64  `json:"fetched"`
	Status2xx  int64  `json:"status_2xx"`
	SoftBlocks int64  `json:"soft_blocks"`
	Trap       string `json:"trap"`
}

func clStatsJSON(t *testing.T, db string) clReport {
	t.Helper()
	out, errs, err := runCmd(t, "stats", "--db", db, "--json")
	if err != nil {
		t.Fatalf("stats --json: %v\n%s", err, errs)
	}
	var r clReport
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("stats --json does not parse: %v\n%s", err, out)
	}
	return r
}

// clUseful counts the useful pages of a crawl from the store: 2xx HTML or
// PDF, not a duplicate, not a soft block.
func clUseful(t *testing.T, d *testDB) int64 {
	t.Helper()
	return queryInt(t, d, `SELECT count(*) FROM pages WHERE status BETWEEN 200 AND 299 AND duplicate_of = 0 AND NOT blocked
		AND (content_type IN ('text/html', 'application/xhtml+xml', 'application/pdf'))`)
}

// clTrapCrawl crawls the archive blog with its /a/b/a/b/ path trap let
// loose (no repeated-segment limit, no depth limit), so only the
// discovery-rate watch can catch it.
func clTrapCrawl(t *testing.T, be backend, extra ...string) (*testWeb, string, string) {
	t.Helper()
	web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 20})
	db := be.newDB(t)
	args := web.crawlArgs(db, append([]string{"--delay", "0", "--scope", "host", "--max-depth", "0", "--max-path-repeats", "0"}, extra...)...)
	out := mustCrawl(t, append(args, clBlog+"/")...)
	return web, db, out
}

func TestCrawlListTrapPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testCrawlListTrapPolicies)
}

func testCrawlListTrapPolicies(t *testing.T, be backend) {
	const budget = 300
	type outcome struct {
		fetched, trapFetched, skipped int64
		host                          clHost
		out                           string
	}
	run := func(policy string) outcome {
		web, db, out := clTrapCrawl(t, be, "--max-pages", strconv.Itoa(budget), "--trap-policy", policy)
		d := openDB(t, db)
		var o outcome
		o.out = out
		for _, u := range clHostRequests(web, clBlog) {
			o.fetched++
			if strings.HasPrefix(u, clBlog+"/a/") {
				o.trapFetched++
			}
		}
		o.host = clHostRow(t, d, clBlog)
		o.skipped = queryInt(t, d, `SELECT count(*) FROM urls WHERE state = 5 AND error LIKE 'suspected trap%'`)
		// Whatever the policy, the host is flagged in the store.
		if !strings.HasPrefix(o.host.trap, "discovery rate not falling") {
			t.Errorf("--trap-policy %s: blog host trap = %q, want it flagged for its discovery rate", policy, o.host.trap)
		}
		t.Logf("--trap-policy %s: %d pages fetched (%d in the trap), %d URLs admitted, %d skipped as a trap", policy,
			o.fetched, o.trapFetched, o.host.admitted, o.skipped)
		return o
	}
	warn, throttle, stop := run("warn"), run("throttle"), run("stop")

	// warn changes nothing: the trap eats the whole budget.
	if !strings.Contains(warn.out, "page budget reached") || warn.fetched < budget-5 {
		t.Errorf("warn: %d pages fetched, want the budget of %d spent:\n%s", warn.fetched, budget, warn.out)
	}
	if warn.skipped != 0 {
		t.Errorf("warn: %d URLs skipped as a trap, want none", warn.skipped)
	}
	// throttle fetches what was known and admits nothing new: the frontier
	// runs dry long before the budget.
	if !strings.Contains(throttle.out, "frontier exhausted") || throttle.fetched >= warn.fetched {
		t.Errorf("throttle: %d pages fetched (warn %d), want the frontier exhausted before the budget:\n%s",
			throttle.fetched, warn.fetched, throttle.out)
	}
	if throttle.host.admitted >= warn.host.admitted {
		t.Errorf("throttle admitted %d URLs of the trap host, warn %d: want fewer", throttle.host.admitted, warn.host.admitted)
	}
	// stop fetches nothing more from the host once it is flagged.
	if !strings.Contains(stop.out, "frontier exhausted") || stop.fetched >= throttle.fetched || stop.trapFetched >= throttle.trapFetched {
		t.Errorf("stop: %d pages fetched (%d in the trap), throttle %d (%d): want far fewer", stop.fetched, stop.trapFetched,
			throttle.fetched, throttle.trapFetched)
	}
	if stop.skipped == 0 {
		t.Error("stop: no queued URL of the trap host was skipped")
	}
	if stop.fetched > budget/2 {
		t.Errorf("stop: %d pages fetched, want about the 100 it takes to flag the host", stop.fetched)
	}
}

func TestCrawlListDuplicateSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testCrawlListDuplicateSpace)
}

// testCrawlListDuplicateSpace crawls faults.test/headlines, where every
// ?refresh=N serves the same text and links to new N: an auto-generated
// space that the duplicate-content rate flags.
func testCrawlListDuplicateSpace(t *testing.T, be backend) {
	const budget = 60
	run := func(policy string) (int, clHost, string) {
		web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 10})
		db := be.newDB(t)
		out := mustCrawl(t, web.crawlArgs(db, "--delay", "0", "--scope", "host", "--max-depth", "0", "--no-sitemaps",
			"--max-pages", strconv.Itoa(budget), "--trap-policy", policy, "http://faults.test/headlines")...)
		n := len(clHostRequests(web, "http://faults.test"))
		h := clHostRow(t, openDB(t, db), "http://faults.test")
		t.Logf("--trap-policy %s: %d pages fetched, %d duplicates recorded, trap %q", policy, n, queryInt(t, openDB(t, db),
			`SELECT count(*) FROM pages WHERE duplicate_of <> 0`), h.trap)
		if !strings.HasPrefix(h.trap, "duplicate content") {
			t.Errorf("--trap-policy %s: faults.test trap = %q, want it flagged as duplicate content", policy, h.trap)
		}
		if r := clStatsJSON(t, db); len(r.Traps) != 1 || r.Traps[0].Host != "http://faults.test" {
			t.Errorf("--trap-policy %s: stats trap suspects = %+v, want faults.test", policy, r.Traps)
		}
		return n, h, out
	}
	nWarn, _, outWarn := run("warn")
	if !strings.Contains(outWarn, "page budget reached") || nWarn < budget-2 {
		t.Errorf("warn: %d pages fetched, want the budget of %d spent:\n%s", nWarn, budget, outWarn)
	}
	// The default policy, throttle, ends the space soon after the flag
	// (at 30 pages).
	nThrottle, _, outThrottle := run("throttle")
	if !strings.Contains(outThrottle, "frontier exhausted") || nThrottle > 40 {
		t.Errorf("throttle: %d pages fetched, want the space left soon after 30:\n%s", nThrottle, outThrottle)
	}
}

func TestCrawlListSoftBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testCrawlListSoftBlocks)
}

// testCrawlListSoftBlocks fetches the blog's three captcha pages (200
// answers that refuse the crawler) and, for comparison, three ordinary
// pages of the same host.
func testCrawlListSoftBlocks(t *testing.T, be backend) {
	run := func(paths ...string) (*testDB, string) {
		web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 10})
		db := be.newDB(t)
		// Seeds go first: the page budget keeps the crawl to them.
		args := web.crawlArgs(db, "--delay", "0", "--no-sitemaps", "--max-pages", strconv.Itoa(len(paths)))
		for _, p := range paths {
			args = append(args, clBlog+p)
		}
		mustCrawl(t, args...)
		if n := len(clHostRequests(web, clBlog)); n != len(paths) {
			t.Fatalf("%d pages requested, want %d", n, len(paths))
		}
		return openDB(t, db), db
	}

	d, db := run("/protected/report-1", "/protected/report-2", "/protected/report-3")
	if n := queryInt(t, d, `SELECT count(*) FROM pages WHERE status = 200 AND blocked`); n != 3 {
		t.Errorf("%d captcha pages recorded as soft blocks, want 3", n)
	}
	h := clHostRow(t, d, clBlog)
	if h.blocked != 3 {
		t.Errorf("host counts %d soft blocks, want 3", h.blocked)
	}
	// Three in a row slow the host down.
	if h.backoff < 1 {
		t.Errorf("host back-off %d after 3 soft blocks in a row, want the host slowed down", h.backoff)
	}
	r := clStatsJSON(t, db)
	if r.Figures.SoftBlocks != 3 || r.Figures.Useful != 0 || r.Figures.Fetched != 3 {
		t.Errorf("stats: %d fetched, %d useful, %d soft blocks; want 3 fetched, 0 useful, 3 soft blocks", r.Figures.Fetched,
			r.Figures.Useful, r.Figures.SoftBlocks)
	}
	if len(r.Hosts) != 1 || r.Hosts[0].SoftBlocks != 3 {
		t.Errorf("stats hosts = %+v, want the blog with 3 soft blocks", r.Hosts)
	}

	// Ordinary pages of the same host: successes, no slowing down.
	d, db = run("/", "/about", "/archive/")
	if n := queryInt(t, d, `SELECT count(*) FROM pages WHERE blocked`); n != 0 {
		t.Errorf("%d ordinary pages recorded as soft blocks", n)
	}
	if h := clHostRow(t, d, clBlog); h.blocked != 0 || h.backoff != 0 {
		t.Errorf("ordinary pages: host blocked %d, back-off %d; want 0 and 0", h.blocked, h.backoff)
	}
	if r := clStatsJSON(t, db); r.Figures.SoftBlocks != 0 || r.Figures.Useful != 3 {
		t.Errorf("ordinary pages: stats %d useful, %d soft blocks; want 3 and 0", r.Figures.Useful, r.Figures.SoftBlocks)
	}
}

func TestCrawlListStats(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testCrawlListStats)
}

// testCrawlListStats checks `acrawler stats` and `stats --json` against
// what the store holds after a crawl of the blog: a trap suspect, soft
// blocks, skipped URLs.
func testCrawlListStats(t *testing.T, be backend) {
	web, db, _ := clTrapCrawl(t, be, "--trap-policy", "stop", "--max-pages", "300")
	d := openDB(t, db)
	fetched := int64(len(clHostRequests(web, clBlog)))
	r := clStatsJSON(t, db)
	f := r.Figures

	if c := r.Counters; c.Pages != queryInt(t, d, `SELECT count(*) FROM pages`) || c.Queued != 0 || c.InFlight != 0 ||
		c.Skipped != queryInt(t, d, `SELECT count(*) FROM urls WHERE state = 5`) || c.Skipped == 0 {
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

func TestCrawlListPrometheusMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 20})
	db := backends[0].newDB(t)
	addr := clFreeAddr(t)
	args := web.crawlArgs(db, "--delay", "10ms", "--scope", "host", "--max-depth", "0", "--max-path-repeats", "0",
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

// clSitemapLocs reads a sitemap (or index, gzipped or not) of the test web
// through its proxy and returns the page URLs it lists and the sitemaps it
// read.
func clSitemapLocs(t *testing.T, w *testWeb, sitemapURL string) (pages, sitemaps []string) {
	t.Helper()
	pu, _ := url.Parse(w.proxy)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableCompression: true}, Timeout: 10 * time.Second}
	resp, err := client.Get(sitemapURL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %v %v", sitemapURL, resp.Status, err)
	}
	if len(body) > 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var doc struct {
		URLs     []string `xml:"url>loc"`
		Sitemaps []string `xml:"sitemap>loc"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%s: %v", sitemapURL, err)
	}
	sitemaps = append(sitemaps, sitemapURL)
	pages = doc.URLs
	for _, child := range doc.Sitemaps {
		p, s := clSitemapLocs(t, w, child)
		pages = append(pages, p...)
		sitemaps = append(sitemaps, s...)
	}
	return pages, sitemaps
}

func TestCrawlListSitemaps(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testCrawlListSitemaps)
}

func testCrawlListSitemaps(t *testing.T, be backend) {
	cfg := testweb.Config{Seed: 4, PagesPerSite: 20}
	const lab = "http://lab.quantum-optics-institute.test"
	if info, ok := testweb.New(cfg).Lookup(clOrphan); !ok || info.Status != 200 {
		t.Fatalf("the test web has no sitemap-only page %s", clOrphan)
	}

	t.Run("discovered", func(t *testing.T) {
		web := newTestWeb(t, cfg)
		db := be.newDB(t)
		mustCrawl(t, web.crawlArgs(db, "--delay", "0", "--max-depth", "0", clJournal+"/", lab+"/")...)
		d := openDB(t, db)
		// The page only the sitemap lists was fetched, found through it.
		var via string
		var status int
		if err := d.row(`SELECT u.via, p.status FROM urls u JOIN pages p ON p.url_id = u.id WHERE u.url = ?`, clOrphan).Scan(&via, &status); err != nil || status != 200 || via != "sitemap" {
			t.Errorf("%s: via %q, status %d, %v; want fetched (200) through the sitemap", clOrphan, via, status, err)
		}
		// The journal's robots.txt names its sitemap; the lab has no
		// robots.txt, so /sitemap.xml is tried.
		reqs := map[string]bool{}
		for _, u := range pageRequests(web) {
			reqs[u] = true
		}
		for _, u := range []string{clJournal + "/sitemap.xml", lab + "/sitemap.xml"} {
			if !reqs[u] {
				t.Errorf("%s was not requested", u)
			}
		}
		// (A page may link to the journal's sitemap before its robots.txt
		// names it: it is then queued as a page, and read as a sitemap when
		// fetched, which the orphan's check above covers.)
	})

	t.Run("no-sitemaps", func(t *testing.T) {
		web := newTestWeb(t, cfg)
		db := be.newDB(t)
		mustCrawl(t, web.crawlArgs(db, "--delay", "0", "--max-depth", "0", "--no-sitemaps", clJournal+"/", lab+"/")...)
		for _, u := range pageRequests(web) {
			if u == clOrphan || u == lab+"/sitemap.xml" {
				t.Errorf("%s requested with --no-sitemaps", u)
			}
		}
		if n := queryInt(t, openDB(t, db), `SELECT count(*) FROM urls WHERE kind = 1`); n != 0 {
			t.Errorf("%d sitemap URLs queued with --no-sitemaps", n)
		}
	})

	t.Run("seed", func(t *testing.T) {
		// --sitemap alone: Northfield's sitemap index, with a plain and a
		// gzipped child; --max-depth 1 keeps the crawl to its entries.
		const index = "http://www.northfield-university.test/sitemap.xml"
		web := newTestWeb(t, cfg)
		locs, sitemaps := clSitemapLocs(t, web, index)
		if len(sitemaps) != 3 || len(locs) < 20 {
			t.Fatalf("the sitemap index lists %d sitemaps, %d pages", len(sitemaps), len(locs))
		}
		web.ResetRequests()
		db := be.newDB(t)
		mustCrawl(t, web.crawlArgs(db, "--delay", "0", "--max-depth", "1", "--sitemap", index)...)
		d := openDB(t, db)
		want := map[string]bool{}
		for _, u := range append(locs, sitemaps...) {
			want[u] = true
			st := queryInt(t, d, `SELECT coalesce(max(state), -1) FROM urls WHERE url = ?`, u)
			if info, ok := web.Lookup(u); ok && info.Disallowed {
				continue
			}
			if st != 2 {
				t.Errorf("%s, listed in the sitemaps, is in state %d, want fetched", u, st)
			}
		}
		for _, u := range pageRequests(web) {
			if !want[u] {
				t.Errorf("%s fetched, but no sitemap lists it (depth 1 holds only sitemap entries)", u)
			}
		}
	})
}

// clCDX is a CDX server for one domain: two answers joined by a resume key.
type clCDX struct {
	mu   sync.Mutex
	reqs []url.Values
}

func (c *clCDX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.reqs = append(c.reqs, r.URL.Query())
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	head := `[["original","timestamp","statuscode","mimetype"],`
	if r.URL.Query().Get("resumeKey") == "" {
		fmt.Fprint(w, head+`
["`+clOrphan+`","20190301000000","200","text/html"],
["`+clJournal+`/about?utm_source=newsletter","20190302000000","200","text/html"],
["http://www.northfield-university.test/about","20190303000000","200","text/html"],
[],
["journal-of-applied-crawling.test/about 20190302000000"]]`)
		return
	}
	fmt.Fprint(w, head+`
["http://JOURNAL-of-Applied-Crawling.test:80/about","20200101000000","200","text/html"],
["`+clJournal+`/cart","20200102000000","200","text/html"],
["`+clJournal+`/static/img/cover.png","20200103000000","200","image/png"],
["`+clJournal+`/retracted-notice","20200104000000","200","text/html"]]`)
}

func TestCrawlListSeedArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testCrawlListSeedArchive)
}

func testCrawlListSeedArchive(t *testing.T, be backend) {
	cfg := testweb.Config{Seed: 4, PagesPerSite: 10}

	t.Run("seeds", func(t *testing.T) {
		cdx := &clCDX{}
		srv := httptest.NewServer(cdx)
		defer srv.Close()
		web := newTestWeb(t, cfg)
		db := be.newDB(t)
		// No sitemaps, and depth 1 (archive URLs are at depth 1): only what
		// the archive names is fetched.
		mustCrawl(t, web.crawlArgs(db, "--delay", "0", "--max-depth", "1", "--no-sitemaps",
			"--seed-archive", "journal-of-applied-crawling.test", "--cdx-endpoint", srv.URL+"/cdx")...)

		cdx.mu.Lock()
		reqs := cdx.reqs
		cdx.mu.Unlock()
		if len(reqs) != 2 || reqs[0].Get("url") != "journal-of-applied-crawling.test" || reqs[0].Get("matchType") != "domain" ||
			reqs[1].Get("resumeKey") == "" {
			t.Errorf("CDX requests %v: want the domain asked for, then the resume key followed", reqs)
		}
		d := openDB(t, db)
		got := queryStrings(t, d, `SELECT url FROM urls WHERE via = 'archive' ORDER BY url`)
		want := []string{clJournal + "/about", clOrphan, clJournal + "/retracted-notice"}
		if strings.Join(got, " ") != strings.Join(sortedCopy(want), " ") {
			t.Errorf("archive URLs queued %v, want %v (normalized, deduplicated, in scope, not excluded)", got, sortedCopy(want))
		}
		if n := queryInt(t, d, `SELECT count(*) FROM urls WHERE url LIKE '%northfield%' OR url LIKE '%/cart' OR url LIKE '%.png'`); n != 0 {
			t.Errorf("%d out-of-scope or excluded archive URLs queued", n)
		}
		// The orphan page is crawled; a page gone from the web is recorded.
		for u, status := range map[string]int{clOrphan: 200, clJournal + "/about": 200, clJournal + "/retracted-notice": 404} {
			if got := queryInt(t, d, `SELECT p.status FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`, u); got != int64(status) {
				t.Errorf("%s: status %d, want %d", u, got, status)
			}
		}
		if n := len(clHostRequests(web, clJournal)); n != 3 {
			t.Errorf("%d journal pages requested, want the 3 from the archive: %v", n, clHostRequests(web, clJournal))
		}
	})

	// An archive that answers garbage, or is down, is logged and recorded
	// as an error of that source (stats shows it); the crawl goes on.
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>Service temporarily unavailable [[[</body></html>")
	}))
	defer garbage.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // its address now refuses connections
	for name, endpoint := range map[string]string{"garbage": garbage.URL + "/cdx", "down": down.URL + "/cdx"} {
		t.Run(name, func(t *testing.T) {
			web := newTestWeb(t, cfg)
			db := be.newDB(t)
			out, logs, err := runCmd(t, web.crawlArgs(db, "--delay", "0", "--max-pages", "5", "--seed-archive", "journal-of-applied-crawling.test",
				"--cdx-endpoint", endpoint, clJournal+"/")...)
			if err != nil {
				t.Fatalf("crawl with a broken archive: %v\n%s", err, logs)
			}
			if !strings.Contains(logs, "web archive seeding failed") || !strings.Contains(out, "5 pages fetched") {
				t.Errorf("want the archive failure logged and the crawl done:\n%s\n%s", logs, out)
			}
			r := clStatsJSON(t, db)
			if len(r.Sources) != 1 || r.Sources[0].Kind != "archive" || r.Sources[0].Source != "journal-of-applied-crawling.test" ||
				r.Sources[0].URL != endpoint || r.Sources[0].Error == "" || r.Sources[0].URLs != 0 {
				t.Errorf("stats --json source_errors = %+v, want the archive's failure for the domain at %s", r.Sources, endpoint)
			}
			text, errs, err := runCmd(t, "stats", "--db", db)
			if err != nil || !strings.Contains(text, "source errors") || !strings.Contains(text, "archive journal-of-applied-crawling.test") {
				t.Errorf("stats does not show the source error: %v\n%s\n%s", err, text, errs)
			}
		})
	}
}

func TestCrawlListMaxHostShare(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testCrawlListMaxHostShare)
}

// testCrawlListMaxHostShare gives no host more than a fifth of a 1 MB byte
// budget: a host that reaches its share has its queued URLs skipped, while
// the other hosts go on.
func testCrawlListMaxHostShare(t *testing.T, be backend) {
	const maxBytes, share = 1_000_000, 0.2
	web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30, NoFaults: true})
	db := be.newDB(t)
	out := mustCrawl(t, web.crawlArgs(db, "--delay", "50ms", "--max-depth", "0", "--max-bytes", strconv.Itoa(maxBytes),
		"--max-host-share", fmt.Sprint(share), "http://www.northfield-university.test/", clJournal+"/",
		"http://lab.quantum-optics-institute.test/")...)
	d := openDB(t, db)
	const hostShare = int64(share * maxBytes)

	capped := queryStrings(t, d, `SELECT DISTINCT h.key FROM urls u JOIN hosts h ON h.id = u.host_id
		WHERE u.state = 5 AND u.error = 'host byte budget reached' ORDER BY h.key`)
	if len(capped) == 0 {
		t.Fatalf("no host reached its share of %d bytes:\n%s", hostShare, out)
	}
	// A budget is never reached silently. (Hosts that spent their share
	// with nothing left queued count too, so the summary may name more.)
	var spent int
	if i := strings.Index(out, "budget:"); i < 0 {
		t.Errorf("the run summary names no budget:\n%s", out)
	} else if _, err := fmt.Sscanf(strings.TrimSpace(out[i+len("budget:"):]), "%d host(s) spent their byte share", &spent); err != nil || spent < len(capped) {
		t.Errorf("the run summary says %d host(s) spent their byte share (%v), want at least %d:\n%s", spent, err, len(capped), out)
	}
	hosts := queryStrings(t, d, `SELECT key FROM hosts WHERE fetched > 0 ORDER BY key`)
	if len(hosts) <= len(capped) {
		t.Errorf("hosts fetched %v, capped %v: want the others to go on", hosts, capped)
	}
	for _, h := range hosts {
		// Pages fetched after the host's bytes reached its share: at most
		// those claimed or in flight when it did.
		rows, err := d.Query(d.rebind(`SELECT CASE WHEN p.wire_bytes > 0 THEN p.wire_bytes ELSE p.bytes END
			FROM pages p JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id WHERE h.key = ? ORDER BY p.fetched_at`), h)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		over := 0
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			if sum >= hostShare {
				over++
			}
			sum += n
		}
		rows.Close()
		t.Logf("%s: %d bytes, %d pages after its share was spent", h, sum, over)
		if over > 3 {
			t.Errorf("%s fetched %d pages after spending its share of %d bytes (%d bytes in all)", h, over, hostShare, sum)
		}
	}
}
