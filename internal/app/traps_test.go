package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
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
func clHostRequests(w *apptest.Web, origin string) []string {
	var out []string
	for _, u := range apptest.PageRequests(w) {
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

func clHostRow(t *testing.T, d *apptest.DB, origin string) clHost {
	t.Helper()
	var h clHost
	if err := d.Row(`SELECT fetched, admitted, blocked, backoff, bytes, trap FROM hosts WHERE key = ?`, origin).
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
	Value      int    `json:"value"`
	Reason     string `json:"value_reason"`
	MirrorOf   string `json:"mirror_of"`
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
func clUseful(t *testing.T, d *apptest.DB) int64 {
	t.Helper()
	return apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE status BETWEEN 200 AND 299 AND duplicate_of = 0 AND NOT blocked
		AND (content_type IN ('text/html', 'application/xhtml+xml', 'application/pdf'))`)
}

// clTrapCrawl crawls the archive blog with its /a/b/a/b/ path trap let
// loose (no repeated-segment limit, no depth limit), so only the
// discovery-rate watch can catch it.
func clTrapCrawl(t *testing.T, be apptest.Backend, extra ...string) (*apptest.Web, string, string) {
	t.Helper()
	web := apptest.NewWeb(t, testweb.Config{Seed: 4, PagesPerSite: 20})
	db := be.NewDB(t)
	args := web.CrawlArgs(db, append([]string{"--delay", "0", "--scope", "host", "--max-depth", "0", "--max-path-repeats", "0"}, extra...)...)
	out := mustCrawl(t, append(args, clBlog+"/")...)
	return web, db, out
}

func TestTrapPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testTrapPolicies)
}

func testTrapPolicies(t *testing.T, be apptest.Backend) {
	const budget = 300
	type outcome struct {
		fetched, trapFetched, skipped int64
		host                          clHost
		out                           string
	}
	run := func(policy string) outcome {
		web, db, out := clTrapCrawl(t, be, "--max-pages", strconv.Itoa(budget), "--trap-policy", policy)
		d := apptest.OpenDB(t, db)
		var o outcome
		o.out = out
		for _, u := range clHostRequests(web, clBlog) {
			o.fetched++
			if strings.HasPrefix(u, clBlog+"/a/") {
				o.trapFetched++
			}
		}
		o.host = clHostRow(t, d, clBlog)
		o.skipped = apptest.QueryInt(t, d, `SELECT count(*) FROM urls WHERE state = 5 AND error LIKE 'suspected trap%'`)
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

func TestDuplicateSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testDuplicateSpace)
}

// testDuplicateSpace crawls faults.test/headlines, where every
// ?refresh=N serves the same text and links to new N: an auto-generated
// space that the duplicate-content rate flags.
func testDuplicateSpace(t *testing.T, be apptest.Backend) {
	const budget = 60
	run := func(policy string) (int, clHost, string) {
		web := apptest.NewWeb(t, testweb.Config{Seed: 4, PagesPerSite: 10})
		db := be.NewDB(t)
		out := mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--scope", "host", "--max-depth", "0", "--no-sitemaps",
			"--max-pages", strconv.Itoa(budget), "--trap-policy", policy, "http://faults.test/headlines")...)
		n := len(clHostRequests(web, "http://faults.test"))
		h := clHostRow(t, apptest.OpenDB(t, db), "http://faults.test")
		t.Logf("--trap-policy %s: %d pages fetched, %d duplicates recorded, trap %q", policy, n, apptest.QueryInt(t, apptest.OpenDB(t, db),
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

// TestTrapFlagOnTheLastPage: a host of 30 pages, 29 of them the same page
// under different URLs, is flagged as an auto-generated space by the
// commit of its 30th page, its last: the flag is recorded all the same
// (it used to wait for a later result of the host, which never came).
func TestTrapFlagOnTheLastPage(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls")
	}
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			var b strings.Builder
			b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Calendar Lab</title></head><body><p>The lab's calendar of seminars.</p>`)
			for i := range 29 {
				fmt.Fprintf(&b, `<a href="/day/%d">Day %d</a> `, i, i)
			}
			fmt.Fprint(w, b.String()+"</body></html>")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Seminars</title></head><body>
<p>No seminar is planned on this day. The lab's seminars resume next term with talks on research methods.</p></body></html>`)
		}
	}))
	defer srv.Close()
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		db := be.NewDB(t)
		mustCrawl(t, "crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off", "--log-level", "warn",
			"--no-pdf", "--no-sitemaps", "--max-depth", "1", "--warc", filepath.Join(t.TempDir(), "warc"), "http://calendar-lab.test/")
		d := apptest.OpenDB(t, db)
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages`); n != 30 {
			t.Fatalf("%d pages fetched, want 30", n)
		}
		if h := clHostRow(t, d, "http://calendar-lab.test"); !strings.HasPrefix(h.trap, "duplicate content:") {
			t.Errorf("host flag %q, want the duplicate-content flag its last page raised", h.trap)
		}
	})
}

func TestTrapFlagSurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testTrapFlagSurvivesRestart)
}

func testTrapFlagSurvivesRestart(t *testing.T, be apptest.Backend) {
	// The first crawl's budget runs out shortly after the blog is flagged
	// (about 100 pages). Its policy only reports the flag, so URLs of the
	// blog are still queued whatever the timing: under stop, the queue
	// could empty itself between the flag and the budget.
	const firstBudget, secondBudget = 120, 1000
	for _, policy := range []string{"stop", "throttle"} {
		t.Run(policy, func(t *testing.T) {
			web, db, _ := clTrapCrawl(t, be, "--max-pages", strconv.Itoa(firstBudget), "--trap-policy", "warn")
			d := apptest.OpenDB(t, db)
			before := clHostRow(t, d, clBlog)
			if !strings.HasPrefix(before.trap, "discovery rate not falling") {
				t.Fatalf("first crawl: blog host trap = %q, want it flagged for its discovery rate", before.trap)
			}
			queued := apptest.QueryInt(t, d, `SELECT count(*) FROM urls u JOIN hosts h ON h.id = u.host_id WHERE h.key = ? AND u.state = 0`, clBlog)
			if queued == 0 {
				t.Fatal("first crawl left no URL of the blog queued: the restart has nothing to show")
			}
			requests := len(clHostRequests(web, clBlog))

			// Restart on the same database with room to spare.
			args := web.CrawlArgs(db, "--delay", "0", "--scope", "host", "--max-depth", "0", "--max-path-repeats", "0",
				"--max-pages", strconv.Itoa(secondBudget), "--trap-policy", policy)
			out := mustCrawl(t, append(args, clBlog+"/")...)
			after := clHostRow(t, d, clBlog)
			again := len(clHostRequests(web, clBlog)) - requests
			left := apptest.QueryInt(t, d, `SELECT count(*) FROM urls u JOIN hosts h ON h.id = u.host_id WHERE h.key = ? AND u.state = 0`, clBlog)
			skipped := apptest.QueryInt(t, d, `SELECT count(*) FROM urls u JOIN hosts h ON h.id = u.host_id
				WHERE h.key = ? AND u.state = 5 AND u.error LIKE 'suspected trap%'`, clBlog)
			t.Logf("first crawl: %d pages of the blog fetched, %d queued; second (%s): %d fetched, %d admitted (was %d), %d skipped as a trap, %d left",
				requests, queued, policy, again, after.admitted, before.admitted, skipped, left)
			if after.trap != before.trap {
				t.Errorf("trap after the restart = %q, want %q kept", after.trap, before.trap)
			}
			if left != 0 || !strings.Contains(out, "frontier exhausted") {
				t.Errorf("%d URLs of the blog still queued, want the frontier exhausted:\n%s", left, out)
			}
			switch policy {
			case "stop":
				// Nothing more is fetched from the flagged host: its queued
				// URLs are skipped from the start.
				if again != 0 {
					t.Errorf("stop: %d pages of the flagged blog fetched after the restart, want none", again)
				}
				if skipped < queued {
					t.Errorf("stop: %d URLs of the blog skipped as a trap, want its %d queued ones", skipped, queued)
				}
			case "throttle":
				// What was known is fetched, nothing new is admitted.
				if after.admitted != before.admitted {
					t.Errorf("throttle: %d URLs of the flagged blog admitted after the restart, want none", after.admitted-before.admitted)
				}
				if int64(again) > queued {
					t.Errorf("throttle: %d pages of the blog fetched after the restart, want at most the %d queued", again, queued)
				}
			}
		})
	}
}
