package testweb

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// response is what a GET of one URL gave.
type response struct {
	code     int
	body     []byte
	etag, lm string
}

// stable reports URLs whose bytes depend only on the web's state (not on
// session ids or request counters) and that are quick to fetch.
func stable(u string) bool {
	return !slowURL(u) && !strings.HasPrefix(u, "http://shop.campus-store.test/") &&
		!strings.HasSuffix(u, "faults.test/flaky") && !strings.HasSuffix(u, "faults.test/busy")
}

// snapshot fetches every stable page of the web.
func snapshot(t *testing.T, w *Web) map[string]response {
	t.Helper()
	out := map[string]response{}
	for _, p := range w.Pages() {
		if !stable(p.URL) {
			continue
		}
		rec := serve(t, w, p.URL)
		out[p.URL] = response{rec.Code, rec.Body.Bytes(), rec.Header().Get("ETag"), rec.Header().Get("Last-Modified")}
	}
	return out
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, u := range list {
		m[u] = true
	}
	return m
}

func TestEpochBeforeAdvance(t *testing.T) {
	w := New(Config{PagesPerSite: 10})
	if e := w.Epoch(); e != 0 {
		t.Errorf("Epoch() = %d after New, want 0", e)
	}
	if c, r, a := w.Changes(); len(c)+len(r)+len(a) != 0 {
		t.Errorf("Changes() = %d, %d, %d URLs before Advance, want none", len(c), len(r), len(a))
	}
	w.Advance()
	w.Advance()
	if e := w.Epoch(); e != 2 {
		t.Errorf("Epoch() = %d after two Advance, want 2", e)
	}
}

// TestAdvanceDeterministic advances two webs from one seed twice and
// compares everything they say and serve.
func TestAdvanceDeterministic(t *testing.T) {
	cfg := Config{Seed: 42, Sites: 3, PagesPerSite: 20}
	a, b := New(cfg), New(cfg)
	for i := 0; i < 2; i++ {
		a.Advance()
		b.Advance()
	}
	ca, ra, aa := a.Changes()
	cb, rb, ab := b.Changes()
	if !reflect.DeepEqual(ca, cb) || !reflect.DeepEqual(ra, rb) || !reflect.DeepEqual(aa, ab) {
		t.Fatalf("Changes() differ between two webs from one seed")
	}
	if len(ca) == 0 || len(ra) == 0 || len(aa) == 0 {
		t.Fatalf("Changes() = %d changed, %d removed, %d added: want some of each", len(ca), len(ra), len(aa))
	}
	pa, pb := a.Pages(), b.Pages()
	if !reflect.DeepEqual(pa, pb) {
		t.Fatalf("Pages() differ between two webs from one seed")
	}
	urls := ra
	for _, p := range pa {
		urls = append(urls, p.URL)
	}
	for _, u := range urls {
		if !stable(u) {
			continue
		}
		ra, rb := serve(t, a, u), serve(t, b, u)
		if ra.Code != rb.Code || !bytes.Equal(ra.Body.Bytes(), rb.Body.Bytes()) {
			t.Errorf("GET %s: two webs from one seed serve %d (%d bytes) and %d (%d bytes)", u, ra.Code, ra.Body.Len(), rb.Code, rb.Body.Len())
			continue
		}
		for _, h := range []string{"ETag", "Last-Modified"} {
			if ra.Header().Get(h) != rb.Header().Get(h) {
				t.Errorf("GET %s: %s %q and %q from one seed", u, h, ra.Header().Get(h), rb.Header().Get(h))
			}
		}
	}
}

// TestAdvanceValidators checks every page across two advances: unchanged
// pages serve the same bytes and validators and answer 304 to them;
// changed pages serve new ones and answer 200 to the old; removed pages
// answer 404 or 410. Changes must name exactly the pages whose bytes
// changed.
func TestAdvanceValidators(t *testing.T) {
	w := New(Config{Seed: 5, Sites: 4, PagesPerSite: 30})
	for epoch := 1; epoch <= 2; epoch++ {
		before := snapshot(t, w)
		w.Advance()
		changed, removed, added := w.Changes()
		isChanged, isRemoved, isAdded := set(changed), set(removed), set(added)
		var nChanged, nSame int
		for u, old := range before {
			rec := serve(t, w, u)
			switch {
			case isRemoved[u]:
				if rec.Code != http.StatusNotFound && rec.Code != http.StatusGone {
					t.Errorf("epoch %d: GET %s = %d, removed: want 404 or 410", epoch, u, rec.Code)
				}
				continue
			case isAdded[u]:
				t.Errorf("epoch %d: %s was there before, Changes says added", epoch, u)
				continue
			}
			same := rec.Code == old.code && bytes.Equal(rec.Body.Bytes(), old.body)
			if same == isChanged[u] {
				t.Errorf("epoch %d: GET %s: body changed %v, in Changes %v", epoch, u, !same, isChanged[u])
				continue
			}
			if old.code != http.StatusOK || old.etag == "" {
				continue
			}
			etag, lm := rec.Header().Get("ETag"), rec.Header().Get("Last-Modified")
			want := http.StatusNotModified
			if same {
				nSame++
				if etag != old.etag || lm != old.lm {
					t.Errorf("epoch %d: GET %s: unchanged, but ETag %q → %q, Last-Modified %q → %q", epoch, u, old.etag, etag, old.lm, lm)
				}
			} else {
				nChanged++
				want = http.StatusOK
				tOld, err1 := http.ParseTime(old.lm)
				tNew, err2 := http.ParseTime(lm)
				if etag == old.etag || err1 != nil || err2 != nil || !tNew.After(tOld) {
					t.Errorf("epoch %d: GET %s: changed, but ETag %q → %q, Last-Modified %q → %q", epoch, u, old.etag, etag, old.lm, lm)
				}
			}
			if got := serve(t, w, u, "If-None-Match", old.etag).Code; got != want {
				t.Errorf("epoch %d: GET %s with If-None-Match: %s (changed %v) = %d, want %d", epoch, u, old.etag, !same, got, want)
			}
			if got := serve(t, w, u, "If-Modified-Since", old.lm).Code; got != want {
				t.Errorf("epoch %d: GET %s with If-Modified-Since: %s (changed %v) = %d, want %d", epoch, u, old.lm, !same, got, want)
			}
		}
		for _, u := range append(append([]string(nil), changed...), removed...) {
			if _, ok := before[u]; !ok && stable(u) {
				t.Errorf("epoch %d: Changes names %s, which was not on the web before", epoch, u)
			}
		}
		for _, u := range added {
			if _, ok := before[u]; ok {
				t.Errorf("epoch %d: added %s was on the web before", epoch, u)
			}
			if rec := serve(t, w, u); rec.Code >= 400 {
				t.Errorf("epoch %d: GET %s (added) = %d", epoch, u, rec.Code)
			}
		}
		t.Logf("epoch %d: %d changed, %d unchanged with validators, %d removed, %d added", epoch, nChanged, nSame, len(removed), len(added))
		if nChanged == 0 || nSame == 0 || len(removed) == 0 || len(added) == 0 {
			t.Errorf("epoch %d: want some changed, unchanged, removed and added pages", epoch)
		}
	}
}

// sitemapEntry is one <url> of a sitemap.
type sitemapEntry struct {
	Loc        string `xml:"loc"`
	Lastmod    string `xml:"lastmod"`
	Changefreq string `xml:"changefreq"`
}

// sitemapEntries returns the entries of every sitemap of the web.
func sitemapEntries(t *testing.T, w *Web) map[string]sitemapEntry {
	t.Helper()
	out := map[string]sitemapEntry{}
	for _, p := range w.Pages() {
		if p.Kind != "sitemap" {
			continue
		}
		body := serve(t, w, p.URL).Body.Bytes()
		if strings.HasSuffix(p.URL, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", p.URL, err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", p.URL, err)
			}
		}
		var us struct {
			URLs []sitemapEntry `xml:"url"`
		}
		if err := xml.Unmarshal(body, &us); err != nil {
			t.Fatalf("%s: %v", p.URL, err)
		}
		for _, e := range us.URLs {
			out[e.Loc] = e
		}
	}
	return out
}

// TestAdvanceLinks checks after two advances that no page links to a
// removed page and no sitemap lists one, that new pages are linked and in
// the sitemaps of their site, and that every lastmod is the entry's
// Last-Modified.
func TestAdvanceLinks(t *testing.T) {
	w := New(Config{Seed: 8, Sites: 6, PagesPerSite: 30})
	w.Advance()
	_, removed1, added1 := w.Changes()
	w.Advance()
	_, removed2, added2 := w.Changes()
	removed := set(append(removed1, removed2...))
	added := set(append(added1, added2...))

	linked := map[string]bool{}
	for _, p := range w.Pages() {
		if !isHTML(p.ContentType) || p.Status != 200 || !stable(p.URL) {
			continue
		}
		rec := serve(t, w, p.URL)
		for _, link := range pageLinks(t, p.URL, decodeBody(t, rec.Body.Bytes(), p.Charset)) {
			info, ok := w.Lookup(link)
			if !ok {
				continue
			}
			if removed[info.URL] {
				t.Errorf("%s links %s, removed", p.URL, link)
			}
			linked[info.URL] = true
		}
	}
	entries := sitemapEntries(t, w)
	kindsInSitemaps := map[string]bool{} // host + kind
	for loc, e := range entries {
		info, ok := w.Lookup(loc)
		if !ok || removed[info.URL] || info.Status != 200 {
			t.Errorf("a sitemap lists %s: Lookup = %+v, %v", loc, info, ok)
			continue
		}
		kindsInSitemaps[hostOf(loc)+" "+info.Kind] = true
		lastmod, err := time.Parse(time.RFC3339, e.Lastmod)
		rec := serve(t, w, loc)
		lm, err2 := http.ParseTime(rec.Header().Get("Last-Modified"))
		if err != nil || err2 != nil || !lastmod.Equal(lm) {
			t.Errorf("%s: lastmod %q, Last-Modified %q", loc, e.Lastmod, rec.Header().Get("Last-Modified"))
		}
		switch e.Changefreq {
		case "daily", "weekly", "monthly", "yearly":
		default:
			t.Errorf("%s: changefreq %q", loc, e.Changefreq)
		}
	}
	n := 0
	for u := range added {
		info, ok := w.Lookup(u)
		if !ok || !contentKind(info.Kind) || info.Status != 200 {
			continue
		}
		n++
		if !linked[u] {
			t.Errorf("added %s (%s) is not linked from any page", u, info.Kind)
		}
		if _, ok := entries[u]; !ok && kindsInSitemaps[hostOf(u)+" "+info.Kind] {
			t.Errorf("added %s (%s) is not in the sitemaps of its site", u, info.Kind)
		}
	}
	if n == 0 || len(removed) == 0 {
		t.Errorf("%d pages added, %d removed: want some", n, len(removed))
	}
}

// TestAdvanceTruth checks that Lookup and Pages describe the current epoch
// and match what is served.
func TestAdvanceTruth(t *testing.T) {
	w := New(Config{Seed: 2, Sites: 3, PagesPerSite: 20})
	w.Advance()
	_, removed, added := w.Changes()
	inPages := map[string]bool{}
	for _, p := range w.Pages() {
		inPages[p.URL] = true
		if !stable(p.URL) {
			continue
		}
		rec := serve(t, w, p.URL)
		if rec.Code != p.Status {
			t.Errorf("GET %s = %d, Pages says %d", p.URL, rec.Code, p.Status)
		}
		if got := rec.Header().Get("Content-Type"); got != p.ContentType && rec.Code < 300 {
			t.Errorf("GET %s: Content-Type %q, Pages says %q", p.URL, got, p.ContentType)
		}
	}
	for _, u := range removed {
		if inPages[u] {
			t.Errorf("Pages() lists %s, removed", u)
		}
		info, ok := w.Lookup(u)
		if !ok || info.Status != http.StatusNotFound && info.Status != http.StatusGone || info.Citation != nil {
			t.Errorf("Lookup(%q) = %+v, %v: want a 404 or 410 without citation", u, info, ok)
			continue
		}
		rec := serve(t, w, u)
		if rec.Code != info.Status || rec.Header().Get("Content-Type") != info.ContentType || rec.Header().Get("ETag") != "" {
			t.Errorf("GET %s = %d, %q, ETag %q; Lookup says %d, %q", u, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("ETag"), info.Status, info.ContentType)
		}
	}
	for _, u := range added {
		if !inPages[u] {
			t.Errorf("Pages() does not list %s, added", u)
		}
		if info, ok := w.Lookup(u); !ok || info.URL != u {
			t.Errorf("Lookup(%q) = %+v, %v", u, info, ok)
		}
	}
	pages := 0
	for _, s := range w.Sites() {
		pages += s.Pages
	}
	if pages != len(inPages) {
		t.Errorf("Sites() count %d pages, Pages() lists %d", pages, len(inPages))
	}
}

// TestAdvanceRates checks the change model on a web of 30 sites.
func TestAdvanceRates(t *testing.T) {
	w := New(Config{Seed: 1, Sites: 20})
	type count struct{ pages, changed, removed, added int }
	total := map[string]*count{}
	gone := map[int]int{}
	for epoch := 1; epoch <= 2; epoch++ {
		kind := map[string]string{}
		for _, p := range w.Pages() {
			kind[p.URL] = p.Kind
			if contentKind(p.Kind) {
				if total[p.Kind] == nil {
					total[p.Kind] = &count{}
				}
				total[p.Kind].pages++
			}
		}
		w.Advance()
		changed, removed, added := w.Changes()
		for _, u := range changed {
			if c := total[kind[u]]; c != nil {
				c.changed++
			}
		}
		for _, u := range removed {
			if c := total[kind[u]]; c != nil {
				c.removed++
				info, _ := w.Lookup(u)
				gone[info.Status]++
			}
		}
		for _, u := range added {
			info, _ := w.Lookup(u)
			if c := total[info.Kind]; c != nil && contentKind(info.Kind) {
				c.added++
			}
		}
	}
	rate := func(kinds ...string) (changed, removed, added float64) {
		var n, c, r, a int
		for k, v := range total {
			if len(kinds) > 0 && !strings.Contains(" "+strings.Join(kinds, " ")+" ", " "+k+" ") {
				continue
			}
			n, c, r, a = n+v.pages, c+v.changed, r+v.removed, a+v.added
		}
		return float64(c) / float64(n), float64(r) / float64(n), float64(a) / float64(n)
	}
	changed, removed, added := rate()
	t.Logf("content pages: %.1f%% changed, %.1f%% removed, %.1f%% added per advance; %d answer 404, %d 410", changed*100, removed*100, added*100, gone[404], gone[410])
	for k, v := range total {
		t.Logf("%-12s %5d pages/advance: %4.1f%% changed", k, v.pages/2, float64(v.changed)*100/float64(v.pages))
	}
	for _, tc := range []struct {
		what     string
		got      float64
		min, max float64
	}{
		{"changed", changed, 0.07, 0.15},
		{"removed", removed, 0.02, 0.045},
		{"added", added, 0.03, 0.07},
	} {
		if tc.got < tc.min || tc.got > tc.max {
			t.Errorf("%.1f%% of content pages %s per advance, want %.0f-%.0f%%", tc.got*100, tc.what, tc.min*100, tc.max*100)
		}
	}
	if fast, _, _ := rate("home", "listing"); fast < 0.4 || fast > 0.75 {
		t.Errorf("home pages and listings: %.1f%% changed per advance, want about half", fast*100)
	}
	if slow, _, _ := rate("publication", "person"); slow < 0.02 || slow > 0.1 {
		t.Errorf("publications and people: %.1f%% changed per advance, want about 5%%", slow*100)
	}
	if n := gone[404] + gone[410]; gone[404] < n/4 || gone[410] < n/4 {
		t.Errorf("removed pages: %d answer 404, %d 410: want about half each", gone[404], gone[410])
	}
}

// TestAdvanceWhileServing advances the web while clients fetch pages (run
// with -race).
func TestAdvanceWhileServing(t *testing.T) {
	w := New(Config{Seed: 3, Sites: 2, PagesPerSite: 20, NoFaults: true})
	srv := httptest.NewServer(w)
	defer srv.Close()
	client := proxyClient(t, srv)
	var urls []string
	for _, p := range w.Pages() {
		if p.Kind == "publication" || p.Kind == "listing" || p.Kind == "sitemap" || p.Kind == "home" {
			urls = append(urls, p.URL)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; ; i += 4 {
				select {
				case <-done:
					return
				default:
				}
				resp, err := client.Get(urls[i%len(urls)])
				if err != nil {
					t.Errorf("GET %s: %v", urls[i%len(urls)], err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 && resp.StatusCode != 404 && resp.StatusCode != 410 {
					t.Errorf("GET %s = %d", urls[i%len(urls)], resp.StatusCode)
				}
				w.Lookup(urls[i%len(urls)])
			}
		}()
	}
	for i := 0; i < 3; i++ {
		w.Advance()
		w.Pages()
	}
	close(done)
	wg.Wait()
	if e := w.Epoch(); e != 3 {
		t.Errorf("Epoch() = %d, want 3", e)
	}
}

// TestChangefreq checks the sitemap's hints on a fresh web.
func TestChangefreq(t *testing.T) {
	w := New(Config{})
	entries := sitemapEntries(t, w)
	for _, tc := range []struct{ url, want string }{
		{"http://www.northfield-university.test/", "daily"},
		{"http://www.northfield-university.test/publications/", "daily"},
		{"http://www.northfield-university.test/publications/?page=2", "weekly"},
		{"http://journal-of-applied-crawling.test/issues/", "daily"},
	} {
		if got := entries[tc.url].Changefreq; got != tc.want {
			t.Errorf("changefreq of %s = %q, want %q", tc.url, got, tc.want)
		}
	}
	seen := map[string]bool{}
	for loc, e := range entries {
		info, _ := w.Lookup(loc)
		if info.Kind == "publication" {
			seen[e.Changefreq] = true
			if e.Changefreq != "monthly" && e.Changefreq != "yearly" {
				t.Errorf("changefreq of publication %s = %q, want monthly or yearly", loc, e.Changefreq)
			}
		}
	}
	if !seen["monthly"] || !seen["yearly"] {
		t.Errorf("publications have changefreq %v, want both monthly and yearly", seen)
	}
}
