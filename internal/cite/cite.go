// Package cite writes scholarly works as citations: BibTeX, RIS and
// CSL-JSON, and parses author names into their parts.
//
// It is a pure leaf: the writers take values and an io.Writer, never log,
// and take time linear in their input (each field is cut at MaxField).
// What each format guarantees:
//
//   - BibTeX (WriteBibTeX): UTF-8, one entry per work, classic entry types
//     (@article, @inproceedings, @incollection, @book, @techreport,
//     @phdthesis, @misc; an article, chapter or conference paper whose
//     journal or book is unknown is a @misc). Keys are ASCII ([a-z0-9]): the first author's
//     family name, the year and the first significant title word
//     ("sahin1996turkiyede"), the same for the same works (with distinct
//     IDs) in any order, and unique within one export (works sharing a key get a, b, c… in
//     Work.ID order). Every brace in the output is balanced, so no value
//     can end its entry. TeX's special characters in text are escaped
//     (\%, \&, \$, \#, \_, {\textasciitilde}, {\textasciicircum},
//     {\textbackslash}, {\textbraceleft}, {\textbraceright}); words whose
//     capitals a style must keep (DNA, iPhone, and in a sentence-case or
//     German title capitalized words after the first) are braced; an organization is
//     braced whole. DOI and URL are written verbatim, as biblatex reads
//     them. An entry has only the fields biblatex's data model gives its
//     type, so biber --validate-datamodel accepts it. Tested with pybtex,
//     biber, bibtool, bibutils (bib2xml) and citation-js.
//   - RIS (WriteRIS): UTF-8, CRLF line ends, "TAG  - value" lines with
//     newlines in values turned into spaces, each record ended by "ER  - "
//     and a blank line; authors as "Family, Given, Suffix"; the journal as
//     T2 and again as JO. Tested with bibutils (ris2xml) and citation-js.
//   - CSL-JSON (WriteCSLJSON): a JSON array of CSL 1.0.2 items: type
//     (article-journal, paper-conference, chapter, book, report, thesis,
//     dataset, article for a preprint, document), a unique id (the work's
//     ID, else its citation key), citation-key, title, author
//     (family/given/non-dropping-particle/suffix, or literal), issued
//     date-parts, container-title, volume, issue, page "12-34", DOI, URL
//     and the rest of the work's fields. Tested with citation-js.
package cite

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MaxField is the number of bytes of one field (a title, an abstract, a
// name) written; longer values are cut at a character boundary.
const MaxField = 8192

// maxAuthors bounds the names written for one work.
const maxAuthors = 500

// maxList bounds the keywords, ISSNs and ISBNs written for one work.
const maxList = 100

// Type is what kind of work a record describes.
type Type string

// The types of work. Anything else is written as TypeOther.
const (
	TypeArticle          Type = "article"           // a journal article
	TypeThesis           Type = "thesis"            // a doctoral or master's thesis
	TypeReport           Type = "report"            // a technical report or working paper
	TypeBook             Type = "book"              // a whole book
	TypeChapter          Type = "chapter"           // a chapter or section of a book
	TypeProceedingsPaper Type = "proceedings-paper" // a paper in conference proceedings
	TypePreprint         Type = "preprint"          // a manuscript not (yet) published in a venue
	TypeDataset          Type = "dataset"           // a data set
	TypeOther            Type = "other"
)

// Normalize returns t as one of the declared types. It accepts the
// crawler's metadata types ("proceedings" is TypeProceedingsPaper) and
// gives TypeOther for anything unknown.
func (t Type) Normalize() Type {
	switch s := Type(strings.ToLower(strings.TrimSpace(string(t)))); s {
	case TypeArticle, TypeThesis, TypeReport, TypeBook, TypeChapter, TypeProceedingsPaper, TypePreprint, TypeDataset:
		return s
	case "proceedings", "conference-paper", "paper-conference", "inproceedings":
		return TypeProceedingsPaper
	case "article-journal", "journal-article":
		return TypeArticle
	}
	return TypeOther
}

// Work is one scholarly work to cite. Any field may be empty.
type Work struct {
	ID             string // stable identifier; orders works whose citation keys collide
	Type           Type
	Title          string
	Authors        []Name
	Year           int    // the year of publication; 0: unknown (taken from Date when that is valid)
	Date           string // ISO 8601 date of publication: yyyy, yyyy-mm or yyyy-mm-dd
	ContainerTitle string // the journal, proceedings or book the work appears in
	Volume         string
	Issue          string
	FirstPage      string
	LastPage       string
	Publisher      string // the publisher; for a thesis or report, the institution
	DOI            string // bare DOI ("10.1000/xyz"), without a resolver
	ISSN           []string
	ISBN           []string
	URL            string // the work's landing page
	PDFURL         string // the full text as PDF
	Abstract       string
	Keywords       []string
	Language       string // BCP 47 language tag ("en", "tr", "de-AT")
}

// date returns the work's date of publication: year, and month and day
// when Date gives them and agrees with Year. Out-of-range values give 0.
func (w *Work) date() (year, month, day int) {
	year = w.Year
	if year < 1 || year > 9999 {
		year = 0
	}
	y, m, d := parseISODate(strings.TrimSpace(w.Date))
	switch {
	case y == 0:
		return year, 0, 0
	case year == 0 || year == y:
		return y, m, d
	}
	return year, 0, 0
}

// parseISODate parses yyyy, yyyy-mm or yyyy-mm-dd, possibly followed by a
// time ("2020-03-15T10:00:00Z"). Anything else gives zeros.
func parseISODate(s string) (y, m, d int) {
	if i := strings.IndexAny(s, "T "); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, "-")
	if len(parts) > 3 || len(parts[0]) != 4 {
		return 0, 0, 0
	}
	num := func(p string, width, lo, hi int) int {
		if len(p) != width {
			return -1
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < lo || n > hi {
			return -1
		}
		return n
	}
	if y = num(parts[0], 4, 1, 9999); y < 0 {
		return 0, 0, 0
	}
	if len(parts) > 1 {
		if m = num(parts[1], 2, 1, 12); m < 0 {
			return y, 0, 0
		}
	}
	if len(parts) > 2 {
		if d = num(parts[2], 2, 1, daysIn(y, m)); d < 0 {
			return y, m, 0
		}
	}
	return y, m, d
}

// daysIn is the number of days of month m of year y.
func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// clean makes s a one-line field: valid UTF-8, control characters and line
// breaks turned into spaces, runs of spaces collapsed, trimmed, and cut to
// MaxField bytes.
func clean(s string) string {
	if len(s) > MaxField {
		i := MaxField
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == utf8.RuneError || r == '\uFEFF' {
			continue
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cleanList cleans each value, dropping empty ones and repeats, and keeps
// at most maxList.
func cleanList(list []string) []string {
	var out []string
	for _, v := range list {
		if len(out) == maxList {
			break
		}
		v = clean(v)
		if v == "" {
			continue
		}
		dup := false
		for _, o := range out {
			if o == v {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
}

// pages returns the page range as first and last page, with a range given
// whole in FirstPage ("12-34", "12–34") split.
func (w *Work) pages() (first, last string) {
	first, last = clean(w.FirstPage), clean(w.LastPage)
	if last == "" {
		for _, sep := range []string{"--", "–", "—", "-"} {
			if a, b, ok := strings.Cut(first, sep); ok && strings.TrimSpace(a) != "" && strings.TrimSpace(b) != "" {
				return strings.TrimSpace(a), strings.TrimSpace(b)
			}
		}
	}
	if last == first {
		last = ""
	}
	return first, last
}

// authors returns the work's names, cleaned, without empty ones.
func (w *Work) authors() []Name {
	var out []Name
	for _, n := range w.Authors {
		if len(out) == maxAuthors {
			break
		}
		if n = n.clean(); !n.IsZero() {
			out = append(out, n)
		}
	}
	return out
}
