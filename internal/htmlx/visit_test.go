package htmlx

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// recorder is a Visitor that writes down every token as the tokenizer's
// Token method would give it.
type recorder struct{ toks []string }

func (r *recorder) VisitToken(t *Token) {
	var s string
	switch t.Type {
	case html.TextToken, html.CommentToken, html.DoctypeToken:
		s = fmt.Sprintf("%v %q", t.Type, t.Text())
	case html.StartTagToken, html.SelfClosingTagToken:
		var attrs []string
		for _, a := range t.Attrs() {
			attrs = append(attrs, fmt.Sprintf("%s=%q", a.Key, a.Val))
		}
		s = fmt.Sprintf("%v %s %v [%s]", t.Type, t.Name(), t.Atom(), strings.Join(attrs, " "))
	case html.EndTagToken:
		s = fmt.Sprintf("%v %s %v", t.Type, t.Name(), t.Atom())
	}
	r.toks = append(r.toks, s)
}

// reference returns the tokens of body as a tokenizer of its own gives
// them, with at most MaxAttrs attributes a tag.
func reference(body []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		tok := z.Token()
		var s string
		switch tt {
		case html.TextToken, html.CommentToken, html.DoctypeToken:
			s = fmt.Sprintf("%v %q", tt, tok.Data)
		case html.StartTagToken, html.SelfClosingTagToken:
			var attrs []string
			for i, a := range tok.Attr {
				if i == MaxAttrs {
					break
				}
				attrs = append(attrs, fmt.Sprintf("%s=%q", a.Key, a.Val))
			}
			s = fmt.Sprintf("%v %s %v [%s]", tt, tok.Data, tok.DataAtom, strings.Join(attrs, " "))
		case html.EndTagToken:
			s = fmt.Sprintf("%v %s %v", tt, tok.Data, tok.DataAtom)
		}
		out = append(out, s)
	}
}

// checkVisitor checks that a Visitor given to Parse, and one given to
// Tokens, see the page's tokens as the tokenizer gives them, and that
// visitors do not change what Parse extracts. (In SVG and MathML, the
// tokens are not those of a plain tokenizer: Parse tells the tokenizer
// that a <title> there is not raw text. Then visitors given to Parse and
// to Tokens are checked against each other.)
func checkVisitor(t *testing.T, body []byte) {
	t.Helper()
	var want []string
	lower := bytes.ToLower(body)
	if !bytes.Contains(lower, []byte("<svg")) && !bytes.Contains(lower, []byte("<math")) {
		want = reference(body)
	}
	opts := Options{Resolver: normBaseResolver{newNormalizer(t)}, Token: "acrawler"}
	plain, err := Parse(body, "https://www.example.org/dir/page", opts)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := &recorder{}, &recorder{}
	opts.Visitors = []Visitor{r1, r2}
	visited, err := Parse(bytes.Clone(body), "https://www.example.org/dir/page", opts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(plain) != fmt.Sprint(visited) {
		t.Errorf("Parse(%q) with visitors = %+v, without = %+v", body, visited, plain)
	}
	r3 := &recorder{}
	Tokens(body, r3)
	if want == nil {
		want = r3.toks
	}
	for name, got := range map[string][]string{"Parse, first visitor": r1.toks, "Parse, second visitor": r2.toks, "Tokens": r3.toks} {
		if len(got) != len(want) {
			t.Fatalf("%s: %d tokens of %q, the tokenizer gives %d:\n%q\n%q", name, len(got), body, len(want), got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: token %d of %q is %s, the tokenizer gives %s", name, i, body, got[i], want[i])
			}
		}
	}
}

func TestVisitor(t *testing.T) {
	for _, s := range fuzzSeeds {
		checkVisitor(t, []byte(s))
	}
	checkVisitor(t, []byte(`<DIV Class="A" CLASS=b id=x&amp;y data-X='1'><A HREF="/a?x=1&amp;y=2" Title=T>a</A><br/><Img SRC=i.png></DIV>`))
	checkVisitor(t, readTestdata(t, "publications.html"))
	// The wanted attributes of links, images, meta and hidden blocks, read
	// from the visitors' attributes when there are visitors: repeated keys,
	// keys in capitals, references, and more keys than MaxAttrs.
	var many strings.Builder
	for i := range MaxAttrs + 3 {
		fmt.Fprintf(&many, " data-%d=%d", i, i)
	}
	checkVisitor(t, []byte(`<html LANG=de lang=fr><head><META NAME=robots content="noindex" name=x>`+
		`<base href="/b/" HREF=/c/><link rel=canonical href="/c?a=1&amp;b=2"></head><body>`+
		`<a href=/one HREF=/two title="T &amp; U">one</a><a `+many.String()+` href=/late>late</a>`+
		`<a href="/x`+"\r"+`y">`+"<img alt=A ALT=B src=i.png></a><div Hidden>h</div><div aria-hidden=TRUE>ah</div>"+
		`<p hidden=until-found>f</p><span style=x hidden>s</span><iframe src="/f?a&amp;b"></iframe></body>`))
}

// FuzzVisitor checks that visitors see every token as the tokenizer gives
// it, whether attributes are read from the raw tag or decoded, and that
// they change nothing in what Parse extracts.
func FuzzVisitor(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`<a B=1 b=2 c="&lt;" d='x\ry' e=` + "\x00" + `>x</a><noscript><p class=q>n</p></noscript>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkVisitor(t, body)
	})
}
