package scholar

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Caps on what Extract returns, so that a hostile or broken page cannot make
// a record large.
const (
	MaxField    = 1 << 10 // bytes of any string field but Abstract
	MaxAbstract = 8 << 10 // bytes of Abstract
	MaxAuthors  = 100
	MaxKeywords = 50
	MaxIDs      = 10 // ISSNs, and ISBNs
)

// clean makes a metadata value presentable: invalid UTF-8 and control
// characters dropped, whitespace (no-break spaces included) collapsed to
// single spaces, leading and trailing space trimmed, and the result cut to
// at most max bytes on a character boundary.
func clean(s string, max int) string {
	if len(s) > 4*max+64 {
		s = s[:4*max+64] // enough to fill max after collapsing
	}
	var b strings.Builder
	b.Grow(min(len(s), max))
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			continue
		case unicode.IsSpace(r) || r == '\u00a0' || r == '\u200b':
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == '\ufeff' || r == utf8.RuneError:
			continue
		}
		if space {
			if b.Len()+1 > max {
				break
			}
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > max {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripTags removes what looks like markup from a value that some sites put
// HTML into (citation_abstract with <p> and <i>): every "<...>" run whose
// first character after "<" is a letter, "/" or "!". Tags other than inline
// ones (<i>, <sub>, <span>, ...) become a space.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 || i+1 >= len(s) {
			break
		}
		c := s[i+1]
		if !(c == '/' || c == '!' || (c|0x20 >= 'a' && c|0x20 <= 'z')) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		name := strings.TrimPrefix(s[i+1:i+j], "/")
		if k := strings.IndexAny(name, " \t\n/"); k >= 0 {
			name = name[:k]
		}
		if !inlineTags[strings.ToLower(name)] {
			b.WriteByte(' ') // a block ends a word; <i> and <sub> do not
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// nameSuffixes are what may follow a comma in a name without the comma
// separating family and given names.
var nameSuffixes = map[string]bool{
	"jr": true, "jr.": true, "sr": true, "sr.": true, "ii": true, "iii": true, "iv": true,
	"phd": true, "ph.d.": true, "md": true, "m.d.": true, "prof": true, "prof.": true, "dr": true, "dr.": true,
}

// cleanAuthor normalizes one author name. Whitespace is collapsed and
// surrounding punctuation trimmed; a name in "Family, Given" order (one
// comma, at most four words on each side, no digits, and no suffix such as
// "Jr." after the comma) is turned into "Given Family", so that names from
// citation_author ("Nguyen, Rania") and from JSON-LD ("Rania Nguyen")
// compare equal. Values that are URLs or e-mail addresses, or that have no
// letter, are not names and give "".
func cleanAuthor(s string) string {
	s = clean(s, MaxField)
	s = strings.Trim(s, " ,;:")
	if s == "" || strings.Contains(s, "://") || strings.HasPrefix(s, "www.") || strings.Contains(s, "@") {
		return ""
	}
	if !strings.ContainsFunc(s, unicode.IsLetter) {
		return ""
	}
	if strings.Count(s, ",") == 1 && !strings.ContainsFunc(s, unicode.IsDigit) {
		family, given, _ := strings.Cut(s, ",")
		family, given = strings.TrimSpace(family), strings.TrimSpace(given)
		nf, ng := len(strings.Fields(family)), len(strings.Fields(given))
		if nf >= 1 && nf <= 4 && ng >= 1 && ng <= 4 && !nameSuffixes[strings.ToLower(given)] {
			s = given + " " + family
		}
	}
	return s
}

// appendUnique appends v to list unless it is empty, already there, or the
// list has max entries.
func appendUnique(list []string, v string, max int) []string {
	if v == "" || len(list) >= max {
		return list
	}
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// splitList splits a keyword list as sites write it: on semicolons if there
// are any, else on commas, else one keyword.
func splitList(s string) []string {
	sep := ";"
	if !strings.Contains(s, ";") {
		sep = ","
	}
	return strings.Split(s, sep)
}

// normalizeISSN returns an ISSN as NNNN-NNNX, validating its check digit.
func normalizeISSN(s string) (string, bool) {
	var d []byte
	for i := 0; i < len(s) && len(d) <= 8; i++ {
		c := s[i]
		switch {
		case isDigit(c) || ((c == 'x' || c == 'X') && len(d) == 7):
			d = append(d, c)
		case c == '-' || c == ' ':
		default:
			if len(d) > 0 {
				i = len(s)
			}
		}
	}
	if len(d) != 8 {
		return "", false
	}
	if d[7] == 'x' {
		d[7] = 'X'
	}
	sum := 0
	for i := 0; i < 7; i++ {
		sum += int(d[i]-'0') * (8 - i)
	}
	check := (11 - sum%11) % 11
	want := byte('0' + check)
	if check == 10 {
		want = 'X'
	}
	if d[7] != want {
		return "", false
	}
	return string(d[:4]) + "-" + string(d[4:]), true
}

// normalizeISBN returns an ISBN-10 or ISBN-13 as its digits (and a final X
// for ISBN-10), validating its check digit.
func normalizeISBN(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if l := strings.ToLower(s); strings.HasPrefix(l, "isbn") || strings.HasPrefix(l, "urn:isbn:") {
		s = strings.TrimLeft(s[strings.Index(l, "isbn")+4:], ":- ")
	}
	var d []byte
	for i := 0; i < len(s) && len(d) <= 13; i++ {
		c := s[i]
		switch {
		case isDigit(c):
			d = append(d, c)
		case (c == 'x' || c == 'X') && len(d) == 9:
			d = append(d, 'X')
		case c == '-' || c == ' ':
		default:
			i = len(s)
		}
	}
	switch len(d) {
	case 10:
		sum := 0
		for i := 0; i < 10; i++ {
			v := int(d[i] - '0')
			if d[i] == 'X' {
				if i != 9 {
					return "", false
				}
				v = 10
			}
			sum += v * (10 - i)
		}
		if sum%11 != 0 {
			return "", false
		}
	case 13:
		sum := 0
		for i := 0; i < 13; i++ {
			if d[i] == 'X' {
				return "", false
			}
			w := 1
			if i%2 == 1 {
				w = 3
			}
			sum += int(d[i]-'0') * w
		}
		if sum%10 != 0 {
			return "", false
		}
	default:
		return "", false
	}
	return string(d), true
}
