// Package title names a document as a reader would: an HTML page by its
// own title without the site name or section around it, a PDF by a title
// that is not a file name or an editor's placeholder.
//
// It is a pure leaf: functions take strings and return strings, never
// fail, and take time linear in their input.
package title

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Candidates are the names an HTML page gives itself. Any may be empty.
type Candidates struct {
	Title    string // the text of <title>
	Citation string // the work's title in the metadata (citation_title, DC.title)
	OG       string // og:title
	Heading  string // the text of the first <h1>
	Site     string // the site's name (og:site_name)
	Host     string // the page's host name
	// Names are other names the site may go by in its titles: the
	// publisher, the journal.
	Names []string
}

// Bounds on the work of one call.
const (
	maxInput    = 2048 // bytes of a candidate looked at
	maxSegments = 12   // parts of a title told apart
)

// Page returns the page's own title: the part of its <title> that names
// the page, without the site name or a section around it.
//
// The <title> is split into parts at separators standing between spaces
// (| – — - · • » « › ‹ / ~ ::, and ": " more weakly). A run of parts that
// reads the same (case, accents and punctuation aside) as the metadata's
// title or og:title (which may cut at a colon), or as the first <h1> (which
// may not), is the title, unless it is the site's name. Otherwise parts at
// either end that name the site (its og:site_name or host name) or a
// generic section (News, Home, Makale, Startseite) are dropped. When no
// rule applies, or only a generic word would be left, the whole <title> is
// kept. A page without <title> is named by its metadata title, og:title
// or <h1>, in that order; one whose <title> is only the site's name by its
// metadata title or og:title, unless that is the site's name or a generic
// word too.
//
// The result is a substring of the cleaned (whitespace collapsed) <title>
// or a whole cleaned candidate; it is empty only when every candidate is.
func Page(c Candidates) string {
	t := clean(c.Title)
	if t == "" {
		for _, s := range []string{c.Citation, c.OG, c.Heading} {
			if s = clean(s); s != "" {
				return s
			}
		}
		return ""
	}
	segs := split(t)
	site := newSiteMatcher(c.Site, c.Host, ownNames(c))
	allSite := true
	for i := range segs {
		segs[i].site = site.match(segs[i].key) || isWWWHost(t[segs[i].start:segs[i].end])
		allSite = allSite && segs[i].site
	}
	if !allSite && len(segs) > 1 {
		// An end part of up to four words that begins or ends with
		// the host's name ("Die Partei Lübeck" on die-partei.net,
		// "Stadt Stuttgart" on stuttgart.de) names the site too,
		// unless the page's names agree with it: the last one, or the
		// first one if the rest has twice its words.
		if last := &segs[len(segs)-1]; !last.site && site.hostPart(last.key) {
			last.host = true
		} else if first := &segs[0]; !first.site && site.hostPart(first.key) && restWords(segs) >= 2*words(first.key) {
			first.host = true
		}
	}
	if allSite {
		// A <title> that is only the site's name, as some sites give
		// every page: the page's metadata tells it apart. (An <h1> does
		// not: on a home page it is a greeting or a motto.)
		for _, s := range []string{c.Citation, c.OG} {
			if k := key(clip(s)); k != "" && !site.match(k) && !generic[k] {
				return clean(s)
			}
		}
		return t
	}
	if len(segs) < 2 {
		return t
	}

	// Agreement with a name the page gives itself elsewhere: the same
	// words, else (for a name of two words or more) its first words. Of
	// the runs that agree, the one most names agree with, then the
	// longest (a citation_title that is the author's name agrees with a
	// part too).
	whole := false
	cands := []struct {
		k    string
		weak bool // may cut at a colon
	}{{key(clip(c.Citation)), true}, {key(clip(c.OG)), true}, {key(clip(c.Heading)), false}}
	for _, prefix := range []bool{false, true} {
		var runs [3]struct{ i, j, votes int }
		n := 0
		for _, cand := range cands {
			if cand.k == "" || site.match(cand.k) || site.hostPart(cand.k) || prefix && !strings.Contains(cand.k, " ") {
				continue
			}
			i, j, ok := findRun(segs, cand.k, cand.weak, prefix)
			if !ok && !cand.weak {
				// A heading may be what follows a colon when the
				// rest names the site ("DVGW e.V.: Title").
				if i, j, ok = findRun(segs, cand.k, true, prefix); ok && (i == 0 || segs[i].strong || !restSite(segs, i, j)) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			if i == 0 && j == len(segs)-1 {
				whole = true
				continue
			}
			k := 0
			for k < n && (runs[k].i != i || runs[k].j != j) {
				k++
			}
			if k == n {
				runs[k].i, runs[k].j = i, j
				n++
			}
			runs[k].votes++
		}
		best := -1
		for k, r := range runs[:n] {
			if best < 0 || r.votes > runs[best].votes ||
				r.votes == runs[best].votes && segs[r.j].end-segs[r.i].start > segs[runs[best].j].end-segs[runs[best].i].start {
				best = k
			}
		}
		if best >= 0 {
			return t[segs[runs[best].i].start:segs[runs[best].j].end]
		}
	}

	// Drop the site's name and generic sections at the ends.
	i, j := 0, len(segs)-1
	for i < j && (segs[i].site || segs[i].host) {
		i++
	}
	for i < j && (segs[j].site || segs[j].host) {
		j--
	}
	if !whole {
		for i < j && generic[segs[i].key] {
			i++
		}
		for i < j && generic[segs[j].key] {
			j--
		}
	}
	if i == 0 && j == len(segs)-1 {
		return t
	}
	if i == j && (generic[segs[i].key] || segs[i].site) {
		return t // "Home | Site": the site is what the page is
	}
	return t[segs[i].start:segs[j].end]
}

// restSite reports whether the parts before part i and those after part
// j all name the site.
func restSite(segs []segment, i, j int) bool {
	for k := range segs {
		if (k < i || k > j) && !segs[k].site && !segs[k].host {
			return false
		}
	}
	return true
}

// restWords counts the words of the parts after the first that do not
// name the site.
func restWords(segs []segment) int {
	n := 0
	for _, s := range segs[1:] {
		if !s.site {
			n += words(s.key)
		}
	}
	return n
}

// words counts the words of s.
func words(s string) int { return len(strings.Fields(s)) }

// ownNames returns the names the site may go by (c.Names) without those
// that are the page's own title by its metadata or heading (a venue or
// publisher filled with the work's title).
func ownNames(c Candidates) []string {
	own := []string{key(clip(c.Citation)), key(clip(c.OG)), key(clip(c.Heading))}
	var out []string
	for _, n := range c.Names {
		k := key(clip(n))
		if k != "" && (k == own[0] || k == own[1] || k == own[2]) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// generic are section names that say what kind of page it is rather than
// which, as keys.
var generic = map[string]bool{
	"home": true, "homepage": true, "home page": true, "welcome": true, "index": true, "start": true,
	"main page": true, "news": true, "blog": true, "events": true, "article": true, "articles": true,
	"abstract": true, "full text": true, "fulltext": true, "view": true, "item": true, "record": true,
	"anasayfa": true, "ana sayfa": true, "haberler": true, "haber": true, "duyurular": true, "duyuru": true,
	"makale": true, "makaleler": true, "etkinlikler": true, "startseite": true, "aktuelles": true,
	"nachrichten": true, "meldungen": true, "accueil": true, "actualites": true, "inicio": true,
	"noticias": true,
}

// segment is one part of a title.
type segment struct {
	start, end int    // bytes of the title
	key        string // see key
	strong     bool   // the separator before it is a strong one (the first part: true)
	site       bool   // it names the site
	host       bool   // it begins or ends with the host's name (see Page)
}

// separators split a title into parts when they stand between spaces;
// the colon (needing only a space after it) is weaker.
var separators = []string{"|", "–", "—", "-", "·", "•", "»", "«", "›", "‹", "/", "~", "::", "⁄", "*", "⋆", ":", "ǀ"}

// split cuts t (cleaned) into at most maxSegments parts; the last one
// keeps the rest.
func split(t string) []segment {
	var segs []segment
	start, strong := 0, true
	for i := 0; i < len(t) && len(segs) < maxSegments-1; {
		n, isStrong := sepAt(t, i)
		if n == 0 {
			i++
			continue
		}
		// The part before the separator, without the space before it.
		end := i
		for end > start && t[end-1] == ' ' {
			end--
		}
		next := i + n
		for next < len(t) && t[next] == ' ' {
			next++
		}
		if end > start && next < len(t) {
			segs = append(segs, segment{start: start, end: end, strong: strong})
			start, strong = next, isStrong
		}
		i = next
	}
	segs = append(segs, segment{start: start, end: len(t), strong: strong})
	// A part of punctuation only stays with the one before it (the first
	// with the one after it).
	out := segs[:0]
	lead := -1
	for _, s := range segs {
		s.key = key(t[s.start:s.end])
		switch {
		case s.key == "" && len(out) > 0:
			out[len(out)-1].end = s.end
			continue
		case s.key == "":
			if lead < 0 {
				lead = s.start
			}
			continue
		case lead >= 0:
			s.start, s.strong, lead = lead, true, -1
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return []segment{{start: 0, end: len(t), strong: true}}
	}
	return out
}

// sepAt returns the length of the separator at t[i] (0 if none) and
// whether it is a strong one.
func sepAt(t string, i int) (int, bool) {
	if t[i] == ':' && i+1 < len(t) && t[i+1] == ' ' && i > 0 && t[i-1] != ' ' {
		return 1, false
	}
	if i == 0 || t[i-1] != ' ' {
		// "|" needs no spaces; the others need a space before and after.
		if t[i] == '|' {
			return 1, true
		}
		return 0, false
	}
	for _, s := range separators {
		if strings.HasPrefix(t[i:], s) {
			if j := i + len(s); j < len(t) && (t[j] == ' ' || s == "|") {
				return len(s), true
			}
		}
	}
	return 0, false
}

// findRun finds the parts i..j whose keys joined are k, or, if prefix is
// set, begin with the words of k (ending inside part j). It cuts only at
// strong separators unless weak is set. Parts that name the site are not
// part of a run.
func findRun(segs []segment, k string, weak, prefix bool) (int, int, bool) {
	for i := range segs {
		if i > 0 && !weak && !segs[i].strong {
			continue
		}
		rest := k
		for j := i; j < len(segs) && !segs[j].site; j++ {
			sk := segs[j].key
			if prefix && len(rest) < len(sk) && strings.HasPrefix(sk, rest) && sk[len(rest)] == ' ' {
				if j+1 < len(segs) && !weak && !segs[j+1].strong {
					break
				}
				return i, j, true
			}
			if !strings.HasPrefix(rest, sk) {
				break
			}
			rest = rest[len(sk):]
			if rest == "" {
				if j+1 < len(segs) && !weak && !segs[j+1].strong {
					break
				}
				return i, j, true
			}
			if rest[0] != ' ' {
				break
			}
			rest = rest[1:]
		}
	}
	return 0, 0, false
}

// siteMatcher tells the parts of a title that name the site.
type siteMatcher struct {
	name   string   // key of the site name
	squash []string // host spellings without spaces and dots
	labels []string // the host's labels of four letters or more, but the last
}

func newSiteMatcher(site, host string, names []string) *siteMatcher {
	m := &siteMatcher{name: key(clip(site))}
	if m.name != "" {
		m.squash = append(m.squash, squashed(m.name))
	}
	for _, n := range names[:min(len(names), 4)] {
		if k := key(clip(n)); k != "" {
			m.squash = append(m.squash, squashed(k))
		}
	}
	host = strings.ToLower(clip(host))
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host = host[:i]
	}
	host = strings.TrimSuffix(host, ".")
	for _, p := range []string{"www.", "www1.", "www2.", "m."} {
		host = strings.TrimPrefix(host, p)
	}
	if host == "" || strings.ContainsAny(host, "[]") {
		return m
	}
	m.squash = append(m.squash, squashed(key(host)))
	labels := strings.Split(host, ".")
	if len(labels) > 1 {
		m.squash = append(m.squash, squashed(key(strings.Join(labels[:len(labels)-1], "."))))
		for _, l := range labels[:len(labels)-1] {
			if len(l) >= 4 {
				m.squash = append(m.squash, squashed(key(l)))
				m.labels = append(m.labels, squashed(key(l)))
			}
		}
	}
	return m
}

// match reports whether the key k names the site.
func (m *siteMatcher) match(k string) bool {
	if k == "" {
		return false
	}
	if k == m.name {
		return true
	}
	sq := squashed(k)
	for _, s := range m.squash {
		if s != "" && sq == s {
			return true
		}
	}
	return false
}

// hostPart reports whether the key k, of four words or less, begins or
// ends with one of the host's names ("Stadt Stuttgart" on stuttgart.de).
func (m *siteMatcher) hostPart(k string) bool {
	if words(k) > 4 {
		return false
	}
	sq := squashed(k)
	for _, l := range m.labels {
		if l != "" && (strings.HasPrefix(sq, l) || strings.HasSuffix(sq, l)) {
			return true
		}
	}
	return false
}

func squashed(k string) string { return strings.ReplaceAll(k, " ", "") }

// isWWWHost reports whether a part of a title is a bare host name of the
// web ("www.example.edu", "WWW2.Example.co.uk"): whichever its host, such
// a part names a site, not a page.
func isWWWHost(part string) bool {
	part = strings.TrimSuffix(part, ".")
	if len(part) > 253 {
		return false
	}
	labels := strings.Split(strings.ToLower(part), ".")
	if len(labels) < 3 || labels[0] != "www" && labels[0] != "www1" && labels[0] != "www2" {
		return false
	}
	for _, l := range labels {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	return len(tld) >= 2 && strings.Trim(tld, "abcdefghijklmnopqrstuvwxyz") == ""
}

// clip cuts s to maxInput bytes at a character boundary.
func clip(s string) string {
	if len(s) <= maxInput {
		return s
	}
	n := maxInput
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clean collapses runs of white space to one space and trims, within
// maxInput bytes; invalid UTF-8 is dropped.
func clean(s string) string {
	s = clip(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) && !unicode.IsSpace(r) {
			continue
		}
		if unicode.IsSpace(r) {
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

// key is what two spellings of a title have in common: letters and
// digits in lower case without accents (dotless ı read as i, ß as ss),
// words separated by one space.
func key(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			s = norm.NFKD.String(s)
			break
		}
	}
	b := make([]byte, 0, len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = false
			switch r {
			case 'ı', 'İ':
				b = append(b, 'i')
			case 'ß':
				b = append(b, "ss"...)
			default:
				b = utf8.AppendRune(b, unicode.ToLower(r))
			}
		case r == '\'' || r == '’':
			// "Master's" reads like "Masters".
		default:
			space = true
		}
	}
	return string(b)
}

// junkTitles are, as keys, the titles that editors and converters give a
// document nobody named.
var junkTitles = map[string]bool{
	"untitled": true, "no title": true, "title": true, "document": true, "doc": true, "paper": true,
	"article": true, "manuscript": true, "draft": true, "template": true, "main": true, "thesis": true,
	"report": true, "presentation": true, "powerpoint presentation": true, "slide": true, "word": true,
	"pdf": true, "print": true, "unknown": true, "none": true, "null": true, "anonymous": true,
	"latex": true, "tex": true, "default": true, "new document": true, "cover": true, "layout": true,
	"titel": true, "unbenannt": true, "dokument": true, "sans titre": true, "basliksiz": true,
	"belge": true, "isimsiz": true, "adsiz": true,
}

// junkPrefixes start the titles that office programs and printer drivers
// write ("Microsoft Word - paper.docx"), in lower case.
var junkPrefixes = []string{
	"microsoft word", "microsoft powerpoint", "microsoft excel", "untitled", "doi:", "pii:", "pii ",
	"file:", "c:\\", "d:\\", "/home/", "/users/", "/tmp/", "http://", "https://", "www.",
}

// fileExts are the extensions of the file names that stand as titles.
var fileExts = []string{
	".doc", ".docx", ".pdf", ".tex", ".dvi", ".ps", ".rtf", ".odt", ".indd", ".qxd", ".qxp", ".txt",
	".ppt", ".pptx", ".xls", ".xlsx", ".html", ".htm", ".eps", ".wpd", ".pages", ".fm", ".p65",
}

// Plausible reports whether s, the Title of a document's information
// dictionary, is plausibly the document's title: not a file name
// ("paper_v2.docx", "jwas-1287"), a path, a converter's label ("Microsoft
// Word - paper.docx"), a placeholder ("Untitled", "Document1", "Slide 1"),
// an identifier (a DOI, "PII: S0001…", "JMB 12345 1..12") or a string
// without two letters.
func Plausible(s string) bool {
	s = clean(s)
	k := key(s)
	if k == "" {
		return false
	}
	letters := 0
	for _, r := range k {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 2 {
		return false
	}
	l := strings.ToLower(s)
	for _, p := range junkPrefixes {
		if strings.HasPrefix(l, p) {
			return false
		}
	}
	for _, e := range fileExts {
		if strings.HasSuffix(l, e) {
			return false
		}
	}
	if strings.HasPrefix(l, "10.") && strings.Contains(l, "/") {
		return false // a DOI
	}
	// A placeholder, perhaps numbered: "Document1", "Slide 3", "untitled-2".
	if junkTitles[strings.TrimRight(k, " 0123456789")] {
		return false
	}
	if i := strings.Index(l, ".."); i > 0 && isDigitByte(l[i-1]) && i+2 < len(l) && isDigitByte(l[i+2]) {
		return false // a typesetter's page range, "JMB 12345 1..12"
	}
	if !strings.Contains(s, " ") && strings.ContainsFunc(s, func(r rune) bool {
		return r == '_' || r == '.' || r == '\\' || r == '/' || unicode.IsDigit(r)
	}) {
		return false // one token with digits, dots or underscores: a file name
	}
	return true
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// Contains reports whether text holds t, case, accents, punctuation and
// spacing aside (as Page compares names). An empty t is in no text.
func Contains(text, t string) bool {
	k := key(clip(t))
	if k == "" {
		return false
	}
	tk := key(text)
	for off := 0; ; {
		i := strings.Index(tk[off:], k)
		if i < 0 {
			return false
		}
		i += off
		// Whole words only.
		if (i == 0 || tk[i-1] == ' ') && (i+len(k) == len(tk) || tk[i+len(k)] == ' ') {
			return true
		}
		off = i + 1
	}
}
