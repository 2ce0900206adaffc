package scholar

import (
	"strings"
)

// Page types, as Classify names them.
const (
	TypeArticle     = "article"
	TypePreprint    = "preprint"
	TypeThesis      = "thesis"
	TypeProceedings = "proceedings"
	TypeBook        = "book"
	TypeDataset     = "dataset"
	TypePerson      = "person"
	TypeListing     = "listing"
	TypeNews        = "news"
	TypeOther       = "other"
)

// typeRank orders the types metadata can state: when clues disagree, the
// more specific kind of work wins (a thesis record may also name a journal,
// a preprint server calls itself a journal, a proceedings paper has an
// ISBN).
var typeRank = map[string]int{
	TypeThesis: 1, TypePreprint: 2, TypeProceedings: 3, TypeArticle: 4, TypeBook: 5,
	TypeDataset: 6, TypeNews: 7, TypePerson: 8,
}

// isWork reports whether a page of type t describes one work.
func isWork(t string) bool {
	return typeRank[t] != 0 && typeRank[t] <= typeRank[TypeDataset]
}

// preprintServers are names of preprint servers and report series, in lower
// case, as they appear in venue and publisher fields and in host names.
var preprintServers = []string{
	"arxiv", "biorxiv", "medrxiv", "chemrxiv", "psyarxiv", "socarxiv", "edarxiv", "eartharxiv",
	"engrxiv", "techrxiv", "ssrn", "preprints.org", "research square", "researchsquare",
	"osf preprints", "hal preprint", "authorea", "zenodo preprint",
}

// clueType maps one metadata clue to a type, or "" if it says nothing
// certain. md gives context: a JSON-LD "Article" counts only for a page
// with a venue or DOI, since news sites and blogs use it too.
func clueType(clue string, md *Metadata) string {
	switch clue {
	case "citation_dissertation_institution", "citation_dissertation_name":
		return TypeThesis
	case "citation_arxiv_id", "citation_technical_report_institution", "citation_technical_report_number":
		return TypePreprint
	case "citation_conference_title", "citation_conference":
		return TypeProceedings
	case "citation_journal_title":
		return TypeArticle
	case "citation_book_title", "citation_inbook_title", "citation_isbn":
		return TypeBook
	case "og:type:profile":
		return TypePerson
	case "og:type:book":
		return TypeBook
	}
	vocab, val, _ := strings.Cut(clue, ":")
	switch vocab {
	case "jsonld", "microdata":
		switch val {
		case "Thesis":
			return TypeThesis
		case "Report":
			return TypePreprint
		case "ScholarlyArticle", "MedicalScholarlyArticle":
			return TypeArticle
		case "Article", "TechArticle":
			if md.Venue != "" || md.DOI != "" {
				return TypeArticle
			}
		case "Book", "Chapter":
			return TypeBook
		case "Dataset":
			return TypeDataset
		case "NewsArticle":
			return TypeNews
		case "Person", "ProfilePage":
			return TypePerson
		}
	case "dc.type", "prism.aggregationType":
		return typeFromWord(strings.ToLower(val))
	case "pdf":
		if typeRank[val] != 0 {
			return val
		}
	}
	return ""
}

// typeFromWord reads a free-text type as repositories write it ("Doctoral
// Thesis", "info:eu-repo/semantics/conferenceObject", "Makale").
func typeFromWord(v string) string {
	switch {
	case containsAny(v, "thesis", "dissertation") || hasWord(v, "tez", "tezi", "tezleri"):
		return TypeThesis
	case containsAny(v, "preprint", "working paper", "workingpaper", "technical report", "report"):
		return TypePreprint
	case containsAny(v, "conference", "proceedings", "bildiri"):
		return TypeProceedings
	case containsAny(v, "article", "journal", "makale"):
		return TypeArticle
	case containsAny(v, "book", "chapter", "kitap"):
		return TypeBook
	case containsAny(v, "dataset", "data set", "veri seti"):
		return TypeDataset
	}
	return ""
}

// hasWord reports whether one of words is a word of s.
func hasWord(s string, words ...string) bool {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '/' || r == '-' || r == ',' || r == '.' }) {
		for _, w := range words {
			if f == w {
				return true
			}
		}
	}
	return false
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Classify decides what kind of page this is, and names the rule that
// decided. md may be nil; title is the page's <title> and text its visible
// text.
//
// Metadata decides first: the TypeClues (a thesis institution, a preprint
// server, a conference, a journal, a book, a dataset, news, a person, the
// most specific kind winning), then a venue or publisher that is a preprint
// server, or an ISBN (book). Then a path segment naming theses or
// proceedings (/thesis/, /tez/, /dissertation/, /bildiri/) with a page
// below it, then a DOI with a title (article). URL and text clues come
// last, in this order: a preprint server's abstract page; a path segment
// naming papers or articles (/makale/, /articles/) with a page below it; a person's page (/people/, /faculty/, /staff/,
// /akademik-kadro/, /~name) whose text has few e-mail addresses; a list of
// publications (a title such as "Publications" or "Yayınlar", a
// /publications/ index, or text of which many lines read like citations);
// news (/news/, /haberler/, /duyurular/, /press/); a title that names a
// thesis ("PhD thesis", "Doktora Tezi"). Otherwise the page is "other" with
// the rule "default".
func Classify(md *Metadata, pageURL, title, text string) (typ, rule string) {
	if md == nil {
		md = &Metadata{}
	}
	best, bestRule := "", ""
	for _, c := range md.TypeClues {
		if t := clueType(c, md); t != "" && (best == "" || typeRank[t] < typeRank[best]) {
			best, bestRule = t, c
		}
	}
	if best == "" || typeRank[best] > typeRank[TypePreprint] {
		if s := preprintServer(md); s != "" && (best == "" || isWork(best)) {
			return TypePreprint, "venue:" + s
		}
	}
	if best != "" {
		return best, bestRule
	}
	if len(md.ISBN) > 0 {
		return TypeBook, "isbn"
	}

	path := urlPath(pageURL)
	host := urlHost(pageURL)
	segs := strings.Split(strings.Trim(path, "/"), "/")
	below := func(names ...string) string {
		for i, s := range segs[:max(len(segs)-1, 0)] {
			for _, n := range names {
				if s == n && segs[i+1] != "" && !isIndexSegment(segs[i+1]) {
					return n
				}
			}
		}
		return ""
	}
	// A DOI says the page is a work; a section of theses or proceedings
	// says which kind.
	if s := below("thesis", "theses", "tez", "tezler", "dissertation", "dissertations"); s != "" {
		return TypeThesis, "url:/" + s + "/"
	}
	if s := below("bildiri", "bildiriler", "proceedings"); s != "" {
		return TypeProceedings, "url:/" + s + "/"
	}
	if md.DOI != "" && md.Title != "" {
		return TypeArticle, "doi"
	}
	for _, s := range preprintServers {
		if !strings.Contains(s, " ") && strings.Contains(host, s) && (strings.Contains(path, "/abs/") || strings.Contains(path, "/content/")) {
			return TypePreprint, "url:" + host
		}
	}
	if s := below("makale", "makaleler", "article", "articles"); s != "" {
		return TypeArticle, "url:/" + s + "/"
	}
	if s := below("people", "person", "faculty", "staff", "akademik-kadro", "kadro", "personel", "ogretim-uyeleri", "team"); s != "" && emailCount(text, 4) <= 3 {
		return TypePerson, "url:/" + s + "/"
	}
	if strings.HasPrefix(path, "/~") && len(segs) <= 2 && emailCount(text, 4) <= 3 {
		return TypePerson, "url:/~user/"
	}

	lt := strings.ToLower(strings.TrimSpace(title))
	for _, h := range []string{"publications", "selected publications", "publication list", "list of publications", "bibliography", "yayınlar", "yayınlarımız", "yayın listesi", "makaleler", "bildiriler", "tezler", "theses", "dissertations"} {
		// The heading alone, or before a space ("… | Site", "… - Site")
		// or a colon.
		if rest, ok := strings.CutPrefix(lt, h); ok && (rest == "" || rest[0] == ' ' || rest[0] == ':') {
			return TypeListing, "title:publications"
		}
	}
	if len(segs) > 0 {
		switch last := segs[len(segs)-1]; last {
		case "publications", "yayinlar", "papers", "bibliography", "makaleler", "bildiriler", "tezler", "theses", "dissertations":
			return TypeListing, "url:/" + last + "/"
		}
	}
	if citationLines(text) {
		return TypeListing, "text:publications list"
	}
	for _, s := range segs {
		switch s {
		case "news", "haber", "haberler", "duyuru", "duyurular", "announcements", "press", "press-releases", "basin-bultenleri":
			return TypeNews, "url:/" + s + "/"
		}
	}
	if label, _, _ := strings.Cut(host, "."); label == "news" || label == "haber" || label == "haberler" {
		return TypeNews, "url:" + label + "."
	}
	for _, h := range []string{"news", "haberler", "duyurular"} {
		if rest, ok := strings.CutPrefix(lt, h); ok && (rest == "" || rest[0] == ' ') {
			return TypeNews, "title:news"
		}
	}
	if containsAny(lt, "phd thesis", "doctoral thesis", "master's thesis", "masters thesis", "master thesis", "dissertation", "yüksek lisans tezi", "doktora tezi") {
		return TypeThesis, "title:thesis"
	}
	return TypeOther, "default"
}

// preprintServer returns the preprint server named by the venue or
// publisher, or "".
func preprintServer(md *Metadata) string {
	for _, f := range []string{md.Venue, md.Publisher} {
		l := strings.ToLower(f)
		for _, s := range preprintServers {
			if strings.Contains(l, s) {
				return s
			}
		}
	}
	return ""
}

// isIndexSegment reports whether a path segment names an index page rather
// than an item below a section.
func isIndexSegment(s string) bool {
	switch s {
	case "index.html", "index.htm", "index.php", "index", "default.aspx", "page":
		return true
	}
	return false
}

// urlPath returns the lower-case path of a URL, without query or fragment.
func urlPath(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			u = "/"
		}
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return strings.ToLower(percentDecode(u))
}

// urlHost returns the lower-case host of a URL.
func urlHost(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	u = u[i+3:]
	if j := strings.IndexAny(u, "/?#"); j >= 0 {
		u = u[:j]
	}
	return strings.ToLower(u)
}

// emailCount counts distinct e-mail-like words in text, stopping at limit.
func emailCount(text string, limit int) int {
	seen := map[string]bool{}
	for off := 0; off < len(text) && len(seen) < limit; {
		i := strings.IndexByte(text[off:], '@')
		if i < 0 {
			break
		}
		at := off + i
		s, e := at, at+1
		for s > 0 && isEmailByte(text[s-1]) {
			s--
		}
		for e < len(text) && isEmailByte(text[e]) {
			e++
		}
		if s < at && e > at+1 && strings.Contains(text[at:e], ".") {
			seen[text[s:e]] = true
		}
		off = e
	}
	return len(seen)
}

func isEmailByte(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c == '.' || c == '-' || c == '_' || c == '+'
}

// citationMarkers are words that, beside a year, make a line read like a
// reference.
var citationMarkers = []string{
	"et al", "pp.", "vol.", "doi", "proceedings", "journal", "conference", "in:", "press",
	"dergisi", "kongresi", "sempozyumu", "bildiri", "tezi", "transactions", "symposium",
}

// citationLines reports whether text reads like a list of publications:
// lines that look like references (a year, and two commas, a word such as
// "et al.", "pp.", "Journal", "Dergisi", or the year as references put it,
// "(2019)" or ", 2019."), at least five making up a third of the text or at
// least eight making up a fifth. A paper's own reference list is a small
// part of it.
func citationLines(text string) bool {
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	n, chars := 0, 0
	for line := range strings.SplitSeq(text, "\n") {
		if len(line) < 25 || len(line) > 1000 || !hasYear(line) {
			continue
		}
		l := strings.ToLower(line)
		if strings.Count(l, ",") >= 2 || containsAny(l, citationMarkers...) || yearCited(l) {
			n++
			chars += len(line)
		}
	}
	return (n >= 5 && chars*3 >= len(text)) || (n >= 8 && chars*5 >= len(text))
}

// yearCited reports whether a year stands in s as references write it:
// "(2019)" or ", 2019" followed by a period, comma or the end.
func yearCited(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if !isYearAt(s, i) {
			continue
		}
		if i > 0 && s[i-1] == '(' && i+4 < len(s) && s[i+4] == ')' {
			return true
		}
		if i > 1 && s[i-2] == ',' && s[i-1] == ' ' && (i+4 == len(s) || s[i+4] == '.' || s[i+4] == ',') {
			return true
		}
	}
	return false
}

// hasYear reports whether s has a four-digit number from 1900 to 2099
// standing alone. Such a year starts with "19" or "20": the scan goes
// from one of these to the next (strings.Index, many bytes at a time),
// each searched for again only once passed.
func hasYear(s string) bool {
	next := func(from int, prefix string) int {
		if k := strings.Index(s[from:], prefix); k >= 0 {
			return from + k
		}
		return len(s)
	}
	at19, at20 := next(0, "19"), next(0, "20")
	for {
		i := min(at19, at20)
		if i+4 > len(s) {
			return false
		}
		if isYearAt(s, i) {
			return true
		}
		if i == at19 {
			at19 = next(i+1, "19")
		} else {
			at20 = next(i+1, "20")
		}
	}
}

// isYearAt reports whether a year from 1900 to 2099 starts at s[i] and
// stands alone.
func isYearAt(s string, i int) bool {
	return (s[i] == '1' && s[i+1] == '9' || s[i] == '2' && s[i+1] == '0') && isDigit(s[i+2]) && isDigit(s[i+3]) &&
		(i == 0 || !isDigit(s[i-1])) && (i+4 == len(s) || !isDigit(s[i+4]))
}
