package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// BenchmarkSearch indexes 100,000 generated documents (a 20,000-word
// vocabulary with Zipf frequencies, 8-word titles, 300-word bodies), runs
// the rank pass that ends every crawl (SetRanks: it also chooses the
// search tier), and measures indexing throughput, the rank pass and the
// latency of 1,000 queries of 1–3 words, by page and by work (with
// ACRAWLER_SEARCH_LINKS=n, documents link to n others with anchor texts;
// ACRAWLER_SEARCH_QUERIES=n runs n queries of each kind; with
// ACRAWLER_SEARCH_DB=FILE, the documents are indexed into FILE when it
// does not exist and FILE is searched again when it does;
// ACRAWLER_SEARCH_SLOW=ms logs the queries slower than that;
// ACRAWLER_SEARCH_ENGINE=segments indexes with the segments engine):
//
//	go test -run '^$' -bench BenchmarkSearch -benchtime 1x -timeout 30m ./internal/store/sqlite
func BenchmarkSearch(b *testing.B) {
	const docs = 100_000
	ctx := context.Background()
	file := os.Getenv("ACRAWLER_SEARCH_DB")
	if file == "" {
		file = filepath.Join(b.TempDir(), "s.db")
	}
	_, err := os.Stat(file)
	built := err == nil
	st, err := sqlite.Open(ctx, file, sqlite.Options{Engine: os.Getenv("ACRAWLER_SEARCH_ENGINE")})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x%c", i, 'a'+rune(i%26))
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	words := func(zipf *rand.Zipf, n int) string {
		var sb strings.Builder
		for i := range n {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[zipf.Uint64()])
		}
		return sb.String()
	}
	docURL := func(i int) string { return fmt.Sprintf("http://h%03d.test/doc/%d", i%300, i) }
	// With ACRAWLER_SEARCH_LINKS=n, each document links to n others, the
	// anchor texts one to three words drawn as the text's.
	links, _ := strconv.Atoi(os.Getenv("ACRAWLER_SEARCH_LINKS"))
	now := time.Unix(1_800_000_000, 0)
	start := time.Now()
	page := func(c crawl.ClaimedURL) crawl.Result {
		var ls []crawl.Link
		for range links {
			t := docURL(rng.IntN(docs))
			ls = append(ls, crawl.Link{TargetID: crawl.URLID(t), Target: t, Anchor: words(zipf, 1+rng.IntN(3))})
		}
		return benchDoc(c, now, words(zipf, 8), words(zipf, 300), ls)
	}
	const batch = 500
	for i := 0; i < docs && !built; i += batch {
		var urls []string
		for j := range batch {
			urls = append(urls, docURL(i+j))
		}
		crawlDocs(b, st, urls, now, page)
	}
	indexRate := float64(docs) / time.Since(start).Seconds()
	start = time.Now()
	if !built {
		if err := st.SetRanks(ctx, nil); err != nil {
			b.Fatal(err)
		}
	}
	rankPass := time.Since(start)
	// Two query sets: words drawn with their corpus frequency (the most
	// common words match most documents), and words drawn uniformly from
	// the vocabulary (specific queries, like a title word or a name).
	// The queries have a generator of their own: the same whether the
	// documents were indexed in this run or not.
	qrng := rand.New(rand.NewPCG(3, 4))
	qzipf := rand.NewZipf(qrng, 1.1, 1, uint64(len(vocab)-1))
	nq := 1000
	if n, _ := strconv.Atoi(os.Getenv("ACRAWLER_SEARCH_QUERIES")); n > 0 {
		nq = min(n, nq)
	}
	slow, _ := strconv.Atoi(os.Getenv("ACRAWLER_SEARCH_SLOW"))
	frequent := make([]string, nq)
	uniform := make([]string, nq)
	for i := range frequent {
		frequent[i] = words(qzipf, 1+i%3)
		var sb strings.Builder
		for j := range 1 + i%3 {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[qrng.IntN(len(vocab))])
		}
		uniform[i] = sb.String()
	}
	b.ResetTimer()
	for range b.N {
		for _, set := range []struct {
			name    string
			queries []string
			byWork  bool
			weight  float64 // the link-graph rank's weight (serve's default: 0.5)
		}{{"frequent", frequent, false, 0}, {"uniform", uniform, false, 0}, {"frequent-by-work", frequent, true, 0}, {"uniform-by-work", uniform, true, 0},
			{"frequent-by-work-ranked", frequent, true, 0.5}} {
			lat := make([]time.Duration, len(set.queries))
			for i, q := range set.queries {
				t0 := time.Now()
				if _, err := st.Search(ctx, crawl.SearchRequest{Query: q, Limit: 10, ByWork: set.byWork, PageRankWeight: set.weight}); err != nil {
					b.Fatal(err)
				}
				lat[i] = time.Since(t0)
				if slow > 0 && lat[i] > time.Duration(slow)*time.Millisecond {
					b.Logf("%s %q: %v", set.name, q, lat[i])
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, set.name+"-p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, set.name+"-p99-ms")
		}
		if !built {
			b.ReportMetric(indexRate, "docs-indexed/s")
			b.ReportMetric(rankPass.Seconds(), "rank-pass-s")
		}
	}
}

// BenchmarkBroadQueries measures queries whose work grows with their
// terms (repeated and distinct prefixes, many words) on a collection of a
// few hundred pages:
//
//	go test -run '^$' -bench BenchmarkBroadQueries -benchtime 3x ./internal/store/sqlite
func BenchmarkBroadQueries(b *testing.B) {
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "s.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	storetest.BenchBroadQueries(b, st, 287)
}

// benchDoc is the result of a fetched page c of a benchmark's collection.
func benchDoc(c crawl.ClaimedURL, now time.Time, title, text string, links []crawl.Link) crawl.Result {
	return crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Links: links, Page: &crawl.Page{URL: c.URL, Status: 200,
		ContentType: "text/html", Title: title, Text: text, FetchedAt: now, Lang: "en",
		ContentHash: []byte(fmt.Sprintf("%032x", c.ID)),
		Meta:        &crawl.Metadata{Type: []string{"article", "other", "listing", "thesis"}[c.ID&3], Year: 2000 + int(c.ID&15)}}}
}

// crawlDocs adds urls to st and crawls them as one owner whose clock
// stands at now, page giving each fetched URL's result.
func crawlDocs(b *testing.B, st *sqlite.DB, urls []string, now time.Time, page func(crawl.ClaimedURL) crawl.Result) {
	ctx := context.Background()
	var add []crawl.NewURL
	for _, u := range urls {
		add = append(add, storetest.U(u, 1, 0))
	}
	if _, err := st.AddURLs(ctx, add, crawl.Limits{}); err != nil {
		b.Fatal(err)
	}
	for {
		hs, err := st.ClaimHosts(ctx, "b", 300, time.Minute, now)
		if err != nil || len(hs) == 0 {
			break
		}
		var rs []crawl.Result
		for _, h := range hs {
			cs, _, _ := st.ClaimURLs(ctx, "b", h.ID, 1000, crawl.Limits{}, now)
			for _, c := range cs {
				rs = append(rs, page(c))
			}
		}
		if _, err := st.Commit(ctx, rs, crawl.Limits{}); err != nil {
			b.Fatal(err)
		}
		var rel []crawl.HostRelease
		for _, h := range hs {
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		st.ReleaseHosts(ctx, "b", rel)
	}
}

// BenchmarkPassAfterSmallCrawl measures the end-of-crawl pass of a small
// crawl into a large store: ACRAWLER_PASS_DOCS documents (50,000 by
// default) over 300 hosts, each linking to 8 others with anchor texts,
// crawled and passed once; then each op crawls 100 new pages, each
// linking to 8 of the stored documents, and runs the pass again
// (RefreshAnchors, then SetRanks, as a crawl ends). It reports the
// milliseconds of the first pass and of a pass after a small crawl:
//
//	ACRAWLER_PASS_DOCS=50000 go test -run '^$' -bench BenchmarkPassAfterSmallCrawl -benchtime 5x -timeout 30m ./internal/store/sqlite
func BenchmarkPassAfterSmallCrawl(b *testing.B) {
	docs := 50_000
	if n, _ := strconv.Atoi(os.Getenv("ACRAWLER_PASS_DOCS")); n > 0 {
		docs = n
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "p.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	word := func() string { return fmt.Sprintf("w%d", rng.IntN(5000)) }
	docURL := func(i int) string { return fmt.Sprintf("http://h%03d.test/doc/%d", i%300, i) }
	now := time.Unix(1_800_000_000, 0)
	page := func(c crawl.ClaimedURL) crawl.Result {
		var ls []crawl.Link
		for range 8 {
			t := docURL(rng.IntN(docs))
			ls = append(ls, crawl.Link{TargetID: crawl.URLID(t), Target: t, Anchor: word() + " " + word()})
		}
		return benchDoc(c, now, word()+" "+word(), strings.Repeat(word()+" ", 40), ls)
	}
	pass := func() time.Duration {
		start := time.Now()
		if err := st.RefreshAnchors(ctx); err != nil {
			b.Fatal(err)
		}
		if err := st.SetRanks(ctx, nil); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for i := 0; i < docs; i += 1000 {
		var urls []string
		for j := i; j < min(i+1000, docs); j++ {
			urls = append(urls, docURL(j))
		}
		crawlDocs(b, st, urls, now, page)
	}
	first := pass()
	var took time.Duration
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		var urls []string
		for j := range 100 {
			urls = append(urls, docURL(docs+n*100+j))
		}
		crawlDocs(b, st, urls, now, page)
		b.StartTimer()
		took += pass()
	}
	b.ReportMetric(float64(first.Milliseconds()), "first-pass-ms")
	b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "pass-ms")
}
