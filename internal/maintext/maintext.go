// Package maintext extracts the main content of a web page as plain text,
// without navigation, sidebars, footers, cookie banners and comments, and
// tells its language.
//
// The content is found by go-readability (codeberg.org/readeck/go-readability),
// a port of Firefox's Reader View, after a cheap pruning pass that removes
// what is boilerplate by its markup alone: <nav>, <aside>, <footer>, page
// headers, ARIA landmarks for navigation and site information, form controls, and
// cookie and consent banners. COMPARISON.md explains the choice of library,
// with figures; the short of it is that readability costs milliseconds per
// page, so a crawler should run Extract on pages worth reading (not on
// listings, duplicates or redirects), or off its fetch path.
//
// It is a pure leaf: Extract and DetectLanguage take values and return
// values, with no I/O and no state between calls.
package maintext

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/acrawler/acrawler/internal/htmlx"
)

// Limits on the work one page can cause.
const (
	// MaxInput is the size in bytes of the part of a page that is read;
	// the rest is ignored. Readability's cost grows faster than the page.
	MaxInput = 2 << 20
	// MaxNodes is the number of elements above which a page is not given to
	// readability; Extract then falls back to the pruned page's text.
	MaxNodes = 30000
	// MaxText is the size in bytes at which Text is cut.
	MaxText = 1 << 20
)

// Errors that Extract wraps.
var (
	// ErrNoContent is returned when a page has no text that could be main
	// content (an empty page, a frameset, an image).
	ErrNoContent = errors.New("no main content")
	// ErrUnparsable is returned for a page that the HTML parser gives up
	// on: one with more than 512 elements open at once.
	ErrUnparsable = errors.New("unparsable HTML")
)

// Result is the main content of a page.
type Result struct {
	// Text is the main content as plain text: paragraphs, headings, list
	// items and table rows each on their own, separated by "\n\n"; lines
	// broken by <br> and in <pre> separated by "\n"; other whitespace
	// collapsed. At most MaxText bytes.
	Text string
	// Lang is the BCP 47 primary language subtag, lower case ("en", "tr"):
	// from <html lang> (or xml:lang), else from the Content-Language
	// header, else detected from Text; "" if none of these is sure.
	Lang string
}

// Extract returns the main content of an HTML page. body is the page in
// UTF-8 or, if it is not valid UTF-8, in the encoding its <meta> declares;
// pageURL is its absolute URL (used to resolve relative links inside the
// content; it may be empty) and contentLanguage the Content-Language
// header, if any.
//
// A page without any text gives ErrNoContent; the Lang of the page is still
// returned with it. A page nested too deeply for the HTML parser gives
// ErrUnparsable. A failure inside the extraction library is wrapped and
// returned rather than passed on as a panic; none is known.
func Extract(body []byte, pageURL, contentLanguage string) (res Result, err error) {
	if len(body) > MaxInput {
		body = body[:MaxInput]
	}
	if !utf8.Valid(body) {
		if dec, _, derr := htmlx.Decode(body, ""); derr == nil {
			body = dec
		}
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("maintext: parse: %w (%w)", ErrUnparsable, err)
	}
	res.Lang = primaryTag(documentLang(doc))
	if res.Lang == "" {
		res.Lang = headerLang(contentLanguage)
	}
	nodes := prune(doc)

	var content *html.Node
	if nodes <= MaxNodes {
		content, err = runReadability(doc, pageURL)
		if err != nil {
			return res, err
		}
	}
	if content == nil {
		content = fallbackRoot(doc)
	}
	res.Text = render(content, MaxText)
	if res.Lang == "" {
		res.Lang, _ = DetectLanguage(res.Text)
	}
	if res.Text == "" {
		return res, fmt.Errorf("maintext: extract: %w", ErrNoContent)
	}
	return res, nil
}

// runReadability runs go-readability on the pruned document. A panic in the
// library becomes an error, so that one strange page cannot stop a crawl.
func runReadability(doc *html.Node, pageURL string) (content *html.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			content, err = nil, fmt.Errorf("maintext: readability: panic: %v", r)
		}
	}()
	var u *url.URL
	if pageURL != "" {
		u, _ = url.Parse(pageURL)
	}
	if u == nil {
		u = &url.URL{}
	}
	p := readability.NewParser()
	p.DisableJSONLD = true // metadata is internal/scholar's job
	article, rerr := p.ParseAndMutate(doc, u)
	if rerr != nil || article.Node == nil {
		return nil, nil // no candidate: the caller falls back
	}
	return article.Node, nil
}

// fallbackRoot returns what to render when readability found nothing: the
// page's <main> (or role=main) if it has one, else its <body>.
func fallbackRoot(doc *html.Node) *html.Node {
	var mainEl, body *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if mainEl != nil {
			return
		}
		if n.Type == html.ElementNode {
			switch {
			case n.DataAtom == atom.Main || attr(n, "role") == "main":
				mainEl = n
				return
			case n.DataAtom == atom.Body && body == nil:
				body = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if mainEl != nil {
		return mainEl
	}
	if body != nil {
		return body
	}
	return doc
}

// documentLang returns the lang (or xml:lang) attribute of <html>.
func documentLang(doc *html.Node) string {
	for n := doc.FirstChild; n != nil; n = n.NextSibling {
		if n.Type == html.ElementNode && n.DataAtom == atom.Html {
			if l := attr(n, "lang"); l != "" {
				return l
			}
			return attr(n, "xml:lang")
		}
	}
	return ""
}

// headerLang reads a Content-Language header: a language if it names one,
// or several with the same primary subtag ("en-GB, en-US"); "" otherwise.
func headerLang(h string) string {
	lang := ""
	for _, part := range strings.Split(h, ",") {
		l := primaryTag(part)
		if l == "" || (lang != "" && l != lang) {
			return ""
		}
		lang = l
	}
	return lang
}

// primaryTag returns the primary language subtag of a BCP 47 tag in lower
// case ("en-GB" and "EN_gb" give "en"), or "" if it is not two or three
// letters (as "x-klingon", "*" or "" are not).
func primaryTag(tag string) string {
	tag = strings.TrimSpace(tag)
	if i := strings.IndexAny(tag, "-_;"); i >= 0 {
		tag = tag[:i]
	}
	if len(tag) < 2 || len(tag) > 3 {
		return ""
	}
	for i := 0; i < len(tag); i++ {
		if c := tag[i] | 0x20; c < 'a' || c > 'z' {
			return ""
		}
	}
	return strings.ToLower(tag)
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}
