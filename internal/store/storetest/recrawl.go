package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// RunOutbox checks the outbox of an external index (crawl.OutboxStore);
// factory must open the store with its outbox on.
func RunOutbox(t *testing.T, factory Factory) { run(t, factory, outboxTests) }

var outboxTests = []test{
	{"Outbox", testOutbox},
}

func revisit(now time.Time, iv time.Duration, changed bool) *crawl.Revisit {
	return &crawl.Revisit{Interval: iv, NextCheck: now.Add(iv), Changed: changed}
}

// fetchAll claims and returns every ready URL.
func (e *env) fetchAll(owner string) []crawl.ClaimedURL {
	e.t.Helper()
	var out []crawl.ClaimedURL
	hs := e.claimHosts(owner, 100)
	for _, h := range hs {
		out = append(out, e.claimURLs(owner, h.ID, 1000, crawl.Limits{})...)
	}
	if err := e.s.ReleaseHosts(e.ctx, owner, rel(idsOf(hs)...)); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func testRecrawl(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/page", 0, 0), U("http://a.test/gone", 0, 0), U("http://a.test/other", 0, 0))
	cs := e.fetchAll("p")
	if len(cs) != 3 || cs[0].Prev != nil {
		t.Fatalf("first claims = %+v, want 3 without a previous fetch", cs)
	}
	var rs []crawl.Result
	for _, c := range cs {
		r := done(c, "first version of "+c.URL)
		r.Page.ETag, r.Page.LastModified = `"v1"`, "Mon, 02 Jan 2026 15:04:05 GMT"
		r.Revisit = revisit(e.now, time.Hour, true)
		if c.URL == "http://a.test/page" {
			r.Links = []crawl.Link{{TargetID: crawl.URLID("http://a.test/old-target"), Target: "http://a.test/old-target", Anchor: "old"}}
		}
		rs = append(rs, r)
	}
	e.commit(crawl.Limits{}, rs...)
	if n, err := e.s.ScheduleDue(e.ctx, e.now, false, 100); err != nil || n != 0 {
		t.Fatalf("ScheduleDue before anything is due = %d, %v", n, err)
	}
	if n, _ := e.s.DueCount(e.ctx, e.now.Add(2*time.Hour)); n != 3 {
		t.Errorf("DueCount an hour later = %d, want 3", n)
	}
	run, err := e.s.StartRun(e.ctx, e.now)
	if err != nil || run != 1 {
		t.Fatalf("StartRun = %d, %v", run, err)
	}
	if c := e.counters(); c.Reserved != 0 || c.Bytes != 0 {
		t.Errorf("budget counters at a run's start: reserved %d bytes %d, want 0", c.Reserved, c.Bytes)
	}
	e.now = e.now.Add(2 * time.Hour)
	if n, err := e.s.ScheduleDue(e.ctx, e.now, false, 100); err != nil || n != 3 {
		t.Fatalf("ScheduleDue when due = %d, %v; want 3", n, err)
	}
	cs = e.fetchAll("p")
	byURL := map[string]crawl.ClaimedURL{}
	for _, c := range cs {
		byURL[c.URL] = c
		if c.Prev == nil || c.Prev.ETag != `"v1"` || c.Prev.Interval != time.Hour || len(c.Prev.ContentHash) == 0 || c.Prev.FetchedAt.IsZero() {
			t.Errorf("revisit claim %s: Prev = %+v, want the validators, hash and interval of the last fetch", c.URL, c.Prev)
		}
	}
	// Not modified: only the check is recorded.
	nm := crawl.Result{URL: byURL["http://a.test/other"], Outcome: crawl.OutcomeDone,
		Page:    &crawl.Page{URL: "http://a.test/other", Status: 304, FetchedAt: e.now},
		Revisit: &crawl.Revisit{Interval: 2 * time.Hour, NextCheck: e.now.Add(2 * time.Hour), NotModified: true, Run: run}}
	// Changed: the page, its links and its index entry are replaced.
	ch := done(byURL["http://a.test/page"], "second version with the word zymurgy")
	ch.Page.ETag = `"v2"`
	ch.Links = []crawl.Link{{TargetID: crawl.URLID("http://a.test/new-target"), Target: "http://a.test/new-target", Anchor: "new"}}
	ch.Revisit = &crawl.Revisit{Interval: 30 * time.Minute, NextCheck: e.now.Add(30 * time.Minute), Changed: true, Run: run}
	// Removed.
	gone := crawl.Result{URL: byURL["http://a.test/gone"], Outcome: crawl.OutcomeDone,
		Page:    &crawl.Page{URL: "http://a.test/gone", Status: 410, FetchedAt: e.now},
		Revisit: &crawl.Revisit{Misses: 1, Gone: crawl.Removed, Run: run}}
	e.commit(crawl.Limits{}, nm, ch, gone)

	p, _ := e.s.Page(e.ctx, crawl.URLID("http://a.test/other"))
	if p.Status != 200 || p.Text != "first version of http://a.test/other" || p.ETag != `"v1"` || !p.CheckedAt.Equal(e.now) ||
		!p.NextCheckAt.Equal(e.now.Add(2*time.Hour)) {
		t.Errorf("after a 304: %+v; want the page as it was, checked now, due in 2h", p)
	}
	p, _ = e.s.Page(e.ctx, crawl.URLID("http://a.test/page"))
	if p.ETag != `"v2"` || p.Text != "second version with the word zymurgy" {
		t.Errorf("after a change: %+v", p)
	}
	ls, _ := e.s.Links(e.ctx, crawl.URLID("http://a.test/page"))
	if len(ls) != 1 || ls[0].Target != "http://a.test/new-target" {
		t.Errorf("links after a change = %+v, want only the new version's", ls)
	}
	if got := hitURLs(e.search(crawl.SearchRequest{Query: "zymurgy"})); !eq(got, []string{"http://a.test/page"}) {
		t.Errorf("search for the changed text = %v", got)
	}
	p, _ = e.s.Page(e.ctx, crawl.URLID("http://a.test/gone"))
	if p.Gone != crawl.Removed || p.Text != "first version of http://a.test/gone" {
		t.Errorf("removed page = %+v; want marked removed, its last content kept", p)
	}
	if got := hitURLs(e.search(crawl.SearchRequest{Query: "first version"})); !eq(got, []string{"http://a.test/other"}) {
		t.Errorf("search after the removal = %v, want only the page still there", got)
	}
	if n, _ := e.s.ScheduleDue(e.ctx, e.now.Add(100*time.Hour), true, 100); n != 2 {
		t.Errorf("ScheduleDue(all) = %d, want the 2 active pages, not the removed one", n)
	}
	rs0 := crawl.RunStats{Run: run, Finished: e.now, Revisits: 3, NotModified: 1, Changed: 1, Removed: 1, BytesSaved: 36, DueLeft: 0}
	if err := e.s.RecordRun(e.ctx, rs0); err != nil {
		t.Fatal(err)
	}
	runs, err := e.s.Runs(e.ctx)
	if err != nil || len(runs) != 1 || runs[0].Revisits != 3 || runs[0].NotModified != 1 || runs[0].BytesSaved != 36 || runs[0].Started.IsZero() {
		t.Errorf("Runs = %+v, %v", runs, err)
	}
	stats, err := e.s.ChangeStats(e.ctx)
	if err != nil || len(stats) != 1 || stats[0].Checks != 3 || stats[0].Changed != 1 || stats[0].Unchanged != 1 || stats[0].Missing != 1 {
		t.Errorf("ChangeStats = %+v, %v", stats, err)
	}
	e.checkBalance(3)
}

func testInactive(t *testing.T, e *env) {
	// A hub links to x; y is linked by nothing (it was, once); s is a seed.
	seed := U("http://a.test/", 0, 0)
	seed.Via = crawl.ViaSeed
	e.add(crawl.Limits{}, seed, U("http://a.test/x", 1, 0), U("http://a.test/y", 1, 0))
	var rs []crawl.Result
	for _, c := range e.fetchAll("p") {
		r := done(c, "text "+c.URL)
		r.Revisit = revisit(e.now, time.Hour, true)
		if c.URL == "http://a.test/" {
			r.Links = []crawl.Link{{TargetID: crawl.URLID("http://a.test/x"), Target: "http://a.test/x"}}
		}
		rs = append(rs, r)
	}
	e.commit(crawl.Limits{}, rs...)
	for i := 1; i <= 3; i++ {
		run, err := e.s.StartRun(e.ctx, e.now)
		if err != nil {
			t.Fatal(err)
		}
		e.now = e.now.Add(2 * time.Hour)
		e.s.ScheduleDue(e.ctx, e.now, true, 100)
		var rs []crawl.Result
		for _, c := range e.fetchAll("p") {
			rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
				Page:    &crawl.Page{URL: c.URL, Status: 304, FetchedAt: e.now},
				Revisit: &crawl.Revisit{Interval: time.Hour, NextCheck: e.now.Add(time.Hour), NotModified: true, Run: run}})
		}
		e.commit(crawl.Limits{}, rs...)
		n, err := e.s.FinishRun(e.ctx, run, 3, e.now)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if i == 3 {
			want = 1
		}
		if n != want {
			t.Errorf("run %d: %d pages became inactive, want %d", i, n, want)
		}
	}
	for u, want := range map[string]crawl.Gone{"http://a.test/": crawl.Active, "http://a.test/x": crawl.Active, "http://a.test/y": crawl.Inactive} {
		if p, _ := e.s.Page(e.ctx, crawl.URLID(u)); p == nil || p.Gone != want {
			t.Errorf("%s: gone = %v, want %v", u, p.Gone, want)
		}
	}
}

func testTouch(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/p", 0, 0), U("http://a.test/sitemap.xml", 0, 0))
	cs := e.fetchAll("p")
	var rs []crawl.Result
	for _, c := range cs {
		r := done(c, "x "+c.URL)
		r.Page.FetchedAt = e.now
		r.Revisit = revisit(e.now, 24*time.Hour, true)
		rs = append(rs, r)
	}
	e.commit(crawl.Limits{}, rs...)
	e.s.ScheduleDue(e.ctx, e.now, true, 100)
	var sm crawl.ClaimedURL
	for _, c := range e.fetchAll("p") {
		if c.URL == "http://a.test/sitemap.xml" {
			sm = c
		} else {
			e.commit(crawl.Limits{}, crawl.Result{URL: c, Outcome: crawl.OutcomeRelease})
		}
	}
	r := done(sm, "x http://a.test/sitemap.xml")
	r.Touched = []crawl.Touch{{ID: crawl.URLID("http://a.test/p"), LastMod: e.now.Add(time.Minute)}}
	r.Revisit = revisit(e.now, 24*time.Hour, false)
	e.now = e.now.Add(time.Hour)
	e.commit(crawl.Limits{}, r)
	if n, _ := e.s.DueCount(e.ctx, e.now); n != 0 {
		t.Fatalf("DueCount = %d; the touched page is queued already (released above)", n)
	}
	p, _ := e.s.Page(e.ctx, crawl.URLID("http://a.test/p"))
	if p.NextCheckAt.After(e.now) {
		t.Errorf("a page whose sitemap lastmod is newer than its fetch is due at %v, want now (%v)", p.NextCheckAt, e.now)
	}
}

// testTouchQueue: a commit counts the recorded pages its sitemap entries
// made due (CommitStats.Touched), and ScheduleDueURLs queues those of the
// given URLs that are done and due, once, leaving the others as they are.
func testTouchQueue(t *testing.T, e *env) {
	p, q, r := "http://a.test/p", "http://a.test/q", "http://b.test/r"
	e.add(crawl.Limits{}, U(p, 1, 0), U(q, 1, 0), U(r, 1, 0), U("http://a.test/sitemap.xml", 0, 0))
	var sm crawl.ClaimedURL
	var rs []crawl.Result
	for _, c := range e.fetchAll("p") {
		if c.URL == "http://a.test/sitemap.xml" {
			sm = c // in flight until its result below
			continue
		}
		res := done(c, "x "+c.URL)
		res.Page.FetchedAt = e.now
		res.Revisit = revisit(e.now, 24*time.Hour, true)
		rs = append(rs, res)
	}
	e.commit(crawl.Limits{}, rs...)
	// r is queued again (as if due at a run's start) before the sitemap says it changed.
	e.s.ScheduleDue(e.ctx, e.now.Add(48*time.Hour), true, 100)
	for _, c := range e.fetchAll("p") {
		if c.URL != r {
			e.commit(crawl.Limits{}, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: &crawl.Page{URL: c.URL, Status: 304, FetchedAt: e.now},
				Revisit: &crawl.Revisit{Interval: 24 * time.Hour, NextCheck: e.now.Add(24 * time.Hour), NotModified: true}})
		} else {
			e.commit(crawl.Limits{}, crawl.Result{URL: c, Outcome: crawl.OutcomeRelease})
		}
	}
	res := done(sm, "x http://a.test/sitemap.xml")
	res.Revisit = revisit(e.now, 24*time.Hour, false)
	res.Touched = []crawl.Touch{
		{ID: crawl.URLID(p), LastMod: e.now.Add(time.Minute)},  // changed after its fetch: due now
		{ID: crawl.URLID(q), LastMod: e.now.Add(-time.Hour)},   // not since its fetch
		{ID: crawl.URLID(r), LastMod: e.now.Add(time.Minute)},  // due now, but queued already
		{ID: crawl.URLID("http://a.test/new"), LastMod: e.now}, // not recorded
	}
	st := e.commit(crawl.Limits{}, res)
	if st.Touched != 2 {
		t.Errorf("CommitStats.Touched = %d, want 2 (p and r made due now)", st.Touched)
	}
	ids := []crawl.ID{crawl.URLID(p), crawl.URLID(q), crawl.URLID(r), crawl.URLID("http://a.test/new")}
	before := e.counters()
	later := e.now.Add(time.Hour)
	n, err := e.s.ScheduleDueURLs(e.ctx, ids, later)
	if err != nil || n != 1 {
		t.Fatalf("ScheduleDueURLs = %d, %v; want 1 (p: r is queued already, q is not due)", n, err)
	}
	if c := e.counters(); c.Queued != before.Queued+1 || c.Done != before.Done-1 {
		t.Errorf("counters after ScheduleDueURLs: queued %d done %d, want %d and %d", c.Queued, c.Done, before.Queued+1, before.Done-1)
	}
	if n, err := e.s.ScheduleDueURLs(e.ctx, ids, later); err != nil || n != 0 {
		t.Errorf("ScheduleDueURLs again = %d, %v; want 0: nothing is queued twice", n, err)
	}
	got := map[string]bool{}
	for _, c := range e.fetchAll("p") {
		got[c.URL] = true
		if c.URL == p && c.Prev == nil {
			t.Errorf("the queued page's claim has no previous fetch")
		}
	}
	if len(got) != 2 || !got[p] || !got[r] {
		t.Errorf("claimed %v, want p and r", got)
	}
	if n, err := e.s.ScheduleDueURLs(e.ctx, ids, later); err != nil || n != 0 {
		t.Errorf("ScheduleDueURLs with p in flight = %d, %v; want 0", n, err)
	}
	e.checkBalance(4)
}

func testOutbox(t *testing.T, e *env) {
	e.commitPages(
		&crawl.Page{URL: "http://a.test/doc", Title: "Doc", Text: "indexable text"},
		&crawl.Page{URL: "http://a.test/hidden", Title: "Hidden", Text: "noindex text", NoIndex: true},
	)
	items, err := e.s.OutboxNext(e.ctx, 10, time.Minute, e.now)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Op != "upsert" || items[0].Page == nil || items[0].Page.URL != "http://a.test/doc" ||
		items[0].Key == "" || items[0].Host != "http://a.test" {
		t.Fatalf("OutboxNext = %+v, want one upsert of the indexable page", items)
	}
	// Leased: not handed out again until the lease ends.
	if again, _ := e.s.OutboxNext(e.ctx, 10, time.Minute, e.now); len(again) != 0 {
		t.Errorf("leased items handed out again: %+v", again)
	}
	again, _ := e.s.OutboxNext(e.ctx, 10, time.Minute, e.now.Add(2*time.Minute))
	if len(again) != 1 || again[0].ID != items[0].ID {
		t.Fatalf("after the lease: %+v, want the same item again", again)
	}
	if err := e.s.OutboxDone(e.ctx, []int64{items[0].ID}); err != nil {
		t.Fatal(err)
	}
	if left, _ := e.s.OutboxNext(e.ctx, 10, time.Minute, e.now.Add(time.Hour)); len(left) != 0 {
		t.Errorf("after done: %+v", left)
	}
	// A change of content: delete the old document, index the new one.
	p, _ := e.s.Page(e.ctx, crawl.URLID("http://a.test/doc"))
	p.Text = "new indexable text"
	p.ContentHash = []byte("0123456789abcdef0123456789abcdef")
	if err := e.s.Reparse(e.ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	items, _ = e.s.OutboxNext(e.ctx, 10, time.Minute, e.now.Add(time.Hour))
	if len(items) != 2 || items[0].Op != "delete" || items[0].Key != again[0].Key || items[1].Op != "upsert" || items[1].Key == again[0].Key {
		t.Errorf("after a content change: %+v, want a delete of the old key then an upsert of the new", items)
	}
	n, err := e.s.RequeueIndex(e.ctx)
	if err != nil || n != 1 {
		t.Errorf("RequeueIndex = %d, %v; want the 1 indexed page", n, err)
	}
	if k, err := e.s.RebuildIndex(e.ctx); err != nil || k != 1 {
		t.Errorf("RebuildIndex = %d, %v", k, err)
	}
	if got := hitURLs(e.search(crawl.SearchRequest{Query: "indexable"})); !eq(got, []string{"http://a.test/doc"}) {
		t.Errorf("search after the rebuild = %v", got)
	}
	_ = fmt.Sprint
}
