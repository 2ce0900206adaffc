package testweb

import (
	"net/url"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	w := New(Config{PagesPerSite: 20})
	for _, tc := range []struct {
		url       string
		found     bool
		kind      string
		canonical string
	}{
		{"http://www.northfield-university.test/", true, "home", "http://www.northfield-university.test/"},
		{"HTTP://NEWS.CITY-DAILY.TEST:80/./world/../world/story-1", true, "news", "http://news.city-daily.test/world/story-1"},
		{"http://news.city-daily.test/%7eeditor/", true, "page", "http://news.city-daily.test/~editor/"},
		{"http://news.city-daily.test/world/story-1#comments", true, "news", "http://news.city-daily.test/world/story-1"},
		{"http://news.city-daily.test/world/story-1?", true, "news", "http://news.city-daily.test/world/story-1"},
		{"http://news.city-daily.test/world/story-1?utm_source=x&utm_medium=y", true, "news", "http://news.city-daily.test/world/story-1"},
		{"http://news.city-daily.test/culture/story-4?fbclid=abc", true, "news", "http://news.city-daily.test/culture/story-4"},
		{"http://news.city-daily.test/archive?year=2025&section=world", true, "listing", "http://news.city-daily.test/archive?section=world&year=2025"},
		{"http://news.city-daily.test/WORLD/story-6", true, "fault", "http://news.city-daily.test/WORLD/story-6"},
		{"http://news.city-daily.test:8080/", false, "", ""},
		{"https://news.city-daily.test/", false, "", ""},
		{"ftp://news.city-daily.test/", false, "", ""},
		{"http://no-such-host.test/", false, "", ""},
		{"https://doi.org/10.5555/jac.1001", false, "", ""},
		{"http://www.northfield-university.test/no-such-page", false, "", ""},
		{"http://www.northfield-university.test/pub?id=1", true, "alias", ""},
		{"http://www.northfield-university.test/events/calendar?month=1999-01", true, "trap", "http://www.northfield-university.test/events/calendar?month=1999-01"},
		{"http://www.northfield-university.test/events/calendar?month=2026-13", false, "", ""},
		{"http://blog.deep-archive.test/a/b/a/b/a/", true, "trap", "http://blog.deep-archive.test/a/b/a/b/a/"},
		{"http://blog.deep-archive.test/a/c/", false, "", ""},
		{"http://shop.campus-store.test/catalog?sort=newest&color=red&PHPSESSID=X1", true, "trap", "http://shop.campus-store.test/catalog?color=red&sort=newest"},
		{"http://shop.campus-store.test/catalog?color=mauve", false, "", ""},
		{"http://shop.campus-store.test/about;jsessionid=ABC", true, "page", "http://shop.campus-store.test/about"},
		{"http://journal-of-applied-crawling.test/doi/10.5555/jac.1001", true, "redirect", "http://journal-of-applied-crawling.test/article/1001"},
		{"http://faults.test/robots.txt", true, "robots", "http://faults.test/robots-real.txt"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			info, ok := w.Lookup(tc.url)
			if ok != tc.found {
				t.Fatalf("Lookup(%q) found = %v, want %v (%+v)", tc.url, ok, tc.found, info)
			}
			if !ok {
				return
			}
			if info.Kind != tc.kind {
				t.Errorf("Lookup(%q).Kind = %q, want %q", tc.url, info.Kind, tc.kind)
			}
			if tc.canonical != "" && info.Canonical != tc.canonical {
				t.Errorf("Lookup(%q).Canonical = %q, want %q", tc.url, info.Canonical, tc.canonical)
			}
		})
	}
	pub, _ := w.Lookup("http://www.northfield-university.test/pub?id=1")
	main, ok := w.Lookup(pub.Canonical)
	if !ok || main.Kind != "publication" || main.Citation == nil || main.Title != pub.Title {
		t.Fatalf("alias canonical %s: %+v", pub.Canonical, main)
	}
	if c := main.Citation; c.Title == "" || len(c.Authors) == 0 || c.DOI == "" || !strings.HasSuffix(c.PDF, ".pdf") {
		t.Errorf("Citation = %+v", c)
	}
	if pdf, ok := w.Lookup(main.Citation.PDF); !ok || pdf.Kind != "pdf" || !pdf.Academic || pdf.ContentType != "application/pdf" {
		t.Errorf("Lookup(%q) = %+v", main.Citation.PDF, pdf)
	}
}

// TestLookupMatchesServed serves every enumerable page and compares what
// comes back with the ground truth.
func TestLookupMatchesServed(t *testing.T) {
	w := New(Config{Sites: 3, PagesPerSite: 20})
	for _, p := range w.Pages() {
		if slowURL(p.URL) || strings.HasSuffix(p.URL, "/flaky") || strings.HasSuffix(p.URL, "/busy") {
			continue
		}
		rec := serve(t, w, p.URL)
		if rec.Code != p.Status {
			t.Errorf("GET %s = %d, Lookup says %d", p.URL, rec.Code, p.Status)
		}
		if got := rec.Header().Get("Content-Type"); got != p.ContentType && rec.Code < 300 {
			t.Errorf("GET %s: Content-Type %q, Lookup says %q", p.URL, got, p.ContentType)
		}
		if p.Location != "" && p.Status >= 300 && p.Status < 400 {
			loc, err := url.Parse(p.URL)
			if err == nil {
				loc, err = loc.Parse(rec.Header().Get("Location"))
			}
			if err != nil || loc.String() != p.Location {
				t.Errorf("GET %s: Location %q, Lookup says %q", p.URL, rec.Header().Get("Location"), p.Location)
			}
		}
		if got := rec.Header().Get("X-Robots-Tag"); strings.Contains(got, "noindex") && !p.NoIndex {
			t.Errorf("GET %s: X-Robots-Tag %q, Lookup says NoIndex false", p.URL, got)
		}
		if again, ok := w.Lookup(p.URL); !ok || again.URL != p.URL || again.Kind != p.Kind {
			t.Errorf("Lookup(%q) = %+v, %v; Pages says %+v", p.URL, again, ok, p)
		}
	}
}

// TestLinksOnTheWeb checks that every link of a sample of pages is on the
// web (Lookup finds it) or leaves it (another host, another scheme).
func TestLinksOnTheWeb(t *testing.T) {
	w := New(Config{Sites: 3, PagesPerSite: 20})
	known := map[string]bool{}
	for _, s := range w.Sites() {
		known[s.Host] = true
	}
	samples := 0
	for i, p := range w.Pages() {
		if !isHTML(p.ContentType) || slowURL(p.URL) || p.Status != 200 || i%3 != 0 && p.Kind != "home" && p.Kind != "trap" {
			continue
		}
		samples++
		rec := serve(t, w, p.URL)
		for _, link := range pageLinks(t, p.URL, decodeBody(t, rec.Body.Bytes(), p.Charset)) {
			u, _ := url.Parse(link)
			if u.Scheme != "http" || !known[strings.ToLower(u.Hostname())] {
				continue // off the web
			}
			if _, ok := w.Lookup(link); !ok {
				t.Errorf("%s links %s, which Lookup does not know", p.URL, link)
			}
		}
	}
	if samples < 100 {
		t.Errorf("only %d pages sampled", samples)
	}
}

// TestReachability walks the link graph from the seeds, a bounded number
// of trap pages per host, and checks that it reaches the academic pages.
func TestReachability(t *testing.T) {
	w := New(Config{Sites: 4, PagesPerSite: 20, NoFaults: true})
	const maxPerHost, maxTrapPerHost = 600, 20
	fetched := map[string]bool{}    // by canonical URL
	discovered := map[string]bool{} // by URL as Lookup normalizes it
	perHost := map[string]int{}
	traps := map[string]int{}
	queue := append([]string(nil), w.Seeds()...)
	for len(queue) > 0 {
		link := queue[0]
		queue = queue[1:]
		info, ok := w.Lookup(link)
		if !ok {
			continue
		}
		discovered[info.URL] = true
		key := info.Canonical
		if info.Kind == "trap" {
			key = info.URL
		}
		host := hostOf(info.URL)
		if fetched[key] || perHost[host] >= maxPerHost || info.Kind == "file" {
			continue
		}
		if info.Kind == "trap" {
			if traps[host] >= maxTrapPerHost {
				continue
			}
			traps[host]++
		}
		fetched[key] = true
		perHost[host]++
		rec := serve(t, w, link)
		if loc := rec.Header().Get("Location"); loc != "" {
			if u, err := url.Parse(link); err == nil {
				if next, err := u.Parse(loc); err == nil {
					queue = append(queue, next.String())
				}
			}
			continue
		}
		if !isHTML(rec.Header().Get("Content-Type")) {
			continue
		}
		queue = append(queue, pageLinks(t, link, decodeBody(t, rec.Body.Bytes(), info.Charset))...)
	}
	var academic, reached int
	for _, p := range w.Pages() {
		if !p.Academic {
			continue
		}
		academic++
		if discovered[p.URL] {
			reached++
		} else {
			t.Logf("not reached: %s (%s)", p.URL, p.Kind)
		}
	}
	t.Logf("reached %d of %d academic pages", reached, academic)
	if academic == 0 || reached*10 < academic*9 {
		t.Errorf("reached %d of %d academic pages, want at least 90%%", reached, academic)
	}
	for host, n := range traps {
		if n > maxTrapPerHost {
			t.Errorf("%s: %d trap pages fetched", host, n)
		}
	}
}
