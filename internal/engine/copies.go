package engine

import (
	"hash/maphash"
	"strings"
	"sync"

	"github.com/acrawler/acrawler/internal/crawl"
)

// copyWatch counts, per host, the pages this process committed and how
// many of them are copies of another host's pages (the store found them
// exact or near duplicates of a page whose URL is on another host), for
// the frontier (frontier.Frontier.Copies): a mirror ranks low from its
// first copies on, before the store revalues it.
type copyWatch struct {
	mu    sync.Mutex
	hosts map[crawl.ID]*[2]int // pages, copies
}

func newCopyWatch() *copyWatch { return &copyWatch{hosts: map[crawl.ID]*[2]int{}} }

// otherHost reports whether a URL ID is of a URL on another host than
// host: its high bits come from its host (crawl.URLHostBits), so IDs
// whose high bits differ are of other hosts (those whose bits agree are
// taken as the host's own: rarely another host's).
func otherHost(url, host crawl.ID) bool {
	return url != 0 && (uint64(url)^uint64(host))>>(64-crawl.URLHostBits) != 0
}

// committed counts the batch's useful pages by host and returns the hosts
// whose counts changed, with their counts.
func (w *copyWatch) committed(batch []crawl.Result) map[crawl.ID][2]int {
	var out map[crawl.ID][2]int
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range batch {
		r := &batch[i]
		p := r.Page
		if r.Outcome != crawl.OutcomeDone || p == nil || p.Status < 200 || p.Status > 299 || r.URL.Kind != crawl.KindPage {
			continue
		}
		c := w.hosts[r.URL.HostID]
		if c == nil {
			c = &[2]int{}
			w.hosts[r.URL.HostID] = c
		}
		c[0]++
		if otherHost(p.DuplicateOf, r.URL.HostID) || otherHost(p.NearDuplicateOf, r.URL.HostID) {
			c[1]++
		}
		if out == nil {
			out = map[crawl.ID][2]int{}
		}
		out[r.URL.HostID] = *c
	}
	return out
}

// A mirror is known by the links to its pages before their copies are:
// it serves the pages of its original under the same paths, which pages
// link with the same anchor text (a paper's title). Each link whose
// anchor is distinctive (mirrorAnchor) is recorded under its path and
// anchor with the host it points to, the first to be linked so; a link to
// another host under a path and anchor recorded for a host is a match
// between the two. After mirrorMatches distinct matches the host with the
// fewer links recorded (the one seen later: the mirror, whose original
// has been linked by its own pages and others') is taken for a copy of
// the other (frontier.Frontier.Mirror), before more of its pages are
// fetched.
const (
	mirrorMatches = 3
	mirrorKeys    = 1 << 20 // links recorded at most, and pairs of hosts matched
)

type linkKey struct {
	path, anchor uint64
}

type mirrorWatch struct {
	mu      sync.Mutex
	keys    map[linkKey]crawl.ID  // the host first linked under the key
	per     map[crawl.ID]int      // keys recorded per host
	matches map[[2]crawl.ID]int   // lower ID, higher ID → matches
	copies  map[crawl.ID]crawl.ID // mirror → original
	seed    maphash.Seed
}

func newMirrorWatch() *mirrorWatch {
	return &mirrorWatch{keys: map[linkKey]crawl.ID{}, per: map[crawl.ID]int{}, matches: map[[2]crawl.ID]int{},
		copies: map[crawl.ID]crawl.ID{}, seed: maphash.MakeSeed()}
}

// mirrorAnchor reports whether an anchor text names one page: at least
// three words and 20 bytes (a paper's or a story's title; not "here",
// "this paper" or a menu's "Publications").
func mirrorAnchor(a string) bool {
	return len(a) >= 20 && len(strings.Fields(a)) >= 3
}

// linked records a link to url with anchor; it returns the host found to
// be a copy of another by it, if any.
func (w *mirrorWatch) linked(url, anchor string) (crawl.ID, bool) {
	if !mirrorAnchor(anchor) {
		return 0, false
	}
	host := crawl.HostKey(url)
	path := url[len(host):]
	if host == "" || path == "" || path == "/" {
		return 0, false
	}
	k := linkKey{maphash.String(w.seed, path), maphash.String(w.seed, anchor)}
	id := crawl.HashID(host)
	w.mu.Lock()
	defer w.mu.Unlock()
	first, ok := w.keys[k]
	switch {
	case !ok:
		if len(w.keys) < mirrorKeys {
			w.keys[k] = id
			w.per[id]++
		}
		return 0, false
	case first == id:
		return 0, false
	}
	pair := [2]crawl.ID{min(first, id), max(first, id)}
	n, counted := w.matches[pair]
	if !counted && len(w.matches) >= mirrorKeys {
		return 0, false // pairs held at most, as links are
	}
	w.matches[pair] = n + 1
	if n+1 != mirrorMatches {
		return 0, false
	}
	mirror, original := id, first
	if w.per[first] < w.per[id] {
		mirror, original = first, id
	}
	if _, known := w.copies[mirror]; known {
		return 0, false
	}
	w.copies[mirror] = original
	return mirror, true
}
