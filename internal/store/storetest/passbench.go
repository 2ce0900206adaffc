package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// DocResult is the result of a fetched page c of a benchmark's
// collection: a 200 text/html answer at now with title, text and links.
func DocResult(c crawl.ClaimedURL, now time.Time, title, text string, links []crawl.Link) crawl.Result {
	return crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Links: links, Page: &crawl.Page{URL: c.URL, Status: 200,
		ContentType: "text/html", Title: title, Text: text, FetchedAt: now, Lang: "en",
		ContentHash: []byte(fmt.Sprintf("%032x", c.ID)),
		Meta:        &crawl.Metadata{Type: []string{"article", "other", "listing", "thesis"}[c.ID&3], Year: 2000 + int(c.ID&15)}}}
}

// CrawlDocs adds urls to st and crawls them as one owner whose clock
// stands at now, page giving each fetched URL's result.
func CrawlDocs(b testing.TB, st crawl.Store, urls []string, now time.Time, page func(crawl.ClaimedURL) crawl.Result) {
	ctx := context.Background()
	var add []crawl.NewURL
	for _, u := range urls {
		add = append(add, U(u, 1, 0))
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
		if err := st.ReleaseHosts(ctx, "b", rel); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchPassAfterSmallCrawl measures the end-of-crawl pass of a small crawl
// into a large store: ACRAWLER_PASS_DOCS documents (50,000 by default)
// over 300 hosts, each linking to 8 others with anchor texts, crawled and
// passed once; then each op crawls 100 new pages, each linking to 8 of the
// stored documents, and runs the pass again (RefreshAnchors where the
// store has it, then SetRanks, as a crawl ends), with a new rank for every
// page, as PageRank moves every rank a little. It reports the milliseconds
// of the first pass and of a pass after a small crawl.
func BenchPassAfterSmallCrawl(b *testing.B, st crawl.Store) {
	docs := 50_000
	if n, _ := strconv.Atoi(os.Getenv("ACRAWLER_PASS_DOCS")); n > 0 {
		docs = n
	}
	ctx := context.Background()
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
		return DocResult(c, now, word()+" "+word(), strings.Repeat(word()+" ", 40), ls)
	}
	pages := docs
	pass := func() time.Duration {
		ranks := make(map[crawl.ID]float64, pages)
		for i := range pages {
			ranks[crawl.URLID(docURL(i))] = 1 + float64(i%5) + float64(pages)/1e6
		}
		start := time.Now()
		if r, ok := st.(interface{ RefreshAnchors(context.Context) error }); ok {
			if err := r.RefreshAnchors(ctx); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.SetRanks(ctx, ranks); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for i := 0; i < docs; i += 1000 {
		var urls []string
		for j := i; j < min(i+1000, docs); j++ {
			urls = append(urls, docURL(j))
		}
		CrawlDocs(b, st, urls, now, page)
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
		CrawlDocs(b, st, urls, now, page)
		pages += 100
		b.StartTimer()
		took += pass()
	}
	b.ReportMetric(float64(first.Milliseconds()), "first-pass-ms")
	b.ReportMetric(float64(took.Milliseconds())/float64(b.N), "pass-ms")
}
