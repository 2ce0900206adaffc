package testweb

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRobotsBodies(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	for _, tc := range []struct {
		host     string
		status   int
		contains []string
	}{
		{"www.northfield-university.test", 200, []string{
			"User-agent: *\nDisallow: /private/\nDisallow: /*?sort=\n",
			"User-agent: acrawler\nDisallow: /internal/\nAllow: /internal/public/\nDisallow: /staff-only/\n",
			"Sitemap: http://www.northfield-university.test/sitemap.xml\n"}},
		{"www.karadeniz-universitesi.test", 200, []string{"User-agent: *\nCrawl-delay: 1\n"}},
		{"journal-of-applied-crawling.test", 200, []string{"User-agent: *\nDisallow:\n", "Sitemap: http://journal-of-applied-crawling.test/sitemap.xml"}},
		{"lab.quantum-optics-institute.test", 404, nil},
		{"shop.campus-store.test", 500, nil},
		{"news.city-daily.test", 200, []string{"User-agent: acrawler-news\nDisallow: /\n", "User-agent: *\nCrawl-delay: 0.5\nAllow: /\n"}},
		{"faults.test", 301, nil},
		{"blog.deep-archive.test", 200, []string{"Disallow: /before-cap/\n", "Disallow: /after-cap/\n"}},
	} {
		t.Run(tc.host, func(t *testing.T) {
			u := "http://" + tc.host + "/robots.txt"
			rec := serve(t, w, u)
			if rec.Code != tc.status {
				t.Errorf("GET %s = %d, want %d", u, rec.Code, tc.status)
			}
			body := rec.Body.String()
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("GET %s: body lacks %q", u, s)
				}
			}
		})
	}
	real := serve(t, w, "http://faults.test/robots-real.txt")
	if real.Code != 200 || !strings.Contains(real.Body.String(), "Disallow: /forbidden/\n") {
		t.Errorf("GET /robots-real.txt = %d %q", real.Code, real.Body.String())
	}
	blog := serve(t, w, "http://blog.deep-archive.test/robots.txt").Body.String()
	if n := len(blog); n <= 600<<10 {
		t.Errorf("blog robots.txt is %d bytes, want > 600 KiB", n)
	}
	if i := strings.Index(blog, "Disallow: /before-cap/"); i < 0 || i > 1024 {
		t.Errorf("Disallow: /before-cap/ at %d, want near the start", i)
	}
	if i := strings.Index(blog, "Disallow: /after-cap/"); i < 500<<10 {
		t.Errorf("Disallow: /after-cap/ at %d, want after 500 KiB", i)
	}
}

func TestDisallowed(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	for _, tc := range []struct {
		url  string
		want bool
	}{
		// The acrawler group replaces "*": /private/ and ?sort= are allowed.
		{"http://www.northfield-university.test/private/reports", false},
		{"http://www.northfield-university.test/publications/?sort=date", false},
		{"http://www.northfield-university.test/login", false},
		{"http://www.northfield-university.test/staff-only/directory", true},
		{"http://www.northfield-university.test/internal/budget", true},
		{"http://www.northfield-university.test/internal/public/annual-report", false},
		{"http://www.northfield-university.test/robots.txt", false},
		{"http://cs.northfield-university.test/", false},
		{"http://library.northfield-university.test/search?q=web+crawling", true},
		{"http://www.karadeniz-universitesi.test/yonetim/giris", true},
		{"http://www.karadeniz-universitesi.test/yayinlar/", false},
		{"http://lab.quantum-optics-institute.test/drafts/", false},
		{"http://shop.campus-store.test/", true},
		{"http://shop.campus-store.test/catalog?category=mugs", true},
		{"http://shop.campus-store.test/robots.txt", false},
		{"http://news.city-daily.test/world/story-1", false},
		{"http://faults.test/forbidden/page", true},
		{"http://faults.test/landing", false},
		{"http://faults.test/robots-real.txt", false},
		{"http://blog.deep-archive.test/before-cap/notes", true},
		{"http://blog.deep-archive.test/after-cap/notes", false},
	} {
		info, ok := w.Lookup(tc.url)
		if !ok {
			t.Errorf("Lookup(%q) found nothing", tc.url)
			continue
		}
		if info.Disallowed != tc.want {
			t.Errorf("Lookup(%q).Disallowed = %v, want %v", tc.url, info.Disallowed, tc.want)
		}
	}
}

func TestGeneratedRobots(t *testing.T) {
	w := New(Config{Sites: 30, PagesPerSite: 5})
	kinds := map[string]int{}
	for _, s := range w.Sites()[12:] {
		kinds[s.Robots]++
		u := s.Origin + "/drafts/notes"
		info, ok := w.Lookup(u)
		if !ok {
			t.Errorf("Lookup(%q) found nothing", u)
			continue
		}
		want := s.Robots != "allow-all" && s.Robots != "404"
		if info.Disallowed != want {
			t.Errorf("site %s (robots %s): Lookup(%q).Disallowed = %v, want %v", s.Host, s.Robots, u, info.Disallowed, want)
		}
		if home, _ := w.Lookup(s.Origin + "/"); home.Disallowed {
			t.Errorf("site %s (robots %s): home page disallowed for acrawler", s.Host, s.Robots)
		}
	}
	for _, k := range []string{"allow-all", "disallow-paths", "crawl-delay", "404", "agent-groups"} {
		if kinds[k] == 0 {
			t.Errorf("no generated site has robots.txt kind %s (got %v)", k, kinds)
		}
	}
}

func TestRobotsMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, target string
		want            bool
	}{
		{"/private/", "/private/x", true},
		{"/private/", "/private", false},
		{"/", "/anything", true},
		{"/*?sort=", "/publications/?sort=date", true},
		{"/*?sort=", "/publications/", false},
		{"/*.pdf$", "/files/a.pdf", true},
		{"/*.pdf$", "/files/a.pdf?x=1", false},
		{"/a*b*c", "/a-x-b-y-c-z", true},
		{"/a*b*c", "/a-x-c-y-b", false},
		{"/exact$", "/exact", true},
		{"/exact$", "/exact/", false},
		{"*", "/", true},
	} {
		if got := robotsMatch(tc.pattern, tc.target); got != tc.want {
			t.Errorf("robotsMatch(%q, %q) = %v, want %v", tc.pattern, tc.target, got, tc.want)
		}
	}
}

type urlset struct {
	URLs []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"url"`
}

type sitemapIndex struct {
	Sitemaps []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"sitemap"`
}

func TestSitemaps(t *testing.T) {
	w := New(Config{PagesPerSite: 20})
	rec := serve(t, w, "http://www.northfield-university.test/sitemap.xml")
	var idx sitemapIndex
	if err := xml.Unmarshal(rec.Body.Bytes(), &idx); err != nil || len(idx.Sitemaps) != 2 {
		t.Fatalf("sitemap index: %v, %d sitemaps", err, len(idx.Sitemaps))
	}
	want := []string{"http://www.northfield-university.test/sitemap-pages.xml", "http://www.northfield-university.test/sitemap-pubs.xml.gz"}
	pubs := 0
	for i, sm := range idx.Sitemaps {
		if sm.Loc != want[i] {
			t.Errorf("sitemap %d at %s, want %s", i, sm.Loc, want[i])
		}
		body := serve(t, w, sm.Loc).Body.Bytes()
		if strings.HasSuffix(sm.Loc, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", sm.Loc, err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", sm.Loc, err)
			}
		}
		var us urlset
		if err := xml.Unmarshal(body, &us); err != nil || len(us.URLs) == 0 {
			t.Fatalf("%s: %v, %d URLs", sm.Loc, err, len(us.URLs))
		}
		for _, u := range us.URLs {
			info, ok := w.Lookup(u.Loc)
			if !ok || info.Status != 200 {
				t.Errorf("%s lists %s: Lookup = %+v, %v", sm.Loc, u.Loc, info, ok)
			}
			if info.Kind == "publication" {
				pubs++
			}
			if _, err := time.Parse(time.RFC3339, u.Lastmod); err != nil {
				t.Errorf("%s: lastmod %q: %v", sm.Loc, u.Lastmod, err)
			}
		}
	}
	if pubs == 0 {
		t.Error("no publications in the sitemaps")
	}
	for _, host := range []string{"journal-of-applied-crawling.test", "www.karadeniz-universitesi.test", "news.city-daily.test", "cs.northfield-university.test"} {
		u := "http://" + host + "/sitemap.xml"
		var us urlset
		if err := xml.Unmarshal(serve(t, w, u).Body.Bytes(), &us); err != nil || len(us.URLs) == 0 {
			t.Errorf("%s: %v, %d URLs", u, err, len(us.URLs))
		}
		for _, e := range us.URLs {
			if _, ok := w.Lookup(e.Loc); !ok {
				t.Errorf("%s lists %s, which is not on the web", u, e.Loc)
			}
		}
	}
}
