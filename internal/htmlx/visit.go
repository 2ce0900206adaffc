package htmlx

import (
	"bytes"
	"errors"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A Visitor is given the tokens of a page one by one, so that several
// extractors (main text, scholarly metadata) read a page in the one pass
// of the tokenizer that Parse makes, rather than tokenizing it again each.
// The tokenizer is the costliest part of reading a page: about 5 µs per
// KB, as much as all that Parse does with the tokens.
type Visitor interface {
	// VisitToken is called for every token of the page, in order, except
	// the ErrorToken at the end. The token and the byte slices it returns
	// are valid only during the call.
	VisitToken(t *Token)
}

// Token is a token of the page as a Visitor is given it: what Parse has
// read of it already is handed over, and the rest is read on demand.
type Token struct {
	// Type is the token's type: text, start tag, end tag, self-closing
	// tag, comment or doctype.
	Type html.TokenType
	z    *html.Tokenizer

	atom                          atom.Atom
	atomDone, textDone, attrsDone bool
	nameDone                      bool
	text, name                    []byte
	attrs                         []Attr

	// The keys of attrs, once a tag has more than linearAttrs of them
	// (keysOn), and how many comparisons and look-ups of keys Attrs made
	// (to check in tests that it takes linear time).
	keys   map[string]struct{}
	keysOn bool
	probes int
}

// Attr is an attribute of a start tag: its key in lower case and its value
// with character references decoded, as the tokenizer gives them.
type Attr struct {
	Key, Val []byte
}

func (t *Token) reset(tt html.TokenType) {
	t.Type = tt
	t.atomDone, t.textDone, t.attrsDone, t.nameDone = false, false, false, false
	t.text, t.name = nil, nil
	t.probes = 0
	t.attrs = t.attrs[:0]
}

// Raw returns the token's bytes as they are in the page.
func (t *Token) Raw() []byte { return t.z.Raw() }

// Text returns the text of a text, comment or doctype token, with
// character references decoded (and, for a doctype, lower-cased).
func (t *Token) Text() []byte {
	if !t.textDone {
		t.textDone = true
		t.text = t.z.Text()
	}
	return t.text
}

// Atom returns the atom of a tag's name, 0 for an unknown name (a custom
// element, say) or for a token that is not a tag.
func (t *Token) Atom() atom.Atom {
	if !t.atomDone {
		t.atomDone = true
		t.atom = 0
		if t.Type == html.StartTagToken || t.Type == html.EndTagToken || t.Type == html.SelfClosingTagToken {
			_, t.atom, _ = tagOf(t.z.Raw())
		}
	}
	return t.atom
}

// Name returns the name of a tag in lower case.
func (t *Token) Name() []byte {
	if !t.nameDone {
		t.nameDone = true
		t.name, _ = t.z.TagName()
	}
	return t.name
}

// Attrs returns the attributes of a start or self-closing tag in order,
// as the tokenizer's TagAttr gives them (a repeated key counts once, the
// first time), up to MaxAttrs of them: the attributes after the first
// MaxAttrs distinct keys are ignored. They are read from the raw tag
// without copying unless one needs decoding (a character reference, a
// carriage return or a NUL); keys are lower-cased in place. The time taken
// is linear in the length of the tag.
func (t *Token) Attrs() []Attr {
	if t.attrsDone {
		return t.attrs
	}
	t.attrsDone = true
	if t.Type != html.StartTagToken && t.Type != html.SelfClosingTagToken {
		return nil
	}
	t.keysOn = false
	raw := t.z.Raw()
	_, _, end := tagOf(raw)
	it := attrIter{raw: raw, i: end}
	decode := false
	for len(t.attrs) < MaxAttrs {
		k, v, ok := it.next()
		if !ok {
			break
		}
		if needsDecoding(k) || needsDecoding(v) {
			decode = true
			break
		}
		for i, c := range k {
			if 'A' <= c && c <= 'Z' {
				k[i] = c + 'a' - 'A'
			}
		}
		t.addAttr(k, v)
	}
	if !decode {
		return t.attrs
	}
	// The tokenizer has dropped repeated keys already.
	t.attrs = t.attrs[:0]
	for more := true; more && len(t.attrs) < MaxAttrs; {
		var k, v []byte
		k, v, more = t.z.TagAttr()
		if k == nil {
			break
		}
		t.attrs = append(t.attrs, Attr{Key: k, Val: v})
	}
	return t.attrs
}

// linearAttrs is how many attributes addAttr compares a key with one by
// one; beyond, it looks keys up in a set.
const linearAttrs = 16

// addAttr appends the attribute unless its key is there already.
func (t *Token) addAttr(k, v []byte) {
	if len(t.attrs) < linearAttrs {
		for _, a := range t.attrs {
			t.probes++
			if bytes.Equal(a.Key, k) {
				return
			}
		}
	} else {
		if !t.keysOn {
			t.keysOn = true
			if t.keys == nil {
				t.keys = make(map[string]struct{}, 2*linearAttrs)
			}
			clear(t.keys)
			for _, a := range t.attrs {
				t.keys[string(a.Key)] = struct{}{}
			}
		}
		t.probes++
		if _, ok := t.keys[string(k)]; ok {
			return
		}
		t.keys[string(k)] = struct{}{}
	}
	t.attrs = append(t.attrs, Attr{Key: k, Val: v})
}

// Attr returns the value of the attribute key (lower case) and whether
// the tag has it.
func (t *Token) Attr(key string) ([]byte, bool) {
	for _, a := range t.Attrs() {
		if string(a.Key) == key {
			return a.Val, true
		}
	}
	return nil, false
}

// needsDecoding reports whether the tokenizer would change b: it holds a
// character reference, a carriage return or a NUL.
func needsDecoding(b []byte) bool {
	for _, c := range b {
		if c == '&' || c == '\r' || c == 0 {
			return true
		}
	}
	return false
}

// Tokens runs the tokenizer over body and gives every token to each
// visitor, as Parse would, for when only visitors are wanted. It reads
// the page as Parse does (SVG and MathML content included, where a
// <title> or <style> is not raw text), and like Parse with default options
// it stops after DefaultMaxTokens tokens, and then reports that the page
// was truncated.
func Tokens(body []byte, visitors ...Visitor) (truncated bool) {
	var p parser
	opts := Options{Resolver: noResolver{}, Visitors: visitors}
	if err := parse(&p, body, "", opts, true); err != nil {
		panic(err) // cannot happen: the options are valid
	}
	return p.doc.Truncated
}

// noResolver resolves nothing; Tokens collects no links.
type noResolver struct{}

func (noResolver) Resolve(base, ref string) (string, error) {
	return "", errors.New("htmlx: no resolver")
}
