package htmlx

import (
	"golang.org/x/net/html/atom"
)

// maxTagName is the longest element name that can be a known element.
const maxTagName = 25

// tag identifies an element by name: the atom of a known name, or a hash
// with the top bit set for any other name, so that end tags of custom
// elements can be matched without keeping their names.
type tag uint32

// tagOf returns the tag and atom (0 if unknown) of a start or end tag from
// its raw text, "<name ...>" or "</name ...>", and the offset just past the
// name. It reads the name as the tokenizer does, without allocating.
func tagOf(raw []byte) (t tag, a atom.Atom, end int) {
	i := 1
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	start := i
	var buf [maxTagName]byte
	h := uint32(2166136261) // FNV-1a
	for ; i < len(raw); i++ {
		c := raw[i]
		if c == '/' || c == '>' || isASCIISpace(c) {
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if i-start < len(buf) {
			buf[i-start] = c
		}
		h = (h ^ uint32(c)) * 16777619
	}
	if n := i - start; n <= len(buf) {
		if a = atom.Lookup(buf[:n]); a != 0 {
			return tag(a), a, i
		}
	}
	return tag(h | 1<<31), 0, i
}

func skipSpaceBytes(b []byte, i int) int {
	for i < len(b) && isASCIISpace(b[i]) {
		i++
	}
	return i
}

// The attributes that extraction reads.
const (
	attrHref = iota
	attrRel
	attrTitle
	attrAriaLabel
	attrAlt
	attrSrc
	attrName
	attrHTTPEquiv
	attrContent
	attrLang
	attrXMLLang
	attrXLinkHref
	attrHidden
	attrAriaHidden
	numAttrs
)

// attrID returns the index of a wanted attribute name, or -1.
func attrID(key []byte) int {
	switch len(key) {
	case 3:
		if equalFoldBytes(key, "rel") {
			return attrRel
		}
		if equalFoldBytes(key, "alt") {
			return attrAlt
		}
		if equalFoldBytes(key, "src") {
			return attrSrc
		}
	case 4:
		if equalFoldBytes(key, "href") {
			return attrHref
		}
		if equalFoldBytes(key, "name") {
			return attrName
		}
		if equalFoldBytes(key, "lang") {
			return attrLang
		}
	case 5:
		if equalFoldBytes(key, "title") {
			return attrTitle
		}
	case 6:
		if equalFoldBytes(key, "hidden") {
			return attrHidden
		}
	case 7:
		if equalFoldBytes(key, "content") {
			return attrContent
		}
	case 8:
		if equalFoldBytes(key, "xml:lang") {
			return attrXMLLang
		}
	case 10:
		if equalFoldBytes(key, "aria-label") {
			return attrAriaLabel
		}
		if equalFoldBytes(key, "http-equiv") {
			return attrHTTPEquiv
		}
		if equalFoldBytes(key, "xlink:href") {
			return attrXLinkHref
		}
	case 11:
		if equalFoldBytes(key, "aria-hidden") {
			return attrAriaHidden
		}
	}
	return -1
}

// attrs holds the wanted attributes of one start tag. Values may point into
// the page or the tokenizer's buffer: they are valid until its next token. A value
// counts only if its bit in has is set, so clearing has empties the set.
type attrs struct {
	val [numAttrs][]byte
	has uint32
}

func (a *attrs) get(id int) ([]byte, bool) {
	if a.has&(1<<id) == 0 {
		return nil, false
	}
	return a.val[id], true
}

// gatherAttrs reads the wanted attributes of the current start tag from
// the tokenizer's attributes, decoding only the wanted values that need it.
// A tag with more than MaxAttrs attributes is read as Attrs reads it, so
// that the same distinct keys count.
func gatherAttrs(a *attrs, tok *Token) {
	a.has = 0
	z := tok.z
	if len(z.attrs) > MaxAttrs {
		attrsOf(a, tok.Attrs())
		return
	}
	for _, s := range z.attrs {
		id := attrID(z.buf[s.k0:s.k1])
		if id < 0 || a.has&(1<<id) != 0 {
			continue
		}
		a.val[id] = z.attrVal(s)
		a.has |= 1 << id
	}
}

// attrsOf sets a to the wanted attributes of a tag's attributes kvs.
func attrsOf(a *attrs, kvs []Attr) {
	a.has = 0
	for _, kv := range kvs {
		if id := attrID(kv.Key); id >= 0 && a.has&(1<<id) == 0 {
			a.val[id] = kv.Val
			a.has |= 1 << id
		}
	}
}

// equalFoldBytes reports whether b equals the lower-case ASCII word,
// ignoring the case of ASCII letters.
func equalFoldBytes(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether the space-separated list s holds one of the
// lower-case words, compared case-insensitively.
func hasToken(s []byte, words ...string) bool {
	for i := 0; i < len(s); {
		i = skipSpaceBytes(s, i)
		j := i
		for j < len(s) && !isASCIISpace(s[j]) {
			j++
		}
		for _, w := range words {
			if equalFoldBytes(s[i:j], w) {
				return true
			}
		}
		i = j
	}
	return false
}

// trimSpaceBytes trims ASCII whitespace from both ends of b.
func trimSpaceBytes(b []byte) []byte {
	for len(b) > 0 && isASCIISpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isASCIISpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// trimURLSpace trims what the URL parser trims from both ends of a
// reference: C0 controls and spaces.
func trimURLSpace(b []byte) []byte {
	for len(b) > 0 && b[0] <= ' ' {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] <= ' ' {
		b = b[:len(b)-1]
	}
	return b
}
