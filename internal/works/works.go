package works

import (
	"strings"
)

// Kind is what a copy of a work is.
type Kind string

// Copy kinds.
const (
	KindLanding    Kind = "landing"    // a publisher's or journal's page of the work
	KindPDF        Kind = "pdf"        // the full text as PDF
	KindRepository Kind = "repository" // an institutional repository's record
	KindPreprint   Kind = "preprint"   // a preprint server's page
	KindOther      Kind = "other"      // any other page describing the work
)

// kindRank orders copies of equal source: the publisher's page first.
var kindRank = map[Kind]int{KindLanding: 0, KindRepository: 1, KindPDF: 2, KindPreprint: 3, KindOther: 4}

// Source is where a copy's metadata came from, most trusted first.
type Source string

// Sources, in order of trust.
const (
	SourceCitation   Source = "citation"   // Highwire Press citation_* meta tags
	SourceJSONLD     Source = "jsonld"     // schema.org in JSON-LD or microdata
	SourceDublinCore Source = "dublincore" // Dublin Core, DCTERMS or PRISM tags
	SourcePDF        Source = "pdf"        // a PDF's information dictionary
	SourceText       Source = "text"       // guesses from the text (a PDF's heading, Open Graph, the page title)
)

var sourceRank = map[Source]int{SourceCitation: 0, SourceJSONLD: 1, SourceDublinCore: 2, SourcePDF: 3, SourceText: 4}

// Rank is the source's place in the order of trust, 0 the most trusted.
func (s Source) Rank() int {
	if r, ok := sourceRank[s]; ok {
		return r
	}
	return len(sourceRank)
}

// Meta is the scholarly metadata of a recorded page, as the extractor
// gives it (crawl.Metadata's fields that works read).
type Meta struct {
	Title                          string
	Authors                        []string
	Date                           string
	Year                           int
	Venue, Volume, Issue           string
	FirstPage, LastPage, Publisher string
	DOI, PDFURL, Abstract, Type    string
	Keywords, Sources              []string
}

// Page is what a store knows of a recorded page.
type Page struct {
	ID          int64
	URL         string
	ContentType string
	Status      int
	Blocked     bool // a soft block: a login page or refusal served with 200
	Meta        *Meta
}

// Copy is one recorded page that is a copy of a work, with the metadata
// it states.
type Copy struct {
	PageID     int64    `json:"page_id"`
	URL        string   `json:"url"`
	Record     string   `json:"record,omitempty"` // the OAI identifier of a harvested record (AddRecord)
	Kind       Kind     `json:"kind"`
	OpenAccess bool     `json:"open_access,omitempty"`
	Source     Source   `json:"source"`
	Type       string   `json:"type,omitempty"`
	Title      string   `json:"title,omitempty"`
	Authors    []string `json:"authors,omitempty"`
	Year       int      `json:"year,omitempty"`
	Date       string   `json:"date,omitempty"`
	Venue      string   `json:"venue,omitempty"`
	Volume     string   `json:"volume,omitempty"`
	Issue      string   `json:"issue,omitempty"`
	FirstPage  string   `json:"first_page,omitempty"`
	LastPage   string   `json:"last_page,omitempty"`
	Publisher  string   `json:"publisher,omitempty"`
	DOI        string   `json:"doi,omitempty"`
	PDFURL     string   `json:"pdf_url,omitempty"`
	Abstract   string   `json:"abstract,omitempty"`
	Keywords   []string `json:"keywords,omitempty"`
}

// workTypes are the page types (scholar.Classify) of pages that describe
// one work.
var workTypes = map[string]bool{"article": true, "preprint": true, "thesis": true, "proceedings": true, "book": true, "dataset": true}

// CopyOf returns the copy a recorded page is, or false when the page is no
// copy of a work: it was not a 2xx answer, was a soft block, has no
// metadata or title, or is not a work (an HTML page of another type than
// article, preprint, thesis, proceedings, book or dataset; a PDF with
// neither such a type nor authors or a DOI).
func CopyOf(p Page) (Copy, bool) {
	m := p.Meta
	if m == nil || p.Status < 200 || p.Status > 299 || p.Blocked || strings.TrimSpace(m.Title) == "" {
		return Copy{}, false
	}
	pdf := isPDF(p.ContentType, p.URL)
	if !workTypes[m.Type] && !(pdf && (len(m.Authors) > 0 || m.DOI != "")) {
		return Copy{}, false
	}
	c := Copy{
		PageID: p.ID, URL: p.URL, Type: m.Type, Title: cut(m.Title, MaxText), Authors: m.Authors, Year: m.Year, Date: m.Date,
		Venue: m.Venue, Volume: m.Volume, Issue: m.Issue, FirstPage: m.FirstPage, LastPage: m.LastPage,
		Publisher: m.Publisher, DOI: NormalizeDOI(m.DOI), Abstract: m.Abstract, Keywords: m.Keywords,
	}
	if len(c.Authors) > maxAuthors {
		c.Authors = c.Authors[:maxAuthors]
	}
	if !pdf {
		c.PDFURL = m.PDFURL
	}
	c.Source = sourceOf(pdf, m)
	c.Kind = kindOf(pdf, p.URL, m)
	// A PDF answered 2xx and not a block is reachable without a login.
	c.OpenAccess = pdf
	return c, true
}

const maxAuthors = 100

func isPDF(ctype, u string) bool {
	ct := strings.ToLower(ctype)
	if strings.Contains(ct, "pdf") {
		return true
	}
	if ct != "" {
		return false
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return strings.HasSuffix(strings.ToLower(u), ".pdf")
}

// sourceOf is the most trusted vocabulary of a copy's metadata.
func sourceOf(pdf bool, m *Meta) Source {
	if pdf {
		if len(m.Authors) > 0 || m.DOI != "" {
			return SourcePDF
		}
		return SourceText
	}
	for _, s := range m.Sources {
		switch s {
		case "highwire":
			return SourceCitation
		case "jsonld", "microdata":
			return SourceJSONLD
		case "dublincore", "prism":
			return SourceDublinCore
		}
	}
	return SourceText
}

// repositoryPaths are path segments of repository software (DSpace,
// EPrints, Invenio, Fedora, HAL).
var repositoryPaths = []string{"/handle/", "/bitstream/", "/eprint/", "/eprints/", "/record/", "/records/", "/items/", "/xmlui/", "/jspui/", "/hal-"}

// repositoryHosts start the host names of repositories.
var repositoryHosts = []string{"repository.", "repositorio.", "eprints.", "dspace.", "hal.", "zenodo.", "openaccess.", "acikerisim.", "depot.", "digital.", "scholarworks."}

// preprintHosts are in the host names of preprint servers.
var preprintHosts = []string{"arxiv", "biorxiv", "medrxiv", "ssrn", "preprint", "osf.io", "researchsquare"}

// kindOf tells a copy's kind from its URL and metadata.
func kindOf(pdf bool, u string, m *Meta) Kind {
	if pdf {
		return KindPDF
	}
	host, path := splitURL(u)
	venue := strings.ToLower(m.Venue)
	if m.Type == "preprint" || strings.Contains(venue, "arxiv") || strings.Contains(venue, "preprint") {
		return KindPreprint
	}
	for _, h := range preprintHosts {
		if strings.Contains(host, h) {
			return KindPreprint
		}
	}
	for _, h := range repositoryHosts {
		if strings.HasPrefix(host, h) {
			return KindRepository
		}
	}
	for _, p := range repositoryPaths {
		if strings.Contains(path, p) {
			return KindRepository
		}
	}
	if workTypes[m.Type] {
		return KindLanding
	}
	return KindOther
}

// splitURL returns the lower-cased host and the path of an absolute URL.
func splitURL(u string) (host, path string) {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "", u
	}
	i := strings.IndexAny(rest, "/?#")
	if i < 0 {
		return strings.ToLower(rest), "/"
	}
	return strings.ToLower(rest[:i]), rest[i:]
}

// minMatchTitle is the shortest main title, in bytes, that matches alone
// (with the first author and year); a shorter one ("Introduction") must
// match whole, subtitle and all.
const minMatchTitle = 16

// prepared is a copy with what matching reads of it normalized once.
type prepared struct {
	c                *Copy
	main, sub, whole string // SplitTitle and NormalizeTitle of the title
	first            Person // the first author, if any
	hasFirst         bool
}

func prep(c *Copy) prepared {
	p := prepared{c: c}
	p.main, p.sub = SplitTitle(c.Title)
	p.whole = NormalizeTitle(c.Title)
	if len(c.Authors) > 0 {
		p.first, p.hasFirst = ParsePerson(c.Authors[0]), true
	}
	return p
}

// Match reports whether two copies are copies of one work, looking at the
// two alone:
//
//   - they have the same DOI; or
//   - one is a PDF the other names as its full text (citation_pdf_url, or
//     a work's only PDF link) and their titles agree where both have one
//     (one main title begins the other); or
//   - their main titles (SplitTitle) are the same, at least 16 bytes long
//     (else their whole titles are), their subtitles do not differ where
//     both have one, their first authors are the same person (SamePerson:
//     "Sato, J." and "Jamal Sato"), and their years are at most one apart
//     where both are known (a preprint a year before its publication);
//
// and they do not Conflict.
func Match(a, b Copy) bool {
	pa, pb := prep(&a), prep(&b)
	return match(&pa, &pb)
}

func match(a, b *prepared) bool {
	if conflict(a, b) {
		return false
	}
	if a.c.DOI != "" && a.c.DOI == b.c.DOI {
		return true
	}
	if linked(a.c, b.c) || linked(b.c, a.c) {
		return a.main == "" || b.main == "" || strings.HasPrefix(a.main, b.main) || strings.HasPrefix(b.main, a.main)
	}
	return sameTitle(a, b)
}

// linked reports whether a names b, a PDF, as its full text.
func linked(a, b *Copy) bool {
	return a.PDFURL != "" && b.Kind == KindPDF && a.PDFURL == b.URL
}

func sameTitle(a, b *prepared) bool {
	if a.main == "" || a.main != b.main {
		return false
	}
	if len(a.main) < minMatchTitle && a.whole != b.whole {
		return false
	}
	if a.sub != "" && b.sub != "" && a.sub != b.sub {
		return false
	}
	if !a.hasFirst || !b.hasFirst || !samePerson(a.first, b.first) {
		return false
	}
	if y, z := a.c.Year, b.c.Year; y != 0 && z != 0 && (y-z > 1 || z-y > 1) {
		return false
	}
	return true
}

// Conflict reports whether two copies cannot be of one work: each has a
// DOI, neither a preprint server's (PreprintDOI), and they differ; or,
// without a DOI in common, their titles have the same main title and
// different subtitles ("Crawling: Part I" and "Crawling: Part II").
func Conflict(a, b Copy) bool {
	pa, pb := prep(&a), prep(&b)
	return conflict(&pa, &pb)
}

func conflict(a, b *prepared) bool {
	x, y := a.c.DOI, b.c.DOI
	if x != "" && x == y {
		return false
	}
	if x != "" && y != "" && !PreprintDOI(x) && !PreprintDOI(y) {
		return true
	}
	return a.main != "" && a.main == b.main && a.sub != "" && b.sub != "" && a.sub != b.sub
}

// Keys returns the keys under which a store indexes a copy: any two copies
// that Match share at least one. "doi:" and the DOI; "title:" and the main
// title, "|" and the first author's family key; "pdf:" and the URL of the
// PDF (a PDF's own, a page's full text).
func Keys(c Copy) []string {
	var keys []string
	if c.DOI != "" {
		keys = append(keys, "doi:"+c.DOI)
	}
	if len(c.Authors) > 0 {
		if m, _ := SplitTitle(c.Title); m != "" {
			if f := FamilyKey(c.Authors[0]); f != "" {
				keys = append(keys, "title:"+cut(m, 400)+"|"+cut(f, 100))
			}
		}
	}
	if c.Kind == KindPDF {
		keys = append(keys, "pdf:"+c.URL)
	} else if c.PDFURL != "" {
		keys = append(keys, "pdf:"+c.PDFURL)
	}
	return keys
}

// Joins reports whether c joins the work whose copies are given: it
// Matches one of them and Conflicts with none.
func Joins(copies []Copy, c Copy) bool {
	pc := prep(&c)
	matched := false
	for i := range copies {
		pk := prep(&copies[i])
		if conflict(&pk, &pc) {
			return false
		}
		if !matched && match(&pk, &pc) {
			matched = true
		}
	}
	return matched
}

// Compatible reports whether two works may become one: no copy of one
// Conflicts with a copy of the other.
func Compatible(a, b []Copy) bool {
	pb := make([]prepared, len(b))
	for j := range b {
		pb[j] = prep(&b[j])
	}
	for i := range a {
		pa := prep(&a[i])
		for j := range pb {
			if conflict(&pa, &pb[j]) {
				return false
			}
		}
	}
	return true
}
