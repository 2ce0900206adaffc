package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/pdf"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// worksStore is a store that keeps works.
type worksStore interface {
	Store
	crawl.WorkStore
	crawl.PageStore
	Close() error
}

// TestWorksOfTheTestWeb crawls the whole test web (PDFs read) into each
// backend and measures the works the store made against the web's truth
// (testweb.Papers): pairwise precision and recall over the recorded
// copies, both at least 0.98, and no work holding copies of two papers.
func TestWorksOfTheTestWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel() // beside the store-outage stops, which wait out their grace
	web := testweb.New(testweb.Config{Seed: 11, PagesPerSite: 20, NoFaults: true})
	ext := testPDF(t)
	backends := []struct {
		name string
		open func(t *testing.T, tc *testCrawl) worksStore
	}{
		{"sqlite", func(t *testing.T, tc *testCrawl) worksStore { return tc.open() }},
		{"postgres", func(t *testing.T, tc *testCrawl) worksStore {
			dsn, schema := pgtest.Schema(t)
			st, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			tc := newTestCrawl(t, web.ServeHTTP, web.Seeds()...)
			tc.cfg.PDF = ext
			tc.cfg.Workers = 8
			// Politeness is not what this measures: the robots.txt
			// Crawl-delays (up to 1s a request) would only add waiting.
			tc.cfg.Frontier.MaxCrawlDelay = time.Millisecond
			st := be.open(t, tc)
			e, err := New(st, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			if _, err := e.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if ctx.Err() != nil {
				t.Fatal("the crawl did not end within 5 minutes")
			}
			m := measureWorks(t, st, web, tc)
			t.Logf("%s", m)
			if m.precision() < 0.98 || m.recall() < 0.98 || len(m.mixed) > 0 {
				t.Errorf("clustering below the mark: %s", m)
			}
			if m.papersFull == 0 {
				t.Errorf("no paper was recorded as landing page, PDF, repository copy and preprint: %s", m)
			}
		})
	}
}

// testPDF is the PDF extractor, its compiled module cached where the
// program caches it.
func testPDF(t *testing.T) *pdf.Extractor {
	x, err := pdf.New(context.Background(), pdf.Options{CacheDir: pdf.DefaultCacheDir()})
	if err != nil {
		t.Fatalf("PDF extraction: %v", err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// worksMeasure is how the works of a crawl compare with the truth.
type worksMeasure struct {
	copies     int // recorded copies that are copies of a paper
	unknown    int // recorded copies of no paper of the truth
	missed     int // recorded landing pages and PDFs of papers that are in no work
	works      int
	papers     int      // papers with at least one recorded copy
	truth      int      // papers of the web
	papersFull int      // papers recorded as landing page, PDF, repository copy and preprint, all in one work
	tp, fp, fn int      // pairs of copies
	mixed      []string // works holding copies of two papers
}

func (m worksMeasure) precision() float64 { return ratio(m.tp, m.tp+m.fp) }
func (m worksMeasure) recall() float64    { return ratio(m.tp, m.tp+m.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (m worksMeasure) String() string {
	return fmt.Sprintf("precision %.4f recall %.4f (pairs: %d true, %d false, %d missed); %d copies of %d papers (of %d) in %d works, %d papers whole; %d copies of no paper; %d landing pages and PDFs in no work; mixed works %q",
		m.precision(), m.recall(), m.tp, m.fp, m.fn, m.copies, m.papers, m.truth, m.works, m.papersFull, m.unknown, m.missed, m.mixed)
}

func measureWorks(t *testing.T, st worksStore, web *testweb.Web, tc *testCrawl) worksMeasure {
	t.Helper()
	ctx := context.Background()
	var m worksMeasure
	paperOf := map[crawl.ID]string{} // copy page → paper ID
	urlOf := map[crawl.ID]string{}
	for _, p := range web.Papers() {
		m.truth++
		for _, u := range p.URLs {
			n, err := tc.cfg.Normalizer.Normalize(u)
			if err != nil {
				t.Fatal(err)
			}
			paperOf[crawl.URLID(n)], urlOf[crawl.URLID(n)] = p.ID, u
		}
	}
	workOf := map[crawl.ID]int64{}
	for w, err := range st.Works(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		m.works++
		papers := map[string]bool{}
		for _, c := range w.Copies {
			workOf[c.PageID] = w.ID
			if p, ok := paperOf[c.PageID]; ok {
				papers[p] = true
				m.copies++
			} else {
				m.unknown++
				t.Logf("work %d: copy %s is a copy of no paper", w.ID, c.URL)
			}
		}
		if len(papers) > 1 {
			var ps []string
			for p := range papers {
				ps = append(ps, p)
			}
			sort.Strings(ps)
			m.mixed = append(m.mixed, fmt.Sprintf("work %d: %v", w.ID, ps))
		}
	}
	// Pairs over the copies of papers that the store recorded as copies.
	var ids []crawl.ID
	for id := range paperOf {
		if _, ok := workOf[id]; ok {
			ids = append(ids, id)
			continue
		}
		// A landing page or PDF recorded as a page but in no work is a
		// copy the clustering missed.
		if p, err := st.Page(ctx, id); err == nil && p.Status == 200 {
			if info, _ := web.Lookup(urlOf[id]); info.Kind == "publication" || info.Kind == "pdf" {
				m.missed++
				t.Logf("%s (%s) recorded in no work", urlOf[id], info.Kind)
			}
		} else if err != nil && !errors.Is(err, crawl.ErrNotFound) {
			t.Fatal(err)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	papers := map[string]map[int64]bool{}
	for i, a := range ids {
		if papers[paperOf[a]] == nil {
			papers[paperOf[a]] = map[int64]bool{}
		}
		papers[paperOf[a]][workOf[a]] = true
		for _, b := range ids[i+1:] {
			samePaper, sameWork := paperOf[a] == paperOf[b], workOf[a] == workOf[b]
			switch {
			case samePaper && sameWork:
				m.tp++
			case sameWork:
				m.fp++
			case samePaper:
				m.fn++
			}
		}
	}
	m.papers = len(papers)
	for _, p := range web.Papers() {
		kinds := map[string]bool{}
		works := map[int64]bool{}
		for _, u := range p.URLs {
			n, _ := tc.cfg.Normalizer.Normalize(u)
			w, err := st.WorkOf(ctx, crawl.URLID(n))
			if err != nil {
				continue
			}
			works[w.ID] = true
			for _, c := range w.Copies {
				if c.PageID == crawl.URLID(n) {
					kinds[c.Kind] = true
				}
			}
		}
		if len(works) == 1 && kinds["landing"] && kinds["pdf"] && kinds["repository"] && kinds["preprint"] {
			m.papersFull++
		}
	}
	return m
}
