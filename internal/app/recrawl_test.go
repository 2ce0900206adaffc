package app

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
)

// pageState is what a test reads of a recorded page.
type pageState struct {
	hash      []byte
	fetched   time.Time
	checked   time.Time
	gone      crawl.Gone
	indexable bool
}

func pageStates(t *testing.T, db string) map[string]pageState {
	t.Helper()
	st, err := openStoreReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string]pageState{}
	for p, err := range st.Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out[p.URL] = pageState{hash: p.ContentHash, fetched: p.FetchedAt, checked: p.CheckedAt, gone: p.Gone, indexable: crawl.Indexable(p)}
	}
	return out
}

// TestRecrawl crawls the test web, moves it to its next state (10% of
// pages changed, some removed with 404 or 410, new ones added, sitemaps
// updated), and recrawls: unchanged pages are answered 304 and left as
// they were, changed pages are updated, removed pages leave the index
// after the right number of misses, new pages are found, and no host is
// asked faster than the delay.
func TestRecrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web four times")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testRecrawl)
}

func testRecrawl(t *testing.T, be apptest.Backend) {
	web := apptest.NewWeb(t, testweb.Config{Seed: 13, Sites: 3, PagesPerSite: 25, NoFaults: true})
	db := be.NewDB(t)
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/"}
	for _, s := range web.Sites() {
		if strings.HasPrefix(s.Host, "www.uni-") || strings.HasPrefix(s.Host, "lab-") {
			seeds = append(seeds, s.Origin+"/")
		}
	}
	// Some generated sites ask for a Crawl-delay of seconds: capped here.
	common := []string{"--delay", "0", "--max-depth", "0", "--no-pdf", "--lease", "2s", "--max-crawl-delay", "1ms"}
	mustCrawl(t, append(web.CrawlArgs(db, common...), seeds...)...)
	before := pageStates(t, db)
	var firstBytes int64
	for _, r := range web.Requests() {
		firstBytes += r.Bytes
	}
	if len(before) < 200 {
		t.Fatalf("first crawl recorded %d pages", len(before))
	}

	web.Advance()
	changed, removed, added := web.Changes()
	web.ResetRequests()
	const delay = 20 * time.Millisecond
	recrawlArgs := append([]string{"recrawl"}, web.CrawlArgs(db, "--delay", delay.String(), "--no-pdf", "--lease", "2s",
		"--max-crawl-delay", "1ms", "--all")[1:]...)
	out := mustCrawl(t, recrawlArgs...)
	if !strings.Contains(out, "recrawl run 1:") {
		t.Errorf("recrawl output has no run summary:\n%s", out)
	}
	after := pageStates(t, db)
	reqs := web.Requests()

	isChanged := map[string]bool{}
	for _, u := range changed {
		isChanged[u] = true
	}
	isRemoved := map[string]bool{}
	for _, u := range removed {
		isRemoved[u] = true
	}
	// Every revisit was conditional; unchanged pages answered 304 and were
	// neither rewritten nor re-parsed.
	status := map[string]int{}
	for _, r := range reqs {
		if r.Method == "GET" && !strings.HasPrefix(r.Path, "/robots") {
			status["http://"+r.Host+r.Path] = r.Status
		}
	}
	var notModified, unchangedChecked, changedUpdated, changedTotal int
	for u, b := range before {
		a, ok := after[u]
		if !ok {
			t.Errorf("%s vanished from the store", u)
			continue
		}
		info, known := web.Lookup(u)
		if !known || b.gone != crawl.Active {
			continue
		}
		switch {
		case isRemoved[info.URL]:
		case isChanged[info.URL]:
			if status[u] == 200 && b.indexable {
				changedTotal++
				if !bytes.Equal(a.hash, b.hash) && a.fetched.After(b.fetched) {
					changedUpdated++
				} else {
					t.Errorf("changed page %s was not updated", u)
				}
			}
		default:
			if status[u] == 304 {
				notModified++
				if !a.fetched.Equal(b.fetched) || !bytes.Equal(a.hash, b.hash) {
					t.Errorf("%s answered 304 but its record was rewritten", u)
				}
				if !a.checked.After(b.fetched) {
					t.Errorf("%s answered 304 but its check time did not move", u)
				}
			}
			unchangedChecked++
		}
	}
	if changedTotal == 0 || changedUpdated != changedTotal {
		t.Errorf("%d of %d changed pages updated", changedUpdated, changedTotal)
	}
	if notModified < unchangedChecked*9/10 {
		t.Errorf("only %d of %d unchanged pages answered 304", notModified, unchangedChecked)
	}
	// New pages (on the crawled sites) are found.
	crawled := map[string]bool{}
	for u := range before {
		crawled[hostOfURL(u)] = true
	}
	found, inScope := 0, 0
	for _, u := range added {
		if !crawled[hostOfURL(u)] {
			continue
		}
		inScope++
		if _, ok := after[u]; ok {
			found++
		} else {
			t.Errorf("new page %s not found", u)
		}
	}
	if inScope == 0 {
		t.Error("no new page appeared on the crawled sites")
	}
	// Politeness holds during the recrawl.
	byHost := map[string][]time.Time{}
	for _, r := range reqs {
		if r.Method != "CONNECT" && !strings.HasPrefix(r.Path, "/robots") {
			byHost[r.Host] = append(byHost[r.Host], r.Time)
		}
	}
	for h, ts := range byHost {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
		for i := 1; i < len(ts); i++ {
			if gap := ts[i].Sub(ts[i-1]); gap < delay {
				t.Errorf("%s: two requests %v apart during the recrawl", h, gap)
				break
			}
		}
	}
	var recrawlBytes int64
	for _, r := range reqs {
		recrawlBytes += r.Bytes
	}
	t.Logf("first crawl %d pages, %d bytes; after Advance: %d changed, %d removed, %d added; recrawl: %d answered 304, %d changed updated, %d bytes (%.1f%% of the first crawl)",
		len(before), firstBytes, len(changed), len(removed), len(added), notModified, changedUpdated, recrawlBytes,
		100*float64(recrawlBytes)/float64(firstBytes))

	// Removed pages: 410 at once; 404 after three misses in a row.
	goneStatus := func(states map[string]pageState, code int) (gone, still int) {
		for _, u := range removed {
			info, _ := web.Lookup(u)
			if info.Status != code {
				continue
			}
			if s, ok := states[u]; ok {
				if s.gone != crawl.Active && !s.indexable {
					gone++
				} else {
					still++
				}
			}
		}
		return
	}
	if g, s := goneStatus(after, 410); g == 0 || s != 0 {
		t.Errorf("after one recrawl: %d pages answering 410 removed, %d still there", g, s)
	}
	if g, s := goneStatus(after, 404); g != 0 || s == 0 {
		t.Errorf("after one recrawl: %d pages answering 404 removed (want none yet), %d still there", g, s)
	}
	for range 2 {
		mustCrawl(t, recrawlArgs...)
	}
	final := pageStates(t, db)
	if g, s := goneStatus(final, 404); g == 0 || s != 0 {
		t.Errorf("after three recrawls: %d pages answering 404 removed, %d still there", g, s)
	}
	// And they are out of the search index.
	st, err := openStoreReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, u := range removed {
		if p, err := st.Page(context.Background(), crawl.URLID(u)); err == nil && p.Title != "" {
			res, err := st.Search(context.Background(), crawl.SearchRequest{Query: `"` + p.Title + `"`, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				if h.URL == u {
					t.Errorf("removed page %s is still a search result", u)
				}
			}
		}
	}
}

func hostOfURL(u string) string {
	rest := u[strings.Index(u, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i]
	}
	return rest
}
