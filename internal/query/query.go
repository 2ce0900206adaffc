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
// characters and combining marks (marks are kept inside a word so that
// Indic and decomposed words stay whole), the rule of Lexemes. Words are
// lowercased rune by rune (Turkish "İ" becomes "i"); the
// expressions for the embedded indexes (FTS5, TSQuery) write them folded
// (Fold: without diacritics, "ß" as "ss"), as those stores index text, so
// that "Zoë", "ZOE" and "zoe" find the same pages. The OpenSearch backend
// takes the words as they are, for its own analyzers.
//
// Decisions where user input is ambiguous:
//   - A chunk of non-space text that holds several words ("e-mail",
//     "10.1000/xyz", "title:foo", "/usr/bin") is a phrase of those words,
//     the way FTS5 reads a string with punctuation. Both embedded stores
//     index text by the same rule (Lexemes), so a URL, a path or a signed
//     number is found by its words.
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
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// MaxLength is the number of bytes of a query that are accepted: the HTTP API
// answers 400 above it, and Parse reads no further.
const MaxLength = 500

// ErrTooBroad is the error of a query whose work has no useful bound: see
// Check. The HTTP API answers it with 400.
var ErrTooBroad = errors.New("query too broad")

// Bounds of a query's work, which Check enforces. A prefix is searched as
// every indexed word it begins, merged: a one-letter prefix is a good part
// of the index (four two-letter ones still took 0.75 s on 20,000 pages of
// a small vocabulary, which the HTTP API counts as costly), and the
// backends' work per matching document grows with the number of terms (a
// query of 160 "r*" took minutes). Repeated terms are merged by Parse and
// do not count twice.
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
			t := Term{Words: words(body), Exclude: chunk != ""}
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
		k := fmt.Sprint(t.Prefix, t.Exclude, t.Phrase) + "\x00" + strings.Join(t.Words, "\x00")
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

// Fold is the one rule by which text is folded for search, on both
// sides: every store indexes Fold(text) (PostgreSQL through its SQL twin,
// acrawler_fold, which must give the same; a test compares them rune by
// rune), and Parse reads Fold(query). So case and diacritics do not
// matter: "Zoë" is found by "zoe", "İstanbul" by "istanbul", "Müller" by
// "muller" (not "mueller": that is German spelling, not folding), and a
// phrase matches when its folded words follow each other in the folded
// text. Fold, in order:
//
//   - decomposes s canonically (NFD): "é" is "e" and a combining acute;
//   - lowercases every rune (unicode.ToLower): "İ" was "I" and a dot above;
//   - drops the combining marks of the diacritic blocks (U+0300–036F,
//     U+1AB0–1AFF, U+1DC0–1DFF, U+20D0–20FF, U+FE20–FE2F): accents, umlauts,
//     cedillas, carons, the Greek tonos, the Cyrillic breve (so "й" is
//     "и"); other marks (Indic vowel signs, Hebrew and Arabic points) stay;
//   - writes the letters no decomposition reaches as their base letters:
//     "ß" as "ss", "ı" (dotless i) as "i", "æ" "ae", "œ" "oe", "ø" "o",
//     "đ" and "ð" "d", "ł" "l", "ħ" "h", "ŧ" "t", "þ" "th", "ĳ" "ij", and
//     the Latin ligatures ("ﬁ" "fi", "ﬀ" "ff", "ﬃ" "ffi", …);
//   - composes the rest again (NFC), so that Hangul and Indic text keep
//     their usual form.
//
// Compatibility forms are not decomposed ("™", "²", "½" and full-width
// letters stay as they are), so that they do not join the words beside
// them ("Acme™" is "acme" and a symbol). Fold works on spans of s that
// normalization cannot join (FoldSpans), so the folded text maps back to
// the original, which snippets show (Unfold). An invalid UTF-8 byte is
// written as U+FFFD, which separates words as the byte did.
func Fold(s string) string {
	// ASCII without capitals, the common case, is returned as it is.
	i := lowerASCII(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	fold(&b, s[i:], nil)
	return b.String()
}

// lowerASCII returns the length of the longest prefix of s of ASCII
// without capitals, reading 8 bytes at a time: in a word of ASCII bytes,
// adding 0x3f to each sets its top bit from 'A' up, adding 0x25 from
// past 'Z', and neither carries into the next byte.
func lowerASCII(s string) int {
	const hi, fromA, pastZ = 0x8080808080808080, 0x3f3f3f3f3f3f3f3f, 0x2525252525252525
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if (x|(x+fromA)&^(x+pastZ))&hi != 0 {
			break
		}
	}
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	return i
}

// A Span is the end of a span of a text and of the same span folded: a
// piece that Fold folds alone, or a run of ASCII (ASCII set), which Fold
// folds byte for byte. FoldSpans returns them in order.
type Span struct {
	Orig, Folded int
	ASCII        bool
}

// FoldSpans returns Fold(s) and where its spans end in s and in it: runs
// of ASCII, and the pieces normalization cannot split (a letter and its
// marks, a Hangul syllable).
func FoldSpans(s string) (string, []Span) {
	var b strings.Builder
	b.Grow(len(s))
	var spans []Span
	fold(&b, s, &spans)
	return b.String(), spans
}

// fold writes s folded to b, and its spans (ends relative to the start
// of s and of what fold writes) to spans, if given.
func fold(b *strings.Builder, s string, spans *[]Span) {
	start := b.Len()
	var seen map[string]string // segments folded, as a text repeats a few
	for i := 0; i < len(s); {
		n, run := 1, false
		switch c := s[i]; {
		case c < utf8.RuneSelf && i+1 < len(s) && s[i+1] < utf8.RuneSelf:
			// A run of ASCII, but for its last byte when something else
			// follows (a mark may combine with it): copied, capitals
			// lowered, then one span for the run as the byte-by-byte
			// spans merged into one.
			j := i + 1
			for j+1 < len(s) && s[j+1] < utf8.RuneSelf {
				j++
			}
			if j+1 == len(s) {
				j++ // the text ends in ASCII
			}
			for k := i; k < j; {
				u := k
				for u < j && (s[u] < 'A' || s[u] > 'Z') {
					u++
				}
				b.WriteString(s[k:u])
				if u < j {
					b.WriteByte(s[u] + 'a' - 'A')
					u++
				}
				k = u
			}
			n, run = j-i, true
		case c < utf8.RuneSelf && i+1 == len(s):
			// ASCII before ASCII: no mark can follow.
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		default:
			r, m := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && m == 1 {
				b.WriteRune(utf8.RuneError) // invalid UTF-8
				break
			}
			if i+m == len(s) || s[i+m] < utf8.RuneSelf {
				// No ASCII character composes with what precedes it.
				n = m
			} else {
				n = norm.NFC.NextBoundaryInString(s[i:], true)
			}
			if n <= 0 {
				_, n = utf8.DecodeRuneInString(s[i:])
			}
			// A segment ends at invalid UTF-8.
			for j := i; j < i+n; {
				r, m := utf8.DecodeRuneInString(s[j:])
				if r == utf8.RuneError && m == 1 {
					if j > i {
						n = j - i
					} else {
						n = 1
					}
					break
				}
				j += m
			}
			seg := s[i : i+n]
			f, ok := seen[seg]
			if !ok {
				if seen == nil {
					seen = map[string]string{}
				}
				var sb strings.Builder
				foldSegment(&sb, seg)
				f = sb.String()
				seen[seg] = f
			}
			b.WriteString(f)
		}
		i += n
		if spans != nil {
			sp := Span{Orig: i, Folded: b.Len() - start, ASCII: run || n == 1 && s[i-1] < utf8.RuneSelf}
			if k := len(*spans) - 1; sp.ASCII && k >= 0 && (*spans)[k].ASCII {
				(*spans)[k] = sp
			} else {
				*spans = append(*spans, sp)
			}
		}
	}
}

// foldSegment writes one span of text that normalization does not split,
// folded.
func foldSegment(b *strings.Builder, seg string) {
	r, n := utf8.DecodeRuneInString(seg)
	if n == len(seg) && r != utf8.RuneError {
		// One rune without a decomposition: lowercased, or mapped.
		if norm.NFD.PropertiesString(seg).Decomposition() == nil && !isDiacritic(r) {
			if m, ok := foldLetters[unicode.ToLower(r)]; ok {
				b.WriteString(m)
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			return
		}
	}
	var d strings.Builder
	for _, r := range norm.NFD.String(seg) {
		r = unicode.ToLower(r)
		switch m, ok := foldLetters[r]; {
		case isDiacritic(r):
		case ok:
			d.WriteString(m)
		default:
			d.WriteRune(r)
		}
	}
	b.WriteString(norm.NFC.String(d.String()))
}

// isDiacritic reports whether r is a combining mark that Fold drops.
func isDiacritic(r rune) bool {
	return 0x300 <= r && r <= 0x36f || 0x1ab0 <= r && r <= 0x1aff || 0x1dc0 <= r && r <= 0x1dff ||
		0x20d0 <= r && r <= 0x20ff || 0xfe20 <= r && r <= 0xfe2f
}

// foldLetters are the lowercase letters that Fold writes as other letters
// (FoldSQL spells them out too).
var foldLetters = map[rune]string{
	'ß': "ss", 'ı': "i", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ð': "d", 'ł': "l",
	'ħ': "h", 'ŧ': "t", 'þ': "th", 'ĳ': "ij",
	'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st",
}

// FoldSQL is the body of a PostgreSQL PL/pgSQL function of one text
// argument, s, that folds it as Fold does, given the same lowercasing (the
// database's LC_CTYPE, a UTF-8 locale): the PostgreSQL store's migrations
// define acrawler_fold(s text) with it, and a test checks that both give
// the same for every character. It writes s lowercased, decomposed (NFD),
// without the diacritics, with the letters of foldLetters spelled out,
// composed again (NFC). Each step is skipped when a quick check says it
// would change nothing (normalizing an English text took as long as
// indexing it; a text of ASCII alone, whose bytes are its characters, is
// only lowercased and spelled out), and runs once, on a variable: as an
// SQL function of nested subqueries, the planner pulled each step up into
// the next, where its expression was written two to four times and
// evaluated as often.
func FoldSQL() string {
	keys := make([]rune, 0, len(foldLetters))
	for r := range foldLetters {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	letters := "b"
	var one, oneTo []rune
	for _, r := range keys {
		m := foldLetters[r]
		if utf8.RuneCountInString(m) == 1 {
			one, oneTo = append(one, r), append(oneTo, []rune(m)[0])
			continue
		}
		letters = `replace(` + letters + `, '` + string(r) + `', '` + m + `')`
	}
	letters = `translate(` + letters + `, '` + string(one) + `', '` + string(oneTo) + `')`
	return `DECLARE b TEXT;
BEGIN
	IF octet_length(s) = length(s) THEN
		b := lower(s);
	ELSE
		IF s IS NOT NFD NORMALIZED THEN
			s := normalize(s, NFD);
		END IF;
		b := regexp_replace(lower(s), '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g');
	END IF;
	IF b ~ '[` + string(keys) + `]' THEN
		b := ` + letters + `;
	END IF;
	IF octet_length(b) <> length(b) AND b IS NOT NFC NORMALIZED THEN
		b := normalize(b, NFC);
	END IF;
	RETURN b;
END`
}

// Unfold gives back a snippet of Fold(orig) (fragments of it, with the
// stores' match markers, bytes 1 and 2, and possibly an ellipsis "…" at
// either end) in the spelling of orig: the marked words as the page
// writes them. Each run of the snippet between spaces is looked for in
// Fold(orig), in order, from where the whole snippet is (or the previous
// run was, within a few hundred bytes), so a snippet whose maker left
// something out of the text (as a headline function that drops what
// looks like an HTML tag does) is given back too; a run not found is
// kept as it is, and the spaces are the snippet's. A snippet whose first
// run is not in Fold(orig) is returned as it is.
func Unfold(snip, orig string) string {
	// unfoldGap is how far past the previous run the next is looked for,
	// when the snippet is not one fragment.
	const unfoldGap = 256
	const ellipsis = "…"
	core, lead := strings.CutPrefix(snip, ellipsis)
	core, trail := strings.CutSuffix(core, ellipsis)
	folded, spans := FoldSpans(orig)
	if folded == orig || core == "" {
		return snip
	}
	unmark := strings.NewReplacer("\x01", "", "\x02", "")
	pos, whole := 0, false // in folded
	if at := strings.Index(folded, unmark.Replace(core)); at >= 0 {
		pos, whole = at, true
	}
	anchored := whole
	// origAt maps an offset in folded to one in orig: the start of the
	// span it falls in, or, with end set, the end of the span it ends in.
	origAt := func(f int, end bool) int {
		k := sort.Search(len(spans), func(k int) bool { return spans[k].Folded > f })
		if end {
			k = sort.Search(len(spans), func(k int) bool { return spans[k].Folded >= f })
		}
		if k == len(spans) {
			return len(orig)
		}
		startO, startF := 0, 0
		if k > 0 {
			startO, startF = spans[k-1].Orig, spans[k-1].Folded
		}
		switch {
		case spans[k].ASCII:
			return startO + f - startF
		case end:
			return spans[k].Orig
		}
		return startO
	}
	var b strings.Builder
	if lead {
		b.WriteString(ellipsis)
	}
	for i := 0; i < len(core); {
		// Spaces are copied; a run up to the next space is unfolded.
		r, n := utf8.DecodeRuneInString(core[i:])
		space := unicode.IsSpace(r)
		j := i + n
		for j < len(core) {
			r, n := utf8.DecodeRuneInString(core[j:])
			if unicode.IsSpace(r) != space {
				break
			}
			j += n
		}
		run := core[i:j]
		i = j
		plain := unmark.Replace(run)
		if space || plain == "" {
			b.WriteString(run)
			continue
		}
		at := strings.Index(folded[pos:], plain)
		switch {
		case !anchored && at < 0:
			// The snippet does not start with text of orig.
			return snip
		case at < 0 || anchored && !whole && at > unfoldGap:
			b.WriteString(run)
			continue
		}
		anchored = true
		f := pos + at
		from := origAt(f, false)
		for k := 0; k < len(run); {
			m := strings.IndexAny(run[k:], "\x01\x02")
			if m < 0 {
				m = len(run) - k
			}
			f += m
			k += m
			if k == len(run) {
				break
			}
			// A start marker goes before the span it falls in, a stop
			// marker after the span it ends in.
			to := max(origAt(f, run[k] == 2), from)
			b.WriteString(orig[from:to])
			b.WriteByte(run[k])
			from = to
			k++
		}
		to := max(origAt(f, true), from)
		b.WriteString(orig[from:to])
		pos = f
	}
	if trail {
		b.WriteString(ellipsis)
	}
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

// FTS5Any returns the positive terms of q as an FTS5 query that any one
// of them matches ("a" OR "b c" OR "d"*): the words a snippet marks,
// wherever they are.
func (q Query) FTS5Any() string {
	var pos []string
	for _, t := range q.Terms {
		if !t.Exclude {
			pos = append(pos, fts5Term(t))
		}
	}
	if len(pos) == 0 {
		return `""`
	}
	return strings.Join(pos, " OR ")
}

// fts5Term writes one term as an FTS5 string, folded, with '*' for a
// prefix.
func fts5Term(t Term) string {
	s := `"` + strings.ReplaceAll(Fold(strings.Join(t.Words, " ")), `"`, `""`) + `"`
	if t.Prefix {
		s += "*"
	}
	return s
}

// TSQuery returns the query as PostgreSQL's tsquery input, for a cast
// ($1::tsquery, which reads lexemes as written) and not for to_tsquery
// (whose parser would split them its own way): each word folded and split
// by Lexemes, the rule by which the PostgreSQL store indexes text, every
// lexeme quoted, the lexemes of a phrase (or of a word Lexemes splits)
// joined by <->, prefixes marked :*, exclusions negated with !, all joined
// by &:
//
//	'a' & ('b' <-> 'c') & 'd':* & !'x' & !('y' <-> 'z') & ('usr' <-> 'bin')
//
// Documents and queries are split by one rule, as FTS5 splits both, so
// "/usr/bin", "human-computer" and "x.org" match as the phrases of their
// words, in PostgreSQL and SQLite alike. For an empty query (IsEmpty) it
// is "", which reads as a query that matches nothing; callers also guard
// with querytree(q) <> 'T', which is false for a query of exclusions
// alone.
func (q Query) TSQuery() string {
	var pos, neg []string
	for _, t := range q.Terms {
		s := tsTerm(t)
		switch {
		case s == "":
		case t.Exclude:
			neg = append(neg, s)
		default:
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

// tsTerm writes one term as tsquery lexemes, parenthesized when there are
// several, or "" when its words hold none.
func tsTerm(t Term) string {
	var lexemes []string
	for _, w := range t.Words {
		for l := range Lexemes(Fold(w)) {
			lexemes = append(lexemes, l)
		}
	}
	if len(lexemes) == 0 {
		return ""
	}
	var b strings.Builder
	if len(lexemes) > 1 {
		b.WriteByte('(')
	}
	for i, l := range lexemes {
		if i > 0 {
			b.WriteString(" <-> ")
		}
		b.WriteString(tsLexeme(l))
	}
	if t.Prefix {
		b.WriteString(":*")
	}
	if len(lexemes) > 1 {
		b.WriteByte(')')
	}
	return b.String()
}

// Lexemes yields the words of folded text (Fold's output), in order, as
// substrings of it: runs of word characters (letters, digits, private-use
// characters) with the combining marks inside them, the words Parse reads
// in a query. It is the rule by which the PostgreSQL store indexes text
// and TSQuery writes a query's words, so that the two agree on every
// character. SQLite's index splits documents and queries alike with FTS5's
// unicode61 tokenizer, which reads folded text the same way but for some
// combining marks: it splits a word at an Indic vowel sign.
func Lexemes(folded string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1
		for i := 0; i < len(folded); {
			c := folded[i]
			if c < utf8.RuneSelf {
				// ASCII, most of a folded text: a run of word bytes is read
				// in one loop, and any other byte ends a word.
				if asciiWord[c] {
					if start < 0 {
						start = i
					}
					for i++; i < len(folded) && asciiWord[folded[i]]; i++ {
					}
					continue
				}
				if start >= 0 {
					if !yield(folded[start:i]) {
						return
					}
					start = -1
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(folded[i:])
			word := isWordRune(r)
			mark := !word && unicode.IsMark(r)
			switch {
			case word && start < 0:
				start = i
			case word || mark && start >= 0:
			case start >= 0:
				if !yield(folded[start:i]) {
					return
				}
				start = -1
			}
			i += n
		}
		if start >= 0 {
			yield(folded[start:])
		}
	}
}

// asciiWord says which bytes are ASCII word characters (letters and
// digits); it is false for every byte from utf8.RuneSelf up.
var asciiWord = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z'
	}
	return t
}()

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
