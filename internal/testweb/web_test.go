package testweb

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestDeterministic(t *testing.T) {
	cfg := Config{Seed: 42, Sites: 3, PagesPerSite: 20}
	a, b := New(cfg), New(cfg)
	pa, pb := a.Pages(), b.Pages()
	if len(pa) != len(pb) {
		t.Fatalf("Pages(): %d and %d pages from one seed", len(pa), len(pb))
	}
	for i, p := range pa {
		if !reflect.DeepEqual(p, pb[i]) {
			t.Fatalf("Pages()[%d] = %+v and %+v from one seed", i, p, pb[i])
		}
		if slowURL(p.URL) {
			continue
		}
		ra, rb := serve(t, a, p.URL), serve(t, b, p.URL)
		if ra.Code != rb.Code || !bytes.Equal(ra.Body.Bytes(), rb.Body.Bytes()) {
			t.Errorf("GET %s: two webs from one seed serve %d (%d bytes) and %d (%d bytes)", p.URL, ra.Code, ra.Body.Len(), rb.Code, rb.Body.Len())
			continue
		}
		for _, h := range []string{"Content-Type", "ETag", "Last-Modified", "Location"} {
			if ra.Header().Get(h) != rb.Header().Get(h) {
				t.Errorf("GET %s: %s %q and %q from one seed", p.URL, h, ra.Header().Get(h), rb.Header().Get(h))
			}
		}
	}
}

func TestSeedsDiffer(t *testing.T) {
	a := New(Config{Seed: 1, PagesPerSite: 20})
	b := New(Config{Seed: 2, PagesPerSite: 20})
	if fmt.Sprint(a.Seeds()) != fmt.Sprint(b.Seeds()) {
		t.Errorf("Seeds() differ between seeds: hosts must be stable\n%v\n%v", a.Seeds(), b.Seeds())
	}
	for _, u := range a.Seeds() {
		if bytes.Equal(serve(t, a, u).Body.Bytes(), serve(t, b, u).Body.Bytes()) {
			t.Errorf("GET %s: same home page for seeds 1 and 2", u)
		}
	}
	titles := map[string]bool{}
	for _, p := range a.Pages() {
		if p.Kind == "publication" {
			titles[p.URL+" "+p.Title] = true
		}
	}
	same, n := 0, 0
	for _, p := range b.Pages() {
		if p.Kind == "publication" {
			n++
			if titles[p.URL+" "+p.Title] {
				same++
			}
		}
	}
	if n == 0 || same*4 > n {
		t.Errorf("%d of %d publications are the same for seeds 1 and 2", same, n)
	}
}

func TestSitesAndSeeds(t *testing.T) {
	w := New(Config{Sites: 6, PagesPerSite: 10})
	want := []string{
		"www.northfield-university.test", "cs.northfield-university.test", "library.northfield-university.test",
		"www.karadeniz-universitesi.test", "journal-of-applied-crawling.test", "lab.quantum-optics-institute.test",
		"shop.campus-store.test", "news.city-daily.test", "faults.test", "blog.deep-archive.test",
		"repository.northfield-university.test", "preprints.open-archive.test",
		"lab-001.test", "www.uni-002.test", "journal-003.test", "lab-004.test", "www.uni-005.test", "journal-006.test",
	}
	sites := w.Sites()
	seeds := w.Seeds()
	if len(sites) != len(want) || len(seeds) != len(want) {
		t.Fatalf("Sites() has %d sites, Seeds() %d, want %d", len(sites), len(seeds), len(want))
	}
	for i, s := range sites {
		if s.Host != want[i] {
			t.Errorf("Sites()[%d].Host = %q, want %q", i, s.Host, want[i])
		}
		if s.Origin != "http://"+want[i] || seeds[i] != s.Origin+"/" {
			t.Errorf("site %s: Origin %q, seed %q", want[i], s.Origin, seeds[i])
		}
		if s.Kind == "" || s.Robots == "" || s.Notes == "" || s.Pages == 0 {
			t.Errorf("site %s: incomplete SiteInfo %+v", s.Host, s)
		}
		if rec := serve(t, w, seeds[i]); rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", seeds[i], rec.Code)
		}
	}
	kinds := map[string]string{"lab-001.test": "lab", "www.uni-002.test": "university", "journal-003.test": "journal", "shop.campus-store.test": "shop", "news.city-daily.test": "news"}
	for _, s := range sites {
		if k, ok := kinds[s.Host]; ok && s.Kind != k {
			t.Errorf("site %s: Kind %q, want %q", s.Host, s.Kind, k)
		}
		if academic := s.Kind == "university" || s.Kind == "journal" || s.Kind == "lab" || s.Kind == "repository" || s.Kind == "preprints"; academic != s.Academic {
			t.Errorf("site %s: Academic = %v for kind %s", s.Host, s.Academic, s.Kind)
		}
	}
}

func TestPageCount(t *testing.T) {
	for _, tc := range []struct{ sites, per int }{{0, 60}, {10, 30}} {
		t.Run(fmt.Sprintf("%dx%d", tc.sites, tc.per), func(t *testing.T) {
			w := New(Config{Sites: tc.sites, PagesPerSite: tc.per})
			content := 0
			for _, p := range w.Pages() {
				switch p.Kind {
				case "home", "page", "listing", "publication", "person", "research", "news", "event", "post", "product":
					content++
				}
			}
			n := (10+tc.sites)*tc.per + repositoryAndPreprints(w)
			if content < n*6/10 || content > n*14/10 {
				t.Errorf("%d content pages, want about %d", content, n)
			}
		})
	}
}

// TestPageShape checks that typical pages look like the web a crawler
// meets: 8-20 KB of HTML and 20-60 links on average.
func TestPageShape(t *testing.T) {
	w := New(Config{PagesPerSite: 30})
	var n, size, links int
	for _, p := range w.Pages() {
		switch p.Kind {
		case "publication", "person", "news", "listing", "research", "page", "post":
		default:
			continue
		}
		rec := serve(t, w, p.URL)
		body := decodeBody(t, rec.Body.Bytes(), p.Charset)
		n++
		size += len(body)
		links += len(pageLinks(t, p.URL, body))
	}
	t.Logf("%d pages: average %d bytes, %d links", n, size/n, links/n)
	if avg := size / n; avg < 8<<10 || avg > 20<<10 {
		t.Errorf("average page size %d bytes, want 8-20 KB", avg)
	}
	if avg := links / n; avg < 20 || avg > 60 {
		t.Errorf("average %d links per page, want 20-60", avg)
	}
}

func TestRequestLog(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	req := func(target, ua string) {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.Header.Set("User-Agent", ua)
		w.ServeHTTP(newDiscard(), r)
	}
	req("http://www.northfield-university.test/people/?page=1&x=%7e", "acrawler/1.0")
	req("http://NEWS.CITY-DAILY.TEST:80/missing-page", "other")
	got := w.Requests()
	if len(got) != 2 {
		t.Fatalf("Requests() has %d entries, want 2", len(got))
	}
	if g := got[0]; g.Host != "www.northfield-university.test" || g.Path != "/people/?page=1&x=%7e" || g.Method != "GET" ||
		g.UserAgent != "acrawler/1.0" || g.Status != 404 || !g.Proxy || g.Time.IsZero() {
		t.Errorf("Requests()[0] = %+v", g)
	}
	if g := got[1]; g.Host != "news.city-daily.test" || g.Status != 404 || g.Bytes == 0 {
		t.Errorf("Requests()[1] = %+v", g)
	}
	w.ResetRequests()
	if n := len(w.Requests()); n != 0 {
		t.Errorf("after ResetRequests, %d entries", n)
	}

	// Concurrent requests and readers (run with -race).
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 25; j++ {
				req("http://www.northfield-university.test/", "acrawler")
				_ = w.Requests()
			}
		}()
	}
	wg.Wait()
	got = w.Requests()
	if len(got) != 200 {
		t.Fatalf("Requests() has %d entries after 200 requests", len(got))
	}
	for _, r := range got {
		if r.Status != 200 || r.Bytes < 1000 {
			t.Fatalf("logged %+v", r)
		}
	}
}

func TestRequestLogLimit(t *testing.T) {
	w := New(Config{PagesPerSite: 10, LogLimit: 10})
	for i := 0; i < 25; i++ {
		w.ServeHTTP(newDiscard(), httptest.NewRequest(http.MethodGet, fmt.Sprintf("http://faults.test/missing?n=%d", i), nil))
	}
	got := w.Requests()
	if len(got) > 10 || len(got) < 5 {
		t.Fatalf("Requests() has %d entries with LogLimit 10", len(got))
	}
	if last := got[len(got)-1].Path; last != "/missing?n=24" {
		t.Errorf("last entry %q, want /missing?n=24", last)
	}
	for _, r := range got {
		if r.Status != 404 {
			t.Errorf("entry %+v: status not recorded", r)
		}
	}
}

// discard is a ResponseWriter that throws the body away.
type discard struct{ h http.Header }

func newDiscard() *discard { return &discard{h: http.Header{}} }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// repositoryAndPreprints counts the content pages of the repository and
// the preprint server, whose size follows the publications of the other
// sites rather than PagesPerSite.
func repositoryAndPreprints(w *Web) int {
	n := 0
	for _, p := range w.Pages() {
		if (p.Kind == "publication" || p.Kind == "home") && (strings.Contains(p.URL, RepositoryHost) || strings.Contains(p.URL, PreprintHost)) {
			n++
		}
	}
	return n
}
