package app

import (
	"path/filepath"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestIndexDelayLeavesNothingWaiting checks that a SQLite crawl with the
// default index delay (longer than the crawl) leaves every page indexed
// when it ends: written by the rank pass, or, with --no-rank, by the
// store's close; on each engine of the index. The database is then read
// with SQL alone, so that no open of the store writes what a crawl left
// waiting.
func TestIndexDelayLeavesNothingWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web twice")
	}
	t.Parallel()
	web := apptest.NewWeb(t, testweb.Config{Seed: 5, PagesPerSite: 15, NoFaults: true})
	for _, extra := range [][]string{nil, {"--no-rank"}, {"--index-engine", "fts5"}, {"--index-engine", "fts5", "--no-rank"}} {
		db := filepath.Join(t.TempDir(), "crawl.db")
		flags := append([]string{"--delay", "0", "--max-depth", "2", "--no-pdf", "--max-crawl-delay", "1ms"}, extra...)
		mustCrawl(t, append(web.CrawlArgs(db, flags...), "http://www.northfield-university.test/")...)
		d := apptest.OpenDB(t, db)
		var docs, rows, waiting, anchored, indexedAnchors int
		for q, into := range map[string]*int{
			`SELECT count(*) FROM search_docs`:                                                    &docs,
			`SELECT (SELECT count(*) FROM pages_fts_docsize) + (SELECT count(*) FROM index_docs)`: &rows,
			`SELECT count(*) FROM search_pending`:                                                 &waiting,
			`SELECT count(*) FROM search_docs WHERE anchors <> ''`:                                &anchored,
			`SELECT count(*) FROM index_docs WHERE anchors <> 0`:                                  &indexedAnchors,
		} {
			if err := d.Row(q).Scan(into); err != nil {
				t.Fatal(err)
			}
		}
		if docs < 10 || rows != docs || waiting != 0 || anchored == 0 {
			t.Errorf("crawl %v: %d documents, %d rows in the full-text index, %d waiting, %d with anchor texts; want every document's row, none waiting",
				extra, docs, rows, waiting, anchored)
		}
		// The segments engine indexes the anchor texts it has.
		if fts5 := len(extra) > 1 && extra[1] == "fts5"; !fts5 && indexedAnchors != anchored || fts5 && indexedAnchors != 0 {
			t.Errorf("crawl %v: %d documents' anchor texts in segments, %d documents with anchor texts", extra, indexedAnchors, anchored)
		}
	}
}
