package htmlx

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const pageURL = "https://www.uni.example/dept/page.html"

func mustParse(t testing.TB, body string, opts Options) *Document {
	t.Helper()
	if opts.Resolver == nil {
		opts.Resolver = newResolver()
	}
	doc, err := Parse([]byte(body), pageURL, opts)
	if err != nil {
		t.Fatalf("Parse(%q) error: %v", body, err)
	}
	return doc
}

func TestParseText(t *testing.T) {
	tests := []struct{ in, want string }{
		// Blocks and inline elements.
		{"<p>a</p><p>b</p>", "a\nb"},
		{"<p>Hel<b>lo</b></p>", "Hello"},
		{"<p>Hel<span>l</span><a href=x>o</a> <em>wor</em>ld</p>", "Hello world"},
		{"<ul><li>x</li><li>y</li></ul>", "x\ny"},
		{"<ul><li>x<li>y</ul>z", "x\ny\nz"},
		{"a<br>b<br/>c<br><br><br>d", "a\nb\nc\nd"},
		{"a</br>b", "a\nb"},
		{"<table><tr><th>Year</th><th>Title</th></tr><tr><td>2024</td><td>On <i>X</i></td></tr></table>", "Year\nTitle\n2024\nOn X"},
		{"<table><tr><td>a<td>b<tr><td>c</table>d", "a\nb\nc\nd"},
		{"<h1>Title</h1><h2>Sub</h2>text<h3>Three</h3>", "Title\nSub\ntext\nThree"},
		{"<div>a<div>b</div>c</div>", "a\nb\nc"},
		{"<section>a</section><article>b</article><nav>c</nav><footer>d</footer>", "a\nb\nc\nd"},
		{"<dl><dt>term<dd>definition</dl>", "term\ndefinition"},
		{"<p>one<p>two", "one\ntwo"},
		{"a<hr>b", "a\nb"},
		{"<button>Search</button><button>Go</button>", "Search Go"},
		{"first<img src=x.png alt=picture>second", "first second"},
		{"<label>Name<input name=n value=secret></label>", "Name"},
		{"<select><option>One<option>Two</select>", "One\nTwo"},
		{"<textarea>typed &amp; text</textarea>", "typed & text"},
		// Whitespace.
		{"  <p>  lots   of \n\t space  </p>  ", "lots of space"},
		{"<pre>  keep\n   me  </pre>", "keep me"},
		{"a&nbsp;&nbsp;b", "a b"},
		{"a\u00a0\u2003\u3000b", "a b"},
		{"<p>\n\n</p><p>x</p><p> </p>", "x"},
		{"<div><div><p>deep</p></div></div>", "deep"},
		// Entities.
		{"Tom &amp; Jerry &lt;3 &copy; &#246;&#x11F; &eacute;", "Tom & Jerry <3 © öğ é"},
		{"&zzz; &amp", "&zzz; &"},
		{"&notin; &notit;", "∉ ¬it;"}, // legacy entities need no semicolon
		// Removed content.
		{"a<script>var x = '<p>no</p>';</script>b", "ab"},
		{"a<style>p { color: red }</style>b", "ab"},
		{"a<noscript>Enable JavaScript</noscript>b", "ab"},
		{"a<template><p>tpl</p></template>b", "ab"},
		{"a<svg><title>icon</title><text>svg text</text></svg>b", "a b"},
		{"<title>T</title><p>body</p>", "body"},
		{"<head><title>T</title><style>x</style></head><body>b</body>", "b"},
		{"a<iframe src=x>fallback</iframe>b", "a b"},
		{"a<video><p>Your browser cannot play this</p></video>b", "a b"},
		{"<div hidden>secret</div>shown", "shown"},
		{"<div hidden=until-found>found</div>", "found"},
		{"<span aria-hidden=\"true\">★</span>Star", "Star"},
		{"<span aria-hidden=\"false\">visible</span>", "visible"},
		{"<div hidden><p>one<p>two</div>three", "three"},
		{"<div><span hidden>x</div>y", "y"},
		{"<ul><li hidden>x<li>y</ul>", "y"},
		{"<div hidden>a<br>b</div>c", "c"},
		{"<p>x<svg><path/><p>breaks out</svg>", "x\nbreaks out"},
		{"<input type=hidden value=token>text", "text"},
		{"<div hidden><noscript></div></noscript>still hidden</div>shown", "shown"},
		{"<textarea hidden>x</textarea>y", "y"},
		{"<math><mi>x</mi><mo>=</mo><mn>2</mn></math>", "x=2"},
		// Malformed.
		{"<p>unclosed <b>bold <i>both", "unclosed bold both"},
		{"</div></p>stray</span>", "stray"},
		{"<div", ""},
		{"a < b > c", "a < b > c"},
		{"a\x00b\x01c", "abc"},
		{"bad \xff utf-8", "bad \ufffd utf-8"},
		{"<!-- comment --><!DOCTYPE html>text<?pi?>", "text"},
		{"\ufeffbom", "bom"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			doc := mustParse(t, tt.in, Options{})
			if doc.Text != tt.want {
				t.Errorf("Parse(%q).Text = %q, want %q", tt.in, doc.Text, tt.want)
			}
		})
	}
}

func TestParseTextLimit(t *testing.T) {
	body := "<p>" + strings.Repeat("word ", 100) + "</p><p>ğğğğ</p>"
	for _, max := range []int{1, 4, 5, 6, 7, 100, 499, 500, 501, 502, 503, 504} {
		doc := mustParse(t, body, Options{MaxText: max})
		if len(doc.Text) > max {
			t.Errorf("Parse with MaxText %d: len(Text) = %d", max, len(doc.Text))
		}
		if !strings.HasPrefix(strings.Repeat("word ", 100)[:499]+"\nğğğğ", doc.Text) {
			t.Errorf("Parse with MaxText %d: Text = %q, not a prefix of the full text", max, doc.Text)
		}
	}
}

func TestParseFields(t *testing.T) {
	tests := []struct {
		name, in string
		opts     Options
		check    func(d *Document) (got, want any)
	}{
		{"title", "<title> Research \n &amp; Teaching </title>", Options{}, func(d *Document) (any, any) { return d.Title, "Research & Teaching" }},
		{"title first only", "<title>One</title><title>Two</title>", Options{}, func(d *Document) (any, any) { return d.Title, "One" }},
		{"title in body", "<p>x</p><title>Late</title>", Options{}, func(d *Document) (any, any) { return d.Title, "Late" }},
		{"title not from svg", "<svg><title>Icon</title></svg><title>Real</title>", Options{}, func(d *Document) (any, any) { return d.Title, "Real" }},
		{"title unclosed", "<title>Open <b>x", Options{}, func(d *Document) (any, any) { return d.Title, "Open <b>x" }},
		{"no title", "<h1>Heading</h1>", Options{}, func(d *Document) (any, any) { return d.Title, "" }},
		{"h1", "<h1>Main <em>heading</em></h1><h1>Second</h1>", Options{}, func(d *Document) (any, any) { return d.H1, "Main heading" }},
		{"h1 unclosed", "<h1>Main", Options{}, func(d *Document) (any, any) { return d.H1, "Main" }},
		{"h1 with blocks", "<h1>Main<p>text</h1>", Options{}, func(d *Document) (any, any) { return d.H1, "Main text" }},
		{"h1 closed by h2", "<h1>Main<h2>Sub", Options{}, func(d *Document) (any, any) { return d.H1, "Main" }},
		{"h1 closed by h2 end", "<h1>Main</h2>after", Options{}, func(d *Document) (any, any) { return d.H1, "Main" }},
		{"h1 hidden skipped", "<h1 hidden>No</h1><h1>Yes</h1>", Options{}, func(d *Document) (any, any) { return d.H1, "Yes" }},
		{"description", `<meta name="Description" content="  About  us ">`, Options{}, func(d *Document) (any, any) { return d.Description, "About us" }},
		{"lang", `<html lang=" EN-gb ">`, Options{}, func(d *Document) (any, any) { return d.Lang, "en-gb" }},
		{"lang xml:lang", `<html xml:lang="de">`, Options{}, func(d *Document) (any, any) { return d.Lang, "de" }},
		{"lang first html", `<html><html lang=fr>`, Options{}, func(d *Document) (any, any) { return d.Lang, "fr" }},
		{"lang garbage", `<html lang="<script>">`, Options{}, func(d *Document) (any, any) { return d.Lang, "" }},
		{"lang none", `<p lang=en>x`, Options{}, func(d *Document) (any, any) { return d.Lang, "" }},
		{"base absolute", `<base href="https://cdn.uni.example/root/"><a href="x">x</a>`, Options{}, func(d *Document) (any, any) {
			return []string{d.Base, d.Links[0].URL}, []string{"https://cdn.uni.example/root/", "https://cdn.uni.example/root/x"}
		}},
		{"base relative", `<base href="../other/"><a href="x">x</a>`, Options{}, func(d *Document) (any, any) {
			return []string{d.Base, d.Links[0].URL}, []string{"https://www.uni.example/other/", "https://www.uni.example/other/x"}
		}},
		{"base first only", `<base href="/one/"><base href="/two/"><a href="x">x</a>`, Options{}, func(d *Document) (any, any) {
			return []string{d.Base, d.Links[0].URL}, []string{"https://www.uni.example/one/", "https://www.uni.example/one/x"}
		}},
		{"base without href skipped", `<base target=_blank><base href="/two/">`, Options{}, func(d *Document) (any, any) { return d.Base, "https://www.uni.example/two/" }},
		{"base after links applies", `<a href="x">x</a><base href="/late/">`, Options{}, func(d *Document) (any, any) { return d.Links[0].URL, "https://www.uni.example/late/x" }},
		{"base invalid falls back to page", `<base href="javascript:void(0)"><a href="x">x</a>`, Options{}, func(d *Document) (any, any) {
			return []string{d.Base, d.Links[0].URL}, []string{"", "https://www.uni.example/dept/x"}
		}},
		{"canonical relative", `<link rel="canonical" href="/dept/">`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/dept/" }},
		{"canonical rel list and case", `<LINK REL="Canonical alternate" HREF="https://www.uni.example/c">`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/c" }},
		// Conflicting canonicals are ignored, as search engines ignore them.
		{"canonical conflicting", `<link rel=canonical href=/a><link rel=canonical href=/b>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "" }},
		{"canonical repeated", `<link rel=canonical href=/a><link rel=canonical href="https://www.uni.example/a#top">`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/a" }},
		{"canonical unresolvable skipped", `<link rel=canonical href="mailto:x@y"><link rel=canonical href=/a>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/a" }},
		{"canonical in body does not conflict", `<link rel=canonical href=/a></head><body><link rel=canonical href=/b>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/a" }},
		{"canonical against base", `<base href="/b/"><link rel=canonical href=c>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/b/c" }},
		{"canonical after head end", `<head></head><link rel=canonical href=/a><body>x`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/a" }},
		{"canonical in body ignored", `<body><p>x</p><link rel=canonical href=/a>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "" }},
		{"canonical after body tag ignored", `<html><head><title>T</title></head><body><link rel="canonical" href="/a"><p>x</p>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "" }},
		{"canonical after text ignored", `text<link rel=canonical href=/a>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "" }},
		{"canonical invalid", `<link rel=canonical href="mailto:x@y">`, Options{}, func(d *Document) (any, any) { return d.Canonical, "" }},
		{"canonical in template ignored", `<template><link rel=canonical href=/a></template>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "" }},
		{"canonical after template in head", `<head><template><p>x</p></template><link rel=canonical href=/a></head>`, Options{}, func(d *Document) (any, any) { return d.Canonical, "https://www.uni.example/a" }},
		{"meta robots", `<meta name="robots" content="noindex, nofollow">`, Options{}, func(d *Document) (any, any) { return d.Robots, Directives{NoIndex: true, NoFollow: true} }},
		{"meta robots case", `<META NAME="ROBOTS" CONTENT="NOINDEX">`, Options{}, func(d *Document) (any, any) { return d.Robots, Directives{NoIndex: true} }},
		{"meta robots none", `<meta name=robots content=none>`, Options{}, func(d *Document) (any, any) { return d.Robots, Directives{NoIndex: true, NoFollow: true} }},
		{"meta robots all", `<meta name=robots content=all>`, Options{}, func(d *Document) (any, any) { return d.Robots, Directives{} }},
		{"meta token", `<meta name="ACrawler" content="noarchive">`, Options{Token: "acrawler"}, func(d *Document) (any, any) { return d.Robots, Directives{NoArchive: true} }},
		{"meta other bot", `<meta name="googlebot" content="noindex">`, Options{Token: "acrawler"}, func(d *Document) (any, any) { return d.Robots, Directives{} }},
		{"meta robots merged", `<meta name=robots content=noindex><meta name=acrawler content=nosnippet>`, Options{Token: "acrawler"}, func(d *Document) (any, any) {
			return d.Robots, Directives{NoIndex: true, NoSnippet: true}
		}},
		{"meta robots in body", `<p>x</p><meta name=robots content=nofollow>`, Options{}, func(d *Document) (any, any) { return d.Robots, Directives{NoFollow: true} }},
		{"meta robots in noscript ignored", `<noscript><meta name=robots content=noindex></noscript>`, Options{}, func(d *Document) (any, any) { return d.Robots, Directives{} }},
		{"refresh", `<meta http-equiv="refresh" content="0;url=/new/">`, Options{}, func(d *Document) (any, any) {
			return []any{d.Refresh, d.RefreshDelay}, []any{"https://www.uni.example/new/", 0}
		}},
		{"refresh quoted", `<meta http-equiv="Refresh" content="5; URL='next.html'">`, Options{}, func(d *Document) (any, any) {
			return []any{d.Refresh, d.RefreshDelay}, []any{"https://www.uni.example/dept/next.html", 5}
		}},
		{"refresh reload only", `<meta http-equiv=refresh content=30>`, Options{}, func(d *Document) (any, any) { return d.Refresh, "" }},
		{"refresh invalid", `<meta http-equiv=refresh content="soon; url=/x">`, Options{}, func(d *Document) (any, any) { return d.Refresh, "" }},
		{"refresh first", `<meta http-equiv=refresh content="0; url=/a"><meta http-equiv=refresh content="0; url=/b">`, Options{}, func(d *Document) (any, any) { return d.Refresh, "https://www.uni.example/a" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, tt.in, tt.opts)
			got, want := tt.check(doc)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse(%q): got %q, want %q", tt.in, got, want)
			}
		})
	}
}

func TestParseLinks(t *testing.T) {
	tests := []struct {
		in   string
		want []Link
	}{
		{`<a href="x.html">Relative</a>`, []Link{{"https://www.uni.example/dept/x.html", "Relative", false}}},
		{`<a href="/root">Root</a>`, []Link{{"https://www.uni.example/root", "Root", false}}},
		{`<a href="//other.example/p">Protocol-relative</a>`, []Link{{"https://other.example/p", "Protocol-relative", false}}},
		{`<a href="http://other.example/p?q=1&amp;r=2#frag">Query</a>`, []Link{{"http://other.example/p?q=1&r=2", "Query", false}}},
		{`<a href="?a=1&copy=2">Legacy entity</a>`, []Link{{"https://www.uni.example/dept/page.html?a=1&copy=2", "Legacy entity", false}}},
		{`<a href="#section">Fragment</a>`, []Link{{"https://www.uni.example/dept/page.html", "Fragment", false}}},
		{"<a href=\"  /a\n/b\t \">Whitespace</a>", []Link{{"https://www.uni.example/a/b", "Whitespace", false}}},
		{`<a href=" /a b ">Space</a>`, []Link{{"https://www.uni.example/a%20b", "Space", false}}},
		{`<a href=x rel=nofollow>N</a><a href=y rel="UGC noopener">U</a><a href=z rel=sponsored>S</a><a href=w rel=noopener>W</a>`, []Link{
			{"https://www.uni.example/dept/x", "N", true},
			{"https://www.uni.example/dept/y", "U", true},
			{"https://www.uni.example/dept/z", "S", true},
			{"https://www.uni.example/dept/w", "W", false},
		}},
		{`<map><area href="/a" alt="Campus map" shape=rect><area href="/b" title="B"></map>`, []Link{
			{"https://www.uni.example/a", "Campus map", false},
			{"https://www.uni.example/b", "B", false},
		}},
		{`<iframe src="/embed/video" title="Lecture">fallback</iframe><frameset><frame src="nav.html"></frameset>`, []Link{
			{"https://www.uni.example/embed/video", "Lecture", false},
			{"https://www.uni.example/dept/nav.html", "", false},
		}},
		{`<a href="/home"><img src="logo.png" alt=" University  home "></a>`, []Link{{"https://www.uni.example/home", "University home", false}}},
		{`<a href="/home" title="Home page"><img src="logo.png"></a>`, []Link{{"https://www.uni.example/home", "Home page", false}}},
		{`<a href="/tw" aria-label="Twitter" title="t"><svg><use xlink:href="#i"/></svg></a>`, []Link{{"https://www.uni.example/tw", "Twitter", false}}},
		{`<a href="/x"><span aria-hidden="true">→</span> Next <b>page</b></a>`, []Link{{"https://www.uni.example/x", "Next page", false}}},
		{`<a href="/x"><h3>Card title</h3><p>Card text</p></a>`, []Link{{"https://www.uni.example/x", "Card title Card text", false}}},
		{`<a href=/a>one<a href=/b>two</a>`, []Link{{"https://www.uni.example/a", "one", false}, {"https://www.uni.example/b", "two", false}}},
		{`<div><a href=/a>open</div>after`, []Link{{"https://www.uni.example/a", "open", false}}},
		{`<a href=/a><img src=i></a> <a href="/a">Text later</a> <a href="https://www.uni.example/a" rel=nofollow>Third</a>`, []Link{{"https://www.uni.example/a", "Text later", false}}},
		{`<a href="/a" rel=nofollow>First</a><a href="/a#x">Second</a>`, []Link{{"https://www.uni.example/a", "First", true}}},
		{`<a href="javascript:void(0)">JS</a><a href="mailto:a@b.example">Mail</a><a href="tel:+1">Tel</a><a href="data:text/html,x">Data</a><a href="ftp://f.example/">FTP</a><a href="http://[::1">Bad</a>`, nil},
		{`<a name="anchor">No href</a><a>Nothing</a>`, nil},
		{`<a href="">Empty</a>`, []Link{{"https://www.uni.example/dept/page.html", "Empty", false}}},
		{`<img src="/img.png"><script src="/s.js"></script><link rel=stylesheet href="/s.css"><link rel=alternate hreflang=de href=/de/>`, nil},
		{`<template><a href="/tpl">T</a></template><a href="/real">R</a>`, []Link{{"https://www.uni.example/real", "R", false}}},
		{`<div hidden><a href="/menu">Menu item</a></div>`, []Link{{"https://www.uni.example/menu", "Menu item", false}}},
		{`<a href="/h" hidden>Hidden link</a>`, []Link{{"https://www.uni.example/h", "Hidden link", false}}},
		{`<noscript><a href="/nojs">No JS version</a><img src=/pixel></noscript>`, []Link{{"https://www.uni.example/nojs", "No JS version", false}}},
		{`<a href="/outer">Outer<noscript>inner</noscript></a>`, []Link{{"https://www.uni.example/outer", "Outer", false}}},
		{`<noscript hidden><a href="/n">N</a></noscript><noframes><a href="/f">F</a><noscript><a href="/deeper">D</a></noscript></noframes>`, []Link{
			{"https://www.uni.example/n", "N", false},
			{"https://www.uni.example/f", "F", false},
		}},
		{`<template><noscript><a href="/t">T</a></noscript></template>`, nil},
		{`<svg><a xlink:href="/svg-link"><text>Shape</text></a></svg>`, []Link{{"https://www.uni.example/svg-link", "Shape", false}}},
		{`<a href="/long">` + strings.Repeat("long anchor ", 40) + `</a>`, []Link{{"https://www.uni.example/long", strings.TrimSpace(strings.Repeat("long anchor ", 22)[:256]), false}}},
		{`<a href=/cut>cut`, []Link{{"https://www.uni.example/cut", "cut", false}}},
		{`<A HREF='/caps' REL='NOFOLLOW'>Caps</A>`, []Link{{"https://www.uni.example/caps", "Caps", true}}},
		{`<a href=/x/>self-closing syntax</a>`, []Link{{"https://www.uni.example/x/", "self-closing syntax", false}}},
		{`<a href="/p?a=1&amp;b=&quot;2&quot;">Decoded</a>`, []Link{{"https://www.uni.example/p?a=1&b=%222%22", "Decoded", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			doc := mustParse(t, tt.in, Options{})
			if !reflect.DeepEqual(doc.Links, tt.want) {
				t.Errorf("Parse(%q).Links =\n%s\nwant\n%s", tt.in, fmtLinks(doc.Links), fmtLinks(tt.want))
			}
		})
	}
}

func fmtLinks(ls []Link) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "\t%q %q nofollow=%v\n", l.URL, l.Anchor, l.NoFollow)
	}
	if len(ls) == 0 {
		b.WriteString("\t(none)\n")
	}
	return b.String()
}

func TestParseMaxLinks(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, `<a href="/p%d">%d</a><a href="mailto:x%d@y">m</a>`, i, i, i)
	}
	doc := mustParse(t, b.String(), Options{MaxLinks: 10})
	if len(doc.Links) != 10 {
		t.Fatalf("Parse with MaxLinks 10: %d links", len(doc.Links))
	}
	if doc.Links[9].URL != "https://www.uni.example/p9" {
		t.Errorf("Parse with MaxLinks 10: last link %q, want the tenth", doc.Links[9].URL)
	}
}

func TestParseOptions(t *testing.T) {
	if _, err := Parse(nil, pageURL, Options{}); err == nil {
		t.Error("Parse without Resolver: no error")
	}
	if _, err := Parse(nil, pageURL, Options{Resolver: newResolver(), MaxText: -1}); err == nil {
		t.Error("Parse with negative MaxText: no error")
	}
	doc, err := Parse(nil, pageURL, Options{Resolver: newResolver()})
	if err != nil || !reflect.DeepEqual(doc, &Document{}) {
		t.Errorf("Parse(nil) = %+v, %v; want empty document", doc, err)
	}
}

func TestParsePublications(t *testing.T) {
	body := readTestdata(t, "publications.html")
	doc := mustParse(t, string(body), Options{Token: "acrawler"})
	if want := "Publications – Department of Computational Linguistics | University of Exampleton"; doc.Title != want {
		t.Errorf("Title = %q, want %q", doc.Title, want)
	}
	if doc.H1 != "Publications" || doc.Lang != "en-gb" || doc.Canonical != "https://www.cl.exampleton.ac.uk/research/publications/" {
		t.Errorf("H1, Lang, Canonical = %q, %q, %q", doc.H1, doc.Lang, doc.Canonical)
	}
	for _, s := range []string{"gtag", "visually-hidden", "We use cookies", "Search icon"} {
		if strings.Contains(doc.Text, s) {
			t.Errorf("Text contains %q", s)
		}
	}
	for _, s := range []string{"Skip to main content\n", "\nPublications\n", "open access policies", "Exampleton EX1 2AB\nUnited Kingdom", "Last updated 14 March 2024."} {
		if !strings.Contains(doc.Text, s) {
			t.Errorf("Text lacks %q", s)
		}
	}
	if n := len(doc.Links); n < 45 || n > 55 {
		t.Errorf("%d links, want about 50", n)
	}
	for _, l := range doc.Links {
		if !strings.HasPrefix(l.URL, "https://") {
			t.Errorf("link %q is not absolute https", l.URL)
		}
	}
}
