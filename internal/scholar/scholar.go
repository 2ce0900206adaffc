// Package scholar reads the scholarly metadata of a web page: what work the
// page describes (title, authors, date, venue, identifiers, PDF), and what
// kind of page it is (an article, a thesis, a person's profile, a list of
// publications, news).
//
// Extract reads, in this order of trust, the Highwire Press citation_* tags
// that Google Scholar asks publishers for; schema.org entities in JSON-LD
// and in microdata; Dublin Core (DC.*, DCTERMS.*) as repositories write it;
// PRISM (prism.*); and Open Graph with its article:, book: and profile:
// tags. Each field of the result comes from the most trusted vocabulary
// that has it.
//
// PDF reads the same metadata from a PDF's information dictionary and the
// text of its first page.
//
// It is a pure leaf: Extract, PDF, Classify, FindDOIs and NormalizeDOI take
// values and return values, keep no state and never fail; bad input gives
// less metadata, not an error. Every field is capped (MaxField, MaxAbstract,
// MaxAuthors, MaxKeywords, MaxIDs, MaxDOIs) whatever the page holds.
package scholar

import (
	"strings"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// Metadata is the scholarly metadata of one page. Empty fields are unknown.
type Metadata struct {
	Title string
	// Authors are the authors in order, each "Given Family": whitespace
	// collapsed, and "Family, Given" (as citation_author and DC.creator
	// usually have it) turned around, so that the same person reads the
	// same from every vocabulary. A value with more than one comma, digits
	// or a suffix after the comma ("King, Jr.") is kept as written. Exact
	// repeats are dropped.
	Authors []string
	// Date is the publication date as "2006-01-02", "2006-01" or "2006",
	// as precise as the source is.
	Date string
	// Year is the year of Date, 0 if unknown.
	Year int
	// Venue is the journal, proceedings, book (for a chapter) or series;
	// for a thesis, the institution that granted the degree.
	Venue                              string
	Volume, Issue, FirstPage, LastPage string
	// DOI is the DOI of the work itself, from its metadata (never from a
	// link or the text: a page cites many works), as NormalizeDOI gives it.
	// An arXiv identifier gives arXiv's DOI (10.48550/arxiv.ID) and the
	// venue "arXiv" when the metadata has no other.
	DOI string
	// PDFURL is the absolute URL of the full text in PDF: from the
	// metadata, else, on the page of a work (an article, preprint, thesis,
	// proceedings paper, book or dataset), its only link to a PDF.
	PDFURL string
	// AbstractURL is the absolute URL of the work's landing page, as the
	// metadata states it.
	AbstractURL string
	// ISSN are ISSNs as "NNNN-NNNX"; ISBN are ISBNs as digits (ISBN-10 may
	// end in X). Both are validated by their check digits and gathered from
	// every vocabulary.
	ISSN, ISBN []string
	Publisher  string
	Keywords   []string
	// Abstract is the abstract as plain text (markup stripped), at most
	// MaxAbstract bytes.
	Abstract string
	// Type is the kind of page: article, preprint, thesis, proceedings,
	// book, dataset, person, listing, news or other. See Classify.
	Type string
	// TypeRule names the rule that decided Type, such as
	// "citation_journal_title", "jsonld:ScholarlyArticle", "url:/tez/" or
	// "text:publications list".
	TypeRule string
	// TypeClues are what the metadata says about the kind of work, in
	// order of trust, each as a rule name: "citation_journal_title",
	// "citation_dissertation_institution", "jsonld:Thesis",
	// "microdata:Person", "dc.type:Doctoral Thesis",
	// "prism.aggregationType:journal", "og:type:profile". Classify reads
	// them.
	TypeClues []string
	// Sources are the vocabularies that gave at least one field, in order
	// of trust: "highwire", "jsonld", "microdata", "dublincore", "prism",
	// "opengraph".
	Sources []string
	// DOIs are every DOI found on the page, its own first, then those in
	// links and in the text; normalized, without repeats, at most MaxDOIs.
	DOIs []string
}

// trustOrder lists the vocabularies from most to least trusted.
var trustOrder = []string{"highwire", "jsonld", "microdata", "dublincore", "prism", "opengraph"}

// resolver resolves relative URLs; it is configured once and never changes.
var resolver = mustNormalizer()

func mustNormalizer() *urlnorm.Normalizer {
	n, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		panic("scholar: urlnorm default options: " + err.Error())
	}
	return n
}

// Extract reads the scholarly metadata of an HTML page. body is the page in
// UTF-8 (as htmlx.Decode gives it) and pageURL its absolute URL, against
// which (or against the page's <base href>, as browsers do) relative URLs
// in the metadata are resolved. text is the page's
// visible text and links its links as absolute URLs (as htmlx.Parse gives
// them); they are searched for DOIs and for a PDF link, and text helps
// classify the page.
//
// Extract never fails: malformed JSON-LD is skipped, invalid UTF-8 and
// control characters are dropped, dates that do not parse are left out, and
// every field is capped. The result is never nil.
func Extract(body []byte, pageURL, text string, links []string) *Metadata {
	s := NewScanner()
	htmlx.Tokens(body, s)
	return s.Metadata(pageURL, text, links)
}

// Metadata returns the metadata of the page that s has read (as Extract
// does for the page's bytes): s was given the page's tokens by
// htmlx.Parse, which gave text and links. It is called once, after the
// last token.
func (s *Scanner) Metadata(pageURL, text string, links []string) *Metadata {
	p := s.finish()
	recs := fromMetas(p.metas)
	var nodes []map[string]any
	var main []bool
	for _, raw := range p.jsonld {
		n, m := schemaNodes(parseJSONLD(raw))
		nodes, main = append(nodes, n...), append(main, m...)
	}
	if n, typ := bestNode(nodes, main); n != nil {
		recs["jsonld"] = fromSchema(n, typ, "jsonld", refsOf(nodes))
	}
	if len(p.items) > 0 {
		var mnodes []map[string]any
		for _, it := range p.items {
			mnodes = append(mnodes, microdataMap(it, 0))
		}
		if n, typ := bestNode(mnodes, nil); n != nil {
			recs["microdata"] = fromSchema(n, typ, "microdata", nil)
		}
	}
	md := merge(recs, &pageBase{url: pageURL, href: p.base})

	if md.DOI != "" {
		md.DOIs = append(md.DOIs, md.DOI)
	}
	for _, l := range links {
		if len(md.DOIs) >= MaxDOIs {
			break
		}
		if strings.Contains(l, "10.") {
			for _, d := range FindDOIs(l) {
				md.DOIs = appendUnique(md.DOIs, d, MaxDOIs)
			}
		}
	}
	if len(md.DOIs) < MaxDOIs {
		for _, d := range FindDOIs(text) {
			md.DOIs = appendUnique(md.DOIs, d, MaxDOIs)
		}
	}
	title := p.title
	if title == "" {
		title = md.Title
	}
	md.Type, md.TypeRule = Classify(md, pageURL, title, text)
	if md.PDFURL == "" && isWork(md.Type) {
		md.PDFURL = onlyPDF(links)
	}
	return md
}

// merge takes each field from the most trusted record that has it.
func merge(recs map[string]*record, base *pageBase) *Metadata {
	md := &Metadata{}
	used := map[string]bool{}
	// pick sets *dst from the first record whose field is not empty.
	pick := func(dst *string, field func(r *record) string, max int) {
		for _, src := range trustOrder {
			r := recs[src]
			if r == nil {
				continue
			}
			if v := clean(stripTags(field(r)), max); v != "" {
				*dst = v
				used[src] = true
				return
			}
		}
	}
	pickList := func(dst *[]string, field func(r *record) []string) {
		for _, src := range trustOrder {
			if r := recs[src]; r != nil && len(field(r)) > 0 {
				*dst = append([]string(nil), field(r)...)
				used[src] = true
				return
			}
		}
	}
	pick(&md.Title, func(r *record) string { return r.title }, MaxField)
	pickList(&md.Authors, func(r *record) []string { return r.authors })
	for _, src := range trustOrder {
		if r := recs[src]; r != nil && r.date != "" {
			md.Date, md.Year = r.date, r.year
			used[src] = true
			break
		}
	}
	pick(&md.Venue, func(r *record) string { return r.venue }, MaxField)
	if md.Venue == "" {
		pick(&md.Venue, func(r *record) string { return r.institution }, MaxField)
	}
	pick(&md.Volume, func(r *record) string { return r.volume }, MaxField)
	pick(&md.Issue, func(r *record) string { return r.issue }, MaxField)
	pick(&md.FirstPage, func(r *record) string { return r.firstPage }, MaxField)
	pick(&md.LastPage, func(r *record) string { return r.lastPage }, MaxField)
	pick(&md.DOI, func(r *record) string { return r.doi }, MaxDOILength)
	if md.DOI == "" {
		pick(&md.DOI, func(r *record) string { return r.arxiv }, MaxDOILength)
		if md.DOI != "" && md.Venue == "" {
			md.Venue = "arXiv"
		}
	}
	pick(&md.Publisher, func(r *record) string { return r.publisher }, MaxField)
	if md.Publisher == "" {
		pick(&md.Publisher, func(r *record) string { return r.institution }, MaxField)
	}
	pickList(&md.Keywords, func(r *record) []string { return r.keywords })
	pick(&md.Abstract, func(r *record) string { return r.abstract }, MaxAbstract)
	if md.Abstract == "" {
		pick(&md.Abstract, func(r *record) string { return r.desc }, MaxAbstract)
	}
	for _, src := range trustOrder {
		if r := recs[src]; r != nil && md.PDFURL == "" {
			if u := base.resolve(r.pdf); u != "" {
				md.PDFURL = u
				used[src] = true
			}
		}
		if r := recs[src]; r != nil && md.AbstractURL == "" {
			if u := base.resolve(r.abstractURL); u != "" {
				md.AbstractURL = u
				used[src] = true
			}
		}
	}
	for _, src := range trustOrder {
		r := recs[src]
		if r == nil {
			continue
		}
		for _, v := range r.issn {
			md.ISSN = appendUnique(md.ISSN, v, MaxIDs)
			used[src] = true
		}
		for _, v := range r.isbn {
			md.ISBN = appendUnique(md.ISBN, v, MaxIDs)
			used[src] = true
		}
		for _, c := range r.clues {
			md.TypeClues = appendUnique(md.TypeClues, c, 32)
			used[src] = true
		}
	}
	for _, src := range trustOrder {
		if used[src] {
			md.Sources = append(md.Sources, src)
		}
	}
	return md
}

// pageBase is the page URL and its <base href>, parsed once (when first
// needed) for the URLs of the metadata to be resolved against.
type pageBase struct {
	url    string
	href   string // the page's <base href>, "" if none
	parsed bool
	base   *urlnorm.Base
	err    error
}

// resolve resolves ref against the page URL and normalizes it; "" if it
// does not give an http(s) URL of at most MaxField bytes.
func (b *pageBase) resolve(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || len(ref) > MaxField {
		return ""
	}
	if !b.parsed {
		b.parsed = true
		base := b.url
		if b.href != "" {
			// As browsers do: the <base href> resolved against the page
			// URL, unless it does not resolve.
			if u, err := resolver.Resolve(b.url, b.href); err == nil {
				base = u
			}
		}
		b.base, b.err = resolver.ParseBase(base)
	}
	var u string
	err := b.err
	if err == nil {
		u, err = b.base.Resolve(ref)
	}
	if err != nil {
		u, err = resolver.Normalize(ref)
	}
	if err != nil || len(u) > MaxField {
		return ""
	}
	return u
}

// onlyPDF returns the page's link to a PDF if it has exactly one (one
// URL, however often linked): a page with several is a listing, and which
// PDF is the page's own cannot be told.
func onlyPDF(links []string) string {
	found := ""
	for _, l := range links {
		if !isPDFURL(l) || len(l) > MaxField {
			continue
		}
		if found != "" && found != l {
			return ""
		}
		found = l
	}
	return found
}
