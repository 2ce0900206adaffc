package engine

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// preparingStore is a store that prepares results (resultPreparer) and
// checks, at commit, which results arrive prepared.
type preparingStore struct {
	crawl.Store
	mu                   sync.Mutex
	prepared, unprepared []string // the pages committed with and without their preparation
	extra                []string // results prepared that have no page
}

type preparation struct{ url string }

func (s *preparingStore) PrepareResult(r *crawl.Result) {
	if r.Page == nil {
		s.mu.Lock()
		s.extra = append(s.extra, r.URL.URL)
		s.mu.Unlock()
		return
	}
	r.Prepared = preparation{r.URL.URL}
}

func (s *preparingStore) Commit(ctx context.Context, results []crawl.Result, lim crawl.Limits) (crawl.CommitStats, error) {
	s.mu.Lock()
	for _, r := range results {
		switch {
		case r.Page == nil:
		case r.Prepared == preparation{r.URL.URL}:
			s.prepared = append(s.prepared, r.URL.URL)
		default:
			s.unprepared = append(s.unprepared, r.URL.URL)
		}
	}
	s.mu.Unlock()
	return s.Store.Commit(ctx, results, lim)
}

// A store that prepares results gets every fetched page's result to
// prepare before its commit, and only those.
func TestResultsPrepared(t *testing.T) {
	t.Parallel()
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			html(rw, `<a href="/a">a</a> <a href="/b">b</a> <a href="/missing">gone</a>`)
		case "/a", "/b":
			html(rw, `a page`)
		default:
			http.NotFound(rw, r)
		}
	}, "http://a.test/")
	tc.cfg.NoSitemaps = true
	st := &preparingStore{Store: tc.open()}
	tc.crawlOn(st, 20*time.Second)
	if len(st.prepared) != 4 || len(st.unprepared) != 0 || len(st.extra) != 0 {
		t.Errorf("committed prepared %v, unprepared %v; prepared without a page %v; want the 4 pages (404 included) prepared",
			st.prepared, st.unprepared, st.extra)
	}
	if p := tc.page("http://a.test/b"); p == nil || p.Status != 200 {
		t.Errorf("/b recorded as %+v", p)
	}
}
