package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

func offerURL(raw string, depth, priority int) crawl.NewURL {
	host := raw[:strings.Index(raw[len("http://"):], "/")+len("http://")]
	return crawl.NewURL{ID: crawl.URLID(raw), URL: raw, HostID: crawl.HashID(host), Host: host,
		Depth: depth, Priority: priority, Via: crawl.ViaLink}
}

func openOffers(t *testing.T, file string) *DB {
	t.Helper()
	return openTuned(t, file, defaultTuning)
}

// openTuned opens a store at file with the tuning tu.
func openTuned(t *testing.T, file string, tu tuning) *DB {
	t.Helper()
	db, err := Open(context.Background(), file, Options{tune: &tu})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// dump is what a frontier holds: its URLs, hosts and counters.
func dumpFrontier(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	dumpRows(t, db, &b,
		`SELECT id, url, host_id, depth, priority, state, via, parent_id, kind, lastmod, changefreq,
			row_number() OVER (PARTITION BY host_id ORDER BY rowid) FROM urls ORDER BY id`,
		`SELECT id, key, admitted, queued, has_queued, top_priority FROM hosts ORDER BY id`,
		`SELECT name, value FROM counters WHERE name = 'queued'`)
	return b.String()
}

// dumpRows writes the rows each query returns to b, a line a row.
func dumpRows(t *testing.T, db *DB, b *strings.Builder, queries ...string) {
	t.Helper()
	for _, q := range queries {
		rows, err := db.w.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			v := make([]any, len(cols))
			p := make([]any, len(cols))
			for i := range v {
				p[i] = &v[i]
			}
			if err := rows.Scan(p...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(b, v...)
		}
		rows.Close()
	}
}

// TestStagedOffersDecideAsAdds: offers staged and merged (some merges
// when the stage is large, the rest at the end) leave the frontier as the
// same offers added batch by batch: the same URLs admitted (known ones,
// those offered twice, over depth and over a host's cap refused), each
// host's in the same order (their rowids'), the same priorities, host
// counts and queued counter.
func TestStagedOffersDecideAsAdds(t *testing.T) {
	tu := stagedOffers(50, packMin)
	dir := t.TempDir()
	added, staged := openTuned(t, filepath.Join(dir, "added.db"), tu), openTuned(t, filepath.Join(dir, "staged.db"), tu)
	defer added.Close()
	defer staged.Close()
	merges := storetest.OfferAsAdds(t, added, staged)
	if merges == 0 {
		t.Error("the stage was never merged before the end")
	}
	a, s := dumpFrontier(t, added), dumpFrontier(t, staged)
	if a != s {
		t.Errorf("staged offers left\n%s\nadded batch by batch\n%s", s, a)
	}
	if strings.Count(a, "\n") < 100 {
		t.Errorf("only %d rows: the test offers too little", strings.Count(a, "\n"))
	}
}

// TestStagedOffersOrder: offers staged are decided before later ones
// added or committed (a host's cap admits the first offers), are kept
// across a close (durable), and a claim finding no host merges them.
func TestStagedOffersOrder(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	db := openOffers(t, file)
	capped := crawl.Limits{MaxPagesPerHost: 1}
	if _, err := db.StageURLs(ctx, []crawl.NewURL{offerURL("http://a.test/1", 0, 0), offerURL("http://a.test/1", 0, 0)}, capped); err != nil {
		t.Fatal(err)
	}
	st, err := db.AddURLs(ctx, []crawl.NewURL{offerURL("http://a.test/2", 0, 0)}, capped)
	if err != nil || st.Added != 0 || st.OverHostCap != 1 {
		t.Fatalf("AddURLs after a staged offer of the same host = %+v, %v; want over the cap", st, err)
	}
	if _, err := db.StageURLs(ctx, []crawl.NewURL{offerURL("http://b.test/1", 0, 3), offerURL("http://b.test/2", 0, 5)}, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openOffers(t, file)
	defer db.Close()
	now := time.Now()
	// a has a URL queued: the stage waits. Another owner finds a held,
	// no other host queued: the stage is merged, and b is claimed.
	for _, want := range []struct{ owner, key string }{{"o", "http://a.test"}, {"p", "http://b.test"}} {
		hs, err := db.ClaimHosts(ctx, want.owner, 10, time.Minute, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) != 1 || hs[0].Key != want.key {
			t.Fatalf("%s claimed %+v, want %s alone", want.owner, hs, want.key)
		}
	}
	hs, err := db.ClaimHosts(ctx, "q", 10, time.Minute, now)
	if err != nil || len(hs) != 0 {
		t.Fatalf("a third owner claimed %+v, %v; want nothing", hs, err)
	}
	hs = []crawl.Host{{ID: crawl.HashID("http://b.test"), Key: "http://b.test"}}
	for _, h := range hs {
		if h.Key != "http://b.test" {
			continue
		}
		c, _, err := db.ClaimURLs(ctx, "p", h.ID, 10, crawl.Limits{}, now)
		if err != nil || len(c) != 2 || c[0].URL != "http://b.test/2" {
			t.Fatalf("ClaimURLs(b) = %+v, %v; want both, priority 5 first", c, err)
		}
	}
	var n int
	if err := db.w.QueryRow(`SELECT count(*) FROM urls u JOIN hosts h ON h.id = u.host_id WHERE h.key || u.url = 'http://a.test/1'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("a.test/1 stored %d times (%v), want once", n, err)
	}
	if m, err := db.MergeStaged(ctx); err != nil || m != 0 {
		t.Fatalf("MergeStaged of an empty stage = %d, %v", m, err)
	}
}

// TestStagedOffersOneMerge: a single merge of a stage whose offers repeat
// URLs (within a batch, across batches, of a stored URL) and whose host
// cap is set on some batches only decides as the same batches added in
// turn: a repeat is refused and does not count against the cap, a URL is
// admitted at its first offer (its place and priority), the capped
// batch's offers come after the uncapped ones before them, and the
// offers after it are admitted under no cap again.
func TestStagedOffersOneMerge(t *testing.T) {
	tu := stagedOffers(1<<40, packMin) // merged only when asked
	// A cap of 4 refuses offers of a.test and of c.test, a host the
	// stage brings (the merge numbers each host's offers); one of 100
	// refuses none, and the merge inserts the stage without numbering.
	for _, c := range []struct {
		cap   int64
		added int
		a     string
	}{
		{4, 11, "/0:0 /1:1 /2:2 /3:1 /6:3"},
		{100, 14, "/0:0 /1:1 /2:2 /3:1 /4:0 /5:1 /6:3"},
	} {
		t.Run(fmt.Sprint("cap ", c.cap), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			added, staged := openTuned(t, filepath.Join(dir, "added.db"), tu), openTuned(t, filepath.Join(dir, "staged.db"), tu)
			defer added.Close()
			defer staged.Close()
			u := func(path string, priority int) crawl.NewURL { return offerURL("http://a.test"+path, 1, priority) }
			v := func(path string, priority int) crawl.NewURL { return offerURL("http://b.test"+path, 1, priority) }
			w := func(path string, priority int) crawl.NewURL { return offerURL("http://c.test"+path, 1, priority) }
			for _, db := range []*DB{added, staged} {
				if _, err := db.AddURLs(ctx, []crawl.NewURL{u("/0", 0)}, crawl.Limits{}); err != nil {
					t.Fatal(err)
				}
			}
			capped := crawl.Limits{MaxPagesPerHost: c.cap}
			batches := []struct {
				urls []crawl.NewURL
				lim  crawl.Limits
			}{
				{[]crawl.NewURL{u("/1", 1), v("/1", 0), u("/2", 2), u("/1", 3), u("/0", 4)}, crawl.Limits{}},
				{[]crawl.NewURL{u("/2", 0), u("/3", 1), v("/1", 2), u("/0", 3), v("/2", 4), u("/4", 0), u("/5", 1),
					w("/1", 0), w("/2", 1), w("/3", 0), w("/4", 2), w("/5", 3)}, capped},
				{[]crawl.NewURL{u("/2", 2), u("/6", 3), v("/3", 0), u("/1", 1)}, crawl.Limits{}},
			}
			for _, b := range batches {
				if _, err := added.AddURLs(ctx, b.urls, b.lim); err != nil {
					t.Fatal(err)
				}
				if st, err := staged.StageURLs(ctx, b.urls, b.lim); err != nil || st.Added != 0 {
					t.Fatalf("StageURLs = %+v, %v; want the offers staged, not merged", st, err)
				}
			}
			if n, err := staged.MergeStaged(ctx); err != nil || n != c.added {
				t.Fatalf("MergeStaged = %d, %v; want %d added", n, err, c.added)
			}
			a, s := dumpFrontier(t, added), dumpFrontier(t, staged)
			if a != s {
				t.Errorf("one merge left\n%s\nadded batch by batch\n%s", s, a)
			}
			var got string
			if err := staged.w.QueryRow(`SELECT group_concat(u.url || ':' || u.priority, ' ') FROM (SELECT url, priority FROM urls
				WHERE host_id = ? ORDER BY rowid) AS u`, crawl.HashID("http://a.test")).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != c.a {
				t.Errorf("a.test's URLs in admission order %q, want %q", got, c.a)
			}
		})
	}
}

// TestStagedOffersNewHostOverCap: a host that a stage brings, with more
// offers than its cap, is admitted its first ones only, as AddURLs
// admits them, though no stored host is near its cap.
func TestStagedOffersNewHostOverCap(t *testing.T) {
	tu := stagedOffers(1<<40, packMin) // merged only when asked
	ctx := context.Background()
	dir := t.TempDir()
	added, staged := openTuned(t, filepath.Join(dir, "added.db"), tu), openTuned(t, filepath.Join(dir, "staged.db"), tu)
	defer added.Close()
	defer staged.Close()
	batch := []crawl.NewURL{offerURL("http://a.test/1", 1, 0)}
	for i := range 5 {
		batch = append(batch, offerURL(fmt.Sprintf("http://c.test/%d", i), 1, i%3))
	}
	lim := crawl.Limits{MaxPagesPerHost: 3}
	for _, db := range []*DB{added, staged} {
		if _, err := db.AddURLs(ctx, []crawl.NewURL{offerURL("http://a.test/0", 1, 0)}, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := added.AddURLs(ctx, batch, lim); err != nil {
		t.Fatal(err)
	}
	if _, err := staged.StageURLs(ctx, batch, lim); err != nil {
		t.Fatal(err)
	}
	if n, err := staged.MergeStaged(ctx); err != nil || n != 4 {
		t.Fatalf("MergeStaged = %d, %v; want 4 added (c.test/0-2, a.test/1)", n, err)
	}
	if a, s := dumpFrontier(t, added), dumpFrontier(t, staged); a != s {
		t.Errorf("the merge left\n%s\nAddURLs\n%s", s, a)
	}
}

// TestStagedOffersRepeatOrKnown: a merge finds a stage's one repeated
// URL, or its one offer of a stored URL, among offers that are neither,
// and refuses it; a stage of neither is admitted whole.
func TestStagedOffersRepeatOrKnown(t *testing.T) {
	tu := stagedOffers(1<<40, packMin) // merged only when asked
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		stage []string
		added int
	}{
		{"neither", []string{"a.test/1", "b.test/0", "a.test/2"}, 3},
		{"a repeat", []string{"a.test/1", "b.test/0", "a.test/2", "b.test/0"}, 3},
		{"a stored URL", []string{"a.test/1", "b.test/0", "a.test/0"}, 2},
	} {
		db := openTuned(t, filepath.Join(t.TempDir(), "crawl.db"), tu)
		if _, err := db.AddURLs(ctx, []crawl.NewURL{offerURL("http://a.test/0", 0, 0)}, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		for _, u := range c.stage {
			if _, err := db.StageURLs(ctx, []crawl.NewURL{offerURL("http://"+u, 0, 0)}, crawl.Limits{}); err != nil {
				t.Fatal(err)
			}
		}
		n, err := db.MergeStaged(ctx)
		var stored int
		if err == nil {
			err = db.w.QueryRow(`SELECT count(*) FROM urls`).Scan(&stored)
		}
		if err != nil || n != c.added || stored != c.added+1 {
			t.Errorf("%s: MergeStaged = %d, %v, %d URLs stored; want %d added", c.name, n, err, stored, c.added)
		}
		db.Close()
	}
}
