package testweb

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// PreprintHost is the host of the preprint server.
const PreprintHost = "preprints.open-archive.test"

// preprint is one paper on the preprint server.
type preprint struct {
	id      string // "2003.01234"
	title   string
	authors []string // as the server writes them
	names   []string // authors as "First Last" (or "F. Last"), for the PDF
	year    int
	month   int
	day     int
	src     *pubData // the published paper it is a version of; nil for a paper found only here
	srcURL  string   // the URL of src's landing page, which it links to (and which therefore stays)
	seed    uint64   // seeds its abstract: src's text as first published
	lookFor string   // why it exists, for people reading test output
	pb      *pubData // its own record (src's copy, or a paper of its own)
}

// buildPreprints returns an arXiv-like preprint server holding versions of
// some of the web's published papers, with the metadata preprints have:
// titles in sentence case or without their subtitle, authors as "Last,
// First" or "F. Last", a date up to a year before publication, an arXiv
// identifier (so an arXiv DOI, not the published one) and a PDF whose
// information dictionary has a creation date. Beside them are papers that
// only look like published ones and are distinct works: the same title by
// another first author, the same main title with another subtitle, the
// same title by the same author four years later. Each has a landing page
// at /abs/ID with citation_* tags and a PDF at /pdf/ID.pdf.
func (w *Web) buildPreprints() *site {
	s := newSite(w, PreprintHost, "Open Archive Preprints", "preprints", true)
	s.notes = "a preprint server: versions of published papers with preprint metadata (sentence case, dropped subtitles, \"Last, F.\" names, an earlier year, an arXiv DOI), and look-alike papers that are distinct works"
	var srcs []*pubData
	srcURL := map[*pubData]string{}
	for _, o := range w.sites {
		if o.host == RepositoryHost || o.host == "library.northfield-university.test" {
			continue
		}
		for i, p := range o.pubs {
			if i%3 == 0 && p.pub != nil && p.pub.lang == "en" {
				srcs = append(srcs, p.pub)
				srcURL[p.pub] = o.url(p.key)
			}
		}
	}
	var pps []*preprint
	n := 0
	add := func(pp *preprint) {
		n++
		pp.id = fmt.Sprintf("%02d%02d.%05d", pp.year%100, pp.month, 10000+n*37)
		pps = append(pps, pp)
	}
	for i, src := range srcs {
		src.main.pinned = true
		pp := &preprint{src: src, srcURL: srcURL[src], seed: src.textSeed, year: src.year, month: max(1, src.month-2), day: src.day, lookFor: "a preprint of " + src.main.key}
		if i%4 == 3 {
			pp.year, pp.month = src.year-1, 11
		}
		pp.title = src.title
		switch i % 3 {
		case 1:
			pp.title = src.title[:1] + strings.ToLower(src.title[1:])
		case 2:
			if j := strings.Index(src.title, ": "); j > 0 {
				pp.title = src.title[:j]
			}
		}
		for _, a := range src.authors {
			pp.names = append(pp.names, a.name)
			switch {
			case i%5 == 0:
				pp.authors = append(pp.authors, a.last+", "+string([]rune(a.first)[:1])+".")
			case i%2 == 0:
				pp.authors = append(pp.authors, a.last+", "+a.first)
			default:
				pp.authors = append(pp.authors, a.name)
			}
		}
		add(pp)
		if i%4 != 1 {
			continue
		}
		// Look-alikes: distinct papers.
		other := []string{"Quentin Abernathy", "Lucia Ferrante", "Hamid Rostami", "Greta Solberg"}[i%4]
		f, l, _ := strings.Cut(other, " ")
		la := &preprint{title: src.title, authors: []string{l + ", " + f}, names: []string{other}, year: src.year, month: src.month, day: src.day,
			lookFor: "the title of " + src.main.key + " by another first author"}
		add(la)
		// A copy of src without its subtitle would match this one as well
		// as src: src's preprint keeps its subtitle, and src is no
		// deposit of the repository.
		if j := strings.Index(src.title, ": "); j > 0 && i%3 != 2 && !strings.Contains(srcURL[src], "northfield") {
			sub := &preprint{title: src.title[:j] + ": A Replication Study", authors: pp.authors, names: pp.names, year: src.year, month: src.month, day: src.day,
				lookFor: "the main title of " + src.main.key + " with another subtitle"}
			add(sub)
		}
		later := &preprint{title: src.title, authors: pp.authors, names: pp.names, year: src.year + 4, month: 6, day: 1,
			lookFor: "the title and authors of " + src.main.key + " four years later"}
		add(later)
	}
	serve := func(_ *Web, _ *site, p *page, rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", p.ctype)
		var b bytes.Buffer
		switch {
		case p.key == "/":
			writePreprintHome(&b, pps)
		case strings.HasPrefix(p.key, "/abs/"):
			writePreprintAbs(&b, s, p.pub.preprint)
		default:
			writePreprintPDF(&b, p.pub.preprint)
		}
		w.serveFixed(rw, r, b.Bytes())
	}
	html := "text/html; charset=utf-8"
	s.home = s.add(&page{key: "/", kind: "home", title: s.name, ctype: html, serve: serve})
	for _, pp := range pps {
		pb := &pubData{title: pp.title, year: pp.year, month: pp.month, day: pp.day, venue: "arXiv", venueKind: "report",
			lang: "en", doi: "10.48550/arxiv." + pp.id, of: pp.src, preprint: pp}
		if pp.src != nil {
			pb.textSeed = pp.src.textSeed
		}
		// The record is what the landing page states: "Last, First" and
		// "Last, F." read as "First Last" and "F. Last".
		pp.names = nil
		for _, a := range pp.authors {
			l, f, ok := strings.Cut(a, ", ")
			if !ok {
				f, l, _ = strings.Cut(a, " ")
			}
			pb.authors = append(pb.authors, author{name: f + " " + l, first: f, last: l})
			pp.names = append(pp.names, f+" "+l)
		}
		pp.pb = pb
		pb.main = s.add(&page{key: "/abs/" + pp.id, kind: "publication", academic: true, title: pp.title, ctype: html, serve: serve, pub: pb, note: pp.lookFor})
		pb.pdf = s.add(&page{key: "/pdf/" + pp.id + ".pdf", kind: "pdf", academic: true, title: pp.title, ctype: "application/pdf", serve: serve, pub: pb, note: pp.lookFor})
		s.pubs = append(s.pubs, pb.main)
	}
	s.addRobots(newRobots("allow-all", s.name, []robotsGroup{{agents: []string{"*"}}}, nil))
	return s
}

func writePreprintHome(b *bytes.Buffer, pps []*preprint) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Open Archive Preprints</title></head><body>\n<h1>Open Archive Preprints</h1>\n<ul>\n")
	for _, pp := range pps {
		b.WriteString("<li><a href=\"/abs/" + pp.id + "\">")
		writeEsc(b, pp.title)
		b.WriteString("</a></li>\n")
	}
	b.WriteString("</ul></body></html>\n")
}

func writePreprintAbs(b *bytes.Buffer, s *site, pp *preprint) {
	meta := func(name, content string) {
		b.WriteString("<meta name=\"" + name + "\" content=\"")
		writeEsc(b, content)
		b.WriteString("\">\n")
	}
	pdf := s.origin + "/pdf/" + pp.id + ".pdf"
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>[" + pp.id + "] ")
	writeEsc(b, pp.title)
	b.WriteString("</title>\n")
	meta("citation_title", pp.title)
	for _, a := range pp.authors {
		meta("citation_author", a)
	}
	meta("citation_date", fmt.Sprintf("%d/%02d/%02d", pp.year, pp.month, pp.day))
	meta("citation_arxiv_id", pp.id)
	meta("citation_pdf_url", pdf)
	b.WriteString("</head><body>\n<h1>")
	writeEsc(b, pp.title)
	b.WriteString("</h1>\n<p class=\"authors\">")
	writeEsc(b, strings.Join(pp.names, ", "))
	b.WriteString("</p>\n<p>Submitted " + fmt.Sprintf("%d-%02d-%02d", pp.year, pp.month, pp.day) + ".</p>\n<blockquote class=\"abstract\">")
	if pp.src != nil {
		r := rng{s: pp.seed}
		var t bytes.Buffer
		enAcademic.paragraph(&t, &r, 6)
		writeEsc(b, t.String())
	} else {
		writeEsc(b, "We study "+strings.ToLower(pp.title)+".")
	}
	b.WriteString("</blockquote>\n<p><a href=\"/pdf/" + pp.id + ".pdf\">PDF</a></p>\n")
	if pp.srcURL != "" {
		b.WriteString("<p>Published version: <a href=\"" + pp.srcURL + "\">")
		writeEsc(b, pp.src.venue)
		b.WriteString("</a></p>\n")
	}
	b.WriteString("<p><a href=\"/\">Open Archive Preprints</a></p>\n</body></html>\n")
}

func writePreprintPDF(b *bytes.Buffer, pp *preprint) {
	var lines []pdfLine
	for _, l := range wrap(foldASCII(pp.title), 60) {
		lines = append(lines, pdfLine{font: "F1", size: 16, text: l})
	}
	lines = append(lines, pdfLine{font: "F2", size: 11, text: foldASCII(strings.Join(pp.names, ", "))})
	lines = append(lines, pdfLine{font: "F2", size: 10, text: fmt.Sprintf("Preprint, %d %s %d. doi:10.48550/arXiv.%s", pp.day, monthAbbr[pp.month-1], pp.year, pp.id)})
	lines = append(lines, pdfLine{font: "F2", size: 10, text: "arXiv:" + pp.id + " [cs.DL]"})
	lines = append(lines, pdfLine{font: "F1", size: 12, text: "Abstract"})
	var abs bytes.Buffer
	ar := rng{s: pp.seed ^ 0x9e3779b97f4a7c15}
	enAcademic.paragraph(&abs, &ar, 6)
	for _, l := range wrap(foldASCII("We study "+strings.ToLower(pp.title)+". "+abs.String()), 95) {
		lines = append(lines, pdfLine{font: "F2", size: 10, text: l})
	}
	writePDFDated(b, foldASCII(pp.title), foldASCII(strings.Join(pp.names, "; ")), fmt.Sprintf("D:%d%02d%02d120000Z", pp.year, pp.month, pp.day), lines)
}

var monthAbbr = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// serveFixed writes a body that never changes (the repository's and the
// preprint server's pages) with an ETag and a Last-Modified, answering
// conditional requests with 304 as the other pages of the web do.
func (w *Web) serveFixed(rw http.ResponseWriter, r *http.Request, body []byte) {
	rw.Header().Set("ETag", `"`+strconv.FormatUint(hash64(0, string(body)), 16)+`"`)
	http.ServeContent(rw, r, "", w.base, bytes.NewReader(body))
}
