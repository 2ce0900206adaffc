package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// hostValuer is what a store offers a frontier that ranks hosts by what
// their recorded pages turned out to be.
type hostValuer interface {
	ValueHosts(ctx context.Context, ids []crawl.ID) ([]int, error)
}

// mirrorKeeper is what a store offers a frontier that records the hosts
// found to be mirrors of others.
type mirrorKeeper interface {
	MarkMirror(ctx context.Context, host, original crawl.ID) error
}

var hostValueTests = []test{
	{"HostValueFromRecordedPages", testHostValue},
	{"HostValueOfMirror", testHostValueMirror},
	{"HostValueOfMirrorClaimedLast", testHostValueMirrorClaimedLast},
	{"HostValueFromCitedResearch", testHostValueCites},
	{"HostValueOfUnreadFiles", testHostValueUnread},
	{"HostValueCitesAHostOfItsBits", testHostValueSameBits},
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

// testHostValueCites records a journal's paper (j.test), then four pages
// of no research type on each of two blogs. Three of h.test's pages cite
// research on another host: two link to articles not yet fetched that
// rank 8 where the page ranks 0 (at least 6 above: a link to research by
// its own URL and anchor), one to the journal's recorded paper, which
// ranks only 2; its fourth page links to a high-ranking URL of its own
// host and to an ordinary page of another host. n.test's pages link only
// to the ordinary page. A citing page counts half a research page:
// h.test (24·0 + 12·3 − 6·4) / 8 = 1, n.test (−6·4) / 8 = −3.
func testHostValueCites(t *testing.T, e *env) {
	if _, ok := e.s.(hostValuer); !ok {
		t.Skip("the store does not value hosts")
	}
	for _, h := range []string{"http://h.test", "http://n.test"} {
		for i := range 4 {
			e.add(crawl.Limits{}, U(fmt.Sprintf("%s/%d", h, i), 1, 0))
		}
	}
	for i := range 4 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("http://p.test/product/%d", i), 1, -8))
	}
	e.add(crawl.Limits{}, U("http://j.test/x9", 2, 2))
	link := func(raw string, priority int) (crawl.Link, crawl.NewURL) {
		u := U(raw, 2, priority)
		return crawl.Link{TargetID: u.ID, Target: raw, Anchor: "a"}, u
	}
	record := func(host string, typ string, links func(i int) [][2]any) {
		t.Helper()
		id := crawl.HashID(host)
		var ids []crawl.ID
		for _, h := range e.claimHosts("p", 10) {
			ids = append(ids, h.ID)
		}
		cs := e.claimURLs("p", id, 4, crawl.Limits{})
		if len(cs) == 0 {
			t.Fatalf("no URL of %s to claim", host)
		}
		var rs []crawl.Result
		for i, c := range cs {
			r := done(c, fmt.Sprint(host, " page ", i))
			r.Page.Meta = &crawl.Metadata{Type: typ, Title: "t"}
			for _, l := range links(i) {
				lk, u := link(l[0].(string), l[1].(int))
				r.Links = append(r.Links, lk)
				r.Discovered = append(r.Discovered, u)
			}
			rs = append(rs, r)
		}
		e.commit(crawl.Limits{}, rs...)
		if err := e.s.ReleaseHosts(e.ctx, "p", rel(ids...)); err != nil {
			t.Fatal(err)
		}
	}
	record("http://j.test", "article", func(int) [][2]any { return nil })
	record("http://h.test", "other", func(i int) [][2]any {
		switch i {
		case 0, 1:
			return [][2]any{{fmt.Sprintf("http://j.test/article/%d", i), 8}}
		case 2:
			return [][2]any{{"http://j.test/x9", 2}}
		}
		return [][2]any{{"http://h.test/publications/", 10}, {"http://s.test/home", 3}}
	})
	record("http://n.test", "other", func(int) [][2]any { return [][2]any{{"http://s.test/home", 3}} })
	// A shop's product pages (ranking below 0) linking to an ordinary page
	// elsewhere, 11 above them, cite nothing: that page ranks less than 6
	// above 0.
	record("http://p.test", "other", func(int) [][2]any { return [][2]any{{"http://s.test/social", 3}} })

	hosts := []string{"http://h.test", "http://n.test", "http://j.test", "http://p.test"}
	ids := make([]crawl.ID, len(hosts))
	for i, h := range hosts {
		ids[i] = crawl.HashID(h)
	}
	got, err := e.s.(hostValuer).ValueHosts(e.ctx, ids)
	if err != nil {
		t.Fatalf("ValueHosts: %v", err)
	}
	// j.test: one article, (24 − 6) / 5 = 3; p.test: 4 pages citing
	// nothing, −24 / 8 = −3.
	for i, want := range []int{1, -3, 3, -3} {
		if got[i] != want {
			t.Errorf("value of %s = %d, want %d", hosts[i], got[i], want)
		}
	}
}

// testHostValueUnread records on d.test two files whose text was not read
// (no type: PDFs recorded without their text), a page of no research type
// and a sitemap. The files count as research, the sitemap not at all:
// (24·2 − 6·3) / 7 = 4.
func testHostValueUnread(t *testing.T, e *env) {
	if _, ok := e.s.(hostValuer); !ok {
		t.Skip("the store does not value hosts")
	}
	for i := range 3 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("http://d.test/files/%d", i), 1, 0))
	}
	sm := U("http://d.test/sitemap.xml", 0, 0)
	sm.Kind = crawl.KindSitemap
	e.add(crawl.Limits{}, sm)
	id := crawl.HashID("http://d.test")
	if hs := e.claimHosts("p", 1); len(hs) != 1 {
		t.Fatalf("claimed %d hosts, want 1", len(hs))
	}
	cs := e.claimURLs("p", id, 4, crawl.Limits{})
	if len(cs) != 4 {
		t.Fatalf("claimed %d URLs, want 4", len(cs))
	}
	var rs []crawl.Result
	for _, c := range cs {
		r := done(c, "body of "+c.URL)
		switch {
		case strings.HasSuffix(c.URL, "/sitemap.xml"):
			r.Page.ContentType = "application/xml"
		case strings.HasSuffix(c.URL, "/2"):
			r.Page.Meta = &crawl.Metadata{Type: "other", Title: "t"}
		default:
			r.Page.ContentType = "application/pdf"
		}
		rs = append(rs, r)
	}
	e.commit(crawl.Limits{}, rs...)
	got, err := e.s.(hostValuer).ValueHosts(e.ctx, []crawl.ID{id})
	if err != nil {
		t.Fatalf("ValueHosts: %v", err)
	}
	if len(got) != 1 || got[0] != 4 {
		t.Errorf("value of d.test = %v, want 4 (two unread files of three pages; the sitemap not counted)", got)
	}
}

// testHostValueSameBits records four pages of no research type on x.test,
// three of which link to URLs not yet fetched that rank 8 on another host
// whose IDs have x.test's host bits (crawl.HostBits: found by trying
// names), the fourth to a URL of its own host that ranks 10. The three
// cite research and the fourth does not, although all their targets have
// the bits of x.test's own URLs: (12·3 − 6·4) / 8 = 1.
func testHostValueSameBits(t *testing.T, e *env) {
	if _, ok := e.s.(hostValuer); !ok {
		t.Skip("the store does not value hosts")
	}
	const x = "http://x.test"
	id := crawl.HashID(x)
	other := ""
	for i := 0; other == ""; i++ {
		if h := fmt.Sprintf("http://y%d.test", i); crawl.HostBits(crawl.HashID(h)) == crawl.HostBits(id) {
			other = h
		}
	}
	for i := range 4 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("%s/%d", x, i), 1, 0))
	}
	if hs := e.claimHosts("p", 1); len(hs) != 1 || hs[0].ID != id {
		t.Fatalf("claimed %v, want %s", hs, x)
	}
	cs := e.claimURLs("p", id, 4, crawl.Limits{})
	if len(cs) != 4 {
		t.Fatalf("claimed %d URLs, want 4", len(cs))
	}
	var rs []crawl.Result
	for i, c := range cs {
		r := done(c, fmt.Sprint("post ", i))
		r.Page.Meta = &crawl.Metadata{Type: "other", Title: "t"}
		target := U(fmt.Sprintf("%s/article/%d", other, i), 2, 8)
		if i == 3 {
			target = U(x+"/publications/", 2, 10)
		}
		if crawl.HostBits(target.ID) != crawl.HostBits(id) {
			t.Fatalf("%s has other host bits than %s", target.URL, x)
		}
		r.Links = append(r.Links, crawl.Link{TargetID: target.ID, Target: target.URL, Anchor: "a"})
		r.Discovered = append(r.Discovered, target)
		rs = append(rs, r)
	}
	e.commit(crawl.Limits{}, rs...)
	got, err := e.s.(hostValuer).ValueHosts(e.ctx, []crawl.ID{id})
	if err != nil {
		t.Fatalf("ValueHosts: %v", err)
	}
	if len(got) != 1 || got[0] != 1 {
		t.Errorf("value of %s = %v, want 1 (three of four pages cite %s, of its host bits)", x, got, other)
	}
}

// testHostValueMirror records four articles on each of a.test and m.test,
// then records m.test as a mirror of a.test: m.test, learned to be worth
// (24·4 − 6·4) / 8 = 9, is worth crawl.MirrorValue from then on, after a
// restart and after it is valued anew, and HostStats names its original
// (a.test's value and stats untouched). A mark naming a host not known,
// or the host itself, changes nothing; clearing the mark gives m.test its
// learned value back.
func testHostValueMirror(t *testing.T, e *env) {
	if _, ok := e.s.(hostValuer); !ok {
		t.Skip("the store does not value hosts")
	}
	if _, ok := e.s.(mirrorKeeper); !ok {
		t.Skip("the store does not record mirrors")
	}
	hosts := []string{"http://a.test", "http://m.test"}
	ids := []crawl.ID{crawl.HashID(hosts[0]), crawl.HashID(hosts[1])}
	for _, h := range hosts {
		for i := range 9 {
			e.add(crawl.Limits{}, U(fmt.Sprintf("%s/%d", h, i), 1, 0))
		}
	}
	record := func(host crawl.ID, n int) {
		t.Helper()
		recordArticles(t, e, ids, host, n)
	}
	record(ids[0], 4)
	record(ids[1], 4)
	mark := func(host, original crawl.ID) {
		t.Helper()
		if err := e.s.(mirrorKeeper).MarkMirror(e.ctx, host, original); err != nil {
			t.Fatalf("MarkMirror: %v", err)
		}
	}
	check := func(when string, want []int, mirrorOf string) {
		t.Helper()
		got, err := e.s.(hostValuer).ValueHosts(e.ctx, ids)
		if err != nil {
			t.Fatalf("ValueHosts: %v", err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: values of %v = %v, want %v", when, hosts, got, want)
		}
		stats, err := e.s.HostStats(e.ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range stats {
			want := map[string]string{hosts[1]: mirrorOf}[h.Key]
			if h.MirrorOf != want {
				t.Errorf("%s: HostStats of %s: mirror of %q, want %q", when, h.Key, h.MirrorOf, want)
			}
		}
	}
	check("before a mark", []int{9, 9}, "")
	mark(ids[1], crawl.HashID("http://unknown.test"))
	mark(ids[1], ids[1])
	check("marked as a mirror of an unknown host, and of itself", []int{9, 9}, "")
	mark(ids[1], ids[0])
	check("marked as a mirror", []int{9, crawl.MirrorValue}, hosts[0])
	e.s.Close()
	e.s = e.reopen()
	check("after a restart", []int{9, crawl.MirrorValue}, hosts[0])
	// Valued anew from more pages, a mirror is still worth at most
	// MirrorValue.
	record(ids[1], 4)
	check("valued anew", []int{9, crawl.MirrorValue}, hosts[0])
	mark(ids[1], 0)
	// m.test's eight articles: (24·8 − 6·8) / 12 = 12.
	check("the mark cleared", []int{9, 12}, "")
}

// testHostValueMirrorClaimedLast records four articles on each of two
// hosts, worth 9 each, the one ClaimHosts takes first on that tie (the
// lower ID) to be marked, then marks it a mirror of the other:
// ClaimHosts takes the original first from then on, the mirror's value
// counting there as in ValueHosts (crawl.MirrorValue). Cleared, the mark
// gives the tie back.
func testHostValueMirrorClaimedLast(t *testing.T, e *env) {
	if _, ok := e.s.(hostValuer); !ok {
		t.Skip("the store does not value hosts")
	}
	if _, ok := e.s.(mirrorKeeper); !ok {
		t.Skip("the store does not record mirrors")
	}
	original := "http://original.test"
	mirror := ""
	for i := 0; mirror == ""; i++ {
		if h := fmt.Sprintf("http://m%d.test", i); crawl.HashID(h) < crawl.HashID(original) {
			mirror = h
		}
	}
	ids := []crawl.ID{crawl.HashID(original), crawl.HashID(mirror)}
	for _, h := range []string{original, mirror} {
		for i := range 9 {
			e.add(crawl.Limits{}, U(fmt.Sprintf("%s/%d", h, i), 1, 0))
		}
	}
	for _, id := range ids {
		recordArticles(t, e, ids, id, 4)
	}
	if got, err := e.s.(hostValuer).ValueHosts(e.ctx, ids); err != nil || !slices.Equal(got, []int{9, 9}) {
		t.Fatalf("ValueHosts = %v, %v; want [9 9]", got, err)
	}
	first := func(when string, want crawl.ID) {
		t.Helper()
		hs := e.claimHosts("p", 1)
		if len(hs) != 1 || hs[0].ID != want {
			t.Errorf("%s: claimed %v first, want %d", when, hs, want)
		}
		if err := e.s.ReleaseHosts(e.ctx, "p", rel(ids...)); err != nil {
			t.Fatal(err)
		}
	}
	first("before a mark", ids[1])
	if err := e.s.(mirrorKeeper).MarkMirror(e.ctx, ids[1], ids[0]); err != nil {
		t.Fatalf("MarkMirror: %v", err)
	}
	first("marked as a mirror", ids[0])
	if err := e.s.(mirrorKeeper).MarkMirror(e.ctx, ids[1], 0); err != nil {
		t.Fatalf("MarkMirror: %v", err)
	}
	if got, err := e.s.(hostValuer).ValueHosts(e.ctx, ids); err != nil || !slices.Equal(got, []int{9, 9}) {
		t.Fatalf("the mark cleared: ValueHosts = %v, %v; want [9 9]", got, err)
	}
	first("the mark cleared", ids[1])
}

// recordArticles claims the hosts ids, records n of host's URLs as
// articles and gives the hosts back.
func recordArticles(t *testing.T, e *env, ids []crawl.ID, host crawl.ID, n int) {
	t.Helper()
	if hs := e.claimHosts("p", len(ids)); len(hs) == 0 {
		t.Fatal("no host to claim")
	}
	var rs []crawl.Result
	for _, c := range e.claimURLs("p", host, n, crawl.Limits{}) {
		r := done(c, "paper at "+c.URL)
		r.Page.Meta = &crawl.Metadata{Type: "article", Title: "t"}
		rs = append(rs, r)
	}
	e.commit(crawl.Limits{}, rs...)
	if err := e.s.ReleaseHosts(e.ctx, "p", rel(ids...)); err != nil {
		t.Fatal(err)
	}
}
