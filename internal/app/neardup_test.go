package app

import (
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestNearDistanceFlag crawls the same web twice: with the default
// distance some pages (mirrors with another footer or date line) are
// recorded as near-duplicates (and so left out of the index); with
// --near-distance 0 none is.
func TestNearDistanceFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	for _, be := range apptest.Backends {
		t.Run(be.Name, func(t *testing.T) {
			web := apptest.NewWeb(t, testweb.Config{Seed: 23, Sites: 1, PagesPerSite: 20})
			near := map[string]int{}
			for _, dist := range []string{"3", "0"} {
				db := be.NewDB(t)
				args := web.CrawlArgs(db, "--delay", "0", "--max-depth", "0", "--max-crawl-delay", "1ms", "--no-pdf", "--warc", "off",
					"--near-distance", dist, "http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/")
				mustCrawl(t, args...)
				d := apptest.OpenDB(t, db)
				near[dist] = int(apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE near_duplicate_of <> 0`))
				d.Close()
			}
			if near["3"] == 0 {
				t.Errorf("default distance: no near-duplicate recorded; the test web's mirrors should give some")
			}
			if near["0"] != 0 {
				t.Errorf("--near-distance 0: %d near-duplicates recorded, want none", near["0"])
			}
		})
	}
}
