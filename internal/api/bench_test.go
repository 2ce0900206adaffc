package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/acrawler/acrawler/internal/api"
)

// BenchmarkSearchHandler measures /search served over loopback under
// concurrent load from Go clients, over a store of 3000 documents, and reports requests per
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
			loadTest(b, s, targets)
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
	loadTest(b, s, []string{"/?q=crawling"})
}

// loadTest sends GET requests for targets, in turn, to s served over
// loopback, from 4 clients per core with keep-alive connections, and
// reports requests per second.
func loadTest(b *testing.B, s http.Handler, targets []string) {
	srv := httptest.NewServer(s)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			target := targets[i%len(targets)]
			i++
			resp, err := client.Get(srv.URL + target)
			if err != nil {
				b.Error(err)
				return
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Errorf("GET %s = %d, %v", target, resp.StatusCode, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
