package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
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
//     the web's publications, as a ratio to breadth-first's; beside it the
//     pages fetched by then and the CPU time of the crawl, as ratios too
//     (t95-pages-x-bfs, t95-cpu-x-bfs): on a loaded machine the crawl waits
//     for the CPU, and the time moves with what other processes do.
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
// ACRAWLER_PRIORITY_ONLY=t95 measures only the time to 95% (the other
// figures are reported as 0); ACRAWLER_PRIORITY_TRACE, with -v, logs for
// each crawl of it the requests per quarter second, what the pages fetched
// by then were, the hosts of the last publications (when each was first
// requested, first linked, and how long it waited beyond its delay) and
// the requests of the last two.
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
	t95Only := os.Getenv("ACRAWLER_PRIORITY_ONLY") == "t95"
	for b.Loop() {
		var rows []priorityRow
		for _, seed := range seeds {
			var tries []priorityRow
			for run := range runs {
				row := priorityRow{seed: seed}
				var spent string
				for i, order := range []string{"priority", "bfs"} {
					if !t95Only {
						row.share100[i], row.share1000[i] = measureBudget(b, seed, order, delay, 1000)
						s, n, pubs, other := measureBudget500(b, seed, order, delay)
						row.share500[i], row.pages500[i], row.pubs500[i] = s, n, pubs
						if i == 0 {
							spent = other
						}
					}
					row.t95[i], row.t95Pages[i], row.t95CPU[i] = timeTo95(b, seed, order, delay)
				}
				if runs > 1 {
					b.Logf("web %2d, run %d: research share at 500 pages %.1f%%, publications %.2fx, time to 95%% %.2fx (pages %.2fx, CPU %.2fx)", seed, run+1,
						100*row.share500[0], row.pubsRatio(), row.t95Ratio(), row.t95PagesRatio(), row.t95CPURatio())
				}
				b.Logf("web %2d: priority's 500 pages that are not research: %s", seed, spent)
				tries = append(tries, row)
			}
			row := medianRow(tries)
			b.Logf("web %2d: research share at 100/500/1000 pages: priority %.1f/%.1f/%.1f%%, bfs %.1f/%.1f/%.1f%%; publications at 500: %d vs %d (%.2fx); time to 95%% of publications: %v vs %v (%.2fx; pages %.2fx, CPU %.2fx)",
				seed, 100*row.share100[0], 100*row.share500[0], 100*row.share1000[0], 100*row.share100[1], 100*row.share500[1], 100*row.share1000[1],
				row.pubs500[0], row.pubs500[1], row.pubsRatio(),
				row.t95[0].Round(10*time.Millisecond), row.t95[1].Round(10*time.Millisecond), row.t95Ratio(), row.t95PagesRatio(), row.t95CPURatio())
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
		report("t95-pages-x-bfs", priorityRow.t95PagesRatio, true)
		report("t95-cpu-x-bfs", priorityRow.t95CPURatio, true)
	}
}

type priorityRow struct {
	seed                          int
	share100, share500, share1000 [2]float64 // priority, bfs
	pages500, pubs500             [2]int
	t95                           [2]time.Duration
	// t95Pages and t95CPU are the pages the crawl of t95 fetched by then
	// and the CPU time the process spent on the whole crawl: on a shared
	// machine they move less with the load than the time does.
	t95Pages [2]int
	t95CPU   [2]time.Duration
	// pubsX, t95X, t95PagesX and t95CPUX, when set, are the ratios (the
	// median of the runs' ratios, medianRow).
	pubsX, t95X, t95PagesX, t95CPUX float64
}

func (r priorityRow) pubsRatio() float64 {
	if r.pubsX > 0 {
		return r.pubsX
	}
	return ratio(r.pubs500[0], r.pubs500[1])
}

func (r priorityRow) t95PagesRatio() float64 {
	if r.t95PagesX > 0 {
		return r.t95PagesX
	}
	return ratio(r.t95Pages[0], r.t95Pages[1])
}

func (r priorityRow) t95CPURatio() float64 {
	if r.t95CPUX > 0 {
		return r.t95CPUX
	}
	return r.t95CPU[0].Seconds() / max(r.t95CPU[1].Seconds(), 1e-9)
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
		out.t95Pages[i] = int(med(func(r priorityRow) float64 { return float64(r.t95Pages[i]) }))
		out.t95CPU[i] = time.Duration(med(func(r priorityRow) float64 { return float64(r.t95CPU[i]) }))
	}
	out.pubsX, out.t95X = med(priorityRow.pubsRatio), med(priorityRow.t95Ratio)
	out.t95PagesX, out.t95CPUX = med(priorityRow.t95PagesRatio), med(priorityRow.t95CPURatio)
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
// are fetched and returns how long that took from the first request, the
// pages fetched by then and the CPU time the process spent on the crawl.
// With ACRAWLER_PRIORITY_TRACE set (and -v) it logs where the time went
// (traceT95).
func timeTo95(tb testing.TB, seed int, order string, delay time.Duration) (time.Duration, int, time.Duration) {
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
	start, cpu0 := time.Now(), cpuTime()
	priorityCrawl(tb, web, order, delay, done)
	cpu := cpuTime() - cpu0
	reqs := web.Requests()
	n, pages := 0, 0
	for _, r := range reqs {
		if r.Time.Sub(reqs[0].Time) <= at {
			n++
			if info, ok := web.Lookup("http://" + r.Host + r.Path); ok && info.Kind != "robots" && info.Kind != "sitemap" {
				pages++
			}
		}
	}
	if testing.Verbose() {
		tb.Logf("web %d, %s: 95%% of %d publications at %v, after %d requests (%d pages), %v from the crawl's start (CPU %v)", seed, order, len(want), at.Round(10*time.Millisecond), n, pages, time.Since(start).Round(10*time.Millisecond), cpu.Round(10*time.Millisecond))
		if os.Getenv("ACRAWLER_PRIORITY_TRACE") != "" {
			traceT95(tb, web, want, at)
		}
	}
	if at == 0 && !done() {
		tb.Logf("web %d, %s: the crawl ended before 95%% of the publications were fetched", seed, order)
		return 10 * time.Minute, pages, cpu
	}
	return at, pages, cpu
}

// traceT95 logs, per quarter second of a crawl, its requests, the hosts
// they went to and the publications fetched by then, and for the last
// publications the hosts they were on.
func traceT95(tb testing.TB, web *apptest.Web, want map[string]bool, at time.Duration) {
	reqs := web.Requests()
	got := map[string]bool{}
	const step = 250 * time.Millisecond
	var line strings.Builder
	n, hosts, pubs := 0, map[string]int{}, 0
	bucket := time.Duration(0)
	flush := func() {
		fmt.Fprintf(&line, " [%v: %d req %d hosts, pubs %d]", bucket, n, len(hosts), pubs)
		n, hosts = 0, map[string]int{}
	}
	for _, r := range reqs {
		d := r.Time.Sub(reqs[0].Time)
		if d > at {
			break
		}
		for d >= bucket+step {
			flush()
			bucket += step
		}
		n++
		hosts[r.Host]++
		if info, ok := web.Lookup("http://" + r.Host + r.Path); ok && want[info.URL] && !got[info.URL] {
			got[info.URL] = true
			pubs++
		}
	}
	flush()
	tb.Log("timeline:" + line.String())
	// What the pages before were, by site and kind, and where the last
	// publications were.
	siteKind := map[string]string{}
	for _, s := range web.Sites() {
		siteKind[s.Host] = s.Kind
	}
	kinds := map[string]int{}
	var late []string
	got = map[string]bool{}
	for i, r := range reqs {
		if r.Time.Sub(reqs[0].Time) > at {
			break
		}
		info, ok := web.Lookup("http://" + r.Host + r.Path)
		k := "unknown"
		if ok {
			k = info.Kind
		}
		kinds[siteKind[r.Host]+"/"+k]++
		if ok && want[info.URL] && !got[info.URL] {
			got[info.URL] = true
			if len(got) > len(want)*85/100 {
				late = append(late, fmt.Sprintf("%d:%s/%s%s", i, siteKind[r.Host], r.Host, r.Path))
			}
		}
	}
	keys := slices.Collect(maps.Keys(kinds))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(kinds[b]-kinds[a], strings.Compare(a, b)) })
	var ks []string
	for _, k := range keys {
		ks = append(ks, fmt.Sprintf("%d %s", kinds[k], k))
	}
	tb.Log("kinds: " + strings.Join(ks, ", "))
	tb.Log("late publications: " + strings.Join(late, " "))
	// Per host with publications: its first request, first and last
	// publication, publications, requests, and the time it waited beyond
	// the delay between its requests (missed windows).
	type hs struct {
		first, firstPub, lastPub, last time.Duration
		pubs, reqs                     int
		slack                          time.Duration
	}
	per := map[string]*hs{}
	got = map[string]bool{}
	for _, r := range reqs {
		d := r.Time.Sub(reqs[0].Time)
		if d > at {
			break
		}
		h := per[r.Host]
		if h == nil {
			h = &hs{first: d, firstPub: -1}
			per[r.Host] = h
		} else if g := d - h.last - 50*time.Millisecond; g > 0 {
			h.slack += g
		}
		h.last = d
		h.reqs++
		if info, ok := web.Lookup("http://" + r.Host + r.Path); ok && want[info.URL] && !got[info.URL] {
			got[info.URL] = true
			h.pubs++
			if h.firstPub < 0 {
				h.firstPub = d
			}
			h.lastPub = d
		}
	}
	hostsBy := slices.Collect(maps.Keys(per))
	slices.SortFunc(hostsBy, func(a, b string) int { return cmp.Compare(per[b].lastPub, per[a].lastPub) })
	var hl []string
	for _, k := range hostsBy[:min(12, len(hostsBy))] {
		h := per[k]
		hl = append(hl, fmt.Sprintf("%s(%s) first %v pubs %v..%v n=%d reqs=%d slack=%v", k, siteKind[k], h.first.Round(10*time.Millisecond), h.firstPub.Round(10*time.Millisecond), h.lastPub.Round(10*time.Millisecond), h.pubs, h.reqs, h.slack.Round(10*time.Millisecond)))
	}
	tb.Log("last hosts: " + strings.Join(hl, "; "))
	// When a fetched page first linked each of the last hosts.
	var body []string
	for _, r := range reqs {
		d := r.Time.Sub(reqs[0].Time)
		if d > at {
			break
		}
		rec := httptest.NewRecorder()
		web.Web.ServeHTTP(rec, httptest.NewRequest("GET", "http://"+r.Host+r.Path, nil))
		body = append(body, rec.Body.String())
	}
	var linked []string
	for _, k := range hostsBy[:min(6, len(hostsBy))] {
		for i, r := range reqs[:len(body)] {
			if r.Host != k && strings.Contains(body[i], "//"+k) {
				linked = append(linked, fmt.Sprintf("%s first linked at %v by %s(%s)%s", k, r.Time.Sub(reqs[0].Time).Round(10*time.Millisecond), r.Host, siteKind[r.Host], r.Path))
				break
			}
		}
	}
	tb.Log("linked: " + strings.Join(linked, "; "))
	for _, k := range hostsBy[:min(2, len(hostsBy))] {
		var seq []string
		for _, r := range reqs {
			d := r.Time.Sub(reqs[0].Time)
			if d > at {
				break
			}
			if r.Host == k {
				kind := "?"
				if info, ok := web.Lookup("http://" + r.Host + r.Path); ok {
					kind = info.Kind
				}
				seq = append(seq, fmt.Sprintf("%v %s %s", d.Round(10*time.Millisecond), kind, r.Path))
			}
		}
		tb.Logf("%s: %s", k, strings.Join(seq, " | "))
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
