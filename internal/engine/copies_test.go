package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// taken links the pages of host (paths /publications/i, titles) from a
// page of from, for i in [lo, hi), and returns the hosts the watch took
// for mirrors, or no longer, on the way (in order, as they changed).
func linkPubs(w *mirrorWatch, from, host string, lo, hi int, seen map[crawl.ID]bool) []string {
	var out []string
	for i := lo; i < hi; i++ {
		for _, h := range w.linked(from, fmt.Sprintf("%s/publications/%d", host, i), fmt.Sprintf("A Study of Crawling Number %d", i)) {
			if m := w.isMirror(h); m != seen[h] {
				seen[h] = m
				out = append(out, fmt.Sprintf("%v %v", h, m))
			}
		}
	}
	return out
}

// TestMirrorWatch: a host whose pages are linked under another host's
// paths with the same titles is taken for its copy after three such
// links, once; short anchors ("here", menus) and paths of one host alone
// do not count; of the two, without other evidence, the host linked less
// is the copy.
func TestMirrorWatch(t *testing.T) {
	w := newMirrorWatch()
	seen := map[crawl.ID]bool{}
	if got := linkPubs(w, "http://uni.test", "http://uni.test", 0, 10, seen); got != nil {
		t.Fatalf("a host's own links taken for a mirror's: %v", got)
	}
	for i := range 5 {
		if got := w.linked("http://blog.test", fmt.Sprintf("http://other.test/publications/%d", i), "Publications"); got != nil {
			t.Fatalf("a menu's anchor taken for a title")
		}
		if got := w.linked("http://blog.test", fmt.Sprintf("http://other.test/papers/%d", i), fmt.Sprintf("A Study of Crawling Number %d", i)); got != nil {
			t.Fatalf("another path with the same title taken for a copy")
		}
	}
	got := linkPubs(w, "http://mirror.test", "http://mirror.test", 0, 6, seen)
	if want := []string{fmt.Sprint(crawl.HashID("http://mirror.test"), " true")}; !slices.Equal(got, want) {
		t.Errorf("taken for mirrors: %v, want %v", got, want)
	}
	if ms := w.mirrorsOf(crawl.HashID("http://uni.test")); !slices.Equal(ms, []crawl.ID{crawl.HashID("http://mirror.test")}) {
		t.Errorf("mirrors of uni.test: %v", ms)
	}
}

// TestMirrorWatchMetFirst: a mirror whose pages are linked first (its
// listing fetched before its original's, many of its copies cited by a
// blog) is not taken for the original when the original is a seed, nor
// when more hosts link the original; a mirror so taken is corrected when
// the evidence turns.
func TestMirrorWatchMetFirst(t *testing.T) {
	uni, mirror := crawl.HashID("http://uni.test"), crawl.HashID("http://mirror.test")
	t.Run("seed", func(t *testing.T) {
		w := newMirrorWatch()
		w.seeded("http://uni.test/")
		seen := map[crawl.ID]bool{}
		linkPubs(w, "http://uni.test", "http://mirror.test", 100, 101, seen) // the original links its mirror
		linkPubs(w, "http://mirror.test", "http://mirror.test", 0, 20, seen)
		linkPubs(w, "http://blog.test", "http://mirror.test", 20, 30, seen)
		got := linkPubs(w, "http://uni.test", "http://uni.test", 0, 30, seen)
		if want := []string{fmt.Sprint(mirror, " true")}; !slices.Equal(got, want) {
			t.Errorf("taken for mirrors: %v, want %v (mirror.test)", got, want)
		}
	})
	t.Run("corrected", func(t *testing.T) {
		w := newMirrorWatch()
		seen := map[crawl.ID]bool{}
		linkPubs(w, "http://mirror.test", "http://mirror.test", 0, 20, seen)
		linkPubs(w, "http://blog.test", "http://mirror.test", 20, 30, seen)
		linkPubs(w, "http://uni.test", "http://mirror.test", 100, 101, seen) // the original links its mirror
		got := linkPubs(w, "http://uni.test", "http://uni.test", 0, 5, seen)
		if want := []string{fmt.Sprint(uni, " true")}; !slices.Equal(got, want) {
			t.Fatalf("taken for mirrors at first: %v, want %v (uni.test: the mirror has more links and a host linking it)", got, want)
		}
		// Two other hosts link the original's pages: it is linked from more
		// hosts than the mirror (the mirror's link from it not counted).
		linkPubs(w, "http://journal.test", "http://uni.test", 40, 41, seen)
		linkPubs(w, "http://news.test", "http://uni.test", 41, 42, seen)
		got = linkPubs(w, "http://uni.test", "http://uni.test", 5, 10, seen)
		if want := []string{fmt.Sprint(mirror, " true"), fmt.Sprint(uni, " false")}; !slices.Equal(got, want) {
			t.Errorf("after the evidence turned: %v, want %v (mirror.test taken, uni.test no longer)", got, want)
		}
		if ms := w.mirrorsOf(uni); !slices.Equal(ms, []crawl.ID{mirror}) {
			t.Errorf("mirrors of uni.test: %v, want mirror.test", ms)
		}
		if ms := w.mirrorsOf(mirror); len(ms) != 0 {
			t.Errorf("mirrors of mirror.test: %v, want none", ms)
		}
	})
}

// TestCopyWatch: committed pages are counted by host, the copies of
// another host's pages (exact or near duplicates) apart from those of the
// host's own and from those of a host taken for its mirror.
func TestCopyWatch(t *testing.T) {
	w := newCopyWatch()
	m, o := crawl.HashID("http://m.test"), crawl.HashID("http://o.test")
	page := func(u string, dup, near crawl.ID) crawl.Result {
		return crawl.Result{URL: crawl.ClaimedURL{URL: u, ID: crawl.URLID(u), HostID: crawl.HashID(crawl.HostKey(u))}, Outcome: crawl.OutcomeDone,
			Page: &crawl.Page{URL: u, Status: 200, DuplicateOf: dup, NearDuplicateOf: near}}
	}
	got := w.committed([]crawl.Result{
		page("http://m.test/a", crawl.URLID("http://o.test/a"), 0),
		page("http://m.test/b", 0, crawl.URLID("http://o.test/b")),
		page("http://m.test/c", crawl.URLID("http://m.test/a"), 0), // its own
		page("http://o.test/a", 0, 0),
	}, nil, nil)
	if got[m] != (copies{pages: 3, copies: 2, of: o}) || got[o] != (copies{pages: 1}) {
		t.Errorf("counts %v, want m.test 3 pages, 2 copies of o.test; o.test 1, 0", got)
	}
	// o.test's next pages copy m.test's, which is taken for o.test's mirror
	// (met first): they are not counted as copies.
	mirrorsOf := func(h crawl.ID) []crawl.ID {
		if h == o {
			return []crawl.ID{m}
		}
		return nil
	}
	got = w.committed([]crawl.Result{page("http://o.test/x", crawl.URLID("http://m.test/x"), 0)}, mirrorsOf, nil)
	if got[o] != (copies{pages: 2, plain: 1}) {
		t.Errorf("counts %v, want o.test 2 pages, no copies, the last no research (a copy)", got)
	}
	if c, ok := w.recount(o, nil); !ok || c != (copies{pages: 2, copies: 1, of: m, plain: 1}) {
		t.Errorf("o.test counted again without mirrors: %v, want 2 pages, 1 copy of m.test", c)
	}
}

// TestCopyWatchPlainRun: the pages of no research a host committed in a
// row, up to its last (news, other pages, copies), are counted; a work, a
// person, a publication list or a file whose text was not read ends the
// run.
func TestCopyWatchPlainRun(t *testing.T) {
	w := newCopyWatch()
	h := crawl.HashID("http://r.test")
	n := 0
	page := func(typ string) crawl.Result {
		n++
		u := fmt.Sprintf("http://r.test/node/%d", n)
		p := &crawl.Page{URL: u, Status: 200}
		if typ != "" {
			p.Meta = &crawl.Metadata{Type: typ}
		}
		return crawl.Result{URL: crawl.ClaimedURL{URL: u, ID: crawl.URLID(u), HostID: h}, Outcome: crawl.OutcomeDone, Page: p}
	}
	for _, tc := range []struct {
		types []string
		want  int
	}{
		{[]string{"article", "news", "other"}, 2},
		{[]string{"news"}, 3},
		{[]string{"listing", "news"}, 1},
		{[]string{""}, 0}, // a file whose text was not read
		{[]string{"person"}, 0},
	} {
		var batch []crawl.Result
		for _, typ := range tc.types {
			batch = append(batch, page(typ))
		}
		if got := w.committed(batch, nil, nil)[h].plain; got != tc.want {
			t.Errorf("after %q: %d pages of no research in a row, want %d", tc.types, got, tc.want)
		}
	}
}

// TestCopyWatchSeedFetchedLater: a seed's page that copies a page another
// host gave first counts against that host, as its copy of the seed's
// page: a seed is taken for the original whichever was fetched first.
func TestCopyWatchSeedFetchedLater(t *testing.T) {
	w := newCopyWatch()
	s, l := crawl.HashID("http://s.test"), crawl.HashID("http://l.test")
	page := func(u string, dup crawl.ID) crawl.Result {
		return crawl.Result{URL: crawl.ClaimedURL{URL: u, ID: crawl.URLID(u), HostID: crawl.HashID(crawl.HostKey(u))}, Outcome: crawl.OutcomeDone,
			Page: &crawl.Page{URL: u, Status: 200, DuplicateOf: dup}}
	}
	isSeed := func(h crawl.ID) bool { return h == s }
	w.committed([]crawl.Result{page("http://l.test/a", 0), page("http://l.test/b", 0)}, nil, isSeed)
	got := w.committed([]crawl.Result{page("http://s.test/a", crawl.URLID("http://l.test/a"))}, nil, isSeed)
	if got[l] != (copies{pages: 2, copies: 1, of: s}) {
		t.Errorf("l.test: %+v, want 2 pages, 1 copy of s.test (the seed's page it gave first)", got[l])
	}
	if got[s] != (copies{pages: 1, copies: 1, of: l, plain: 1}) {
		t.Errorf("s.test: %+v, want its page counted a copy of l.test's", got[s])
	}
}

// TestCopyWatchLearnsOriginals: copies of pages this process never
// counted (another process fetched them) name their host once the copied
// URLs' records are looked up, one lookup a host; a failed lookup leaves
// the host unknown and is tried again with its next copy.
func TestCopyWatchLearnsOriginals(t *testing.T) {
	w := newCopyWatch()
	m, o := crawl.HashID("http://m.test"), crawl.HashID("http://o.test")
	page := func(u string, dup crawl.ID) crawl.Result {
		return crawl.Result{URL: crawl.ClaimedURL{URL: u, ID: crawl.URLID(u), HostID: crawl.HashID(crawl.HostKey(u)), Kind: crawl.KindPage},
			Outcome: crawl.OutcomeDone, Page: &crawl.Page{URL: u, Status: 200, DuplicateOf: dup}}
	}
	lookups := 0
	fail := true
	lookup := func(_ context.Context, id crawl.ID) (crawl.URLRecord, error) {
		lookups++
		if fail {
			return crawl.URLRecord{}, errors.New("store down")
		}
		for _, u := range []string{"http://o.test/a", "http://o.test/b", "http://o.test/c"} {
			if crawl.URLID(u) == id {
				return crawl.URLRecord{ID: id, URL: u, HostID: o}, nil
			}
		}
		return crawl.URLRecord{}, errors.New("no such url")
	}
	batch := []crawl.Result{page("http://m.test/a", crawl.URLID("http://o.test/a")), page("http://m.test/b", crawl.URLID("http://o.test/b"))}
	if err := w.learnOriginals(context.Background(), batch, lookup); err == nil {
		t.Fatal("a failed lookup returned no error")
	}
	if got := w.committed(batch, nil, nil)[m]; got != (copies{pages: 2, copies: 2, plain: 2}) {
		t.Errorf("after a failed lookup: %+v, want 2 copies of a host not known", got)
	}
	fail, lookups = false, 0
	batch = []crawl.Result{page("http://m.test/c", crawl.URLID("http://o.test/c")), page("http://m.test/d", crawl.URLID("http://o.test/a"))}
	if err := w.learnOriginals(context.Background(), batch, lookup); err != nil {
		t.Fatal(err)
	}
	if lookups != 1 {
		t.Errorf("%d lookups for two copies of one host, want 1", lookups)
	}
	if got := w.committed(batch, nil, nil)[m]; got != (copies{pages: 4, copies: 4, of: o, plain: 4}) {
		t.Errorf("%+v, want 4 copies of o.test", got)
	}
	if err := w.learnOriginals(context.Background(), batch, lookup); err != nil || lookups != 1 {
		t.Errorf("a known host looked up again (%d lookups, err %v)", lookups, err)
	}
}
