package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// BenchmarkAddURLs adds new URLs in batches of 1,000 over 100 hosts; an op
// is one batch.
func BenchmarkAddURLs(b *testing.B) {
	dsn, schema := freshSchema(b)
	db := open(b, dsn, schema)
	ctx := context.Background()
	const batch = 1000
	urls := make([]crawl.NewURL, batch)
	i := 0
	for b.Loop() {
		b.StopTimer()
		for j := range urls {
			urls[j] = storetest.U(fmt.Sprintf("http://h%03d.test/%d/%d", j%100, i, j), 1, j%5)
		}
		i++
		b.StartTimer()
		st, err := db.AddURLs(ctx, urls, crawl.Limits{MaxPagesPerHost: 1 << 40})
		if err != nil || st.Added != batch {
			b.Fatalf("AddURLs = %+v, %v", st, err)
		}
	}
	b.ReportMetric(float64(i*batch)/b.Elapsed().Seconds(), "urls/s")
}

// BenchmarkAddURLsGrowing measures admitting new URLs into a growing
// frontier, as the SQLite store's BenchmarkAddURLs does: URLs of 60–120
// bytes over 20,000 hosts (Zipf-spread), in batches of 10,000 (one
// AddURLs each), none known, up to each size of ACRAWLER_BENCH_URLS
// (100,000 by default). It reports, over the last million URLs (the last
// half below two million), the adds per second and the write-ahead log
// the server wrote per URL (from its WAL insert position, so the whole
// server's: run it alone on the server to measure the store's), then the
// tables' and indexes' bytes per URL (urls and hosts), and the adds per
// second and WAL per URL of the whole run. ACRAWLER_BENCH_PATH=stage
// stages the same batches (StageURLs) instead, the final MergeStaged
// inside the measure; a staged run merges in large steps, which the last
// million does not hold whole:
//
//	ACRAWLER_TEST_POSTGRES=... ACRAWLER_BENCH_URLS=1000000 go test -run '^$' -bench BenchmarkAddURLsGrowing -benchtime 1x -timeout 60m ./internal/store/postgres
func BenchmarkAddURLsGrowing(b *testing.B) {
	sizes := []int{100_000}
	if v := os.Getenv("ACRAWLER_BENCH_URLS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("ACRAWLER_BENCH_URLS: %q is not a list of sizes", v)
			}
			sizes = append(sizes, n)
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("urls=%d", n), func(b *testing.B) {
			for range b.N {
				benchAddGrowing(b, n)
			}
		})
	}
}

func benchAddGrowing(b *testing.B, n int) {
	dsn, schema := freshSchema(b)
	db := open(b, dsn, schema)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	walBytes := func() int64 {
		var v int64
		if err := conn.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint`).Scan(&v); err != nil {
			b.Fatal(err)
		}
		return v
	}
	const hosts, batch = 20_000, 10_000
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, hosts-1)
	pad := strings.Repeat("abcdefghij", 7)
	last := min(1_000_000, n/2)
	stage := os.Getenv("ACRAWLER_BENCH_PATH") == "stage"
	var wal0 int64
	var start time.Time
	walAll, startAll := walBytes(), time.Now()
	urls := make([]crawl.NewURL, 0, batch)
	for i := 0; i < n; {
		if i == n-last || (i == 0 && last == n) {
			wal0, start = walBytes(), time.Now()
		}
		urls = urls[:0]
		for ; len(urls) < batch && i < n; i++ {
			host := fmt.Sprintf("http://www.inst%05d.edu", zipf.Uint64())
			u := fmt.Sprintf("%s/d%d/%s/%d.html", host, i%13, pad[:rng.IntN(len(pad)-30)], i)
			urls = append(urls, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(host), Host: host,
				Depth: 1, Priority: i % 7, Via: crawl.ViaLink})
		}
		if stage {
			if _, err := db.StageURLs(ctx, urls, crawl.Limits{}); err != nil {
				b.Fatalf("StageURLs: %v", err)
			}
			continue
		}
		st, err := db.AddURLs(ctx, urls, crawl.Limits{})
		if err != nil || st.Added != len(urls) {
			b.Fatalf("AddURLs = %+v, %v", st, err)
		}
	}
	if stage {
		if _, err := db.MergeStaged(ctx); err != nil {
			b.Fatalf("MergeStaged: %v", err)
		}
	}
	took, tookAll := time.Since(start), time.Since(startAll)
	wal, all := walBytes()-wal0, walBytes()-walAll
	// The frontier's tables, its runs and seen set (packed URLs) too.
	var disk int64
	if err := conn.QueryRow(ctx, `SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
		WHERE c.relnamespace = $1::regnamespace AND c.relname IN ('urls', 'hosts', 'queue_runs', 'seen') AND c.relkind = 'r'`,
		schema).Scan(&disk); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(last)/took.Seconds(), "adds/s")
	b.ReportMetric(float64(wal)/float64(last), "WAL-B/URL")
	b.ReportMetric(float64(disk)/float64(n), "disk-B/URL")
	b.ReportMetric(float64(n)/tookAll.Seconds(), "adds/s-whole")
	b.ReportMetric(float64(all)/float64(n), "WAL-B/URL-whole")
	var count, packed int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM `+schema+`.urls), (SELECT count(*) FROM `+schema+`.seen, unnest(ids) AS s(id)
		WHERE NOT EXISTS (SELECT 1 FROM `+schema+`.urls u WHERE u.id = s.id))`).Scan(&count, &packed); err != nil || count+packed != n {
		b.Fatalf("%d URLs stored, %d of them packed (%v), want %d", count+packed, packed, err, n)
	}
	b.ReportMetric(float64(packed)/float64(n), "packed")
}

// BenchmarkClaim measures the claim cycle of concurrent owners, each with
// its own pool as if in its own process: ClaimHosts (8), ClaimURLsOf (8 per
// host), one Commit of the fetched results, ReleaseHosts. An op is one URL
// claimed and committed. The budget variants set a (never reached) page
// budget, under which claims take turns. The links variants give every
// page links to the other URLs of its host and to one URL of another host,
// with or without an inbound-link bonus (and a host byte budget, never
// reached).
func BenchmarkClaim(b *testing.B) {
	for _, budget := range []bool{false, true} {
		for _, owners := range []int{1, 2, 4} {
			lim := crawl.Limits{}
			name := fmt.Sprintf("owners=%d", owners)
			if budget {
				lim.MaxPages = 1 << 40
				name += "/budget"
			}
			b.Run(name, func(b *testing.B) {
				benchClaim(b, owners, lim, false)
			})
		}
	}
	for _, bonus := range []bool{false, true} {
		for _, owners := range []int{1, 4} {
			lim := crawl.Limits{}
			name := fmt.Sprintf("owners=%d/links", owners)
			if bonus {
				lim = crawl.Limits{InlinkBonus: 1, MaxInlinkBonus: 5, MaxHostBytes: 1 << 40}
				name += "/bonus"
			}
			b.Run(name, func(b *testing.B) {
				benchClaim(b, owners, lim, true)
			})
		}
	}
}

func benchClaim(b *testing.B, owners int, lim crawl.Limits, links bool) {
	dsn, schema := freshSchema(b)
	ctx := context.Background()
	seed := open(b, dsn, schema)
	const perHost = 16
	total := b.N
	var urls []crawl.NewURL
	for i := range total + owners*8*perHost {
		urls = append(urls, storetest.U(fmt.Sprintf("http://h%06d.test/%d", i/perHost, i%perHost), 1, 0))
		if len(urls) == 1000 {
			if _, err := seed.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
				b.Fatal(err)
			}
			urls = urls[:0]
		}
	}
	if _, err := seed.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		b.Fatal(err)
	}
	stores := make([]crawl.Store, owners)
	for w := range stores {
		db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 2})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		stores[w] = db
	}
	c := storetest.ClaimCycle{Hosts: 8, PerHost: 8, Lim: lim}
	if links {
		c.Page = func(u crawl.ClaimedURL) ([]crawl.Link, []crawl.NewURL) { return hostLinks(u.URL, perHost), nil }
	}
	storetest.BenchClaims(b, stores, c)
}

// hostLinks returns links from the page at u (http://hNNNNNN.test/i) to
// the other URLs of its host and to one URL of the next host.
func hostLinks(u string, perHost int) []crawl.Link {
	var h, i int
	fmt.Sscanf(u, "http://h%d.test/%d", &h, &i)
	var out []crawl.Link
	for j := range perHost {
		if j != i {
			t := fmt.Sprintf("http://h%06d.test/%d", h, j)
			out = append(out, crawl.Link{TargetID: crawl.URLID(t), Target: t, Anchor: "a"})
		}
	}
	t := fmt.Sprintf("http://h%06d.test/%d", h+1, i)
	return append(out, crawl.Link{TargetID: crawl.URLID(t), Target: t, Anchor: "next"})
}

// BenchmarkCommitPages commits pages in batches of 64, without content
// fields (plain) and with main text, metadata and SimHashes, a quarter of
// them near one fingerprint (content: the near-duplicate lookups). An op
// is one page.
func BenchmarkCommitPages(b *testing.B) {
	for _, content := range []bool{false, true} {
		name := "plain"
		if content {
			name = "content"
		}
		b.Run(name, func(b *testing.B) {
			dsn, schema := freshSchema(b)
			db := open(b, dsn, schema)
			ctx := context.Background()
			now := time.Unix(1_800_000_000, 0)
			const hosts = 100
			var urls []crawl.NewURL
			for i := range b.N {
				urls = append(urls, storetest.U(fmt.Sprintf("http://h%03d.test/%d", i%hosts, i), 1, 0))
			}
			for i := 0; i < len(urls); i += 1000 {
				if _, err := db.AddURLs(ctx, urls[i:min(i+1000, len(urls))], crawl.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			hs, err := db.ClaimHosts(ctx, "bench", hosts, time.Hour, now)
			if err != nil {
				b.Fatal(err)
			}
			var rs []crawl.Result
			for _, h := range hs {
				cs, _, err := db.ClaimURLs(ctx, "bench", h.ID, b.N, crawl.Limits{}, now)
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range cs {
					p := &crawl.Page{URL: c.URL, Status: 200, Title: "t", Text: "text of " + c.URL, Bytes: 1000,
						ContentHash: []byte(c.URL)}
					if content {
						p.MainText = "main text of " + c.URL
						p.Meta = &crawl.Metadata{Title: "t", Authors: []string{"A. Author", "B. Author"}, Year: 2024,
							DOI: "10.5555/" + c.URL, Type: "article"}
						p.SimHash = rand.Uint64()
						if rand.IntN(4) == 0 {
							p.SimHash = 0x0123456789abcdef ^ 1<<rand.IntN(64)
						}
					}
					rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p})
				}
			}
			b.ResetTimer()
			for i := 0; i < len(rs); i += 64 {
				if _, err := db.Commit(ctx, rs[i:min(i+64, len(rs))], crawl.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rs))/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// searchCorpus generates documents with words of a vocabulary of 20,000
// made-up words drawn with Zipf frequencies (s = 1.1): titles of 8 words,
// texts of 300.
type searchCorpus struct {
	vocab []string
	zipf  *rand.Zipf
	rnd   *rand.Rand
}

func newSearchCorpus(seed uint64) *searchCorpus {
	rnd := rand.New(rand.NewPCG(seed, seed))
	c := &searchCorpus{rnd: rnd, zipf: rand.NewZipf(rnd, 1.1, 2, 19_999)}
	seen := map[string]bool{}
	for len(c.vocab) < 20_000 {
		// Lengths of 2 to 12 letters, 6 or 7 the most common.
		n := 2 + rnd.IntN(6) + rnd.IntN(6)
		w := make([]byte, n)
		for i := range w {
			w[i] = byte('a' + rnd.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			c.vocab = append(c.vocab, string(w))
		}
	}
	return c
}

// words returns n words drawn with the corpus frequencies.
func (c *searchCorpus) words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(ws, " ")
}

// BenchmarkSearch indexes 100,000 generated documents (searchCorpus) on
// 500 hosts through Commit, in batches of 100 pages with 5 links each
// (anchors of 2 words), and reports the indexing throughput (docs/s, the
// time spent in Commit) and the time SetRanks takes to rank them all and
// refresh their anchors (setranks-s). The sub-benchmarks then run 1,000
// queries of 1 to 3 words (10 results, rank weight 0.5), an op being the
// 1,000, and report the latency's median and 99th percentile: with words
// drawn with the corpus frequencies (zipf: the commonest words match most
// documents) and uniformly from the vocabulary (uniform: most words are
// rare). ACRAWLER_SEARCH_DOCS and ACRAWLER_SEARCH_WORDS change the number
// of documents and the words of each text (300, about 2 KB): 2,000 of
// 15,000 words are long PDFs' texts, whose snippets cost the most.
func BenchmarkSearch(b *testing.B) {
	const hosts, batch = 500, 100
	docs, words := 100_000, 300
	for _, v := range []struct {
		env string
		n   *int
	}{{"ACRAWLER_SEARCH_DOCS", &docs}, {"ACRAWLER_SEARCH_WORDS", &words}} {
		if s := os.Getenv(v.env); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < batch {
				b.Fatalf("%s=%q: want a number of at least %d", v.env, s, batch)
			}
			*v.n = n
		}
	}
	dsn, schema := freshSchema(b)
	db := open(b, dsn, schema)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	corpus := newSearchCorpus(1)
	rnd := corpus.rnd
	urlOf := func(i int) string { return fmt.Sprintf("http://h%03d.test/doc/%d", i%hosts, i) }
	urls := make([]crawl.NewURL, docs)
	for i := range urls {
		urls[i] = storetest.U(urlOf(i), 1, 0)
	}
	for i := 0; i < docs; i += 1000 {
		if _, err := db.AddURLs(ctx, urls[i:min(i+1000, docs)], crawl.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	hs, err := db.ClaimHosts(ctx, "bench", hosts, time.Hour, now)
	if err != nil || len(hs) != hosts {
		b.Fatalf("ClaimHosts = %d hosts, %v", len(hs), err)
	}
	claimed := map[string]crawl.ClaimedURL{}
	for _, h := range hs {
		cs, _, err := db.ClaimURLs(ctx, "bench", h.ID, docs, crawl.Limits{}, now)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cs {
			claimed[c.URL] = c
		}
	}
	types := []string{"article", "thesis", "preprint", "other", "listing", ""}
	langs := []string{"en", "en", "en", "de", "fr", "tr"}
	var indexing time.Duration
	for i := 0; i < docs; i += batch {
		rs := make([]crawl.Result, 0, batch)
		for j := i; j < min(i+batch, docs); j++ {
			c := claimed[urlOf(j)]
			body := corpus.words(words)
			p := &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", Title: corpus.words(8),
				Text: "home about research contact " + body, MainText: body, Lang: langs[j%len(langs)],
				Bytes: int64(len(body)), FetchedAt: now, ContentHash: []byte(c.URL),
				Meta: &crawl.Metadata{Type: types[j%len(types)], Year: 1990 + j%36, Authors: []string{"A. Author", "B. Author"},
					DOI: fmt.Sprintf("10.5555/%d", j)}}
			r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p}
			for range 5 {
				t := urlOf(rnd.IntN(docs))
				r.Links = append(r.Links, crawl.Link{TargetID: crawl.URLID(t), Target: t, Anchor: corpus.words(2)})
			}
			rs = append(rs, r)
		}
		start := time.Now()
		if _, err := db.Commit(ctx, rs, crawl.Limits{}); err != nil {
			b.Fatal(err)
		}
		indexing += time.Since(start)
	}
	ranks := make(map[crawl.ID]float64, docs)
	for i := range docs {
		ranks[crawl.URLID(urlOf(i))] = rnd.ExpFloat64()
	}
	start := time.Now()
	if err := db.SetRanks(ctx, ranks); err != nil {
		b.Fatal(err)
	}
	setRanks := time.Since(start)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	// What autovacuum would have done by the time users search.
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE `+pgx.Identifier{schema, "pages"}.Sanitize()); err != nil {
		b.Fatal(err)
	}
	conn.Close(ctx)

	for _, mode := range []string{"zipf", "uniform"} {
		b.Run("words="+mode, func(b *testing.B) {
			qs := make([]string, 1000)
			for i := range qs {
				ws := make([]string, 1+rnd.IntN(3))
				for j := range ws {
					if mode == "zipf" {
						ws[j] = corpus.vocab[corpus.zipf.Uint64()]
					} else {
						ws[j] = corpus.vocab[rnd.IntN(len(corpus.vocab))]
					}
				}
				qs[i] = strings.Join(ws, " ")
			}
			var lat []time.Duration
			hits := 0
			for b.Loop() {
				for _, q := range qs {
					start := time.Now()
					res, err := db.Search(ctx, crawl.SearchRequest{Query: q, Limit: 10, PageRankWeight: 0.5})
					if err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
					hits += res.Total
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100])/1e6, "p99-ms")
			b.ReportMetric(float64(hits)/float64(len(lat)), "matches/query")
			b.ReportMetric(float64(docs)/indexing.Seconds(), "docs/s")
			b.ReportMetric(setRanks.Seconds(), "setranks-s")
		})
	}
}

// BenchmarkRevisit commits revisits in batches of 64, with the outbox on:
// a third of the pages answer 304, a third the same content, a third new
// content with a new link. Before the timer starts, every page is recorded
// once, due again, and requeued by ScheduleDue (its speed is reported as
// scheduled/s). An op is one page.
func BenchmarkRevisit(b *testing.B) {
	dsn, schema := freshSchema(b)
	db, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, MaxConns: 4, Outbox: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	const hosts = 100
	var urls []crawl.NewURL
	for i := range b.N {
		urls = append(urls, storetest.U(fmt.Sprintf("http://h%03d.test/%d", i%hosts, i), 1, 0))
	}
	for i := 0; i < len(urls); i += 1000 {
		if _, err := db.AddURLs(ctx, urls[i:min(i+1000, len(urls))], crawl.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	claim := func(at time.Time) []crawl.ClaimedURL {
		hs, err := db.ClaimHosts(ctx, "bench", hosts, time.Hour, at)
		if err != nil {
			b.Fatal(err)
		}
		var out []crawl.ClaimedURL
		var rel []crawl.HostRelease
		for _, h := range hs {
			cs, _, err := db.ClaimURLs(ctx, "bench", h.ID, b.N, crawl.Limits{}, at)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, cs...)
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		if err := db.ReleaseHosts(ctx, "bench", rel); err != nil {
			b.Fatal(err)
		}
		return out
	}
	commit := func(rs []crawl.Result) {
		for i := 0; i < len(rs); i += 64 {
			if _, err := db.Commit(ctx, rs[i:min(i+64, len(rs))], crawl.Limits{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	page := func(c crawl.ClaimedURL, version string) *crawl.Page {
		return &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", Title: "t " + version,
			Text: version + " text of " + c.URL, Bytes: 1000, ContentHash: []byte(version + c.URL), FetchedAt: now}
	}
	var rs []crawl.Result
	for _, c := range claim(now) {
		rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: page(c, "v1"),
			Revisit: &crawl.Revisit{Interval: time.Hour, NextCheck: now.Add(time.Hour), Changed: true}})
	}
	commit(rs)
	later := now.Add(2 * time.Hour)
	start := time.Now()
	for {
		n, err := db.ScheduleDue(ctx, later, false, 10_000)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	scheduled := time.Since(start)
	rs = rs[:0]
	for i, c := range claim(later) {
		r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
			Revisit: &crawl.Revisit{Interval: time.Hour, NextCheck: later.Add(time.Hour), Run: 1}}
		switch i % 3 {
		case 0:
			r.Page = &crawl.Page{URL: c.URL, Status: 304, FetchedAt: later}
			r.Revisit.NotModified = true
		case 1:
			r.Page = page(c, "v1")
		case 2:
			r.Page = page(c, "v2")
			r.Revisit.Changed = true
			r.Links = []crawl.Link{{TargetID: crawl.URLID(c.URL + "/new"), Target: c.URL + "/new", Anchor: "new"}}
		}
		rs = append(rs, r)
	}
	b.ResetTimer()
	commit(rs)
	b.ReportMetric(float64(len(rs))/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(len(rs))/scheduled.Seconds(), "scheduled/s")
}
