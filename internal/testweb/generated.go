package testweb

import (
	"fmt"
	"net/http"
)

// buildFixed adds the named sites, in the order Seeds lists them.
func (w *Web) buildFixed() {
	P := w.cfg.PagesPerSite
	nf, cs, lib := w.buildNorthfield()
	w.addSite(nf)
	w.addSite(cs)
	w.addSite(lib)
	w.addSite(w.buildKaradeniz())
	const jac = "journal-of-applied-crawling.test"
	j := w.buildJournal(jac, "Journal of Applied Crawling", "10.5555/jac.", max(8, P*4/5),
		newRobots("allow-all", "Journal of Applied Crawling", []robotsGroup{{agents: []string{"*"}}},
			[]string{"http://" + jac + "/sitemap.xml"}))
	// A page no page links to, listed in the sitemap: a crawl finds it only
	// by reading the sitemap. Hidden, so that Advance leaves it alone.
	orphan := j.add(&page{key: "/announcements/call-for-papers", kind: "page", title: "Call for papers: special issue on crawl ordering",
		render: renderStatic, hidden: true, note: "linked from no page: listed only in the sitemap"})
	*j.sitemaps[0] = append(*j.sitemaps[0], orphan)
	j.notes += "; a call for papers listed only in the sitemap"
	w.addSite(j)
	w.addSite(w.buildLab("lab.quantum-optics-institute.test", "Quantum Optics Institute", P, statusRobots("404", http.StatusNotFound), true))
	w.addSite(w.buildShop())
	w.addSite(w.buildNews())
	w.addSite(w.buildFaults())
	w.addSite(w.buildBlog())
	w.addSite(w.buildRepository())
	w.addSite(w.buildPreprints())
}

var places = []string{"Ashbury", "Bellhaven", "Corrin", "Dunmore", "Elsworth", "Fairholm", "Glenrock", "Harwick", "Istow", "Kellbridge", "Lorne", "Marston", "Norcastle", "Oakridge", "Pemberly", "Redcliff", "Stonemoor", "Thornbury", "Upwell", "Westmere"}

// buildGenerated adds generated site n: a university, a journal or a lab
// by n mod 3, with one of five kinds of robots.txt.
func (w *Web) buildGenerated(n int) {
	P := w.cfg.PagesPerSite
	num := fmt.Sprintf("%03d", n)
	r := seedFor(w.seed, num, "generated", 0)
	var host string
	switch n % 3 {
	case 0:
		host = "journal-" + num + ".test"
	case 1:
		host = "lab-" + num + ".test"
	default:
		host = "www.uni-" + num + ".test"
	}
	robots := generatedRobots(&r, host)
	var s *site
	switch n % 3 {
	case 0:
		name := "Journal of " + titleCase(r.pick(enTopics))
		s = w.buildJournal(host, name, "10."+itoa(5000+n%4000)+"/j"+num+".", max(8, P*4/5), robots)
		s.notes = "generated journal: issues, articles with citation_* tags and JSON-LD, /doi/ redirects, PDFs"
	case 1:
		name := "Laboratory for " + titleCase(r.pick(enTopics))
		s = w.buildLab(host, name, P, robots, false)
		s.notes = "generated lab: projects, people, papers"
	default:
		s = w.buildGeneratedUniversity(host, "University of "+places[n%len(places)]+" "+num, &r, robots, n%2 == 0)
	}
	s.canonicalTags = true
	s.tracking = true
	drafts := s.addStatic("/drafts/notes", "Draft notes", s.home)
	s.footer = append(s.footer, navLink{label: "Drafts", href: drafts.key})
	var all []*page
	for _, p := range s.order {
		switch p.kind {
		case "home", "publication", "person", "listing", "news":
			if p.canon == nil {
				all = append(all, p)
			}
		}
	}
	if s.pages["/sitemap.xml"] == nil {
		s.addSitemap("/sitemap.xml", &all)
	}
	w.addSite(s)
}

// generatedRobots picks one of five robots.txt kinds.
func generatedRobots(r *rng, host string) *robotsFile {
	sitemap := []string{"http://" + host + "/sitemap.xml"}
	switch r.intn(5) {
	case 0:
		return newRobots("allow-all", host, []robotsGroup{{agents: []string{"*"}}}, sitemap)
	case 1:
		return newRobots("disallow-paths", host, []robotsGroup{
			{agents: []string{"*"}, rules: []robotsRule{{pattern: "/drafts/"}, {pattern: "/search"}}},
		}, nil)
	case 2:
		return newRobots("crawl-delay", host, []robotsGroup{
			{agents: []string{"*"}, delay: "2", rules: []robotsRule{{pattern: "/drafts/"}}},
		}, sitemap)
	case 3:
		return statusRobots("404", http.StatusNotFound)
	default:
		return newRobots("agent-groups", host, []robotsGroup{
			{agents: []string{"*"}, rules: []robotsRule{{pattern: "/"}}},
			{agents: []string{"acrawler", "archive-bot"}, rules: []robotsRule{{pattern: "/drafts/"}}},
		}, sitemap)
	}
}

// buildGeneratedUniversity is a smaller Northfield: people, publications
// (some with PDFs and mirror copies), news with tracking parameters,
// canonical tags everywhere, and on some sites the calendar trap.
func (w *Web) buildGeneratedUniversity(host, name string, r *rng, robots *robotsFile, calendar bool) *site {
	P := w.cfg.PagesPerSite
	s := newSite(w, host, name, "university", true)
	s.notes = "generated university: publications with mirrors (/mirror/...), canonical tags, tracking parameters"
	if calendar {
		s.notes += ", events calendar trap"
	}
	s.canonicalTags = true
	s.tracking = true
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home
	people := s.makePeople(r, max(3, P/5), "/people/", nil)
	po := pubOpts{prefix: "/publications/", pdfPrefix: "/files/", pdfShare: 50, mirror: "/mirror", authors: people}
	pubs := s.makePubs(r, max(4, P*2/5), po)
	peopleList := s.makeListing("/people/", "page", "People", people, 20, false, home)
	pubList := s.makeListing("/publications/", "page", "Publications", pubs, 20, true, home)
	for _, p := range people {
		p.parent = peopleList[0]
	}
	for _, p := range pubs {
		p.parent = pubList[0]
	}
	news := s.makeStories(r, max(2, P/6), "/news/")
	newsList := s.makeListing("/news/", "page", "News", news, 15, false, home)
	for _, p := range news {
		p.parent = newsList[0]
	}
	res := s.add(&page{key: "/research/", kind: "listing", academic: true, title: "Research", parent: home, render: renderListing, num: 1, total: 1})
	res.series = []*page{res}
	res.items = s.makeResearch(r, 3, "/research/", people, res)
	s.nav = []navLink{{label: "Research", href: res.key}, {label: "Publications", href: "/publications/"}, {label: "People", href: "/people/"}, {label: "News", href: "/news/"}}
	if calendar {
		ev := s.makeEvents(r, 4, home)
		s.dynamic = dynCalendar
		s.nav = append(s.nav, navLink{label: "Events", href: ev.key})
	}
	about := s.addStatic("/about", "About", home)
	var mirrors []*page
	for _, p := range pubs {
		if m := p.pub.mirror; m != nil {
			mirrors = append(mirrors, m)
		}
	}
	mirrorIdx := s.add(&page{key: "/mirror/", kind: "listing", title: "Mirror of the publications server", parent: home, items: mirrors, num: 1, total: 1, render: renderListing})
	mirrorIdx.series = []*page{mirrorIdx}
	s.pubFeed(po, len(pubs), pubList[0], func(_ *rng, p *page) {
		if m := p.pub.mirror; m != nil {
			m.parent = mirrorIdx
			mirrorIdx.items = prepend(m, mirrorIdx.items)
		}
	})
	s.storyFeed("/news/", newsList[0])
	s.nav = append(s.nav, navLink{label: "About", href: about.key})
	s.footer = []navLink{{label: "About", href: about.key}, {label: "Mirror", href: mirrorIdx.key}}
	s.extra = []*page{res, about}
	s.addAssets()
	s.addRobots(robots)
	return s
}
