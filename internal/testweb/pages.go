package testweb

import (
	"bytes"
	"strings"
	"time"
)

// Templates shared by the academic sites (and partly by the others). Each
// writes a whole document into d.b; what varies between two pages of one
// kind comes from the page's generator d.r, what two copies of one
// publication share comes from the publication's own seed.

func renderHome(d *doc) {
	s, l := d.s, d.l()
	d.head(s.name)
	d.body()
	d.str("<section class=\"hero\"><h1>")
	d.esc(s.name)
	d.str("</h1>\n<p>")
	s.text.paragraph(d.b, &d.r, 6)
	d.str("</p></section>\n")
	if len(s.stories) > 0 {
		d.str("<section class=\"news\"><h2>")
		d.esc(l.news)
		d.str("</h2>\n<ul>\n")
		i := 0
		for st := range newestFirst(s.stories) {
			if i >= 6 {
				break
			}
			i++
			d.str("<li>")
			d.aTracked(st.key, st.title)
			d.str(" <time>")
			d.date(st.story.year, st.story.month, st.story.day)
			d.str("</time></li>\n")
		}
		d.str("</ul></section>\n")
	}
	if pubs := core(s.pubs); len(pubs) > 0 {
		d.str("<section class=\"featured\"><h2>")
		d.esc(l.research)
		d.str("</h2>\n<ul>\n")
		for i := 0; i < 6; i++ {
			pb := pubs[d.r.intn(len(pubs))]
			if pb.dead() {
				continue
			}
			d.str("<li>")
			d.a(pb.key, pb.title)
			d.str("<p>")
			s.text.sentence(d.b, &d.r)
			d.str("</p></li>\n")
		}
		d.str("</ul></section>\n")
	}
	if people := d.vis(s.people); len(people) > 0 {
		d.str("<section class=\"spotlight\"><h2>")
		d.esc(l.people)
		d.str("</h2>\n<ul>\n")
		for i := 0; i < 4; i++ {
			pp := people[d.r.intn(len(people))]
			if pp.dead() {
				continue
			}
			d.li(pp.key, pp.title)
		}
		d.str("</ul></section>\n")
	}
	if len(s.extra) > 0 {
		d.str("<section class=\"quick\"><ul>\n")
		for _, e := range s.extra {
			d.li(e.key, e.title)
		}
		d.str("</ul></section>\n")
	}
	d.crossLinks()
	s.text.paragraphs(d.b, &d.r, 4)
	d.end()
}

// crossLinks links a few other academic sites of the web, as partner lists
// on real home pages do.
func (d *doc) crossLinks() {
	if !d.s.academic {
		return
	}
	d.str("<section class=\"partners\"><h2>Partners</h2>\n<ul>\n")
	sites := d.w.sites
	for i := 0; i < 5; i++ {
		o := sites[d.r.intn(len(sites))]
		if o == d.s || !o.academic {
			continue
		}
		d.str("<li><a href=\"")
		d.str(o.origin)
		d.str("/\">")
		d.esc(o.name)
		d.str("</a></li>\n")
	}
	d.str("</ul></section>\n")
}

// renderStatic is an information page: text and a few links.
func renderStatic(d *doc) {
	s := d.s
	d.head(d.p.title)
	d.body()
	d.str("<h1>")
	d.esc(d.p.title)
	d.str("</h1>\n")
	s.text.paragraphs(d.b, &d.r, d.r.between(8, 12))
	if len(d.p.items) > 0 {
		d.str("<ul>\n")
		for _, it := range d.p.items {
			if !it.dead() {
				d.li(it.key, it.title)
			}
		}
		d.str("</ul>\n")
	}
	s.text.paragraphs(d.b, &d.r, 2)
	d.related(d.l().related, core(s.pubs), 5)
	d.end()
}

// renderStatus is the page behind 404, 410 and 500 answers.
func renderStatus(d *doc) {
	d.head(d.p.title)
	d.body()
	d.str("<h1>")
	d.esc(d.p.title)
	d.str("</h1>\n<p>")
	d.s.text.sentence(d.b, &d.r)
	d.str("</p>\n<p>")
	d.a("/", d.l().home)
	d.str("</p>\n")
	d.end()
}

// renderListing is one page of a paginated list of pages.
func renderListing(d *doc) {
	p, l := d.p, d.l()
	title := p.title
	d.head(title)
	if p.total > 1 {
		if p.num > 1 {
			d.str(`<link rel="prev" href="`)
			d.href(p.seriesKey(p.num - 1))
			d.str("\">\n")
		}
		if p.num < p.total {
			d.str(`<link rel="next" href="`)
			d.href(p.seriesKey(p.num + 1))
			d.str("\">\n")
		}
	}
	d.body()
	d.str("<h1>")
	d.esc(title)
	d.str("</h1>\n")
	d.s.text.paragraphs(d.b, &d.r, 2)
	if p.label != "" {
		d.str(p.label)
	}
	d.str("<ul class=\"listing\">\n")
	for _, it := range p.items {
		if !it.dead() {
			d.item(it)
		}
	}
	d.str("</ul>\n")
	if p.total > 1 {
		d.str("<nav class=\"pagination\" aria-label=\"")
		d.esc(l.page)
		d.str("\"><ul>\n")
		if p.num > 1 {
			d.str("<li>")
			d.aRel(p.seriesKey(p.num-1), "prev", l.prev)
			d.str("</li>\n")
		}
		for n := 1; n <= p.total; n++ {
			if n != 1 && n != p.total && (n < p.num-3 || n > p.num+3) {
				continue
			}
			if n == p.num {
				d.str("<li aria-current=\"page\">")
				d.int(n)
				d.str("</li>\n")
				continue
			}
			d.str("<li>")
			d.a(p.seriesKey(n), itoa(n))
			d.str("</li>\n")
		}
		if p.num < p.total {
			d.str("<li>")
			d.aRel(p.seriesKey(p.num+1), "next", l.next)
			d.str("</li>\n")
		}
		d.str("</ul></nav>\n")
	}
	d.s.text.paragraphs(d.b, &d.r, 2)
	d.end()
}

// item writes one entry of a listing.
func (d *doc) item(it *page) {
	d.str("<li class=\"")
	d.str(it.kind)
	d.str("\">")
	switch {
	case it.pub != nil:
		pb := it.pub
		d.aTracked(it.key, pb.title)
		d.str("<br><span class=\"authors\">")
		for i, a := range pb.authors {
			if i > 0 {
				d.str(", ")
			}
			d.esc(a.name)
		}
		d.str("</span>. <em>")
		d.esc(pb.venue)
		d.str("</em>, ")
		d.int(pb.year)
		d.str(".")
		if pb.pdf != nil {
			d.str(" [")
			d.a(pb.pdf.key, "PDF")
			d.str("]")
		}
	case it.person != nil:
		d.a(it.key, it.title)
		d.str(", <span class=\"role\">")
		d.esc(it.person.role)
		d.str("</span>")
		if it.person.dept != nil {
			d.str(", ")
			d.esc(it.person.dept.title)
		}
	case it.story != nil:
		d.aTracked(it.key, it.title)
		d.str(" <time>")
		d.date(it.story.year, it.story.month, it.story.day)
		d.str("</time><p>")
		d.s.text.sentence(d.b, &d.r)
		d.str("</p>")
	default:
		d.a(it.key, it.title)
		d.str("<p>")
		d.s.text.sentence(d.b, &d.r)
		d.str("</p>")
	}
	d.str("</li>\n")
}

// seriesKey returns the key of page n of the listing series p belongs to.
func (p *page) seriesKey(n int) string { return p.series[n-1].key }

// citationMeta writes the Highwire Press citation_* tags Google Scholar reads.
func (d *doc) citationMeta(pb *pubData) {
	meta := func(name, content string) {
		d.str(`<meta name="`)
		d.str(name)
		d.str(`" content="`)
		d.esc(content)
		d.str("\">\n")
	}
	meta("citation_title", pb.title)
	for _, a := range pb.authors {
		if d.s.kind == "university" && d.s.lang == "en" {
			meta("citation_author", a.last+", "+a.first)
		} else {
			meta("citation_author", a.name)
		}
	}
	meta("citation_publication_date", itoa(pb.year)+"/"+pad2(pb.month)+"/"+pad2(pb.day))
	switch pb.venueKind {
	case "conference":
		meta("citation_conference_title", pb.venue)
	case "thesis":
		meta("citation_dissertation_institution", pb.venue)
	default:
		meta("citation_journal_title", pb.venue)
	}
	if pb.volume > 0 {
		meta("citation_volume", itoa(pb.volume))
	}
	if pb.issue > 0 {
		meta("citation_issue", itoa(pb.issue))
	}
	if pb.first > 0 {
		meta("citation_firstpage", itoa(pb.first))
		meta("citation_lastpage", itoa(pb.last))
	}
	if pb.doi != "" {
		meta("citation_doi", pb.doi)
	}
	metaURL := func(name, key string) {
		d.str(`<meta name="`)
		d.str(name)
		d.str(`" content="`)
		d.esc(d.s.origin)
		d.esc(key)
		d.str("\">\n")
	}
	if pb.pdf != nil {
		metaURL("citation_pdf_url", pb.pdf.key)
	}
	metaURL("citation_abstract_html_url", pb.main.key)
	if pb.publisher != "" {
		meta("citation_publisher", pb.publisher)
	}
	meta("citation_keywords", pb.keywordList)
	meta("citation_language", pb.lang)
	meta("dc.identifier", "doi:"+pb.doi)
}

// jsonLD writes a schema.org ScholarlyArticle.
func (d *doc) jsonLD(pb *pubData) {
	d.str("<script type=\"application/ld+json\">\n{\"@context\":\"https://schema.org\",\"@type\":\"ScholarlyArticle\",\"headline\":")
	writeJSONString(d.b, pb.title)
	d.str(",\"author\":[")
	for i, a := range pb.authors {
		if i > 0 {
			d.str(",")
		}
		d.str("{\"@type\":\"Person\",\"name\":")
		writeJSONString(d.b, a.name)
		d.str("}")
	}
	d.str("],\"datePublished\":\"")
	d.str(itoa(pb.year) + "-" + pad2(pb.month) + "-" + pad2(pb.day))
	d.str("\",\"isPartOf\":{\"@type\":\"PublicationIssue\",\"issueNumber\":\"")
	d.int(pb.issue)
	d.str("\",\"isPartOf\":{\"@type\":\"PublicationVolume\",\"volumeNumber\":\"")
	d.int(pb.volume)
	d.str("\",\"isPartOf\":{\"@type\":\"Periodical\",\"name\":")
	writeJSONString(d.b, pb.venue)
	d.str(",\"issn\":\"2999-0001\"}}},\"pagination\":\"")
	d.str(itoa(pb.first) + "-" + itoa(pb.last))
	d.str("\",\"identifier\":{\"@type\":\"PropertyValue\",\"propertyID\":\"DOI\",\"value\":")
	writeJSONString(d.b, pb.doi)
	d.str("},\"url\":")
	writeJSONString(d.b, d.s.url(pb.main.key))
	d.str(",\"keywords\":")
	writeJSONString(d.b, strings.ReplaceAll(pb.keywordList, "; ", ", "))
	d.str("}\n</script>\n")
}

// pubText returns the generator for a publication's abstract and body,
// shared by all its copies and its PDF.
// A revision (Advance) gives the publication new text.
func pubText(pb *pubData) rng { return rng{s: pb.textSeed ^ uint64(pb.rev)*0x9e3779b97f4a7c15} }

// writeAbstract writes the abstract sentences (no markup).
func writeAbstract(d *doc, pb *pubData) {
	r := pubText(pb)
	textFor(pb).paragraph(d.b, &r, 6)
}

func textFor(pb *pubData) *vocab {
	if pb.lang == "tr" {
		return trAcademic
	}
	return enAcademic
}

// writePubBody writes the sections and references of a publication.
func writePubBody(d *doc, pb *pubData) {
	r := pubText(pb)
	r.s ^= 0xb0d1
	v := textFor(pb)
	titles := []string{"1. Introduction", "2. Related work", "3. Method", "4. Evaluation", "5. Conclusion"}
	if pb.lang == "tr" {
		titles = []string{"1. Giriş", "2. İlgili çalışmalar", "3. Yöntem", "4. Değerlendirme", "5. Sonuç"}
	}
	for _, t := range titles {
		d.str("<h2>")
		d.esc(t)
		d.str("</h2>\n")
		v.paragraphs(d.b, &r, r.between(1, 3))
	}
	d.str("<h2>")
	d.esc(d.l().references)
	d.str("</h2>\n<ol class=\"references\">\n")
	n := r.between(6, 12)
	for i := 0; i < n; i++ {
		d.str("<li>")
		d.esc(enLast[r.intn(len(enLast))])
		d.str(", ")
		d.str(enFirst[r.intn(len(enFirst))][:1])
		d.str(". (")
		d.int(r.between(1995, 2024))
		d.str("). ")
		d.esc(r.pick(enTopicTitles))
		d.str(". <em>")
		d.esc(r.pick(enVenuesJ))
		d.str("</em>. ")
		if r.chance(60) {
			d.str(`<a href="https://doi.org/10.`)
			d.int(r.between(1000, 9999))
			d.str("/")
			d.int(r.between(100000, 999999))
			d.str(`">doi</a>`)
		}
		d.str("</li>\n")
	}
	d.str("</ol>\n")
}

// renderPub is a publication's landing page; mirrors use it too.
func renderPub(d *doc) {
	p, pb, s, l := d.p, d.p.pub, d.s, d.l()
	d.head(pb.title)
	d.citationMeta(pb)
	if s.kind == "journal" {
		d.jsonLD(pb)
	}
	d.body()
	d.str("<article class=\"publication\">\n<h1>")
	d.esc(pb.title)
	d.str("</h1>\n<p class=\"authors\">")
	for i, a := range pb.authors {
		if i > 0 {
			d.str(", ")
		}
		if a.person != nil && !a.person.dead() {
			d.a(a.person.key, a.name)
		} else {
			d.esc(a.name)
		}
	}
	d.str("</p>\n<p class=\"venue\"><em>")
	d.esc(pb.venue)
	d.str("</em>")
	if pb.volume > 0 {
		d.str(", ")
		d.int(pb.volume)
		d.str("(")
		d.int(pb.issue)
		d.str(")")
	}
	if pb.first > 0 {
		d.str(", pp. ")
		d.int(pb.first)
		d.str("–")
		d.int(pb.last)
	}
	d.str(". ")
	d.esc(l.published)
	d.str(" ")
	d.date(pb.year, pb.month, pb.day)
	d.str(".</p>\n<p class=\"doi\">DOI: <a href=\"https://doi.org/")
	d.esc(pb.doi)
	d.str("\">https://doi.org/")
	d.esc(pb.doi)
	d.str("</a></p>\n<ul class=\"actions\">\n")
	if pb.pdf != nil {
		d.str("<li>")
		d.str("<a class=\"pdf\" href=\"")
		d.href(pb.pdf.key)
		d.str("\" type=\"application/pdf\">")
		d.esc(l.downloadPDF)
		d.str("</a></li>\n")
	}
	if pb.print != nil {
		d.li(pb.print.key, l.printVersion)
	}
	if pb.alias != nil {
		d.li(pb.alias.key, l.permalink)
	}
	if pb.extURL != "" && (pb.ext == nil || !pb.ext.dead()) {
		d.str("<li><a href=\"")
		d.esc(pb.extURL)
		d.str("\">Repository copy</a></li>\n")
	}
	d.str("</ul>\n")
	if p.canon != nil {
		d.str("<p class=\"mirror-note\">Mirror copy, retrieved ")
		t := s.lastModified(p)
		d.date(t.Year(), int(t.Month()), t.Day())
		d.str(". The original is at ")
		d.a(p.canon.key, s.url(p.canon.key))
		d.str(".</p>\n")
	}
	d.str("<section class=\"abstract\"><h2>")
	d.esc(l.abstract)
	d.str("</h2>\n<p>")
	writeAbstract(d, pb)
	d.str("</p></section>\n<p class=\"keywords\"><strong>")
	d.esc(l.keywords)
	d.str(":</strong> ")
	d.esc(pb.keywordList)
	d.str("</p>\n")
	writePubBody(d, pb)
	d.str("<h2>")
	d.esc(l.cite)
	d.str("</h2>\n<pre class=\"bibtex\">@article{")
	d.str(slugify(pb.title, 2))
	d.int(pb.year)
	d.str(",\n  title = {")
	d.esc(pb.title)
	d.str("},\n  author = {")
	for i, a := range pb.authors {
		if i > 0 {
			d.str(" and ")
		}
		d.esc(a.last)
		d.str(", ")
		d.esc(a.first)
	}
	d.str("},\n  journal = {")
	d.esc(pb.venue)
	d.str("},\n  year = {")
	d.int(pb.year)
	d.str("},\n  doi = {")
	d.esc(pb.doi)
	d.str("}\n}</pre>\n<p class=\"share\">")
	d.esc(l.share)
	d.str(": <a href=\"https://social.example/share?url=")
	writeQueryEscaped(d.b, s.origin)
	writeQueryEscaped(d.b, pb.main.key)
	d.str("\" rel=\"nofollow noopener\">Mastodon</a></p>\n</article>\n")
	d.related(l.related, core(s.pubs), 6)
	d.end()
}

// renderPrint is the printer-friendly copy of a publication: the same text
// in a bare template, with a canonical link to the main page.
func renderPrint(d *doc) {
	pb, l := d.p.pub, d.l()
	d.head(pb.title)
	d.str("<link rel=\"stylesheet\" href=\"/static/css/site.css?v=3\" media=\"print\">\n</head>\n<body class=\"print\" onload=\"window.print()\">\n<h1>")
	d.esc(pb.title)
	d.str("</h1>\n<p>")
	for i, a := range pb.authors {
		if i > 0 {
			d.str("; ")
		}
		d.esc(a.name)
	}
	d.str("</p>\n<p><em>")
	d.esc(pb.venue)
	d.str("</em> (")
	d.int(pb.year)
	d.str("). doi:")
	d.esc(pb.doi)
	d.str("</p>\n<h2>")
	d.esc(l.abstract)
	d.str("</h2>\n<p>")
	writeAbstract(d, pb)
	d.str("</p>\n")
	writePubBody(d, pb)
	d.str("<hr><p>Printed from ")
	d.a(pb.main.key, d.s.url(pb.main.key))
	d.str("</p>\n</body>\n</html>\n")
}

// renderPerson is a person's profile page.
func renderPerson(d *doc) {
	p, pd, s, l := d.p, d.p.person, d.s, d.l()
	d.head(p.title)
	d.body()
	d.str("<article class=\"person\" itemscope itemtype=\"https://schema.org/Person\">\n<h1 itemprop=\"name\">")
	d.esc(p.title)
	d.str("</h1>\n<p class=\"role\">")
	d.esc(pd.role)
	if pd.dept != nil {
		d.str(", ")
		d.a(pd.dept.key, pd.dept.title)
	}
	d.str("</p>\n<dl class=\"contact\">\n<dt>")
	d.esc(l.email)
	d.str("</dt><dd><a href=\"mailto:")
	d.esc(pd.email)
	d.str("\">")
	d.esc(pd.email)
	d.str("</a></dd>\n<dt>")
	d.esc(l.phone)
	d.str("</dt><dd><a href=\"tel:")
	d.str(pd.phone)
	d.str("\">")
	d.str(pd.phone)
	d.str("</a></dd>\n<dt>")
	d.esc(l.office)
	d.str("</dt><dd>")
	d.int(d.r.between(1, 5))
	d.str(".")
	d.int(d.r.between(10, 60))
	d.str("</dd>\n<dt>ORCID</dt><dd><a href=\"https://orcid.org/")
	d.str(pd.orcid)
	d.str("\">")
	d.str(pd.orcid)
	d.str("</a></dd>\n</dl>\n")
	s.text.paragraphs(d.b, &d.r, d.r.between(5, 8))
	d.str("<h2>")
	d.esc(l.interests)
	d.str("</h2>\n<ul class=\"interests\">\n")
	for _, in := range pd.interests {
		d.str("<li>")
		d.esc(in)
		d.str("</li>\n")
	}
	d.str("</ul>\n<h2>")
	d.esc(l.publications)
	d.str("</h2>\n<ol class=\"publications\">\n")
	for _, pb := range d.vis(pd.pubs) {
		if pb.dead() {
			continue
		}
		d.str("<li>")
		d.aBase(pb.key, pb.title)
		d.str(" (")
		d.int(pb.pub.year)
		d.str(")</li>\n")
	}
	d.str("</ol>\n")
	s.text.paragraphs(d.b, &d.r, 3)
	d.str("</article>\n")
	d.related(l.people, s.people, 5)
	d.end()
}

// renderStory is a news article.
func renderStory(d *doc) {
	p, st, s, l := d.p, d.p.story, d.s, d.l()
	d.head(p.title)
	d.str("<meta property=\"article:published_time\" content=\"")
	d.str(itoa(st.year) + "-" + pad2(st.month) + "-" + pad2(st.day))
	d.str("T08:00:00Z\">\n")
	d.body()
	d.str("<article class=\"story\">\n<h1>")
	d.esc(p.title)
	d.str("</h1>\n<p class=\"byline\">")
	d.esc(st.byline)
	d.str(" · <time>")
	d.date(st.year, st.month, st.day)
	d.str("</time></p>\n")
	s.text.paragraphs(d.b, &d.r, d.r.between(9, 14))
	if len(st.tags) > 0 {
		d.str("<p class=\"tags\">")
		for i, t := range st.tags {
			if i > 0 {
				d.str(", ")
			}
			d.esc(t)
		}
		d.str("</p>\n")
	}
	d.str("</article>\n")
	d.related(l.news, core(s.stories), 6)
	d.related(l.research, core(s.pubs), 3)
	d.end()
}

// renderResearch is a research area, group or project page.
func renderResearch(d *doc) {
	p, s, l := d.p, d.s, d.l()
	d.head(p.title)
	d.body()
	d.str("<h1>")
	d.esc(p.title)
	d.str("</h1>\n")
	s.text.paragraphs(d.b, &d.r, d.r.between(6, 9))
	if len(p.items) > 0 {
		d.str("<h2>")
		d.esc(l.people)
		d.str("</h2>\n<ul class=\"members\">\n")
		for _, it := range p.items {
			if it.dead() {
				continue
			}
			d.str("<li>")
			d.aBase(it.key, it.title)
			d.str("</li>\n")
		}
		d.str("</ul>\n")
	}
	if pubs := core(s.pubs); len(pubs) > 0 {
		d.str("<h2>")
		d.esc(l.publications)
		d.str("</h2>\n<ul>\n")
		for i := 0; i < 8; i++ {
			pb := pubs[d.r.intn(len(pubs))]
			if pb.dead() {
				continue
			}
			d.str("<li>")
			d.aBase(pb.key, pb.title)
			d.str("</li>\n")
		}
		d.str("</ul>\n")
	}
	s.text.paragraphs(d.b, &d.r, 2)
	d.end()
}

// renderEvent is one event of a calendar.
func renderEvent(d *doc) {
	p, s := d.p, d.s
	d.head(p.title)
	d.body()
	d.str("<h1>")
	d.esc(p.title)
	d.str("</h1>\n<p class=\"when\">")
	m := p.num
	d.date(m/12, m%12+1, d.r.between(1, 28))
	d.str(", ")
	d.int(d.r.between(9, 18))
	d.str(":00</p>\n")
	s.text.paragraphs(d.b, &d.r, 6)
	d.str("<p>")
	d.a(calendarKey(p.parent.base, m), "Calendar")
	d.str("</p>\n")
	d.related(d.l().people, s.people, 4)
	d.end()
}

// calendarKey is the key of the calendar view of month index m
// (year*12 + month-1).
func calendarKey(base string, m int) string {
	return base + "?month=" + pad4(m/12) + "-" + pad2(m%12+1)
}

func pad4(n int) string {
	s := itoa(n)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

// renderCalendar is the events calendar trap: every month links to the
// previous and the next one, forever.
func renderCalendar(d *doc) {
	p, s, l := d.p, d.s, d.l()
	m := p.num
	month := time.Month(m%12 + 1).String()
	d.head(l.events + " – " + month + " " + itoa(m/12))
	d.body()
	d.str("<h1>")
	d.esc(l.events)
	d.str(" – ")
	d.str(month)
	d.str(" ")
	d.int(m / 12)
	d.str("</h1>\n<nav class=\"months\">")
	if m > 0 {
		d.aRel(calendarKey(p.base, m-1), "prev", "« "+l.prev)
		d.str(" | ")
	}
	d.aRel(calendarKey(p.base, m+1), "next", l.next+" »")
	d.str("</nav>\n<table class=\"calendar\"><tr><th>Mon</th><th>Tue</th><th>Wed</th><th>Thu</th><th>Fri</th><th>Sat</th><th>Sun</th></tr>\n<tr>")
	for day := 1; day <= 28; day++ {
		d.str("<td>")
		d.int(day)
		d.str("</td>")
		if day%7 == 0 {
			d.str("</tr>\n<tr>")
		}
	}
	d.str("</tr></table>\n")
	evs := p.parent.items
	any := false
	d.str("<ul class=\"events\">\n")
	for _, e := range evs {
		if e.num == m {
			d.li(e.key, e.title)
			any = true
		}
	}
	d.str("</ul>\n")
	if !any {
		d.str("<p>")
		d.esc(l.noEvents)
		d.str("</p>\n")
	}
	s.text.paragraphs(d.b, &d.r, 4)
	d.end()
}

// renderLogin is a login form (linked with rel=nofollow).
func renderLogin(d *doc) {
	d.head(d.p.title)
	d.str("<meta name=\"robots\" content=\"noindex\">\n")
	d.body()
	d.str("<h1>")
	d.esc(d.p.title)
	d.str("</h1>\n<form method=\"post\" action=\"/login\"><label>User name <input name=\"user\"></label><label>Password <input name=\"password\" type=\"password\"></label><input type=\"hidden\" name=\"csrf\" value=\"")
	d.int(d.r.between(100000, 999999))
	d.str("\"><button>Log in</button></form>\n<p>")
	d.s.text.sentence(d.b, &d.r)
	d.str("</p>\n")
	d.end()
}

// writeJSONString writes s as a JSON string, escaping < so that it can sit
// inside a <script> element.
func writeJSONString(b interface {
	WriteByte(byte) error
	WriteString(string) (int, error)
}, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// writeQueryEscaped percent-encodes s for a query value.
func writeQueryEscaped(b *bytes.Buffer, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
}
