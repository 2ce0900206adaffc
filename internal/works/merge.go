package works

import (
	"sort"
	"strings"
)

// Field says where a field of a work came from: the source of the copy
// that gave it, and the copy's URL.
type Field struct {
	Source Source `json:"source"`
	URL    string `json:"url"`
}

// CopyRef is a copy as a work lists it.
type CopyRef struct {
	PageID     int64  `json:"page_id"`
	URL        string `json:"url"`
	Kind       Kind   `json:"kind"`
	OpenAccess bool   `json:"open_access"`
	Source     Source `json:"source"`
}

// Work is what a work's copies say, merged. Its JSON is what stores keep
// and crawl.Work reads.
type Work struct {
	ID        int64    `json:"id"`
	Type      string   `json:"type,omitempty"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors,omitempty"`
	Year      int      `json:"year,omitempty"`
	Date      string   `json:"date,omitempty"`
	Venue     string   `json:"venue,omitempty"`
	Volume    string   `json:"volume,omitempty"`
	Issue     string   `json:"issue,omitempty"`
	FirstPage string   `json:"first_page,omitempty"`
	LastPage  string   `json:"last_page,omitempty"`
	Publisher string   `json:"publisher,omitempty"`
	DOI       string   `json:"doi,omitempty"`
	// DOIs are every DOI of the copies, the work's own first.
	DOIs     []string `json:"dois,omitempty"`
	Abstract string   `json:"abstract,omitempty"`
	Keywords []string `json:"keywords,omitempty"`
	// URL is the work's landing page (its best copy that is no PDF), PDFURL
	// its open access PDF; OpenAccess says whether it has one.
	URL        string `json:"url,omitempty"`
	PDFURL     string `json:"pdf_url,omitempty"`
	OpenAccess bool   `json:"open_access"`
	// Fields says where each field came from, by its JSON name.
	Fields map[string]Field `json:"fields,omitempty"`
	Copies []CopyRef        `json:"copies"`
}

// maxKeywords bounds a work's keywords.
const maxKeywords = 50

// Order sorts copies as Merge reads them: most trusted source first; of
// equal source, a published copy before a preprint, then by kind (landing
// page, repository record, PDF, preprint, other), then by URL.
func Order(copies []Copy) {
	sort.SliceStable(copies, func(i, j int) bool {
		a, b := &copies[i], &copies[j]
		if ra, rb := a.Source.Rank(), b.Source.Rank(); ra != rb {
			return ra < rb
		}
		if ka, kb := kindRank[a.Kind], kindRank[b.Kind]; ka != kb {
			return ka < kb
		}
		return a.URL < b.URL
	})
}

// Merge makes a work of its copies. Each field comes from the first copy
// in Order that has it, and Fields records which: conflicting metadata is
// resolved by source priority (citation_* over JSON-LD over Dublin Core
// over a PDF's information over guesses from text). The DOI is the first
// that is not a preprint server's, if any; the authors are those of the
// first copy that has authors, each written as fully as any copy writes
// the same person ("J. Sato" becomes "Jamal Sato" when another copy says
// so), without repeats; keywords are gathered from every copy, without
// repeats whatever their case. Copies lists every copy in Order; a
// landing page is open access when the PDF it names is among the copies
// and open access. The work's ID is left 0.
func Merge(copies []Copy) Work {
	cs := append([]Copy(nil), copies...)
	Order(cs)
	w := Work{Fields: map[string]Field{}}
	str := func(name string, dst *string, get func(c *Copy) string) {
		for i := range cs {
			if v := strings.TrimSpace(get(&cs[i])); v != "" {
				*dst = v
				w.Fields[name] = Field{cs[i].Source, cs[i].URL}
				return
			}
		}
	}
	str("title", &w.Title, func(c *Copy) string { return c.Title })
	str("type", &w.Type, func(c *Copy) string {
		if c.Type == "other" {
			return ""
		}
		return c.Type
	})
	for i := range cs {
		if cs[i].Year != 0 {
			w.Year, w.Date = cs[i].Year, cs[i].Date
			w.Fields["year"] = Field{cs[i].Source, cs[i].URL}
			break
		}
	}
	str("venue", &w.Venue, func(c *Copy) string {
		if c.Kind == KindPreprint {
			return ""
		}
		return c.Venue
	})
	if w.Venue == "" {
		str("venue", &w.Venue, func(c *Copy) string { return c.Venue })
	}
	str("volume", &w.Volume, func(c *Copy) string { return c.Volume })
	str("issue", &w.Issue, func(c *Copy) string { return c.Issue })
	str("first_page", &w.FirstPage, func(c *Copy) string { return c.FirstPage })
	str("last_page", &w.LastPage, func(c *Copy) string { return c.LastPage })
	str("publisher", &w.Publisher, func(c *Copy) string { return c.Publisher })
	str("abstract", &w.Abstract, func(c *Copy) string { return c.Abstract })
	str("doi", &w.DOI, func(c *Copy) string {
		if PreprintDOI(c.DOI) {
			return ""
		}
		return c.DOI
	})
	if w.DOI == "" {
		str("doi", &w.DOI, func(c *Copy) string { return c.DOI })
	}
	if w.DOI != "" {
		w.DOIs = append(w.DOIs, w.DOI)
	}
	for i := range cs {
		if d := cs[i].DOI; d != "" && !contains(w.DOIs, d) {
			w.DOIs = append(w.DOIs, d)
		}
	}
	w.Authors = mergeAuthors(cs, w.Fields)
	seenKW := map[string]bool{}
	for i := range cs {
		for _, k := range cs[i].Keywords {
			n := NormalizeTitle(k)
			if n == "" || seenKW[n] || len(w.Keywords) >= maxKeywords {
				continue
			}
			if len(w.Keywords) == 0 {
				w.Fields["keywords"] = Field{cs[i].Source, cs[i].URL}
			}
			seenKW[n] = true
			w.Keywords = append(w.Keywords, strings.TrimSpace(k))
		}
	}
	oaPDF := map[string]bool{}
	for i := range cs {
		if cs[i].Kind == KindPDF && cs[i].OpenAccess {
			oaPDF[cs[i].URL] = true
			if w.PDFURL == "" {
				w.PDFURL = cs[i].URL
			}
		}
	}
	w.OpenAccess = w.PDFURL != ""
	for i := range cs {
		c := &cs[i]
		if w.URL == "" && c.Kind != KindPDF {
			w.URL = c.URL
		}
		oa := c.OpenAccess || (c.PDFURL != "" && oaPDF[c.PDFURL])
		w.Copies = append(w.Copies, CopyRef{PageID: c.PageID, URL: c.URL, Kind: c.Kind, OpenAccess: oa, Source: c.Source})
	}
	if w.URL == "" && len(cs) > 0 {
		w.URL = cs[0].URL
	}
	return w
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// mergeAuthors returns the author list of the first copy (in Order) that
// has one, each name replaced by the fullest spelling of the same person
// among the copies, without repeats.
func mergeAuthors(cs []Copy, fields map[string]Field) []string {
	base := -1
	for i := range cs {
		if len(cs[i].Authors) > 0 {
			base = i
			break
		}
	}
	if base < 0 {
		return nil
	}
	fields["authors"] = Field{cs[base].Source, cs[base].URL}
	type spelled struct {
		name string
		p    Person
	}
	var others []spelled
	for i := range cs {
		if i == base {
			continue
		}
		for _, a := range cs[i].Authors {
			others = append(others, spelled{a, ParsePerson(a)})
		}
	}
	var out []string
	var kept []Person
	for _, a := range cs[base].Authors {
		a = strings.TrimSpace(a)
		p := ParsePerson(a)
		if p.Family == "" {
			continue
		}
		dup := false
		for _, k := range kept {
			if samePerson(k, p) && len(k.Given) > 0 && len(p.Given) > 0 {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		best, bp := a, p
		for _, o := range others {
			if samePerson(o.p, p) && o.p.fullness() > bp.fullness() {
				best, bp = displayName(o.name), o.p
			}
		}
		out = append(out, best)
		kept = append(kept, p)
	}
	return out
}

// displayName writes "Family, Given" as "Given Family", the way the
// extractor writes names.
func displayName(s string) string {
	s = strings.TrimSpace(s)
	fam, given, ok := strings.Cut(s, ",")
	if !ok || strings.Contains(given, ",") {
		return s
	}
	return strings.TrimSpace(given) + " " + strings.TrimSpace(fam)
}
