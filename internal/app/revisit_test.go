package app

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
)

// These tests move time through the schedule's configuration instead of a
// clock: the [recrawl] intervals of a config file make some pages due at
// once (1ms) and others due in years, so what a run revisits depends only
// on the schedule, never on how long a test takes.

// writeRecrawlConfig writes a config file with the given [recrawl] lines
// and returns its name.
func writeRecrawlConfig(t *testing.T, lines ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "recrawl.toml")
	if err := os.WriteFile(file, []byte("[recrawl]\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// Home pages (and sitemaps, which are depth-0 URLs) and listings are due
// 1ms after a fetch; articles and other pages in about six years. Sitemap
// <changefreq> values (a day to a year) fall in between: not due either.
var shortHomesLongRest = []string{
	`min_interval = "1ms"`, `max_interval = "100000h"`,
	`home = "1ms"`, `listing = "1ms"`, `article = "50000h"`, `other = "50000h"`,
}

// dueSplit sorts the active pages of db into those due at now and those
// not due for at least an hour (the schedule above leaves nothing between).
func dueSplit(t *testing.T, db string, now time.Time) (due, notDue map[string]bool) {
	t.Helper()
	due, notDue = map[string]bool{}, map[string]bool{}
	st, err := openStoreReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var between []string
	for p, err := range st.Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case p.Gone != crawl.Active || p.NextCheckAt.IsZero():
		case !p.NextCheckAt.After(now):
			due[p.URL] = true
		case p.NextCheckAt.After(now.Add(time.Hour)):
			notDue[p.URL] = true
		default:
			between = append(between, p.URL)
		}
	}
	if len(between) > 0 {
		t.Fatalf("%d pages due within the hour, which the test's schedule should not allow: %s", len(between), apptest.Short(between))
	}
	return due, notDue
}

// requestedPages are the URLs the test web was asked for with GET since
// its log was last reset, robots.txt files aside.
func requestedPages(w *apptest.Web) map[string]bool {
	out := map[string]bool{}
	for _, r := range w.Requests() {
		if r.Method == http.MethodGet && r.Path != "/robots.txt" {
			out["http://"+r.Host+r.Path] = true
		}
	}
	return out
}

// TestRecrawlVisitsOnlyDuePages: `recrawl` without --all revisits the
// pages whose time has come and no other known page.
func TestRecrawlVisitsOnlyDuePages(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web twice")
	}
	t.Parallel()
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) { testOnlyDuePages(t, be, "recrawl") })
}

// TestCrawlQueuesDuePages: `crawl` on an existing database queues the due
// pages (and only those) along with its seeds.
func TestCrawlQueuesDuePages(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web twice")
	}
	t.Parallel()
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) { testOnlyDuePages(t, be, "crawl") })
}

func testOnlyDuePages(t *testing.T, be apptest.Backend, cmd string) {
	web := apptest.NewWeb(t, testweb.Config{Seed: 21, PagesPerSite: 20, NoFaults: true})
	db := be.NewDB(t)
	conf := writeRecrawlConfig(t, shortHomesLongRest...)
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/"}
	flags := []string{"--config", conf, "--delay", "0", "--max-depth", "0", "--no-pdf", "--lease", "2s", "--max-crawl-delay", "1ms"}
	mustCrawl(t, append(web.CrawlArgs(db, flags...), seeds...)...)

	web.Advance()
	due, notDue := dueSplit(t, db, time.Now())
	var dueInner int // due pages that are not seeds: listings, sitemaps
	for u := range due {
		if !strings.HasSuffix(u, ".test/") {
			dueInner++
		}
	}
	// The schedule must leave something on each side, or the test proves
	// nothing.
	if dueInner == 0 || len(notDue) < 5*len(due) {
		t.Fatalf("after the first crawl %d pages due (%d besides the seeds), %d not due: want some of both, most not due",
			len(due), dueInner, len(notDue))
	}
	web.ResetRequests()
	args := append([]string{cmd}, web.CrawlArgs(db, flags...)[1:]...)
	if cmd == "crawl" {
		args = append(args, seeds...) // the same command again
	}
	out := mustCrawl(t, args...)
	got := requestedPages(web)

	var early []string
	for u := range notDue {
		if got[u] {
			early = append(early, u)
		}
	}
	sort.Strings(early)
	if len(early) > 0 {
		t.Errorf("%s revisited %d of %d pages that were not due: %s", cmd, len(early), len(notDue), apptest.Short(early))
	}
	var missed []string
	for u := range due {
		if !got[u] {
			missed = append(missed, u)
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		t.Errorf("%s left %d of %d due pages unvisited: %s", cmd, len(missed), len(due), apptest.Short(missed))
	}
	if cmd == "recrawl" && !strings.Contains(out, fmt.Sprintf("recrawl run 1: %d pages revisited", len(due))) {
		t.Errorf("want a run summary with %d pages revisited, got:\n%s", len(due), out)
	}
	t.Logf("%s: %d pages due and %d not due; %d URLs requested", cmd, len(due), len(notDue), len(got))
}

// miniWeb is a one-host web whose pages, links and sitemap a test edits
// between crawls, served as an HTTP proxy (every request is for
// http://mini.test, whatever the test asks).
type miniWeb struct {
	mu      sync.Mutex
	pages   map[string]miniPage  // by path
	sitemap map[string]time.Time // path → <lastmod>; nil: no sitemap
	log     []string             // paths requested, in order
	proxy   string
	dir     string
}

type miniPage struct {
	title, text string
	links       []string // paths
}

const miniOrigin = "http://mini.test"

func newMiniWeb(t *testing.T, pages map[string]miniPage) *miniWeb {
	m := &miniWeb{pages: pages, dir: t.TempDir()}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	m.proxy = srv.URL
	return m
}

func (m *miniWeb) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, r.URL.Path)
	switch p, ok := m.pages[r.URL.Path]; {
	case r.URL.Path == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		if m.sitemap != nil {
			fmt.Fprintf(w, "Sitemap: %s/sitemap.xml\n", miniOrigin)
		}
	case r.URL.Path == "/sitemap.xml" && m.sitemap != nil:
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n")
		paths := make([]string, 0, len(m.sitemap))
		for p := range m.sitemap {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			fmt.Fprintf(w, "<url><loc>%s%s</loc><lastmod>%s</lastmod></url>\n", miniOrigin, p, m.sitemap[p].UTC().Format(time.RFC3339Nano))
		}
		fmt.Fprint(w, "</urlset>\n")
	case ok:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><title>%s</title></head><body>\n<h1>%s</h1>\n<p>%s</p>\n<ul>\n",
			html.EscapeString(p.title), html.EscapeString(p.title), html.EscapeString(p.text))
		for _, l := range p.links {
			fmt.Fprintf(w, "<li><a href=\"%s\">%s</a></li>\n", l, html.EscapeString(m.pages[l].title))
		}
		fmt.Fprint(w, "</ul>\n</body></html>\n")
	default:
		http.NotFound(w, r)
	}
}

// edit changes the web under its lock.
func (m *miniWeb) edit(f func(m *miniWeb)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f(m)
}

// requested reports the paths asked for since the last call, and empties
// the log.
func (m *miniWeb) requested() map[string]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]bool{}
	for _, p := range m.log {
		out[p] = true
	}
	m.log = nil
	return out
}

func (m *miniWeb) args(cmd, db, conf string, extra ...string) []string {
	return append([]string{cmd, "--db", db, "--proxy", m.proxy, "--config", conf, "--progress", "off",
		"--warc", filepath.Join(m.dir, "warc"), "--log-level", "warn", "--timeout", "2s", "--robots-retry", "50ms",
		"--retry-base", "50ms", "--delay", "0", "--no-pdf"}, extra...)
}

// miniPages is a home page linking to three pages about different things
// (distinct enough not to be near-duplicates of each other).
func miniPages() map[string]miniPage {
	return map[string]miniPage{
		"/": {title: "Mini Test Institute", links: []string{"/a", "/b", "/c"},
			text: "The Mini Test Institute studies small systems. Our departments cover physics, chemistry and the history of science; visitors are welcome on weekdays and the library opens early on Saturdays."},
		"/a": {title: "Marine sediment transport",
			text: "Sediment moves along continental shelves in storms and tides. We measure grain size, current speed and turbidity with moored instruments, and model how sand waves migrate over decades. Keyword oldwordalpha marks this revision."},
		"/b": {title: "Medieval manuscript bindings",
			text: "Bookbinders of the twelfth century sewed quires onto leather thongs laced into wooden boards. Our survey records the bindings of four hundred manuscripts in monastic libraries, including the rare quokkaorrery clasp."},
		"/c": {title: "Alpine glacier retreat",
			text: "Glaciers in the Alps lost a third of their volume since 1980. Repeat photography, lidar and stake readings show the tongues thinning fastest below two thousand metres, where summers now melt the winter snow entirely."},
	}
}

// pageOf reads one recorded page.
func pageOf(t *testing.T, db, u string) *crawl.Page {
	t.Helper()
	st, err := openStoreReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.Page(context.Background(), crawl.URLID(u))
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	return p
}

// searchFinds reports whether a search for q returns u.
func searchFinds(t *testing.T, db, q, u string) bool {
	t.Helper()
	st, err := openStoreReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := st.Search(context.Background(), crawl.SearchRequest{Query: q, Limit: 100})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	for _, h := range res.Hits {
		if h.URL == u {
			return true
		}
	}
	return false
}

// TestSitemapLastmodMakesPageDue: a sitemap <lastmod> newer than a page's
// last fetch makes the page due now, though its interval has years to run;
// a page whose <lastmod> did not move stays as it was.
func TestSitemapLastmodMakesPageDue(t *testing.T) {
	t.Parallel()
	apptest.ForEachBackend(t, testSitemapLastmod)
}

func testSitemapLastmod(t *testing.T, be apptest.Backend) {
	m := newMiniWeb(t, miniPages())
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	m.sitemap = map[string]time.Time{"/": old, "/a": old, "/b": old}
	db := be.NewDB(t)
	conf := writeRecrawlConfig(t, shortHomesLongRest...)
	mustCrawl(t, m.args("crawl", db, conf, miniOrigin+"/")...)
	if got := m.requested(); !got["/sitemap.xml"] || !got["/a"] || !got["/b"] {
		t.Fatalf("first crawl requested %v", got)
	}
	a, b := pageOf(t, db, miniOrigin+"/a"), pageOf(t, db, miniOrigin+"/b")
	for _, p := range []*crawl.Page{a, b} {
		if !p.NextCheckAt.After(time.Now().Add(1000 * time.Hour)) {
			t.Fatalf("%s due at %v: the test wants it due in years", p.URL, p.NextCheckAt)
		}
	}

	// The sitemap now says /a changed just after it was fetched.
	m.edit(func(m *miniWeb) { m.sitemap["/a"] = a.FetchedAt.Add(time.Millisecond) })
	out := mustCrawl(t, m.args("recrawl", db, conf)...)
	got := m.requested()
	if !got["/sitemap.xml"] {
		t.Fatalf("the recrawl did not read the sitemap (it is due at once); requested %v\n%s", got, out)
	}
	if got["/b"] {
		t.Errorf("the recrawl fetched /b, whose lastmod did not move and which is not due")
	}
	if nb := pageOf(t, db, miniOrigin+"/b"); !nb.NextCheckAt.Equal(b.NextCheckAt) {
		t.Errorf("/b's next check moved from %v to %v", b.NextCheckAt, nb.NextCheckAt)
	}
	if !got["/a"] {
		// The run chose its due pages before it read the sitemap; the
		// page the sitemap made due is still visited in the same run.
		t.Fatalf("the recrawl did not visit /a, which the sitemap it read made due; requested %v\n%s", got, out)
	}
	// ... once, as one of the run's revisits.
	d := apptest.OpenDB(t, db)
	var run, checks int64
	if err := d.Row(`SELECT max(id) FROM runs`).Scan(&run); err != nil {
		t.Fatal(err)
	}
	if err := d.Row(`SELECT count(*) FROM page_history WHERE url_id = ? AND run = ?`,
		int64(crawl.URLID(miniOrigin+"/a")), run).Scan(&checks); err != nil {
		t.Fatal(err)
	}
	if run == 0 || checks != 1 {
		t.Errorf("/a checked %d times in the recrawl's run %d, want once", checks, run)
	}
	if na := pageOf(t, db, miniOrigin+"/a"); !na.FetchedAt.After(a.FetchedAt) || na.NextCheckAt.Before(time.Now().Add(1000*time.Hour)) {
		t.Errorf("/a after its revisit: fetched %v (before %v), next check %v: want fetched again and due in years",
			na.FetchedAt, a.FetchedAt, na.NextCheckAt)
	}
}

// TestUnlinkedPageBecomesInactive: a page that no crawled page links to
// any more and no sitemap lists becomes inactive after unseen_to_inactive
// recrawls (2 here, not the default 3) and leaves the search index, but
// keeps its record; the pages still linked stay.
func TestUnlinkedPageBecomesInactive(t *testing.T) {
	t.Parallel()
	apptest.ForEachBackend(t, testUnlinkedInactive)
}

func testUnlinkedInactive(t *testing.T, be apptest.Backend) {
	m := newMiniWeb(t, miniPages()) // no sitemap
	db := be.NewDB(t)
	conf := writeRecrawlConfig(t, append(shortHomesLongRest, `unseen_to_inactive = 2`)...)
	mustCrawl(t, m.args("crawl", db, conf, miniOrigin+"/")...)
	b := miniOrigin + "/b"
	if !searchFinds(t, db, "quokkaorrery", b) {
		t.Fatal("after the first crawl a search for quokkaorrery does not find /b")
	}

	// The home page stops linking to /b; /b itself still answers.
	m.edit(func(m *miniWeb) {
		home := m.pages["/"]
		home.links = []string{"/a", "/c"}
		m.pages["/"] = home
	})
	for run := 1; run <= 3; run++ {
		out := mustCrawl(t, m.args("recrawl", db, conf)...)
		p := pageOf(t, db, b)
		found := searchFinds(t, db, "quokkaorrery", b)
		switch run {
		case 1:
			if p.Gone != crawl.Active || !found {
				t.Errorf("after 1 recrawl unlinked: /b gone=%d, found by search %v; want still active and found", p.Gone, found)
			}
		default:
			if p.Gone != crawl.Inactive || found {
				t.Errorf("after %d recrawls unlinked (unseen_to_inactive = 2): /b gone=%d, found by search %v; want inactive and not found",
					run, p.Gone, found)
			}
			if p.Title != "Medieval manuscript bindings" || !strings.Contains(p.Text, "quokkaorrery") {
				t.Errorf("inactive /b lost its last content: %q %q", p.Title, p.Text)
			}
		}
		if run == 2 && !strings.Contains(out, "1 became inactive") {
			t.Errorf("run 2 summary does not count /b as inactive:\n%s", out)
		}
		for _, u := range []string{miniOrigin + "/", miniOrigin + "/a", miniOrigin + "/c"} {
			if p := pageOf(t, db, u); p.Gone != crawl.Active {
				t.Errorf("after recrawl %d: %s (still linked) is gone=%d", run, u, p.Gone)
			}
		}
	}
	if !searchFinds(t, db, "glaciers", miniOrigin+"/c") {
		t.Error("a search for glaciers no longer finds /c, which is still linked")
	}
}

// TestChangedPageReindexed: a page whose text and title changed is found
// by its new words and no longer by its old ones after the recrawl.
func TestChangedPageReindexed(t *testing.T) {
	t.Parallel()
	apptest.ForEachBackend(t, testChangedReindexed)
}

func testChangedReindexed(t *testing.T, be apptest.Backend) {
	m := newMiniWeb(t, miniPages())
	db := be.NewDB(t)
	conf := writeRecrawlConfig(t, shortHomesLongRest...)
	mustCrawl(t, m.args("crawl", db, conf, miniOrigin+"/")...)
	a := miniOrigin + "/a"
	before := pageOf(t, db, a)
	if !searchFinds(t, db, "oldwordalpha", a) || !searchFinds(t, db, `"sediment transport"`, a) {
		t.Fatal("after the first crawl /a is not found by its own words")
	}
	if searchFinds(t, db, "newwordomega", a) || searchFinds(t, db, "estuarine", a) {
		t.Fatal("/a is found by words it does not have yet")
	}

	m.edit(func(m *miniWeb) {
		m.pages["/a"] = miniPage{title: "Estuarine mud dynamics",
			text: "Mud flocculates where river water meets the sea. Our new instruments follow floc size through the tidal cycle and show how storms resuspend the bed. Keyword newwordomega marks this revision."}
	})
	// /a is an "other" page, due in years: --all revisits it now.
	mustCrawl(t, m.args("recrawl", db, conf, "--all")...)
	after := pageOf(t, db, a)
	if !after.FetchedAt.After(before.FetchedAt) || string(after.ContentHash) == string(before.ContentHash) {
		t.Fatalf("/a was not updated: fetched %v → %v", before.FetchedAt, after.FetchedAt)
	}
	for q, want := range map[string]bool{
		"newwordomega": true, "estuarine": true, `"mud dynamics"`: true, // new text, new title
		"oldwordalpha": false, `"sediment transport"`: false, "turbidity": false, // old text, old title
	} {
		if got := searchFinds(t, db, q, a); got != want {
			t.Errorf("after the recrawl a search for %s finds the changed page: %v, want %v", q, got, want)
		}
	}
	// The unchanged pages are still found.
	if !searchFinds(t, db, "quokkaorrery", miniOrigin+"/b") {
		t.Error("a search for quokkaorrery no longer finds the unchanged /b")
	}
}
