package cite

import (
	"strings"
	"unicode"
)

// Name is an author's name in its parts, as BibTeX and CSL see them.
// A person has a Family name and usually Given names; an organization,
// or a name that cannot be told apart, has only Literal.
type Name struct {
	Given    string // "Anna", "J. A."
	Particle string // "van der" in "Anna van der Berg" (CSL: non-dropping-particle)
	Family   string // "Berg"
	Suffix   string // "Jr.", "III"
	Literal  string // "World Health Organization": a name written as it is
}

// IsZero reports whether n has no part.
func (n Name) IsZero() bool {
	return n.Given == "" && n.Particle == "" && n.Family == "" && n.Suffix == "" && n.Literal == ""
}

// String returns n in the sorted form that ParseName reads back into the
// same parts: "Particle Family, Suffix, Given" ("van der Berg, Jr., Anna",
// "Sato, Jamal", "Sato"), or "{Literal}" for an organization.
func (n Name) String() string {
	if n.Literal != "" {
		return "{" + n.Literal + "}"
	}
	fam := joinWords(n.Particle, n.Family)
	switch {
	case n.Suffix != "":
		return fam + ", " + n.Suffix + ", " + n.Given
	case n.Given != "":
		return fam + ", " + n.Given
	case strings.Contains(fam, " "):
		return fam + "," // several words, all of the family name
	}
	return fam
}

// Display returns n as written in running text: "Anna van der Berg Jr.".
func (n Name) Display() string {
	if n.Literal != "" {
		return n.Literal
	}
	return joinWords(n.Given, n.Particle, n.Family, n.Suffix)
}

// clean returns n with every part cleaned; a person without a family name
// gets the given name as family name.
func (n Name) clean() Name {
	n = Name{Given: clean(n.Given), Particle: clean(n.Particle), Family: clean(n.Family), Suffix: clean(n.Suffix), Literal: clean(n.Literal)}
	if n.Literal != "" {
		return Name{Literal: n.Literal}
	}
	if n.Family == "" {
		n.Family, n.Particle = joinWords(n.Particle, n.Given), ""
		n.Given = ""
	}
	return n
}

func joinWords(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

var dropBraces = strings.NewReplacer("{", "", "}", "")

// maxPersonName is the length in bytes beyond which a name is not taken
// apart: it is written as a literal.
const maxPersonName = 256

// suffixes are the words that may follow a family name without being a
// given name.
var suffixes = map[string]bool{
	"jr": true, "jr.": true, "sr": true, "sr.": true, "jnr": true, "jnr.": true, "snr": true, "snr.": true,
	"ii": true, "iii": true, "iv": true,
}

// corporateWords mark a name as an organization's.
var corporateWords = map[string]bool{
	"organization": true, "organisation": true, "university": true, "universität": true, "universitat": true,
	"université": true, "universidad": true, "università": true, "universiteit": true, "üniversitesi": true,
	"institute": true, "institut": true, "instituto": true, "istituto": true, "association": true, "society": true,
	"committee": true, "consortium": true, "collaboration": true, "council": true, "agency": true,
	"department": true, "ministry": true, "foundation": true, "center": true, "centre": true, "laboratory": true,
	"laboratories": true, "group": true, "team": true, "project": true, "commission": true, "office": true,
	"bureau": true, "network": true, "programme": true, "union": true, "board": true, "academy": true,
	"federation": true, "corporation": true, "inc": true, "ltd": true, "gmbh": true, "llc": true, "company": true,
	"hospital": true, "college": true, "initiative": true, "alliance": true, "authority": true,
	"administration": true, "secretariat": true, "partnership": true, "services": true, "service": true,
	"bank": true, "museum": true, "library": true, "gesellschaft": true, "bakanlığı": true, "kurumu": true,
	// words that join the parts of an organization's name, not a person's
	"of": true, "for": true, "and": true, "the": true, "on": true, "und": true, "für": true, "&": true,
}

// ParseName takes an author's name apart. It reads "Given Family"
// ("Jamal Sato", "J. Sato", "Anna van der Berg", "Jamal Sato Jr."),
// "Family, Given" ("Sato, Jamal", "van der Berg, Anna"), "Family, Suffix,
// Given" and "Family, Given, Suffix", and "Family INITIALS" ("Sato JA").
// As in BibTeX, lowercase words before the family name are its particle.
// A name in braces ("{World Health Organization}"), one with words of an
// organization (University, Institute, of, &), digits, a semicolon, or
// more than two commas is a Literal. ParseName(n.String()) == n for every n it returns.
func ParseName(s string) Name {
	s = clean(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && wholeGroup(s) {
		return literal(s)
	}
	s = strings.Trim(clean(dropBraces.Replace(s)), " ;")
	if !strings.ContainsFunc(s, unicode.IsLetter) {
		return Name{}
	}
	if len(s) > maxPersonName || corporate(s) || strings.Contains(s, ";") {
		return literal(s)
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.Trim(parts[i], " ;")
	}
	var n Name
	switch {
	case len(parts) == 1:
		n = natural(strings.Fields(parts[0]))
	case len(parts) == 2 && isSuffix(parts[1]) && parts[0] != "":
		n = natural(strings.Fields(parts[0]))
		if n.Suffix != "" {
			return literal(s)
		}
		n.Suffix = parts[1]
	case len(parts) == 2:
		n = sorted(parts[0], parts[1], "")
	case len(parts) == 3 && isSuffix(parts[1]):
		n = sorted(parts[0], parts[2], parts[1])
	case len(parts) == 3 && isSuffix(parts[2]):
		n = sorted(parts[0], parts[1], parts[2])
	default:
		return literal(s)
	}
	if n.Family == "" {
		if n.Particle != "" || n.Given == "" {
			return literal(s)
		}
		suffix := n.Suffix
		n = natural(strings.Fields(n.Given))
		if suffix != "" {
			if n.Suffix != "" {
				return literal(s)
			}
			n.Suffix = suffix
		}
	}
	if n.Suffix == "" && isSuffix(n.Given) {
		// "Jr Sato" is read as "Sato, Jr", which is how String writes it
		n.Suffix, n.Given = n.Given, ""
	}
	return n
}

// wholeGroup reports whether the brace opening s closes at its end.
func wholeGroup(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i == len(s)-1
			}
		}
	}
	return false
}

func literal(s string) Name {
	s = strings.TrimSpace(clean(dropBraces.Replace(s)))
	if s == "" {
		return Name{}
	}
	return Name{Literal: s}
}

func corporate(s string) bool {
	if strings.ContainsFunc(s, unicode.IsDigit) || strings.ContainsAny(s, "&@") {
		return true
	}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' }) {
		if corporateWords[strings.ToLower(strings.Trim(w, ".()"))] {
			return true
		}
	}
	return false
}

func isSuffix(s string) bool { return suffixes[strings.ToLower(s)] }

// lowerWord reports whether the first letter of w is lowercase.
func lowerWord(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return unicode.IsLower(r)
		}
	}
	return false
}

// natural takes apart "Given [particle] Family [Suffix]".
func natural(words []string) Name {
	var n Name
	if len(words) >= 2 && isSuffix(words[len(words)-1]) {
		n.Suffix = words[len(words)-1]
		words = words[:len(words)-1]
	}
	switch len(words) {
	case 0:
		return n
	case 1:
		n.Family = words[0]
		return n
	case 2:
		if g, ok := initials(words[1]); ok && !isInitials(words[0]) {
			n.Family, n.Given = words[0], g
			return n
		}
	}
	last := len(words) - 1
	from, to := -1, -1 // the particle: words[from:to]
	for i := 1; i < last; i++ {
		if lowerWord(words[i]) {
			if from < 0 {
				from = i
			}
			to = i + 1
		}
	}
	if from < 0 {
		from, to = last, last
	}
	n.Given = strings.Join(words[:from], " ")
	n.Particle = strings.Join(words[from:to], " ")
	n.Family = strings.Join(words[to:], " ")
	return n
}

// sorted takes apart "[particle] Family" and adds the given names and
// suffix.
func sorted(family, given, suffix string) Name {
	words := strings.Fields(family)
	to := 0
	if len(words) > 1 && lowerWord(words[0]) {
		for i := 0; i < len(words)-1; i++ {
			if lowerWord(words[i]) {
				to = i + 1
			}
		}
	}
	return Name{
		Given:    given,
		Particle: strings.Join(words[:to], " "),
		Family:   strings.Join(words[to:], " "),
		Suffix:   suffix,
	}
}

// initials reads a word of one to three capital letters, as in "Sato JA",
// and returns them as "J. A.".
func initials(w string) (string, bool) {
	if len(w) == 0 || len(w) > 3 {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c < 'A' || c > 'Z' {
			return "", false
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(c)
		b.WriteByte('.')
	}
	return b.String(), true
}

// isInitials reports whether w is written as initials ("JA", "J.").
func isInitials(w string) bool {
	if _, ok := initials(w); ok {
		return true
	}
	return len(w) <= 4 && strings.HasSuffix(w, ".")
}
