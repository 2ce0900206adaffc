package htmlx

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"",
	"<p>a</p><p>b</p>",
	`<html lang=en><head><base href="/b/"><title>T</title><link rel=canonical href=c><meta name=robots content="noindex"><meta http-equiv=refresh content="0;url=/r"></head><body><h1>H</h1><a href="x">X</a></body>`,
	`<a href="javascript:alert(1)">j</a><a href="//h.example/">h</a><area href=/a alt=A><iframe src=/i></iframe>`,
	"<div hidden><p>x<li>y</div><svg><a xlink:href=/s><text>t</text></a></svg><math><mi>x</mi></math>",
	"<noscript><a href=/n>n</a></noscript><template><a href=/t>t</a></template><noframes><frame src=/f></noframes>",
	"<table><tr><td>a<td>b<tr><td>c</table><select><option>o<option>p</select><textarea>t</textarea>",
	"<a href=/a>one<a href=/b>two<div>three</a>four",
	"<title>unterminated",
	"<plaintext><a href=/p>",
	"\xff\xfe<\x00a\x00",
	"<a href=\"\x00\">\x00</a><p\x00>x",
	"<a href='?a=1&amp;b=2&copy=3'>&amp;&nbsp;&#0;&#x110000;</a>",
	// Attribute bombs: more than MaxAttrs, repeated keys, a link after
	// the limit.
	attrBomb("distinct", MaxAttrs+10, false),
	attrBomb("same", 2*MaxAttrs, true),
	attrBomb("cap", MaxAttrs+10, true),
	"<a" + strings.Repeat(" x", MaxAttrs) + " href=/late>late</a><a href=/on" + strings.Repeat(" href=/dup", 10) + ">on</a>",
	strings.Repeat("<div><span>", maxDepth+4) + "deep<a href=/deep>d</a>",
	// Raw-text elements in SVG and MathML, and integration points.
	"<svg><title/><style/><script/></svg><p>after<a href=/a>a</a>",
	"<svg><desc><style>a<b>c</style></desc><foreignObject><title>t</title><p>p</foreignObject></svg>x",
	`<math><mi><style>s</style></mi><annotation-xml encoding="text/html"><title/></annotation-xml><![CDATA[c<d>]]></math>y`,
	// Invisible characters.
	"<title>Infor&shy;ma\u200btion</title><p>Auf&zwnj;lage \u2068x\u2069 می\u200cخواهم 👨\u200d👩 <a href=/x>\u200dy</a>",
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add(readTestdata(f, "publications.html"))
	// The crawler's own resolver, prepared once per page as in production.
	r := normBaseResolver{newNormalizer(f)}
	small := Options{Resolver: r, MaxLinks: 20, MaxText: 300, MaxAnchor: 40, Token: "acrawler"}
	full := Options{Resolver: r, Token: "acrawler"}
	few := Options{Resolver: r, Token: "acrawler", MaxTokens: 40}
	f.Fuzz(func(t *testing.T, body []byte) {
		doc, err := Parse(body, pageURL, small)
		if err != nil {
			t.Fatalf("Parse(%q) error: %v", body, err)
		}
		checkText(t, "Text", doc.Text, small.MaxText, true)
		checkText(t, "Title", doc.Title, MaxShortText, false)
		checkText(t, "H1", doc.H1, MaxShortText, false)
		checkText(t, "Description", doc.Description, MaxShortText, false)
		if len(doc.Links) > small.MaxLinks {
			t.Errorf("Parse(%q): %d links, more than MaxLinks %d", body, len(doc.Links), small.MaxLinks)
		}
		seen := map[string]bool{}
		for _, l := range doc.Links {
			checkAbsolute(t, "link", l.URL)
			checkText(t, "Anchor", l.Anchor, small.MaxAnchor, false)
			if seen[l.URL] {
				t.Errorf("Parse(%q): link %q twice", body, l.URL)
			}
			seen[l.URL] = true
		}
		for name, u := range map[string]string{"Base": doc.Base, "Canonical": doc.Canonical, "Refresh": doc.Refresh} {
			if u != "" {
				checkAbsolute(t, name, u)
			}
		}
		// Limits cut the output; they do not change it.
		doc2, err := Parse(body, pageURL, full)
		if err != nil {
			t.Fatalf("Parse(%q) error: %v", body, err)
		}
		if !strings.HasPrefix(doc2.Text, doc.Text) {
			t.Errorf("Parse(%q): Text with MaxText %d = %q, not a prefix of %q", body, small.MaxText, doc.Text, doc2.Text)
		}
		if len(doc2.Links) < len(doc.Links) {
			t.Errorf("Parse(%q): fewer links without limits", body)
		}
		for i, l := range doc.Links {
			if l.URL != doc2.Links[i].URL {
				t.Errorf("Parse(%q): link %d is %q with limits, %q without", body, i, l.URL, doc2.Links[i].URL)
				break
			}
		}
		// A self-closed <title/> in SVG is an empty element: it does
		// not swallow the page.
		doc4, err := Parse(append([]byte("<svg><title/><style/></svg>"), body...), pageURL, full)
		if err != nil {
			t.Fatalf("Parse(%q) error: %v", body, err)
		}
		if doc4.Text != doc2.Text || len(doc4.Links) != len(doc2.Links) {
			t.Errorf("Parse(%q) after an SVG <title/>: Text %q, %d links; without: %q, %d links", body, doc4.Text, len(doc4.Links), doc2.Text, len(doc2.Links))
		}
		// A limit on tokens cuts the text too; a page within it is
		// read whole.
		doc3, err := Parse(body, pageURL, few)
		if err != nil {
			t.Fatalf("Parse(%q) error: %v", body, err)
		}
		if doc2.Truncated {
			t.Errorf("Parse(%q): truncated with the default MaxTokens", body)
		}
		if !strings.HasPrefix(doc2.Text, doc3.Text) {
			t.Errorf("Parse(%q): Text with MaxTokens %d = %q, not a prefix of %q", body, few.MaxTokens, doc3.Text, doc2.Text)
		}
		if !doc3.Truncated && fmt.Sprint(doc3) != fmt.Sprint(doc2) {
			t.Errorf("Parse(%q) with MaxTokens %d, not truncated = %+v, without = %+v", body, few.MaxTokens, doc3, doc2)
		}
	})
}

// checkText checks the form of extracted text: valid UTF-8, within its
// limit, trimmed, whitespace collapsed, and on one line unless lines are
// allowed (then without empty lines).
func checkText(t *testing.T, what, s string, max int, lines bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s %q is not valid UTF-8", what, s)
	}
	if len(s) > max {
		t.Errorf("%s is %d bytes, more than %d", what, len(s), max)
	}
	if strings.TrimSpace(s) != s {
		t.Errorf("%s %q has leading or trailing space", what, s)
	}
	for _, bad := range []string{"  ", "\n\n", " \n", "\n ", "\t", "\r", "\x00", "\ufeff", "\u00ad", "\u200b", "\u2060", "\u2069"} {
		if strings.Contains(s, bad) {
			t.Errorf("%s %q contains %q", what, s, bad)
		}
	}
	// ZWNJ and ZWJ do not split Latin words, nor start one.
	for i, r := range s {
		if r != '\u200c' && r != '\u200d' {
			continue
		}
		if prev, _ := utf8.DecodeLastRuneInString(s[:i]); i == 0 || prev < joinerScripts {
			t.Errorf("%s %q has %U after %q", what, s, r, prev)
		}
	}
	if !lines && strings.Contains(s, "\n") {
		t.Errorf("%s %q has a line break", what, s)
	}
}

func checkAbsolute(t *testing.T, what, s string) {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Errorf("%s %q: %v", what, s, err)
		return
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		t.Errorf("%s %q is not an absolute http(s) URL", what, s)
	}
}
