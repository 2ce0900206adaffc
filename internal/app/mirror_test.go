package app

import (
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
