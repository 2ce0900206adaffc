package testweb

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchRequests returns GET requests for the HTML content pages of w.
func benchRequests(w *Web) []*http.Request {
	var reqs []*http.Request
	for _, p := range w.Pages() {
		if p.Status != 200 || !isHTML(p.ContentType) || slowURL(p.URL) {
			continue
		}
		switch p.Kind {
		case "home", "page", "listing", "publication", "person", "research", "news", "event", "post", "product", "duplicate", "alias":
			reqs = append(reqs, httptest.NewRequest(http.MethodGet, p.URL, nil))
		}
	}
	return reqs
}

// BenchmarkServe measures pages per second through ServeHTTP on the
// 20,000-page benchmark web (100 generated sites, 200 pages each).
func BenchmarkServe(b *testing.B) {
	w := New(Config{Sites: 100, PagesPerSite: 200, NoFaults: true, LogLimit: 1 << 16})
	reqs := benchRequests(w)
	b.ReportAllocs()
	b.ResetTimer()
	var bytes int64
	for i := 0; b.Loop(); i++ {
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, reqs[i%len(reqs)])
		bytes += int64(rec.Body.Len())
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(bytes)/float64(b.N), "B/page")
}

// BenchmarkServeParallel is BenchmarkServe from GOMAXPROCS goroutines.
func BenchmarkServeParallel(b *testing.B) {
	w := New(Config{Sites: 100, PagesPerSite: 200, NoFaults: true, LogLimit: 1 << 16})
	reqs := benchRequests(w)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			w.ServeHTTP(httptest.NewRecorder(), reqs[i%len(reqs)])
			i += 7
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkNew measures building the 20,000-page benchmark web.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New(Config{Sites: 100, PagesPerSite: 200})
	}
}

// BenchmarkAdvance measures moving a web of 30 sites (about 3,000 pages)
// on by one epoch.
func BenchmarkAdvance(b *testing.B) {
	w := New(Config{Sites: 20})
	b.ReportAllocs()
	for b.Loop() {
		w.Advance()
	}
}
