package cite

import (
	"sort"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// foldings are the letters that Unicode does not decompose into an ASCII
// letter and a mark.
var foldings = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th",
	'ı': "i", 'ħ': "h", 'Ħ': "h", 'ŋ': "n", 'Ŋ': "n", 'ſ': "s", 'ĸ': "k",
}

// asciiFold returns the ASCII letters and digits of s, lowercased, with
// accents dropped ("Şahin" → "sahin", "Straße" → "strasse").
func asciiFold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		default:
			if f, ok := foldings[r]; ok {
				b.WriteString(f)
			}
		}
	}
	return b.String()
}

// stopWords are the title words a key does not use.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "on": true, "of": true, "in": true, "for": true, "and": true,
	"to": true, "at": true, "by": true, "with": true, "from": true, "towards": true, "toward": true,
	"is": true, "are": true, "how": true, "what": true, "why": true, "when": true, "do": true, "does": true,
	"der": true, "die": true, "das": true, "ein": true, "eine": true, "zur": true, "zum": true, "uber": true,
	"le": true, "la": true, "les": true, "un": true, "une": true, "du": true, "des": true, "el": true, "los": true,
	"bir": true, "ve": true, "ile": true,
}

// maxKeyPart bounds each part of a key.
const maxKeyPart = 24

// baseKey returns the citation key of w before collisions are resolved:
// the first author's family name, the year and the first significant word
// of the title, ASCII-folded ("sato2020deep").
func baseKey(w *Work, names []Name) string {
	author := ""
	if len(names) > 0 {
		n := names[0]
		if n.Literal != "" {
			for _, word := range strings.Fields(n.Literal) {
				if author = asciiFold(word); author != "" && !stopWords[author] {
					break
				}
			}
		} else {
			author = asciiFold(n.Family)
		}
	}
	if author == "" {
		author = "anon"
	}
	var b strings.Builder
	b.WriteString(cut(author))
	if y, _, _ := w.date(); y > 0 {
		b.WriteString(strconv.Itoa(y))
	}
	fields := 0
	for _, word := range strings.FieldsFunc(w.Title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		if fields++; fields > 64 {
			break
		}
		word = asciiFold(word)
		if len(word) > 1 && !stopWords[word] {
			b.WriteString(cut(word))
			break
		}
	}
	return b.String()
}

func cut(s string) string {
	if len(s) > maxKeyPart {
		return s[:maxKeyPart]
	}
	return s
}

// keys returns a citation key for each work: its base key, with a suffix
// (a, b, …, z, aa, ab, …) when works share one, given in the order of
// their IDs (then their order in works). Keys are unique.
func keys(works []Work, names [][]Name) []string {
	out := make([]string, len(works))
	groups := map[string][]int{}
	var order []string
	for i := range works {
		k := baseKey(&works[i], names[i])
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.Strings(order)
	used := make(map[string]bool, len(works))
	for _, k := range order {
		if g := groups[k]; len(g) == 1 {
			out[g[0]] = k
			used[k] = true
		}
	}
	for _, k := range order {
		g := groups[k]
		if len(g) == 1 {
			continue
		}
		sort.SliceStable(g, func(a, b int) bool { return works[g[a]].ID < works[g[b]].ID })
		n := 0
		for _, i := range g {
			for {
				n++
				c := k + letters(n)
				if !used[c] {
					out[i] = c
					used[c] = true
					break
				}
			}
		}
	}
	return out
}

// letters returns the n-th (from 1) of a, b, …, z, aa, ab, ….
func letters(n int) string {
	var b []byte
	for n > 0 {
		n--
		b = append(b, byte('a'+n%26))
		n /= 26
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
