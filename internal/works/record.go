package works

import (
	"fmt"
	"strings"
)

// Record is a repository's record of a work as an OAI-PMH harvest reads
// it: its Dublin Core as Meta (title, creators, date and year, type,
// publisher, source as venue, description as abstract, subjects as
// keywords, the first DOI, the first PDF among its identifiers), the OAI
// identifier, and the URL that serves the record (its GetRecord request)
// with the ID a store gives that URL. A record is a copy of its work
// beside the pages the crawl records; the ID is no recorded page's.
type Record struct {
	ID         int64
	URL        string
	Identifier string
	// Deleted: the repository withdrew the record; its copy leaves its
	// work.
	Deleted bool
	Meta    Meta
}

// RecordCopy returns the copy a record is, or false when it is none: a
// deleted record, or one without a title or without creators and DOI. The
// copy is of kind repository, its source Dublin Core; it is not open
// access itself (the PDF it names is, once fetched).
func RecordCopy(r Record) (Copy, bool) {
	m := &r.Meta
	if r.Deleted || strings.TrimSpace(m.Title) == "" || (len(m.Authors) == 0 && NormalizeDOI(m.DOI) == "") {
		return Copy{}, false
	}
	c := Copy{
		PageID: r.ID, URL: r.URL, Record: r.Identifier, Kind: KindRepository, Source: SourceDublinCore,
		Type: m.Type, Title: cut(m.Title, MaxText), Authors: m.Authors, Year: m.Year, Date: m.Date,
		Venue: m.Venue, Volume: m.Volume, Issue: m.Issue, FirstPage: m.FirstPage, LastPage: m.LastPage,
		Publisher: m.Publisher, DOI: NormalizeDOI(m.DOI), PDFURL: m.PDFURL, Abstract: m.Abstract, Keywords: m.Keywords,
	}
	if len(c.Authors) > maxAuthors {
		c.Authors = c.Authors[:maxAuthors]
	}
	if len(c.Keywords) > maxKeywords {
		c.Keywords = c.Keywords[:maxKeywords]
	}
	return c, true
}

// AddRecord records a harvested record in st as Add records a page: its
// copy joins its work by the rules of Match, a record harvested again
// replaces its copy (the work merged again, or the copy moved when it no
// longer belongs), and a deleted record's copy leaves its work. It
// returns the record's work, 0 when it is none.
func AddRecord(st Store, r Record) (int64, error) {
	c, ok := RecordCopy(r)
	return set(st, r.ID, c, ok, true)
}

// AddRecords adds records one after the other (AddRecord), as a store
// does with a page of a harvest in one transaction.
func AddRecords(st Store, records []Record) error {
	for _, r := range records {
		if _, err := AddRecord(st, r); err != nil {
			return fmt.Errorf("%s: %w", r.Identifier, err)
		}
	}
	return nil
}
