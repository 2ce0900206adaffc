package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// academicShare crawls the test web with a page budget in one order and
// returns the share of academic pages among the pages fetched.
func academicShare(t *testing.T, order string, budget int) (share float64, fetched int) {
	t.Helper()
	web := apptest.NewWeb(t, testweb.Config{Seed: 8, Sites: 6, PagesPerSite: 60, NoFaults: true})
	db := apptest.Backends[0].NewDB(t)
	args := append(web.CrawlArgs(db, "--delay", "0", "--order", order, "--max-pages", fmt.Sprint(budget),
		"--scope", "any", "--max-depth", "0", "--workers", "4"), web.Seeds()...)
	mustCrawl(t, args...)
	academic := 0
	for _, u := range apptest.PageRequests(web) {
		info, ok := web.Lookup(u)
		// Pages only: not robots.txt, sitemaps or redirects (a redirect's
		// target is counted when it is fetched).
		if !ok || info.Kind == "sitemap" || info.Kind == "robots" || info.Kind == "redirect" {
			continue
		}
		fetched++
		if info.Academic {
			academic++
		}
	}
	return float64(academic) / float64(max(fetched, 1)), fetched
}

// TestPriorityFindsResearchFirst measures what the priority order is for:
// with a page budget, the share of research pages among those fetched,
// against breadth-first order.
func TestPriorityFindsResearchFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web twice")
	}
	t.Parallel()
	const budget = 300
	prio, n1 := academicShare(t, "priority", budget)
	bfs, n2 := academicShare(t, "bfs", budget)
	t.Logf("academic share of %d pages: priority %.1f%% (%d pages), bfs %.1f%% (%d pages)", budget, 100*prio, n1, 100*bfs, n2)
	if prio < bfs+0.15 {
		t.Errorf("priority order fetched %.1f%% academic pages, bfs %.1f%%: want priority clearly better (≥ 15 points)", 100*prio, 100*bfs)
	}
}

// TestPriorityOnVariedWeb measures the same on a varied web (one the
// tests did not write by hand: its sites, URL vocabularies and links come
// from the seed), with a politeness delay so that hosts take turns: the
// share of research pages (no mirror copies) among those fetched within a
// page budget, and the publications fetched, against breadth-first order.
func TestPriorityOnVariedWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls a varied test web twice")
	}
	t.Parallel()
	const budget = 150
	measure := func(order string) (float64, int) {
		web := apptest.NewWeb(t, testweb.Config{Seed: 5, Varied: true, Sites: 24, PagesPerSite: 24, NoFaults: true})
		priorityCrawl(t, web, order, 20*time.Millisecond, nil, "--max-pages", fmt.Sprint(budget))
		research, pubs := fetchedPages(web)
		return shareOf(research, len(research)), distinct(pubs)
	}
	prio, prioPubs := measure("priority")
	bfs, bfsPubs := measure("bfs")
	t.Logf("research share of %d pages: priority %.1f%% (%d publications), bfs %.1f%% (%d publications)", budget, 100*prio, prioPubs, 100*bfs, bfsPubs)
	if prio < bfs+0.15 || prioPubs <= bfsPubs {
		t.Errorf("priority order fetched %.1f%% research pages and %d publications, bfs %.1f%% and %d: want priority clearly better (≥ 15 points, more publications)",
			100*prio, prioPubs, 100*bfs, bfsPubs)
	}
}

// TestStatsShowHostValues: after a crawl in priority order, `stats --json`
// and `stats` show each host's learned value and why: the web's research
// sites (universities, journals, labs) are valued above its blogs, news
// sites and shops, for their research (on the mean, and nearly every
// research site above every shop); blogs are valued above what their own
// pages are worth, for the research their posts cite.
func TestStatsShowHostValues(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls a varied test web")
	}
	t.Parallel()
	web := apptest.NewWeb(t, testweb.Config{Seed: 5, Varied: true, Sites: 24, PagesPerSite: 24, NoFaults: true})
	db := apptest.Backends[0].NewDB(t)
	args := append(web.CrawlArgs(db, "--delay", "0", "--order", "priority", "--max-pages", "600", "--scope", "any",
		"--max-depth", "0", "--workers", "4", "--no-pdf"), web.Seeds()...)
	mustCrawl(t, args...)
	out, errs, err := runCmd(t, "stats", "--db", db, "--json", "--hosts", "0")
	if err != nil {
		t.Fatalf("stats --json: %v\n%s", err, errs)
	}
	var r struct {
		Hosts []struct {
			Host        string `json:"host"`
			Value       int    `json:"value"`
			ValueReason string `json:"value_reason"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("stats --json does not parse: %v", err)
	}
	kind := map[string]string{}
	for _, s := range web.Sites() {
		kind[s.Origin] = s.Kind
	}
	best := map[bool]int{true: -1 << 30, false: -1 << 30} // by research site
	worst := map[bool]int{true: 1 << 30, false: 1 << 30}
	valued := map[bool]int{}
	sum := map[bool]int{}
	var researchValues []int
	byKind, ofKind := map[string]int{}, map[string]int{}
	blogsOwn := 0 // what the blogs' own pages are worth, citing nothing
	bestShop := -1 << 30
	for _, h := range r.Hosts {
		if h.ValueReason == "" {
			continue
		}
		if kind[h.Host] == "shop" {
			bestShop = max(bestShop, h.Value)
		}
		byKind[kind[h.Host]] += h.Value
		ofKind[kind[h.Host]]++
		if kind[h.Host] == "blog" {
			var research, pages, related, copies int
			_, why, _ := strings.Cut(h.ValueReason, ": ")
			if _, err := fmt.Sscanf(why, "%d of its last %d pages research, %d people or publication lists, %d copies",
				&research, &pages, &related, &copies); err != nil {
				t.Fatalf("%s: value reason %q: %v", h.Host, h.ValueReason, err)
			}
			blogsOwn += (24*research + 12*related - 24*copies - 6*pages) / (pages + 4)
		}
		research := false
		switch kind[h.Host] {
		case "university", "journal", "lab":
			research = true
		case "blog", "news", "shop":
		default:
			continue
		}
		valued[research]++
		sum[research] += h.Value
		if research {
			researchValues = append(researchValues, h.Value)
		}
		best[research], worst[research] = max(best[research], h.Value), min(worst[research], h.Value)
		if research && h.Value > 0 && !strings.Contains(h.ValueReason, "research") {
			t.Errorf("%s valued %d: %q, want the research it was learned from", h.Host, h.Value, h.ValueReason)
		}
	}
	t.Logf("research sites valued %d..%d (%d), others %d..%d (%d)", worst[true], best[true], valued[true], worst[false], best[false], valued[false])
	if valued[true] == 0 || valued[false] == 0 {
		t.Fatalf("valued %d research sites and %d others; want both", valued[true], valued[false])
	}
	if sum[true] <= 0 || sum[true]*valued[false] <= sum[false]*valued[true] || byKind["shop"] >= 0 {
		t.Errorf("research sites valued %d in all (%d sites), blogs, news sites and shops %d (%d), shops %d: want research above 0 and above the others on the mean, shops below 0",
			sum[true], valued[true], sum[false], valued[false], byKind["shop"])
	}
	// Blogs are worth the research their posts cite: above what their own
	// pages alone are worth (the value from the counts in the reason).
	t.Logf("values by kind of site (sum over sites): %v of %v; blogs' own pages worth %d", byKind, ofKind, blogsOwn)
	if ofKind["blog"] == 0 {
		t.Fatal("no blog valued")
	}
	if byKind["blog"] <= blogsOwn {
		t.Errorf("blogs valued %d in all, their own pages worth %d: want the research their posts cite to count", byKind["blog"], blogsOwn)
	}
	// A blog citing much research may be worth as much as a research site
	// seen on a few pages; a shop cites none.
	above := 0
	for _, v := range researchValues {
		if v > bestShop {
			above++
		}
	}
	if above*4 < len(researchValues)*3 {
		t.Errorf("%d of %d research sites valued above every shop (best %d): want at least three quarters",
			above, len(researchValues), bestShop)
	}
	text, errs, err := runCmd(t, "stats", "--db", db)
	if err != nil {
		t.Fatalf("stats: %v\n%s", err, errs)
	}
	if !strings.Contains(text, "value") || !strings.Contains(text, "of its last") {
		t.Errorf("stats does not show host values and why:\n%s", text)
	}
}
