package testweb

import (
	"bytes"
	"hash/crc64"
	"net/http"
	"time"
)

// How the web changes in one Advance (one day). Home pages and listings
// change often, research content rarely, so that a revisit policy has
// something to learn; overall about 10% of the content pages change, 3%
// are removed and 5% appear.
const (
	removePct = 3 // of the web's content pages, chosen among the removable ones
	addPct    = 5 // of a site's content pages, on sites that publish
)

// changePct is the chance, in percent, that a content page of kind changes
// on its own in one Advance. Home pages and listings also change when an
// entry is added or removed, which brings them to about one in two.
func changePct(kind string) int {
	switch kind {
	case "home", "listing":
		return 35
	case "news", "post":
		return 10
	}
	return 5
}

// contentKind reports the kinds of page a site is made of (not copies,
// files, redirects, traps or machinery).
func contentKind(kind string) bool {
	switch kind {
	case "home", "page", "listing", "publication", "person", "research", "news", "event", "post", "product":
		return true
	}
	return false
}

// removable reports whether Advance may remove p: a publication, story or
// post that is the primary copy of its content, outside the core the
// site's random links point to (see core), and that no fixed link
// (navigation, hand-written hrefs) points to. People stay: too many pages
// link to them (their publications, research groups).
func removable(p *page, core map[*page]bool) bool {
	switch p.kind {
	case "publication", "news", "post":
		return p.canon == nil && !p.pinned && !p.hidden && p.serve == nil && !p.dead() && !core[p]
	}
	return false
}

// versioned reports pages whose bytes come from render and so from their
// version (the others serve fixed bytes or handle requests themselves).
func versioned(p *page) bool { return p.render != nil && !p.hidden && !p.dead() }

// A feed is where a site publishes new pages as the web advances.
type feed struct {
	weight int // relative share of the site's new pages
	// add adds one entry (with its copies and files) in epoch e and
	// returns its main page.
	add func(r *rng, e int) *page
}

// pubFeed lets s publish new publications, laid out as o says after the n
// made so far, at the top of listing; then, if not nil, finishes each.
func (s *site) pubFeed(o pubOpts, n int, listing *page, then func(r *rng, p *page)) {
	s.feeds = append(s.feeds, feed{weight: 3, add: func(r *rng, e int) *page {
		o.start, o.date = n, s.w.day(e)
		n++
		p := s.makePubs(r, 1, o)[0]
		p.parent = listing
		listing.items = prepend(p, listing.items)
		if then != nil {
			then(r, p)
		}
		return p
	}})
}

// storyFeed lets s publish new stories under prefix at the top of listing.
func (s *site) storyFeed(prefix string, listing *page) {
	s.feeds = append(s.feeds, feed{weight: 2, add: func(r *rng, e int) *page {
		t := s.w.day(e)
		p := s.newStory(r, prefix, t.Year(), int(t.Month()))
		p.story.day = t.Day()
		p.parent = listing
		listing.items = prepend(p, listing.items)
		s.stories = append(s.stories, p)
		return p
	}})
}

func prepend(p *page, list []*page) []*page {
	return append([]*page{p}, list...)
}

// day is the date of epoch e.
func (w *Web) day(e int) time.Time { return w.base.Add(time.Duration(e) * epochLength) }

// Epoch returns the number of times the web has advanced (0 after New).
func (w *Web) Epoch() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.epoch
}

// Changes reports what the last Advance did, as URLs (the same form
// PageInfo.URL uses), site by site in page order: the pages that serve new
// content (with new ETag and Last-Modified), the pages removed (now 404 or
// 410) and the pages that appeared. A page counts as changed when anything
// in its bytes changed: its own text, a link to a removed page that went,
// a new entry in a listing or sitemap, a lastmod in a sitemap. The copies
// and files of a publication (print version, alias, mirror, PDF, DOI
// redirect) come and go with it and are revised with it. All three are
// empty before the first Advance.
func (w *Web) Changes() (changed, removed, added []string) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return append([]string(nil), w.changes[0]...),
		append([]string(nil), w.changes[1]...),
		append([]string(nil), w.changes[2]...)
}

// Advance moves the web to its next state (epoch+1), one day later,
// deterministically from the seed: in each advance, about 10% of content
// pages change (new text, new ETag and Last-Modified), about 3% are removed
// (half answer 410 Gone, half 404 Not Found; links to them disappear from
// other pages and sitemaps), and about 5% new pages appear (linked from
// listings/home and added to sitemaps with a fresh lastmod); unchanged
// pages keep byte-identical bodies, ETags and Last-Modified; sitemap lastmod
// values follow page changes. Robots.txt files stay the same.
//
// On their own, home pages and listings change with probability 0.35 in
// each advance, stories and posts 0.1, publications, people and other
// pages 0.05; a page also changes when a page it links to goes, or when an
// entry is added to it (listings, home pages, sitemaps), which brings home
// pages and listings to about one in two. A revised publication gets a new
// abstract and body, and so do its PDF and copies. Removed pages are
// publications, stories and posts outside the half of each site's list
// that its random links (related pages, featured publications) point to,
// mostly ones no profile lists (journal articles, repository copies, old
// stories), so that a removal changes the few pages that list the page;
// new pages are publications, stories and posts, listed first on their
// listing, dated the day of the epoch. Each Advance is one day:
// a page that changes in epoch v has a Last-Modified v days after the
// newest of epoch 0.
//
// Advance waits for the responses being generated and holds further
// requests until it is done; it renders every page of the web about twice.
func (w *Web) Advance() {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.epoch + 1
	w.epoch = e

	// Fingerprint every page as it is, to find afterwards the pages that
	// a removal or an addition changed.
	a := advance{w: w, e: e, before: map[*page]uint64{}, bumped: map[*page]bool{}, removed: map[*page]bool{}, added: map[*page]bool{}}
	buf := w.getBuf()
	defer w.putBuf(buf)
	for _, s := range w.sites {
		for _, p := range s.order {
			if versioned(p) {
				a.before[p] = a.sum(s, p, buf)
			}
		}
	}
	for _, s := range w.sites {
		a.change(s)
	}
	a.remove()
	for _, s := range w.sites {
		a.add(s)
	}
	a.propagate(buf)
	w.changes = a.report()
}

// advance is the state of one Advance.
type advance struct {
	w       *Web
	e       int
	before  map[*page]uint64 // fingerprints of the bodies before
	bumped  map[*page]bool   // pages that took a new version
	removed map[*page]bool
	added   map[*page]bool
}

var crcTable = crc64.MakeTable(crc64.ECMA)

// sum renders p (without session ids) and fingerprints the body.
func (a *advance) sum(s *site, p *page, b *bytes.Buffer) uint64 {
	b.Reset()
	d := doc{w: a.w, s: s, p: p, b: b, r: seedFor(a.w.seed, p.textHost(s), p.key, p.version)}
	p.render(&d)
	return crc64.Checksum(b.Bytes(), crcTable) ^ uint64(b.Len())
}

// bump gives p a new version in this epoch.
func (a *advance) bump(p *page) {
	if versioned(p) && p.born < a.e {
		p.version = a.e
		a.bumped[p] = true
	}
}

// family is a page with its copies and files: a publication's print
// version, alias, mirror, PDF and DOI redirect; any other page alone.
func family(p *page) []*page {
	pb := p.pub
	if pb == nil || pb.main != p {
		return []*page{p}
	}
	out := []*page{p}
	for _, q := range []*page{pb.pdf, pb.print, pb.alias, pb.mirror} {
		if q != nil {
			out = append(out, q)
		}
	}
	return out
}

// change picks the content pages of s that change on their own. A
// publication that changes is revised: its text, PDF and copies with it.
func (a *advance) change(s *site) {
	for _, p := range s.order {
		if !contentKind(p.kind) || !versioned(p) {
			continue
		}
		r := seedFor(a.w.seed, s.host, "change:"+p.key, a.e)
		if !r.chance(changePct(p.kind)) {
			continue
		}
		if pb := p.pub; pb != nil && pb.main == p {
			pb.rev = a.e
		}
		for _, q := range family(p) {
			a.bump(q)
		}
	}
}

// contentPages counts the living content pages of s.
func contentPages(s *site) int {
	n := 0
	for _, p := range s.order {
		if contentKind(p.kind) && !p.hidden && !p.dead() {
			n++
		}
	}
	return n
}

// removalWeight is how likely p is to be removed, against the other
// candidates of the web: stories, posts and publications without authors
// on the site (journal articles, repository copies) alike, publications
// that profiles of the site list (each of which changes with the removal)
// twelve times less. So journals retract, news sites prune old stories,
// and universities rarely withdraw a paper.
func removalWeight(p *page) int {
	if p.pub == nil {
		return 12
	}
	n := 0
	for _, a := range p.pub.authors {
		if a.person != nil && !a.person.dead() {
			n++
		}
	}
	if n > 0 {
		return 1
	}
	return 12
}

// remove removes about removePct% of the content pages of the web,
// choosing among the removable ones by removalWeight, each with its copies
// and files.
func (a *advance) remove() {
	var cands []*page
	content := 0
	for _, s := range a.w.sites {
		keep := map[*page]bool{}
		for _, list := range [][]*page{s.pubs, s.stories} {
			for _, p := range core(list) {
				keep[p] = true
			}
		}
		for _, p := range s.order {
			if removable(p, keep) {
				cands = append(cands, p)
			}
		}
		content += contentPages(s)
	}
	r := seedFor(a.w.seed, "", "remove", a.e)
	k := 0
	for ; content > 0; content-- {
		if r.chance(removePct) {
			k++
		}
	}
	weights := make([]int, len(cands))
	total := 0
	for i, p := range cands {
		weights[i] = removalWeight(p)
		total += weights[i]
	}
	for i := 0; i < k && total > 0; i++ {
		// Weighted choice without replacement among cands[i:].
		x := r.intn(total)
		j := i
		for x >= weights[j] {
			x -= weights[j]
			j++
		}
		cands[i], cands[j] = cands[j], cands[i]
		weights[i], weights[j] = weights[j], weights[i]
		total -= weights[i]
		status, title := http.StatusNotFound, "Page not found"
		if r.chance(50) {
			status, title = http.StatusGone, "Gone"
		}
		for _, q := range family(cands[i]) {
			q.gone = a.e
			q.tomb = &page{key: q.key, kind: q.kind, status: status, title: title, version: a.e, render: renderStatus,
				note: "removed in epoch " + itoa(a.e) + ": answers " + itoa(status)}
			a.removed[q] = true
		}
	}
}

// add publishes about addPct% new content pages on s, spread over its
// feeds, and lists each new page in the sitemaps that list its kind.
func (a *advance) add(s *site) {
	if len(s.feeds) == 0 {
		return
	}
	r := seedFor(a.w.seed, s.host, "add", a.e)
	n := 0
	for i := contentPages(s); i > 0; i-- {
		if r.chance(addPct) {
			n++
		}
	}
	total := 0
	for _, f := range s.feeds {
		total += f.weight
	}
	for ; n > 0; n-- {
		x := r.intn(total)
		f := s.feeds[0]
		for _, g := range s.feeds {
			if x < g.weight {
				f = g
				break
			}
			x -= g.weight
		}
		start := len(s.order)
		f.add(&r, a.e)
		for _, p := range s.order[start:] {
			p.born, p.version = a.e, a.e
			if s.decorate != nil {
				s.decorate(p)
			}
			a.added[p] = true
			for _, sm := range s.sitemaps {
				if listsKind(*sm, p) {
					*sm = append(*sm, p)
				}
			}
		}
	}
}

// listsKind reports whether a sitemap's list holds pages like p: of its
// kind, and primary copies or not as p is.
func listsKind(list []*page, p *page) bool {
	for _, q := range list {
		if q.kind == p.kind && (q.canon == nil) == (p.canon == nil) {
			return true
		}
	}
	return false
}

// propagate gives a new version to every page whose body is no longer
// what it was: pages that linked to removed pages, listings and home pages
// showing new entries, copies whose original changed, sitemaps whose
// entries changed. Pages are visited so that what a page shows of others
// (a copy's original, a sitemap's entries, an index's sitemaps) is settled
// before it.
func (a *advance) propagate(buf *bytes.Buffer) {
	for layer := 0; layer < 4; layer++ {
		for _, s := range a.w.sites {
			for _, p := range s.order {
				if pageLayer(p) != layer || !versioned(p) || a.bumped[p] || p.born == a.e {
					continue
				}
				if a.sum(s, p, buf) != a.before[p] {
					a.bump(p)
				}
			}
		}
	}
}

// pageLayer orders pages by what their bodies show of other pages.
func pageLayer(p *page) int {
	switch {
	case p.kind == "sitemap" && p.items != nil:
		return 3 // sitemap index: its sitemaps' lastmod
	case p.kind == "sitemap":
		return 2 // its entries' lastmod
	case p.canon != nil:
		return 1 // its original's Last-Modified
	}
	return 0
}

// report lists the changes as URLs, site by site in page order.
func (a *advance) report() [3][]string {
	var out [3][]string
	for _, s := range a.w.sites {
		for _, p := range s.order {
			if p.hidden {
				continue
			}
			u := s.origin + escapeKey(p.key)
			switch {
			case a.removed[p]:
				out[1] = append(out[1], u)
			case a.added[p]:
				out[2] = append(out[2], u)
			case a.bumped[p]:
				out[0] = append(out[0], u)
			}
		}
	}
	return out
}
