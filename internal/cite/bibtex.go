package cite

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// bibtexTypes are the entry types of the work types; BibTeX's classic
// types, which every reader knows.
var bibtexTypes = map[Type]string{
	TypeArticle:          "article",
	TypeThesis:           "phdthesis",
	TypeReport:           "techreport",
	TypeBook:             "book",
	TypeChapter:          "incollection",
	TypeProceedingsPaper: "inproceedings",
	TypePreprint:         "misc",
	TypeDataset:          "misc",
	TypeOther:            "misc",
}

// bibtexFields are the fields each entry type may have beyond those every
// type has (author, title, year, month, doi, url, abstract, keywords,
// language), as biblatex's data model has them: biber --validate-datamodel
// accepts every entry. A work's value for a field its type lacks is left
// out (an article's publisher) or moved (a dataset's publisher is its
// howpublished).
var bibtexFields = map[Type]map[string]bool{
	TypeArticle:          fieldSet("journal", "volume", "number", "pages", "issn"),
	TypeBook:             fieldSet("series", "publisher", "volume", "number", "pages", "isbn"),
	TypeChapter:          fieldSet("booktitle", "series", "publisher", "volume", "number", "pages", "isbn"),
	TypeProceedingsPaper: fieldSet("booktitle", "series", "publisher", "volume", "number", "pages", "isbn"),
	TypeReport:           fieldSet("institution", "number", "pages"),
	TypeThesis:           fieldSet("school", "pages"),
	TypePreprint:         fieldSet("howpublished"),
	TypeDataset:          fieldSet("howpublished"),
	TypeOther:            fieldSet("howpublished"),
}

func fieldSet(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var monthMacros = [...]string{"", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// prepared is what the writers share: each work's cleaned names and its
// citation key.
type prepared struct {
	names [][]Name
	keys  []string
}

func prepare(works []Work) prepared {
	p := prepared{names: make([][]Name, len(works))}
	for i := range works {
		p.names[i] = works[i].authors()
	}
	p.keys = keys(works, p.names)
	return p
}

// Keys returns the citation key WriteBibTeX gives each work (and
// WriteCSLJSON writes as citation-key).
func Keys(works []Work) []string { return prepare(works).keys }

// WriteBibTeX writes works as BibTeX entries, in their order.
func WriteBibTeX(w io.Writer, works []Work) error {
	p := prepare(works)
	var b strings.Builder
	for i := range works {
		b.Reset()
		bibtexEntry(&b, &works[i], p.names[i], p.keys[i])
		if _, err := io.WriteString(w, b.String()); err != nil {
			return fmt.Errorf("cite: write bibtex: %w", err)
		}
	}
	return nil
}

func bibtexEntry(b *strings.Builder, w *Work, names []Name, key string) {
	typ := bibtexType(w)
	entry := bibtexTypes[typ]
	b.WriteString("@" + entry + "{" + key + ",\n")
	field := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString("  " + name + " = {" + value + "},\n")
	}
	if len(names) > 0 {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = bibtexName(n)
		}
		field("author", strings.Join(parts, " and "))
	}
	field("title", protectTitle(clean(w.Title), clean(w.Language)))
	container, publisher := texEscape(clean(w.ContainerTitle)), texEscape(clean(w.Publisher))
	typed := func(name, value string) {
		if bibtexFields[typ][name] {
			field(name, value)
		}
	}
	switch typ {
	case TypeArticle:
		typed("journal", container)
	case TypeChapter, TypeProceedingsPaper:
		typed("booktitle", container)
	case TypeBook:
		typed("series", container)
	case TypeThesis:
		typed("school", publisher)
	case TypeReport:
		typed("institution", publisher)
	default:
		if container == "" {
			container = publisher
		}
		typed("howpublished", container)
	}
	typed("publisher", publisher)
	y, m, _ := w.date()
	if y > 0 {
		field("year", strconv.Itoa(y))
	}
	if m > 0 {
		b.WriteString("  month = " + monthMacros[m] + ",\n")
	}
	typed("volume", texEscape(clean(w.Volume)))
	typed("number", texEscape(clean(w.Issue)))
	if first, last := w.pages(); last != "" {
		typed("pages", texEscape(first)+"--"+texEscape(last))
	} else {
		typed("pages", texEscape(first))
	}
	field("doi", verbatim(clean(w.DOI)))
	typed("issn", texEscape(strings.Join(cleanList(w.ISSN), ", ")))
	typed("isbn", texEscape(strings.Join(cleanList(w.ISBN), ", ")))
	url := clean(w.URL)
	if url == "" {
		url = clean(w.PDFURL)
	}
	field("url", verbatim(url))
	field("abstract", texEscape(clean(w.Abstract)))
	field("keywords", texEscape(strings.Join(cleanList(w.Keywords), ", ")))
	field("language", texEscape(clean(w.Language)))
	b.WriteString("}\n\n")
}

// bibtexType returns the type w is written as: its own, except that an
// article, chapter or conference paper without the journal or book it
// appears in is a @misc (BibTeX styles and biblatex require the journal or
// booktitle of those types).
func bibtexType(w *Work) Type {
	typ := w.Type.Normalize()
	switch typ {
	case TypeArticle, TypeChapter, TypeProceedingsPaper:
		if clean(w.ContainerTitle) == "" {
			return TypeOther
		}
	}
	return typ
}

// texEscape escapes the characters TeX and BibTeX give a meaning to, so
// that s reads back as itself. Other characters are written as UTF-8.
func texEscape(s string) string {
	if !strings.ContainsAny(s, `\{}%&$#_~^`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`{\textbackslash}`)
		case '{':
			b.WriteString(`{\textbraceleft}`)
		case '}':
			b.WriteString(`{\textbraceright}`)
		case '~':
			b.WriteString(`{\textasciitilde}`)
		case '^':
			b.WriteString(`{\textasciicircum}`)
		case '%', '&', '$', '#', '_':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// group braces s, so that BibTeX takes it as one unit whose case a style
// keeps. A group opening with a command would be a BibTeX "special
// character", whose letters a style may change: it gets a second brace.
func group(s string) string {
	if strings.HasPrefix(s, `\`) || strings.HasPrefix(s, `{\`) {
		return "{{" + s + "}}"
	}
	return "{" + s + "}"
}

// verbatim prepares a DOI or URL for a field that biblatex reads
// verbatim: nothing is escaped, only what would break the entry (braces,
// backslashes, spaces) is percent-encoded.
func verbatim(s string) string {
	if !strings.ContainsAny(s, "{}\\ ") {
		return s
	}
	return percentEncoder.Replace(s)
}

var percentEncoder = strings.NewReplacer("{", "%7B", "}", "%7D", `\`, "%5C", " ", "%20")

// bibtexName writes n as BibTeX reads it: "von Last, Jr, First", or a
// literal in braces.
func bibtexName(n Name) string {
	if n.Literal != "" {
		return group(texEscape(n.Literal))
	}
	part := func(s string) string {
		s = texEscape(s)
		if s == "" {
			return ""
		}
		for _, w := range strings.Fields(s) {
			if lw := strings.ToLower(w); lw == "and" || lw == "others" {
				return group(s)
			}
		}
		if strings.Contains(s, ",") {
			return group(s)
		}
		return s
	}
	family := part(n.Family)
	if strings.Contains(n.Family, " ") && (n.Particle == "" && lowerWord(n.Family) || n.Given == "" && n.Suffix == "") {
		// several words that are all the family name
		family = group(texEscape(n.Family))
	}
	last := joinWords(part(n.Particle), family)
	switch {
	case n.Suffix != "":
		return last + ", " + part(n.Suffix) + ", " + part(n.Given)
	case n.Given != "":
		return last + ", " + part(n.Given)
	}
	return last
}

// protectTitle escapes a title and braces the words whose capitals a
// bibliography style must keep: acronyms and words with inner capitals
// always ("DNA", "iPhone", "McDonald"), and in a title written in sentence
// case every capitalized word after the first (a proper noun). German
// capitalizes every noun: a title in German (lang "de…") keeps all its
// capitals.
func protectTitle(title, lang string) string {
	words := strings.Split(title, " ")
	capitalized, lower := 0, 0
	for i, w := range words {
		if i == 0 {
			continue
		}
		switch first, _ := firstLetter(w); {
		case first == 0:
		case unicode.IsUpper(first):
			capitalized++
		case unicode.IsLower(first):
			lower++
		}
	}
	sentenceCase := lower > capitalized || lang == "de" || strings.HasPrefix(strings.ToLower(lang), "de-")
	for i, w := range words {
		e := texEscape(w)
		if innerCapital(w) || sentenceCase && i > 0 && isCapitalized(w) {
			e = group(e)
		}
		words[i] = e
	}
	return strings.Join(words, " ")
}

// firstLetter returns the first letter of w and its byte offset.
func firstLetter(w string) (rune, int) {
	for i, r := range w {
		if unicode.IsLetter(r) {
			return r, i
		}
	}
	return 0, -1
}

func isCapitalized(w string) bool {
	r, _ := firstLetter(w)
	return r != 0 && unicode.IsUpper(r)
}

// innerCapital reports whether a letter after the first letter of w is a
// capital.
func innerCapital(w string) bool {
	_, i := firstLetter(w)
	if i < 0 {
		return false
	}
	first := true
	for _, r := range w[i:] {
		if first {
			first = false
			continue
		}
		if unicode.IsUpper(r) || unicode.IsTitle(r) {
			return true
		}
	}
	return false
}
