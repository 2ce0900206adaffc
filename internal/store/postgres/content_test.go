package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// claimAll admits urls and claims them all for owner p.
func claimAll(t *testing.T, s crawl.Store, now time.Time, urls ...crawl.NewURL) map[string]crawl.ClaimedURL {
	t.Helper()
	ctx := context.Background()
	if _, err := s.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	hs, err := s.ClaimHosts(ctx, "p", 100, time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]crawl.ClaimedURL{}
	for _, h := range hs {
		cs, _, err := s.ClaimURLs(ctx, "p", h.ID, len(urls), crawl.Limits{}, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			out[c.URL] = c
		}
	}
	if len(out) != len(urls) {
		t.Fatalf("claimed %d URLs, want %d", len(out), len(urls))
	}
	return out
}

// contentPage is a done result with a content hash and a SimHash.
func contentPage(c crawl.ClaimedURL, now time.Time, hash string, fp uint64) crawl.Result {
	p := &crawl.Page{URL: c.URL, Status: 200, Text: "text of " + c.URL, Bytes: 10, FetchedAt: now, SimHash: fp}
	if hash != "" {
		p.ContentHash = []byte(hash)
	}
	return crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p}
}

// contentStep is a batch of pages to commit or, when reparse is set, one
// page to reparse.
type contentStep struct {
	reparse bool
	pages   []contentSpec
}

// contentSpec is what a step records for one page.
type contentSpec struct {
	url  int // index in contentURLs
	hash string
	fp   uint64
}

const contentURLs = 80

// contentSteps commits every URL's page once, in batches of random sizes,
// some sharing content, most with SimHashes close to one of a few, and
// reparses some pages half way.
func contentSteps(seed uint64) []contentStep {
	rnd := rand.New(rand.NewPCG(seed, seed))
	bases := []uint64{0x0123456789abcdef, 0xfedcba9876543210, 0x00ff00ff00ff00ff}
	fingerprint := func() uint64 {
		if rnd.IntN(8) == 0 {
			return 0
		}
		fp := bases[rnd.IntN(len(bases))]
		for range rnd.IntN(6) {
			fp ^= 1 << rnd.IntN(64)
		}
		return fp
	}
	hash := func(i int) string {
		if i > 0 && rnd.IntN(5) == 0 {
			return fmt.Sprint("content ", rnd.IntN(i))
		}
		return fmt.Sprint("content ", i)
	}
	var steps []contentStep
	commit := func(from, to int) {
		for i := from; i < to; {
			k := min(to-i, 1+rnd.IntN(8))
			var st contentStep
			for j := i; j < i+k; j++ {
				st.pages = append(st.pages, contentSpec{url: j, hash: hash(j), fp: fingerprint()})
			}
			steps = append(steps, st)
			i += k
		}
	}
	commit(0, contentURLs/2)
	for range 8 {
		steps = append(steps, contentStep{reparse: true,
			pages: []contentSpec{{url: rnd.IntN(contentURLs / 2), hash: hash(contentURLs), fp: fingerprint()}}})
	}
	commit(contentURLs/2, contentURLs)
	return steps
}

func contentURL(i int) string { return fmt.Sprintf("http://h%d.test/%d", i%3, i) }

// contentMark is a page's duplicate marks.
func contentMark(what string, id crawl.ID, dup, near crawl.ID) string {
	return fmt.Sprintf("%s %d: duplicate of %d, near-duplicate of %d", what, id, dup, near)
}

// runContent runs the steps on a store and returns the marks it gave, page
// after page, then the marks it recorded, in ID order, and its counts.
func runContent(t *testing.T, s crawl.Store, steps []contentStep) []string {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	var urls []crawl.NewURL
	for i := range contentURLs {
		urls = append(urls, storetest.U(contentURL(i), 0, 0))
	}
	claimed := claimAll(t, s, now, urls...)
	var trace []string
	for _, st := range steps {
		if st.reparse {
			sp := st.pages[0]
			p := &crawl.Page{ID: urls[sp.url].ID, Title: "again", SimHash: sp.fp, ContentHash: []byte(sp.hash)}
			if err := s.Reparse(ctx, p, nil); err != nil {
				t.Fatal(err)
			}
			trace = append(trace, contentMark("reparse", p.ID, p.DuplicateOf, p.NearDuplicateOf))
			continue
		}
		var rs []crawl.Result
		for _, sp := range st.pages {
			rs = append(rs, contentPage(claimed[urls[sp.url].URL], now, sp.hash, sp.fp))
		}
		if _, err := s.Commit(ctx, rs, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			trace = append(trace, contentMark("commit", r.Page.ID, r.Page.DuplicateOf, r.Page.NearDuplicateOf))
		}
	}
	for p, err := range s.Pages(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		trace = append(trace, contentMark("stored", p.ID, p.DuplicateOf, p.NearDuplicateOf))
	}
	c, err := s.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return append(trace, fmt.Sprintf("counters: %d pages, %d duplicates", c.Pages, c.Duplicates))
}

// modelContent is what the store contract says of the steps, applied one
// page after another: a page is a duplicate of the first page recorded
// with its content hash, else a near-duplicate of the recorded page
// closest to its SimHash (within distance 3; then the smallest ID) that is
// itself neither.
func modelContent(steps []contentStep) []string {
	type rec struct {
		fp        uint64
		dup, near crawl.ID
	}
	recs := map[crawl.ID]*rec{}
	first := map[string]crawl.ID{}
	var trace []string
	for _, st := range steps {
		for _, sp := range st.pages {
			id := crawl.URLID(contentURL(sp.url))
			r := &rec{fp: sp.fp}
			if f, ok := first[sp.hash]; !ok {
				first[sp.hash] = id
			} else if f != id {
				r.dup = f
			}
			if r.fp != 0 && r.dup == 0 {
				bestDist := 4
				for oid, o := range recs {
					d := bits.OnesCount64(o.fp ^ r.fp)
					if oid == id || o.fp == 0 || o.dup != 0 || o.near != 0 || d > 3 {
						continue
					}
					if d < bestDist || d == bestDist && oid < r.near {
						r.near, bestDist = oid, d
					}
				}
			}
			recs[id] = r
			what := "commit"
			if st.reparse {
				what = "reparse"
			}
			trace = append(trace, contentMark(what, id, r.dup, r.near))
		}
	}
	ids := slices.Sorted(maps.Keys(recs))
	dups := 0
	for _, id := range ids {
		trace = append(trace, contentMark("stored", id, recs[id].dup, recs[id].near))
		if recs[id].dup != 0 {
			dups++
		}
	}
	return append(trace, fmt.Sprintf("counters: %d pages, %d duplicates", len(recs), dups))
}

// TestDuplicateMarksFollowTheContract: PostgreSQL judges duplicates and
// near-duplicates in batches (the recorded candidates in one query, the
// batch's own pages in Go) and comes to the marks the contract gives when
// pages are recorded one by one, across batches and reparses.
func TestDuplicateMarksFollowTheContract(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			dsn, schema := freshSchema(t)
			steps := contentSteps(seed)
			got, want := runContent(t, open(t, dsn, schema), steps), modelContent(steps)
			if len(got) != len(want) {
				t.Fatalf("%d marks, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("got  %s\nwant %s", got[i], want[i])
				}
			}
		})
	}
}

// TestNearDuplicateOfARefetchedPage: a page recorded again in a batch is
// seen, by the pages before it in the batch, as it was recorded before,
// and by those after it as recorded now, as when SQLite records the batch
// page by page.
func TestNearDuplicateOfARefetchedPage(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	const x, far = 0x0123456789abcdef, 0x0f0f0f0f0f0f0f0f
	var urls []crawl.NewURL
	for _, u := range []string{"a", "b", "c", "d"} {
		urls = append(urls, storetest.U("http://h.test/"+u, 0, 0))
	}
	cs := claimAll(t, db, now, urls...)
	a, b, c, d := cs["http://h.test/a"], cs["http://h.test/b"], cs["http://h.test/c"], cs["http://h.test/d"]
	refetch := func() { exec(t, dsn, schema, `UPDATE urls SET state = 1 WHERE id = $1`, int64(a.ID)) }
	tests := []struct {
		name string
		rs   []crawl.Result
		want []crawl.ID // near-duplicate marks, per result
	}{
		{"a first", []crawl.Result{contentPage(a, now, "", x)}, []crawl.ID{0}},
		{"b sees a as recorded before", []crawl.Result{contentPage(b, now, "", x^1), contentPage(a, now, "", far)}, []crawl.ID{a.ID, 0}},
		{"d sees a as recorded now", []crawl.Result{contentPage(a, now, "", x), contentPage(d, now, "", x^0b110)}, []crawl.ID{0, a.ID}},
		{"c sees a, within the distance", []crawl.Result{contentPage(c, now, "", x^0b111)}, []crawl.ID{a.ID}},
	}
	for i, tc := range tests {
		if i == 1 || i == 2 {
			refetch()
		}
		if _, err := db.Commit(ctx, tc.rs, crawl.Limits{}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for j, r := range tc.rs {
			if r.Page.NearDuplicateOf != tc.want[j] {
				t.Errorf("%s: %s near-duplicate of %d, want %d", tc.name, r.URL.URL, r.Page.NearDuplicateOf, tc.want[j])
			}
			p, err := db.Page(ctx, r.URL.ID)
			if err != nil || p.NearDuplicateOf != r.Page.NearDuplicateOf || p.SimHash != r.Page.SimHash {
				t.Errorf("%s: stored page %+v, %v; want what the result says", tc.name, p, err)
			}
		}
	}
}

// TestReparse: a reparse judges duplicates again, adjusting the crawl's
// and the host's duplicate counts and the link count, keeps the fetch
// record (and hands it to the caller) and is refused read-only.
func TestReparse(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	cs := claimAll(t, db, now, storetest.U("http://h.test/1", 0, 0), storetest.U("http://h.test/2", 0, 0))
	one, two := cs["http://h.test/1"], cs["http://h.test/2"]
	r1, r2 := contentPage(one, now, "same", 0xabc0), contentPage(two, now, "same", 0)
	r2.Page.WARC = crawl.WARCRef{File: "a.warc.gz", Offset: 5, Length: 6}
	r2.Links = []crawl.Link{{TargetID: 1, Target: "http://h.test/x"}, {TargetID: 2, Target: "http://h.test/y"}}
	if _, err := db.Commit(ctx, []crawl.Result{r1, r2}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	check := func(step string, dups, links int64) {
		t.Helper()
		c, err := db.Counters(ctx)
		if err != nil || c.Duplicates != dups || c.Links != links || c.Pages != 2 {
			t.Errorf("%s: counters %+v, %v; want %d duplicates, %d links, 2 pages", step, c, err, dups, links)
		}
		hs, err := db.HostStats(ctx, 0)
		if err != nil || len(hs) != 1 || hs[0].Duplicates != dups {
			t.Errorf("%s: host stats %+v, %v; want %d duplicates", step, hs, err, dups)
		}
	}
	check("committed", 1, 2)

	p := &crawl.Page{ID: two.ID, Title: "new", ContentHash: []byte("other"), SimHash: 0xabc1,
		Meta: &crawl.Metadata{Title: "T", Authors: []string{"A. B."}, Year: 2020}}
	if err := db.Reparse(ctx, p, []crawl.Link{{TargetID: 3, Target: "http://h.test/z"}}); err != nil {
		t.Fatal(err)
	}
	if p.DuplicateOf != 0 || p.NearDuplicateOf != one.ID || p.URL != two.URL || p.Status != 200 || p.WARC != r2.Page.WARC {
		t.Errorf("reparsed page %+v; want no duplicate, near-duplicate of %d, with its fetch record", p, one.ID)
	}
	got, err := db.Page(ctx, two.ID)
	if err != nil || got.Title != "new" || got.NearDuplicateOf != one.ID || got.WARC != r2.Page.WARC ||
		got.Meta == nil || got.Meta.Authors[0] != "A. B." || got.Meta.Year != 2020 {
		t.Errorf("stored page %+v, %v", got, err)
	}
	check("reparsed with new content", 0, 1)

	p = &crawl.Page{ID: two.ID, ContentHash: []byte("same")}
	if err := db.Reparse(ctx, p, nil); err != nil || p.DuplicateOf != one.ID || p.NearDuplicateOf != 0 {
		t.Errorf("Reparse with the first page's content: %+v, %v; want duplicate of %d", p, err, one.ID)
	}
	check("reparsed with the same content again", 1, 0)

	if err := db.Reparse(ctx, &crawl.Page{ID: 12345}, nil); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("Reparse of an unknown page: %v, want ErrNotFound", err)
	}
	ro, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Reparse(ctx, &crawl.Page{ID: two.ID}, nil); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Reparse on a read-only store: %v", err)
	}
}

// TestBestHostsAfterRequeue: a host's best queued priority rises again
// when its best URL returns to the queue, after a retry or when its
// lease expired, so that it is leased before worse hosts.
func TestBestHostsAfterRequeue(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	a, b := crawl.HashID("http://a.test"), crawl.HashID("http://b.test")
	if _, err := db.AddURLs(ctx, []crawl.NewURL{storetest.U("http://a.test/1", 0, 9), storetest.U("http://a.test/2", 0, 1),
		storetest.U("http://b.test/1", 0, 5)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	claim := func(owner string, at time.Time) crawl.ID {
		t.Helper()
		hs, err := db.ClaimHosts(ctx, owner, 1, time.Minute, at)
		if err != nil || len(hs) != 1 {
			t.Fatalf("ClaimHosts(%s) = %v, %v", owner, hs, err)
		}
		return hs[0].ID
	}
	if h := claim("p", now); h != a {
		t.Fatalf("claimed %d first, want a.test (9 > 5)", h)
	}
	cs, _, err := db.ClaimURLs(ctx, "p", a, 1, crawl.Limits{}, now)
	if err != nil || len(cs) != 1 || cs[0].Priority != 9 {
		t.Fatalf("ClaimURLs = %+v, %v", cs, err)
	}
	// Its best URL goes back to the queue for a retry.
	if _, err := db.Commit(ctx, []crawl.Result{{URL: cs[0], Outcome: crawl.OutcomeRetry, RetryAt: now}}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := db.ReleaseHosts(ctx, "p", []crawl.HostRelease{{ID: a}}); err != nil {
		t.Fatal(err)
	}
	if h := claim("q", now); h != a {
		t.Fatalf("after a retry claimed %d, want a.test again", h)
	}
	// q claims the best URL and dies: once the lease runs out, the host
	// ranks by the URL coming back.
	if cs, _, err = db.ClaimURLs(ctx, "q", a, 1, crawl.Limits{}, now); err != nil || len(cs) != 1 {
		t.Fatalf("ClaimURLs = %+v, %v", cs, err)
	}
	later := now.Add(2 * time.Minute)
	if h := claim("r", later); h != a {
		t.Fatalf("after the lease expired claimed %d, want a.test", h)
	}
	if h := claim("s", later); h != b {
		t.Fatalf("then claimed %d, want b.test", h)
	}
}

// TestContentColumns: the metadata is a JSONB document and the fields to
// filter on, the SimHash and its bands are columns of their own.
func TestContentColumns(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	db := open(t, dsn, schema)
	cs := claimAll(t, db, now, storetest.U("http://h.test/1", 0, 0), storetest.U("http://h.test/2", 0, 0))
	const fp = 0xfedcba9876543210
	r1 := contentPage(cs["http://h.test/1"], now, "", fp)
	r1.Page.Meta = &crawl.Metadata{Title: "T", Authors: []string{"A", "B"}, Year: 1999, DOI: "10.1/x", Type: "thesis",
		TypeRule: "dc.type"}
	r2 := contentPage(cs["http://h.test/2"], now, "", 0)
	if _, err := db.Commit(ctx, []crawl.Result{r1, r2}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   crawl.ID
		want string
	}{
		{r1.URL.ID, "thesis|dc.type|10.1/x|1999|B|-81985529216486896|12816|30292|47768|65244"},
		{r2.URL.ID, "|||0||0|0|0|0|0"},
	}
	for _, tc := range tests {
		var got string
		err := queryRow(t, dsn, schema, `SELECT concat_ws('|', doc_type, type_rule, doi, year, coalesce(metadata->'authors'->>1, ''),
			simhash, band0, band1, band2, band3) FROM pages WHERE url_id = $1`, []any{int64(tc.id)}, &got)
		if err != nil || got != tc.want {
			t.Errorf("columns of page %d = %q, %v; want %q", tc.id, got, err, tc.want)
		}
	}
}
