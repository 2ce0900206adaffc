package scholar

import (
	"strings"
)

// The vocabularies of <meta> tags, each read into its own record. Names are
// compared in lower case; Highwire names may also carry the bepress_ prefix
// that Digital Commons sites use, Dublin Core names may be dc., dcterms. or
// dc: and PRISM names prism. or prism:.

// metaKey maps a lower-case meta name to its vocabulary and the name within
// it, or "" for names no vocabulary here reads.
func metaKey(name string) (vocab, key string) {
	switch {
	case strings.HasPrefix(name, "citation_"):
		return "highwire", name[len("citation_"):]
	case strings.HasPrefix(name, "bepress_citation_"):
		return "highwire", name[len("bepress_citation_"):]
	case strings.HasPrefix(name, "dcterms."), strings.HasPrefix(name, "dcterms:"):
		return "dublincore", name[len("dcterms."):]
	case strings.HasPrefix(name, "dc."), strings.HasPrefix(name, "dc:"):
		return "dublincore", name[len("dc."):]
	case strings.HasPrefix(name, "prism."), strings.HasPrefix(name, "prism:"):
		return "prism", name[len("prism."):]
	case strings.HasPrefix(name, "og:"), strings.HasPrefix(name, "article:"),
		strings.HasPrefix(name, "book:"), strings.HasPrefix(name, "profile:"):
		return "opengraph", name
	}
	return "", ""
}

// fromMetas reads the meta-tag vocabularies into one record each.
func fromMetas(metas []meta) map[string]*record {
	recs := map[string]*record{}
	get := func(v string) *record {
		r := recs[v]
		if r == nil {
			r = &record{}
			recs[v] = r
		}
		return r
	}
	for _, m := range metas {
		vocab, key := metaKey(m.name)
		if vocab == "" {
			continue
		}
		v := m.content
		r := get(vocab)
		switch vocab {
		case "highwire":
			highwire(r, key, v)
		case "dublincore":
			dublinCore(r, key, v)
		case "prism":
			prism(r, key, v)
		case "opengraph":
			openGraph(r, key, v)
		}
	}
	return recs
}

// setOnce sets *dst to v cleaned, if *dst is empty.
func setOnce(dst *string, v string) {
	if *dst == "" {
		*dst = clean(v, MaxField)
	}
}

// setDate sets the record's date from v, if v parses and the record has
// no date yet from a tag of the same or a better rank (lower is better):
// a page may give its online date before its publication date.
func (r *record) setDate(v string, rank int) {
	if r.date != "" && r.dateRank <= rank {
		return
	}
	if d, y, ok := parseDate(v); ok {
		r.date, r.year, r.dateRank = d, y, rank
	}
}

func (r *record) clue(c string) {
	for _, x := range r.clues {
		if x == c {
			return
		}
	}
	if len(r.clues) < 16 {
		r.clues = append(r.clues, c)
	}
}

func (r *record) setDOI(v string) {
	if r.doi != "" {
		return
	}
	if d, ok := NormalizeDOI(v); ok {
		r.doi = d
	} else if ds := FindDOIs(v); len(ds) > 0 {
		r.doi = ds[0]
	}
}

func (r *record) addKeywords(v string) {
	for _, k := range splitList(v) {
		r.keywords = appendUnique(r.keywords, clean(k, MaxField), MaxKeywords)
	}
}

// highwire reads the Highwire Press citation_* tags that Google Scholar
// documents.
func highwire(r *record, key, v string) {
	switch key {
	case "title":
		setOnce(&r.title, v)
	case "author":
		r.authors = appendUnique(r.authors, cleanAuthor(v), MaxAuthors)
	case "authors":
		for _, a := range strings.Split(v, ";") {
			r.authors = appendUnique(r.authors, cleanAuthor(a), MaxAuthors)
		}
	case "publication_date", "date":
		r.setDate(v, 0)
	case "cover_date", "year":
		r.setDate(v, 1)
	case "online_date":
		r.setDate(v, 2) // the first appearance online, often a year before the issue
	case "journal_title":
		setOnce(&r.venue, v)
		r.clue("citation_journal_title")
	case "conference_title", "conference":
		setOnce(&r.venue, v)
		r.clue("citation_" + key)
	case "inbook_title", "book_title":
		setOnce(&r.venue, v)
		r.clue("citation_" + key)
	case "dissertation_institution", "dissertation_name":
		r.clue("citation_" + key)
		if key == "dissertation_institution" {
			r.institution = clean(v, MaxField)
		}
	case "technical_report_institution", "technical_report_number":
		r.clue("citation_" + key)
		if key == "technical_report_institution" {
			setOnce(&r.publisher, v)
		}
	case "arxiv_id":
		r.clue("citation_arxiv_id")
		r.arxiv = arxivDOI(v)
	case "volume":
		setOnce(&r.volume, v)
	case "issue":
		setOnce(&r.issue, v)
	case "firstpage":
		setOnce(&r.firstPage, v)
	case "lastpage":
		setOnce(&r.lastPage, v)
	case "doi":
		r.setDOI(v)
	case "pdf_url":
		setOnce(&r.pdf, v)
	case "abstract_html_url":
		setOnce(&r.abstractURL, v)
	case "issn", "eissn":
		r.issn = addISSNs(r.issn, v)
	case "isbn":
		r.isbn = addISBN(r.isbn, v)
		r.clue("citation_isbn")
	case "publisher":
		setOnce(&r.publisher, v)
	case "keywords", "keyword":
		r.addKeywords(v)
	case "abstract":
		if r.abstract == "" {
			r.abstract = v
		}
	}
}

// dublinCore reads Dublin Core elements and terms as repositories (DSpace,
// EPrints, OJS) write them.
func dublinCore(r *record, key, v string) {
	switch key {
	case "title":
		setOnce(&r.title, v)
	case "creator", "creator.personalname", "contributor.author":
		r.authors = appendUnique(r.authors, cleanAuthor(v), MaxAuthors)
	case "issued", "date.issued", "date":
		r.setDate(v, 0)
	case "created", "date.created":
		r.setDate(v, 1)
	case "identifier", "identifier.doi", "identifier.uri":
		r.setDOI(v)
		if l := strings.ToLower(v); strings.Contains(l, "isbn") {
			r.isbn = addISBN(r.isbn, v)
		} else if i := indexASCIIFold(v, "issn"); i >= 0 {
			// Found in v itself: an index into strings.ToLower(v) may be
			// past its end, as lowering can lengthen a value.
			r.issn = addISSNs(r.issn, strings.TrimLeft(v[i+4:], ": "))
		}
	case "identifier.isbn":
		r.isbn = addISBN(r.isbn, v)
	case "identifier.issn":
		r.issn = addISSNs(r.issn, v)
	case "publisher":
		setOnce(&r.publisher, v)
	case "subject", "subject.other", "subject.keywords":
		r.addKeywords(v)
	case "abstract", "description.abstract":
		if r.abstract == "" {
			r.abstract = v
		}
	case "description":
		if r.desc == "" {
			r.desc = v
		}
	case "type":
		if t := clean(v, 64); t != "" {
			r.clue("dc.type:" + t)
		}
	case "ispartof", "relation.ispartof", "relation.ispartofseries", "source":
		if !isURL(v) && !strings.HasPrefix(strings.ToLower(v), "urn:") {
			setOnce(&r.venue, v)
		}
	}
}

// prism reads the PRISM tags some publishers add.
func prism(r *record, key, v string) {
	switch key {
	case "publicationname":
		setOnce(&r.venue, v)
	case "volume":
		setOnce(&r.volume, v)
	case "number", "issueidentifier":
		setOnce(&r.issue, v)
	case "startingpage":
		setOnce(&r.firstPage, v)
	case "endingpage":
		setOnce(&r.lastPage, v)
	case "doi":
		r.setDOI(v)
	case "issn", "eissn":
		r.issn = addISSNs(r.issn, v)
	case "isbn":
		r.isbn = addISBN(r.isbn, v)
	case "publicationdate", "coverdate":
		r.setDate(v, 0)
	case "keyword":
		r.addKeywords(v)
	case "aggregationtype":
		if t := clean(v, 64); t != "" {
			r.clue("prism.aggregationType:" + t)
		}
	}
}

// openGraph reads Open Graph and its article:, book: and profile: tags.
// og:description is left alone: it is a teaser written for link previews,
// often the site's slogan, not an abstract.
func openGraph(r *record, key, v string) {
	switch key {
	case "og:title":
		setOnce(&r.title, v)
	case "og:type":
		if t := strings.ToLower(clean(v, 64)); t == "profile" || t == "book" {
			r.clue("og:type:" + t)
		}
	case "article:published_time", "book:release_date":
		r.setDate(v, 0)
	case "article:author", "book:author":
		r.authors = appendUnique(r.authors, cleanAuthor(v), MaxAuthors)
	case "article:tag", "book:tag":
		r.keywords = appendUnique(r.keywords, clean(v, MaxField), MaxKeywords)
	case "book:isbn":
		r.isbn = addISBN(r.isbn, v)
	}
}

// arxivDOI returns the DOI arXiv registers for an arXiv identifier
// ("2401.01234", "arXiv:2401.01234v2", "cs/0112017"): 10.48550/arXiv.ID
// without the version, normalized; "" if it does not make a DOI.
func arxivDOI(id string) string {
	id = strings.TrimSpace(id)
	if len(id) > 6 && strings.EqualFold(id[:6], "arxiv:") {
		id = id[6:]
	}
	if i := strings.LastIndexByte(id, 'v'); i > 0 && i < len(id)-1 && strings.Trim(id[i+1:], "0123456789") == "" {
		id = id[:i]
	}
	if id == "" || strings.ContainsAny(id, " \t\n") {
		return ""
	}
	d, _ := NormalizeDOI("10.48550/arXiv." + id)
	return d
}

// indexASCIIFold returns the index in s of the first instance of sub, an
// ASCII lower-case word, ignoring the case of ASCII letters; -1 if there is
// none.
func indexASCIIFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}
