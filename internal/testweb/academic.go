package testweb

import (
	"net/http"
	"sort"
	"strings"
	"time"
)

// Builders shared by the academic sites: people, publications, listings,
// news, research pages and the events calendar.

var (
	enTitleT = compileTitles(enAcademicLists(), []string{
		"{adj} {method} for {topic}",
		"towards {adj} {topic}",
		"on the {noun} of {topic}",
		"{topic} with {method}: {a_adj} {noun}",
		"{method} meets {topic}",
		"revisiting {topic}: lessons from {dataset}",
		"learning {topic} from {dataset}",
		"what {method} can tell us about {topic}",
		"{a_adj} {noun} for {topic} at scale",
		"{topic} in practice: {a_adj} {noun}",
	})
	trTitleT = compileTitles(map[string][]string{"topic": trTopics, "method": trMethods, "adj": trAdjs, "noun": trNouns}, []string{
		"{topic} için {adj} bir {noun}",
		"{method} ile {topic} üzerine bir inceleme",
		"{topic} alanında {method} uygulamaları",
		"{adj} {topic}: bir {noun} önerisi",
		"{topic} ve {topic} arasındaki ilişki",
	})
)

func enAcademicLists() map[string][]string {
	return map[string][]string{
		"topic": enTopics, "method": enMethods, "adj": enAdjs, "a_adj": withArticles(enAdjs),
		"noun": enNouns, "dataset": enDatasets,
	}
}

func compileTitles(lists map[string][]string, ts []string) []tmpl {
	v := &vocab{lists: lists}
	out := make([]tmpl, len(ts))
	for i, t := range ts {
		out[i] = v.compile(t)
	}
	return out
}

// pubTitle returns a new publication title in the site's language.
func (s *site) pubTitle(r *rng) string {
	if s.lang == "tr" {
		return upperFirst(trTitleT[r.intn(len(trTitleT))].string(r), true)
	}
	return titleCase(enTitleT[r.intn(len(enTitleT))].string(r))
}

// uniqueKey returns prefix+slug+suffix, numbering the slug if that key is
// taken.
func (s *site) uniqueKey(prefix, slug, suffix string) string {
	key := prefix + slug + suffix
	for n := 2; s.pages[key] != nil; n++ {
		key = prefix + slug + "-" + itoa(n) + suffix
	}
	return key
}

// makePeople adds n person pages under prefix.
func (s *site) makePeople(r *rng, n int, prefix string, depts []*page) []*page {
	first, last, roles := enFirst, enLast, enRoles
	if s.lang == "tr" {
		first, last, roles = trFirst, trLast, trRoles
	}
	domain := s.host
	if i := strings.IndexByte(domain, '.'); i >= 0 && strings.Count(domain, ".") > 1 {
		domain = domain[i+1:]
	}
	var out []*page
	for i := 0; i < n; i++ {
		pd := &personData{first: r.pick(first), last: r.pick(last), role: r.pick(roles)}
		if len(depts) > 0 {
			pd.dept = depts[r.intn(len(depts))]
		}
		pd.email = slugify(pd.first, 1) + "." + slugify(pd.last, 3) + "@" + domain
		pd.phone = "+1-555-01" + pad2(r.intn(100))
		if s.lang == "tr" {
			pd.phone = "+90-462-377-" + pad4(r.intn(10000))
		}
		pd.orcid = "0000-000" + itoa(r.between(1, 9)) + "-" + pad4(r.intn(10000)) + "-" + pad4(r.intn(10000))
		for j := r.between(2, 4); j > 0; j-- {
			if s.lang == "tr" {
				pd.interests = append(pd.interests, upperFirst(r.pick(trTopics), true))
			} else {
				pd.interests = append(pd.interests, titleCase(r.pick(enTopics)))
			}
		}
		title := pd.first + " " + pd.last
		if s.lang == "tr" {
			title = pd.role + " " + title
		}
		p := s.add(&page{
			key:  s.uniqueKey(prefix, slugify(pd.first+" "+pd.last, 4), ""),
			kind: "person", academic: true, title: title, person: pd, render: renderPerson,
		})
		if pd.dept != nil {
			pd.dept.items = append(pd.dept.items, p)
		}
		out = append(out, p)
	}
	s.people = append(s.people, out...)
	return out
}

// pubOpts says how makePubs lays publications out on a site.
type pubOpts struct {
	prefix    string // key prefix of the landing pages, e.g. "/publications/"
	ids       bool   // keys are prefix + number instead of a slug
	firstID   int
	pdfPrefix string // PDFs at pdfPrefix + slug + ".pdf"; "" for none
	pdfShare  int    // percentage of publications with a PDF (default 100)
	print     bool   // a "/print" copy with rel=canonical
	alias     string // alias prefix, e.g. "/pub?id="
	mirror    string // mirror prefix, e.g. "/mirror"
	doi       string // DOI prefix, e.g. "10.4242/nfu."
	venue     string // fixed venue (journal, thesis institution); "" for random
	venueKind string
	publisher string
	authors   []*page // people of the site who author publications
	firstYear int
	kinds     []string // Turkish site: per-publication sub-paths (makale, tez, bildiri)

	start int       // number of publications made before (ids, aliases, DOIs count on)
	date  time.Time // publication date of new publications (Advance); zero: random
}

// makePubs adds n publications and their PDFs, print copies, aliases and
// mirrors.
func (s *site) makePubs(r *rng, n int, o pubOpts) []*page {
	if o.pdfShare == 0 {
		o.pdfShare = 100
	}
	if o.firstYear == 0 {
		o.firstYear = 2012
	}
	first, last := enFirst, enLast
	if s.lang == "tr" {
		first, last = trFirst, trLast
	}
	var out []*page
	for i := o.start; i < o.start+n; i++ {
		pb := &pubData{
			title:     s.pubTitle(r),
			year:      r.between(o.firstYear, 2025),
			month:     r.between(1, 12),
			day:       r.between(1, 28),
			venue:     o.venue,
			venueKind: o.venueKind,
			publisher: o.publisher,
			lang:      s.lang,
			textSeed:  r.next(),
		}
		if !o.date.IsZero() {
			pb.year, pb.month, pb.day = o.date.Year(), int(o.date.Month()), o.date.Day()
		}
		prefix := o.prefix
		if len(o.kinds) > 0 {
			k := o.kinds[i%len(o.kinds)]
			prefix += k + "/"
			switch k {
			case "tez":
				pb.venueKind, pb.venue = "thesis", s.name
			case "bildiri":
				pb.venueKind, pb.venue = "conference", "Ulusal Bilgisayar Mühendisliği Kongresi"
			default:
				pb.venueKind, pb.venue = "journal", "Karadeniz Fen Bilimleri Dergisi"
			}
		}
		if pb.venue == "" {
			if r.chance(55) {
				pb.venueKind, pb.venue = "journal", r.pick(enVenuesJ)
			} else {
				pb.venueKind, pb.venue = "conference", r.pick(enVenuesC)
			}
		}
		if pb.venueKind == "journal" {
			pb.volume = pb.year - 1990 + r.intn(3)
			pb.issue = r.between(1, 4)
		}
		if pb.venueKind != "thesis" {
			pb.first = r.between(1, 900)
			pb.last = pb.first + r.between(8, 24)
		}
		if pb.publisher == "" {
			pb.publisher = r.pick(enPubs)
		}
		for j := 0; j < 3; j++ {
			if s.lang == "tr" {
				pb.keywords = append(pb.keywords, r.pick(trTopics))
			} else {
				pb.keywords = append(pb.keywords, r.pick(enTopics))
			}
		}
		pb.keywordList = strings.Join(pb.keywords, "; ")
		na := r.between(1, 6)
		if pb.venueKind == "thesis" {
			na = 1
		}
		for j := 0; j < na; j++ {
			var a author
			if len(o.authors) > 0 && (j == 0 || r.chance(50)) {
				pp := o.authors[r.intn(len(o.authors))]
				a = author{first: pp.person.first, last: pp.person.last, person: pp}
			} else {
				a = author{first: r.pick(first), last: r.pick(last)}
			}
			a.name = a.first + " " + a.last
			pb.authors = append(pb.authors, a)
		}
		slug := slugify(pb.title, 8)
		var key string
		if o.ids {
			key = prefix + itoa(o.firstID+i)
		} else {
			key = s.uniqueKey(prefix, slug, "")
			slug = strings.TrimPrefix(key, prefix)
		}
		if o.doi != "" {
			if o.ids {
				pb.doi = o.doi + itoa(o.firstID+i)
			} else {
				pb.doi = o.doi + itoa(pb.year) + "." + pad4(i+1)
			}
		} else {
			pb.doi = "10." + itoa(1000+r.intn(9000)) + "/" + slugify(pb.venue, 2) + "." + itoa(pb.year) + "." + itoa(r.between(100, 9999))
		}
		p := s.add(&page{key: key, kind: "publication", academic: true, title: pb.title, pub: pb, render: renderPub})
		pb.main = p
		for _, a := range pb.authors {
			if a.person != nil {
				a.person.person.pubs = append(a.person.person.pubs, p)
			}
		}
		if o.pdfPrefix != "" && r.chance(o.pdfShare) {
			pdfKey := s.uniqueKey(o.pdfPrefix, slug, ".pdf")
			if o.ids {
				pdfKey = o.pdfPrefix + itoa(o.firstID+i) + ".pdf"
			}
			pb.pdf = s.add(&page{key: pdfKey, kind: "pdf", academic: true, title: pb.title, pub: pb, ctype: "application/pdf", render: renderPDF, canon: nil})
		}
		if o.print {
			pb.print = s.add(&page{key: key + "/print", kind: "duplicate", academic: true, title: pb.title, pub: pb, canon: p, render: renderPrint, parent: p})
		}
		if o.alias != "" {
			pb.alias = s.add(&page{key: o.alias + itoa(i+1), kind: "alias", academic: true, title: pb.title, pub: pb, canon: p, render: renderPub})
		}
		if o.mirror != "" && r.chance(40) {
			pb.mirror = s.add(&page{key: o.mirror + key, kind: "duplicate", academic: true, title: pb.title, pub: pb, canon: p, render: renderPub})
		}
		out = append(out, p)
	}
	s.pubs = append(s.pubs, out...)
	return out
}

// makeListing adds a paginated listing of items: base, then
// base?param=2 and on. It returns the listing pages, page 1 first.
func (s *site) makeListing(base, param, title string, items []*page, per int, academic bool, parent *page) []*page {
	total := (len(items) + per - 1) / per
	if total == 0 {
		total = 1
	}
	series := make([]*page, total)
	for n := 1; n <= total; n++ {
		key := base
		t := title
		if n > 1 {
			key = base + "?" + param + "=" + itoa(n)
			if s.lang == "tr" {
				t = title + " – Sayfa " + itoa(n)
			} else {
				t = title + " – Page " + itoa(n)
			}
		}
		lo, hi := (n-1)*per, n*per
		if hi > len(items) {
			hi = len(items)
		}
		if lo > hi {
			lo = hi
		}
		series[n-1] = s.add(&page{key: key, kind: "listing", academic: academic, title: t,
			items: items[lo:hi], num: n, total: total, series: series, parent: parent, render: renderListing})
	}
	return series
}

// makeStories adds n news stories under prefix/yyyy/mm/slug, newest first.
func (s *site) makeStories(r *rng, n int, prefix string) []*page {
	var out []*page
	for i := 0; i < n; i++ {
		out = append(out, s.newStory(r, prefix, 2025-i/12, 12-i%12))
	}
	s.stories = append(s.stories, out...)
	return out
}

// newStory adds one news story of the given month under prefix/yyyy/mm/slug.
func (s *site) newStory(r *rng, prefix string, year, month int) *page {
	st := &storyData{year: year, month: month, day: r.between(1, 28), byline: r.pick(enFirst) + " " + r.pick(enLast)}
	var title string
	if s.lang == "tr" {
		title = upperFirst(r.pick(trTopics), true) + " alanında yeni " + r.pick(trNouns)
		st.byline = r.pick(trFirst) + " " + r.pick(trLast)
	} else {
		title = titleCase(r.pick([]string{"new", "award-winning", "record", "major", "first"}) + " " + r.pick(enNouns) + " in " + r.pick(enTopics))
	}
	st.tags = []string{r.pick(enTopics), r.pick(enTopics)}
	if s.lang == "tr" {
		st.tags = []string{r.pick(trTopics), r.pick(trTopics)}
	}
	key := s.uniqueKey(prefix+itoa(st.year)+"/"+pad2(st.month)+"/", slugify(title, 6), "")
	return s.add(&page{key: key, kind: "news", title: title, story: st, render: renderStory})
}

// makeResearch adds research pages (areas, groups, projects) under prefix,
// each listing some of members.
func (s *site) makeResearch(r *rng, n int, prefix string, members []*page, parent *page) []*page {
	var out []*page
	for i := 0; i < n; i++ {
		var title string
		if s.lang == "tr" {
			title = upperFirst(trTopics[(i*7+r.intn(3))%len(trTopics)], true)
		} else {
			title = titleCase(enTopics[(i*7+r.intn(5))%len(enTopics)])
		}
		p := s.add(&page{key: s.uniqueKey(prefix, slugify(title, 5), ""), kind: "research", academic: true, title: title, parent: parent, render: renderResearch})
		for j := 0; j < 5 && len(members) > 0; j++ {
			p.items = append(p.items, members[r.intn(len(members))])
		}
		out = append(out, p)
	}
	return out
}

// calendarBase is the month the events calendar opens at: November 2026.
const calendarBase = 2026*12 + 10

// makeEvents adds an events index, event pages around calendarBase and the
// calendar trap behind it.
func (s *site) makeEvents(r *rng, n int, parent *page) *page {
	idx := s.add(&page{key: "/events/", kind: "listing", title: "Events", parent: parent, render: renderListing, num: 1, total: 1, base: "/events/calendar"})
	idx.series = []*page{idx}
	for i := 0; i < n; i++ {
		title := titleCase(r.pick([]string{"seminar", "colloquium", "workshop", "public lecture", "open day", "PhD defence"}) + ": " + r.pick(enTopics))
		ev := s.add(&page{key: s.uniqueKey("/events/", slugify(title, 6), ""), kind: "event", title: title, parent: idx,
			num: calendarBase - 3 + r.intn(7), render: renderEvent})
		idx.items = append(idx.items, ev)
	}
	cal := s.add(&page{key: calendarKey("/events/calendar", calendarBase), kind: "trap", title: "Events calendar",
		num: calendarBase, base: "/events/calendar", parent: idx, render: renderCalendar,
		note: "calendar: every month links to the next and the previous one, forever"})
	idx.label = `<p><a href="` + cal.key + `">Calendar</a></p>` + "\n"
	s.extra = append(s.extra, cal)
	return idx
}

// dynCalendar answers /events/calendar?month=YYYY-MM for any month.
func dynCalendar(s *site, path string, q []param) *page {
	if path != "/events/calendar" || len(q) > 1 {
		return nil
	}
	idx := s.pages["/events/"]
	if idx == nil {
		return nil
	}
	m := calendarBase
	if len(q) == 1 {
		if q[0].name != "month" {
			return nil
		}
		var ok bool
		if m, ok = parseMonth(q[0].value); !ok {
			return nil
		}
	}
	return &page{kind: "trap", title: "Events calendar", num: m, base: "/events/calendar", parent: idx, render: renderCalendar,
		note: "calendar: every month links to the next and the previous one, forever"}
}

// parseMonth reads "YYYY-MM" into a month index.
func parseMonth(v string) (int, bool) {
	if len(v) != 7 || v[4] != '-' {
		return 0, false
	}
	n := 0
	for i, c := range []byte(v) {
		if i == 4 {
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	y, mo := n/100, n%100
	if mo < 1 || mo > 12 {
		return 0, false
	}
	return y*12 + mo - 1, true
}

// addStatic adds a plain information page.
func (s *site) addStatic(key, title string, parent *page, links ...*page) *page {
	return s.add(&page{key: key, kind: "page", title: title, parent: parent, items: links, render: renderStatic})
}

// ---------------------------------------------------------------------
// Northfield University and its subdomains.

func (w *Web) buildNorthfield() (*site, *site, *site) {
	P := w.cfg.PagesPerSite
	s := newSite(w, "www.northfield-university.test", "Northfield University", "university", true)
	s.notes = "English university: paginated publications with citation_* tags, print copies and /pub?id= aliases, PDFs, an events calendar trap, a robots.txt whose acrawler group replaces *, a sitemap index with a gzipped child"
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home

	deptIdx := s.add(&page{key: "/departments/", kind: "listing", title: "Departments", parent: home, render: renderListing, num: 1, total: 1})
	deptIdx.series = []*page{deptIdx}
	var depts []*page
	for _, name := range []string{"Computer Science", "Physics", "Mathematics", "History", "Economics", "Biology", "Linguistics", "Chemistry"} {
		d := s.add(&page{key: "/departments/" + slugify(name, 3), kind: "page", title: "Department of " + name, parent: deptIdx, render: renderResearch})
		depts = append(depts, d)
	}
	deptIdx.items = depts

	people := s.makePeople(&r, max(4, P/5), "/people/", depts)
	po := pubOpts{prefix: "/publications/", pdfPrefix: "/files/", print: true, alias: "/pub?id=", doi: "10.4242/nfu.", authors: people}
	pubs := s.makePubs(&r, max(6, P*2/5), po)
	peopleList := s.makeListing("/people/", "page", "Faculty and staff", people, 25, false, home)
	for _, pp := range people {
		pp.parent = peopleList[0]
	}
	pubList := s.makeListing("/publications/", "page", "Publications", pubs, 20, true, home)
	for _, pb := range pubs {
		pb.parent = pubList[0]
	}
	// Sorted views of the first page: disallowed for "*" by /*?sort=, not
	// for acrawler, whose group replaces "*".
	byDate := append([]*page(nil), pubList[0].items...)
	sort.SliceStable(byDate, func(i, j int) bool { return byDate[i].pub.year > byDate[j].pub.year })
	byTitle := append([]*page(nil), pubList[0].items...)
	sort.SliceStable(byTitle, func(i, j int) bool { return byTitle[i].title < byTitle[j].title })
	s.add(&page{key: "/publications/?sort=date", kind: "listing", academic: true, title: "Publications by date", items: byDate, num: 1, total: len(pubList), series: pubList, parent: home, canon: pubList[0], render: renderListing})
	s.add(&page{key: "/publications/?sort=title", kind: "listing", academic: true, title: "Publications by title", items: byTitle, num: 1, total: len(pubList), series: pubList, parent: home, canon: pubList[0], render: renderListing})
	pubList[0].label = `<p class="sort">Sort by <a href="/publications/?sort=date">date</a> | <a href="/publications/?sort=title">title</a></p>` + "\n"

	news := s.makeStories(&r, max(3, P/6), "/news/")
	newsList := s.makeListing("/news/", "page", "News", news, 15, false, home)
	for _, n := range news {
		n.parent = newsList[0]
	}
	s.pubFeed(po, len(pubs), pubList[0], nil)
	s.storyFeed("/news/", newsList[0])
	resIdx := s.add(&page{key: "/research/", kind: "listing", academic: true, title: "Research", parent: home, render: renderListing, num: 1, total: 1})
	resIdx.series = []*page{resIdx}
	resIdx.items = s.makeResearch(&r, 6, "/research/", people, resIdx)
	for _, d := range depts {
		d.parent = deptIdx
	}
	events := s.makeEvents(&r, 8, home)
	s.dynamic = dynCalendar

	about := s.addStatic("/about", "About the university", home)
	s.addStatic("/admissions", "Admissions", home)
	contact := s.addStatic("/contact", "Contact", home)
	privacy := s.addStatic("/about/privacy", "Privacy notice", about)
	jobs := s.addStatic("/about/jobs", "Jobs at Northfield", about)
	access := s.addStatic("/about/accessibility", "Accessibility statement", about)
	login := s.add(&page{key: "/login", kind: "login", title: "Log in", parent: home, render: renderLogin, metaRobots: "noindex"})
	private := s.addStatic("/private/reports", "Internal reports", home)
	staff := s.addStatic("/staff-only/directory", "Staff directory", home)
	internal := s.addStatic("/internal/budget", "Budget 2026", home)
	public := s.addStatic("/internal/public/annual-report", "Annual report", home)
	about.items = []*page{privacy, jobs, access, public}
	_ = login

	s.nav = []navLink{
		{label: "About", href: "/about"}, {label: "Departments", href: "/departments/"},
		{label: "Research", href: "/research/"}, {label: "Publications", href: "/publications/"},
		{label: "People", href: "/people/"}, {label: "News", href: "/news/"}, {label: "Events", href: events.key},
		{label: "Admissions", href: "/admissions"}, {label: "Library", href: "http://library.northfield-university.test/"},
		{label: "Contact", href: contact.key}, {label: "Log in", href: "/login", rel: "nofollow"},
	}
	s.footer = []navLink{
		{label: "Jobs", href: jobs.key}, {label: "Privacy", href: privacy.key}, {label: "Accessibility", href: access.key},
		{label: "Computer Science", href: "http://cs.northfield-university.test/"},
		{label: "Internal reports", href: private.key}, {label: "Staff directory", href: staff.key},
		{label: "Budget", href: internal.key}, {label: "Annual report", href: public.key},
	}
	s.extra = append(s.extra, about, resIdx, deptIdx)
	s.addAssets()
	s.addRobots(newRobots("agent-groups", "Northfield University web team", []robotsGroup{
		{agents: []string{"*"}, rules: []robotsRule{{pattern: "/private/"}, {pattern: "/*?sort="}, {pattern: "/login"}}},
		{agents: []string{"acrawler"}, rules: []robotsRule{{pattern: "/internal/"}, {allow: true, pattern: "/internal/public/"}, {pattern: "/staff-only/"}}},
	}, []string{s.url("/sitemap.xml")}))

	var sitemapPages, sitemapPubs []*page
	for _, p := range s.order {
		switch {
		case p.kind == "publication":
			sitemapPubs = append(sitemapPubs, p)
		case p.kind == "home" || p.kind == "listing" && p.canon == nil || p.kind == "person" || p.kind == "news" || p.kind == "research":
			sitemapPages = append(sitemapPages, p)
		}
	}
	smPages := s.addSitemap("/sitemap-pages.xml", &sitemapPages)
	smPubs := s.addSitemap("/sitemap-pubs.xml.gz", &sitemapPubs)
	s.addSitemapIndex("/sitemap.xml", []*page{smPages, smPubs})

	cs := w.buildNorthfieldCS(depts[0])
	lib := w.buildNorthfieldLibrary(s)
	depts[0].items = append(depts[0].items, cs.home)
	return s, cs, lib
}

func (w *Web) buildNorthfieldCS(dept *page) *site {
	P := w.cfg.PagesPerSite
	s := newSite(w, "cs.northfield-university.test", "Northfield Computer Science", "university", true)
	s.notes = "department subdomain of northfield-university.test: theses with PDFs, research groups, courses"
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home
	people := s.makePeople(&r, max(3, P/5), "/people/", nil)
	po := pubOpts{prefix: "/theses/", pdfPrefix: "/theses/", venue: "Northfield University", venueKind: "thesis", doi: "10.4242/nfu-cs.thesis.", publisher: "Northfield University", authors: people, firstYear: 2015}
	theses := s.makePubs(&r, max(4, P/3), po)
	peopleList := s.makeListing("/people/", "page", "People", people, 30, false, home)
	thesisList := s.makeListing("/theses/", "page", "Theses", theses, 20, true, home)
	s.pubFeed(po, len(theses), thesisList[0], nil)
	for _, p := range people {
		p.parent = peopleList[0]
	}
	for _, p := range theses {
		p.parent = thesisList[0]
	}
	groups := s.add(&page{key: "/research/groups/", kind: "listing", academic: true, title: "Research groups", parent: home, render: renderListing, num: 1, total: 1})
	groups.series = []*page{groups}
	groups.items = s.makeResearch(&r, 4, "/research/groups/", people, groups)
	courses := s.add(&page{key: "/courses/", kind: "listing", title: "Courses", parent: home, render: renderListing, num: 1, total: 1})
	courses.series = []*page{courses}
	for i := 0; i < max(3, P/6); i++ {
		code := "cs-" + itoa(101+i*37%800)
		title := strings.ToUpper(code) + ": " + titleCase(r.pick(enTopics))
		courses.items = append(courses.items, s.add(&page{key: s.uniqueKey("/courses/", code, ""), kind: "page", title: title, parent: courses, render: renderStatic}))
	}
	seminars := s.addStatic("/seminars/", "Seminar series", home)
	contact := s.addStatic("/contact", "Contact the department", home)
	s.nav = []navLink{
		{label: "Northfield University", href: "http://www.northfield-university.test/"},
		{label: "People", href: "/people/"}, {label: "Research groups", href: groups.key},
		{label: "Theses", href: "/theses/"}, {label: "Courses", href: courses.key},
		{label: "Seminars", href: seminars.key}, {label: "Contact", href: contact.key},
	}
	s.footer = []navLink{{label: "Department page", href: "http://www.northfield-university.test" + dept.key}, {label: "Library", href: "http://library.northfield-university.test/"}}
	s.extra = []*page{groups, courses, seminars}
	s.addAssets()
	s.addRobots(newRobots("disallow-paths", "cs.northfield-university.test", []robotsGroup{
		{agents: []string{"*"}, rules: []robotsRule{{pattern: "/cgi-bin/"}}},
	}, []string{s.url("/sitemap.xml")}))
	var all []*page
	for _, p := range s.order {
		if p.kind != "robots" && p.kind != "asset" {
			all = append(all, p)
		}
	}
	s.addSitemap("/sitemap.xml", &all)
	return s
}

func (w *Web) buildNorthfieldLibrary(main *site) *site {
	s := newSite(w, "library.northfield-university.test", "Northfield University Library", "university", true)
	s.notes = "library subdomain: an institutional repository holding copies of the university's publications (cross-host duplicates), a disallowed search"
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home
	var items []*page
	for i, orig := range main.pubs {
		src := orig.pub
		pb := *src
		pb.authors = make([]author, len(src.authors))
		for j, a := range src.authors {
			a.person = nil
			pb.authors[j] = a
		}
		pb.print, pb.alias, pb.mirror, pb.pdf = nil, nil, nil, nil
		pb.of = src
		handle := itoa(1000 + i)
		p := s.add(&page{key: "/repository/handle/" + handle, kind: "publication", academic: true, title: pb.title, pub: &pb, render: renderPub})
		pb.main = p
		pb.extURL, pb.ext = main.url(orig.key), orig
		pb.pdf = s.add(&page{key: "/bitstream/" + handle + "/" + slugify(pb.title, 5) + ".pdf", kind: "pdf", academic: true, title: pb.title, pub: &pb, ctype: "application/pdf", render: renderPDF})
		src.extURL, src.ext = s.url(p.key), p
		items = append(items, p)
	}
	s.pubs = items
	repo := s.makeListing("/repository/", "page", "Institutional repository", items, 20, true, home)
	for _, it := range items {
		it.parent = repo[0]
	}
	hours := s.addStatic("/opening-hours", "Opening hours", home)
	services := s.addStatic("/services", "Services", home)
	search := s.add(&page{key: "/search?q=web+crawling", kind: "page", title: "Search results", parent: home, render: renderStatic, items: items[:min(5, len(items))]})
	s.dynamic = func(s *site, path string, q []param) *page {
		if path == "/search" && len(q) == 1 && q[0].name == "q" {
			return &page{kind: "page", title: "Search results", parent: home, render: renderStatic}
		}
		return nil
	}
	s.nav = []navLink{
		{label: "Northfield University", href: "http://www.northfield-university.test/"},
		{label: "Repository", href: "/repository/"}, {label: "Search the catalogue", href: search.key},
		{label: "Opening hours", href: hours.key}, {label: "Services", href: services.key},
	}
	s.footer = []navLink{{label: "Computer Science", href: "http://cs.northfield-university.test/"}, {label: "Services", href: services.key}}
	s.extra = []*page{repo[0], hours, services}
	s.addAssets()
	s.addRobots(newRobots("disallow-paths", "library.northfield-university.test", []robotsGroup{
		{agents: []string{"*"}, rules: []robotsRule{{pattern: "/search"}, {pattern: "/admin/"}}},
	}, nil))
	return s
}

// ---------------------------------------------------------------------
// Journal of Applied Crawling.

func (w *Web) buildJournal(host, name, doiPrefix string, n int, robots *robotsFile) *site {
	s := newSite(w, host, name, "journal", true)
	s.notes = "journal: issues listing articles with citation_* tags and JSON-LD, /doi/ redirects (301) to articles, PDFs"
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home
	po := pubOpts{prefix: "/article/", ids: true, firstID: 1001, pdfPrefix: "/pdf/", doi: doiPrefix,
		venue: name, venueKind: "journal", publisher: "Society for Applied Crawling", firstYear: 2019}
	arts := s.makePubs(&r, n, po)
	// Issues: eight articles each, four issues a volume.
	archive := s.add(&page{key: "/issues/", kind: "listing", academic: true, title: "All issues", parent: home, render: renderListing, num: 1, total: 1})
	archive.series = []*page{archive}
	const perIssue = 8
	for i := 0; i*perIssue < len(arts); i++ {
		vol, num := i/4+1, i%4+1
		hi := min((i+1)*perIssue, len(arts))
		iss := s.add(&page{key: "/issues/" + itoa(vol) + "/" + itoa(num), kind: "listing", academic: true,
			title: "Volume " + itoa(vol) + ", Issue " + itoa(num), items: arts[i*perIssue : hi], num: 1, total: 1, parent: archive, render: renderListing})
		iss.series = []*page{iss}
		archive.items = append([]*page{iss}, archive.items...)
		for j, a := range iss.items {
			pb := a.pub
			pb.volume, pb.issue = vol, num
			pb.year = 2018 + vol
			pb.month = num*3 - 2
			pb.first = 1 + j*20
			pb.last = pb.first + 15 + r.intn(5)
			a.parent = iss
		}
	}
	doi := func(a *page) {
		id := strings.TrimPrefix(a.key, "/article/")
		a.pub.alias = s.add(&page{key: "/doi/" + doiPrefix + id, kind: "redirect", status: http.StatusMovedPermanently, title: a.title,
			loc: a.key, canon: a, serve: serveRedirect, note: "DOI resolver: 301 to the article"})
	}
	for _, a := range arts {
		doi(a)
	}
	current := archive.items[0]
	home.items = current.items
	// New articles go to the current issue, on the pages after the last.
	last := arts[len(arts)-1].pub
	s.pubFeed(po, len(arts), current, func(r *rng, a *page) {
		pb := a.pub
		pb.volume, pb.issue = last.volume, last.issue
		pb.first = last.last + 1 + r.intn(3)
		pb.last = pb.first + 15 + r.intn(5)
		a.parent = current
		last = pb
		doi(a)
	})
	board := s.addStatic("/editorial-board", "Editorial board", home)
	submit := s.addStatic("/submit", "Author guidelines", home)
	about := s.addStatic("/about", "About the journal", home)
	s.nav = []navLink{
		{label: "Current issue", href: current.key}, {label: "All issues", href: archive.key},
		{label: "Editorial board", href: board.key}, {label: "Submit", href: submit.key}, {label: "About", href: about.key},
	}
	s.footer = []navLink{{label: "About", href: about.key}, {label: "Open access policy", href: about.key}, {label: "Sitemap", href: "/sitemap.xml"}}
	s.extra = []*page{current, archive, board}
	s.addAssets()
	s.addRobots(robots)
	var all []*page
	for _, p := range s.order {
		if p.kind == "publication" || p.kind == "listing" || p.kind == "home" {
			all = append(all, p)
		}
	}
	s.addSitemap("/sitemap.xml", &all)
	return s
}

// ---------------------------------------------------------------------
// Quantum optics lab.

func (w *Web) buildLab(host, name string, P int, robots *robotsFile, tricks bool) *site {
	s := newSite(w, host, name, "lab", true)
	s.notes = "research lab: projects, people, papers; <base href> with relative links, X-Robots-Tag noindex, meta robots noindex,nofollow, no robots.txt (404)"
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home
	people := s.makePeople(&r, max(3, P/5), "/people/", nil)
	po := pubOpts{prefix: "/papers/", pdfPrefix: "/papers/", authors: people, firstYear: 2016}
	papers := s.makePubs(&r, max(4, P*2/5), po)
	peopleList := s.makeListing("/people/", "page", "People", people, 40, false, home)
	paperList := s.makeListing("/papers/", "page", "Papers", papers, 25, true, home)
	s.pubFeed(po, len(papers), paperList[0], nil)
	projIdx := s.add(&page{key: "/projects/", kind: "listing", academic: true, title: "Projects", parent: home, render: renderListing, num: 1, total: 1})
	projIdx.series = []*page{projIdx}
	projIdx.items = s.makeResearch(&r, max(3, P/8), "/projects/", people, projIdx)
	for _, p := range people {
		p.parent = peopleList[0]
	}
	for _, p := range papers {
		p.parent = paperList[0]
	}
	if tricks {
		// Person pages resolve their publication links against
		// <base href=".../papers/">; project pages against <base href="/">.
		for _, p := range people {
			p.baseHref = s.origin + "/papers/"
		}
		for _, p := range projIdx.items {
			p.baseHref = "/"
		}
		sem := s.add(&page{key: "/seminars/", kind: "listing", title: "Seminars", parent: home, render: renderListing, num: 1, total: 1, xRobots: "noindex"})
		sem.series = []*page{sem}
		for i := 0; i < 4; i++ {
			title := "Seminar: " + titleCase(r.pick(enTopics))
			sem.items = append(sem.items, s.add(&page{key: "/seminars/" + itoa(2024+i/2) + "-" + itoa(i+1), kind: "event", title: title,
				parent: sem, num: calendarBase - i, render: renderStatic, xRobots: "noindex"}))
		}
		drafts := s.add(&page{key: "/drafts/", kind: "listing", title: "Drafts", parent: home, render: renderListing, num: 1, total: 1, metaRobots: "noindex,nofollow"})
		drafts.series = []*page{drafts}
		for i := 0; i < 3; i++ {
			title := "Draft: " + s.pubTitle(&r)
			drafts.items = append(drafts.items, s.add(&page{key: "/drafts/" + slugify(title, 6), kind: "page", title: title,
				parent: drafts, render: renderStatic, xRobots: "noindex, nofollow"}))
		}
		s.extra = append(s.extra, sem, drafts)
	}
	join := s.addStatic("/join-us", "Join us", home)
	contact := s.addStatic("/contact", "Contact", home)
	s.nav = []navLink{
		{label: "Projects", href: projIdx.key}, {label: "People", href: "/people/"}, {label: "Papers", href: "/papers/"},
		{label: "Join us", href: join.key}, {label: "Contact", href: contact.key},
	}
	s.footer = []navLink{{label: "Join us", href: join.key}, {label: "Contact", href: contact.key}}
	s.extra = append(s.extra, projIdx)
	s.addAssets()
	s.addRobots(robots)
	return s
}
