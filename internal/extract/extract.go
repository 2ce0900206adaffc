// Package extract turns a fetched response body into what acrawler
// records: title, visible and main text, language, links, canonical, robots
// directives, scholarly metadata and classification, and fingerprints. The
// crawl and `acrawler reparse` both use it, so a parser improvement applies
// the same way to new and archived responses.
package extract

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fingerprint"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/maintext"
	"github.com/acrawler/acrawler/internal/pdf"
	"github.com/acrawler/acrawler/internal/scholar"
	"github.com/acrawler/acrawler/internal/title"
)

// PDFExtractor reads the text and metadata of a PDF; *pdf.Extractor is the
// implementation.
type PDFExtractor interface {
	Extract(ctx context.Context, data []byte) (*pdf.Document, error)
}

// Options configure an Extractor.
type Options struct {
	Resolver htmlx.Resolver // resolves and normalizes hrefs (required)
	MaxLinks int
	Token    string       // robots product token
	MainText bool         // extract the main content (boilerplate removed) of HTML pages
	PDF      PDFExtractor // nil: PDFs are recorded without text
}

// Extractor extracts pages. It is safe for concurrent use when its
// Resolver factory is.
type Extractor struct {
	opts      Options
	resolvers func() htmlx.Resolver
}

// New returns an Extractor. newResolver gives a resolver per page (so one
// may cache the page's parsed base URL); nil uses opts.Resolver.
func New(opts Options, newResolver func() htmlx.Resolver) *Extractor {
	if newResolver == nil {
		newResolver = func() htmlx.Resolver { return opts.Resolver }
	}
	return &Extractor{opts: opts, resolvers: newResolver}
}

// Result is what was extracted from one response.
//
// Title is the document's own title: for an HTML page, the part of its
// <title> that names the page, without the site's name or a section
// (title.Page, from <title>, the metadata's title, og:title and <h1>); for
// a PDF, its Title field when that is plausibly a title, else the heading
// of its first page (see scholar.PDF). MainText is the page's main
// content; a page with under 200 bytes of text whose main content cannot
// be told keeps all of its visible text.
type Result struct {
	Title, Text, MainText, Lang, Charset string
	Canonical, Refresh                   string
	NoIndex, NoFollow                    bool
	Links                                []htmlx.Link
	Meta                                 *crawl.Metadata
	ContentHash                          []byte
	SimHash                              uint64
	Error, ErrorKind                     string // extraction error, if any (the rest is what could be read)
}

// Apply copies the extraction into a page record.
func (r *Result) Apply(p *crawl.Page) {
	p.Title, p.Text, p.MainText, p.Lang, p.Charset = r.Title, r.Text, r.MainText, r.Lang, r.Charset
	p.NoIndex, p.NoFollow = r.NoIndex, r.NoFollow
	p.Meta, p.ContentHash, p.SimHash = r.Meta, r.ContentHash, r.SimHash
	if r.Error != "" {
		p.Error, p.ErrorKind = r.Error, r.ErrorKind
	}
}

// IsHTML reports whether a media type is HTML.
func IsHTML(mediaType string) bool {
	return mediaType == "text/html" || mediaType == "application/xhtml+xml"
}

// IsPDF reports whether a media type is PDF.
func IsPDF(mediaType string) bool { return mediaType == "application/pdf" }

// shortText is the visible-text length under which a page whose main text
// cannot be told from its boilerplate keeps all of its visible text as
// main text: there is too little to separate.
const shortText = 200

// HTML extracts an HTML page. header is the response's (X-Robots-Tag,
// Content-Language); it may be nil.
func (x *Extractor) HTML(body []byte, contentType, pageURL string, header http.Header) Result {
	var r Result
	utf8, charset, err := htmlx.Decode(body, contentType)
	if err != nil {
		r.Error, r.ErrorKind = "decode: "+err.Error(), "decode"
		return r
	}
	r.Charset = charset
	// One pass of the tokenizer feeds the page's text and links (htmlx),
	// its metadata (scholar) and its main text (maintext).
	sc := scholar.NewScanner()
	visitors := []htmlx.Visitor{sc}
	var mt *maintext.Builder
	if x.opts.MainText {
		mt = maintext.NewBuilder(len(utf8))
		visitors = append(visitors, mt)
	}
	doc, err := htmlx.Parse(utf8, pageURL, htmlx.Options{Resolver: x.resolvers(), MaxLinks: x.opts.MaxLinks, Token: x.opts.Token, Visitors: visitors})
	if err != nil {
		r.Error, r.ErrorKind = "parse: "+err.Error(), "parse"
		return r
	}
	dir := x.headerRobots(doc.Robots, header)
	contentLang := ""
	if header != nil {
		contentLang = header.Get("Content-Language")
	}
	r.Text, r.Lang = doc.Text, doc.Lang
	r.NoIndex, r.NoFollow = dir.NoIndex, dir.NoFollow
	r.Canonical, r.Refresh, r.Links = doc.Canonical, doc.Refresh, doc.Links
	r.ContentHash = fingerprint.Exact(r.Text)

	links := make([]string, len(doc.Links))
	for i, l := range doc.Links {
		links[i] = l.URL
	}
	sm := sc.Metadata(pageURL, r.Text, links)
	og, site := sc.Names()
	r.Title = title.Page(title.Candidates{Title: doc.Title, Citation: sm.Title, OG: og, Heading: doc.H1, Site: site, Host: hostOf(pageURL),
		Names: []string{sm.Publisher, sm.Venue}})
	sm.Type, sm.TypeRule = scholar.Classify(sm, pageURL, r.Title, r.Text)
	r.Meta = fromScholar(sm)

	if mt != nil {
		if res, err := mt.Result(contentLang); err == nil {
			r.MainText = res.Text
			if r.Lang == "" {
				r.Lang = res.Lang
			}
		}
		if r.MainText == "" && len(r.Text) < shortText {
			r.MainText = r.Text
		}
	}
	if r.Lang == "" && contentLang != "" && !strings.Contains(contentLang, ",") {
		r.Lang = strings.ToLower(strings.TrimSpace(contentLang))
	}
	if r.Lang == "" {
		if lang, ok := maintext.DetectLanguage(firstBytes(r.Text, 4096)); ok {
			r.Lang = lang
		}
	}
	r.Lang = primaryTag(r.Lang)
	r.SimHash = fingerprint.SimHash(nonEmpty(r.MainText, r.Text))
	if doc.Truncated {
		// The page is kept with what was read, and says it was cut.
		r.Error, r.ErrorKind = "html: more markup than the parser reads of one page; the rest was left out", "html truncated"
	}
	return r
}

// headerRobots merges into dir the directives of the response's
// X-Robots-Tag lines (header may be nil).
func (x *Extractor) headerRobots(dir htmlx.Directives, header http.Header) htmlx.Directives {
	for _, v := range header.Values("X-Robots-Tag") {
		dir = dir.Merge(htmlx.ParseRobotsDirectives(v, x.opts.Token))
	}
	return dir
}

// PDF extracts a PDF document. header is the response's; it may be nil. A
// PDF has no <meta name="robots">: X-Robots-Tag is how it says noindex or
// nofollow.
func (x *Extractor) PDF(ctx context.Context, body []byte, pageURL string, header http.Header) Result {
	var r Result
	dir := x.headerRobots(htmlx.Directives{}, header)
	r.NoIndex, r.NoFollow = dir.NoIndex, dir.NoFollow
	if x.opts.PDF == nil {
		return r
	}
	doc, err := x.opts.PDF.Extract(ctx, body)
	if err != nil {
		r.Error = "pdf: " + err.Error()
		switch {
		case errors.Is(err, pdf.ErrEncrypted):
			r.ErrorKind = "pdf encrypted"
		case errors.Is(err, pdf.ErrTooLarge):
			r.ErrorKind = "pdf too large"
		default:
			r.ErrorKind = "pdf broken"
		}
		return r
	}
	r.Text, r.MainText = doc.Text, doc.Text
	r.ContentHash = fingerprint.Exact(r.Text)
	r.SimHash = fingerprint.SimHash(r.Text)
	if lang, ok := maintext.DetectLanguage(firstBytes(r.Text, 4096)); ok {
		r.Lang = lang
	}
	info := scholar.PDFInfo{Title: doc.Title, Author: doc.Author, Subject: doc.Subject, Keywords: doc.Keywords, Heading: doc.Heading}
	if !doc.Created.IsZero() {
		info.Year = doc.Created.Year()
	}
	m := fromScholar(scholar.PDF(info, pageURL, r.Text))
	if !doc.Created.IsZero() {
		m.Created = doc.Created.UTC().Format(time.RFC3339)
	}
	r.Title = m.Title
	if doc.Truncated {
		r.Error, r.ErrorKind = "pdf: text truncated", "pdf truncated"
	}
	r.Meta = m
	return r
}

func fromScholar(s *scholar.Metadata) *crawl.Metadata {
	return &crawl.Metadata{
		Title: s.Title, Authors: s.Authors, Date: s.Date, Year: s.Year, Venue: s.Venue, Volume: s.Volume,
		Issue: s.Issue, FirstPage: s.FirstPage, LastPage: s.LastPage, DOI: s.DOI, PDFURL: s.PDFURL,
		AbstractURL: s.AbstractURL, ISSN: s.ISSN, ISBN: s.ISBN, Publisher: s.Publisher, Keywords: s.Keywords,
		Abstract: s.Abstract, Type: s.Type, TypeRule: s.TypeRule, Sources: s.Sources, DOIs: s.DOIs,
	}
}

// hostOf returns the host (and port) of an absolute URL, "" if none.
func hostOf(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return rest
}

func firstBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

func nonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// primaryTag keeps the primary language subtag, lowercased ("en-GB" → "en").
func primaryTag(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	if i := strings.IndexAny(lang, "-_"); i > 0 {
		lang = lang[:i]
	}
	if len(lang) < 2 || len(lang) > 3 {
		return ""
	}
	return lang
}
