package scholar

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// record is what one vocabulary says about the page.
type record struct {
	title, date                      string
	year, dateRank                   int // dateRank: how good the tag that gave date is, lower is better
	authors, keywords, issn, isbn    []string
	venue, volume, issue             string
	firstPage, lastPage              string
	doi, pdf, abstractURL, publisher string
	abstract                         string
	desc                             string // a description, the abstract if there is no other
	institution                      string // a thesis's degree-granting institution: venue and publisher if there is no other
	arxiv                            string // the arXiv DOI of an arXiv identifier: the DOI if there is no other
	clues                            []string
}

// schemaRank orders schema.org types by how well they describe a scholarly
// page's main entity: lower is better; types not listed are not candidates.
var schemaRank = map[string]int{
	"ScholarlyArticle": 1, "MedicalScholarlyArticle": 1, "Thesis": 1, "Dataset": 1,
	"Book": 1, "Chapter": 1, "Report": 1,
	"Article": 2, "TechArticle": 2, "NewsArticle": 2, "BlogPosting": 2, "CreativeWork": 2,
	"Person": 3, "ProfilePage": 4,
}

// maxSchemaRank is the highest rank in schemaRank.
const maxSchemaRank = 4

// maxJSONNodes bounds the nodes looked at in one page's JSON-LD.
const maxJSONNodes = 1000

// parseJSONLD decodes the JSON values in one JSON-LD block (one, or several
// in a row as some sites write them). A block that does not parse gives what
// parsed before the error.
func parseJSONLD(raw []byte) []any {
	raw = bytes.TrimSpace(raw)
	for _, w := range [][2]string{{"<!--", "-->"}, {"//<![CDATA[", "//]]>"}, {"<![CDATA[", "]]>"}} {
		if bytes.HasPrefix(raw, []byte(w[0])) {
			raw = bytes.TrimSuffix(bytes.TrimSpace(raw[len(w[0]):]), []byte(w[1]))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []any
	for len(out) < 16 {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		out = append(out, v)
	}
	return out
}

// schemaNodes returns the candidate main entities in decoded JSON-LD
// values: top-level objects, members of @graph and of arrays, and the
// mainEntity of pages, in document order; and, for each, whether it is the
// mainEntity of a page (there, or by its @id).
func schemaNodes(vals []any) (nodes []map[string]any, main []bool) {
	var mainIDs []string
	seen := 0
	var walk func(v any, depth int, isMain bool)
	walk = func(v any, depth int, isMain bool) {
		if depth > 8 || seen > maxJSONNodes {
			return
		}
		seen++
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e, depth+1, isMain)
			}
		case map[string]any:
			if g, ok := v["@graph"]; ok {
				walk(g, depth+1, false)
			}
			if _, ok := v["@type"]; ok {
				nodes = append(nodes, v)
				main = append(main, isMain)
			} else if id := str(v["@id"]); isMain && id != "" && len(mainIDs) < 16 {
				mainIDs = append(mainIDs, id)
			}
			if m, ok := v["mainEntity"]; ok {
				walk(m, depth+1, true)
			}
		}
	}
	for _, v := range vals {
		walk(v, 0, false)
	}
	for i, n := range nodes {
		if id := str(n["@id"]); id != "" && has(mainIDs, id) {
			main[i] = true
		}
	}
	return nodes, main
}

// schemaTypes returns the schema.org type names of a node, without a
// vocabulary prefix ("schema:Person", "https://schema.org/Person" give
// "Person").
func schemaTypes(n map[string]any) []string {
	var out []string
	for _, t := range strs(n["@type"], 8) {
		if i := strings.LastIndexAny(t, "/:#"); i >= 0 {
			t = t[i+1:]
		}
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// bestNode picks the main entity: the first node of the best rank. main,
// if not nil, tells which nodes are the mainEntity of a page.
//
// Several nodes of one type with different titles are a list of works (a
// publications page, a journal's issue), none of which is the page's: of
// them only the one that is the page's mainEntity can be picked, and if
// none is, the next rank is tried (the Person whose publications they are).
func bestNode(nodes []map[string]any, main []bool) (map[string]any, string) {
	type cand struct {
		n     map[string]any
		typ   string
		rank  int
		title string
		main  bool
	}
	var cands []cand
	for i, n := range nodes {
		c := cand{n: n, rank: 100}
		for _, t := range schemaTypes(n) {
			if r, ok := schemaRank[t]; ok && r < c.rank {
				c.typ, c.rank = t, r
			}
		}
		if c.typ == "" {
			continue
		}
		c.title = strings.ToLower(clean(nodeTitle(n), MaxField))
		c.main = main != nil && main[i]
		cands = append(cands, c)
	}
	for rank := 1; rank <= maxSchemaRank; rank++ {
		var first, onlyMain *cand
		list, mains := false, 0
		titles := map[string]string{} // a title of each type, of the nodes that have one
		for i := range cands {
			c := &cands[i]
			if c.rank != rank {
				continue
			}
			if first == nil {
				first = c
			}
			if c.main {
				onlyMain = c
				mains++
			}
			if c.title != "" {
				if t, ok := titles[c.typ]; ok && t != c.title {
					list = true
				}
				titles[c.typ] = c.title
			}
		}
		switch {
		case first == nil:
		case !list:
			return first.n, first.typ
		case mains == 1:
			return onlyMain.n, onlyMain.typ
		}
	}
	return nil, ""
}

// nodeTitle returns the title of a schema.org entity: its headline or name.
func nodeTitle(n map[string]any) string {
	if t := str(n["headline"]); t != "" {
		return t
	}
	return str(n["name"])
}

// fromSchema maps a schema.org entity (from JSON-LD or microdata) to a
// record. source names the vocabulary in clues ("jsonld", "microdata").
//
// ids are the page's entities by their @id, for the values that refer to
// one rather than describe it ({"@id": "#author-1"}, as @graph has them);
// nil for microdata.
func fromSchema(n map[string]any, typ, source string, ids refs) *record {
	r := &record{clues: []string{source + ":" + typ}}
	// A scholarly work's description is its abstract; a news story's or a
	// blog post's is a teaser.
	scholarly := schemaRank[typ] == 1 || typ == "Article" || typ == "TechArticle"
	// Title.
	r.title = str(n["headline"])
	if r.title == "" {
		r.title = str(n["name"])
	}
	if r.title == "" && typ == "Person" {
		r.title = strings.TrimSpace(str(n["givenName"]) + " " + str(n["familyName"]))
	}
	// Authors.
	for _, key := range []string{"author", "creator"} {
		for _, a := range list(n[key], MaxAuthors) {
			if personName(a) == "" {
				a = ids.deref(a)
			}
			r.authors = appendUnique(r.authors, cleanAuthor(personName(a)), MaxAuthors)
		}
		if len(r.authors) > 0 {
			break
		}
	}
	// Date.
	for _, key := range []string{"datePublished", "dateCreated", "publicationDate", "copyrightYear"} {
		if d, y, ok := parseDate(str(n[key])); ok {
			r.date, r.year = d, y
			break
		}
	}
	// Venue, volume, issue, ISSN along the isPartOf chain.
	r.volume = str(n["volumeNumber"])
	r.issue = str(n["issueNumber"])
	r.issn = addISSNs(r.issn, n["issn"])
	cur := n
	for depth := 0; depth < 5; depth++ {
		next := firstMap(cur["isPartOf"])
		if d, ok := ids.deref(next).(map[string]any); ok {
			next = d
		}
		if next == nil {
			if s := str(cur["isPartOf"]); s != "" && r.venue == "" && !isURL(s) {
				r.venue = s
			}
			break
		}
		cur = next
		types := schemaTypes(cur)
		switch {
		case has(types, "PublicationIssue"):
			if r.issue == "" {
				r.issue = str(cur["issueNumber"])
			}
		case has(types, "PublicationVolume"):
			if r.volume == "" {
				r.volume = str(cur["volumeNumber"])
			}
		default:
			if r.venue == "" {
				r.venue = str(cur["name"])
			}
		}
		r.issn = addISSNs(r.issn, cur["issn"])
		if r.volume == "" {
			r.volume = str(cur["volumeNumber"])
		}
	}
	if r.venue == "" {
		if ev := firstMap(n["publication"]); ev != nil {
			r.venue = str(ev["name"])
		}
	}
	// Pages.
	r.firstPage, r.lastPage = str(n["pageStart"]), str(n["pageEnd"])
	if r.firstPage == "" {
		r.firstPage, r.lastPage = splitPages(str(n["pagination"]))
	}
	// Identifiers.
	for _, key := range []string{"identifier", "sameAs", "@id", "url"} {
		for _, v := range list(n[key], 20) {
			s := str(v)
			if m, ok := v.(map[string]any); ok {
				if id := strings.ToLower(str(m["propertyID"])); id != "" && id != "doi" {
					if id == "isbn" {
						r.isbn = addISBN(r.isbn, str(m["value"]))
					}
					continue
				}
				s = str(m["value"])
			}
			if d := FindDOIs(s); len(d) > 0 && r.doi == "" {
				r.doi = d[0]
			}
		}
	}
	for _, v := range strs(n["isbn"], MaxIDs) {
		r.isbn = addISBN(r.isbn, v)
	}
	// PDF: an encoding, associated medium or distribution in PDF.
	for _, key := range []string{"encoding", "associatedMedia", "distribution"} {
		for _, m := range list(n[key], 20) {
			mm, ok := m.(map[string]any)
			if !ok {
				continue
			}
			u := str(mm["contentUrl"])
			if u == "" {
				u = str(mm["url"])
			}
			if strings.Contains(strings.ToLower(str(mm["encodingFormat"])), "pdf") || isPDFURL(u) {
				if r.pdf == "" {
					r.pdf = u
				}
			}
		}
	}
	if scholarly {
		if u := str(n["url"]); u != "" {
			if isPDFURL(u) {
				if r.pdf == "" {
					r.pdf = u
				}
			} else {
				r.abstractURL = u
			}
		}
	}
	// Publisher.
	r.publisher = orgName(ids.deref(n["publisher"]))
	if r.publisher == "" && typ == "Thesis" {
		r.publisher = orgName(ids.deref(n["sourceOrganization"]))
	}
	// Keywords.
	for _, k := range list(n["keywords"], MaxKeywords) {
		s := str(k)
		if m, ok := k.(map[string]any); ok {
			s = str(m["name"])
		}
		parts := []string{s}
		if _, isList := n["keywords"].([]any); !isList {
			parts = splitList(s)
		}
		for _, p := range parts {
			r.keywords = appendUnique(r.keywords, clean(p, MaxField), MaxKeywords)
		}
	}
	// Abstract.
	r.abstract = str(n["abstract"])
	if r.abstract == "" && scholarly {
		r.abstract = str(n["description"])
	}
	return r
}

// refs are the entities of a page's JSON-LD by their @id.
type refs map[string]map[string]any

// refsOf returns the nodes by their @id, the first of each.
func refsOf(nodes []map[string]any) refs {
	ids := refs{}
	for _, n := range nodes {
		if id := str(n["@id"]); id != "" && ids[id] == nil {
			ids[id] = n
		}
	}
	return ids
}

// deref returns the entity that v refers to, if v is a reference: an
// object with an @id and no name of its own. Otherwise it returns v.
func (ids refs) deref(v any) any {
	m, ok := v.(map[string]any)
	if !ok || len(ids) == 0 || m["name"] != nil {
		return v
	}
	if n := ids[str(m["@id"])]; n != nil {
		return n
	}
	return v
}

// str returns a JSON-LD value as a string: a string or number itself, the
// @value or name of an object, the first usable member of an array.
func str(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case map[string]any:
		if s := str(v["@value"]); s != "" {
			return s
		}
		if _, ok := v["@list"]; ok {
			return str(v["@list"])
		}
		return str(v["name"])
	case []any:
		for i, e := range v {
			if i >= 16 {
				break
			}
			if s := str(e); s != "" {
				return s
			}
		}
	}
	return ""
}

// list returns the members of a JSON-LD value that may be one value, an
// array, or a {"@list": [...]} object; at most max.
func list(v any, max int) []any {
	if m, ok := v.(map[string]any); ok {
		if l, ok := m["@list"]; ok {
			v = l
		}
	}
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		if len(v) > max {
			v = v[:max]
		}
		return v
	}
	return []any{v}
}

// strs returns the string members of a value that may be a string or an
// array of strings.
func strs(v any, max int) []string {
	var out []string
	for _, e := range list(v, max) {
		if s := str(e); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func firstMap(v any) map[string]any {
	for _, e := range list(v, 4) {
		if m, ok := e.(map[string]any); ok {
			return m
		}
	}
	return nil
}

// personName returns the name of an author value: a string, or an object
// with name or givenName and familyName.
func personName(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return str(v)
	}
	given, family := str(m["givenName"]), str(m["familyName"])
	if given != "" && family != "" {
		return given + " " + family
	}
	return str(m["name"])
}

// orgName returns the name of a publisher value: a string or an object.
func orgName(v any) string {
	if m := firstMap(v); m != nil {
		return str(m["name"])
	}
	if s := str(v); !isURL(s) {
		return s
	}
	return ""
}

func addISSNs(list []string, v any) []string {
	for _, s := range strs(v, MaxIDs) {
		if n, ok := normalizeISSN(s); ok {
			list = appendUnique(list, n, MaxIDs)
		}
	}
	return list
}

func addISBN(list []string, s string) []string {
	if n, ok := normalizeISBN(s); ok {
		list = appendUnique(list, n, MaxIDs)
	}
	return list
}

// splitPages splits "121-131", "121–131" or "pp. 121-131" into first and
// last page.
func splitPages(s string) (string, string) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "pp."), "p."))
	for _, sep := range []string{"–", "—", "-"} {
		if a, b, ok := strings.Cut(s, sep); ok {
			return strings.TrimSpace(a), strings.TrimSpace(b)
		}
	}
	return s, ""
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "//")
}

// isPDFURL reports whether a URL names a PDF by its path: ending in .pdf,
// or a /pdf/ path segment as arXiv and many publishers use.
func isPDFURL(u string) bool {
	l := strings.ToLower(u)
	if i := strings.IndexAny(l, "?#"); i >= 0 {
		l = l[:i]
	}
	return strings.HasSuffix(l, ".pdf") || strings.Contains(l, "/pdf/")
}

// microdataMap converts a microdata item to the shape of a JSON-LD node,
// so that fromSchema reads both.
func microdataMap(it *mdItem, depth int) map[string]any {
	m := map[string]any{}
	var types []any
	for _, t := range it.types {
		types = append(types, t)
	}
	m["@type"] = types
	if depth > 6 {
		return m
	}
	for k, vs := range it.props {
		var out []any
		for _, v := range vs {
			if sub, ok := v.(*mdItem); ok {
				out = append(out, microdataMap(sub, depth+1))
			} else {
				out = append(out, v)
			}
		}
		if len(out) == 1 {
			m[k] = out[0]
		} else {
			m[k] = out
		}
	}
	return m
}
