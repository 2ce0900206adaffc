package app

import (
	"database/sql"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

func TestCrawlIsPolite(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web with real delays")
	}
	t.Parallel() // its crawls wait on delays and timeouts more than they compute
	apptest.ForEachBackend(t, testCrawlIsPolite)
}

func testCrawlIsPolite(t *testing.T, be apptest.Backend) {
	// The delays are real: testing/synctest's clock moves only when every
	// goroutine of its bubble is durably blocked, which one waiting on a
	// socket never is, and the test web answers on a real loopback port
	// (recording when each request arrived, by the real clock). So the
	// delays are short instead: --delay 50ms, and robots.txt's Crawl-delay
	// (1s on one host, 0.5s on another) capped by --max-crawl-delay at
	// 300ms, which is the gap those hosts must then keep.
	web := apptest.NewWeb(t, testweb.Config{Seed: 3, PagesPerSite: 8, Slow: 300 * time.Millisecond})
	db := be.NewDB(t)
	const delay, maxCrawlDelay = 50 * time.Millisecond, 300 * time.Millisecond
	args := web.CrawlArgs(db, "--delay", delay.String(), "--max-crawl-delay", maxCrawlDelay.String(), "--scope", "any",
		"--max-depth", "3", "--workers", "8", "--max-pages-per-host", "12", "--no-pdf") // the Crawl-delay hosts are the long pole
	mustCrawl(t, append(args, allSeeds(web)...)...)

	reqs := web.Requests()
	if len(reqs) < 100 {
		t.Fatalf("only %d requests reached the web", len(reqs))
	}
	byHost := map[string][]testweb.Request{}
	for _, r := range reqs {
		if r.Method == "CONNECT" {
			continue // https to hosts off the test web: refused by the proxy
		}
		byHost[r.Host] = append(byHost[r.Host], r)
	}
	crawlDelay := map[string]time.Duration{}
	for _, s := range web.Sites() {
		switch s.Host {
		case "www.karadeniz-universitesi.test":
			crawlDelay[s.Host] = min(time.Second, maxCrawlDelay)
		case "news.city-daily.test":
			crawlDelay[s.Host] = min(500*time.Millisecond, maxCrawlDelay)
		}
	}
	checked := 0
	for host, rs := range byHost {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Time.Before(rs[j].Time) })
		// No page before robots.txt.
		if !strings.HasPrefix(rs[0].Path, "/robots") {
			t.Errorf("%s: first request %s, want robots.txt", host, rs[0].Path)
		}
		want := delay
		if d, ok := crawlDelay[host]; ok {
			want = d
		}
		for i := 1; i < len(rs); i++ {
			// robots.txt redirects are followed within one fetch.
			if strings.HasPrefix(rs[i-1].Path, "/robots") && strings.HasPrefix(rs[i].Path, "/robots") {
				continue
			}
			if gap := rs[i].Time.Sub(rs[i-1].Time); gap < want {
				t.Errorf("%s: %s then %s only %v apart, want ≥ %v", host, rs[i-1].Path, rs[i].Path, gap, want)
			}
			checked++
		}
		// No disallowed URL fetched.
		for _, r := range rs {
			if info, ok := web.Lookup("http://" + host + r.Path); ok && info.Disallowed {
				t.Errorf("%s%s was fetched but robots.txt disallows it", host, r.Path)
			}
		}
	}
	if checked < 60 {
		t.Errorf("only %d request gaps checked", checked)
	}
	// The shop's robots.txt answers 500: nothing else of it may be fetched.
	for _, r := range byHost["shop.campus-store.test"] {
		if !strings.HasPrefix(r.Path, "/robots") {
			t.Errorf("shop.campus-store.test%s fetched although its robots.txt is unavailable", r.Path)
		}
	}
	// The acrawler group of northfield applies, not the * group.
	d := apptest.OpenDB(t, db)
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM urls WHERE state = 4`); n == 0 {
		t.Error("no URL recorded as disallowed by robots.txt")
	}
}

func TestBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel() // its crawls wait on delays and timeouts more than they compute
	apptest.ForEachBackend(t, testBudgets)
}

func testBudgets(t *testing.T, be apptest.Backend) {
	cfg := testweb.Config{Seed: 5, PagesPerSite: 30, Slow: 200 * time.Millisecond}
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/",
		"http://lab.quantum-optics-institute.test/", "http://blog.deep-archive.test/"}
	crawlWith := func(t *testing.T, extra ...string) (*apptest.Web, *apptest.DB, string, string) {
		web := apptest.NewWeb(t, cfg)
		db := be.NewDB(t)
		// What is counted against a budget is the same without PDFs read
		// (the costliest pages to parse) and robots.txt Crawl-delays.
		args := append(web.CrawlArgs(db, append([]string{"--delay", "0", "--no-pdf", "--max-crawl-delay", "1ms"}, extra...)...), seeds...)
		out := mustCrawl(t, args...)
		return web, apptest.OpenDB(t, db), out, db
	}
	t.Run("max-pages", func(t *testing.T) {
		t.Parallel() // each its own web and database
		web, db, out, _ := crawlWith(t, "--max-pages", "40")
		if n := len(apptest.PageRequests(web)); n > 40 || n < 35 {
			t.Errorf("%d pages requested under --max-pages 40", n)
		}
		if n := apptest.QueryInt(t, db, `SELECT count(*) FROM pages`); n > 40 {
			t.Errorf("%d pages recorded under --max-pages 40", n)
		}
		if !strings.Contains(out, "page budget reached") {
			t.Errorf("summary does not report the page budget:\n%s", out)
		}
		if n := apptest.QueryInt(t, db, `SELECT count(*) FROM urls WHERE state = 0`); n == 0 {
			t.Error("nothing left queued: the budget stopped nothing")
		}
	})
	t.Run("max-pages-per-host", func(t *testing.T) {
		t.Parallel() // each its own web and database
		_, db, out, _ := crawlWith(t, "--max-pages-per-host", "15")
		if n := apptest.QueryInt(t, db, `SELECT max(admitted) FROM hosts`); n != 15 {
			t.Errorf("most URLs admitted on a host = %d, want 15", n)
		}
		if n := apptest.QueryInt(t, db, `SELECT count(*) FROM (SELECT host_id FROM urls GROUP BY host_id HAVING count(*) > 15) AS t`); n != 0 {
			t.Errorf("%d hosts hold more than 15 URLs", n)
		}
		if !strings.Contains(out, "reached --max-pages-per-host 15") {
			t.Errorf("summary does not report the per-host budget:\n%s", out)
		}
	})
	t.Run("max-depth", func(t *testing.T) {
		t.Parallel() // each its own web and database
		_, db, out, _ := crawlWith(t, "--max-depth", "2")
		if n := apptest.QueryInt(t, db, `SELECT max(depth) FROM urls`); n != 2 {
			t.Errorf("deepest URL at depth %d, want 2", n)
		}
		if !regexpMatch(`[1-9]\d* over depth 2`, out) {
			t.Errorf("summary does not report URLs refused over depth:\n%s", out)
		}
	})
	t.Run("max-bytes", func(t *testing.T) {
		t.Parallel() // each its own web and database
		web, _, out, db := crawlWith(t, "--max-bytes", "150KB")
		if !strings.Contains(out, "byte budget reached") {
			t.Errorf("summary does not report the byte budget:\n%s", out)
		}
		var sent int64
		for _, r := range web.Requests() {
			sent += r.Bytes
		}
		// In-flight fetches may finish past the budget: one page per host.
		if n := counters(t, db).Bytes; n < 150e3 || n > 150e3+200e3 {
			t.Errorf("%d bytes counted under a 150KB budget (%d bytes served)", n, sent)
		}
	})
	t.Run("max-duration", func(t *testing.T) {
		t.Parallel() // each its own web and database
		start := time.Now()
		_, db, out, _ := crawlWith(t, "--max-duration", "700ms", "--delay", "100ms")
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("a 700ms crawl ran %v", el)
		}
		if !strings.Contains(out, "duration budget reached") {
			t.Errorf("summary does not report the duration budget:\n%s", out)
		}
		if n := apptest.QueryInt(t, db, `SELECT count(*) FROM urls WHERE state = 1`); n != 0 {
			t.Errorf("%d URLs left in flight after a clean stop", n)
		}
	})
}

func TestTrapsAndFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel() // its crawls wait on delays and timeouts more than they compute
	apptest.ForEachBackend(t, testTrapsAndFaults)
}

func testTrapsAndFaults(t *testing.T, be apptest.Backend) {
	web := apptest.NewWeb(t, testweb.Config{Seed: 9, PagesPerSite: 20, Slow: 300 * time.Millisecond})
	db := be.NewDB(t)
	seeds := []string{"http://www.northfield-university.test/", "http://news.city-daily.test/",
		"http://blog.deep-archive.test/", "http://faults.test/"}
	// A 429 or 503 backs its host off (from 1s, doubling) and Retry-After
	// asks 1s: --max-backoff caps both at 250ms, so that the faults host
	// is not the test's long pole. What each fault ends in is the same.
	// The news site's Crawl-delay (0.5s) is capped too, and no PDF read:
	// neither is what this checks.
	args := append(web.CrawlArgs(db, "--delay", "0", "--max-depth", "6", "--max-url-length", "1024", "--scope", "domain",
		"--max-backoff", "250ms", "--max-crawl-delay", "1ms", "--no-pdf"), seeds...)
	mustCrawl(t, args...)
	d := apptest.OpenDB(t, db)
	reqs := apptest.PageRequests(web)

	// Calendar: excluded by the default patterns, never fetched.
	for _, u := range reqs {
		if strings.Contains(u, "/events/calendar") {
			t.Errorf("calendar trap fetched: %s", u)
		}
	}
	// Repeated path segments: the trap grows without end; the repeated
	// segment limit (3) stops it, within the depth budget.
	trapURLs := apptest.QueryStrings(t, d, `SELECT url FROM `+d.URLs()+` AS urls WHERE url LIKE 'http://blog.deep-archive.test/a/%'`)
	if len(trapURLs) == 0 {
		t.Error("the /a/b/a/b/ trap was not entered at all")
	}
	for _, u := range trapURLs {
		for _, seg := range []string{"/a/", "/b/"} {
			if n := strings.Count(u+"/", seg); n > 3 {
				t.Errorf("%s admitted with %q %d times, over --max-path-repeats 3", u, seg, n)
			}
		}
	}
	if n := apptest.QueryInt(t, d, `SELECT max(depth) FROM urls`); n > 6 {
		t.Errorf("URL admitted at depth %d, beyond --max-depth 6", n)
	}
	// Long URLs: refused by --max-url-length.
	for _, u := range reqs {
		if len(u) > 1024 {
			t.Errorf("URL of %d bytes fetched", len(u))
		}
	}
	// Tracking parameters, session ids, messy spellings: one page, one URL;
	// and no URL fetched more often than it was attempted (retries).
	byPage := map[string]map[string]int{}
	for _, u := range reqs {
		if info, ok := web.Lookup(u); ok {
			if byPage[info.URL] == nil {
				byPage[info.URL] = map[string]int{}
			}
			byPage[info.URL][u]++
		}
	}
	for page, us := range byPage {
		if len(us) > 1 {
			t.Errorf("%s fetched under %d URLs: %v", page, len(us), us)
		}
		for u, n := range us {
			var attempts int
			d.Row(`SELECT attempts FROM `+d.URLs()+` AS urls WHERE url = ?`, u).Scan(&attempts)
			if n > max(attempts, 1) {
				t.Errorf("%s fetched %d times in %d attempts", u, n, attempts)
			}
		}
	}
	// Faults end in the right state.
	state := func(u string) (int, int, string) {
		var st, status int
		var errText sql.NullString
		err := d.Row(`SELECT u.state, coalesce(p.status, 0), u.error FROM `+d.URLs()+` u LEFT JOIN pages p ON p.url_id = u.id WHERE u.url = ?`, u).Scan(&st, &status, &errText)
		if err != nil {
			t.Errorf("%s: %v", u, err)
		}
		return st, status, errText.String
	}
	for _, tc := range []struct {
		url    string
		state  int
		status int
		err    string
	}{
		{"http://faults.test/missing", 2, 404, ""},
		{"http://faults.test/gone", 2, 410, ""},
		{"http://faults.test/error", 2, 500, ""}, // after the retries
		{"http://faults.test/flaky", 2, 200, ""}, // 503, 503, then 200
		{"http://faults.test/busy", 2, 200, ""},  // 429 with Retry-After, then 200
		{"http://faults.test/slow", 2, 200, ""},  // slower than nothing, faster than --timeout
		{"http://faults.test/drip", 3, 0, "timeout"},
		{"http://faults.test/huge", 3, 0, "too large"},
		{"http://faults.test/bomb", 3, 0, "too large"},
		{"http://faults.test/malformed", 2, 200, ""},
		{"http://faults.test/landing", 2, 200, ""}, // end of the redirect chain
	} {
		st, status, errText := state(tc.url)
		if st != tc.state || status != tc.status || !strings.Contains(errText, tc.err) {
			t.Errorf("%s: state %d status %d error %q; want state %d status %d error containing %q",
				tc.url, st, status, errText, tc.state, tc.status, tc.err)
		}
	}
	// The redirect loop ends: each hop fetched once, and recorded.
	loops := apptest.QueryStrings(t, d, `SELECT redirect_to FROM pages WHERE url LIKE 'http://faults.test/loop/%'`)
	if len(loops) != 2 {
		t.Errorf("redirect loop recorded %d hops, want 2", len(loops))
	}
	// /error is retried up to --max-attempts (3) times, no more.
	n := 0
	for _, u := range reqs {
		if u == "http://faults.test/error" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("/error requested %d times, want 3 attempts", n)
	}
	// The huge robots.txt: its rule beyond 500 KiB is ignored, the early one kept.
	var before, after bool
	for _, u := range reqs {
		before = before || strings.Contains(u, "/before-cap/")
		after = after || strings.Contains(u, "/after-cap/")
	}
	if before {
		t.Error("a URL under /before-cap/ was fetched although robots.txt disallows it")
	}
	if !after {
		t.Error("no URL under /after-cap/ was fetched: the rule past 500 KiB was applied")
	}
}
