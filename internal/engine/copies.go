package engine

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/acrawler/acrawler/internal/crawl"
)

// copyWatch counts, per host, the pages this process committed and how
// many of them are copies of another host's pages (the store found them
// exact or near duplicates of a page whose URL is on another host), for
// the frontier (frontier.Frontier.Copies): a mirror ranks low from its
// first copies on, before the store revalues it. The copies are counted
// by the copied host (the high bits of the copied URL's ID), so that the
// copies of a host taken for a mirror of the host do not count: an
// original fetched after its mirror copies the mirror's pages.
type copyWatch struct {
	mu    sync.Mutex
	hosts map[crawl.ID]*copyCount
	ids   map[uint64]crawl.ID // a host's high bits → the first host counted with them
}

type copyCount struct {
	pages  int
	copies map[uint64]int // copied host's bits → copies
	plain  int            // pages in a row, up to the last, that were no research
}

func newCopyWatch() *copyWatch {
	return &copyWatch{hosts: map[crawl.ID]*copyCount{}, ids: map[uint64]crawl.ID{}}
}

// copies is what a host's committed pages turned out to be: its pages,
// its copies of other hosts' pages, and the host most of them copy (the
// most copied one, 0 when its host is not known: a host is known by the
// bits of its URL IDs, and in full for the hosts whose pages this process
// counted or whose copied pages it looked up, learnOriginals).
type copies struct {
	pages, copies int
	of            crawl.ID
	plain         int // the last pages in a row that were no research (plainPage)
}

// plainPage reports whether a committed page is no research: of a type
// that is none (news, other: not a work, a person or a publication list),
// or a copy of another host's page. A page without metadata (a file whose
// text was not read) counts as research, as the stores count it.
func plainPage(p *crawl.Page, copied bool) bool {
	return copied || p.Meta != nil && (p.Meta.Type == "news" || p.Meta.Type == "other")
}

// otherHost reports whether a URL ID is of a URL on another host than
// host: its high bits come from its host (crawl.URLHostBits), so IDs
// whose high bits differ are of other hosts (those whose bits agree are
// taken as the host's own: rarely another host's).
func otherHost(url, host crawl.ID) bool {
	return url != 0 && crawl.HostBits(url) != crawl.HostBits(host)
}

// copiedURL is the URL a committed page copies on another host than its
// own (an exact duplicate first, else a near one), 0 when none.
func copiedURL(r *crawl.Result) crawl.ID {
	p := r.Page
	if r.Outcome != crawl.OutcomeDone || p == nil || p.Status < 200 || p.Status > 299 || r.URL.Kind != crawl.KindPage {
		return 0
	}
	of := p.DuplicateOf
	if !otherHost(of, r.URL.HostID) {
		of = p.NearDuplicateOf
	}
	if !otherHost(of, r.URL.HostID) {
		return 0
	}
	return of
}

// learnOriginals makes known the hosts whose pages a batch's pages copy
// and that this process has counted no page of: count names the host
// most copied by the bits of its URL IDs, which this process knows in
// full only for the hosts whose pages it counted. A copy of a page that
// another process fetched (several processes on one store, or the same
// crawl before a restart) would otherwise name no host, and its host
// would not be recorded as a mirror. Each such host is looked up once, by
// the copied URL's record (lookup); a failed lookup is returned and tried
// again at the next copy of the host.
func (w *copyWatch) learnOriginals(ctx context.Context, batch []crawl.Result, lookup func(context.Context, crawl.ID) (crawl.URLRecord, error)) error {
	var unknown []crawl.ID
	w.mu.Lock()
	for i := range batch {
		of := copiedURL(&batch[i])
		if of == 0 {
			continue
		}
		if _, ok := w.ids[crawl.HostBits(of)]; !ok && !slices.ContainsFunc(unknown, func(u crawl.ID) bool { return crawl.HostBits(u) == crawl.HostBits(of) }) {
			unknown = append(unknown, of)
		}
	}
	w.mu.Unlock()
	for _, of := range unknown {
		rec, err := lookup(ctx, of)
		if err != nil {
			return fmt.Errorf("host of copied url %d: %w", int64(of), err)
		}
		if rec.HostID == 0 || crawl.HostBits(rec.HostID) != crawl.HostBits(of) {
			continue
		}
		w.mu.Lock()
		if _, ok := w.ids[crawl.HostBits(of)]; !ok {
			w.ids[crawl.HostBits(of)] = rec.HostID
		}
		w.mu.Unlock()
	}
	return nil
}

// count is a host's pages and its copies of hosts other than its
// mirrors (their IDs), and the host most copied (the one of lower bits
// among the most copied).
func (w *copyWatch) count(c *copyCount, mirrors []crawl.ID) copies {
	out := copies{pages: c.pages, plain: c.plain}
	most, mostBits := 0, uint64(0)
	for bits, k := range c.copies {
		if slices.ContainsFunc(mirrors, func(m crawl.ID) bool { return crawl.HostBits(m) == bits }) {
			continue
		}
		out.copies += k
		if k > most || k == most && bits < mostBits {
			most, mostBits = k, bits
		}
	}
	if most > 0 {
		out.of = w.ids[mostBits]
	}
	out.copies = min(out.copies, out.pages)
	return out
}

// committed counts the batch's useful pages by host and returns the hosts
// whose counts changed, with their counts; mirrorsOf gives the hosts
// taken for mirrors of a host, whose copies do not count (nil: none).
// seed tells a seed's host (nil: none): a seed is taken for an original,
// so a seed's page that copies a page another host gave first counts
// against that host too, as its copy of the seed's page (which page of
// the two was fetched first depends on the order, not on which is the
// copy).
func (w *copyWatch) committed(batch []crawl.Result, mirrorsOf func(crawl.ID) []crawl.ID, seed func(crawl.ID) bool) map[crawl.ID]copies {
	var out map[crawl.ID]copies
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range batch {
		r := &batch[i]
		p := r.Page
		if r.Outcome != crawl.OutcomeDone || p == nil || p.Status < 200 || p.Status > 299 || r.URL.Kind != crawl.KindPage {
			continue
		}
		of := copiedURL(r)
		copied := of != 0
		c := w.hosts[r.URL.HostID]
		if c == nil {
			c = &copyCount{}
			w.hosts[r.URL.HostID] = c
			if _, ok := w.ids[crawl.HostBits(r.URL.HostID)]; !ok {
				w.ids[crawl.HostBits(r.URL.HostID)] = r.URL.HostID
			}
		}
		c.pages++
		if copied {
			if c.copies == nil {
				c.copies = map[uint64]int{}
			}
			c.copies[crawl.HostBits(of)]++
		}
		if plainPage(p, copied) {
			c.plain++
		} else {
			c.plain = 0
		}
		if out == nil {
			out = map[crawl.ID]copies{}
		}
		out[r.URL.HostID] = copies{}
		if other, ok := w.ids[crawl.HostBits(of)]; copied && ok && seed != nil && seed(r.URL.HostID) && !seed(other) && w.hosts[other] != nil {
			oc := w.hosts[other]
			if oc.copies == nil {
				oc.copies = map[uint64]int{}
			}
			oc.copies[crawl.HostBits(r.URL.HostID)]++
			out[other] = copies{}
		}
	}
	for h := range out {
		var ms []crawl.ID
		if mirrorsOf != nil {
			ms = mirrorsOf(h)
		}
		out[h] = w.count(w.hosts[h], ms)
	}
	return out
}

// recount returns a host's counts again, its mirrors' copies left out,
// and whether it has any.
func (w *copyWatch) recount(host crawl.ID, mirrors []crawl.ID) (copies, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.hosts[host]
	if c == nil {
		return copies{}, false
	}
	return w.count(c, mirrors), true
}

// A mirror is known by the links to its pages before their copies are:
// it serves the pages of its original under the same paths, which pages
// link with the same anchor text (a paper's title). Each link whose
// anchor is distinctive (mirrorAnchor) is recorded under its path and
// anchor with the host it points to, the first to be linked so; a link to
// another host under a path and anchor recorded for a host is a match
// between the two. After mirrorMatches distinct matches one of the two is
// taken for a copy of the other (frontier.Frontier.Mirror), before more
// of its pages are fetched, and the choice is made again at each later
// match, so that a mirror taken for the original is corrected when the
// evidence turns (frontier.Frontier.NotMirror). Which host was linked
// first says little (a mirror met first, through a blog citing its copies
// or through its original's link to it, has its listing fetched first),
// so the original is (originalOf), in order: the host that is a seed; the
// host linked from more other hosts (the pair's links to each other not
// counted: an original links its mirror); the host with more links
// recorded first; the host linked first.
const (
	mirrorMatches = 3
	mirrorKeys    = 1 << 20 // links recorded at most, pairs of hosts matched, and pairs of hosts linking
)

type linkKey struct {
	path, anchor uint64
}

type mirrorWatch struct {
	mu      sync.Mutex
	keys    map[linkKey]crawl.ID     // the host first linked under the key
	per     map[crawl.ID]int         // keys recorded per host
	matches map[[2]crawl.ID]int      // lower ID, higher ID → matches
	taken   map[[2]crawl.ID]crawl.ID // lower ID, higher ID → the one taken for the mirror
	mirror  map[crawl.ID]int         // host → pairs in which it is taken for the mirror
	of      map[crawl.ID][]crawl.ID  // original → the hosts taken for its mirrors
	seeds   map[crawl.ID]bool
	links   map[[2]crawl.ID]bool // linking host, linked host: pairs of hosts seen linking
	inbound map[crawl.ID]int     // other hosts seen linking to the host
	seed    maphash.Seed
}

func newMirrorWatch() *mirrorWatch {
	return &mirrorWatch{keys: map[linkKey]crawl.ID{}, per: map[crawl.ID]int{}, matches: map[[2]crawl.ID]int{},
		taken: map[[2]crawl.ID]crawl.ID{}, mirror: map[crawl.ID]int{}, of: map[crawl.ID][]crawl.ID{}, seeds: map[crawl.ID]bool{},
		links: map[[2]crawl.ID]bool{}, inbound: map[crawl.ID]int{}, seed: maphash.MakeSeed()}
}

// seeded records a seed URL's host: a seed is taken for an original.
func (w *mirrorWatch) seeded(url string) {
	host := crawl.HostKey(url)
	if host == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seeds) < mirrorKeys {
		w.seeds[crawl.HashID(host)] = true
	}
}

// mirrorAnchor reports whether an anchor text names one page: at least
// three words and 20 bytes (a paper's or a story's title; not "here",
// "this paper" or a menu's "Publications").
func mirrorAnchor(a string) bool {
	return len(a) >= 20 && len(strings.Fields(a)) >= 3
}

// linked records a link to url with anchor found on a page of the host
// whose key is from. When it makes one of two hosts the mirror of the
// other, or the other one now, it returns the two (isMirror tells which
// is taken for a mirror now, mirrorsOf what each is the original of).
func (w *mirrorWatch) linked(from, url, anchor string) []crawl.ID {
	host := crawl.HostKey(url)
	other := host != "" && host != from && from != ""
	title := mirrorAnchor(anchor)
	if !other && !title {
		return nil
	}
	path := url[len(host):]
	if host == "" || path == "" || path == "/" {
		title = false
	}
	id := crawl.HashID(host)
	var k linkKey
	if title {
		k = linkKey{maphash.String(w.seed, path), maphash.String(w.seed, anchor)}
	}
	var fromID crawl.ID
	if other {
		fromID = crawl.HashID(from)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if other {
		if l := [2]crawl.ID{fromID, id}; !w.links[l] && len(w.links) < mirrorKeys {
			w.links[l] = true
			w.inbound[id]++
		}
	}
	if !title {
		return nil
	}
	first, ok := w.keys[k]
	switch {
	case !ok:
		if len(w.keys) < mirrorKeys {
			w.keys[k] = id
			w.per[id]++
		}
		return nil
	case first == id:
		return nil
	}
	pair := [2]crawl.ID{min(first, id), max(first, id)}
	n, counted := w.matches[pair]
	if !counted && len(w.matches) >= mirrorKeys {
		return nil // pairs held at most, as links are
	}
	w.matches[pair] = n + 1
	if n+1 < mirrorMatches {
		return nil
	}
	mirror, original := id, first
	if w.originalOf(first, id) == id {
		mirror, original = first, id
	}
	was, known := w.taken[pair]
	if known && was == mirror {
		return nil
	}
	w.taken[pair] = mirror
	if known {
		if w.mirror[was]--; w.mirror[was] == 0 {
			delete(w.mirror, was)
		}
		w.of[mirror] = slices.DeleteFunc(w.of[mirror], func(h crawl.ID) bool { return h == was })
		if len(w.of[mirror]) == 0 {
			delete(w.of, mirror)
		}
	}
	w.mirror[mirror]++
	w.of[original] = append(w.of[original], mirror)
	return []crawl.ID{mirror, original}
}

// isMirror reports whether a host is taken for a mirror.
func (w *mirrorWatch) isMirror(host crawl.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mirror[host] > 0
}

// originalOf returns which of two hosts whose pages are linked under the
// same paths and titles is the original: a seed rather than a host that
// is none, then the host linked from more other hosts (their links to
// each other not counted), then the host with more links recorded first
// (per), then first, the host linked first.
func (w *mirrorWatch) originalOf(first, then crawl.ID) crawl.ID {
	if w.seeds[first] != w.seeds[then] {
		if w.seeds[first] {
			return first
		}
		return then
	}
	in := func(h, other crawl.ID) int {
		n := w.inbound[h]
		if w.links[[2]crawl.ID{other, h}] {
			n--
		}
		return n
	}
	if a, b := in(first, then), in(then, first); a != b {
		if a > b {
			return first
		}
		return then
	}
	if w.per[first] < w.per[then] {
		return then
	}
	return first
}

// isSeed reports whether host is a seed's: a seed is taken for an
// original.
func (w *mirrorWatch) isSeed(host crawl.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seeds[host]
}

// mirrorsOf returns the hosts taken for mirrors of host.
func (w *mirrorWatch) mirrorsOf(host crawl.ID) []crawl.ID {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.of[host])
}
