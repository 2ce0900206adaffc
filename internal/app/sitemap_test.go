package app

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// linkedSitemapSite is a host whose robots.txt names no sitemap and that
// has no /sitemap.xml, but whose home page links to a sitemap elsewhere,
// which alone lists /hidden, and to an RSS feed (XML, not a sitemap).
func linkedSitemapSite(w http.ResponseWriter, r *http.Request) {
	const origin = "http://linkmap.test"
	switch r.URL.Path {
	case "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html lang="en"><head><title>Linkmap Lab</title></head><body>
<p>The Linkmap Lab studies how sites describe themselves.</p>
<a href="/maps/all.xml">Site map</a> <a href="/feed.xml">News feed</a></body></html>`)
	case "/maps/all.xml":
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/hidden</loc></url></urlset>`, origin)
	case "/feed.xml":
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
<item><link>%s/from-feed</link></item></channel></rss>`, origin)
	case "/hidden", "/from-feed":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><title>%s</title></head><body><p>Only a sitemap leads here.</p></body></html>`, r.URL.Path)
	default:
		http.NotFound(w, r)
	}
}

// TestSitemapReachedThroughALink: a sitemap found through an ordinary link
// (not named by robots.txt, or found before its host's robots.txt named
// it) is read as a sitemap, so the pages only it lists are crawled; other
// XML is not taken for one; --no-sitemaps leaves it alone.
func TestSitemapReachedThroughALink(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls")
	}
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(linkedSitemapSite))
	defer srv.Close()
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		for _, tc := range []struct {
			name   string
			extra  []string
			hidden int64
		}{{"sitemaps on", nil, 1}, {"--no-sitemaps", []string{"--no-sitemaps"}, 0}} {
			t.Run(tc.name, func(t *testing.T) {
				db := be.NewDB(t)
				args := append([]string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off",
					"--log-level", "warn", "--warc", filepath.Join(t.TempDir(), "warc"), "--no-pdf"}, tc.extra...)
				mustCrawl(t, append(args, "http://linkmap.test/")...)
				d := apptest.OpenDB(t, db)
				if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE url = 'http://linkmap.test/hidden' AND status = 200`); n != tc.hidden {
					t.Errorf("/hidden fetched %d times, want %d", n, tc.hidden)
				}
				if n := apptest.QueryInt(t, d, `SELECT count(*) FROM `+d.URLs()+` AS urls WHERE url = 'http://linkmap.test/from-feed'`); n != 0 {
					t.Errorf("a link of the RSS feed was queued: XML that is no sitemap was read as one")
				}
				if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE url = 'http://linkmap.test/feed.xml' AND error <> ''`); n != 0 {
					t.Errorf("the RSS feed was recorded with an error")
				}
			})
		}
	})
}

// TestSitemapsReadFewAtOnce: however many workers crawl, at most two
// sitemaps are fetched and read at once, so the sitemap bodies held in
// memory stay bounded (each may be up to 50 MB); every sitemap is still read.
func TestSitemapsReadFewAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls")
	}
	t.Parallel()
	const hosts = 8
	var mu sync.Mutex
	inFlight, most, read := 0, 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := "http://" + r.Host
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "User-agent: *\nDisallow:\nSitemap: %s/sitemap.xml\n", origin)
		case "/sitemap.xml":
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			time.Sleep(100 * time.Millisecond) // a large sitemap takes a while
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/listed</loc></url></urlset>`, origin)
			mu.Lock()
			inFlight--
			read++
			mu.Unlock()
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>%s</title></head><body><p>A page.</p></body></html>`, r.URL.Path)
		}
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "crawl.db")
	args := []string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off", "--workers", "8",
		"--log-level", "warn", "--no-pdf", "--scope", "any", "--max-depth", "1"}
	for i := range hosts {
		args = append(args, fmt.Sprintf("http://sitemaps%d.test/", i))
	}
	mustCrawl(t, args...)
	mu.Lock()
	defer mu.Unlock()
	if most > 2 {
		t.Errorf("%d sitemaps fetched at once, want at most 2", most)
	}
	if read != hosts {
		t.Errorf("%d sitemaps read, want %d", read, hosts)
	}
	d := apptest.OpenDB(t, db)
	if n := apptest.QueryInt(t, d, `SELECT count(*) FROM pages WHERE url LIKE '%/listed' AND status = 200`); n != hosts {
		t.Errorf("%d pages listed only by sitemaps fetched, want %d", n, hosts)
	}
}

// clSitemapLocs reads a sitemap (or index, gzipped or not) of the test web
// through its proxy and returns the page URLs it lists and the sitemaps it
// read.
func clSitemapLocs(t *testing.T, w *apptest.Web, sitemapURL string) (pages, sitemaps []string) {
	t.Helper()
	pu, _ := url.Parse(w.Proxy)
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

func TestSitemaps(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testSitemaps)
}

func testSitemaps(t *testing.T, be apptest.Backend) {
	cfg := testweb.Config{Seed: 4, PagesPerSite: 20}
	const lab = "http://lab.quantum-optics-institute.test"
	if info, ok := testweb.New(cfg).Lookup(clOrphan); !ok || info.Status != 200 {
		t.Fatalf("the test web has no sitemap-only page %s", clOrphan)
	}

	t.Run("discovered", func(t *testing.T) {
		web := apptest.NewWeb(t, cfg)
		db := be.NewDB(t)
		mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-depth", "0", "--no-pdf", clJournal+"/", lab+"/")...)
		d := apptest.OpenDB(t, db)
		// The page only the sitemap lists was fetched, found through it.
		var via string
		var status int
		if err := d.Row(`SELECT u.via, p.status FROM `+d.URLs()+` u JOIN pages p ON p.url_id = u.id WHERE u.url = ?`, clOrphan).Scan(&via, &status); err != nil || status != 200 || via != "sitemap" {
			t.Errorf("%s: via %q, status %d, %v; want fetched (200) through the sitemap", clOrphan, via, status, err)
		}
		// The journal's robots.txt names its sitemap; the lab has no
		// robots.txt, so /sitemap.xml is tried.
		reqs := map[string]bool{}
		for _, u := range apptest.PageRequests(web) {
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
		web := apptest.NewWeb(t, cfg)
		db := be.NewDB(t)
		mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-depth", "0", "--no-pdf", "--no-sitemaps", clJournal+"/", lab+"/")...)
		for _, u := range apptest.PageRequests(web) {
			if u == clOrphan || u == lab+"/sitemap.xml" {
				t.Errorf("%s requested with --no-sitemaps", u)
			}
		}
		if n := apptest.QueryInt(t, apptest.OpenDB(t, db), `SELECT count(*) FROM urls WHERE kind = 1`); n != 0 {
			t.Errorf("%d sitemap URLs queued with --no-sitemaps", n)
		}
	})

	t.Run("seed", func(t *testing.T) {
		// --sitemap alone: Northfield's sitemap index, with a plain and a
		// gzipped child; --max-depth 1 keeps the crawl to its entries.
		const index = "http://www.northfield-university.test/sitemap.xml"
		web := apptest.NewWeb(t, cfg)
		locs, sitemaps := clSitemapLocs(t, web, index)
		if len(sitemaps) != 3 || len(locs) < 20 {
			t.Fatalf("the sitemap index lists %d sitemaps, %d pages", len(sitemaps), len(locs))
		}
		web.ResetRequests()
		db := be.NewDB(t)
		mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-depth", "1", "--no-pdf", "--sitemap", index)...)
		d := apptest.OpenDB(t, db)
		want := map[string]bool{}
		for _, u := range append(locs, sitemaps...) {
			want[u] = true
			st := apptest.QueryInt(t, d, `SELECT coalesce(max(state), -1) FROM `+d.URLs()+` AS urls WHERE url = ?`, u)
			if info, ok := web.Lookup(u); ok && info.Disallowed {
				continue
			}
			if st != 2 {
				t.Errorf("%s, listed in the sitemaps, is in state %d, want fetched", u, st)
			}
		}
		for _, u := range apptest.PageRequests(web) {
			if !want[u] {
				t.Errorf("%s fetched, but no sitemap lists it (depth 1 holds only sitemap entries)", u)
			}
		}
	})
}
