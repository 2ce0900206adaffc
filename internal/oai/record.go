package oai

import (
	"net/url"
	"strings"

	"github.com/acrawler/acrawler/internal/scholar"
)

// fill maps the Dublin Core values to r's fields.
func (dc *dcValues) fill(r *Record) {
	f := &dc.fields
	r.Title = first(f[fTitle])
	r.Creators = f[fCreator]
	r.Contributors = f[fContributor]
	r.Subjects = f[fSubject]
	r.Description = first(f[fDescription])
	r.Publisher = first(f[fPublisher])
	r.Type = first(f[fType])
	r.Language = first(f[fLanguage])
	r.Rights = f[fRights]
	r.Sources = f[fSource]
	r.Formats = f[fFormat]
	r.Identifiers = f[fIdentifier]
	r.Relations = f[fRelation]

	// DSpace sends every date it has (accessioned, available, issued);
	// the earliest year is the work's.
	r.Date = first(f[fDate])
	for _, d := range f[fDate] {
		if y := year(d); y != 0 && (r.Year == 0 || y < r.Year) {
			r.Year, r.Date = y, d
		}
	}

	for _, v := range f[fIdentifier] {
		classify(r, v, true)
	}
	// EPrints names the landing page in dc:relation and the files in
	// dc:identifier: relation URLs are landing pages only when no
	// identifier is one.
	relLanding := len(r.URLs) == 0
	for _, v := range f[fRelation] {
		classify(r, v, relLanding)
	}
}

// eprintsDOI is how the OpenAIRE guidelines write a DOI in dc:relation.
const eprintsDOI = "info:eu-repo/semantics/altidentifier/doi/"

// classify files one identifier or relation under DOI, Handle, URLs or
// PDFURLs; landing says whether a non-PDF http(s) URL is a landing page.
func classify(r *Record, v string, landing bool) {
	v = strings.TrimSpace(v)
	lower := strings.ToLower(v)
	if strings.HasPrefix(lower, eprintsDOI) {
		v, lower = v[len(eprintsDOI):], lower[len(eprintsDOI):]
	}
	if doi, ok := scholar.NormalizeDOI(v); ok {
		if r.DOI == "" {
			r.DOI = doi
		}
		return
	}
	if h, ok := handle(v, lower); ok {
		if r.Handle == "" {
			r.Handle = h
		}
		if !strings.HasPrefix(lower, "http") {
			return
		}
	}
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") || strings.ContainsAny(v, " \t") {
		return
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return
	}
	switch {
	case isFile(u):
		r.PDFURLs = appendNew(r.PDFURLs, v)
	case landing:
		r.URLs = appendNew(r.URLs, v)
	}
}

// handle returns the handle of "hdl:…", "info:hdl/…" or a hdl.handle.net
// URL.
func handle(v, lower string) (string, bool) {
	for _, p := range []string{"hdl:", "info:hdl/", "http://hdl.handle.net/", "https://hdl.handle.net/"} {
		if strings.HasPrefix(lower, p) {
			h := v[len(p):]
			if i := strings.IndexAny(h, "?#"); i >= 0 {
				h = h[:i]
			}
			if strings.Contains(h, "/") && !strings.ContainsAny(h, " \t") {
				return h, true
			}
		}
	}
	return "", false
}

// isFile reports a URL that names a file rather than a landing page: a
// path ending in .pdf, a DSpace bitstream, an OJS or EPrints download.
func isFile(u *url.URL) bool {
	p := strings.ToLower(u.Path)
	return strings.HasSuffix(p, ".pdf") || strings.Contains(p, "/bitstream/") ||
		strings.Contains(p, "/bitstreams/") || strings.Contains(p, "/download/") ||
		strings.HasSuffix(p, "/download")
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

func first(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

// year returns the first run of exactly four digits in s that reads as a
// year from 1000 to 2999, or 0.
func year(s string) int {
	for i := 0; i+4 <= len(s); i++ {
		if i > 0 && isDigit(s[i-1]) {
			continue
		}
		if !isDigit(s[i]) || !isDigit(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
			continue
		}
		if i+4 < len(s) && isDigit(s[i+4]) {
			continue
		}
		y := int(s[i]-'0')*1000 + int(s[i+1]-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0')
		if y >= 1000 && y < 3000 {
			return y
		}
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
