package htmlx

import (
	"errors"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A Visitor is given the tokens of a page one by one, so that several
// extractors (main text, scholarly metadata) read a page in the one pass
// of the tokenizer that Parse makes, rather than tokenizing it again each.
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
	z    *tokenizer

	atom                          atom.Atom
	atomDone, textDone, attrsDone bool
	nameDone                      bool
	text, name                    []byte
	attrs                         []Attr
	// rawKeys are the keys of attrs as they are in the page: repeated
	// keys are found by them, as the tokenizer finds them.
	rawKeys [][]byte

	// The keys of attrs in lower case, once a tag has more than
	// linearAttrs of them (keysOn), and how many comparisons and look-ups
	// of keys Attrs made (to check in tests that it takes linear time).
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
	t.rawKeys = t.rawKeys[:0]
}

// Raw returns the token's bytes as they are in the page.
func (t *Token) Raw() []byte { return t.z.Raw() }

// Text returns the text of a text, comment or doctype token, with
// character references decoded (unless it is the content of a raw-text
// element such as <script>) and line breaks normalized.
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
		t.name = t.z.tagName()
	}
	return t.name
}

// Attrs returns the attributes of a start or self-closing tag in order,
// as x/net/html's tokenizer gives them (a repeated key counts once, the
// first time), up to MaxAttrs of them: the attributes after the first
// MaxAttrs distinct keys are ignored. Keys and values are the page's own
// bytes unless a key has capitals or a value needs decoding (a character
// reference, a carriage return or a NUL); the page is never changed. The
// time taken is linear in the length of the tag.
func (t *Token) Attrs() []Attr {
	if t.attrsDone {
		return t.attrs
	}
	t.attrsDone = true
	if t.Type != html.StartTagToken && t.Type != html.SelfClosingTagToken {
		return nil
	}
	t.keysOn = false
	z := t.z
	for _, s := range z.attrs {
		if len(t.attrs) == MaxAttrs {
			break
		}
		k := z.buf[s.k0:s.k1]
		if t.seen(k) {
			continue
		}
		t.rawKeys = append(t.rawKeys, k)
		t.attrs = append(t.attrs, Attr{Key: z.lower(k), Val: z.attrVal(s)})
	}
	return t.attrs
}

// linearAttrs is how many attributes seen compares a key with one by
// one; beyond, it looks keys up in a set.
const linearAttrs = 16

// seen reports whether the raw key k is that of an attribute read
// already, ignoring case; if not, it is then taken as read.
func (t *Token) seen(k []byte) bool {
	if len(t.rawKeys) < linearAttrs {
		// Latest first: a repeated key is most often the one before.
		for i := len(t.rawKeys) - 1; i >= 0; i-- {
			t.probes++
			if equalFold(t.rawKeys[i], k) {
				return true
			}
		}
		return false
	}
	if !t.keysOn {
		t.keysOn = true
		if t.keys == nil {
			t.keys = make(map[string]struct{}, 2*linearAttrs)
		}
		clear(t.keys)
		for _, r := range t.rawKeys {
			t.keys[string(asciiLower(r))] = struct{}{}
		}
	}
	t.probes++
	lk := string(asciiLower(k))
	if _, ok := t.keys[lk]; ok {
		return true
	}
	t.keys[lk] = struct{}{}
	return false
}

// asciiLower returns a copy of b with ASCII letters in lower case.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
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
