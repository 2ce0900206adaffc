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
		return storetest.DocResult(c, now, words(zipf, 8), words(zipf, 300), ls)
	}
	const batch = 500
	for i := 0; i < docs && !built; i += batch {
		var urls []string
		for j := range batch {
			urls = append(urls, docURL(i+j))
		}
		storetest.CrawlDocs(b, st, urls, now, page)
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

// BenchmarkPassAfterSmallCrawl measures the end-of-crawl pass of a small
// crawl into a large store (storetest.BenchPassAfterSmallCrawl):
//
//	ACRAWLER_PASS_DOCS=50000 go test -run '^$' -bench BenchmarkPassAfterSmallCrawl -benchtime 5x -timeout 30m ./internal/store/sqlite
func BenchmarkPassAfterSmallCrawl(b *testing.B) {
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "p.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	storetest.BenchPassAfterSmallCrawl(b, st)
}
