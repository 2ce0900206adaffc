// Package works joins the copies of a scholarly work (its publisher's
// landing page, the PDF, a repository's record, a preprint) into one
// record: which copies belong together (Match, Keys, Join), and what the
// work says when its copies disagree (Merge).
//
// It is a pure leaf: functions take values and return values, never fail
// and take time linear in their input (every text is cut at MaxText bytes
// first). Stores call it at commit time; see docs/works.md.
package works

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/cite"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/scholar"
)

// MaxText is the number of bytes of a title or name that normalization
// reads; the rest is ignored.
const MaxText = 2048

// NormalizeDOI returns the canonical form of a DOI, lower case and without
// resolver or "doi:" prefix (scholar.NormalizeDOI), or "" when s is not a
// DOI.
func NormalizeDOI(s string) string {
	d, ok := scholar.NormalizeDOI(s)
	if !ok {
		return ""
	}
	return d
}

// PreprintDOI reports whether a (normalized) DOI is a preprint server's
// (arXiv's 10.48550, bioRxiv's and medRxiv's 10.1101 are not: they are
// given to posted preprints and their published versions alike, so only
// arXiv's is recognized). A work may have a preprint DOI beside its
// published DOI.
func PreprintDOI(doi string) bool {
	return strings.HasPrefix(doi, "10.48550/")
}

// cut returns at most the first n bytes of s, cut at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// NormalizeTitle returns the form in which two spellings of one title
// agree: case and diacritics folded (query.Fold: "Öğrenme" is "ogrenme"),
// every run of characters that are neither letters nor digits (punctuation,
// dashes, quotes, white space) a single space, trimmed. It is idempotent.
func NormalizeTitle(s string) string {
	return words(query.Fold(cut(s, MaxText)))
}

// words keeps the letters, digits and combining marks of s, turning every
// run of other characters into one space, and trims.
func words(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

// subtitleSeps are what separates a title from its subtitle, tried in
// order: the first found (at least minMain bytes into the title) cuts it.
var subtitleSeps = []string{": ", " — ", " – ", " - ", "? ", ". ", "; "}

// minMain is the shortest main title, in bytes, that a subtitle
// separator may end ("A: the …" keeps its "A").
const minMain = 8

// SplitTitle returns the normalized main title and subtitle of a title:
// "Crawling the Web: Lessons from a Decade" gives "crawling the web" and
// "lessons from a decade". Deposits and indexes often drop a subtitle, so
// copies are matched by their main titles (see Match).
func SplitTitle(s string) (main, sub string) {
	s = cut(s, MaxText)
	best := -1
	sep := ""
	for _, p := range subtitleSeps {
		if i := strings.Index(s[min(minMain, len(s)):], p); i >= 0 {
			i += min(minMain, len(s))
			if best < 0 || i < best {
				best, sep = i, p
			}
		}
	}
	if best < 0 {
		return NormalizeTitle(s), ""
	}
	main, sub = NormalizeTitle(s[:best]), NormalizeTitle(s[best+len(sep):])
	if main == "" {
		return NormalizeTitle(s), ""
	}
	return main, sub
}

// Person is an author's name normalized for matching: the family name and
// the given names, each folded as NormalizeTitle folds, the given names as
// separate words ("j", "a" for "J. A.").
type Person struct {
	Family string
	Given  []string
}

// ParsePerson reads a name as cite.ParseName does ("Jamal Sato",
// "Sato, J.", "Sato JA", "Anna van der Berg") and normalizes it. An
// organization's name is all family. The particle is left out ("van der
// Berg" and "Berg" are one family name), as are suffixes.
func ParsePerson(s string) Person {
	n := cite.ParseName(cut(s, MaxText))
	if n.Literal != "" {
		return Person{Family: NormalizeTitle(n.Literal)}
	}
	p := Person{Family: NormalizeTitle(n.Family)}
	for _, g := range strings.Fields(NormalizeTitle(n.Given)) {
		p.Given = append(p.Given, g)
	}
	if len(p.Given) == 1 && len(p.Given[0]) > 1 && len(p.Given[0]) <= 3 && isUpperASCII(n.Given) {
		// "Sato JA": initials written together.
		g := p.Given[0]
		p.Given = nil
		for i := 0; i < len(g); i++ {
			p.Given = append(p.Given, g[i:i+1])
		}
	}
	return p
}

func isUpperASCII(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// FamilyKey returns the last word of a name's normalized family name: the
// part of a name that every spelling of it keeps ("Anna van der Berg",
// "Berg, A." and "van der Berg, Anna" give "berg"). "" when the name has
// none.
func FamilyKey(name string) string {
	f := ParsePerson(name).Family
	if i := strings.LastIndexByte(f, ' '); i >= 0 {
		return f[i+1:]
	}
	return f
}

// SamePerson reports whether two spellings may name one person: the same
// family key, and given names that agree word by word as far as both go,
// an initial agreeing with any name it begins ("J." and "Jamal"; "J. A."
// and "Jamal"; not "Jamal" and "John", nor "J." and "K."). A name without
// given names agrees with any.
func SamePerson(a, b string) bool {
	return samePerson(ParsePerson(a), ParsePerson(b))
}

func samePerson(a, b Person) bool {
	if a.Family == "" || lastWord(a.Family) != lastWord(b.Family) {
		return false
	}
	for i := 0; i < len(a.Given) && i < len(b.Given); i++ {
		x, y := a.Given[i], b.Given[i]
		if x == y {
			continue
		}
		if firstRuneLen(x) == len(x) || firstRuneLen(y) == len(y) {
			// an initial
			if x[:firstRuneLen(x)] == y[:firstRuneLen(y)] {
				continue
			}
		}
		return false
	}
	return true
}

func lastWord(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

func firstRuneLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}

// fullness is how much of a name is written: the letters of its given
// names. Of two spellings of one person the fuller one is kept.
func (p Person) fullness() int {
	n := 0
	for _, g := range p.Given {
		n += len(g)
	}
	return n
}
