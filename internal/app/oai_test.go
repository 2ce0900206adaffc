package app

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestCrawlHarvestsOAI: acrawler crawl --oai URL lists the repository over
// OAI-PMH and fetches every record's landing page and PDF, with no other
// seed; recrawl --oai asks the repository only for the records changed
// since that harvest began (one page: few have changed since).
func TestCrawlHarvestsOAI(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls")
	}
	repo := testweb.NewRepository(testweb.New(testweb.Config{}))
	var mu sync.Mutex
	var lists []url.Values // the ListRecords requests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query(); r.URL.Path == "/oai" && q.Get("verb") == "ListRecords" {
			mu.Lock()
			lists = append(lists, q)
			mu.Unlock()
		}
		repo.ServeHTTP(w, r)
	}))
	defer srv.Close()
	endpoint := "http://" + testweb.RepositoryHost + "/oai"
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		mu.Lock()
		lists = nil
		mu.Unlock()
		db := be.NewDB(t)
		args := []string{"--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off", "--log-level", "warn",
			"--warc", filepath.Join(t.TempDir(), "warc"), "--scope", "host", "--oai", endpoint}
		mustCrawl(t, append([]string{"crawl"}, args...)...)
		d := apptest.OpenDB(t, db)
		live := 0
		for _, r := range repo.Records() {
			if r.Deleted {
				continue
			}
			live++
			for _, u := range []string{r.Landing, r.PDF} {
				if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE url = ? AND status = 200`, u); n != 1 {
					t.Errorf("%s (record %s) fetched %d times with 200, want once", u, r.Identifier, n)
				}
			}
		}
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM urls WHERE via = 'oai'`); n != int64(2*live) {
			t.Errorf("%d URLs queued from the repository's records, want %d", n, 2*live)
		}
		if n := apptest.QueryInt(t, d, `SELECT count(*) FROM source_errors`); n != 0 {
			t.Errorf("%d source errors after a clean harvest", n)
		}
		mu.Lock()
		first := len(lists)
		if first < 3 || lists[0].Get("from") != "" {
			t.Errorf("ListRecords asked %d times (first %v); want every page of a full harvest", first, lists)
		}
		mu.Unlock()

		mustCrawl(t, append([]string{"recrawl"}, args...)...)
		mu.Lock()
		again := lists[first:]
		mu.Unlock()
		if len(again) != 1 || again[0].Get("from") == "" {
			t.Fatalf("recrawl asked ListRecords %v; want one request with from", again)
		}
		if _, err := time.Parse(time.RFC3339, again[0].Get("from")); err != nil {
			t.Errorf("recrawl's from %q: %v", again[0].Get("from"), err)
		}

		// A truncated answer is a source error the report shows, and the
		// crawl goes on with the records read before it. (The repository
		// cuts each token's first answer: a fresh one for each backend.)
		fresh := httptest.NewServer(testweb.NewRepository(testweb.New(testweb.Config{})))
		defer fresh.Close()
		db = be.NewDB(t)
		args = []string{"crawl", "--db", db, "--proxy", fresh.URL, "--delay", "0", "--progress", "off", "--log-level", "error",
			"--warc", filepath.Join(t.TempDir(), "warc"), "--scope", "host", "--max-pages", "5", "--oai", endpoint + "/truncated"}
		mustCrawl(t, args...)
		out := mustCrawl(t, "stats", "--db", db)
		if !strings.Contains(out, "oai "+endpoint+"/truncated") || !strings.Contains(out, "truncated response") {
			t.Errorf("stats shows no source error for the truncated answer:\n%s", out)
		}
		if n := apptest.QueryInt(t, apptest.OpenDB(t, db), `SELECT count(*) FROM urls WHERE via = 'oai'`); n != 2*testweb.RepositoryPageSize {
			t.Errorf("%d URLs queued before the truncated page, want the first page's %d", n, 2*testweb.RepositoryPageSize)
		}
	})
}
