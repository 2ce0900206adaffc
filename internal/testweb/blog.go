package testweb

import "strings"

// The archive blog: a repeated-path-segment trap, very long URLs, soft
// blocks and a robots.txt too long to read to the end.

func (w *Web) buildBlog() *site {
	P := w.cfg.PagesPerSite
	s := newSite(w, "blog.deep-archive.test", "Deep Archive", "blog", false)
	s.notes = "blog: relative links that build /a/b/a/b/... paths forever, URLs of 1,500 and 3,000 characters, soft-block pages (200 with a captcha text), a 620 KiB robots.txt with Disallow: /after-cap/ beyond the first 500 KiB"
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderBlogHome})
	s.home = home
	post := func(r *rng, year, month int, day func() int) *page {
		title := titleCase("notes on " + r.pick(enTopics))
		p := s.add(&page{key: s.uniqueKey("/posts/"+itoa(year)+"/", slugify(title, 6), ""), kind: "post", title: title,
			story: &storyData{year: year, month: month, day: day(), byline: "The archivist"}, render: renderStory})
		s.stories = append(s.stories, p)
		return p
	}
	for i := 0; i < max(6, P/2); i++ {
		post(&r, 2025-i/8, 12-i%12, func() int { return 1 + r.intn(28) })
	}
	archive := s.makeListing("/archive/", "page", "Archive", s.stories, 20, false, home)
	for _, p := range s.stories {
		p.parent = archive[0]
	}
	s.feeds = []feed{{weight: 1, add: func(r *rng, e int) *page {
		t := w.day(e)
		p := post(r, t.Year(), int(t.Month()), t.Day)
		p.parent = archive[0]
		archive[0].items = prepend(p, archive[0].items)
		return p
	}}}
	trap := s.add(&page{key: "/a/", kind: "trap", title: "Category a", render: renderPathTrap,
		note: "relative links a/ and b/ build ever deeper /a/b/a/b/... paths"})
	s.dynamic = dynPathTrap
	long1 := s.add(&page{key: "/archive/" + longSlug(1500), kind: "page", title: "A post with a very long URL", render: renderStatic, note: "URL of about 1,500 characters"})
	long2 := s.add(&page{key: "/archive/" + longSlug(3000) + "?" + "context=" + longSlug(400), kind: "page", title: "A post with an even longer URL", render: renderStatic, note: "URL of about 3,400 characters"})
	var blocked []*page
	for i := 1; i <= 3; i++ {
		blocked = append(blocked, s.add(&page{key: "/protected/report-" + itoa(i), kind: "blocked", title: "Access denied", render: renderSoftBlock,
			note: "soft block: 200 with a captcha text"}))
	}
	before := s.add(&page{key: "/before-cap/notes", kind: "page", title: "Notes (disallowed early in robots.txt)", render: renderStatic})
	after := s.add(&page{key: "/after-cap/notes", kind: "page", title: "Notes (disallowed only after 500 KiB of robots.txt)", render: renderStatic})
	about := s.addStatic("/about", "About this blog", home)
	s.nav = []navLink{{label: "Archive", href: "/archive/"}, {label: "Reports", href: blocked[0].key}, {label: "About", href: about.key}}
	s.footer = []navLink{{label: "About", href: about.key}, {label: "Web archiving at Northfield", href: "http://www.northfield-university.test/research/"}}
	s.extra = []*page{trap, long1, long2, blocked[1], blocked[2], before, after}
	s.addAssets()
	s.addRobots(hugeRobots(s.host))
	all := append([]*page{home}, s.stories...)
	s.addSitemap("/sitemap.xml", &all)
	return s
}

// longSlug is a deterministic path segment of about n characters.
func longSlug(n int) string {
	words := []string{"the", "long", "and", "winding", "road", "of", "digital", "preservation", "through", "many", "archives"}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteString(words[i%len(words)])
	}
	return b.String()
}

// dynPathTrap answers every path made of a and b segments below /a/.
func dynPathTrap(s *site, path string, q []param) *page {
	if len(q) > 0 || !strings.HasPrefix(path, "/a/") || !strings.HasSuffix(path, "/") {
		return nil
	}
	for _, seg := range strings.Split(path[1:len(path)-1], "/") {
		if seg != "a" && seg != "b" {
			return nil
		}
	}
	return &page{kind: "trap", title: "Category " + strings.ReplaceAll(path[1:len(path)-1], "/", " › "), render: renderPathTrap,
		note: "relative links a/ and b/ build ever deeper /a/b/a/b/... paths"}
}

func renderPathTrap(d *doc) {
	d.head(d.p.title)
	d.body()
	d.str("<h1>")
	d.esc(d.p.title)
	d.str("</h1>\n<ul class=\"subcategories\">\n")
	next := "a/"
	if strings.HasSuffix(d.p.key, "/a/") {
		next = "b/"
	}
	d.li(next, "Subcategory "+next[:1])
	d.li("a/b/", "Related categories")
	d.li("../", "Up")
	d.str("</ul>\n")
	d.s.text.paragraphs(d.b, &d.r, 3)
	d.related("Posts", core(d.s.stories), 4)
	d.end()
}

func renderSoftBlock(d *doc) {
	d.str("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Access denied</title></head>\n<body><h1>Access denied</h1><p>Access denied. Are you a robot? Please complete the captcha.</p><div class=\"captcha\" data-sitekey=\"testweb\"></div></body></html>\n")
}

func renderBlogHome(d *doc) {
	s := d.s
	d.head(s.name)
	d.body()
	d.str("<h1>")
	d.esc(s.name)
	d.str("</h1>\n<p>")
	s.text.paragraph(d.b, &d.r, 4)
	d.str("</p>\n<ul class=\"posts\">\n")
	i := 0
	for p := range newestFirst(s.stories) {
		if i >= 10 {
			break
		}
		i++
		d.li(p.key, p.title)
	}
	d.str("</ul>\n<p><a href=\"a/\">Browse by category</a></p>\n<ul class=\"more\">\n")
	for _, p := range s.extra {
		d.li(p.key, p.title)
	}
	d.str("</ul>\n")
	s.text.paragraphs(d.b, &d.r, 3)
	d.end()
}
