// Package maintext extracts the main content of a web page as plain text,
// without navigation, sidebars, footers, cookie banners and comments, and
// tells its language.
//
// It builds a light tree of the page from the tokens of the HTML
// tokenizer: as an htmlx.Visitor (Builder), in the one pass that
// htmlx.Parse makes for the page's text and links, or in a pass of its own
// (Extract). Then:
//
//   - a pruning pass drops what is boilerplate by its markup alone: <nav>,
//     <aside>, <footer>, page headers, ARIA landmarks for navigation and
//     site information, hidden elements, form controls, figure captions,
//     date lines, and classes or ids with words such as cookie, consent,
//     kvkk, breadcrumb, share, sidebar, footer, comments, author, byline,
//     tags (whole words of a class token, not substrings; "has-sidebar"
//     and "no-share" are not read; a share, sidebar, related or teaser
//     class, or a form, only on a block with less than a third of the page's
//     text);
//   - the content is the page's <main> (or role=main) if it holds at least
//     a quarter of the text left; otherwise the element that scores best by
//     Readability's rules in outline (paragraph length and commas, scaled
//     by link density and weighed by class and id words), preferring a
//     block inside role=main to reader comments outside it, with its
//     siblings that score well, are of its class (the steps of a how-to)
//     or are prose paragraphs; the block of the page's longest paragraph
//     instead, if that paragraph is longer than all of it (a text in one
//     paragraph beside a grid of teasers); if the content is one block in
//     which an <article> holds half of the text, that article; a lead
//     or standfirst by its class just before the chosen block (in an
//     article's header beside its body) is kept with it, and so is a
//     recipe's list of ingredients beside it;
//   - inside the content, blocks of links, "read more" lines, teaser
//     panels, teasers after the text (a linked title and a line or two),
//     the short text of an image's box (a credit, a source) or of a
//     date or meta line by its class, and small
//     blocks with a boilerplate class are left out;
//   - the content is written out paragraph by paragraph, without headings
//     that no paragraph follows and without the short lines after the
//     last paragraph of prose.
//
// COMPARISON.md compares it with go-readability and go-trafilatura on
// go-trafilatura's benchmark of 983 real pages (eval/maintext runs it):
// better precision, recall and F1 than both (0.934, 0.912, 0.923), the
// main text's own work at a fifth to a tenth of go-trafilatura's CPU time
// and the crawl's whole extraction of a page at under half of it.
//
// It is a pure leaf: Extract and DetectLanguage take values and return
// values, with no I/O and no state between calls (a Builder reads one
// page).
package maintext

import (
	"errors"
	"sort"

	"fmt"
	"golang.org/x/net/html/atom"
	"strings"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/htmlx"
)

// Limits on the work one page can cause.
const (
	// MaxInput is the size in bytes of the part of a page that is read;
	// the rest is ignored.
	MaxInput = 2 << 20
	// MaxNodes is the number of elements and texts of a page that are
	// read; the rest is ignored. It bounds the memory one page takes
	// (about 64 bytes a node).
	MaxNodes = 200000
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
	// collapsed. A heading that no paragraph follows (the title of a
	// list of links left out, say) is left out, and so is a heading or
	// a short label ("Read also:", "More on this") just before a block
	// of links that is left out, a short line of an image's credit or a
	// text's source ("Photo: …", "Quelle: …", "© …"), the page's title
	// (the text of its <title> holds it) as the first paragraph when
	// another follows, and short lines
	// after the last paragraph of prose (less than 400 bytes in all and
	// under a third of the text before them: a source, a date, a "more
	// on this" line). At most MaxText bytes.
	Text string
	// Lang is the BCP 47 primary language subtag, lower case ("en", "tr"):
	// from <html lang> (or xml:lang), else from the Content-Language
	// header, else detected from Text; "" if none of these is sure.
	Lang string
}

// Extract returns the main content of an HTML page. body is the page in
// UTF-8 or, if it is not valid UTF-8, in the encoding its <meta> declares;
// pageURL is its absolute URL (not used today: the text keeps no links)
// and contentLanguage the Content-Language header, if any.
//
// Extract reads the page with its own pass of the tokenizer; a crawler
// that parses the page with htmlx.Parse anyway gives a Builder to it as a
// visitor instead, and calls Builder.Result.
//
// A page without any text gives ErrNoContent; the Lang of the page is still
// returned with it. A page nested too deeply for the HTML parser (more than
// 512 elements open at once) gives ErrUnparsable.
func Extract(body []byte, pageURL, contentLanguage string) (Result, error) {
	if len(body) > MaxInput {
		body = body[:MaxInput]
	}
	if !utf8.Valid(body) {
		if dec, _, derr := htmlx.Decode(body, ""); derr == nil {
			body = dec
		}
	}
	b := NewBuilder(len(body))
	htmlx.Tokens(body, b)
	return b.Result(contentLanguage)
}

// Result returns the main content of the page whose tokens b was given
// (see Extract); contentLanguage is the Content-Language header, if any.
// It is called once, after the last token; b must not be used after it.
//
// The content is the page's <main> (or role=main) when it holds at least
// a quarter of the page's text; otherwise the best-scoring element with
// its best siblings (see score). Either way, if the content is one block
// and an <article> in it holds half of its text, the content is that
// article; and what is boilerplate by its markup (see prune) is left
// out.
func (b *Builder) Result(contentLanguage string) (res Result, err error) {
	defer b.release()
	b.finish()
	if b.deep {
		return Result{}, fmt.Errorf("maintext: parse: %w (more than %d elements open)", ErrUnparsable, maxOpen)
	}
	lang := b.lang
	if lang == "" {
		lang = b.xlang
	}
	res.Lang = primaryTag(lang)
	if res.Lang == "" {
		res.Lang = headerLang(contentLanguage)
	}
	b.prune()
	b.stats()
	res.Text = b.render(b.content(), MaxText)
	if res.Lang == "" {
		res.Lang, _ = DetectLanguage(res.Text)
	}
	if res.Text == "" {
		return res, fmt.Errorf("maintext: extract: %w", ErrNoContent)
	}
	return res, nil
}

// content returns the nodes to render.
func (b *Builder) content() []int32 {
	nodes := b.nodes
	var roots []int32
	var total int32
	mainEl := int32(-1)
	for i := int32(0); i < int32(len(nodes)); i = nodes[i].end {
		roots = append(roots, i)
		if nodes[i].flags&(fDropped|fSkip) == 0 {
			total += nodes[i].chars
		}
	}
	for i := int32(0); i < int32(len(nodes)); {
		n := &nodes[i]
		if !n.text && n.flags&(fDropped|fSkip) != 0 {
			i = n.end
			continue
		}
		if n.flags&fMain != 0 {
			mainEl = i
			break
		}
		i++
	}
	if mainEl >= 0 && nodes[mainEl].chars*4 >= total {
		if a := b.mainArticle(mainEl); a >= 0 {
			return []int32{a}
		}
		return []int32{mainEl}
	}
	if best := b.score(); best >= 0 {
		out := b.siblings(best)
		// A page's longest paragraph, longer than all the text of the
		// content and outside it, is in the content: a text in one
		// paragraph, and a list of teasers that outscores it by their
		// number (which are left out, if they are beside it).
		if l := b.longest; l >= 0 && !b.holds(out, l) && nodes[l].chars > b.chars(out) {
			if p := nodes[l].parent; p >= 0 && nodes[p].flags&fInit != 0 {
				var alt []int32
				k := 0 // both in document order
				for _, i := range b.siblings(p) {
					for k < len(out) && nodes[out[k]].end <= i {
						k++
					}
					if k == len(out) || i < out[k] {
						alt = append(alt, i)
					}
				}
				out = alt
			}
		}
		if len(out) == 1 {
			if a := b.mainArticle(out[0]); a >= 0 {
				return b.withLead([]int32{a})
			}
		}
		return b.withLead(out)
	}
	if mainEl >= 0 {
		return []int32{mainEl}
	}
	return roots
}

// withLead returns the content with the lead of its text before it and
// the ingredients of a recipe beside it: the blocks with a class of
// leadWords ("article-lead", "entry-excerpt") before the content's first
// block, and those with a class of recipeWords before or after it, in its
// parent, grandparent or great-grandparent (an article's header beside
// its body), of at least minParagraph bytes (a lead mostly not links), in
// document order. It is linear in the size of that ancestor.
func (b *Builder) withLead(out []int32) []int32 {
	if len(out) == 0 {
		return out
	}
	nodes := b.nodes
	first := out[0]
	a := first
	for level := 0; level < 3 && nodes[a].parent >= 0; level++ {
		a = nodes[a].parent
	}
	var lead []int32
	k := 0 // out is in document order
	for i := a + 1; i < nodes[a].end; {
		n := &nodes[i]
		for k < len(out) && nodes[out[k]].end <= i {
			k++
		}
		if n.text || n.flags&(fDropped|fSkip) != 0 || k < len(out) && out[k] <= i {
			i = n.end
			continue
		}
		if i < first && n.flags&fLead != 0 && n.end <= first && n.chars >= minParagraph && n.linkChars*2 < n.chars ||
			n.flags&fRecipe != 0 && n.chars >= minParagraph && (k == len(out) || n.end <= out[k]) {
			lead = append(lead, i)
			i = n.end
			continue
		}
		i++
	}
	if len(lead) == 0 {
		return out
	}
	all := append(lead, out...)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	return all
}

// holds reports whether node i is in one of the subtrees of roots.
func (b *Builder) holds(roots []int32, i int32) bool {
	for _, r := range roots {
		if r <= i && i < b.nodes[r].end {
			return true
		}
	}
	return false
}

// chars is the visible text of the subtrees of roots.
func (b *Builder) chars(roots []int32) int32 {
	var n int32
	for _, r := range roots {
		n += b.nodes[r].chars
	}
	return n
}

// mainArticle returns the longest <article> in a block (of those not
// inside another) if it holds at least half of the block's text, or -1:
// the block's other parts are then related stories, teasers (often
// articles too) and the like.
func (b *Builder) mainArticle(root int32) int32 {
	nodes := b.nodes
	m := &nodes[root]
	found := int32(-1)
	for i := root + 1; i < m.end; {
		n := &nodes[i]
		if n.text || n.flags&(fDropped|fSkip) != 0 {
			i = n.end
			continue
		}
		if n.atom == atom.Article {
			if found < 0 || n.chars > nodes[found].chars {
				found = i
			}
			i = n.end
			continue
		}
		i++
	}
	if found >= 0 && nodes[found].chars*2 >= m.chars {
		return found
	}
	return -1
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
