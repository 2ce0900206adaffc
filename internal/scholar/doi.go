package scholar

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDOILength is the longest DOI, in bytes, that NormalizeDOI accepts.
// Real DOIs are rarely longer than 100 bytes; anything near this limit is
// a run of text that happened to follow a DOI prefix.
const MaxDOILength = 300

// doiPrefixes are the spellings that may stand before a DOI proper, in the
// order they are tried (longer first where one is a prefix of another).
var doiPrefixes = []string{
	"https://dx.doi.org/", "http://dx.doi.org/", "https://doi.org/", "http://doi.org/",
	"dx.doi.org/", "doi.org/", "info:doi/", "urn:doi:", "doi:", "doi ",
}

// NormalizeDOI returns the canonical form of a DOI given bare
// ("10.1000/xyz"), as a URL ("https://doi.org/10.1000/XYZ",
// "http://dx.doi.org/..."), or with a "doi:", "info:doi/" or "urn:doi:"
// prefix: lower case (DOIs are case-insensitive), without the prefix,
// percent-encoding decoded and query and fragment dropped when it came as
// a URL, and without trailing punctuation (.,;:?!'", punctuation of other
// scripts, and closing brackets that have no opening partner in the DOI).
// It reports false when s is not a DOI: the directory indicator
// must be "10." followed by a registrant code of at least four digits
// (dot-separated subdivisions allowed), then "/" and a non-empty suffix of
// printable characters without spaces, at most MaxDOILength bytes in all.
//
// NormalizeDOI is idempotent: a DOI it returns normalizes to itself.
func NormalizeDOI(s string) (string, bool) {
	s = strings.TrimSpace(s)
	lower := strings.ToLower(s)
	wasURL := false
	for _, p := range doiPrefixes {
		if strings.HasPrefix(lower, p) {
			s = strings.TrimSpace(s[len(p):])
			wasURL = strings.Contains(p, "/") && !strings.HasPrefix(p, "info:")
			break
		}
	}
	// A DOI from a URL is percent-encoded; so is one whose first slash is
	// (a DOI copied from a query string). Another DOI is taken literally, so
	// that a normalized DOI with a "%" in it stays as it is.
	if wasURL {
		// A URL's query and fragment are not the DOI's: a "?" or "#" in a
		// DOI is percent-encoded in its URL.
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
	}
	if slash := strings.IndexByte(s, '/'); wasURL || (slash < 0 && strings.Contains(strings.ToLower(s), "%2f")) {
		s = percentDecode(s)
	}
	return validDOI(s)
}

// validDOI checks and canonicalizes a DOI without prefix.
func validDOI(s string) (string, bool) {
	if !strings.HasPrefix(s, "10.") {
		return "", false
	}
	s = strings.ToLower(s)
	// Registrant code: digits, at least four before any subdivision dot.
	i := 3
	digits := 0
	for i < len(s) && (isDigit(s[i]) || (s[i] == '.' && digits >= 4 && i+1 < len(s) && isDigit(s[i+1]))) {
		if isDigit(s[i]) {
			digits++
		}
		i++
	}
	if digits < 4 || i >= len(s) || s[i] != '/' {
		return "", false
	}
	s = trimDOITail(s)
	if len(s) <= i+1 || len(s) > MaxDOILength {
		return "", false
	}
	for _, r := range s[i+1:] {
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return "", false
		}
	}
	// Lowering can change the bytes of a few runes in ways a second
	// lowering changes again; refuse those, so that the result is a fixed
	// point.
	if strings.ToLower(s) != s {
		return "", false
	}
	return s, true
}

// trimDOITail removes trailing punctuation that belongs to the sentence
// around a DOI rather than to the DOI: . , ; : ? ! ' ", punctuation of
// other scripts ("…", "”", "。", "）"), and any closing bracket ) ] } >
// without an opening partner inside the DOI.
func trimDOITail(s string) string {
	for len(s) > 0 {
		c := s[len(s)-1]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeLastRuneInString(s); unicode.IsPunct(r) {
				s = s[:len(s)-size]
				continue
			}
			break
		}
		switch c {
		case '.', ',', ';', ':', '?', '!', '\'', '"':
			s = s[:len(s)-1]
			continue
		case ')', ']', '}', '>':
			if strings.Count(s, string(opening(c))) < strings.Count(s, string(c)) {
				s = s[:len(s)-1]
				continue
			}
		}
		break
	}
	return s
}

// opening returns the opening bracket that c closes.
func opening(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	case '}':
		return '{'
	}
	return '<'
}

// MaxDOIs is the most DOIs FindDOIs returns.
const MaxDOIs = 50

// FindDOIs returns the DOIs in s, a free text or a URL, in order of first
// appearance, normalized by NormalizeDOI and without repeats; at most
// MaxDOIs. A DOI is recognized wherever "10.NNNN/" starts a word: bare,
// after "doi:", or in a doi.org or dx.doi.org URL, also percent-encoded in a
// query ("?doi=10.1000%2Fxyz"). It runs to the next space, quote, angle
// bracket, "&" or "#" (so a DOI in a query string stops at the next
// parameter), and, in the path of a URL, to the query ("?") and before
// what publishers put after it (".pdf", "/full", "/abstract"); a SICI
// contribution segment in angle brackets ("<693::AID-ASI4>") is part of
// it. Trailing sentence punctuation is dropped and balanced parentheses
// are kept, as NormalizeDOI does.
func FindDOIs(s string) []string {
	var out []string
	seen := map[string]bool{}
	for off := 0; off < len(s) && len(out) < MaxDOIs; {
		j := strings.Index(s[off:], "10.")
		if j < 0 {
			break
		}
		start := off + j
		off = start + 3
		if start > 0 && endsInWord(s[:start]) {
			continue
		}
		end := doiEnd(s, start)
		cand := s[start:end]
		if start > 0 && s[start-1] == '/' {
			// In a URL's path, as in https://doi.org/10.1000/xyz?utm=x.
			if q := strings.IndexByte(cand, '?'); q >= 0 {
				cand = cand[:q]
			}
			if !strings.HasSuffix(strings.ToLower(s[:start]), "doi.org/") {
				cand = trimPublisherSuffix(cand)
			}
		}
		if strings.Contains(cand, "%") {
			cand = percentDecode(cand)
			// An encoded space, quote, bracket, "&" or "#" ends the DOI as
			// it would in plain text ("?doi=10.1000%2Fabc%22%3E").
			cand = cand[:doiEnd(cand, 0)]
		}
		doi, ok := validDOI(cand)
		if !ok {
			continue
		}
		off = end
		if !seen[doi] {
			seen[doi] = true
			out = append(out, doi)
		}
	}
	return out
}

// publisherSuffixes are what publishers' URLs put after the DOI in their
// path: link.springer.com/content/pdf/10.1007/x.pdf,
// www.frontiersin.org/articles/10.3389/x/full, Wiley's
// /doi/10.1002/x/abstract.
var publisherSuffixes = []string{".pdf", "/full", "/pdf", "/epdf", "/abstract", "/fulltext"}

// trimPublisherSuffix removes one of publisherSuffixes from the end of a
// DOI found in the path of a publisher's URL.
func trimPublisherSuffix(d string) string {
	for _, suf := range publisherSuffixes {
		if len(d) > len(suf) && strings.EqualFold(d[len(d)-len(suf):], suf) {
			return d[:len(d)-len(suf)]
		}
	}
	return d
}

// doiEnd returns where a DOI that starts at s[i] ends in running text: at
// the first stop byte (see isDOIStop) or Unicode space or quotation mark,
// but a SICI contribution segment, "<693::AID-ASI4>" in
// 10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O or
// "<1403:TIOSWV>" in 10.1175/1520-0469(1999)056<1403:TIOSWV>2.0.CO;2, is
// part of the DOI.
func doiEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c == '<' {
			n := siciSegment(s[i:])
			if n == 0 {
				return i
			}
			i += n
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || unicode.In(r, unicode.Pi, unicode.Pf) {
				return i
			}
			i += size
			continue
		}
		if isDOIStop(c) {
			return i
		}
		i++
	}
	return i
}

// siciSegment returns the length of the SICI contribution segment that s
// starts with: "<", at most 64 bytes with a colon and without a slash or a
// stop byte, then ">". It returns 0 if s does not start with one (an HTML
// tag, "<br>" or "</a>", has no colon).
func siciSegment(s string) int {
	colon := false
	for j := 1; j < len(s) && j <= 65; j++ {
		switch c := s[j]; {
		case c == '>':
			if colon {
				return j + 1
			}
			return 0
		case c == ':':
			colon = true
		case c == '/' || isDOIStop(c) || c >= utf8.RuneSelf:
			return 0
		}
	}
	return 0
}

// isDOIStop reports whether c ends a DOI found in running text.
func isDOIStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '<', '>', '&', '#':
		return true
	}
	return c < 0x20 || c == 0x7f
}

// endsInWord reports whether s ends in an ASCII letter or digit, ".", "_",
// or a letter, digit or mark of another script: a DOI must not start in the
// middle of a word or number. Punctuation ("“", "«", "（") may stand
// before it.
func endsInWord(s string) bool {
	c := s[len(s)-1]
	if c < utf8.RuneSelf {
		return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c == '.' || c == '_'
	}
	r, size := utf8.DecodeLastRuneInString(s)
	if r == utf8.RuneError && size <= 1 {
		return true
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.IsNumber(r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// percentDecode decodes %XX escapes, leaving malformed ones as they are.
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}
