package sqlite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// delayCrawl commits pages through the store's own claim and commit path.
type delayCrawl struct {
	t       *testing.T
	db      *DB
	now     time.Time
	prepare func(*crawl.Result) // if set, run on each result before the commit
}

// newDelayCrawl opens a store in a file of its own with opts, closed at
// the test's end, and a crawl on it.
func newDelayCrawl(t *testing.T, opts Options) *delayCrawl {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "crawl.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &delayCrawl{t: t, db: db, now: time.Unix(1_800_000_000, 0)}
}

// commit fetches the pages of urls (added first, or queued again) with
// the texts and links given, in one transaction. A text of "" makes the
// page gone (a 410), which takes it out of the index.
func (c *delayCrawl) commit(texts map[string]string, links map[string][]crawl.Link) {
	t, ctx := c.t, context.Background()
	t.Helper()
	var adds []crawl.NewURL
	var ids []crawl.ID
	for url := range texts {
		adds = append(adds, storetest.U(url, 0, 0))
		ids = append(ids, crawl.URLID(url))
	}
	if _, err := c.db.AddURLs(ctx, adds, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	c.now = c.now.Add(time.Hour)
	if _, err := c.db.ScheduleDueURLs(ctx, ids, c.now); err != nil {
		t.Fatal(err)
	}
	var rs []crawl.Result
	var rel []crawl.HostRelease
	for len(rs) < len(texts) {
		hs, err := c.db.ClaimHosts(ctx, "t", 100, time.Minute, c.now)
		if err != nil || len(hs) == 0 {
			t.Fatalf("ClaimHosts = %v, %v; %d of %d claimed", hs, err, len(rs), len(texts))
		}
		for _, h := range hs {
			cs, _, err := c.db.ClaimURLs(ctx, "t", h.ID, 100, crawl.Limits{}, c.now)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range cs {
				text := texts[u.URL]
				p := &crawl.Page{URL: u.URL, Status: 200, ContentType: "text/html", Title: "page " + u.URL, Text: text,
					FetchedAt: c.now, Lang: "en", ContentHash: []byte(fmt.Sprintf("%032x", crawl.HashID(u.URL+text)))}
				rv := &crawl.Revisit{Interval: time.Hour, NextCheck: c.now.Add(time.Hour), Changed: true}
				if text == "" {
					p.Status, rv = 410, &crawl.Revisit{Gone: crawl.Removed}
				}
				rs = append(rs, crawl.Result{URL: u, Outcome: crawl.OutcomeDone, Page: p, Links: links[u.URL], Revisit: rv})
			}
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
	}
	if c.prepare != nil {
		for i := range rs {
			c.prepare(&rs[i])
		}
	}
	if _, err := c.db.Commit(ctx, rs, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := c.db.ReleaseHosts(ctx, "t", rel); err != nil {
		t.Fatal(err)
	}
}

// found returns the URLs a search for q finds, sorted.
func (c *delayCrawl) found(q string) []string {
	c.t.Helper()
	res, err := c.db.Search(context.Background(), crawl.SearchRequest{Query: q, Limit: 100})
	if err != nil {
		c.t.Fatalf("Search(%q): %v", q, err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.URL)
	}
	slices.Sort(out)
	return out
}

func (c *delayCrawl) expect(q string, want ...string) {
	c.t.Helper()
	if got := c.found(q); !slices.Equal(got, want) {
		c.t.Errorf("Search(%q) = %v, want %v", q, got, want)
	}
}

// consistent checks that every document is in the index or waits,
// never both and nothing else: the index holds one document per document
// not waiting, plus the previous ones the waiting ones will replace.
func (c *delayCrawl) consistent() {
	c.t.Helper()
	var docs, waiting, replaced, rows, orphans int
	indexed := `SELECT count(*) FROM pages_fts_docsize`
	if c.db.engine == EngineSegments {
		indexed = `SELECT count(*) FROM index_docs`
	}
	for q, into := range map[string]*int{
		`SELECT count(*) FROM search_docs`:                  &docs,
		`SELECT count(*) FROM search_pending`:               &waiting,
		`SELECT count(*) FROM search_pending WHERE indexed`: &replaced,
		indexed: &rows,
		`SELECT count(*) FROM search_pending WHERE key NOT IN (SELECT key FROM search_docs)`: &orphans,
	} {
		if err := c.db.r.QueryRow(q).Scan(into); err != nil {
			c.t.Fatal(err)
		}
	}
	if orphans > 0 {
		c.t.Errorf("%d waiting rows have no document", orphans)
	}
	if rows != docs-waiting+replaced {
		c.t.Errorf("the index holds %d documents for %d, %d of them waiting (%d replacing a document)", rows, docs, waiting, replaced)
	}
	if c.db.w == nil || c.db.engine != EngineFTS5 {
		return
	}
	if _, err := c.db.w.Exec(`INSERT INTO pages_fts (pages_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		c.t.Errorf("pages_fts integrity: %v", err)
	}
}

func (c *delayCrawl) waiting() int {
	c.t.Helper()
	var n int
	if err := c.db.w.QueryRow(`SELECT count(*) FROM search_pending`).Scan(&n); err != nil {
		c.t.Fatal(err)
	}
	return n
}

// forEachEngine runs test on a store of each engine of the embedded index.
func forEachEngine(t *testing.T, test func(t *testing.T, engine string)) {
	for _, engine := range []string{EngineFTS5, EngineSegments} {
		t.Run(engine, func(t *testing.T) { test(t, engine) })
	}
}

func link(target, anchor string) crawl.Link {
	return crawl.Link{Target: target, TargetID: crawl.URLID(target), Anchor: anchor}
}

// TestIndexDelay checks the rows that wait for the index delay: a page
// is not found while its row waits, then is found with the anchor texts of
// links committed after it; a page committed again keeps its previous row
// until its new one is written, and one that leaves the index while
// waiting leaves no row behind; the end-of-crawl pass, Close and the open
// after a crash write every row that waits.
func TestIndexDelay(t *testing.T) { forEachEngine(t, testIndexDelay) }

func testIndexDelay(t *testing.T, engine string) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "delay.db")
	db, err := Open(ctx, file, Options{IndexDelay: time.Hour, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	c := &delayCrawl{t: t, db: db, now: time.Unix(1_800_000_000, 0)}
	const a, b, d, e = "http://a.test/a", "http://a.test/b", "http://b.test/d", "http://b.test/e"
	c.commit(map[string]string{a: "alpha words", b: "beta words"}, map[string][]crawl.Link{a: {link(b, "zebra")}})
	c.expect("words")
	if n := c.waiting(); n != 2 {
		t.Errorf("%d rows wait, want 2", n)
	}
	c.consistent()
	// A link to b found after b was committed.
	c.commit(map[string]string{d: "delta words"}, map[string][]crawl.Link{d: {link(b, "quokka")}})
	c.expect("words")
	c.consistent()

	// The end-of-crawl pass writes every row, with the anchors known now.
	if err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(a): 1, crawl.URLID(b): 2, crawl.URLID(d): 1}); err != nil {
		t.Fatal(err)
	}
	c.expect("words", a, b, d)
	c.expect("zebra", b)
	c.expect("quokka", b)
	if n := c.waiting(); n != 0 {
		t.Errorf("%d rows wait after the pass, want none", n)
	}
	c.consistent()

	// b committed again: its previous row stays found until the new one is
	// written; d leaves the index (gone) while a new version of it waits.
	c.commit(map[string]string{b: "gamma words"}, nil)
	c.commit(map[string]string{d: "epsilon"}, nil)
	c.expect("beta", b)
	c.expect("gamma")
	c.expect("delta", d)
	c.consistent()
	c.commit(map[string]string{d: ""}, nil)
	c.expect("delta")
	c.expect("epsilon")
	c.consistent()

	// Close writes what waits.
	c.commit(map[string]string{e: "eta words"}, map[string][]crawl.Link{e: {link(a, "aardvark")}})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Read-only: the open writes nothing, what is found Close wrote.
	if db, err = Open(ctx, file, Options{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	c.db = db
	c.expect("words", a, b, e)
	c.expect("gamma", b)
	c.expect("beta")
	// a's anchors change with e's link, which only the next pass indexes.
	c.expect("aardvark")
	c.consistent()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	var quiet strings.Builder
	if db, err = Open(ctx, file, Options{IndexDelay: time.Hour, Log: slog.New(slog.NewTextHandler(&quiet, nil))}); err != nil {
		t.Fatal(err)
	}
	if quiet.Len() != 0 {
		t.Errorf("an open with nothing waiting logged\n%s", quiet.String())
	}
	c.db = db

	// A crash: the files copied while rows wait (a process killed after
	// its commit) open with every row written.
	c.commit(map[string]string{a: "omega again"}, nil)
	if n := c.waiting(); n != 1 {
		t.Errorf("%d rows wait, want 1", n)
	}
	crashed := filepath.Join(t.TempDir(), "crashed.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(file + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crashed+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	if db, err = Open(ctx, crashed, Options{IndexDelay: time.Hour, Log: slog.New(slog.NewTextHandler(&logged, nil))}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if want := ` msg="waiting pages indexed" db=` + crashed + ` pages=1 took=`; !strings.Contains(logged.String(), want) {
		t.Errorf("the open after the crash logged\n%s\nwithout %q", logged.String(), want)
	}
	c.db = db
	c.expect("again", a)
	c.expect("alpha")
	c.consistent()

	// The pass writes a waiting row in place of the page's previous row.
	c.commit(map[string]string{b: "theta words"}, nil)
	if err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(b): 1}); err != nil {
		t.Fatal(err)
	}
	c.expect("theta", b)
	c.expect("gamma")
	c.consistent()
}

// TestIndexDelayDue checks that a commit writes the rows that have waited
// the delay, and only those, finding them through the index by time.
func TestIndexDelayDue(t *testing.T) { forEachEngine(t, testIndexDelayDue) }

func testIndexDelayDue(t *testing.T, engine string) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "due.db"), Options{IndexDelay: 50 * time.Millisecond, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if p := strings.Join(queryPlan(t, db, dueTake, 1, 10), "; "); !strings.Contains(p, "INDEX search_pending_at") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("the rows due are found by %q, want the index on at", p)
	}
	c := &delayCrawl{t: t, db: db, now: time.Unix(1_800_000_000, 0)}
	const a, b, d = "http://a.test/a", "http://a.test/b", "http://b.test/d"
	c.commit(map[string]string{a: "alpha words"}, nil)
	time.Sleep(100 * time.Millisecond)
	// b links to a: a's row, written by this commit, has the anchor.
	c.commit(map[string]string{b: "beta words"}, map[string][]crawl.Link{b: {link(a, "zebra")}})
	c.expect("words", a)
	c.expect("zebra", a)
	c.consistent()
	time.Sleep(100 * time.Millisecond)
	c.commit(map[string]string{d: "delta words"}, nil)
	c.expect("words", a, b)
	c.consistent()
}

// RefreshAnchors writes the waiting rows and the changed anchors by
// itself, as the rank pass runs it before SetRanks; SetRanks after it
// leaves the index as SetRanks alone would.
func TestRefreshAnchorsBeforeRanks(t *testing.T) { forEachEngine(t, testRefreshAnchorsBeforeRanks) }

func testRefreshAnchorsBeforeRanks(t *testing.T, engine string) {
	ctx := context.Background()
	c := newDelayCrawl(t, Options{IndexDelay: time.Hour, Engine: engine})
	db := c.db
	const a, b, d = "http://a.test/a", "http://a.test/b", "http://b.test/d"
	c.commit(map[string]string{a: "alpha words", b: "beta words"}, map[string][]crawl.Link{a: {link(b, "zebra")}})
	c.commit(map[string]string{d: "delta words"}, map[string][]crawl.Link{d: {link(b, "quokka")}})
	c.expect("words")
	if err := db.RefreshAnchors(ctx); err != nil {
		t.Fatal(err)
	}
	if n := c.waiting(); n != 0 {
		t.Errorf("%d rows wait after RefreshAnchors, want none", n)
	}
	c.expect("words", a, b, d)
	c.expect("quokka", b)
	c.consistent()
	if err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(a): 1, crawl.URLID(b): 2, crawl.URLID(d): 1}); err != nil {
		t.Fatal(err)
	}
	c.expect("words", a, b, d)
	c.expect("zebra", b)
	c.expect("quokka", b)
	c.consistent()
}

// SetRanks looks for changed anchor texts again only when something was
// committed after RefreshAnchors: a page linked between the two gets its
// anchor, and with no commit between them the search for changes is
// skipped. A stale anchor text planted behind the store's back (no
// transaction of its own) is the probe: left alone when nothing was
// committed, put right once a commit links to its page.
func TestSetRanksLooksAgainOnlyAfterWrites(t *testing.T) {
	forEachEngine(t, testSetRanksLooksAgainOnlyAfterWrites)
}

func testSetRanksLooksAgainOnlyAfterWrites(t *testing.T, engine string) {
	ctx := context.Background()
	c := newDelayCrawl(t, Options{IndexDelay: time.Hour, Engine: engine})
	db := c.db
	const a, b, d, e = "http://a.test/a", "http://a.test/b", "http://b.test/d", "http://b.test/e"
	ranks := map[crawl.ID]float64{crawl.URLID(a): 1, crawl.URLID(b): 2, crawl.URLID(d): 1, crawl.URLID(e): 1}
	c.commit(map[string]string{a: "alpha words", b: "beta words"}, map[string][]crawl.Link{a: {link(b, "zebra")}})
	if err := db.RefreshAnchors(ctx); err != nil {
		t.Fatal(err)
	}
	// Linked after RefreshAnchors: SetRanks must find the new anchor.
	c.commit(map[string]string{d: "delta words"}, map[string][]crawl.Link{d: {link(a, "quokka")}})
	if err := db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	c.expect("quokka", a)
	c.expect("zebra", b)
	c.expect("words", a, b, d)
	c.consistent()

	anchorsOf := func(url string) string {
		t.Helper()
		var s string
		if err := db.w.QueryRow(`SELECT anchors FROM search_docs WHERE key = ?`, ftsKey(crawl.URLID(url))).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	plant := func() {
		t.Helper()
		if _, err := db.w.Exec(`UPDATE search_docs SET anchors = 'stale' WHERE key = ?`, ftsKey(crawl.URLID(b))); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RefreshAnchors(ctx); err != nil {
		t.Fatal(err)
	}
	plant()
	if err := db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	if got := anchorsOf(b); got != "stale" {
		t.Errorf("with nothing committed since RefreshAnchors, SetRanks looked for changed anchors again (b's: %q)", got)
	}
	// A commit that links to b: the pass looks at b again.
	c.commit(map[string]string{e: "epsilon words"}, map[string][]crawl.Link{e: {link(b, "yak")}})
	if err := db.SetRanks(ctx, ranks); err != nil {
		t.Fatal(err)
	}
	if got := anchorsOf(b); !strings.Contains(got, "zebra") || !strings.Contains(got, "yak") {
		t.Errorf("after a commit linking to b, b's anchor texts are %q, want them gathered again (zebra and yak)", got)
	}
	c.expect("yak", b)
	c.expect("words", a, b, d, e)
	c.consistent()
}

// endsAfter is a context that ends once its Err has been asked n times:
// a stop that comes while a loop runs, wherever it checks.
type endsAfter struct {
	context.Context
	left atomic.Int64
	done chan struct{}
	once sync.Once
}

func newEndsAfter(n int64) *endsAfter {
	c := &endsAfter{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *endsAfter) Done() <-chan struct{} { return c.done }

func (c *endsAfter) Err() error {
	if c.left.Add(-1) >= 0 {
		return nil
	}
	c.once.Do(func() { close(c.done) })
	return context.Canceled
}

// TestRefreshAnchorsStopsWhenItsContextEnds: the pass's statements run
// without a watcher each, and its loops look at the context between
// documents: a context that ends while the pass writes stops it with the
// context's error, and its transaction leaves nothing done (every
// document still waits); the next pass does the work.
func TestRefreshAnchorsStopsWhenItsContextEnds(t *testing.T) {
	forEachEngine(t, testRefreshAnchorsStopsWhenItsContextEnds)
}

func testRefreshAnchorsStopsWhenItsContextEnds(t *testing.T, engine string) {
	ctx := context.Background()
	c := newDelayCrawl(t, Options{IndexDelay: time.Hour, Engine: engine})
	db := c.db
	texts := map[string]string{}
	links := map[string][]crawl.Link{}
	var urls []string
	const n = 80
	page := func(i int) string { return fmt.Sprintf("http://h%d.test/%d", i%4, i) }
	for i := range n {
		u := page(i)
		urls = append(urls, u)
		texts[u] = "words " + u
		links[u] = []crawl.Link{link(page((i+1)%n), "anchor")}
	}
	c.commit(texts, links)
	if w := c.waiting(); w != n {
		t.Fatalf("%d documents wait, want %d", w, n)
	}
	if err := db.RefreshAnchors(newEndsAfter(n)); !errors.Is(err, context.Canceled) {
		t.Fatalf("RefreshAnchors under a context that ends: %v, want context.Canceled", err)
	}
	if w := c.waiting(); w != n {
		t.Errorf("%d documents wait after the stopped pass, want all %d", w, n)
	}
	c.expect("words")
	if err := db.RefreshAnchors(ctx); err != nil {
		t.Fatal(err)
	}
	slices.Sort(urls)
	c.expect("words", urls...)
	c.consistent()
}
