package maintext

import (
	"bytes"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/testweb"
)

// webTruth reads what a synthetic web page holds: its content paragraphs
// (those of at least 80 bytes in <main> outside sidebars, share bars and
// banners) and its boilerplate (the cookie banner's text and the footer's
// paragraphs, except those that the generator happened to write into the
// content too).
func webTruth(t *testing.T, body []byte) (content, boiler []string) {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *html.Node, inMain, inBoiler bool)
	walk = func(n *html.Node, inMain, inBoiler bool) {
		if n.Type == html.ElementNode {
			cls := nodeAttr(n, "class")
			switch {
			case n.Data == "main":
				inMain = true
			case n.Data == "aside" || n.Data == "nav" || cls == "share":
				inMain = false
			case n.Data == "footer" || strings.Contains(cls, "cookie"):
				inBoiler = true
			}
			if n.Data == "p" {
				text := strings.Join(strings.Fields(nodeText(n)), " ")
				switch {
				case inBoiler && len(text) >= 20:
					boiler = append(boiler, text)
				case inMain && len(text) >= 80:
					content = append(content, text)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inMain, inBoiler)
		}
	}
	walk(doc, false, false)
	all := strings.Join(content, " ")
	boiler = slices.DeleteFunc(boiler, func(b string) bool { return strings.Contains(all, b) })
	return content, boiler
}

// TestTestweb extracts the main text of the academic pages of the synthetic
// web (in English and, windows-1254 or ISO 8859-9 encoded, in Turkish) and
// checks that it holds their paragraphs and none of their cookie banners
// and footers.
func TestTestweb(t *testing.T) {
	checkTestweb(t, nil, 98)
}

// landmarks are the HTML5 landmark elements, with what they become in
// TestTestwebNoLandmarks.
var landmarks = strings.NewReplacer(
	"<main", "<div", "</main>", "</div>", "<article", "<div", "</article>", "</div>",
	"<nav", "<div", "</nav>", "</div>", "<aside", "<div", "</aside>", "</div>",
	"<header", "<div", "</header>", "</div>", "<footer", "<div", "</footer>", "</div>",
	`role="main"`, "", `role="dialog"`, "", `role="navigation"`, "", `role="banner"`, "", `role="contentinfo"`, "",
	`role="complementary"`, "", `role="search"`, "", `aria-label=`, "data-label=")

// TestTestwebNoLandmarks is TestTestweb on the same pages written as in
// the days before HTML5: every main, article, nav, aside, header and
// footer a plain div, no ARIA roles. What is left to tell content from
// boilerplate is the text and link density of blocks and their classes,
// so this tests the scoring of blocks rather than the pruning by markup.
func TestTestwebNoLandmarks(t *testing.T) {
	checkTestweb(t, func(b []byte) []byte { return []byte(landmarks.Replace(string(b))) }, 95)
}

// checkTestweb extracts the pages, transformed by transform if it is not
// nil (the transformed page is given to Extract decoded, in UTF-8), and
// wants at least minFound percent of the content paragraphs and no
// boilerplate paragraph.
func checkTestweb(t *testing.T, transform func([]byte) []byte, minFound int) {
	w := testweb.New(testweb.Config{Seed: 1})
	kinds := map[string]bool{"publication": true, "person": true, "news": true, "research": true, "page": true, "listing": true, "post": true}
	pages, found, total, leaks := 0, 0, 0, 0
	for _, p := range w.Pages() {
		if !kinds[p.Kind] || p.Status != 200 || !strings.HasPrefix(p.ContentType, "text/html") {
			continue
		}
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest("GET", p.URL, nil))
		raw := rec.Body.Bytes()
		utf8Body, _, err := htmlx.Decode(raw, rec.Header().Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		content, boiler := webTruth(t, utf8Body)
		if transform != nil {
			raw = transform(utf8Body)
		}
		res, err := Extract(raw, p.URL, rec.Header().Get("Content-Language"))
		if err != nil {
			t.Errorf("Extract(%s): %v", p.URL, err)
			continue
		}
		pages++
		text := strings.Join(strings.Fields(res.Text), " ")
		for _, c := range content {
			total++
			if strings.Contains(text, c) {
				found++
			} else if testing.Verbose() {
				t.Logf("%s: missing %.60q", p.URL, c)
			}
		}
		for _, b := range boiler {
			if strings.Contains(text, b) {
				leaks++
				t.Errorf("Extract(%s).Text has boilerplate %.60q", p.URL, b)
			}
		}
		wantLang := "en"
		if strings.Contains(p.URL, "karadeniz") {
			wantLang = "tr"
		}
		if res.Lang != wantLang {
			t.Errorf("Extract(%s).Lang = %q, want %q", p.URL, res.Lang, wantLang)
		}
	}
	if pages < 100 {
		t.Fatalf("only %d pages extracted", pages)
	}
	t.Logf("%d pages: %d of %d content paragraphs found, %d boilerplate leaks", pages, found, total, leaks)
	if found*100 < total*minFound {
		t.Errorf("found %d of %d content paragraphs, want at least %d%%", found, total, minFound)
	}
}

// nodeText returns the text under n, its text nodes joined.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func nodeAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
