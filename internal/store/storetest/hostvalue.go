package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// hostValuer is what a store offers a frontier that ranks hosts by what
// their recorded pages turned out to be.
type hostValuer interface {
	ValueHosts(ctx context.Context, ids []crawl.ID) ([]int, error)
}

var hostValueTests = []test{
	{"HostValueFromRecordedPages", testHostValue},
}

// testHostValue records four pages on each of three hosts: articles on
// a.test, a person's page and pages of no research type on b.test, and on
// m.test copies of a.test's articles (a mirror); c.test has none recorded.
// Their values follow ((24·research + 12·people and lists − 24·copies −
// 6·pages) / (pages + 4)), survive a restart, are shown by HostStats with
// what they were learned from, and order the hosts ClaimHosts leases.
func testHostValue(t *testing.T, e *env) {
	if _, ok := e.s.(hostValuer); !ok {
		t.Skip("the store does not value hosts")
	}
	hosts := []string{"http://a.test", "http://m.test", "http://b.test", "http://c.test"}
	for _, h := range hosts {
		for i := range 5 {
			e.add(crawl.Limits{}, U(fmt.Sprintf("%s/%d", h, i), 1, 0))
		}
	}
	record := func(host string, typ func(i int) string, text func(i int) string) {
		t.Helper()
		id := crawl.HashID(host)
		if hs := e.claimHosts("p", 4); len(hs) == 0 {
			t.Fatalf("no host to claim for %s", host)
		}
		cs := e.claimURLs("p", id, 4, crawl.Limits{})
		var rs []crawl.Result
		for i, c := range cs {
			r := done(c, text(i))
			r.Page.Meta = &crawl.Metadata{Type: typ(i), Title: "t"}
			rs = append(rs, r)
		}
		e.commit(crawl.Limits{}, rs...)
		if err := e.s.ReleaseHosts(e.ctx, "p", rel(crawl.HashID("http://a.test"), crawl.HashID("http://m.test"),
			crawl.HashID("http://b.test"), crawl.HashID("http://c.test"))); err != nil {
			t.Fatal(err)
		}
	}
	record("http://a.test", func(int) string { return "article" }, func(i int) string { return fmt.Sprint("paper ", i) })
	record("http://m.test", func(int) string { return "article" }, func(i int) string { return fmt.Sprint("paper ", i) })
	record("http://b.test", func(i int) string { return []string{"other", "news", "other", "person"}[i] }, func(i int) string { return fmt.Sprint("post ", i) })

	ids := make([]crawl.ID, len(hosts))
	for i, h := range hosts {
		ids[i] = crawl.HashID(h)
	}
	// a: (96−24)/8 = 9; m: (−96−24)/8 = −15; b: (12−24)/8 = −1 (truncated);
	// c: nothing recorded, 0.
	want := []int{9, -15, -1, 0}
	check := func(when string) {
		t.Helper()
		got, err := e.s.(hostValuer).ValueHosts(e.ctx, ids)
		if err != nil {
			t.Fatalf("ValueHosts: %v", err)
		}
		for i := range hosts {
			if got[i] != want[i] {
				t.Errorf("%s: value of %s = %d, want %d", when, hosts[i], got[i], want[i])
			}
		}
	}
	check("after the pages are recorded")
	e.s.Close()
	e.s = e.reopen()
	check("after a restart")

	// HostStats shows each value and what it was learned from.
	stats, err := e.s.HostStats(e.ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	type learned struct {
		value                            int
		pages, research, related, copies int64
	}
	wantStats := map[string]learned{"http://a.test": {9, 4, 4, 0, 0}, "http://m.test": {-15, 4, 0, 0, 4},
		"http://b.test": {-1, 4, 0, 1, 0}, "http://c.test": {}}
	for _, h := range stats {
		w, ok := wantStats[h.Key]
		if !ok {
			continue
		}
		delete(wantStats, h.Key)
		if got := (learned{h.Value, h.ValuePages, h.ValueResearch, h.ValueRelated, h.ValueCopies}); got != w {
			t.Errorf("HostStats of %s: value %d from %d pages, %d research, %d related, %d copies; want %+v",
				h.Key, got.value, got.pages, got.research, got.related, got.copies, w)
		}
	}
	if len(wantStats) > 0 {
		t.Errorf("HostStats left out %v", wantStats)
	}

	// Each host has one URL queued, of one priority: they are leased by
	// value.
	var order []string
	for range hosts {
		hs := e.claimHosts(fmt.Sprint("q", len(order)), 1)
		if len(hs) != 1 {
			t.Fatalf("claimed %d hosts, want 1", len(hs))
		}
		order = append(order, hs[0].Key)
	}
	if wantOrder := []string{"http://a.test", "http://c.test", "http://b.test", "http://m.test"}; !eq(order, wantOrder) {
		t.Errorf("hosts claimed in order %v, want %v (by value)", order, wantOrder)
	}
}
