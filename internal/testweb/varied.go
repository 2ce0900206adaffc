package testweb

import (
	"net/http"
	"strings"
)

// A varied web (Config.Varied) is drawn whole from the seed: how many
// universities, journals, labs, blogs, shops, mirrors and news sites it
// has, their host names, the words of their URL paths (English, German,
// Spanish, French, Italian, Portuguese, Turkish), how they number pages
// (slugs, /node/1234, /handle/123/456, /record/…, /eprint/…), how long
// their listings are, and how blogs and news sites link to research.
// Crawls start at its universities and blogs (Seeds); every other site is
// reached through links: partner lists, the citations of blog posts and
// news stories, a university's link to its mirror, a blog's to a shop.

// pathWords are the path segments of one language.
type pathWords struct {
	pubs, people, news, research, about, page, files string
}

var variedLangs = []pathWords{
	{"publications", "people", "news", "research", "about", "page", "files"},
	{"publikationen", "personen", "aktuelles", "forschung", "ueber-uns", "seite", "dateien"},
	{"publicaciones", "personal", "noticias", "investigacion", "acerca", "pagina", "archivos"},
	{"publications", "equipe", "actualites", "recherche", "a-propos", "page", "fichiers"},
	{"pubblicazioni", "persone", "notizie", "ricerca", "chi-siamo", "pagina", "allegati"},
	{"publicacoes", "pessoas", "noticias", "pesquisa", "sobre", "pagina", "arquivos"},
	{"yayinlar", "akademik-kadro", "haberler", "arastirma", "hakkimizda", "sayfa", "dosyalar"},
}

// idStyles are the ways sites number their records.
var idStyles = []string{"slug", "node", "handle", "record", "eprint"}

// variedCounts draws how many sites of each kind a web of n sites has.
func variedCounts(r *rng, n int) map[string]int {
	kinds := []string{"university", "journal", "lab", "tr-university", "blog", "shop", "mirror", "news"}
	lo := []int{6, 3, 0, 0, 4, 2, 1, 1}
	hi := []int{12, 7, 3, 2, 10, 5, 5, 3}
	w := make([]int, len(kinds))
	sum := 0
	for i := range kinds {
		w[i] = r.between(lo[i], hi[i])
		sum += w[i]
	}
	out := map[string]int{}
	left := n
	for i, k := range kinds {
		c := n * w[i] / sum
		out[k] = c
		left -= c
	}
	for i := 0; left > 0; i = (i + 1) % len(kinds) {
		if w[i] > 0 {
			out[kinds[i]]++
			left--
		}
	}
	// At least two universities and a blog; no more mirrors than
	// universities.
	for _, need := range []struct {
		k string
		n int
	}{{"university", 2}, {"blog", 1}} {
		for out[need.k] < need.n {
			for _, k := range []string{"shop", "news", "lab", "mirror", "journal"} {
				if out[k] > 0 {
					out[k]--
					out[need.k]++
					break
				}
			}
		}
	}
	if out["mirror"] > out["university"] {
		out["journal"] += out["mirror"] - out["university"]
		out["mirror"] = out["university"]
	}
	return out
}

// hostName draws a host name of a kind; i keeps names unique.
func hostName(r *rng, kind string, i int) string {
	place := strings.ToLower(places[(i*7+r.intn(len(places)))%len(places)]) + itoa(i)
	var styles []string
	switch kind {
	case "university":
		styles = []string{"www.{p}.ac.test", "{p}-university.test", "www.uni-{p}.test", "univ-{p}.test", "www.{p}.edu.test"}
	case "tr-university":
		styles = []string{"www.{p}.edu.tr.test", "{p}-universitesi.test"}
	case "journal":
		styles = []string{"{p}-journal.test", "{p}-press.test", "ojs.{p}.test", "j-{p}.pub.test"}
	case "lab":
		styles = []string{"lab-{p}.test", "{p}-institute.test", "www.{p}-research.test"}
	case "blog":
		styles = []string{"{p}-blog.test", "{p}.blog.test", "notes-{p}.test", "www.{p}-thoughts.test"}
	case "shop":
		styles = []string{"{p}-store.test", "shop.{p}.test", "www.{p}-outlet.test"}
	case "news":
		styles = []string{"{p}-times.test", "news.{p}.test", "www.{p}-gazette.test"}
	default: // mirror
		styles = []string{"mirror-{p}.test", "www2.{p}.test", "{p}-archive.test", "cache.{p}.test"}
	}
	return strings.ReplaceAll(r.pick(styles), "{p}", place)
}

// buildVaried adds the sites of a varied web.
func (w *Web) buildVaried() {
	n := w.cfg.Sites
	if n <= 0 {
		n = 40
	}
	r := seedFor(w.seed, "varied", "mix", 0)
	counts := variedCounts(&r, n)
	var research, unis []*site
	i := 0
	next := func(kind string) string {
		i++
		return hostName(&r, kind, i)
	}
	for k := 0; k < counts["university"]; k++ {
		s := w.buildVariedAcademic(next("university"), "university", &r, false)
		unis = append(unis, s)
		research = append(research, s)
	}
	for k := 0; k < counts["tr-university"]; k++ {
		research = append(research, w.buildVariedAcademic(next("tr-university"), "university", &r, true))
	}
	for k := 0; k < counts["journal"]; k++ {
		research = append(research, w.buildVariedAcademic(next("journal"), "journal", &r, false))
	}
	for k := 0; k < counts["lab"]; k++ {
		research = append(research, w.buildVariedAcademic(next("lab"), "lab", &r, false))
	}
	for _, s := range research {
		w.addSite(s)
	}
	var mirrors []*site
	for k := 0; k < counts["mirror"]; k++ {
		src := unis[k%len(unis)]
		m := w.buildMirror(next("mirror"), src)
		src.footer = append(src.footer, navLink{label: "Mirror", href: m.origin + "/"})
		mirrors = append(mirrors, m)
	}
	var shops []*site
	for k := 0; k < counts["shop"]; k++ {
		shops = append(shops, w.buildVariedShop(next("shop"), &r))
	}
	var blogs, news []*site
	for k := 0; k < counts["blog"]; k++ {
		b := w.buildVariedPosts(next("blog"), "blog", &r, research, mirrors)
		b.seed = true
		blogs = append(blogs, b)
	}
	for k := 0; k < counts["news"]; k++ {
		news = append(news, w.buildVariedPosts(next("news"), "news", &r, research, mirrors))
	}
	for _, s := range unis {
		s.seed = true
	}
	// Every site that is no seed has a way in: blogs link shops and news
	// sites, news sites link shops too.
	for k, s := range append(append([]*site{}, shops...), news...) {
		b := blogs[k%len(blogs)]
		b.footer = append(b.footer, navLink{label: s.name, href: s.origin + "/"})
	}
	for _, group := range [][]*site{mirrors, shops, blogs, news} {
		for _, s := range group {
			w.addSite(s)
		}
	}
}

// buildVariedAcademic builds a university, journal or lab with the URL
// vocabulary and numbering drawn for it.
func (w *Web) buildVariedAcademic(host, kind string, r *rng, turkish bool) *site {
	P := w.cfg.PagesPerSite
	words := variedLangs[r.intn(len(variedLangs))]
	if turkish {
		words = variedLangs[len(variedLangs)-1]
	}
	style := idStyles[r.intn(len(idStyles))]
	name := "University of " + places[r.intn(len(places))]
	switch kind {
	case "journal":
		name = "Journal of " + titleCase(r.pick(enTopics))
	case "lab":
		name = "Institute for " + titleCase(r.pick(enTopics))
	}
	s := newSite(w, host, name, kind, true)
	if turkish {
		s.lang, s.text = "tr", trAcademic
		name = places[r.intn(len(places))] + " Üniversitesi"
		s.name = name
	}
	s.notes = "varied " + kind + ": " + words.pubs + " paths, " + style + " numbering"
	s.canonicalTags = r.chance(50)
	s.tracking = r.chance(30)
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home
	per := r.between(10, 40)

	// Record numbering: one counter for every record of a /node/ site.
	nextID := r.between(100, 9000)
	ids := func(n int) int { id := nextID; nextID += n + 1 + r.intn(3); return id }
	po := pubOpts{prefix: "/" + words.pubs + "/", pdfPrefix: "/" + words.files + "/", pdfShare: r.between(20, 90)}
	switch style {
	case "node":
		po.prefix, po.ids = "/node/", true
	case "handle":
		po.prefix, po.ids = "/handle/"+itoa(r.between(100, 999))+"/", true
		po.pdfPrefix = "/bitstream/"
	case "record", "eprint":
		po.prefix, po.ids = "/"+style+"/", true
	}
	if kind == "journal" {
		po.venue, po.venueKind = s.name, "journal"
		if style == "slug" {
			po.prefix = r.pick([]string{"/article/", "/index.php/" + slugify(s.name, 2) + "/article/view/", "/content/", "/paper/"})
			po.ids = true
		}
	}
	if turkish {
		po.kinds = []string{"makale", "tez", "bildiri"}
	}
	npubs := max(4, P*2/5)
	if kind == "journal" {
		npubs = max(8, P*4/5)
	}
	if po.ids {
		po.firstID = ids(npubs)
	}
	var people []*page
	if kind != "journal" {
		people = s.makePeople(r, max(3, P/5), "/"+words.people+"/", nil)
		po.authors = people
	}
	pubs := s.makePubs(r, npubs, po)
	pubList := s.makeListing("/"+words.pubs+"/", words.page, upperFirst(words.pubs, s.lang == "tr"), pubs, per, true, home)
	for _, p := range pubs {
		p.parent = pubList[0]
	}
	s.nav = []navLink{{label: upperFirst(words.pubs, s.lang == "tr"), href: pubList[0].key}}
	if len(people) > 0 {
		peopleList := s.makeListing("/"+words.people+"/", words.page, upperFirst(words.people, s.lang == "tr"), people, per, false, home)
		for _, p := range people {
			p.parent = peopleList[0]
		}
		s.nav = append(s.nav, navLink{label: upperFirst(words.people, s.lang == "tr"), href: peopleList[0].key})
		res := s.add(&page{key: "/" + words.research + "/", kind: "listing", academic: true, title: upperFirst(words.research, s.lang == "tr"),
			parent: home, render: renderListing, num: 1, total: 1})
		res.series = []*page{res}
		res.items = s.makeResearch(r, r.between(2, 5), "/"+words.research+"/", people, res)
		s.nav = append(s.nav, navLink{label: res.title, href: res.key})
	}
	if kind != "journal" {
		news := s.makeStories(r, max(2, P/r.between(4, 8)), "/"+words.news+"/")
		newsList := s.makeListing("/"+words.news+"/", words.page, upperFirst(words.news, s.lang == "tr"), news, per, false, home)
		for _, p := range news {
			p.parent = newsList[0]
		}
		s.nav = append(s.nav, navLink{label: newsList[0].title, href: newsList[0].key})
	}
	about := s.addStatic("/"+words.about, upperFirst(words.about, s.lang == "tr"), home)
	s.nav = append(s.nav, navLink{label: about.title, href: about.key})
	s.footer = []navLink{{label: about.title, href: about.key}}
	if style == "node" {
		// Everything is a numbered node: the URL says nothing of what a
		// page is.
		for _, p := range append([]*page(nil), s.order...) {
			switch p.kind {
			case "person", "news", "research", "page":
				s.rekey(p, "/node/"+itoa(ids(0)))
			}
		}
		s.nav[len(s.nav)-1].href = about.key
		s.footer[0].href = about.key
	}
	s.addAssets()
	robots := []*robotsFile{
		newRobots("allow-all", host, []robotsGroup{{agents: []string{"*"}}}, []string{s.origin + "/sitemap.xml"}),
		newRobots("disallow-paths", host, []robotsGroup{{agents: []string{"*"}, rules: []robotsRule{{pattern: "/search"}}}}, nil),
		statusRobots("404", http.StatusNotFound),
	}[r.intn(3)]
	s.addRobots(robots)
	if r.chance(50) {
		var all []*page
		for _, p := range s.order {
			if p.kind == "publication" || p.kind == "listing" || p.kind == "home" {
				all = append(all, p)
			}
		}
		s.addSitemap("/sitemap.xml", &all)
	}
	return s
}

// rekey moves p to a new key.
func (s *site) rekey(p *page, key string) {
	delete(s.pages, p.key)
	p.key = key
	if s.pages[key] != nil {
		panic("testweb: duplicate page " + s.host + key)
	}
	s.pages[key] = p
}

// buildMirror builds a copy of src on another host: every page of src
// under the same path, with src's content and none of its canonical tags.
func (w *Web) buildMirror(host string, src *site) *site {
	s := newSite(w, host, src.name+" (mirror)", "mirror", false)
	s.notes = "mirror of " + src.host + ": its pages under the same paths, without canonical tags"
	s.lang, s.text = src.lang, src.text
	for _, p := range src.order {
		switch p.kind {
		case "home", "listing", "publication", "person", "research", "news", "page", "pdf":
		default:
			continue
		}
		m := *p
		m.kind = "duplicate"
		if p.kind == "home" {
			m.kind = "home"
		}
		m.canon, m.canonSite = p, src
		m.heapFree()
		c := s.add(&m)
		if p.kind == "home" {
			s.home = c
		}
	}
	s.pubs, s.people, s.stories = src.pubs, src.people, src.stories
	s.nav, s.footer = src.nav, nil
	s.addAssets()
	s.addRobots(newRobots("allow-all", host, []robotsGroup{{agents: []string{"*"}}}, nil))
	return s
}

// heapFree clears what a copied page must not share with its original:
// its history of removals.
func (p *page) heapFree() { p.tomb, p.gone, p.pinned = nil, 0, false }

// textHost is the host whose text p shows, drawn from its seed: a
// mirror's copy shows its original's, as mirrors serve the same pages.
func (p *page) textHost(s *site) string {
	if p.canonSite != nil {
		return p.canonSite.host
	}
	return s.host
}

// buildVariedShop is a shop with a faceted catalogue.
func (w *Web) buildVariedShop(host string, r *rng) *site {
	P := w.cfg.PagesPerSite
	s := newSite(w, host, titleCase(strings.SplitN(host, ".", 2)[0])+" Store", "shop", false)
	s.notes = "shop: products and a faceted catalogue"
	s.text = enShop
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderShopHome})
	s.home = home
	prefix := r.pick([]string{"/product/", "/p/", "/item/", "/urun/", "/produkt/"})
	for i := 0; i < max(8, P); i++ {
		ci := r.intn(len(shopItems))
		color := shopColors[r.intn(len(shopColors))]
		title := upperFirst(color, false) + " " + shopItems[ci]
		p := s.add(&page{key: prefix + itoa(100+i) + "-" + slugify(title, 5), kind: "product", title: title, render: renderProduct,
			cat: catalogState{category: int8(ci), color: indexOf(shopColors, color), size: -1, sort: -1, page: 1}})
		s.extra = append(s.extra, p)
	}
	s.add(&page{key: "/catalog", kind: "trap", title: "Catalogue", cat: catalogState{-1, -1, -1, -1, 1}, render: renderCatalog,
		note: "faceted navigation: every page links to many facet combinations"})
	s.dynamic = dynCatalog
	about := s.addStatic("/about", "About us", home)
	s.nav = []navLink{{label: "Catalogue", href: "/catalog"}, {label: "About", href: about.key}}
	s.footer = []navLink{{label: "About", href: about.key}}
	s.addAssets()
	s.addRobots(newRobots("allow-all", host, []robotsGroup{{agents: []string{"*"}}}, nil))
	return s
}

// buildVariedPosts is a blog or a news site whose posts cite research:
// each links a few publications (or their PDFs, or a mirror's copy) of
// the web's academic sites, besides other posts, tags and archives.
func (w *Web) buildVariedPosts(host, kind string, r *rng, research, mirrors []*site) *site {
	P := w.cfg.PagesPerSite
	name := titleCase(strings.SplitN(host, ".", 2)[0])
	s := newSite(w, host, name, kind, false)
	s.text = enNews
	style := r.pick([]string{"dated", "query", "slug", "node"})
	s.notes = kind + ": posts citing publications of other sites, " + style + " post URLs"
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home
	postKind := "post"
	if kind == "news" {
		postKind = "news"
	}
	cites := r.between(1, 4)
	mirrorShare := r.between(0, 40)
	nextID := r.between(10, 5000)
	tags := map[string]*page{}
	for i := 0; i < max(6, P*2/3); i++ {
		topic := r.pick(enTopics)
		title := titleCase(r.pick([]string{"notes on ", "why ", "a new study on ", "what we know about ", "reading: "}) + topic)
		st := &storyData{year: 2025 - i/10, month: 12 - i%12, day: r.between(1, 28), byline: r.pick(enFirst) + " " + r.pick(enLast), tags: []string{topic}}
		var key string
		switch style {
		case "dated":
			key = s.uniqueKey("/"+itoa(st.year)+"/"+pad2(st.month)+"/", slugify(title, 6), "/")
		case "query":
			key = "/?p=" + itoa(nextID+i)
		case "slug":
			key = s.uniqueKey(r.pick([]string{"/blog/", "/posts/", "/story/"}), slugify(title, 6), "")
		default:
			key = "/node/" + itoa(nextID+i*3)
		}
		p := s.add(&page{key: key, kind: postKind, title: title, story: st, render: renderPost})
		for j := 0; j < cites; j++ {
			src := research[r.intn(len(research))]
			pubs := core(src.pubs)
			if len(pubs) == 0 {
				continue
			}
			pb := pubs[r.intn(len(pubs))]
			origin, target := src.origin, pb
			if len(mirrors) > 0 && r.chance(mirrorShare) {
				m := mirrors[r.intn(len(mirrors))]
				if mp := m.pages[pb.key]; mp != nil && mp.canonSite == src {
					origin = m.origin
				}
			}
			if pb.pub.pdf != nil && r.chance(25) {
				target = pb.pub.pdf
			}
			anchor := r.pick([]string{pb.title, "this paper", "[PDF]", "the study", "here", "published in " + pb.pub.venue, "doi:" + pb.pub.doi})
			p.refs = append(p.refs, navLink{label: anchor, href: origin + escapeKey(target.key)})
		}
		// Posts link other sites' posts too, as blogrolls do.
		s.stories = append(s.stories, p)
		tag := tags[topic]
		if tag == nil {
			tag = s.add(&page{key: "/tag/" + slugify(topic, 4) + "/", kind: "listing", title: titleCase(topic), parent: home, render: renderListing, num: 1, total: 1})
			tag.series = []*page{tag}
			tags[topic] = tag
		}
		tag.items = append(tag.items, p)
		p.parent = tag
	}
	archive := s.makeListing("/archive/", "page", "Archive", s.stories, r.between(10, 30), false, home)
	s.nav = []navLink{{label: "Archive", href: archive[0].key}}
	about := s.addStatic("/about", "About", home)
	s.footer = []navLink{{label: "About", href: about.key}}
	s.addAssets()
	s.addRobots(newRobots("allow-all", host, []robotsGroup{{agents: []string{"*"}}}, nil))
	return s
}

// renderPost is a blog post or news story with its citations.
func renderPost(d *doc) {
	p, st, s := d.p, d.p.story, d.s
	d.head(p.title)
	d.body()
	d.str("<article class=\"story\">\n<h1>")
	d.esc(p.title)
	d.str("</h1>\n<p class=\"byline\">")
	d.esc(st.byline)
	d.str(" · <time>")
	d.date(st.year, st.month, st.day)
	d.str("</time></p>\n")
	for _, ref := range p.refs {
		d.str("<p>")
		s.text.paragraph(d.b, &d.r, d.r.between(2, 4))
		d.str(" See <a href=\"")
		d.esc(ref.href)
		d.str("\">")
		d.esc(ref.label)
		d.str("</a>.</p>\n")
	}
	s.text.paragraphs(d.b, &d.r, d.r.between(3, 6))
	if p.parent != nil {
		d.str("<p class=\"tags\">")
		d.a(p.parent.key, p.parent.title)
		d.str("</p>\n")
	}
	d.str("</article>\n")
	d.related("More", core(s.stories), 5)
	d.end()
}
