package testweb

// The city newspaper: a non-academic site whose internal links carry
// tracking parameters and every spelling of a URL a crawler must normalize.

var newsSections = []string{"world", "local", "sports", "culture", "science"}

func (w *Web) buildNews() *site {
	P := w.cfg.PagesPerSite
	s := newSite(w, "news.city-daily.test", "The City Daily", "news", false)
	s.notes = "non-academic news site: utm_*/fbclid tracking parameters, messy hrefs (upper-case host, :80, dot segments, %7e, fragments, protocol-relative, reordered and empty queries), a robots.txt group for acrawler-news that must not apply to acrawler, Crawl-delay: 0.5"
	s.text = enNews
	s.tracking = true
	s.canonicalTags = true
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderNewsHome})
	s.home = home
	secs := make([]*page, len(newsSections))
	for i, name := range newsSections {
		secs[i] = s.add(&page{key: "/" + name + "/", kind: "listing", title: upperFirst(name, false), parent: home, render: renderListing, num: 1, total: 1})
		secs[i].series = []*page{secs[i]}
	}
	story := func(r *rng, i int, st *storyData) *page {
		sec := secs[(i-1)%len(secs)]
		st.byline, st.tags = r.pick(enFirst)+" "+r.pick(enLast), []string{sec.title}
		var b = s.text.sentences[r.intn(len(s.text.sentences))].string(r)
		title := b[:len(b)-1]
		p := s.add(&page{key: sec.key + "story-" + itoa(i), kind: "news", title: title, story: st, parent: sec, render: renderStory})
		s.stories = append(s.stories, p)
		return p
	}
	n := max(10, P)
	for i := 1; i <= n; i++ {
		p := story(&r, i, &storyData{year: 2025, month: 12 - (i/30)%12, day: 28 - i%28})
		p.parent.items = append(p.parent.items, p)
		// The hand-written links of the home page point at the first
		// stories: they stay.
		p.pinned = i <= 7
	}
	s.feeds = []feed{{weight: 1, add: func(r *rng, e int) *page {
		n++
		t := w.day(e)
		p := story(r, n, &storyData{year: t.Year(), month: int(t.Month()), day: t.Day()})
		p.parent.items = prepend(p, p.parent.items)
		return p
	}}}
	editor := s.add(&page{key: "/~editor/", kind: "page", title: "From the editor", parent: home, render: renderStatic})
	archive := s.add(&page{key: "/archive?section=world&year=2025", kind: "listing", title: "Archive: world, 2025", parent: home,
		items: secs[0].items, num: 1, total: 1, render: renderListing})
	archive.series = []*page{archive}
	s.add(&page{key: "/WORLD/story-6", kind: "fault", status: 404, title: "Page not found", render: renderStatus,
		note: "paths are case-sensitive: /world/story-6 exists, /WORLD/story-6 does not"})
	about := s.addStatic("/about", "About The City Daily", home)
	subscribe := s.addStatic("/subscribe", "Subscribe", home)
	s.nav = []navLink{{label: "World", href: "/world/"}, {label: "Local", href: "/local/"}, {label: "Sports", href: "/sports/"},
		{label: "Culture", href: "/culture/"}, {label: "Science", href: "/science/"}, {label: "Archive", href: archive.key}}
	s.footer = []navLink{{label: "About us", href: "/about#team"}, {label: "Contact", href: "/about#contact"},
		{label: "Subscribe", href: subscribe.key}, {label: "Editor", href: editor.key}}
	s.extra = []*page{editor, archive, about}
	s.addAssets()
	s.addRobots(newRobots("agent-groups", "The City Daily", []robotsGroup{
		{agents: []string{"acrawler-news"}, rules: []robotsRule{{pattern: "/"}}},
		{agents: []string{"*"}, delay: "0.5", rules: []robotsRule{{allow: true, pattern: "/"}}},
	}, []string{s.url("/sitemap.xml")}))
	all := append([]*page{home}, s.stories...)
	s.addSitemap("/sitemap.xml", &all)
	return s
}

// messyLinks are hrefs to pages of the news site, each spelled in a way a
// crawler has to normalize.
var messyLinks = []struct{ href, text string }{
	{"HTTP://NEWS.CITY-DAILY.TEST:80/./world/../world/story-1", "Top story (shouting link)"},
	{"/%7eeditor/", "A word from the editor"},
	{"/about#team", "Meet the team"},
	{"//news.city-daily.test/local/story-2", "Local news (protocol-relative)"},
	{"/archive?year=2025&section=world", "World archive"},
	{"/archive?section=world&year=2025", "World archive (again)"},
	{"/world/story-1?", "Top story (empty query)"},
	{"/sports/story-3?utm_source=twitter&utm_medium=social&utm_campaign=derby", "Derby report"},
	{"/culture/story-4?fbclid=IwAR0xTestWebClickId", "Culture pick"},
	{"http://news.city-daily.test/science/story-5#comments", "Science comments"},
	{"./local/story-7", "Local (dot-relative)"},
	{"/WORLD/story-6", "Upper-case path (a different URL: 404)"},
}

func renderNewsHome(d *doc) {
	s := d.s
	d.head(s.name)
	d.body()
	d.str("<h1>")
	d.esc(s.name)
	d.str("</h1>\n<section class=\"top\"><ul>\n")
	i := 0
	for st := range newestFirst(s.stories) {
		if i >= 12 {
			break
		}
		i++
		d.str("<li>")
		d.aTracked(st.key, st.title)
		d.str("<p>")
		s.text.paragraph(d.b, &d.r, 2)
		d.str("</p></li>\n")
	}
	d.str("</ul></section>\n<section class=\"more\"><h2>More</h2><ul>\n")
	for _, m := range messyLinks {
		d.str("<li><a href=\"")
		d.esc(m.href)
		d.str("\">")
		d.esc(m.text)
		d.str("</a></li>\n")
	}
	d.str("</ul></section>\n")
	for _, e := range s.extra {
		d.str("<p>")
		d.aTracked(e.key, e.title)
		d.str("</p>\n")
	}
	s.text.paragraphs(d.b, &d.r, 2)
	d.end()
}
