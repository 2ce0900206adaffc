package testweb

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// doc is the state of one response being generated.
type doc struct {
	w   *Web
	s   *site
	p   *page
	b   *bytes.Buffer
	r   rng
	sid string // session id woven into every internal link (shop)
}

// labels are the words the templates need, per language.
type labels struct {
	home, publications, people, news, contact, about, research, events string
	abstract, authors, keywords, downloadPDF, related, next, prev      string
	page, printVersion, cite, search, skip, published, readMore        string
	lastUpdated, rights, email, phone, office, interests, noEvents     string
	sections, references, share, permalink, accessibility, privacy     string
}

var enLabels = labels{
	home: "Home", publications: "Publications", people: "People", news: "News",
	contact: "Contact", about: "About", research: "Research", events: "Events",
	abstract: "Abstract", authors: "Authors", keywords: "Keywords", downloadPDF: "Download PDF",
	related: "Related", next: "Next", prev: "Previous", page: "Page",
	printVersion: "Print version", cite: "Cite this", search: "Search", skip: "Skip to content",
	published: "Published", readMore: "Read more", lastUpdated: "Last updated",
	rights: "All rights reserved.", email: "Email", phone: "Phone", office: "Office",
	interests: "Research interests", noEvents: "No events scheduled this month.",
	references: "References", share: "Share", permalink: "Permanent link",
	accessibility: "Accessibility", privacy: "Privacy",
}

var trLabels = labels{
	home: "Ana Sayfa", publications: "Yayınlar", people: "Akademik Kadro", news: "Haberler",
	contact: "İletişim", about: "Hakkımızda", research: "Araştırma", events: "Etkinlikler",
	abstract: "Özet", authors: "Yazarlar", keywords: "Anahtar Kelimeler", downloadPDF: "PDF İndir",
	related: "İlgili Yayınlar", next: "Sonraki", prev: "Önceki", page: "Sayfa",
	printVersion: "Yazdırılabilir sürüm", cite: "Kaynak göster", search: "Ara", skip: "İçeriğe geç",
	published: "Yayın tarihi", readMore: "Devamını oku", lastUpdated: "Son güncelleme",
	rights: "Tüm hakları saklıdır.", email: "E-posta", phone: "Telefon", office: "Ofis",
	interests: "Çalışma alanları", noEvents: "Bu ay etkinlik yok.",
	references: "Kaynaklar", share: "Paylaş", permalink: "Kalıcı bağlantı",
	accessibility: "Erişilebilirlik", privacy: "Gizlilik",
}

func (d *doc) l() *labels {
	if d.s.lang == "tr" {
		return &trLabels
	}
	return &enLabels
}

func (d *doc) str(s string) { d.b.WriteString(s) }

// int writes n in decimal without allocating.
func (d *doc) int(n int) {
	var buf [20]byte
	d.b.Write(strconv.AppendInt(buf[:0], int64(n), 10))
}

// esc writes s escaped for HTML text and attribute values.
func (d *doc) esc(s string) { writeEsc(d.b, s) }

func writeEsc(b *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = i + 1
	}
	b.WriteString(s[last:])
}

// href writes an internal link target (already escaped for URLs) as an
// attribute value, adding the session id on sites that use them.
func (d *doc) href(target string) {
	d.esc(target)
	if d.sid == "" || !isInternal(target) {
		return
	}
	// Session ids go into the path for plain links and into the query for
	// links that have one: both forms real servers produce.
	if strings.IndexByte(target, '?') >= 0 {
		d.str("&amp;PHPSESSID=")
		d.str(d.sid)
	} else if len(target)%2 == 0 {
		d.str(";jsessionid=")
		d.str(d.sid)
	} else {
		d.str("?PHPSESSID=")
		d.str(d.sid)
	}
}

func isInternal(target string) bool {
	return len(target) > 0 && target[0] == '/' && (len(target) == 1 || target[1] != '/')
}

// a writes <a href="target">text</a>.
func (d *doc) a(target, text string) {
	d.str(`<a href="`)
	d.href(target)
	d.str(`">`)
	d.esc(text)
	d.str("</a>")
}

// aRel writes a link with a rel attribute.
func (d *doc) aRel(target, rel, text string) {
	d.str(`<a href="`)
	d.href(target)
	d.str(`" rel="`)
	d.str(rel)
	d.str(`">`)
	d.esc(text)
	d.str("</a>")
}

// aTracked writes an internal link that carries tracking parameters on
// sites that add them, about one time in three.
func (d *doc) aTracked(target, text string) {
	if !d.s.tracking || !d.r.chance(35) {
		d.a(target, text)
		return
	}
	d.str(`<a href="`)
	d.href(target)
	if strings.IndexByte(target, '?') >= 0 {
		d.str("&amp;")
	} else {
		d.str("?")
	}
	switch d.r.intn(3) {
	case 0:
		d.str("utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=")
		d.int(d.r.between(100, 999))
	case 1:
		d.str("utm_source=homepage&amp;utm_medium=web")
	default:
		d.str("fbclid=IwAR")
		d.int(d.r.between(100, 999))
		d.str("xYz")
		d.int(d.r.between(100, 999))
	}
	d.str(`">`)
	d.esc(text)
	d.str("</a>")
}

// aBase writes a link to key; on pages with a <base href>, relative to
// the base, so that only a client honouring <base> resolves it right.
func (d *doc) aBase(key, text string) {
	bp := strings.TrimPrefix(d.p.baseHref, d.s.origin)
	if bp == "" || !strings.HasPrefix(key, bp) || len(key) == len(bp) {
		d.a(key, text)
		return
	}
	d.a(key[len(bp):], text)
}

// li writes <li><a href="target">text</a></li>.
func (d *doc) li(target, text string) {
	d.str("<li>")
	d.a(target, text)
	d.str("</li>\n")
}

// date writes y-m-d in the site's style.
func (d *doc) date(y, m, day int) {
	if d.s.lang == "tr" {
		d.int(day)
		d.str(".")
		d.str(pad2(m))
		d.str(".")
		d.int(y)
		return
	}
	d.int(day)
	d.str(" ")
	d.str(time.Month(m).String())
	d.str(" ")
	d.int(y)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + itoa(n)
	}
	return itoa(n)
}

const inlineCSS = `<style>
:root{--brand:#1d3557;--accent:#e63946;--muted:#6c757d}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#212529}
.skip{position:absolute;left:-9999px}.skip:focus{left:1rem;top:1rem}
header.site-header{background:var(--brand);color:#fff;padding:.5rem 1rem}
header.site-header a{color:#fff;text-decoration:none}
nav.main ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0}
.breadcrumbs{font-size:.875rem;color:var(--muted);padding:.5rem 1rem}
main{max-width:60rem;margin:0 auto;padding:1rem}
footer{background:#f1f3f5;padding:2rem 1rem;font-size:.875rem}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:1rem}
</style>
`

// head opens the document up to and including <title>; templates may add
// more head elements before calling body.
func (d *doc) head(title string) {
	p := d.p
	if p.charset == "" && p.declare == declBOM {
		d.str("\xef\xbb\xbf")
	}
	d.str("<!DOCTYPE html>\n<html lang=\"")
	d.str(d.s.lang)
	d.str("\">\n<head>\n")
	switch {
	case p.declare == declHTTPEquiv:
		d.str(`<meta http-equiv="Content-Type" content="text/html; charset=`)
		d.str(p.charset)
		d.str("\">\n")
	case p.charset != "":
		d.str(`<meta charset="`)
		d.str(p.charset)
		d.str("\">\n")
	default:
		d.str("<meta charset=\"utf-8\">\n")
	}
	if p.baseHref != "" {
		d.str(`<base href="`)
		d.esc(p.baseHref)
		d.str("\">\n")
	}
	d.str("<title>")
	d.esc(title)
	if title != d.s.name {
		d.str(" | ")
		d.esc(d.s.name)
	}
	d.str("</title>\n")
	d.str(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	d.str(`<meta name="description" content="`)
	d.esc(title)
	d.str(" - ")
	d.esc(d.s.name)
	d.str("\">\n")
	if p.metaRobots != "" {
		d.str(`<meta name="robots" content="`)
		d.str(p.metaRobots)
		d.str("\">\n")
	}
	d.str(`<meta property="og:site_name" content="`)
	d.esc(d.s.name)
	d.str("\">\n<meta property=\"og:title\" content=\"")
	d.esc(title)
	d.str("\">\n<meta property=\"og:url\" content=\"")
	d.esc(d.s.origin)
	d.esc(d.canonKey())
	d.str("\">\n")
	if d.s.canonicalTags || p.canon != nil {
		d.str(`<link rel="canonical" href="`)
		d.esc(d.s.origin)
		d.esc(d.canonKey())
		d.str("\">\n")
	}
	d.str(`<link rel="stylesheet" href="/static/css/site.css?v=3">` + "\n")
	d.str(`<link rel="icon" href="/favicon.ico">` + "\n")
	d.str(`<script src="/static/js/site.js" defer></script>` + "\n")
	d.str(inlineCSS)
}

// canonKey is the key of the page's primary copy.
func (d *doc) canonKey() string {
	if d.p.canon != nil {
		return d.p.canon.key
	}
	return d.p.key
}

// body closes the head and writes the site header, navigation and
// breadcrumbs, leaving <main> open.
func (d *doc) body() {
	l := d.l()
	d.str("</head>\n<body class=\"")
	d.str(d.p.kind)
	d.str("\">\n<a class=\"skip\" href=\"#main\">")
	d.esc(l.skip)
	d.str("</a>\n<header class=\"site-header\">\n<div class=\"topbar\"><ul>")
	for i, f := range d.s.footer {
		if i >= 4 {
			break
		}
		d.str("<li>")
		d.a(f.href, f.label)
		d.str("</li>")
	}
	d.str("</ul></div>\n<a class=\"logo\" href=\"")
	d.href("/")
	d.str("\"><img src=\"/static/img/logo.png\" alt=\"")
	d.esc(d.s.name)
	d.str("\" width=\"180\" height=\"48\"></a>\n")
	d.str("<form class=\"search\" action=\"/search\" method=\"get\"><label for=\"q\">")
	d.esc(l.search)
	d.str("</label><input id=\"q\" name=\"q\" type=\"search\"><button type=\"submit\">")
	d.esc(l.search)
	d.str("</button></form>\n<nav class=\"main\" aria-label=\"Main\"><ul>\n")
	for _, n := range d.s.nav {
		d.str("<li>")
		if n.rel != "" {
			d.aRel(n.href, n.rel, n.label)
		} else {
			d.a(n.href, n.label)
		}
		d.str("</li>\n")
	}
	d.str("</ul></nav>\n</header>\n<nav class=\"breadcrumbs\" aria-label=\"Breadcrumb\">")
	d.a("/", l.home)
	d.crumbs(d.p.parent, 0)
	if d.p != d.s.home {
		d.str(" › <span>")
		d.esc(d.p.title)
		d.str("</span>")
	}
	d.str("</nav>\n<main id=\"main\">\n")
}

func (d *doc) crumbs(p *page, depth int) {
	if p == nil || p == d.s.home || depth > 4 {
		return
	}
	d.crumbs(p.parent, depth+1)
	d.str(" › ")
	d.a(p.key, p.title)
}

// end closes <main> and writes the footer.
func (d *doc) end() {
	l := d.l()
	d.str("</main>\n<div class=\"cookie-banner\" role=\"dialog\"><p>We use cookies to understand how our website is used and to improve your experience. Some cookies are necessary for the site to work; others help us with analytics. You can change your choice at any time.</p><button type=\"button\">Accept all</button> <button type=\"button\">Necessary only</button></div>\n<footer>\n<div class=\"cols\">\n<div><h2>")
	d.esc(d.s.name)
	d.str("</h2><p>")
	d.s.text.sentence(d.b, &d.r)
	d.str(" ")
	d.s.text.sentence(d.b, &d.r)
	d.str("</p>\n<address>")
	d.esc(d.s.name)
	d.str("<br>")
	d.str(itoa(1 + int(fnvString(fnvOffset, d.s.host)%200)))
	d.str(" College Road<br>Postal code ")
	d.str(itoa(10000 + int(fnvString(fnvOffset, d.s.host)%89999)))
	d.str("</address></div>\n<div><h2>Explore</h2><ul>\n")
	for _, n := range d.s.nav {
		if n.rel != "" {
			continue
		}
		d.str("<li>")
		d.a(n.href, n.label)
		d.str("</li>\n")
	}
	d.str("</ul></div>\n<div><h2>Information</h2><ul>\n")
	for _, f := range d.s.footer {
		d.str("<li>")
		if f.rel != "" {
			d.aRel(f.href, f.rel, f.label)
		} else {
			d.a(f.href, f.label)
		}
		d.str("</li>\n")
	}
	d.str("</ul></div>\n<div><ul class=\"social\">\n")
	d.str(`<li><a href="https://social.example/@`)
	d.str(d.s.slug)
	d.str(`" rel="me noopener">Mastodon</a></li>` + "\n")
	d.str(`<li><a href="https://video.example/c/`)
	d.str(d.s.slug)
	d.str(`">Video channel</a></li>` + "\n")
	d.str(`<li><a href="mailto:webmaster@`)
	d.str(d.s.host)
	d.str(`">webmaster@`)
	d.str(d.s.host)
	d.str("</a></li>\n</ul></div>\n</div>\n<p class=\"updated\">")
	d.esc(l.lastUpdated)
	d.str(": ")
	canon := d.p
	if canon.canon != nil {
		canon = canon.canon
	}
	t := d.s.lastModified(canon)
	d.date(t.Year(), int(t.Month()), t.Day())
	d.str(". © ")
	d.int(d.w.base.Year())
	d.str(" ")
	d.esc(d.s.name)
	d.str(". ")
	d.esc(l.rights)
	d.str("</p>\n</footer>\n<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config','G-TESTWEB');</script>\n</body>\n</html>\n")
}

// vis returns the members of list the current version of the page can
// pick from: those born by then (removed ones included: callers skip them,
// so that a removal changes only the pages that linked to it).
func (d *doc) vis(list []*page) []*page { return visible(list, d.p.version) }

// related writes an aside with n links to random pages of list, skipping
// the current page and removed ones.
func (d *doc) related(title string, list []*page, n int) {
	list = d.vis(list)
	if len(list) == 0 {
		return
	}
	d.str("<aside class=\"related\"><h2>")
	d.esc(title)
	d.str("</h2>\n<ul>\n")
	for i := 0; i < n; i++ {
		p := list[d.r.intn(len(list))]
		if p == d.p || p.dead() {
			continue
		}
		d.str("<li>")
		d.aTracked(p.key, p.title)
		d.str("</li>\n")
	}
	d.str("</ul></aside>\n")
}
