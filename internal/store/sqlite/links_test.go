package sqlite_test

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// TestCompactLinksMigration: a database whose links are rows (the schema
// before 0020: a row per link with the target's URL text, links_target)
// opens with the same outlinks, inbound links, link graph, link count and
// indexed anchor texts; and the migration runs again over its own result
// without changing it.
func TestCompactLinksMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "old.db")
	db, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		src, dst       string
		anchor         string
		nofollow       bool
		inURLs, isPage bool
	}
	pages := []string{"http://a.test/1", "http://a.test/2", "http://b.test/1", "http://c.test/x"}
	var rows []row
	for i, src := range pages {
		for j, dst := range pages {
			if i != j {
				rows = append(rows, row{src: src, dst: dst, anchor: fmt.Sprintf("to %s", dst[7:]), nofollow: (i+j)%3 == 0, inURLs: true, isPage: true})
			}
		}
		rows = append(rows,
			row{src: src, dst: "http://a.test/queued", anchor: "queued", inURLs: true},
			row{src: src, dst: fmt.Sprintf("http://elsewhere.test/%d", i%2), anchor: "out there"},
			row{src: src, dst: "http://elsewhere.test/ünï", anchor: ""})
	}
	id := func(u string) crawl.ID { return crawl.URLID(u) }
	host := func(u string) crawl.ID { return crawl.HashID(crawl.HostKey(u)) }
	var stmts []string
	urls := map[string]bool{}
	for _, r := range rows {
		for _, u := range []string{r.src, r.dst} {
			if urls[u] || u == r.dst && !r.inURLs {
				continue
			}
			urls[u] = true
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO hosts (id, key) VALUES (%d, '%s') ON CONFLICT DO NOTHING`, host(u), u[:strings.Index(u[7:], "/")+7]),
				fmt.Sprintf(`INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id, discovered_at) VALUES (%d, '%s', %d, 0, 0, 2, 1, 0, 1)`,
					id(u), u[strings.Index(u[7:], "/")+7:], host(u)))
		}
		nf := 0
		if r.nofollow {
			nf = 1
		}
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO links (source_id, target_id, target, anchor, nofollow) VALUES (%d, %d, '%s', '%s', %d)`,
			id(r.src), id(r.dst), r.dst, r.anchor, nf))
	}
	for i, p := range pages {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO pages (url_id, url, status, content_type, title, text, host, fetched_at) VALUES
			(%d, '%s', 200, 'text/html', 'Page %d', 'words about lighthouses', '%s', 1)`, id(p), p, i, p[:strings.Index(p[7:], "/")+7]))
	}
	stmts = append(stmts, fmt.Sprintf(`UPDATE counters SET value = %d WHERE name = 'links'`, len(rows)),
		`CREATE INDEX IF NOT EXISTS links_target ON links (target_id)`,
		`DROP TABLE outlinks`, `DROP TABLE inlinks`, `DROP TABLE link_urls`, `PRAGMA user_version = 19`)
	for _, s := range stmts {
		if err := db.ExecForTest(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()

	// What the rows said.
	wantLinks := map[crawl.ID][]crawl.Link{}
	wantIn := map[crawl.ID][]crawl.Inlink{}
	var wantGraph [][2]crawl.ID
	for _, r := range rows {
		wantLinks[id(r.src)] = append(wantLinks[id(r.src)], crawl.Link{TargetID: id(r.dst), Target: r.dst, Anchor: r.anchor, NoFollow: r.nofollow})
		wantIn[id(r.dst)] = append(wantIn[id(r.dst)], crawl.Inlink{Source: id(r.src), URL: r.src, Anchor: r.anchor, NoFollow: r.nofollow})
		if r.isPage {
			wantGraph = append(wantGraph, [2]crawl.ID{id(r.src), id(r.dst)})
		}
	}
	for _, ls := range wantLinks {
		slices.SortFunc(ls, func(a, b crawl.Link) int { return cmp.Compare(a.TargetID, b.TargetID) })
	}
	for _, ls := range wantIn {
		sort.Slice(ls, func(i, j int) bool { return ls[i].URL < ls[j].URL })
	}
	slices.SortFunc(wantGraph, func(a, b [2]crawl.ID) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})

	check := func(when string) {
		t.Helper()
		db, err := sqlite.Open(ctx, file, sqlite.Options{})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		defer db.Close()
		for src, want := range wantLinks {
			if got, err := db.Links(ctx, src); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: links of %d = %+v, %v\nwant %+v", when, src, got, err, want)
			}
		}
		for dst, want := range wantIn {
			if got, err := db.Inlinks(ctx, dst, 100); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: inlinks of %d = %+v, %v\nwant %+v", when, dst, got, err, want)
			}
		}
		var graph [][2]crawl.ID
		for e, err := range db.LinkGraph(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			graph = append(graph, e)
		}
		if !reflect.DeepEqual(graph, wantGraph) {
			t.Errorf("%s: link graph %v\nwant %v", when, graph, wantGraph)
		}
		if c, err := db.Counters(ctx); err != nil || c.Links != int64(len(rows)) {
			t.Errorf("%s: %d links counted, %v; want %d", when, c.Links, err, len(rows))
		}
		// The anchor texts are indexed: a word of the anchors alone finds
		// every page.
		if _, err := db.RebuildIndex(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := db.Search(ctx, crawl.SearchRequest{Query: "to", Limit: 10})
		if err != nil || len(res.Hits) != len(pages) {
			t.Errorf("%s: search for the anchors' word: %+v, %v; want the %d pages", when, res, err, len(pages))
		}
	}
	check("after the migration")
	db, err = sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ExecForTest(ctx, `PRAGMA user_version = 19`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	check("after the migration ran again")
}

// TestLinkTextsOfABatch: in one commit of several pages, a link to a URL
// the crawl did not take keeps its URL text, one page's or many's, and a
// link to a URL that a later result of the same batch admits reads the
// URL's text from it.
func TestLinkTextsOfABatch(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "batch.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	u := func(raw string) crawl.NewURL {
		host := crawl.HostKey(raw)
		return crawl.NewURL{ID: crawl.URLID(raw), URL: raw, HostID: crawl.HashID(host), Host: host, Via: crawl.ViaLink}
	}
	link := func(raw, anchor string) crawl.Link {
		return crawl.Link{TargetID: crawl.URLID(raw), Target: raw, Anchor: anchor}
	}
	var lim crawl.Limits
	now := time.Unix(1_800_000_000, 0)
	if _, err := db.AddURLs(ctx, []crawl.NewURL{u("http://a.test/1"), u("http://a.test/2"), u("http://a.test/3")}, lim); err != nil {
		t.Fatal(err)
	}
	hs, err := db.ClaimHosts(ctx, "p", 1, time.Minute, now)
	if err != nil || len(hs) != 1 {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	cs, _, err := db.ClaimURLs(ctx, "p", hs[0].ID, 3, lim, now)
	if err != nil || len(cs) != 3 {
		t.Fatalf("ClaimURLs = %v, %v", cs, err)
	}
	const out, other, later = "http://out.test/o?q=1", "http://out.test/p", "http://a.test/later"
	linksOf := [][]crawl.Link{
		{link(out, "out"), link(later, "later"), link(cs[1].URL, "next")},
		{link(out, "out again"), link(other, "other")},
		{link(later, "later too")},
	}
	var rs []crawl.Result
	for i, c := range cs {
		p := &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", Title: "page " + c.URL, Text: "text of " + c.URL, FetchedAt: now}
		r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p, Links: linksOf[i]}
		if i == 1 {
			r.Discovered = []crawl.NewURL{u(later)} // admitted after the first page links to it
		}
		rs = append(rs, r)
	}
	if _, err := db.Commit(ctx, rs, lim); err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		got, err := db.Links(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(linksOf[i])
		byTarget := func(a, b crawl.Link) int { return cmp.Compare(a.Target, b.Target) }
		slices.SortFunc(got, byTarget)
		slices.SortFunc(want, byTarget)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("links of %s = %+v, want %+v", c.URL, got, want)
		}
	}
}
