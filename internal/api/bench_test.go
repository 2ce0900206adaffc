package api_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/acrawler/acrawler/internal/api"
)

// BenchmarkSearchHandler measures /search answered by the handler under
// concurrent load, over a store of 3000 documents, and reports requests per
// second. "mixed" queries mix words that nearly every document holds,
// phrases, prefixes, filters and pages; "rare" queries match a few dozen
// documents each, so that the handler's own cost shows more.
func BenchmarkSearchHandler(b *testing.B) {
	st := fill(b, bigCorpus(3000), nil)
	s, err := api.New(api.Config{Backend: api.StoreBackend(st, 0)})
	if err != nil {
		b.Fatal(err)
	}
	mixed := []url.Values{
		{"q": {"crawling"}},
		{"q": {"quantum protein"}},
		{"q": {`"neural network"`}},
		{"q": {"clim*"}},
		{"q": {"term42"}},
		{"q": {"science -physics"}},
		{"q": {"graph"}, "type": {"thesis"}},
		{"q": {"data"}, "year_from": {"2000"}, "year_to": {"2010"}},
		{"q": {"model"}, "host": {"https://host3.example.edu"}},
		{"q": {"energy"}, "offset": {"40"}, "limit": {"20"}},
	}
	var rare []url.Values
	for i := range 50 {
		rare = append(rare, url.Values{"q": {"term" + strconv.Itoa(i*97)}})
	}
	for _, bc := range []struct {
		name    string
		queries []url.Values
	}{{"mixed", mixed}, {"rare", rare}} {
		b.Run(bc.name, func(b *testing.B) {
			targets := make([]string, len(bc.queries))
			for i, q := range bc.queries {
				targets[i] = "/search?" + q.Encode()
				w := httptest.NewRecorder()
				s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, targets[i], nil))
				if w.Code != http.StatusOK {
					b.Fatalf("GET %s = %d %s", targets[i], w.Code, w.Body)
				}
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					w := httptest.NewRecorder()
					s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, targets[i%len(targets)], nil))
					if w.Code != http.StatusOK {
						b.Errorf("GET %s = %d", targets[i%len(targets)], w.Code)
						return
					}
					i++
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkSearchPage measures the HTML search page, facets and all.
func BenchmarkSearchPage(b *testing.B) {
	st := fill(b, bigCorpus(3000), nil)
	s, err := api.New(api.Config{Backend: api.StoreBackend(st, 0)})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/?q=crawling", nil))
			if w.Code != http.StatusOK {
				b.Errorf("GET /?q=crawling = %d", w.Code)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
