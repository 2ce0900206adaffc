package sqlite_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/indextest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestIndexConformanceFTS5 runs the index conformance suite on the FTS5
// engine (TestIndexConformance runs it on the default, the segments).
func TestIndexConformanceFTS5(t *testing.T) {
	indextest.Run(t, indextest.Features{Folding: true}, func(t *testing.T) crawl.Index {
		db, err := sqlite.Open(context.Background(), migratedFile(t), sqlite.Options{Engine: sqlite.EngineFTS5})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return storetest.EmbeddedIndex(db)
	})
}

// engineWords is the vocabulary of the engines' comparison: no word is in
// more than about a sixth of the pages, below the share (60%) above which
// the FTS5 engine leaves a word out of the ranking, so that both rank by
// the same bm25.
var engineWords = func() []string {
	var out []string
	for i := range 400 {
		out = append(out, fmt.Sprintf("w%03d", i))
	}
	return append(out, "Ünïcode", "deep", "learning", "learned", "learner", "graph", "graphs", "graphical", "protein", "proteins", "proteome", "folding")
}()

// enginePage is page i of the comparison's web, as written at version v.
func enginePage(r *rand.Rand, i, v int) *crawl.Page {
	words := func(n int) string {
		ws := make([]string, n)
		for j := range ws {
			ws[j] = engineWords[r.IntN(len(engineWords))]
		}
		return strings.Join(ws, " ")
	}
	p := &crawl.Page{URL: fmt.Sprintf("http://h%d.test/p/%d", i%5, i), Title: words(2 + r.IntN(5)), Text: words(10 + r.IntN(70))}
	if v > 0 {
		p.Text += " revised"
	}
	if i%3 != 0 {
		p.Meta = &crawl.Metadata{Type: []string{"article", "thesis", "dataset"}[i%3], Year: 1995 + r.IntN(30)}
	}
	return p
}

// TestEnginesAgree writes the same crawl into a store of each engine and
// asks both the same searches (by page and by work, with and without
// the link-graph rank): the segments engine must give the same
// totals, facets, hits and scores as FTS5, as pages are committed, after
// the rank pass refreshed their anchor texts, after pages changed and
// went, with an index delay, and once opened again; and with segments
// built from a few documents each, so that a transaction's segments are
// built while it goes on, and written early when it writes one of their
// documents again.
func TestEnginesAgree(t *testing.T) {
	for _, delay := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprintf("delay=%s", delay), func(t *testing.T) {
			testEnginesAgree(t, delay)
		})
	}
	t.Run("small segments", func(t *testing.T) {
		defer sqlite.SetSegmentFlushForTest(2000)()
		for _, delay := range []time.Duration{0, time.Hour} {
			testEnginesAgree(t, delay)
		}
	})
}

func testEnginesAgree(t *testing.T, delay time.Duration) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(engine string) *searchCorpus {
		db, err := sqlite.Open(ctx, filepath.Join(dir, engine+".db"), sqlite.Options{Engine: engine, IndexDelay: delay})
		if err != nil {
			t.Fatal(err)
		}
		return &searchCorpus{db: db, pages: map[string]*crawl.Page{}, links: map[string][]crawl.Link{}}
	}
	fts, segs := open(sqlite.EngineFTS5), open(sqlite.EngineSegments)
	defer func() { fts.db.Close(); segs.db.Close() }()

	const n = 600
	r := rand.New(rand.NewPCG(7, uint64(delay)))
	var pages []*crawl.Page
	for i := range n {
		p := enginePage(r, i, 0)
		pages = append(pages, p)
		for range 4 {
			j := r.IntN(n)
			target := fmt.Sprintf("http://h%d.test/p/%d", j%5, j)
			l := crawl.Link{Target: target, TargetID: crawl.URLID(target), Anchor: engineWords[r.IntN(len(engineWords))] + " " + engineWords[r.IntN(len(engineWords))]}
			fts.links[p.URL] = append(fts.links[p.URL], l)
			segs.links[p.URL] = append(segs.links[p.URL], l)
		}
	}
	qr := rand.New(rand.NewPCG(8, 0))
	var queries []crawl.SearchRequest
	for i := range 150 {
		w := func() string { return engineWords[qr.IntN(len(engineWords))] }
		q := crawl.SearchRequest{Limit: 10}
		switch i % 6 {
		case 0:
			q.Query = w()
		case 1:
			q.Query = w() + " " + w()
		case 2:
			q.Query = []string{"learn*", "graph*", "prot*", "fold*", w() + "*"}[i%5]
		case 3:
			q.Query = w() + " -" + w()
		case 4:
			// A phrase: two words of a page's text in a row.
			ws := strings.Fields(pages[qr.IntN(n)].Text)
			j := qr.IntN(len(ws) - 1)
			q.Query = `"` + ws[j] + " " + ws[j+1] + `"`
		case 5:
			q.Query = w() + " " + []string{"learn*", "graph*", "prot*"}[i%3]
		}
		switch i % 5 {
		case 1:
			q.Host = fmt.Sprintf("h%d.test", i%5)
		case 2:
			q.Type = "thesis"
		case 3:
			q.YearFrom, q.YearTo = 2000, 2015
		case 4:
			q.Offset = 10
		}
		if i%4 == 0 {
			q.PageRankWeight = 0.5
		}
		q.ByWork = i%7 < 2
		queries = append(queries, q)
	}
	queries = append(queries, crawl.SearchRequest{Query: "unicode", Limit: 50}, crawl.SearchRequest{Query: "deep learning", Limit: 1000})
	compare := func(stage string, fts, segs *sqlite.DB) {
		t.Helper()
		matched := 0
		for _, q := range queries {
			want, err := fts.Search(ctx, q)
			if err != nil {
				t.Fatalf("%s: FTS5: Search(%+v): %v", stage, q, err)
			}
			got, err := segs.Search(ctx, q)
			if err != nil {
				t.Fatalf("%s: segments: Search(%+v): %v", stage, q, err)
			}
			if msg := sameResults(got, want); msg != "" {
				t.Fatalf("%s: Search(%+v): %s", stage, q, msg)
			}
			if len(want.Hits) > 0 {
				matched++
			}
		}
		if matched < len(queries)/2 {
			t.Fatalf("%s: %d of %d searches found anything", stage, matched, len(queries))
		}
	}
	for i := 0; i < n; i += 100 {
		fts.commit(t, pages[i:i+100]...)
		segs.commit(t, pages[i:i+100]...)
	}
	if delay == 0 {
		compare("committed", fts.db, segs.db)
	}

	// The rank pass: anchor texts refreshed, ranks for the blend.
	ranks := map[crawl.ID]float64{}
	for i, p := range pages {
		ranks[crawl.URLID(p.URL)] = float64(i%17) / 10
	}
	for _, c := range []*searchCorpus{fts, segs} {
		if err := c.db.RefreshAnchors(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.db.SetRanks(ctx, ranks); err != nil {
			t.Fatal(err)
		}
	}
	compare("ranked", fts.db, segs.db)

	// A fifth of the pages change, a tenth are gone.
	var changed []*crawl.Page
	for i := 0; i < n; i += 5 {
		p := enginePage(r, i, 1)
		if i%10 == 0 {
			p.Status = 410
		}
		changed = append(changed, p)
	}
	fts.commit(t, changed...)
	segs.commit(t, changed...)
	for _, c := range []*searchCorpus{fts, segs} {
		if err := c.db.SetRanks(ctx, ranks); err != nil {
			t.Fatal(err)
		}
	}
	compare("changed", fts.db, segs.db)
	// The comparison covered segments merged into others (without a
	// delay, where each commit writes a segment).
	if levels, err := segs.db.SegmentsForTest(ctx); err != nil || levels[0]+levels[1] == 0 || delay == 0 && levels[-1] == 0 {
		t.Fatalf("segments by level (retired at -1): %v, %v; want merged segments and others", levels, err)
	}

	// A reader of its own, as serve opens the file, and the store opened
	// again: views made from the file, not from the writes.
	ro, err := sqlite.Open(ctx, filepath.Join(dir, sqlite.EngineSegments+".db"), sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	compare("read-only", fts.db, ro)
	segs.db.Close()
	if segs.db, err = sqlite.Open(ctx, filepath.Join(dir, sqlite.EngineSegments+".db"), sqlite.Options{IndexDelay: delay}); err != nil {
		t.Fatal(err)
	}
	compare("opened again", fts.db, segs.db)
}

// sameResults describes how got differs from want, or returns "".
func sameResults(got, want crawl.SearchResult) string {
	if got.Total != want.Total || got.Estimated != want.Estimated {
		return fmt.Sprintf("total %d (estimated %v), want %d (%v)", got.Total, got.Estimated, want.Total, want.Estimated)
	}
	if fmt.Sprint(got.Facets) != fmt.Sprint(want.Facets) {
		return fmt.Sprintf("facets %v, want %v", got.Facets, want.Facets)
	}
	urls := func(r crawl.SearchResult) []string {
		var out []string
		for _, h := range r.Hits {
			out = append(out, h.URL)
		}
		return out
	}
	if !slices.Equal(urls(got), urls(want)) {
		return fmt.Sprintf("hits %v, want %v", urls(got), urls(want))
	}
	for i, h := range got.Hits {
		w := want.Hits[i]
		// FTS5's engine leaves a phrase in more than 60% of the pages out
		// of its ranking, where bm25 weighs it 1e-6: a score differs by
		// less than 1e-5 for it (prefixes of one letter or two here).
		if math.Abs(h.Score-w.Score) > 1e-5 || h.Snippet != w.Snippet || h.Title != w.Title {
			return fmt.Sprintf("hit %d: %s scored %v with snippet %q, want %v and %q", i, h.URL, h.Score, h.Snippet, w.Score, w.Snippet)
		}
	}
	return ""
}

// TestEngineChange: a database keeps its engine when opened without one;
// asked for the other, it gets it with its index rebuilt, and finds what
// it found; a reader cannot change it, and an unknown engine is refused.
func TestEngineChange(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "c.db")
	db, err := sqlite.Open(ctx, file, sqlite.Options{Engine: sqlite.EngineFTS5})
	if err != nil {
		t.Fatal(err)
	}
	c := &searchCorpus{db: db, pages: map[string]*crawl.Page{}}
	r := rand.New(rand.NewPCG(3, 4))
	var pages []*crawl.Page
	for i := range 60 {
		pages = append(pages, enginePage(r, i, 0))
	}
	c.commit(t, pages...)
	q := crawl.SearchRequest{Query: "learn*", Limit: 100}
	want := c.search(t, q)
	if want.Total == 0 {
		t.Fatal("the corpus does not match the query")
	}
	db.Close()
	for _, step := range []struct {
		opts    sqlite.Options
		engine  string
		refused bool
	}{
		{sqlite.Options{}, sqlite.EngineFTS5, false},
		{sqlite.Options{ReadOnly: true, Engine: sqlite.EngineSegments}, "", true},
		{sqlite.Options{Engine: "lucene"}, "", true},
		{sqlite.Options{Engine: sqlite.EngineSegments}, sqlite.EngineSegments, false},
		{sqlite.Options{}, sqlite.EngineSegments, false},
		{sqlite.Options{ReadOnly: true}, sqlite.EngineSegments, false},
		{sqlite.Options{Engine: sqlite.EngineFTS5}, sqlite.EngineFTS5, false},
	} {
		db, err := sqlite.Open(ctx, file, step.opts)
		if step.refused {
			if err == nil {
				db.Close()
				t.Fatalf("Open(%+v) was not refused", step.opts)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Open(%+v): %v", step.opts, err)
		}
		got, err := db.Search(ctx, q)
		engine := db.EngineForTest()
		db.Close()
		if err != nil || engine != step.engine || got.Total != want.Total || fmt.Sprint(got.Facets) != fmt.Sprint(want.Facets) {
			t.Fatalf("Open(%+v): engine %s, %d matches (%v), want %s and %d", step.opts, engine, got.Total, err, step.engine, want.Total)
		}
	}
}

// TestSearchesWhileCommitting: searches of the segments engine run while
// commits add pages and merge segments; each sees a whole generation of
// the index (a total that never falls and never counts a page twice), and
// the last finds every page.
func TestSearchesWhileCommitting(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := &searchCorpus{db: db, pages: map[string]*crawl.Page{}}
	const batches, size = 12, 25
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			last := 0
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				res, err := db.Search(ctx, crawl.SearchRequest{Query: "common", Limit: 5})
				if err == nil && (res.Total < last || res.Total > batches*size) {
					err = fmt.Errorf("total %d after %d", res.Total, last)
				}
				if err != nil {
					errs <- err
					return
				}
				last = res.Total
			}
		}()
	}
	for b := range batches {
		var pages []*crawl.Page
		for i := range size {
			n := b*size + i
			pages = append(pages, &crawl.Page{URL: docURL(n), Title: fmt.Sprintf("Page %d", n), Text: "Some common text."})
		}
		c.commit(t, pages...)
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if res, err := db.Search(ctx, crawl.SearchRequest{Query: "common"}); err != nil || res.Total != batches*size {
		t.Fatalf("after the commits: %d matches, %v; want %d", res.Total, err, batches*size)
	}
	if levels, err := db.SegmentsForTest(ctx); err != nil || levels[-1] == 0 {
		t.Fatalf("segments by level (retired at -1): %v, %v; want merged segments", levels, err)
	}
}
