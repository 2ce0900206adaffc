// Package indextest is the conformance suite of search indexes: Run puts
// the same documents in a crawl.Index and asks it the same searches,
// whatever answers them: OpenSearch, or a store's embedded index written
// through the store's commit path (storetest.EmbeddedIndex).
//
// What every index promises: a word finds the documents holding it in
// their title or text, in any case and, where the index folds (Features),
// without diacritics; phrases, prefixes and exclusions; filters on host,
// type, language and year; facets counting all matches; pages of results
// that do not overlap; a title match ranked above a text match; snippets
// as plain text in the page's own spelling, with the byte ranges of the
// matched words; a query too broad to answer refused with
// query.ErrTooBroad; upserts that replace and deletes that remove.
package indextest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// Features says what an index does beyond what every index must.
type Features struct {
	// Folding: a query word without diacritics, ligatures or special
	// letters finds them ("zoe" finds "Zoë", "strasse" "Straße"), as
	// query.Fold folds.
	Folding bool
}

// Run runs the suite; open returns an empty index for each test.
func Run(t *testing.T, f Features, open func(t *testing.T) crawl.Index) {
	tests := []struct {
		name string
		fn   func(t *testing.T, x *env)
	}{
		{"Words", testWords},
		{"Fields", testFields},
		{"PhrasePrefixExclusion", testOperators},
		{"Filters", testFilters},
		{"Facets", testFacets},
		{"Paging", testPaging},
		{"TitleRanksFirst", testTitleFirst},
		{"PageRankBoost", testPageRank},
		{"Snippets", testSnippets},
		{"TooBroad", testTooBroad},
		{"UpsertReplaces", testReplace},
		{"Delete", testDelete},
	}
	if f.Folding {
		tests = append(tests, struct {
			name string
			fn   func(t *testing.T, x *env)
		}{"Folding", testFolding})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			x := &env{t: t, ctx: ctx, idx: open(t)}
			tc.fn(t, x)
		})
	}
}

type env struct {
	t   *testing.T
	ctx context.Context
	idx crawl.Index
}

func (x *env) upsert(docs ...crawl.Document) {
	x.t.Helper()
	if err := x.idx.Upsert(x.ctx, docs); err != nil {
		x.t.Fatalf("Upsert(%d documents): %v", len(docs), err)
	}
}

func (x *env) search(r crawl.SearchRequest) crawl.SearchResult {
	x.t.Helper()
	res, err := x.idx.Search(x.ctx, r)
	if err != nil {
		x.t.Fatalf("Search(%+v): %v", r, err)
	}
	checkHits(x.t, r, res)
	return res
}

// urls returns the URLs a search finds, sorted.
func (x *env) urls(r crawl.SearchRequest) []string {
	x.t.Helper()
	if r.Limit == 0 {
		r.Limit = 100
	}
	res := x.search(r)
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.URL)
	}
	sort.Strings(out)
	if res.Total != len(out) {
		x.t.Errorf("Search(%+v): total %d for %d hits", r, res.Total, len(out))
	}
	return out
}

// checkHits checks what every hit promises: a plain-text snippet whose
// marks are ordered ranges of it, at character boundaries.
func checkHits(t *testing.T, r crawl.SearchRequest, res crawl.SearchResult) {
	t.Helper()
	for _, h := range res.Hits {
		if h.ID != crawl.URLID(h.URL) {
			t.Errorf("Search(%q): hit %s has ID %d, want its URL ID", r.Query, h.URL, h.ID)
		}
		for _, s := range []struct {
			what  string
			text  string
			marks [][2]int
		}{{"snippet", h.Snippet, h.Marks}, {"title", h.Title, h.TitleMarks}} {
			if strings.Contains(s.text, "<mark>") || strings.ContainsAny(s.text, "\x01\x02") {
				t.Errorf("Search(%q): %s of %s = %q: markup, not plain text", r.Query, s.what, h.URL, s.text)
			}
			end := 0
			for _, m := range s.marks {
				if m[0] < end || m[1] <= m[0] || m[1] > len(s.text) || !boundary(s.text, m[0]) || !boundary(s.text, m[1]) {
					t.Errorf("Search(%q): %s of %s = %q marked %v: not ordered ranges of it", r.Query, s.what, h.URL, s.text, s.marks)
					break
				}
				end = m[1]
			}
		}
	}
}

func boundary(s string, i int) bool { return i == len(s) || s[i]&0xC0 != 0x80 }

func eq(a, b []string) bool { return slices.Equal(a, b) }

// corpus is the documents most tests search.
var corpus = []crawl.Document{
	{ID: "d1", URL: "http://a.test/gnn", Title: "Graph neural networks", Host: "http://a.test", Type: "article", Lang: "en",
		DOI: "10.1000/gnn", Authors: []string{"Ada Lovelace", "Alan Turing"}, Year: 2021,
		Text: "We survey deep learning on graphs: message passing, pooling and spectral methods."},
	{ID: "d2", URL: "http://a.test/crawl", Title: "Focused crawling", Host: "http://a.test", Type: "thesis", Lang: "en", Year: 2019,
		Text: "A focused crawler fetches pages about one topic; deep pages need learning of link priorities."},
	{ID: "d3", URL: "http://b.test/ogrenme", Title: "Derin öğrenme notları", Host: "http://b.test", Type: "article", Lang: "tr", Year: 2021,
		Text: "Bu notlar deep learning yöntemlerini ve çizge yapılarını anlatır."},
	{ID: "d4", URL: "http://b.test/people", Title: "People", Host: "http://b.test", Lang: "en",
		Text: "The group studies crawling, ranking and retrieval at scale."},
}

func testWords(t *testing.T, x *env) {
	x.upsert(corpus...)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"learning", []string{"http://a.test/crawl", "http://a.test/gnn", "http://b.test/ogrenme"}},
		{"LEARNING Deep", []string{"http://a.test/crawl", "http://a.test/gnn", "http://b.test/ogrenme"}},
		{"crawling", []string{"http://a.test/crawl", "http://b.test/people"}},
		{"spectral", []string{"http://a.test/gnn"}},
		{"öğrenme", []string{"http://b.test/ogrenme"}},
		{"nowhere", nil},
		{"", nil},
		{"-learning", nil},
	} {
		if got := x.urls(crawl.SearchRequest{Query: tc.q}); !eq(got, tc.want) {
			t.Errorf("Search(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

// testFields: a hit carries the document's fields.
func testFields(t *testing.T, x *env) {
	fetched := time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC)
	d := corpus[0]
	d.FetchedAt = fetched
	x.upsert(d)
	res := x.search(crawl.SearchRequest{Query: "spectral"})
	if len(res.Hits) != 1 {
		t.Fatalf("Search(spectral) = %d hits, want 1", len(res.Hits))
	}
	h := res.Hits[0]
	if h.URL != d.URL || h.Title != d.Title || h.Host != d.Host || h.Type != d.Type || h.Lang != d.Lang || h.DOI != d.DOI ||
		!slices.Equal(h.Authors, d.Authors) || h.Year != d.Year || !h.FetchedAt.Equal(fetched) || h.Score <= 0 {
		t.Errorf("hit = %+v, want the fields of %+v", h, d)
	}
}

func testOperators(t *testing.T, x *env) {
	x.upsert(corpus...)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{`"deep learning"`, []string{"http://a.test/gnn", "http://b.test/ogrenme"}},
		{`"learning deep"`, nil},
		{"learning -graphs", []string{"http://a.test/crawl", "http://b.test/ogrenme"}},
		{`learning -"deep pages"`, []string{"http://a.test/gnn", "http://b.test/ogrenme"}},
		{"crawl*", []string{"http://a.test/crawl", "http://b.test/people"}},
		{"spectr*", []string{"http://a.test/gnn"}},
	} {
		if got := x.urls(crawl.SearchRequest{Query: tc.q}); !eq(got, tc.want) {
			t.Errorf("Search(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

func testFilters(t *testing.T, x *env) {
	x.upsert(corpus...)
	for _, tc := range []struct {
		r    crawl.SearchRequest
		want []string
	}{
		{crawl.SearchRequest{Query: "learning", Host: "http://a.test"}, []string{"http://a.test/crawl", "http://a.test/gnn"}},
		{crawl.SearchRequest{Query: "learning", Type: "article"}, []string{"http://a.test/gnn", "http://b.test/ogrenme"}},
		{crawl.SearchRequest{Query: "learning", Lang: "tr"}, []string{"http://b.test/ogrenme"}},
		{crawl.SearchRequest{Query: "learning", YearFrom: 2020}, []string{"http://a.test/gnn", "http://b.test/ogrenme"}},
		{crawl.SearchRequest{Query: "learning", YearFrom: 2015, YearTo: 2020}, []string{"http://a.test/crawl"}},
		{crawl.SearchRequest{Query: "learning", Host: "http://b.test", Type: "thesis"}, nil},
	} {
		if got := x.urls(tc.r); !eq(got, tc.want) {
			t.Errorf("Search(%+v) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

func testFacets(t *testing.T, x *env) {
	x.upsert(corpus...)
	// Facets count every match, not only the page of hits.
	res := x.search(crawl.SearchRequest{Query: "learning", Limit: 1})
	f := res.Facets
	if res.Total != 3 || len(res.Hits) != 1 {
		t.Errorf("Search(learning, limit 1) = %d hits of %d, want 1 of 3", len(res.Hits), res.Total)
	}
	if f.Host["http://a.test"] != 2 || f.Host["http://b.test"] != 1 || len(f.Host) != 2 {
		t.Errorf("host facets = %v", f.Host)
	}
	if f.Type["article"] != 2 || f.Type["thesis"] != 1 || len(f.Type) != 2 {
		t.Errorf("type facets = %v, want article 2, thesis 1 (no empty type)", f.Type)
	}
	if f.Year[2021] != 2 || f.Year[2019] != 1 || len(f.Year) != 2 {
		t.Errorf("year facets = %v", f.Year)
	}
	// Filtered: the facets of the filtered matches.
	res = x.search(crawl.SearchRequest{Query: "learning", Type: "article"})
	if res.Facets.Host["http://a.test"] != 1 || res.Facets.Host["http://b.test"] != 1 || res.Facets.Year[2019] != 0 {
		t.Errorf("facets of type:article = %+v", res.Facets)
	}
}

func testPaging(t *testing.T, x *env) {
	var docs []crawl.Document
	for i := range 25 {
		docs = append(docs, crawl.Document{ID: fmt.Sprintf("p%02d", i), URL: fmt.Sprintf("http://c.test/%02d", i), Host: "http://c.test",
			Title: fmt.Sprintf("Page %d", i), Text: strings.Repeat("common ", 1+i%5) + fmt.Sprintf("word%d", i)})
	}
	x.upsert(docs...)
	seen := map[string]bool{}
	for offset := 0; offset < 30; offset += 10 {
		res := x.search(crawl.SearchRequest{Query: "common", Limit: 10, Offset: offset})
		if res.Total != 25 {
			t.Errorf("Search(common, offset %d): total %d, want 25", offset, res.Total)
		}
		if want := min(10, 25-offset); len(res.Hits) != want {
			t.Errorf("Search(common, offset %d): %d hits, want %d", offset, len(res.Hits), want)
		}
		for i, h := range res.Hits {
			if seen[h.URL] {
				t.Errorf("Search(common, offset %d): %s on two pages", offset, h.URL)
			}
			seen[h.URL] = true
			if i > 0 && h.Score > res.Hits[i-1].Score {
				t.Errorf("Search(common, offset %d): hit %d scores %v, above the one before (%v)", offset, i, h.Score, res.Hits[i-1].Score)
			}
		}
	}
	if len(seen) != 25 {
		t.Errorf("pages of 10 found %d documents, want 25", len(seen))
	}
}

func testTitleFirst(t *testing.T, x *env) {
	x.upsert(
		crawl.Document{ID: "t1", URL: "http://a.test/body", Host: "http://a.test", Title: "Notes",
			Text: "Some notes that mention zymurgy once, among many other words about brewing and fermentation."},
		crawl.Document{ID: "t2", URL: "http://a.test/title", Host: "http://a.test", Title: "Zymurgy",
			Text: "A page about the chemistry of brewing and fermentation, with many other words."},
	)
	res := x.search(crawl.SearchRequest{Query: "zymurgy"})
	if len(res.Hits) != 2 || res.Hits[0].URL != "http://a.test/title" {
		t.Errorf("Search(zymurgy) = %+v, want the title match first", res.Hits)
	}
}

// testPageRank: with a PageRank weight, of two pages with the same text
// the better linked ranks first; the weight changes scores, not matches.
func testPageRank(t *testing.T, x *env) {
	x.upsert(
		crawl.Document{ID: "r1", URL: "http://a.test/low", Host: "http://a.test", Title: "Ranking notes",
			Text: "Notes on ranking pages by their links.", PageRank: 0.2},
		crawl.Document{ID: "r2", URL: "http://a.test/high", Host: "http://a.test", Title: "Ranking notes",
			Text: "Notes on ranking pages by their links.", PageRank: 20},
	)
	res := x.search(crawl.SearchRequest{Query: "ranking", PageRankWeight: 1})
	if len(res.Hits) != 2 || res.Hits[0].URL != "http://a.test/high" || res.Hits[0].Score <= res.Hits[1].Score {
		t.Errorf("Search(ranking, PageRank weight 1) = %+v, want the better linked page first, scoring more", res.Hits)
	}
	if res := x.search(crawl.SearchRequest{Query: "ranking"}); len(res.Hits) != 2 {
		t.Errorf("Search(ranking) without weight = %d hits, want 2", len(res.Hits))
	}
}

// marked returns the words a hit's snippet marks.
func marked(h crawl.SearchHit) []string { return crawl.Marked(h.Snippet, h.Marks) }

func testSnippets(t *testing.T, x *env) {
	x.upsert(
		crawl.Document{ID: "s1", URL: "http://a.test/text", Host: "http://a.test", Title: "Plain title",
			Text: "An introduction, then Focused Crawling by Tom & Jerry appears here, with more words after it."},
		crawl.Document{ID: "s2", URL: "http://a.test/only-title", Host: "http://a.test", Title: "Focused crawling, a survey",
			Text: "Nothing relevant here at all."},
	)
	res := x.search(crawl.SearchRequest{Query: "focused crawling"})
	if len(res.Hits) != 2 {
		t.Fatalf("Search(focused crawling) = %d hits, want 2", len(res.Hits))
	}
	for _, h := range res.Hits {
		words := marked(h)
		switch h.URL {
		case "http://a.test/text":
			// The page's own spelling, marked; the text as text.
			if !slices.Contains(words, "Focused") || !slices.Contains(words, "Crawling") || !strings.Contains(h.Snippet, "Focused Crawling by") {
				t.Errorf("snippet of the text match = %q marked %q, want Focused and Crawling marked as written", h.Snippet, words)
			}
			if !strings.Contains(h.Snippet, "Tom & Jerry") {
				t.Errorf("snippet = %q, want the text as written (Tom & Jerry), not escaped", h.Snippet)
			}
		case "http://a.test/only-title":
			// Only the title matches: the snippet is the title's.
			if !slices.Contains(words, "Focused") || !slices.Contains(words, "crawling") || !strings.Contains(h.Snippet, "survey") {
				t.Errorf("snippet of the title match = %q marked %q, want the title with its words marked", h.Snippet, words)
			}
			if words := crawl.Marked(h.Title, h.TitleMarks); h.Title != "Focused crawling, a survey" || !slices.Equal(words, []string{"Focused", "crawling"}) {
				t.Errorf("title = %q marked %q, want Focused and crawling marked", h.Title, words)
			}
		}
		for _, w := range words {
			if f := strings.ToLower(w); f != "focused" && f != "crawling" {
				t.Errorf("snippet of %s marks %q, which the query does not hold", h.URL, w)
			}
		}
	}
}

func testFolding(t *testing.T, x *env) {
	x.upsert(
		crawl.Document{ID: "f1", URL: "http://a.test/zoe", Host: "http://a.test", Title: "Zoë Müller",
			Text: "Zoë Müller lives on the Hauptstraße and studies ﬁnancial networks."},
		crawl.Document{ID: "f2", URL: "http://a.test/plain", Host: "http://a.test", Title: "Plain",
			Text: "Zoe Muller, spelled without diacritics."},
	)
	for _, tc := range []struct {
		q, mark string
		hits    int
	}{
		{"zoe", "Zoë", 2}, {"muller", "Müller", 2}, {"ZOË", "Zoë", 2}, {"financial", "ﬁnancial", 1}, {"hauptstrasse", "Hauptstraße", 1},
	} {
		res := x.search(crawl.SearchRequest{Query: tc.q})
		found := false
		for _, h := range res.Hits {
			if h.URL == "http://a.test/zoe" {
				found = true
				if !slices.Contains(marked(h), tc.mark) {
					t.Errorf("Search(%q): snippet %q marked %q, want %q marked", tc.q, h.Snippet, marked(h), tc.mark)
				}
			}
		}
		if !found || len(res.Hits) != tc.hits {
			t.Errorf("Search(%q) = %d hits, want %d, %s among them", tc.q, len(res.Hits), tc.hits, "http://a.test/zoe")
		}
	}
}

func testTooBroad(t *testing.T, x *env) {
	x.upsert(corpus...)
	var many []string
	for i := range query.MaxWords + 1 {
		many = append(many, fmt.Sprintf("word%d", i))
	}
	for _, q := range []string{"l*", strings.Join(many, " "), "ab* cd* ef* gh* ij* kl*"} {
		_, err := x.idx.Search(x.ctx, crawl.SearchRequest{Query: q})
		if !errors.Is(err, query.ErrTooBroad) {
			t.Errorf("Search(%.30q) = %v, want query.ErrTooBroad", q, err)
		}
	}
}

func testReplace(t *testing.T, x *env) {
	x.upsert(corpus...)
	d := corpus[0]
	d.Text = "Rewritten: now about tessellations only."
	d.Year = 2022
	x.upsert(d)
	if got := x.urls(crawl.SearchRequest{Query: "spectral"}); len(got) != 0 {
		t.Errorf("Search(spectral) after the replacement = %v, want nothing", got)
	}
	res := x.search(crawl.SearchRequest{Query: "tessellations"})
	if len(res.Hits) != 1 || res.Hits[0].URL != d.URL || res.Hits[0].Year != 2022 || res.Total != 1 {
		t.Errorf("Search(tessellations) = %+v, want the replaced document once", res)
	}
	if got := x.urls(crawl.SearchRequest{Query: "learning"}); len(got) != 2 {
		t.Errorf("Search(learning) after the replacement = %v, want the 2 others", got)
	}
}

func testDelete(t *testing.T, x *env) {
	x.upsert(corpus...)
	if err := x.idx.Delete(x.ctx, []string{"d1", "d2", "not-there"}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if got := x.urls(crawl.SearchRequest{Query: "learning"}); !eq(got, []string{"http://b.test/ogrenme"}) {
		t.Errorf("Search(learning) after deleting 2 = %v, want the one left", got)
	}
	res := x.search(crawl.SearchRequest{Query: "learning"})
	if res.Facets.Host["http://a.test"] != 0 {
		t.Errorf("facets after the delete = %+v, still counting a.test", res.Facets)
	}
	if err := x.idx.Delete(x.ctx, nil); err != nil {
		t.Errorf("Delete(nothing): %v", err)
	}
}
