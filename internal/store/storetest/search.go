package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

var searchTests = []test{
	{"SearchEmbeddedIndex", testSearch},
	{"SearchAfterCancelledSearches", testSearchCancelled},
	{"SearchTooBroad", testSearchTooBroad},
	{"SearchFacetsListEveryYear", testSearchYears},
	{"SearchFoldsCaseAndDiacritics", testSearchFold},
	{"SearchFoldsInboundAnchors", testSearchFoldAnchors},
	{"SearchAnchorsFirstDistinct", testSearchAnchorsFirstDistinct},
	{"SearchByWork", testSearchByWork},
	{"SearchSnippets", testSearchSnippets},
}

// cancelPages records n indexable pages that all hold the word
// "learning", and returns their URLs, sorted.
func (e *env) cancelPages(n int) []string {
	e.t.Helper()
	var pages []*crawl.Page
	var urls []string
	for i := range n {
		u := fmt.Sprintf("http://l%d.test/p", i%7) + fmt.Sprint(i)
		pages = append(pages, &crawl.Page{URL: u, Title: fmt.Sprintf("Notes %d on machine learning", i),
			Text: fmt.Sprintf("Page %d: deep learning, reinforcement learning and learning rates, with remarks on reading and writing.", i),
			Lang: "en", Meta: &crawl.Metadata{Year: 2000 + i%30}})
		urls = append(urls, u)
	}
	e.commitPages(pages...)
	sort.Strings(urls)
	return urls
}

// testSearchCancelled: searches whose context ends at any point of their
// work (a client that gives up, a timeout) leave nothing behind: the
// searches after them answer in full. The SQLite store used to give back
// to its pool a snippet connection still holding its scratch table, after
// which every search with hits failed.
func testSearchCancelled(t *testing.T, e *env) {
	// More pages than a page of hits, so that a search's total counts past
	// the hits it gives back; few, so that the 300 searches stay cheap.
	const limit = 30
	want := e.cancelPages(40)
	check := func(when string) {
		t.Helper()
		res, err := e.s.Search(e.ctx, crawl.SearchRequest{Query: "learning", Limit: limit})
		if err != nil {
			t.Fatalf("Search(learning) %s: %v", when, err)
		}
		if res.Total != len(want) || len(res.Hits) != limit {
			t.Fatalf("Search(learning) %s: total %d, %d hits, want %d and %d", when, res.Total, len(res.Hits), len(want), limit)
		}
		for _, h := range res.Hits {
			if h.Snippet == "" {
				t.Fatalf("Search(learning) %s: hit %s has no snippet", when, h.URL)
			}
		}
	}
	check("before any cancelled search")
	// The time a whole search takes spreads the deadlines over every
	// stage of the work (no timing is asserted).
	start := time.Now()
	check("to time a search")
	full := time.Since(start)
	const rounds = 25
	for i := range rounds {
		d := full * time.Duration(i) / rounds
		// Malformed and refused queries among them.
		for _, q := range []string{"learning", "learn*", "lea* rea* learning", `"deep learning"`, "\"\xff(NEAR learn", strings.Repeat("r* ", 160)} {
			// A deadline, as a timeout sets.
			ctx, cancel := context.WithTimeout(e.ctx, d)
			e.s.Search(ctx, crawl.SearchRequest{Query: q, Limit: limit})
			cancel()
			// A client that goes away: the context is cancelled from
			// another goroutine while the search runs.
			ctx, cancel = context.WithCancel(e.ctx)
			stop := time.AfterFunc(d, cancel)
			e.s.Search(ctx, crawl.SearchRequest{Query: q, Limit: limit})
			stop.Stop()
			cancel()
		}
	}
	// A search cancelled before it starts.
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if _, err := e.s.Search(ctx, crawl.SearchRequest{Query: "learning", Limit: limit}); err == nil {
		t.Log("a search with a cancelled context answered")
	}
	for i := range 5 {
		check(fmt.Sprintf("after cancelled searches (%d)", i))
	}
	got := e.search(crawl.SearchRequest{Query: "learning", Limit: 200})
	urls := hitURLs(got)
	sort.Strings(urls)
	if !eq(urls, want) {
		t.Errorf("Search(learning) after cancelled searches found %d pages, want %d", len(urls), len(want))
	}
}

// testSearchTooBroad: a query whose work has no useful bound (a
// one-letter prefix, too many prefixes or words) is refused with
// query.ErrTooBroad, which the API answers with 400, and a repeated term
// counts once.
func testSearchTooBroad(t *testing.T, e *env) {
	want := e.cancelPages(30)
	many := func(n int, f string) string {
		var ws []string
		for i := range n {
			ws = append(ws, fmt.Sprintf(f, i))
		}
		return strings.Join(ws, " ")
	}
	for _, q := range []string{
		strings.Repeat("r* ", 160),
		"learning r*",
		"learning -l*",
		`"deep l"*`,
		many(query.MaxPrefixes+1, "le%d*"),
		many(query.MaxWords+1, "learning%d"),
	} {
		res, err := e.s.Search(e.ctx, crawl.SearchRequest{Query: q, Limit: 10})
		if !errors.Is(err, query.ErrTooBroad) {
			t.Errorf("Search(%.40q) = %d hits, %v; want ErrTooBroad", q, len(res.Hits), err)
		}
	}
	for _, q := range []string{
		strings.Repeat("learning ", 50), // within query.MaxLength
		strings.Repeat("lea* ", 100),
		strings.Repeat(`"deep learning" `, 30),
		many(query.MaxPrefixes-1, "le%d*") + " learn*",
	} {
		res, err := e.s.Search(e.ctx, crawl.SearchRequest{Query: q, Limit: 100})
		if err != nil {
			t.Errorf("Search(%.40q): %v", q, err)
			continue
		}
		got := hitURLs(res)
		sort.Strings(got)
		if strings.Contains(q, "le0*") {
			if len(got) != 0 {
				t.Errorf("Search(%.40q) = %v, want nothing", q, got)
			}
		} else if !eq(got, want) {
			t.Errorf("Search(%.40q) = %d pages, want %d", q, len(got), len(want))
		}
	}
}

// testSearchYears: the year facet counts every year of the matches (the
// PostgreSQL store kept the 20 most frequent), the hosts and types their
// 20 most frequent values.
func testSearchYears(t *testing.T, e *env) {
	e.cancelPages(120) // 30 years, 4 pages each; 7 hosts
	res := e.search(crawl.SearchRequest{Query: "learning", Limit: 1})
	if res.Estimated {
		t.Fatalf("Search(learning) is estimated")
	}
	if len(res.Facets.Year) != 30 {
		t.Errorf("year facet lists %d years, want 30: %v", len(res.Facets.Year), res.Facets.Year)
	}
	for y := 2000; y < 2030; y++ {
		if res.Facets.Year[y] != 4 {
			t.Errorf("year facet: %d pages of %d, want 4", res.Facets.Year[y], y)
		}
	}
	if len(res.Facets.Host) != 7 || res.Facets.Host["http://l0.test"] != 18 {
		t.Errorf("host facet = %v, want 7 hosts, 18 pages on http://l0.test", res.Facets.Host)
	}
	// Filtered, the facets count the filtered matches.
	res = e.search(crawl.SearchRequest{Query: "learning", Limit: 1, YearFrom: 2020})
	if len(res.Facets.Year) != 10 || res.Total != 40 {
		t.Errorf("year facet from 2020 = %v (total %d), want 10 years, 40 pages", res.Facets.Year, res.Total)
	}
}

// testSearchFold: case and diacritics are folded alike in the index and in
// queries (query.Fold), phrases match on the folded words in order, and
// snippets mark the words as the page writes them.
func testSearchFold(t *testing.T, e *env) {
	e.commitPages(
		&crawl.Page{URL: "http://f.test/zoe", Title: "Zoë Hoffmann: collected notes",
			Text: "Zoë Hoffmann wrote to Müller from the Straße des 17. Juni about ﬁnancial matters."},
		&crawl.Page{URL: "http://f.test/plain", Title: "zoe hoffmann",
			Text: "A plain spelling: zoe hoffmann met muller on the strasse."},
		&crawl.Page{URL: "http://f.test/reversed", Title: "Hoffmann, Zoë",
			Text: "Names in another order: Hoffmann Zoë, and nothing else."},
		&crawl.Page{URL: "http://f.test/itu", Title: "İSTANBUL TEKNİK ÜNİVERSİTESİ",
			Text: "İstanbul'da ışık ve Øresund, Æsir, Œuvre."},
	)
	const (
		zoe, plain, rev, itu = "http://f.test/zoe", "http://f.test/plain", "http://f.test/reversed", "http://f.test/itu"
	)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"zoe hoffmann", []string{plain, rev, zoe}},
		{"Zoë Hoffmann", []string{plain, rev, zoe}},
		{"ZOË HOFFMANN", []string{plain, rev, zoe}},
		{`"zoe hoffmann"`, []string{plain, zoe}},
		{`"Zoë Hoffmann"`, []string{plain, zoe}},
		{`"hoffmann zoë"`, []string{rev}},
		{"muller", []string{plain, zoe}},
		{"Müller", []string{plain, zoe}},
		{"MÜLLER", []string{plain, zoe}},
		{"mueller", nil}, // folding is not German spelling
		{"strasse", []string{plain, zoe}},
		{"Straße", []string{plain, zoe}},
		{"STRASSE", []string{plain, zoe}},
		{"financial", []string{zoe}},
		{"ﬁnancial", []string{zoe}},
		{"istanbul", []string{itu}},
		{"İstanbul", []string{itu}},
		{"ISTANBUL", []string{itu}},
		{"isik", []string{itu}},
		{"ışık", []string{itu}},
		{"universitesi", []string{itu}},
		{"oresund aesir oeuvre", []string{itu}},
		{"zoë*", []string{plain, rev, zoe}},
		{"-zoë hoffmann", nil},
	} {
		got := hitURLs(e.search(crawl.SearchRequest{Query: tc.q, Limit: 10}))
		sort.Strings(got)
		if !eq(got, tc.want) {
			t.Errorf("Search(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
	// Snippets show the page's own spelling.
	for _, tc := range []struct{ q, url, mark string }{
		{"zoe", zoe, "Zoë"},
		{"strasse", zoe, "Straße"},
		{"financial", zoe, "ﬁnancial"},
		{"muller", zoe, "Müller"},
		{"isik", itu, "ışık"},
		{"muller", plain, "muller"},
	} {
		res := e.search(crawl.SearchRequest{Query: tc.q, Limit: 10})
		found := false
		for _, h := range res.Hits {
			if h.URL == tc.url {
				found = true
				if !slices.Contains(crawl.Marked(h.Snippet, h.Marks), tc.mark) {
					t.Errorf("Search(%q): snippet of %s = %q marked %v, want %q marked", tc.q, tc.url, h.Snippet, h.Marks, tc.mark)
				}
			}
		}
		if !found {
			t.Errorf("Search(%q) did not find %s", tc.q, tc.url)
		}
	}
}

// BenchBroadQueries indexes pages pages of 800 words drawn from a
// 6,000-word vocabulary with Zipf frequencies (a small crawl: hundreds of
// words start with each letter) and measures queries whose work grows
// with their terms: a one-letter prefix repeated, distinct prefixes, and
// many words. An op is one query; answers refused as too broad count as
// answered (refused/op reports their share).
func BenchBroadQueries(b *testing.B, s crawl.Store, pages int) {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	rng := rand.New(rand.NewPCG(7, 11))
	syl := []string{"ra", "re", "ri", "ro", "ru", "ka", "ke", "lo", "mi", "na", "te", "so", "di", "pa", "ber", "con", "ing", "tion", "ly", "st"}
	vocab := make([]string, 6000)
	for i := range vocab {
		var sb strings.Builder
		for range 2 + rng.IntN(3) {
			sb.WriteString(syl[rng.IntN(len(syl))])
		}
		vocab[i] = sb.String()
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	var urls []crawl.NewURL
	for i := range pages {
		urls = append(urls, U(fmt.Sprintf("http://h%02d.test/p/%d", i%20, i), 0, 0))
	}
	if _, err := s.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		b.Fatal(err)
	}
	for {
		hs, err := s.ClaimHosts(ctx, "bench", 100, time.Minute, now)
		if err != nil {
			b.Fatal(err)
		}
		if len(hs) == 0 {
			break
		}
		var rs []crawl.Result
		var rel []crawl.HostRelease
		for _, h := range hs {
			rel = append(rel, crawl.HostRelease{ID: h.ID})
			cs, _, err := s.ClaimURLs(ctx, "bench", h.ID, pages, crawl.Limits{}, now)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cs {
				rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: &crawl.Page{URL: c.URL, Status: 200,
					ContentType: "text/html", Title: words(8), Text: words(800), FetchedAt: now, Lang: "en",
					ContentHash: []byte(fmt.Sprintf("%032x", c.ID)), Meta: &crawl.Metadata{Year: 1990 + int(c.ID&31)}}})
			}
		}
		if _, err := s.Commit(ctx, rs, crawl.Limits{}); err != nil {
			b.Fatal(err)
		}
		if err := s.ReleaseHosts(ctx, "bench", rel); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.SetRanks(ctx, nil); err != nil {
		b.Fatal(err)
	}
	rep := func(w string, n int) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
	var distinct []string
	for _, a := range "abcdefghijklmnopqrstuvwxyz" {
		for _, c := range "aeiou" {
			distinct = append(distinct, string(a)+string(c)+"*")
		}
	}
	for _, bc := range []struct{ name, q string }{
		{"r*x20", rep("r*", 20)},
		{"r*x80", rep("r*", 80)},
		{"r*x160", rep("r*", 160)},
		{"re*x160", rep("re*", 160)},
		{"4prefixes", "ra* re* ri* ro*"},
		{"5prefixes3letters", "rak* rek* rik* rok* ruk*"},
		{"100prefixes", strings.Join(distinct[:100], " ")},
		{"40words", strings.Join(strings.Fields(words(400))[:40], " ")},
		{"40words+4prefixes", strings.Join(strings.Fields(words(400))[:36], " ") + " ra* re* ri* ro*"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			refused := 0
			for range b.N {
				_, err := s.Search(ctx, crawl.SearchRequest{Query: bc.q, Limit: 10})
				switch {
				case errors.Is(err, query.ErrTooBroad):
					refused++
				case err != nil:
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(refused)/float64(b.N), "refused/op")
		})
	}
}

// marked is a hit's snippet with <mark> and </mark> around its marks (the
// text is not escaped): what tests compare snippets with.
func marked(h crawl.SearchHit) string {
	var b strings.Builder
	end := 0
	for _, m := range h.Marks {
		if m[0] < end || m[1] > len(h.Snippet) || m[0] >= m[1] {
			return h.Snippet + " (bad marks)"
		}
		b.WriteString(h.Snippet[end:m[0]])
		b.WriteString("<mark>" + h.Snippet[m[0]:m[1]] + "</mark>")
		end = m[1]
	}
	b.WriteString(h.Snippet[end:])
	return b.String()
}

// EmbeddedIndex is a store's embedded full-text index seen as a
// crawl.Index, for the index conformance suite (indextest). The embedded
// index has no write methods of its own: it is written in the
// transaction that records a page. So Upsert records each document as a
// fetched page, through the store's claim and commit path (its URL,
// title, text, language and metadata; the store takes the host from the
// URL and the content hash from the document ID; a positive PageRank
// is recorded with SetRanks), and Delete records the page again as
// noindex, which takes it out of the index. Searches are the store's.
func EmbeddedIndex(s crawl.Store) crawl.Index {
	return &embeddedIndex{s: s, urls: map[string]string{}, now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
}

type embeddedIndex struct {
	s    crawl.Store
	mu   sync.Mutex
	urls map[string]string // document ID → URL
	now  time.Time
}

func (x *embeddedIndex) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	return x.s.Search(ctx, r)
}

func (x *embeddedIndex) Upsert(ctx context.Context, docs []crawl.Document) error {
	pages := make([]*crawl.Page, len(docs))
	x.mu.Lock()
	for i, d := range docs {
		x.urls[d.ID] = d.URL
		fetched := d.FetchedAt
		if fetched.IsZero() {
			fetched = x.now
		}
		pages[i] = &crawl.Page{URL: d.URL, Status: 200, ContentType: "text/html", Title: d.Title, Text: d.Text,
			Lang: d.Lang, FetchedAt: fetched, ContentHash: []byte(d.ID),
			Meta: &crawl.Metadata{Type: d.Type, DOI: d.DOI, Authors: d.Authors, Year: d.Year}}
	}
	x.mu.Unlock()
	if err := x.record(ctx, pages); err != nil {
		return err
	}
	// Link-graph ranks are recorded apart, as the rank command does.
	ranks := map[crawl.ID]float64{}
	for _, d := range docs {
		if d.PageRank > 0 {
			ranks[crawl.URLID(d.URL)] = d.PageRank
		}
	}
	if len(ranks) == 0 {
		return nil
	}
	return x.s.SetRanks(ctx, ranks)
}

func (x *embeddedIndex) Delete(ctx context.Context, ids []string) error {
	var pages []*crawl.Page
	for _, id := range ids {
		x.mu.Lock()
		u, ok := x.urls[id]
		delete(x.urls, id)
		x.mu.Unlock()
		if !ok {
			continue
		}
		p, err := x.s.Page(ctx, crawl.URLID(u))
		if err != nil {
			return fmt.Errorf("storetest: delete %s: %w", id, err)
		}
		p.NoIndex = true
		pages = append(pages, p)
	}
	return x.record(ctx, pages)
}

// record commits the pages as fetched now: their URLs are added, or made
// due again when recorded already, claimed and committed, a year after
// the last record (so that politeness delays and revisit intervals have
// passed).
func (x *embeddedIndex) record(ctx context.Context, pages []*crawl.Page) error {
	if len(pages) == 0 {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.now = x.now.AddDate(1, 0, 0)
	want := map[string]*crawl.Page{}
	var urls []crawl.NewURL
	var ids []crawl.ID
	for _, p := range pages {
		want[p.URL] = p
		urls = append(urls, U(p.URL, 0, 0))
		ids = append(ids, crawl.URLID(p.URL))
	}
	if _, err := x.s.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		return fmt.Errorf("storetest: record: %w", err)
	}
	if _, err := x.s.ScheduleDueURLs(ctx, ids, x.now); err != nil {
		return fmt.Errorf("storetest: record: %w", err)
	}
	for round := 0; len(want) > 0 && round < 10; round++ {
		hs, err := x.s.ClaimHosts(ctx, "indextest", 1000, time.Hour, x.now)
		if err != nil {
			return fmt.Errorf("storetest: record: %w", err)
		}
		if len(hs) == 0 {
			break
		}
		var results []crawl.Result
		for _, h := range hs {
			cs, _, err := x.s.ClaimURLs(ctx, "indextest", h.ID, 1000, crawl.Limits{}, x.now)
			if err != nil {
				return fmt.Errorf("storetest: record: %w", err)
			}
			for _, c := range cs {
				if p := want[c.URL]; p != nil {
					// Due again by the next record, changed since the last.
					rv := &crawl.Revisit{Interval: 24 * time.Hour, NextCheck: x.now.Add(24 * time.Hour), Changed: true}
					results = append(results, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p, Revisit: rv})
					delete(want, c.URL)
				}
			}
		}
		if _, err := x.s.Commit(ctx, results, crawl.Limits{}); err != nil {
			return fmt.Errorf("storetest: record: %w", err)
		}
		if err := x.s.ReleaseHosts(ctx, "indextest", rel(idsOf(hs)...)); err != nil {
			return fmt.Errorf("storetest: record: %w", err)
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("storetest: record: %d pages could not be claimed", len(want))
	}
	return nil
}

// testSearchFoldAnchors: the inbound anchor texts a page is indexed with
// when it is recorded, after the page linking to it, fold as its own text
// does: "aero" and "ærø" both find the page an "Ærø Œuvre" link points to.
func testSearchFoldAnchors(t *testing.T, e *env) {
	target := "http://a.test/catalogue"
	e.links = map[string][]crawl.Link{"http://a.test/index": {{TargetID: crawl.URLID(target), Target: target, Anchor: "Ærø Œuvre catalogue"}}}
	e.commitPages(&crawl.Page{URL: "http://a.test/index", Title: "Index", Text: "a list of works"})
	e.commitPages(&crawl.Page{URL: target, Title: "Works", Text: "paintings and drawings"})
	for _, q := range []string{"aero", "ærø", "ÆRØ", "oeuvre", "œuvre"} {
		if got := hitURLs(e.search(crawl.SearchRequest{Query: q})); !eq(got, []string{target}) {
			t.Errorf("Search(%q) = %v, want the page the anchor names", q, got)
		}
	}
}

// testSearchAnchorsFirstDistinct: a page with more distinct inbound
// anchor texts than are indexed is found by the first 200 of them in the
// order of the linking pages' IDs, a text repeated counting once, and not
// by the others, however the links were recorded: at its commit and after
// a rank pass, on every store alike.
func testSearchAnchorsFirstDistinct(t *testing.T, e *env) {
	const target, sources = "http://a.test/much-linked", 210
	var srcs []string
	for i := range sources {
		srcs = append(srcs, fmt.Sprintf("http://src.test/s%d", i))
	}
	slices.SortFunc(srcs, func(a, b string) int { return cmp.Compare(crawl.URLID(a), crawl.URLID(b)) })
	// The source j-th in ID order links with the word of j, but the
	// second, which repeats the first's.
	word := func(j int) string { return fmt.Sprintf("zq%c%c", 'a'+j/26, 'a'+j%26) }
	for j := sources - 1; j >= 0; j-- { // recorded in the reverse order
		w := word(j)
		if j == 1 {
			w = word(0)
		}
		e.links = map[string][]crawl.Link{srcs[j]: {{TargetID: crawl.URLID(target), Target: target, Anchor: "see " + w}}}
		e.commitPages(&crawl.Page{URL: srcs[j], Title: "Source", Text: "a page that links"})
		e.links = nil
	}
	e.commitPages(&crawl.Page{URL: target, Title: "Target", Text: "a page linked from many"})
	check := func(when string) {
		t.Helper()
		for j, want := range map[int]bool{0: true, 2: true, 150: true, 200: true, 201: false, sources - 1: false} {
			got := hitURLs(e.search(crawl.SearchRequest{Query: word(j)}))
			if want && !eq(got, []string{target}) || !want && len(got) > 0 {
				t.Errorf("%s: search %s (the anchor of source %d in ID order) = %v; want the target: %v", when, word(j), j, got, want)
			}
		}
	}
	check("at its commit")
	ranks := map[crawl.ID]float64{crawl.URLID(target): 2}
	for _, u := range srcs {
		ranks[crawl.URLID(u)] = 1
	}
	if err := e.s.SetRanks(e.ctx, ranks); err != nil {
		t.Fatal(err)
	}
	check("after a rank pass")
}

// workSearchPages are the copies of a paper (landing page, PDF,
// repository record, preprint: two of them on one host), a paper that
// looks like it by another author, and pages of no work, all matching
// "frugal crawling".
func workSearchPages() []*crawl.Page {
	const landing, pdf = "http://journal.find.test/article/9", "http://journal.find.test/article/9.pdf"
	const title = "Frugal Crawling of Scholarly Webs"
	return []*crawl.Page{
		{URL: landing, Title: title, Text: "We crawl frugally.", Meta: &crawl.Metadata{Title: title,
			Authors: []string{"Jamal Sato", "Ayşe Demir"}, Year: 2021, DOI: "10.5555/fc.9", PDFURL: pdf, Type: "article", Sources: []string{"highwire"}}},
		{URL: pdf, ContentType: "application/pdf", Title: title, Text: "Frugal crawling, the paper itself.", Meta: &crawl.Metadata{
			Title: title, Authors: []string{"J. Sato"}, Year: 2021, DOI: "10.5555/fc.9", Type: "article"}},
		{URL: "http://repository.find.test/handle/1/9", Title: "Frugal crawling of scholarly webs", Text: "Deposit.", Meta: &crawl.Metadata{
			Title: "Frugal crawling of scholarly webs", Authors: []string{"Sato, J."}, Year: 2021, Type: "article", Sources: []string{"dublincore"}}},
		{URL: "http://preprints.find.test/abs/2001.00009", Title: title, Text: "Preprint.", Meta: &crawl.Metadata{
			Title: title, Authors: []string{"Jamal Sato"}, Year: 2020, Venue: "arXiv", DOI: "10.48550/arxiv.2001.00009", Type: "preprint",
			Sources: []string{"highwire"}}},
		{URL: "http://other.find.test/papers/3", Title: title, Text: "Another paper.", Meta: &crawl.Metadata{
			Title: title, Authors: []string{"Mei Chen"}, Year: 2021, Type: "article", Sources: []string{"highwire"}}},
		{URL: "http://news.find.test/frugal", Title: "Frugal crawling in the news", Text: "News.", Meta: &crawl.Metadata{Type: "news", Year: 2021}},
		{URL: "http://journal.find.test/blog/frugal", Title: "Notes", Text: "A blog post on frugal crawling."},
	}
}

// testSearchByWork: a search by work gives one result per work (its
// best-ranked matching copy) and one per page of no work; limit and
// offset count results, and paging through them shows each once; the
// total counts results, and each facet value counts the results a search
// filtered by it finds. Without ByWork, every page is a result.
func testSearchByWork(t *testing.T, e *env) {
	pages := workSearchPages()
	e.commitPages(pages...)
	ws, ok := e.s.(crawl.WorkStore)
	if !ok {
		t.Fatalf("%T keeps no works", e.s)
	}
	resultOf := func(h crawl.SearchHit) string {
		w, err := ws.WorkOf(e.ctx, crawl.URLID(h.URL))
		if errors.Is(err, crawl.ErrNotFound) {
			return h.URL
		}
		if err != nil {
			t.Fatalf("WorkOf(%s): %v", h.URL, err)
		}
		return fmt.Sprint("work ", w.ID)
	}
	req := crawl.SearchRequest{Query: "frugal crawling", Limit: 10}
	byPage := e.search(req)
	if byPage.ByWork || byPage.Total != len(pages) || len(byPage.Hits) != len(pages) || byPage.Facets.Host["http://journal.find.test"] != 3 {
		t.Fatalf("by page: total %d, %d hits, facets %v (by work %v), want every one of the %d pages", byPage.Total, len(byPage.Hits),
			byPage.Facets, byPage.ByWork, len(pages))
	}
	// The results by work are the pages' results, each work at its best
	// copy.
	var want []string
	seen := map[string]bool{}
	for _, h := range byPage.Hits {
		if r := resultOf(h); !seen[r] {
			seen[r] = true
			want = append(want, h.URL)
		}
	}
	if len(want) != 4 {
		t.Fatalf("the pages are %d results (%v), want 4: a work of four copies, a look-alike, two pages of no work", len(want), want)
	}
	req.ByWork = true
	all := e.search(req)
	if got := hitURLs(all); !all.ByWork || all.Total != len(want) || !eq(got, want) {
		t.Errorf("by work: %v (total %d, by work %v), want %v", got, all.Total, all.ByWork, want)
	}
	// Paging, a result at a time and two at a time.
	for _, limit := range []int{1, 2, 3} {
		var got []string
		for off := 0; off < len(want)+2; off += limit {
			r := req
			r.Limit, r.Offset = limit, off
			res := e.search(r)
			if res.Total != len(want) {
				t.Errorf("by work, limit %d offset %d: total %d, want %d", limit, off, res.Total, len(want))
			}
			if n := min(limit, max(0, len(want)-off)); len(res.Hits) != n {
				t.Errorf("by work, limit %d offset %d: %d hits, want %d", limit, off, len(res.Hits), n)
			}
			got = append(got, hitURLs(res)...)
		}
		if !eq(got, want) {
			t.Errorf("by work, %d at a time: %v, want %v", limit, got, want)
		}
	}
	// Every facet value counts what its filter finds.
	check := func(name string, n int, r crawl.SearchRequest) {
		t.Helper()
		res := e.search(r)
		if res.Total != n || len(res.Hits) != n {
			t.Errorf("facet %s counts %d, the search filtered by it finds %d (total %d): %v", name, n, len(res.Hits), res.Total, hitURLs(res))
		}
	}
	f := all.Facets
	if f.Host["http://journal.find.test"] != 2 || f.Type["article"] != 2 || f.Year[2021] != 3 || f.Year[2020] != 1 {
		t.Errorf("facets by work %+v: want journal.find.test 2 (a work and a page), article 2, 2021 3, 2020 1", f)
	}
	for h, n := range f.Host {
		r := req
		r.Host = h
		check("host "+h, n, r)
	}
	for ty, n := range f.Type {
		r := req
		r.Type = ty
		check("type "+ty, n, r)
	}
	for y, n := range f.Year {
		r := req
		r.YearFrom, r.YearTo = y, y
		check(fmt.Sprint("year ", y), n, r)
	}
}

// testSearchSnippets: snippets are the page's text as it writes it, with
// the query's words, and only they, marked; the title's when only the
// title matches; the main text's when the page has one, as the index
// holds it.
func testSearchSnippets(t *testing.T, e *env) {
	e.commitPages(
		&crawl.Page{URL: "http://a.test/text", Title: "Plain title",
			Text: "Intro <b>bold</b> & \x01 more words, then focused crawling\x02 appears here."},
		&crawl.Page{URL: "http://a.test/title", Title: `Focused crawling & "friends" <3`, Text: "Nothing relevant here at all."},
		&crawl.Page{URL: "http://a.test/main", Title: "Main", Text: "Menu focused crawling footer",
			MainText: "The main text mentions only a focused crawler."})
	res := e.search(crawl.SearchRequest{Query: "focused crawling"})
	type snippet struct {
		text  string
		marks [][2]int
	}
	want := map[string]snippet{
		// What looks like a tag is the page's text; the bytes that mark
		// words in snippets are taken for spaces.
		"http://a.test/text":  {"Intro <b>bold</b> & more words, then focused crawling appears here.", [][2]int{{37, 44}, {45, 53}}},
		"http://a.test/title": {`Focused crawling & "friends" <3`, [][2]int{{0, 7}, {8, 16}}},
	}
	if len(res.Hits) != len(want) || res.Total != len(want) {
		t.Fatalf("Search(focused crawling) = %d hits (total %d), want %d: the main text, not the visible text, is indexed",
			len(res.Hits), res.Total, len(want))
	}
	for _, h := range res.Hits {
		if w := want[h.URL]; h.Snippet != w.text || !slices.Equal(h.Marks, w.marks) {
			t.Errorf("snippet of %s = %q marked %v, want %q marked %v", h.URL, h.Snippet, h.Marks, w.text, w.marks)
		}
		// The title's marks, where the title holds the words.
		if marks := map[string][][2]int{"http://a.test/title": {{0, 7}, {8, 16}}}[h.URL]; !slices.Equal(h.TitleMarks, marks) {
			t.Errorf("title of %s = %q marked %v, want marked %v", h.URL, h.Title, h.TitleMarks, marks)
		}
	}
}
