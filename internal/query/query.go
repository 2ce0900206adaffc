// Package query parses what users type into the search box and writes it out
// for each full-text backend: an SQLite FTS5 MATCH expression, a PostgreSQL
// to_tsquery input, and the terms the OpenSearch backend builds its query
// from.
//
// The package is a pure leaf: it takes strings and returns values, does no
// I/O and keeps no state. Parse never fails, and the backend expressions are
// valid for any input: a user who types quotes, parentheses, stars, colons,
// operator words or SQL gets results or an empty list, never an error.
//
// The syntax is small:
//
//	word         a word; several words must all match, anywhere
//	"a b c"      a phrase: the words in this order, next to each other
//	-word        the word must not match; so must -"a b" not
//	word*        a prefix: any word starting with "word"; "a b"* makes the
//	             last word of a phrase a prefix
//
// Everything else is text. Words are runs of letters, digits, private-use
// characters and combining marks, as SQLite's unicode61 tokenizer sees them
// (marks are kept inside a word so that Indic and decomposed words stay
// whole). Words are lowercased rune by rune, so Turkish "İ" becomes "i" and
// "ı", "ş", "ğ" stay as they are; nothing else is folded (no diacritic
// removal, no Unicode normalization): the backends fold what their index
// folds. SQLite's tokenizer leaves "İ" and some other capitals as they are:
// its store indexes text through Fold, which lowercases those.
//
// Decisions where user input is ambiguous:
//   - A chunk of non-space text that holds several words ("e-mail",
//     "10.1000/xyz", "title:foo") is a phrase of those words, the way FTS5
//     and PostgreSQL's phraseto_tsquery read a string with punctuation.
//     For PostgreSQL the chunk is kept whole, punctuation included
//     ("/usr/bin", "+1-555-0100", "https://x.org/a/"), since its parser
//     reads paths, URLs and signed numbers by it.
//   - '-' excludes only at the start of a chunk ("-x", "--x", -"a b"); inside
//     a chunk it separates words. A trailing '*' makes a prefix only right
//     after a word character ("foo*", not "foo.*"). A lone "-" or "*" and
//     chunks without words (";", "()") are ignored.
//   - An unbalanced quote closes at the end of the input; an empty phrase
//     ("") is ignored; a quoted single word is a plain word.
//   - AND, OR, NOT and NEAR are plain words: the backends' operators are
//     never exposed, so that pasted text cannot change the query's meaning.
//   - Only the first MaxLength bytes are read; the HTTP API refuses longer
//     queries, so the limit only bounds the work of callers that skip that
//     check.
//   - Invalid UTF-8 bytes separate words, so every output is valid UTF-8.
package query

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLength is the number of bytes of a query that are accepted: the HTTP API
// answers 400 above it, and Parse reads no further.
const MaxLength = 500

// ErrTooBroad is the error of a query whose work has no useful bound: see
// Check. The HTTP API answers it with 400.
var ErrTooBroad = errors.New("query too broad")

// Bounds of a query's work, which Check enforces. A prefix is searched as
// every indexed word it begins, merged: a one-letter prefix is a good part
// of the index, and the backends' work per matching document grows with
// the number of terms (a query of 160 "r*" took minutes). Repeated terms
// are merged by Parse and do not count twice.
const (
	MinPrefix   = 2  // letters (runes) a prefix needs
	MaxPrefixes = 5  // prefix terms in a query
	MaxWords    = 40 // words in all the terms of a query
)

// Term is one condition of a query: a word, a phrase, or a prefix, which the
// matching documents must contain, or, when Exclude is set, must not.
type Term struct {
	// Words holds one word, or several for a phrase, lowercased. For a
	// prefix, the last word is the prefix.
	Words []string
	// Chunks holds the same words as typed, lowercased, split at spaces
	// only, with the punctuation in and around them ("human-computer",
	// "www.example.org", "/usr/bin", "(a)"): the words of each chunk, in
	// order, are Words.
	// PostgreSQL's parser keeps such compounds as tokens of their own
	// (positions included), so TSQuery hands it the chunks to split as it
	// split the documents.
	Chunks []string
	// Phrase is set when Words holds several words that must appear in
	// order, next to each other.
	Phrase bool
	// Prefix is set when the last word matches any word it begins.
	Prefix bool
	// Exclude is set when matching documents must not contain the term.
	Exclude bool
}

// Query is a parsed user query.
type Query struct {
	// Terms holds the conditions in the order they were typed.
	Terms []Term
	// Raw is the query as the user typed it, for display.
	Raw string
}

// Parse reads a user query. It never fails: text it does not understand is
// searched as words, and what holds no word is ignored.
func Parse(q string) Query {
	s := q
	if len(s) > MaxLength {
		// Cut before the rune that crosses the limit, if any.
		cut := MaxLength
		for i := 0; i < utf8.UTFMax && cut > 0 && !utf8.RuneStart(q[cut]); i++ {
			cut--
		}
		s = q[:cut]
	}
	var terms []Term
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		// A chunk: a run of text up to a space or a quote.
		start := i
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || r == '"' {
				break
			}
			i += n
		}
		chunk := s[start:i]
		if i < len(s) && s[i] == '"' && strings.Trim(chunk, "-") == "" {
			// A phrase, excluded when a '-' stands right before its quote.
			end := strings.IndexByte(s[i+1:], '"')
			var body string
			if end < 0 {
				body, i = s[i+1:], len(s)
			} else {
				body, i = s[i+1:i+1+end], i+2+end
			}
			t := Term{Words: words(body), Chunks: chunks(body), Exclude: chunk != ""}
			for i < len(s) && s[i] == '*' {
				t.Prefix = true
				i++
			}
			if t.Prefix && !endsInWord(body) {
				t.Prefix = false
			}
			if len(t.Words) > 0 {
				t.Phrase = len(t.Words) > 1
				terms = append(terms, t)
			}
			continue
		}
		if t, ok := chunkTerm(chunk); ok {
			terms = append(terms, t)
		}
	}
	return Query{Terms: dedupe(terms), Raw: q}
}

// dedupe drops the terms that repeat an earlier one: a document matches
// both or neither.
func dedupe(terms []Term) []Term {
	if len(terms) < 2 {
		return terms
	}
	seen := make(map[string]bool, len(terms))
	out := terms[:0]
	for _, t := range terms {
		// Words are separated by a byte no word holds.
		k := fmt.Sprint(t.Prefix, t.Exclude, t.Phrase) + "\x00" + strings.Join(t.Words, "\x00") + "\x00\x00" + strings.Join(t.Chunks, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// Check reports whether the query's work is bounded: an error wrapping
// ErrTooBroad, which says why in words a user can act on, when a prefix is
// shorter than MinPrefix letters, when there are more than MaxPrefixes
// prefix terms, or more than MaxWords words in all (excluded terms
// included: they are searched too).
func (q Query) Check() error {
	prefixes, words := 0, 0
	for _, t := range q.Terms {
		words += len(t.Words)
		if !t.Prefix {
			continue
		}
		prefixes++
		if p := t.Words[len(t.Words)-1]; utf8.RuneCountInString(p) < MinPrefix {
			return fmt.Errorf("%w: the prefix %q* is shorter than %d letters", ErrTooBroad, p, MinPrefix)
		}
	}
	if prefixes > MaxPrefixes {
		return fmt.Errorf("%w: %d prefixes (word*), at most %d", ErrTooBroad, prefixes, MaxPrefixes)
	}
	if words > MaxWords {
		return fmt.Errorf("%w: %d words, at most %d", ErrTooBroad, words, MaxWords)
	}
	return nil
}

// chunkTerm reads a chunk of text without spaces or quotes.
func chunkTerm(chunk string) (Term, bool) {
	var t Term
	if rest := strings.TrimLeft(chunk, "-"); rest != chunk {
		t.Exclude = true
		chunk = rest
	}
	if rest := strings.TrimRight(chunk, "*"); rest != chunk && endsInWord(rest) {
		t.Prefix = true
		chunk = rest
	}
	t.Words = words(chunk)
	t.Chunks = chunks(chunk)
	t.Phrase = len(t.Words) > 1
	return t, len(t.Words) > 0
}

// isWordRune reports whether r starts or continues a word.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// endsInWord reports whether s ends with a word character, possibly
// followed by combining marks.
func endsInWord(s string) bool {
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		switch {
		case isWordRune(r):
			return true
		case !unicode.IsMark(r):
			return false
		}
		s = s[:len(s)-n]
	}
	return false
}

// unfolded holds the capital letters that SQLite's unicode61 tokenizer
// (without diacritic removal, as the store configures it) does not fold to
// the lowercase unicode.ToLower gives: "İ", which Unicode's simple case
// folding leaves alone, and the capitals of the letters cased after
// Unicode 6 (Cherokee, Georgian Mtavruli, Adlam, …), for which its tables
// are too old. It also holds lowercase letters between those, which no
// lowercasing changes. TestLowerLikeFTS5 checks this table.
var unfolded = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x0130, Hi: 0x0130, Stride: 1},
		{Lo: 0x037f, Hi: 0x037f, Stride: 1},
		{Lo: 0x0528, Hi: 0x052e, Stride: 1},
		{Lo: 0x13a0, Hi: 0x13f5, Stride: 1},
		{Lo: 0x1c90, Hi: 0x1cbf, Stride: 1},
		{Lo: 0x2c2f, Hi: 0x2c2f, Stride: 1},
		{Lo: 0xa698, Hi: 0xa69a, Stride: 1},
		{Lo: 0xa796, Hi: 0xa79e, Stride: 1},
		{Lo: 0xa7ab, Hi: 0xa7f5, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x104b0, Hi: 0x104d3, Stride: 1},
		{Lo: 0x10570, Hi: 0x10595, Stride: 1},
		{Lo: 0x10c80, Hi: 0x10cb2, Stride: 1},
		{Lo: 0x118a0, Hi: 0x118bf, Stride: 1},
		{Lo: 0x16e40, Hi: 0x16e5f, Stride: 1},
		{Lo: 0x1e900, Hi: 0x1e921, Stride: 1},
	},
}

// Fold lowercases, as Parse does, the capitals in s that SQLite's
// unicode61 tokenizer does not fold (see unfolded), and leaves the rest of
// s as it is, for the tokenizer to fold. Text indexed in FTS5 through Fold
// is found by the words of a parsed query whatever their case: "İstanbul"
// by "istanbul", "İSTANBUL" and "İstanbul". Fold returns s itself when it
// holds none of those capitals.
func Fold(s string) string {
	var b strings.Builder // empty until a capital is found
	done := 0             // s[:done] is in b
	for i := 0; i < len(s); {
		// Skip ASCII, continuation bytes and the starts of runes below
		// U+0100: below the first unfolded capital, U+0130.
		for i < len(s) && s[i] < 0xc4 {
			i++
		}
		if i == len(s) {
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0x130 || r >= 0x37f && unicode.Is(unfolded, r) {
			if done == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[done:i])
			b.WriteRune(unicode.ToLower(r))
			done = i + n
		}
		i += n
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// words splits s into lowercased words.
func words(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case isWordRune(r):
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsMark(r) && b.Len() > 0:
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// chunks splits s into lowercased chunks of text between spaces, those
// that hold a word. A chunk keeps the punctuation at its ends: PostgreSQL's
// parser reads "/usr/bin", "+1" and "https://x.org/a/" as tokens of their
// own, which "usr/bin", "1" and "https://x.org/a" are not, and a chunk
// parsed without the text that stood around it in a document must still
// give the tokens the document gave. Invalid UTF-8 and control characters
// separate chunks, like spaces, so that every chunk is text PostgreSQL
// accepts.
func chunks(s string) []string {
	var out []string
	clean := strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return unicode.ToLower(r)
	}, s)
	for _, c := range strings.Fields(clean) {
		if len(words(c)) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// IsEmpty reports whether the query has no positive (non-excluded) term:
// nothing can match it, and callers return an empty result.
func (q Query) IsEmpty() bool {
	for _, t := range q.Terms {
		if !t.Exclude {
			return false
		}
	}
	return true
}

// Positive returns the distinct words of the positive terms, in order: the
// words to highlight in snippets. The last word of a prefix term is a prefix.
func (q Query) Positive() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range q.Terms {
		if t.Exclude {
			continue
		}
		for _, w := range t.Words {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// FTS5 returns an SQLite FTS5 MATCH expression for the query. Every word is
// a double-quoted string, so no input can reach FTS5's operators; positive
// terms are ANDed and excluded ones follow a single NOT:
//
//	("a" AND "b c" AND "d"*) NOT ("x" OR "y z")
//
// The expression's depth does not grow with the number of terms. For an
// empty query (IsEmpty) it is `""`, which is valid and matches nothing.
func (q Query) FTS5() string {
	var pos, neg []string
	for _, t := range q.Terms {
		s := fts5Term(t)
		if t.Exclude {
			neg = append(neg, s)
		} else {
			pos = append(pos, s)
		}
	}
	if len(pos) == 0 {
		return `""`
	}
	out := strings.Join(pos, " AND ")
	switch {
	case len(neg) == 0:
		return out
	case len(pos) > 1:
		out = "(" + out + ")"
	}
	if len(neg) == 1 {
		return out + " NOT " + neg[0]
	}
	return out + " NOT (" + strings.Join(neg, " OR ") + ")"
}

// fts5Term writes one term as an FTS5 string, with '*' for a prefix.
func fts5Term(t Term) string {
	s := `"` + strings.ReplaceAll(strings.Join(t.Words, " "), `"`, `""`) + `"`
	if t.Prefix {
		s += "*"
	}
	return s
}

// TSQuery returns input for PostgreSQL's to_tsquery('simple', …): every
// chunk a quoted lexeme, the chunks of a phrase joined by <->, prefixes
// marked :*, exclusions negated with !, all joined by &:
//
//	'a' & ('b' <-> 'c') & 'd':* & !'x' & !('y' <-> 'z') & ('human-computer')
//
// PostgreSQL's parser splits a quoted chunk it sees as several tokens into a
// phrase of them, as it did in the documents: 'human-computer' is the
// phrase of the compound and its parts, which stand at three positions of
// the indexed text, so "open human-computer interaction" matches where the
// words alone would not. The reverse differs from FTS5: "spam-in" does not
// match the text "spam in", which holds no compound. It drops a chunk without lexemes with a notice,
// never an error. For an empty query (IsEmpty) it is "", which to_tsquery reads as a
// query that matches nothing.
//
// Caution: PostgreSQL's parser and this package do not agree on every
// character. A word it finds no lexeme in ("²", private-use characters) is
// dropped, and if every positive term is dropped, what remains may be only
// exclusions ('²' & !'x' becomes !'x'), which match almost everything.
// Callers guard with querytree(q) <> 'T', which is false for such a query.
func (q Query) TSQuery() string {
	var pos, neg []string
	for _, t := range q.Terms {
		s := tsTerm(t)
		if t.Exclude {
			neg = append(neg, s)
		} else {
			pos = append(pos, s)
		}
	}
	if len(pos) == 0 {
		return ""
	}
	for _, n := range neg {
		pos = append(pos, "!"+n)
	}
	return strings.Join(pos, " & ")
}

// tsTerm writes one term as tsquery lexemes, parenthesized when it is a
// phrase.
func tsTerm(t Term) string {
	var b strings.Builder
	if t.Phrase {
		b.WriteByte('(')
	}
	parts := t.Chunks
	if len(parts) == 0 {
		// A term built by hand, without chunks.
		parts = t.Words
	}
	for i, w := range parts {
		if i > 0 {
			b.WriteString(" <-> ")
		}
		b.WriteString(tsLexeme(w))
		if t.Prefix && i == len(parts)-1 {
			b.WriteString(":*")
		}
	}
	if t.Phrase {
		b.WriteByte(')')
	}
	return b.String()
}

// tsLexeme quotes a word for to_tsquery: quotes and backslashes are escaped
// with a backslash, the escape tsquery input understands.
func tsLexeme(w string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range w {
		if r == '\'' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}
