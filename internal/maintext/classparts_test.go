package maintext

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html/atom"
)

// hasPart reports whether a class list holds one of words as a part of a
// token (a run of bytes other than space, '-' and '_').
func hasPart(v []byte, words map[string]bool) bool {
	var buf [16]byte
	for i := 0; i < len(v); {
		for i < len(v) && (isSpaceByte(v[i]) || v[i] == '-' || v[i] == '_') {
			i++
		}
		j := i
		for j < len(v) && !isSpaceByte(v[j]) && v[j] != '-' && v[j] != '_' {
			j++
		}
		if n := j - i; n > 0 && n <= len(buf) {
			if words[string(lowerASCII(buf[:0], v[i:j]))] {
				return true
			}
		}
		i = j
	}
	return false
}

// TestClassPartsIsHasPart checks that classParts, one pass over a class
// list, gives what hasPart gives for each of the four word lists, and that
// classInfoOf and a classCache give what its functions give, computed or
// kept, on class lists of those words, drop words, modifiers, elements of
// blocks, other words, mixed case, separators, long and non-ASCII tokens.
func TestClassPartsIsHasPart(t *testing.T) {
	var pool []string
	for _, m := range []map[string]bool{leadWords, recipeWords, metaWords, imageWords} {
		for w := range m {
			pool = append(pool, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:], w+"x", "x"+w)
		}
	}
	for w := range dropWords {
		pool = append(pool, w, strings.ToUpper(w), "has-"+w, "no_"+w, "card__"+w, w+"__text", "card__has-"+w, "With-"+w)
	}
	pool = append(pool, "content", "article", "body", "text", "post", "entry", "sidebar", "share", "comment", "social", "footer", "nav", "related", "skip",
		"a-very-long-class-token-name-here", "abcdefghijklmnopq", "abcdefghijklmnop", "bïld", "фото", "", "x", "__", "has", "without-",
		"post-4130", "elementor-element-6ace886", "col-md-8", "abcdefghijklmnopqrstuvwxyzabcdefgh-share", strings.Repeat("related-", 8),
		strings.Repeat("x", 63), strings.Repeat("y", 65))
	seps := []string{" ", "-", "_", "\t", "\n", "  ", "--", " -_"}
	rng := rand.New(rand.NewPCG(1, 2))
	var check func(v []byte)
	checkParts := func(v []byte) {
		t.Helper()
		got := classParts(v)
		for kind, words := range map[uint8]map[string]bool{partLead: leadWords, partRecipe: recipeWords, partMeta: metaWords, partImage: imageWords} {
			if want := hasPart(v, words); (got&kind != 0) != want {
				t.Fatalf("classParts(%q) = %b; hasPart with the words of kind %b = %v", v, got, kind, want)
			}
		}
	}
	var cache classCache
	checkCache := func(v []byte) {
		t.Helper()
		want := classInfo{parts: classParts(v), hash: classHash(v)}
		want.drop = dropWordOf(v, nil)
		if want.drop == fSoftBoiler && hasPositive(v) {
			want.drop = 0
		}
		want.pos, want.neg = classWords(v)
		if got := classInfoOf(v); got != want {
			t.Fatalf("classInfoOf(%q) = %+v, want %+v", v, got, want)
		}
		for range 2 { // computed, then from the cache
			if got := cache.of(bytes.Clone(v)); got != want {
				t.Fatalf("classCache.of(%q) = %+v, want %+v", v, got, want)
			}
		}
		if got := (*classCache)(nil).of(v); got != want {
			t.Fatalf("(nil).of(%q) = %+v, want %+v", v, got, want)
		}
	}
	check = func(v []byte) {
		t.Helper()
		checkParts(v)
		checkCache(v)
	}
	for _, s := range []string{"", " ", "-", "article-lead", "post-meta", "image_box text-with-image", "INGREDIENTS", "leadx", "xdate",
		"l-sidebar-fixed l-article-body-segment", "share", "no-share", "entry themeform share", "comments", "sidebar"} {
		check([]byte(s))
	}
	for range 20000 {
		var sb strings.Builder
		for k := rng.IntN(6); k >= 0; k-- {
			if rng.IntN(3) == 0 {
				sb.WriteString(seps[rng.IntN(len(seps))])
			}
			sb.WriteString(pool[rng.IntN(len(pool))])
			sb.WriteString(seps[rng.IntN(len(seps))])
		}
		check([]byte(sb.String()))
	}
}

func containsAny(s []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(s, w) {
			return true
		}
	}
	return false
}

// TestScanWordsIsContainsAny checks scanWords, one pass over a token,
// against a search for each word, on tokens made of the words, their
// prefixes and other bytes.
func TestScanWordsIsContainsAny(t *testing.T) {
	var pool []string
	for _, w := range append(append([][]byte{}, negativeWords...), positiveWords...) {
		pool = append(pool, string(w), string(w[:len(w)-1]), string(w[1:]))
	}
	pool = append(pool, "x", "-", "_", "é", "co", "ma", "p")
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var sb strings.Builder
		for k := rng.IntN(5); k >= 0; k-- {
			sb.WriteString(pool[rng.IntN(len(pool))])
		}
		s := []byte(sb.String())
		neg, pos := scanWords(s)
		wantNeg := containsAny(s, negativeWords)
		if neg != wantNeg || !wantNeg && pos != containsAny(s, positiveWords) {
			t.Fatalf("scanWords(%q) = %v, %v; want %v, %v", s, neg, pos, wantNeg, containsAny(s, positiveWords))
		}
	}
}

// TestPropsOf checks the table of tag properties against the sets it is
// made of, for tags in them and others.
func TestPropsOf(t *testing.T) {
	want := tagPropMap()
	for _, name := range strings.Fields("a b span i em strong html body head p div td li ul nav table svg math img br title script style x-foo abbr time wbr q") {
		a := atom.Lookup([]byte(name))
		if a == 0 {
			continue
		}
		if got := propsOf(a); got != want[a] {
			t.Errorf("propsOf(%s) = %b, want %b", name, got, want[a])
		}
	}
	for a, p := range want {
		if got := propsOf(a); got != p {
			t.Errorf("propsOf(%s) = %b, want %b", a, got, p)
		}
	}
}

// TestClassCachePages checks that a classCache gives the classInfo of
// each class list, computed or kept, over pages of more class lists than
// it keeps, with the cache reset between pages as a recycled Builder's
// is, and after its generations have gone round.
func TestClassCachePages(t *testing.T) {
	var c classCache
	words := []string{"sidebar", "entry-content", "col-md-8", "post-4130", "has-share", "lead", "card__share", "Related", "x"}
	for page := range 4 {
		if page == 3 {
			c.gen = ^uint32(0) // the next reset goes round
		}
		c.reset()
		for round := range 2 {
			for k := range maxClassCache + 500 {
				v := []byte(words[k%len(words)] + " " + words[(k/len(words))%len(words)] + "-" + strconv.Itoa(k%(1000+page)))
				if got, want := c.of(v), classInfoOf(v); got != want {
					t.Fatalf("page %d, round %d: of(%q) = %+v, want %+v", page, round, v, got, want)
				}
			}
		}
		if c.n != maxClassCache {
			t.Fatalf("page %d: %d class lists kept, want %d", page, c.n, maxClassCache)
		}
	}
}
