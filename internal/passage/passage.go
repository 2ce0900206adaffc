// Package passage chooses the part of a long text that a search snippet is
// made from: the stretch where the most of a query's terms meet. It is
// pure and linear in the text.
package passage

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/query"
)

// Words is how many words a snippet holds at most: the stretch a window
// is chosen around.
const Words = 24

// WholeBytes is the longest text Window keeps whole. FTS5's snippet
// function scores a fragment at every instance of the query's words, each
// against all of them: its time grows with the square of the instances,
// of which a long text of common words has thousands (see BenchmarkOf in
// package snippet). A longer text gives a window of it.
const WholeBytes = 8 << 10

// maxTerms is how many distinct words of a query a window is chosen for:
// a snippet's Words words show no more.
const maxTerms = 16

// margin is how many tokens a window keeps on each side of the best
// stretch of Words tokens it was chosen around.
const margin = Words

// Window returns the part of the folded text ft that a snippet of the
// query's words is made from: ft itself when it is short, else the
// stretch of Words tokens that holds the most distinct words of q's
// positive terms (the earliest of the best), with margin tokens on each
// side, and whether text was cut off before and after it. Tokens are runs
// of letters, numbers and marks, as near FTS5's unicode61 as a choice of
// window needs: the snippet's own words are FTS5's. A text none of whose
// tokens is a term's gives its first WholeBytes. Linear in ft.
func Window(q query.Query, ft string) (w string, cutBefore, cutAfter bool) {
	if len(ft) <= WholeBytes {
		return ft, false, false
	}
	// The positive terms' words, folded, each distinct word (or prefix: a
	// prefix term's last word) a term of its own, at most maxTerms of
	// them: a token matches one exact word and any of the prefixes.
	exact := map[string]int{}
	type prefix struct {
		s    string
		term int
	}
	var prefixes []prefix
	terms := 0
	for _, t := range q.Terms {
		for i, word := range t.Words {
			if t.Exclude || terms == maxTerms {
				break
			}
			f := query.Fold(word)
			if t.Prefix && i == len(t.Words)-1 {
				if !slices.ContainsFunc(prefixes, func(p prefix) bool { return p.s == f }) {
					prefixes = append(prefixes, prefix{f, terms})
					terms++
				}
			} else if _, ok := exact[f]; !ok {
				exact[f] = terms
				terms++
			}
		}
	}
	// The tokens (their byte offsets) and the matches among them.
	type match struct{ token, term int }
	var starts, ends []int
	var matches []match
	for i := 0; i < len(ft); {
		r, n := utf8.DecodeRuneInString(ft[i:])
		if !isToken(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(ft) {
			r, n := utf8.DecodeRuneInString(ft[j:])
			if !isToken(r) {
				break
			}
			j += n
		}
		tok := ft[i:j]
		if term, ok := exact[tok]; ok {
			matches = append(matches, match{len(starts), term})
		}
		for _, p := range prefixes {
			if strings.HasPrefix(tok, p.s) {
				matches = append(matches, match{len(starts), p.term})
			}
		}
		starts, ends = append(starts, i), append(ends, j)
		i = j
	}
	if len(matches) == 0 {
		end := WholeBytes
		for end > 0 && !utf8.RuneStart(ft[end]) {
			end--
		}
		return ft[:end], false, true
	}
	// The stretch of Words tokens from a match on that holds the most
	// distinct terms: two pointers over the matches, a count per term.
	count := make([]int, terms)
	distinct, best, bestAt := 0, 0, matches[0].token
	hi := 0
	for lo := range matches {
		for hi < len(matches) && matches[hi].token < matches[lo].token+Words {
			if count[matches[hi].term]++; count[matches[hi].term] == 1 {
				distinct++
			}
			hi++
		}
		if distinct > best {
			best, bestAt = distinct, matches[lo].token
		}
		if count[matches[lo].term]--; count[matches[lo].term] == 0 {
			distinct--
		}
	}
	first := max(bestAt-margin, 0)
	last := min(bestAt+Words+margin, len(starts)) - 1
	return ft[starts[first]:ends[last]], first > 0, last < len(starts)-1
}

// isToken reports whether r is part of a token: a letter, number, mark or
// private-use character.
func isToken(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}
