package sqlite_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// TestSearchTextAndAnchorsAsOneTable: the index keeps a page's text and its
// inbound anchor texts in two tables, and a search answers as one table of
// the three columns would: the same matches, in the same order when read
// in key order, with FTS5's bm25 scores of that one table. The pages'
// words are drawn so that queries find pages through their text, their
// anchors or both, words of one query split between the two; excluded
// words are found in either; and thirty random queries of the same
// kinds. Links to a page arrive before and after it is indexed, and the
// rank pass rewrites the anchors that changed.
func TestSearchTextAndAnchorsAsOneTable(t *testing.T) {
	defer sqlite.SetSearchLimitsForTest(5000, 10, 60, 60, 10)()
	ctx := context.Background()
	c := newSearchCorpus(t, 0)
	c.links = map[string][]crawl.Link{}
	rng := rand.New(rand.NewPCG(7, 8))
	vocab := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "alphabet"}
	words := func(lo, hi int) string {
		var w []string
		for range lo + rng.IntN(hi-lo+1) {
			w = append(w, vocab[rng.IntN(len(vocab))])
		}
		return strings.Join(w, " ")
	}
	const n = 120
	var pages []*crawl.Page
	for i := range n {
		u := fmt.Sprintf("http://h%d.test/split/%d", i%3, i)
		pages = append(pages, &crawl.Page{URL: u, Title: words(0, 2), Text: "page " + words(0, 6)})
	}
	for i, p := range pages {
		for range rng.IntN(4) {
			tg := pages[rng.IntN(n)].URL
			if tg == p.URL {
				continue
			}
			c.links[p.URL] = append(c.links[p.URL], crawl.Link{TargetID: crawl.URLID(tg), Target: tg, Anchor: words(1, 2)})
		}
		_ = i
	}
	queries := []string{"alpha", "alpha beta", "gamma zeta epsilon", `"alpha beta"`, "alph*", "alpha -beta",
		"gamma -delta -zeta", "page alpha", "page -alpha", "zeta delta -gamma"}
	// And random ones: one to three terms, words, phrases of two, prefixes
	// and exclusions, at least one term positive.
	for range 30 {
		var terms []string
		for i := range 1 + rng.IntN(3) {
			w := vocab[rng.IntN(len(vocab))]
			switch r := rng.IntN(10); {
			case r == 0:
				w = `"` + w + " " + vocab[rng.IntN(len(vocab))] + `"`
			case r == 1:
				w = w[:2+rng.IntN(3)] + "*"
			case r <= 3 && i > 0:
				w = "-" + w
			}
			terms = append(terms, w)
		}
		queries = append(queries, strings.Join(terms, " "))
	}
	check := func(stage string) {
		t.Helper()
		for _, q := range queries {
			want, err := c.db.BM25ForTest(ctx, query.Parse(q).FTS5())
			if err != nil {
				t.Fatal(err)
			}
			res := c.search(t, crawl.SearchRequest{Query: q, Limit: n})
			if res.Total != len(want) || len(res.Hits) != len(want) {
				t.Errorf("%s: %q: %d matches, %d hits; one table matches %d", stage, q, res.Total, len(res.Hits), len(want))
			}
			for i, h := range res.Hits {
				w, ok := want[h.ID]
				if !ok || math.Abs(h.Score-w) > 1e-9*math.Max(1, math.Abs(w)) || i > 0 && h.Score > res.Hits[i-1].Score {
					t.Errorf("%s: %q: hit %d %s scores %v; one table: %v (matched %v)", stage, q, i, h.URL, h.Score, w, ok)
				}
			}
			// The first matches in key order, as the sample of a large
			// result set reads them.
			keys := slices.Collect(func(yield func(crawl.ID) bool) {
				for id := range want {
					if !yield(id) {
						return
					}
				}
			})
			slices.SortFunc(keys, func(a, b crawl.ID) int {
				return cmp.Compare(sqlite.FTSKeyForTest(a), sqlite.FTSKeyForTest(b))
			})
			for _, limit := range []int{1, 3, 7, 0} {
				got, err := c.db.MatchesForTest(ctx, q, limit)
				if err != nil {
					t.Fatal(err)
				}
				w := keys
				if limit > 0 {
					w = keys[:min(limit, len(keys))]
				}
				if !slices.Equal(got, w) {
					t.Errorf("%s: %q: first %d matches %v, want %v", stage, q, limit, got, w)
				}
			}
		}
	}
	// Half the pages, then the rest: links to the first half arrive
	// after they were indexed.
	c.commit(t, pages[:n/2]...)
	check("half indexed")
	c.commit(t, pages[n/2:]...)
	check("all indexed")
	if err := c.db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	check("after the rank pass")
}

// TestPhrasePagesOverBothTables: a word's number of pages, for bm25, is
// those whose text holds it plus those whose anchors alone do: exact when
// its anchor rows are at most the sample, else the text's count plus the
// anchors' scaled by the share of anchors-alone pages among the first of
// its anchor rows in key order.
func TestPhrasePagesOverBothTables(t *testing.T) {
	ctx := context.Background()
	c := newSearchCorpus(t, 0)
	c.links = map[string][]crawl.Link{}
	const n = 90
	var pages []*crawl.Page
	inText, inAnchors := map[crawl.ID]bool{}, map[crawl.ID]bool{}
	for i := range n {
		u := fmt.Sprintf("http://h%d.test/pp/%d", i%3, i)
		text := "page filler"
		if i%3 == 0 {
			text += " alpha"
			inText[crawl.URLID(u)] = true
		}
		pages = append(pages, &crawl.Page{URL: u, Title: "t", Text: text})
	}
	// Anchors holding alpha on every other page, from the page before.
	for i := 1; i < n; i++ {
		anchor := "link"
		if i%2 == 0 {
			anchor = "alpha link"
			inAnchors[crawl.URLID(pages[i].URL)] = true
		}
		c.links[pages[i-1].URL] = append(c.links[pages[i-1].URL], crawl.Link{TargetID: crawl.URLID(pages[i].URL), Target: pages[i].URL, Anchor: anchor})
	}
	c.commit(t, pages...)
	if err := c.db.SetRanks(ctx, nil); err != nil {
		t.Fatal(err)
	}
	union := 0
	var anchorKeys []crawl.ID
	for _, p := range pages {
		id := crawl.URLID(p.URL)
		if inText[id] || inAnchors[id] {
			union++
		}
		if inAnchors[id] {
			anchorKeys = append(anchorKeys, sqlite.FTSKeyForTest(id))
		}
	}
	slices.Sort(anchorKeys)
	for _, sample := range []int{500, len(anchorKeys), 10, 3} {
		got, err := c.db.PhrasePagesForTest(ctx, "alpha", sample)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(union)
		if sample < len(anchorKeys) {
			alone := 0
			for _, k := range anchorKeys[:sample] {
				for id := range inAnchors {
					if sqlite.FTSKeyForTest(id) == k && !inText[id] {
						alone++
					}
				}
			}
			want = math.Round(float64(len(inText)) + float64(len(anchorKeys))*float64(alone)/float64(sample))
		}
		if float64(got) != want {
			t.Errorf("sample %d: alpha in %d pages, want %v (%d in text, %d in anchors, %d in either)", sample, got, want, len(inText), len(anchorKeys), union)
		}
	}
}
