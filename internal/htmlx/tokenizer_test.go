package htmlx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/acrawler/acrawler/internal/testweb"
)

// How diffTokens tells the tokenizers where SVG and MathML content is.
const (
	foreignNone   = iota // never: every <title> is raw text, CDATA a bogus comment
	foreignSVG           // inside <svg> and <math>, as a tree builder would roughly say
	foreignRandom        // at random, from a seed
	foreignModes
)

// diffTokens reads body with x/net/html's Tokenizer and with ours side by
// side, telling both the same about foreign content, and reports the
// first token where they differ: its type, its raw bytes, a tag's name
// (lower case) and attributes (repeated keys dropped, values decoded, at
// most MaxAttrs), a text's, comment's or doctype's text (decoded).
func diffTokens(body []byte, mode int, seed uint64) error {
	ref := html.NewTokenizer(bytes.NewReader(body))
	our := newTokenizer(body)
	tok := &Token{z: our}
	rng := rand.New(rand.NewPCG(seed, uint64(len(body))))
	depth := 0
	for n := 0; ; n++ {
		if n > len(body)+2 {
			return fmt.Errorf("more tokens than bytes")
		}
		cdata := false
		switch mode {
		case foreignSVG:
			cdata = depth > 0
		case foreignRandom:
			cdata = rng.IntN(2) == 0
		}
		ref.AllowCDATA(cdata)
		our.AllowCDATA(cdata)
		rt, ot := ref.Next(), our.Next()
		if rt != ot {
			return fmt.Errorf("token %d: type %v, x/net/html says %v (raw %q, x/net/html %q)", n, ot, rt, our.Raw(), ref.Raw())
		}
		if rt == html.ErrorToken {
			return nil
		}
		if r, o := ref.Raw(), our.Raw(); !bytes.Equal(r, o) {
			return fmt.Errorf("token %d (%v): raw %q, x/net/html %q", n, rt, o, r)
		}
		tok.reset(ot)
		want := ref.Token()
		switch rt {
		case html.TextToken, html.CommentToken, html.DoctypeToken:
			if got := string(tok.Text()); got != want.Data {
				return fmt.Errorf("token %d (%v %q): text %q, x/net/html %q", n, rt, our.Raw(), got, want.Data)
			}
		default:
			if got := string(tok.Name()); got != want.Data && !(want.DataAtom != 0 && got == want.DataAtom.String()) {
				return fmt.Errorf("token %d (%q): name %q, x/net/html %q", n, our.Raw(), got, want.Data)
			}
			if rt == html.EndTagToken {
				break
			}
			wantAttrs := want.Attr
			if len(wantAttrs) > MaxAttrs {
				wantAttrs = wantAttrs[:MaxAttrs]
			}
			got := tok.Attrs()
			if len(got) != len(wantAttrs) {
				return fmt.Errorf("token %d (%q): %d attributes, x/net/html %d", n, our.Raw(), len(got), len(wantAttrs))
			}
			for i, a := range got {
				if w := wantAttrs[i]; string(a.Key) != w.Key || string(a.Val) != w.Val {
					return fmt.Errorf("token %d (%q): attribute %d %q=%q, x/net/html %q=%q", n, our.Raw(), i, a.Key, a.Val, w.Key, w.Val)
				}
			}
			// What Parse reads of the wanted attributes agrees.
			var at attrs
			gatherAttrs(&at, tok)
			var fromAttrs attrs
			attrsOf(&fromAttrs, got)
			if at.has != fromAttrs.has {
				return fmt.Errorf("token %d (%q): gatherAttrs has %b, Attrs %b", n, our.Raw(), at.has, fromAttrs.has)
			}
			for id := range numAttrs {
				if at.has&(1<<id) != 0 && !bytes.Equal(at.val[id], fromAttrs.val[id]) {
					return fmt.Errorf("token %d (%q): gatherAttrs %d = %q, Attrs %q", n, our.Raw(), id, at.val[id], fromAttrs.val[id])
				}
			}
			if (want.Data == "svg" || want.Data == "math") && rt == html.StartTagToken {
				depth++
			}
			notRaw := false
			switch mode {
			case foreignSVG:
				notRaw = depth > 0
			case foreignRandom:
				notRaw = rng.IntN(2) == 0
			}
			if notRaw && rt == html.StartTagToken {
				ref.NextIsNotRawText()
				our.NextIsNotRawText()
			}
		}
		if rt == html.EndTagToken && (want.Data == "svg" || want.Data == "math") && depth > 0 {
			depth--
		}
	}
}

// checkTokens runs diffTokens in every mode.
func checkTokens(t *testing.T, name string, body []byte) {
	t.Helper()
	for mode := range foreignModes {
		if err := diffTokens(body, mode, 1); err != nil {
			t.Errorf("%s (mode %d): %v", name, mode, err)
			return
		}
	}
}

// TestTokenizerCases holds the tokenizer to x/net/html's on the forms
// that the HTML standard's tokenization rules single out.
func TestTokenizerCases(t *testing.T) {
	cases := []string{
		"", "a", "<", "<<", "a<", "a</", "</", "</>", "</ x>", "</3>", "<3", "< a>", "<a", "<a ", "<a b", "<a b=", `<a b="c`, "<a b='c' d", "<a>",
		"<!", "<!-", "<!--", "<!-->", "<!--->", "<!---->", "<!-- a -->", "<!-- a --!>", "<!-- a --!", "<!-- a --", "<!-- a -", "<!--a--!-b-->",
		"<!-- a -- b -->", "<!--->x-->", "<!x>", "<!>", "<?xml version=1?>", "<?", "<!DOCTYPE html>", "<!doctype>", "<!DOCTYPE", "<!DOC", "<!DOCTYPE ",
		"<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\">", "<![CDATA[a<b>]]>c", "<![CDATA[a]>]]", "<![CDA", "<![CDATA[",
		"<script>a<b</script>c", "<script>a</scriptx></script>", "<script><!--a--></script>b", "<script><!--<script>x</script>-->y</script>z",
		"<script><!--<script>x</script></script>", "<SCRIPT>a</SCRIPT >b", "<script>a</script", "<script>", "<script/>x</script>y",
		"<style>p{}</style><p>x", "<style>a</STYLE/>b", "<title>a &amp; <b>b</b></title>c", "<title>", "<title></title>x", "<textarea>a&lt;b</textarea>",
		"<xmp><a></xmp>x", "<iframe><a href=/x></iframe>y", "<noembed><a></noembed>", "<noframes><a></noframes>", "<noscript><a href=/n>n</a></noscript>x",
		"<plaintext><a></plaintext>b", "<PLAINTEXT>", "<svg><title/></svg><p>text</p>", "<svg><title>a<b>c</b></title></svg>",
		"<math><mi>a</mi><![CDATA[b<c>]]></math>d", "<svg><style>a<b>c</style></svg>",
		"<br/>", "<br />", "<p a=/>", "<p a=/ >", "<a href=/>x</a>", "<a href=/ href=/>x", "<a HREF=/ href=/>x", "<a x=1 x=2/>", "<a b/>", "<a b/c/>",
		"<a =b>", "<a ==b>", "<a b==c>", "<a b= c>", "<a b =c>", "<a b\t=\n'c'>", "<a b=\"c\"d=e>", "<a b='c\"d'>", `<a b="c'd">`, "<a/b/c>", "<a///>",
		"<A HREF=X>", "<DiV ClAsS=Y>", "<a b=c>d</A>", "<a\x00b=c\x00>", "<a b\x00=1 b\x00=2>", "<a b\x00=1 b\ufffd=2>", "<\x00>", "a\x00b", "<title>\x00</title>",
		"<!--\x00-->", "<![CDATA[\x00]]>", "<textarea>\x00</textarea>",
		"a\r\nb\rc", "<a b='c\r\nd\re'>", "<title>a\r\nb</title>", "<!-- \r\n -->",
		"&amp;&lt;&gt;&quot;&apos;&nbsp;&copy&notit;&notin;&not;&ampx&amp=&#38;&#x26;&#X26&#128;&#x9F;&#0;&#xD800;&#x110000;&#99999999999;&#;&#x;&;&",
		"&fjlig;&semi;&nosuch;&AMP;&AElig&Aacute;&lt&gt&frac12&frac123&#1234567&#x10FFFF;&NotEqualTilde;",
		`<a href="?a=1&amp;b=2&c=3&copy=4&copy;&notit=5&notit;&not&amp=x&ampy">`,
		`<a t="&fjlig;&semi;&nosuch;&AMP;&AElig&Aacute;&lt&gt&frac12&frac123&#1234567&#x80;&#x9f&quot">`,
		"<p>a</p >", "</p a=b>", "</p/>", "</p", "<p/ >", "<p\n>", "<p\fa=b>",
	}
	for _, c := range cases {
		checkTokens(t, fmt.Sprintf("%q", c), []byte(c))
	}
}

// TestTokenizerPages holds the tokenizer to x/net/html's on the test
// pages of this package and scholar's, and on the pages of the test web.
func TestTokenizerPages(t *testing.T) {
	var files []string
	for _, pat := range []string{"testdata/*.html", "../scholar/testdata/*.html"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 2 {
		t.Fatalf("only %d test pages", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkTokens(t, f, b)
	}
	w := testweb.New(testweb.Config{Seed: 1})
	n := 0
	for _, p := range w.Pages() {
		if p.Status != 200 || !strings.HasPrefix(p.ContentType, "text/html") {
			continue
		}
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest("GET", p.URL, nil))
		checkTokens(t, p.URL, rec.Body.Bytes())
		if n++; n == 400 {
			break
		}
	}
	if n < 50 {
		t.Errorf("only %d pages of the test web", n)
	}
}

// genPieces are what generated inputs are made of: the characters and
// sequences that switch the tokenizer's states.
var genPieces = []string{
	"<", ">", "/", "</", "/>", "!", "<!", "<!--", "-->", "--!>", "-", "--", "<?", "?>", "=", "\"", "'", " ", "\n", "\r", "\r\n", "\t", "\f", "\x00",
	"a", "b", "A", "x", "1", "text ", "é", "\xff", ";", "&", "&amp;", "&amp", "&lt", "&notit;", "&not", "&#", "&#x", "&#38;", "&#x80;", "&#0;", "#", "x",
	"<!DOCTYPE html>", "<!doctype", "DOCTYPE", "<![CDATA[", "]]>", "]", "[CDATA[",
	"<p>", "</p>", "<a href=", "<a href='/x?a=1&b=2'>", "</a>", "<div class=x>", "<DIV CLASS=Y>", "<br/>", "<img src=x alt=y />", "<p a=/>",
	"<script>", "</script>", "</SCRIPT>", "<!--<script>", "<script", "<style>", "</style>", "<title>", "</title>", "<textarea>", "</textarea>",
	"<xmp>", "</xmp>", "<iframe>", "</iframe>", "<noembed>", "</noembed>", "<noframes>", "</noframes>", "<noscript>", "</noscript>", "<plaintext>",
	"<svg>", "</svg>", "<math>", "</math>", "<title/>", "<style/>", "<mi>", "<foreignObject>", "<desc>",
	" b=c", " b='c'", ` b="c"`, " B=d", " b", " =x", " b=c/", " hidden", ` aria-hidden="true"`, " lang=EN", " content=\"0;url=/r\"",
}

// genInput returns an input made of n pieces chosen by rng.
func genInput(rng *rand.Rand, n int) []byte {
	var b []byte
	for range n {
		b = append(b, genPieces[rng.IntN(len(genPieces))]...)
	}
	return b
}

// TestTokenizerGenerated holds the tokenizer to x/net/html's on varied
// generated inputs.
func TestTokenizerGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	count := 20000
	if testing.Short() {
		count = 2000
	}
	for i := range count {
		body := genInput(rng, 1+rng.IntN(40))
		for mode := range foreignModes {
			if err := diffTokens(body, mode, uint64(i)); err != nil {
				t.Fatalf("%q (mode %d): %v", body, mode, err)
			}
		}
	}
}

// FuzzTokenizer holds the tokenizer to x/net/html's on any input.
func FuzzTokenizer(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(0))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		f.Add(genInput(rng, 30), uint8(rng.IntN(256)))
	}
	f.Add([]byte(`<a b=c d='e' f="g" h i = j k=l/ m/n o==p =q r"s=t/><br/><x-Y Z>`), uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, mode uint8) {
		if err := diffTokens(body, int(mode)%foreignModes, uint64(mode)); err != nil {
			t.Fatalf("%q (mode %d): %v", body, mode%foreignModes, err)
		}
	})
}

// TestTokenizerBenchmarkPages holds the tokenizer to x/net/html's on the
// 983 real pages of go-trafilatura's comparison benchmark, which the Go
// module proxy serves (nothing of it is copied here). It runs only when
// ACRAWLER_TOKENIZER_PAGES is set, as it downloads the module.
func TestTokenizerBenchmarkPages(t *testing.T) {
	if os.Getenv("ACRAWLER_TOKENIZER_PAGES") == "" {
		t.Skip("set ACRAWLER_TOKENIZER_PAGES=1 to read go-trafilatura's comparison pages (downloaded through the Go module proxy)")
	}
	const mod = "github.com/markusmobius/go-trafilatura@v1.12.2"
	ctx, cancel := context.WithTimeout(context.Background(), 10*60e9)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", mod, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", mod, err, m.Error)
	}
	n := 0
	for _, sub := range []string{"test-files/comparison", "test-files/mock"} {
		err := filepath.WalkDir(filepath.Join(m.Dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n++
			checkTokens(t, filepath.Base(path), b)
			// As Parse reads a page: decoded to UTF-8.
			if u, _, err := Decode(b, "text/html"); err == nil && !bytes.Equal(u, b) {
				checkTokens(t, filepath.Base(path)+" (decoded)", u)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 900 {
		t.Errorf("only %d pages read", n)
	}
	t.Logf("%d pages", n)
}

// TestNeedsChange checks needsChange, which reads eight bytes at a time,
// against a byte-by-byte reading, with the special bytes at every place
// of texts of every length up to 40.
func TestNeedsChange(t *testing.T) {
	naive := func(s []byte, nul, amp bool) bool {
		for _, c := range s {
			if c == '\r' || c == 0 && nul || c == '&' && amp {
				return true
			}
		}
		return false
	}
	for n := 0; n <= 40; n++ {
		for pos := -1; pos < n; pos++ {
			for _, c := range []byte{'\r', 0, '&', 0x80, 0xff, 0x0c, 0x0e, 0x25, 0x27, 0x01, 0x8d, 0xa6} {
				s := bytes.Repeat([]byte("a\xe9b"), n)[:n]
				if pos >= 0 {
					s[pos] = c
				}
				for _, nul := range []bool{false, true} {
					for _, amp := range []bool{false, true} {
						if got, want := needsChange(s, nul, amp), naive(s, nul, amp); got != want {
							t.Fatalf("needsChange(%q, %v, %v) = %v, want %v", s, nul, amp, got, want)
						}
					}
				}
			}
		}
	}
}
