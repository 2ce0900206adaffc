package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"
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
	srv := httptest.NewServer(http.HandlerFunc(linkedSitemapSite))
	defer srv.Close()
	forEachBackend(t, func(t *testing.T, be backend) {
		for _, tc := range []struct {
			name   string
			extra  []string
			hidden int64
		}{{"sitemaps on", nil, 1}, {"--no-sitemaps", []string{"--no-sitemaps"}, 0}} {
			t.Run(tc.name, func(t *testing.T) {
				db := be.newDB(t)
				args := append([]string{"crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off",
					"--log-level", "warn", "--warc", filepath.Join(t.TempDir(), "warc"), "--no-pdf"}, tc.extra...)
				mustCrawl(t, append(args, "http://linkmap.test/")...)
				d := openDB(t, db)
				if n := queryInt(t, d, `SELECT count(*) FROM pages WHERE url = 'http://linkmap.test/hidden' AND status = 200`); n != tc.hidden {
					t.Errorf("/hidden fetched %d times, want %d", n, tc.hidden)
				}
				if n := queryInt(t, d, `SELECT count(*) FROM urls WHERE url = 'http://linkmap.test/from-feed'`); n != 0 {
					t.Errorf("a link of the RSS feed was queued: XML that is no sitemap was read as one")
				}
				if n := queryInt(t, d, `SELECT count(*) FROM pages WHERE url = 'http://linkmap.test/feed.xml' AND error <> ''`); n != 0 {
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
	d := openDB(t, db)
	if n := queryInt(t, d, `SELECT count(*) FROM pages WHERE url LIKE '%/listed' AND status = 200`); n != hosts {
		t.Errorf("%d pages listed only by sitemaps fetched, want %d", n, hosts)
	}
}
