package scholar

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/acrawler/acrawler/internal/title"
)

// PDFInfo is what a PDF says about itself besides its text: the fields of
// its document information dictionary and the heading of its first page.
type PDFInfo struct {
	Title, Author, Subject, Keywords string
	// Heading is the text in the largest type at the top of the first
	// page (pdf.Document.Heading).
	Heading string
	// Year is the year of the document's creation date, 0 if unknown.
	Year int
}

// Bounds on the text of a PDF that PDF reads.
const (
	pdfFirstPage = 20000 // bytes of the first page
	pdfHeader    = 3000  // bytes at the top of the first page that may be its header
)

// PDF reads the scholarly metadata of a PDF document: info and its text (as
// pdf.Document.Text gives it, pages separated by an empty line), fetched
// from pageURL. Like Extract it never fails and caps every field.
//
//   - Title is the Title field when it is plausibly a title (not a file
//     name, "Microsoft Word - paper.docx" or "Untitled"; see
//     title.Plausible), else the first page's heading when that is. A
//     Title field that the first page does not show gives way to a
//     plausible heading (a template's or another document's title).
//   - Authors are those of the Author field, split at semicolons, " and ",
//     "&" and, between full names, commas; "Family, Given" turned around;
//     repeats dropped whatever their case and spacing.
//   - DOI is the document's own DOI: the one the Subject field names, or a
//     DOI stated as such ("doi:", "DOI", https://doi.org/) in the header of
//     the first page (before its abstract or first section), or the only DOI of the first page. DOIs has every DOI
//     of the first 20,000 bytes of text.
//   - Year is the year the header of the first page gives beside a DOI, a
//     copyright sign, a volume or a journal ("Journal of X, 2019.
//     doi:..."), else the year of the creation date.
//   - Keywords are the Keywords field split at semicolons or commas.
//
// Type is then decided as Classify decides it for a page, the top of the
// first page (before its abstract or first section) giving type clues ("pdf:thesis" for "A thesis submitted...",
// "Doktora Tezi"; "pdf:preprint" for an arXiv stamp, "Preprint",
// "Working paper"; "pdf:proceedings" for "Proceedings of"; "pdf:article"
// for a journal, "Dergisi"), the first page
// standing as the text.
func PDF(info PDFInfo, pageURL, text string) *Metadata {
	md := &Metadata{}
	first, _, _ := strings.Cut(cut(text, pdfFirstPage), "\n\n")
	header := headerOf(first)

	// A Title field that the first page does not show, beside a heading
	// that is a title, was left by a template or another document.
	fromHeading := title.Plausible(info.Heading)
	switch {
	case title.Plausible(info.Title) && (!fromHeading || title.Contains(first, info.Title)):
		// The Title field as a page's <title> is read: without the
		// site's or a section's name around it.
		md.Title = clean(title.Page(title.Candidates{Title: info.Title, Heading: info.Heading, Host: pdfHost(pageURL)}), MaxField)
	case fromHeading:
		md.Title = clean(info.Heading, MaxField)
	}
	md.Authors = pdfAuthors(info.Author)
	md.DOI = pdfDOI(info.Subject, header, first)
	if md.DOI != "" {
		md.DOIs = append(md.DOIs, md.DOI)
	}
	for _, d := range FindDOIs(cut(text, pdfFirstPage)) {
		md.DOIs = appendUnique(md.DOIs, d, MaxDOIs)
	}
	md.Year = headerYear(header)
	if md.Year == 0 && info.Year >= 1000 && info.Year <= 9999 {
		md.Year = info.Year
	}
	if md.Year != 0 {
		md.Date = strconv.Itoa(md.Year)
	}
	for _, k := range splitList(info.Keywords) {
		if k = clean(k, MaxField); k != "" {
			md.Keywords = appendUnique(md.Keywords, k, MaxKeywords)
		}
	}
	md.TypeClues = pdfClues(header)
	md.Type, md.TypeRule = Classify(md, pageURL, md.Title, first)
	return md
}

// cut returns at most the first n bytes of s, cut at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// bodyStarts are the words that start the body of a first page (its
// abstract or first section) after its header, in lower case.
var bodyStarts = []string{
	"abstract", "summary", "özet", "öz ", "zusammenfassung", "kurzfassung", "résumé", "resumen",
	"introduction", "1 introduction", "1. introduction", "i. introduction", "giriş", "1. giriş", "einleitung",
	"keywords", "key words", "index terms", "anahtar kelimeler", "schlüsselwörter",
}

// headerOf returns the header of a first page: its paragraphs before the
// abstract or the first section, at most pdfHeader bytes.
func headerOf(first string) string {
	first = cut(first, pdfHeader)
	off := 0
	for line := range strings.SplitSeq(first, "\n") {
		l := strings.ToLower(line)
		for _, w := range bodyStarts {
			if strings.HasPrefix(l, w) && (len(l) == len(w) || !isLetterByte(l[len(w)])) {
				return first[:off]
			}
		}
		off += len(line) + 1
	}
	return first
}

func isLetterByte(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80 }

// pdfAuthors splits the Author field of a PDF into authors.
func pdfAuthors(field string) []string {
	field = clean(field, MaxField*4)
	var out []string
	seen := map[string]bool{}
	add := func(a string) {
		a = cleanAuthor(a)
		k := authorKey(a)
		if k == "" || seen[k] || len(out) >= MaxAuthors {
			return
		}
		seen[k] = true
		out = append(out, a)
	}
	for _, part := range strings.FieldsFunc(field, func(r rune) bool { return r == ';' || r == '&' || r == '\n' }) {
		for _, p := range splitAnd(part) {
			if strings.Count(p, ",") == 1 && familyGiven(p) {
				add(p) // "Sato, Jamal": cleanAuthor turns it around
				continue
			}
			for _, q := range strings.Split(p, ",") {
				add(q)
			}
		}
	}
	return out
}

// splitAnd splits s at the word "and" (or "und", "ve", "et").
func splitAnd(s string) []string {
	words := strings.Fields(s)
	if len(words) < 3 {
		return []string{s}
	}
	var out, cur []string
	for _, w := range words {
		switch strings.ToLower(w) {
		case "and", "und", "ve", "et":
			if len(cur) > 0 {
				out = append(out, strings.Join(cur, " "))
				cur = cur[:0]
			}
			continue
		}
		cur = append(cur, w)
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}

// familyGiven reports whether s, with one comma, reads "Family, Given"
// ("Sato, Jamal", "Sato, J.", "van der Berg, Anna") rather than two names
// ("Jamal Sato, Ayşe Kaya"): one side is a single word or initials.
func familyGiven(s string) bool {
	family, given, _ := strings.Cut(s, ",")
	nf, ng := strings.Fields(family), strings.Fields(given)
	if len(nf) == 0 || len(ng) == 0 {
		return false
	}
	if len(nf) == 1 || len(ng) == 1 {
		return true
	}
	for _, w := range ng {
		if len(strings.TrimRight(w, ".")) > 1 {
			return false
		}
	}
	return true // "Sato, J. A."
}

// authorKey is what two spellings of one name have in common: its letters
// in lower case, words separated by one space.
func authorKey(a string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(a), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// doiMarkers introduce a DOI in a document's header, in lower case.
var doiMarkers = []string{"doi.org/", "doi:", "doi "}

// pdfDOI returns the document's own DOI, "" if it cannot be told.
func pdfDOI(subject, header, first string) string {
	if ds := FindDOIs(subject); len(ds) == 1 {
		return ds[0]
	}
	lower := strings.ToLower(header) // ASCII case folding keeps offsets for the markers
	for off := 0; off < len(lower); {
		i, m := -1, ""
		for _, mk := range doiMarkers {
			if j := strings.Index(lower[off:], mk); j >= 0 && (i < 0 || j < i) {
				i, m = j, mk
			}
		}
		if i < 0 {
			break
		}
		start := off + i + len(m)
		rest := strings.TrimLeft(header[start:], " :")
		if strings.HasPrefix(rest, "10.") {
			end := strings.IndexAny(rest, " \n")
			if end < 0 {
				end = len(rest)
			}
			if d, ok := NormalizeDOI(rest[:end]); ok {
				return d
			}
		}
		off = start
	}
	if ds := FindDOIs(first); len(ds) == 1 {
		return ds[0]
	}
	return ""
}

// yearMarkers, beside a year in a document's header, make it the year of
// publication, in lower case.
var yearMarkers = []string{"doi", "©", "(c)", "copyright", "vol.", "volume", "journal", "proceedings", "published", "dergisi", "cilt"}

// headerYear returns the year of publication the header of a document
// gives (see PDF), or 0.
func headerYear(header string) int {
	for line := range strings.SplitSeq(header, "\n") {
		l := strings.ToLower(line)
		if !containsAny(l, yearMarkers...) {
			continue
		}
		// A year beside a DOI is not one inside it: look outside DOIs.
		for _, d := range FindDOIs(l) {
			l = strings.ReplaceAll(l, d, " ")
		}
		for i := 0; i+4 <= len(l); i++ {
			// Not a number joined to another by a hyphen: an ISSN, a
			// range of pages.
			joined := i > 0 && l[i-1] == '-' || i+5 < len(l) && l[i+4] == '-' && isDigit(l[i+5])
			if isYearAt(l, i) && !joined {
				y, _ := strconv.Atoi(l[i : i+4])
				return y
			}
		}
	}
	return 0
}

// pdfClues returns the type clues of a document's header.
func pdfClues(header string) []string {
	l := strings.ToLower(header)
	var clues []string
	if containsAny(l, "thesis submitted", "dissertation submitted", "in partial fulfil", "doctor of philosophy",
		"phd thesis", "ph.d. thesis", "doctoral thesis", "doctoral dissertation", "master's thesis", "masters thesis",
		"master thesis", "bachelor thesis", "bachelor's thesis", "doktora tezi", "yüksek lisans tezi", "dissertation",
		"doktorarbeit", "masterarbeit", "bachelorarbeit") {
		clues = append(clues, "pdf:"+TypeThesis)
	}
	if strings.Contains(l, "arxiv:") || containsAny(l, "preprint", "working paper", "technical report", "discussion paper") {
		clues = append(clues, "pdf:"+TypePreprint)
	}
	if containsAny(l, "proceedings of", "conference on", "symposium on", "workshop on", "annual meeting of",
		"international conference", "kongresi", "sempozyumu", "bildiriler kitabı", "tagungsband") {
		clues = append(clues, "pdf:"+TypeProceedings)
	}
	if containsAny(l, "journal", "dergisi", "zeitschrift", "transactions on", "revue ", "revista ") {
		clues = append(clues, "pdf:"+TypeArticle)
	}
	return clues
}

// pdfHost returns the host name of the URL a PDF was fetched from, "" if
// it has none.
func pdfHost(pageURL string) string {
	u, err := url.Parse(pageURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}
