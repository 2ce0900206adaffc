package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// BenchmarkPriority measures what the priority order is for, on varied
// test webs (testweb.Config.Varied: 40 sites whose mix, host names, URL
// vocabularies and link structures each seed draws anew; crawls start at
// their universities and blogs), against breadth-first order:
//
//   - research share at 100, 500 and 1,000 pages: the share of research
//     pages (publications, PDFs, people, research pages, publication
//     listings; not the copies of mirrors) among the pages fetched. The
//     500-page figure comes from a crawl with --max-pages 500; the 100
//     and 1,000 figures from the first 100 and all of a --max-pages 1000
//     crawl.
//   - publications at 500 pages: the distinct publications fetched by the
//     500-page crawl, as a ratio to breadth-first's on the same web;
//   - time to 95%: how long a crawl without a budget takes to fetch 95% of
//     the web's publications, as a ratio to breadth-first's.
//
// With -v it also prints, for each web, what the priority order's 500
// pages that are not research were, by site and page kind (the most
// frequent first: "12 university/home" are twelve universities' home
// pages).
//
// It reports the mean and the worst over the webs. Run it with
//
//	ACRAWLER_PRIORITY_WEBS=20 go test -run '^$' -bench BenchmarkPriority -benchtime 1x -timeout 60m ./cmd/acrawler
//
// ACRAWLER_PRIORITY_WEBS is the number of webs (seeds F..F+N-1, default
// 4), ACRAWLER_PRIORITY_FROM the first seed F (default 1: several
// processes can each measure a part of the webs), ACRAWLER_PRIORITY_SEEDS
// a list of seeds instead ("5,17"), ACRAWLER_PRIORITY_DELAY the
// politeness delay (default 50ms). ACRAWLER_PRIORITY_RUNS (default 1)
// measures each web that many times and takes each figure's median over
// the runs (one web's research share at 500 pages moves by 10 points
// between runs). -v prints the figures of each web (and of each run).
func BenchmarkPriority(b *testing.B) {
	delay := 50 * time.Millisecond
	if v := os.Getenv("ACRAWLER_PRIORITY_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("ACRAWLER_PRIORITY_DELAY: %v", err)
		}
		delay = d
	}
	seeds := priorityWebs(b)
	runs := envInt("ACRAWLER_PRIORITY_RUNS", 1)
	for b.Loop() {
		var rows []priorityRow
		for _, seed := range seeds {
			var tries []priorityRow
			for run := range runs {
				row := priorityRow{seed: seed}
				var spent string
				for i, order := range []string{"priority", "bfs"} {
					row.share100[i], row.share1000[i] = measureBudget(b, seed, order, delay, 1000)
					s, n, pubs, other := measureBudget500(b, seed, order, delay)
					row.share500[i], row.pages500[i], row.pubs500[i] = s, n, pubs
					if i == 0 {
						spent = other
					}
					row.t95[i] = timeTo95(b, seed, order, delay)
				}
				if runs > 1 {
					b.Logf("web %2d, run %d: research share at 500 pages %.1f%%, publications %.2fx, time to 95%% %.2fx", seed, run+1,
						100*row.share500[0], row.pubsRatio(), row.t95Ratio())
				}
				b.Logf("web %2d: priority's 500 pages that are not research: %s", seed, spent)
				tries = append(tries, row)
			}
			row := medianRow(tries)
			b.Logf("web %2d: research share at 100/500/1000 pages: priority %.1f/%.1f/%.1f%%, bfs %.1f/%.1f/%.1f%%; publications at 500: %d vs %d (%.2fx); time to 95%% of publications: %v vs %v (%.2fx)",
				seed, 100*row.share100[0], 100*row.share500[0], 100*row.share1000[0], 100*row.share100[1], 100*row.share500[1], 100*row.share1000[1],
				row.pubs500[0], row.pubs500[1], row.pubsRatio(),
				row.t95[0].Round(10*time.Millisecond), row.t95[1].Round(10*time.Millisecond), row.t95Ratio())
			rows = append(rows, row)
		}
		report := func(name string, f func(r priorityRow) float64, worstIsMax bool) {
			vals := make([]float64, len(rows))
			sum := 0.0
			for i, r := range rows {
				vals[i] = f(r)
				sum += vals[i]
			}
			worst := slices.Min(vals)
			if worstIsMax {
				worst = slices.Max(vals)
			}
			b.ReportMetric(sum/float64(len(vals)), name+"-mean")
			b.ReportMetric(worst, name+"-worst")
		}
		report("prio%@100", func(r priorityRow) float64 { return 100 * r.share100[0] }, false)
		report("prio%@500", func(r priorityRow) float64 { return 100 * r.share500[0] }, false)
		report("prio%@1000", func(r priorityRow) float64 { return 100 * r.share1000[0] }, false)
		report("bfs%@100", func(r priorityRow) float64 { return 100 * r.share100[1] }, false)
		report("bfs%@500", func(r priorityRow) float64 { return 100 * r.share500[1] }, false)
		report("bfs%@1000", func(r priorityRow) float64 { return 100 * r.share1000[1] }, false)
		report("pubs-x-bfs@500", priorityRow.pubsRatio, false)
		report("t95-x-bfs", priorityRow.t95Ratio, true)
	}
}

type priorityRow struct {
	seed                          int
	share100, share500, share1000 [2]float64 // priority, bfs
	pages500, pubs500             [2]int
	t95                           [2]time.Duration
	// pubsX and t95X, when set, are the ratios (the median of the runs'
	// ratios, medianRow).
	pubsX, t95X float64
}

func (r priorityRow) pubsRatio() float64 {
	if r.pubsX > 0 {
		return r.pubsX
	}
	return ratio(r.pubs500[0], r.pubs500[1])
}

func (r priorityRow) t95Ratio() float64 {
	if r.t95X > 0 {
		return r.t95X
	}
	return r.t95[0].Seconds() / max(r.t95[1].Seconds(), 1e-9)
}

// medianRow is the median of each figure over runs of one web (for an
// even number of runs, the upper middle one); the ratios are the medians
// of the runs' ratios.
func medianRow(runs []priorityRow) priorityRow {
	if len(runs) == 1 {
		return runs[0]
	}
	med := func(f func(r priorityRow) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	out := priorityRow{seed: runs[0].seed}
	for i := range 2 {
		out.share100[i] = med(func(r priorityRow) float64 { return r.share100[i] })
		out.share500[i] = med(func(r priorityRow) float64 { return r.share500[i] })
		out.share1000[i] = med(func(r priorityRow) float64 { return r.share1000[i] })
		out.pages500[i] = int(med(func(r priorityRow) float64 { return float64(r.pages500[i]) }))
		out.pubs500[i] = int(med(func(r priorityRow) float64 { return float64(r.pubs500[i]) }))
		out.t95[i] = time.Duration(med(func(r priorityRow) float64 { return float64(r.t95[i]) }))
	}
	out.pubsX, out.t95X = med(priorityRow.pubsRatio), med(priorityRow.t95Ratio)
	return out
}

// priorityWebs is the seeds of the webs to measure: ACRAWLER_PRIORITY_SEEDS
// (a list, "5,17"), else ACRAWLER_PRIORITY_WEBS from ACRAWLER_PRIORITY_FROM.
func priorityWebs(tb testing.TB) []int {
	if v := os.Getenv("ACRAWLER_PRIORITY_SEEDS"); v != "" {
		var seeds []int
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				tb.Fatalf("ACRAWLER_PRIORITY_SEEDS: %q is no seed", f)
			}
			seeds = append(seeds, n)
		}
		return seeds
	}
	webs := envInt("ACRAWLER_PRIORITY_WEBS", 4)
	from := envInt("ACRAWLER_PRIORITY_FROM", 1)
	var seeds []int
	for seed := from; seed < from+webs; seed++ {
		seeds = append(seeds, seed)
	}
	return seeds
}

func ratio(a, b int) float64 { return float64(a) / float64(max(b, 1)) }

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return def
}

// variedWeb is the benchmark's web of one seed, served as a proxy.
func variedWeb(tb testing.TB, seed int) *apptest.Web {
	return apptest.NewWeb(tb, testweb.Config{Seed: int64(seed), Varied: true, Sites: 40, PagesPerSite: 40, NoFaults: true})
}

// priorityCrawl crawls web in one order; stop, when set, is polled and
// ends the crawl when it returns true.
func priorityCrawl(tb testing.TB, web *apptest.Web, order string, delay time.Duration, stop func() bool, extra ...string) {
	db := filepath.Join(tb.TempDir(), "crawl.db")
	args := append(web.CrawlArgs(db, "--delay", delay.String(), "--order", order, "--scope", "any", "--max-depth", "0",
		"--workers", "4", "--no-pdf", "--warc", "off"), extra...)
	args = append(args, web.Seeds()...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if stop != nil {
		go func() {
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if stop() {
						cancel()
						return
					}
				}
			}
		}()
	}
	var out, errb strings.Builder
	if err := Run(ctx, args, &out, &errb); err != nil && ctx.Err() == nil {
		tb.Fatalf("acrawler %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
}

// fetchedPages classifies the pages a crawl fetched, in order: whether
// each is research content (academic and no copy) and, for publications,
// the publication's URL.
func fetchedPages(web *apptest.Web) (research []bool, pubs []string) {
	for _, u := range apptest.PageRequests(web) {
		info, ok := web.Lookup(u)
		if !ok && strings.HasSuffix(u, "/sitemap.xml") {
			continue // a sitemap looked for where there is none
		}
		if !ok {
			research = append(research, false)
			pubs = append(pubs, "")
			continue
		}
		switch info.Kind {
		case "sitemap", "robots", "redirect", "asset":
			continue
		}
		research = append(research, info.Academic && info.Kind != "duplicate" && info.Kind != "alias")
		pub := ""
		if info.Kind == "publication" {
			pub = info.Canonical
		}
		pubs = append(pubs, pub)
	}
	return research, pubs
}

func shareOf(research []bool, n int) float64 {
	n = min(n, len(research))
	k := 0
	for _, r := range research[:n] {
		if r {
			k++
		}
	}
	return float64(k) / float64(max(n, 1))
}

func distinct(pubs []string) int {
	seen := map[string]bool{}
	for _, p := range pubs {
		if p != "" {
			seen[p] = true
		}
	}
	return len(seen)
}

// measureBudget crawls with a page budget and returns the research share
// of the first 100 pages and of all.
func measureBudget(tb testing.TB, seed int, order string, delay time.Duration, budget int) (s100, all float64) {
	web := variedWeb(tb, seed)
	priorityCrawl(tb, web, order, delay, nil, "--max-pages", fmt.Sprint(budget))
	research, _ := fetchedPages(web)
	return shareOf(research, 100), shareOf(research, len(research))
}

// measureBudget500 crawls with a 500-page budget and returns the research
// share, the pages fetched, the distinct publications fetched and what
// the pages that are not research were (spentOn).
func measureBudget500(tb testing.TB, seed int, order string, delay time.Duration) (float64, int, int, string) {
	web := variedWeb(tb, seed)
	priorityCrawl(tb, web, order, delay, nil, "--max-pages", "500")
	research, pubs := fetchedPages(web)
	return shareOf(research, len(research)), len(research), distinct(pubs), spentOn(web)
}

// spentOn counts the pages a crawl fetched that are not research by the
// kind of their site and their own kind ("mirror/duplicate": a mirror's
// copy), the most frequent first.
func spentOn(web *apptest.Web) string {
	siteKind := map[string]string{}
	for _, s := range web.Sites() {
		siteKind[s.Host] = s.Kind
	}
	count := map[string]int{}
	for _, u := range apptest.PageRequests(web) {
		info, ok := web.Lookup(u)
		kind := "unknown"
		if ok {
			switch info.Kind {
			case "sitemap", "robots", "redirect", "asset":
				continue
			}
			if info.Academic && info.Kind != "duplicate" && info.Kind != "alias" {
				continue
			}
			kind = info.Kind
		} else if strings.HasSuffix(u, "/sitemap.xml") {
			continue
		}
		host := strings.TrimPrefix(u, "http://")
		host, _, _ = strings.Cut(host, "/")
		count[cmp.Or(siteKind[host], "other")+"/"+kind]++
	}
	keys := slices.Collect(maps.Keys(count))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", count[k], k)
	}
	return strings.Join(parts, ", ")
}

// timeTo95 crawls without a budget until 95% of the web's publications
// are fetched and returns how long that took from the first request.
func timeTo95(tb testing.TB, seed int, order string, delay time.Duration) time.Duration {
	web := variedWeb(tb, seed)
	want := map[string]bool{}
	for _, p := range web.Pages() {
		if p.Kind == "publication" && !p.Disallowed && p.Status == 200 {
			want[p.URL] = true
		}
	}
	need := (len(want)*95 + 99) / 100
	var at time.Duration
	done := func() bool {
		reqs := web.Requests()
		got := map[string]bool{}
		for _, r := range reqs {
			info, ok := web.Lookup("http://" + r.Host + r.Path)
			if ok && want[info.URL] && !got[info.URL] {
				got[info.URL] = true
				if len(got) == need {
					at = r.Time.Sub(reqs[0].Time)
					return true
				}
			}
		}
		return false
	}
	priorityCrawl(tb, web, order, delay, done)
	if at == 0 && !done() {
		tb.Logf("web %d, %s: the crawl ended before 95%% of the publications were fetched", seed, order)
		return 10 * time.Minute
	}
	return at
}
