package harvest

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/oai"
	"github.com/acrawler/acrawler/internal/scholar"
	"github.com/acrawler/acrawler/internal/works"
)

// RecordURL is the URL that serves one record of an endpoint in oai_dc
// (its GetRecord request), normalized by n when it can be: the URL of the
// record's copy in its work, and (crawl.URLID) its ID.
func RecordURL(endpoint, identifier string, n Normalizer) string {
	sep := "?"
	if strings.Contains(endpoint, "?") {
		sep = "&"
	}
	u := endpoint + sep + "verb=GetRecord&metadataPrefix=oai_dc&identifier=" + url.QueryEscape(identifier)
	if n != nil {
		if nu, err := n.Normalize(u); err == nil {
			return nu
		}
	}
	return u
}

// RecordOf is a harvested record as package works reads it: its Dublin
// Core title, creators, date and year, type (as the extractor reads a
// dc.type: "Doctoral Thesis" is a thesis), publisher, first source (the
// journal it appeared in) as venue, first description as abstract,
// subjects as keywords, DOI, and first file (a PDF) as its full text,
// normalized by n as the crawl normalizes the URL it fetches.
func RecordOf(endpoint string, r *oai.Record, n Normalizer) works.Record {
	u := RecordURL(endpoint, r.Identifier, n)
	wr := works.Record{ID: int64(crawl.URLID(u)), URL: u, Identifier: r.Identifier, Deleted: r.Deleted}
	if r.Deleted {
		return wr
	}
	m := works.Meta{Title: strings.TrimSpace(r.Title), Authors: names(r.Creators), Date: pubDate(r.Date, r.Year), Year: r.Year,
		Publisher: strings.TrimSpace(r.Publisher), DOI: r.DOI, Abstract: strings.TrimSpace(r.Description), Keywords: r.Subjects}
	for _, s := range r.Sources {
		if s = strings.TrimSpace(s); s != "" && !strings.Contains(s, "://") {
			m.Venue = s
			break
		}
	}
	if len(r.PDFURLs) > 0 {
		m.PDFURL = r.PDFURLs[0]
		if n != nil {
			if nu, err := n.Normalize(m.PDFURL); err == nil {
				m.PDFURL = nu
			}
		}
	}
	m.Type = recordType(r, m.Venue)
	wr.Meta = m
	return wr
}

// pubDate is the record's date as a publication date: a date with a time
// of day is a deposit's timestamp (DSpace sends its accession date first),
// of which only the year (the earliest of the record's) stands.
func pubDate(date string, year int) string {
	if strings.Contains(date, "T") && year > 0 {
		return strconv.Itoa(year)
	}
	return date
}

// names are the creators without empty ones.
func names(creators []string) []string {
	var out []string
	for _, c := range creators {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// workTypes are the types of a work scholar.Classify gives.
var workTypes = map[string]bool{scholar.TypeArticle: true, scholar.TypePreprint: true, scholar.TypeThesis: true,
	scholar.TypeProceedings: true, scholar.TypeBook: true, scholar.TypeDataset: true}

// recordType is the type of work a record's dc:type values name, as the
// extractor reads a page's DC.type, "" when they name none.
func recordType(r *oai.Record, venue string) string {
	md := &scholar.Metadata{Title: r.Title, Venue: venue, Publisher: r.Publisher}
	if r.Type != "" {
		md.TypeClues = append(md.TypeClues, "dc.type:"+r.Type)
	}
	page := ""
	if len(r.URLs) > 0 {
		page = r.URLs[0]
	}
	if t, _ := scholar.Classify(md, page, r.Title, ""); workTypes[t] {
		return t
	}
	return ""
}
