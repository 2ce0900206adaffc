package app

import (
	"context"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestMirrorRecorded: a crawl of Northfield University's sites records
// its library, whose repository holds copies of the university's
// publications, as a mirror of the university: `stats --json` names the
// original (mirror_of) and values the library at crawl.MirrorValue at
// most, and the text report says why. The university, the seed, is no
// mirror.
func TestMirrorRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testMirrorRecorded)
}

func testMirrorRecorded(t *testing.T, be apptest.Backend) {
	const uni, library = "http://www.northfield-university.test", "http://library.northfield-university.test"
	web := apptest.NewWeb(t, testweb.Config{Seed: 23, Sites: 1, PagesPerSite: 20})
	db := be.NewDB(t)
	mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-crawl-delay", "1ms", uni+"/")...)
	r := clStatsJSON(t, db)
	found := false
	for _, h := range r.Hosts {
		switch h.Host {
		case library:
			found = true
			if h.MirrorOf != uni || h.Value > crawl.MirrorValue || !strings.HasPrefix(h.Reason, "mirror of "+uni+": ") {
				t.Errorf("%s (%d fetched): mirror of %q, value %d (%s); want a mirror of %s worth at most %d",
					h.Host, h.Fetched, h.MirrorOf, h.Value, h.Reason, uni, crawl.MirrorValue)
			}
		default:
			if h.MirrorOf != "" {
				t.Errorf("%s (%d fetched): mirror of %q, want no mirror", h.Host, h.Fetched, h.MirrorOf)
			}
		}
	}
	if !found {
		t.Fatalf("no row for %s in %+v", library, r.Hosts)
	}
	text, errs, err := runCmd(t, "stats", "--db", db)
	if err != nil {
		t.Fatalf("stats: %v\n%s", err, errs)
	}
	if !strings.Contains(text, "mirror of "+uni) {
		t.Errorf("stats output does not name %s's original:\n%s", library, text)
	}
}

// TestMirrorOfPagesFetchedBefore: a process that fetches a mirror's
// copies of pages an earlier process fetched (or another one on the same
// store) records the mirror too, although it fetched none of the
// original's pages itself. The first crawl takes the university's host
// alone; its library's pages are then offered to the frontier as links
// (as another process finding them would), and a second crawl over the
// domain fetches them.
func TestMirrorOfPagesFetchedBefore(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testMirrorOfPagesFetchedBefore)
}

func testMirrorOfPagesFetchedBefore(t *testing.T, be apptest.Backend) {
	const uni, library = "http://www.northfield-university.test", "http://library.northfield-university.test"
	web := apptest.NewWeb(t, testweb.Config{Seed: 23, Sites: 1, PagesPerSite: 20})
	db := be.NewDB(t)
	mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-crawl-delay", "1ms", "--scope", "host", uni+"/")...)
	fetched := func() map[string]clReportHost {
		out := map[string]clReportHost{}
		for _, h := range clStatsJSON(t, db).Hosts {
			out[h.Host] = h
		}
		return out
	}
	before := fetched()
	if before[uni].Fetched == 0 || before[library].Fetched != 0 {
		t.Fatalf("first crawl: %d pages of %s, %d of %s; want the university's alone", before[uni].Fetched, uni, before[library].Fetched, library)
	}
	var offers []crawl.NewURL
	for _, p := range web.Pages() {
		if strings.HasPrefix(p.URL, library+"/") && p.Status == 200 {
			offers = append(offers, crawl.NewURL{ID: crawl.URLID(p.URL), URL: p.URL, HostID: crawl.HashID(library), Host: library,
				Depth: 1, Via: crawl.ViaLink})
		}
	}
	st, err := OpenStore(context.Background(), db, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddURLs(context.Background(), offers, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-crawl-delay", "1ms", "--scope", "domain", uni+"/")...)
	after := fetched()
	if after[uni].Fetched != before[uni].Fetched {
		t.Fatalf("the second crawl fetched %d pages of %s: it should fetch the library's copies alone", after[uni].Fetched-before[uni].Fetched, uni)
	}
	if h := after[library]; h.Fetched < 3 || h.MirrorOf != uni || h.Value > crawl.MirrorValue {
		t.Errorf("%s (%d fetched): mirror of %q, value %d (%s); want a mirror of %s worth at most %d",
			library, h.Fetched, h.MirrorOf, h.Value, h.Reason, uni, crawl.MirrorValue)
	}
}
