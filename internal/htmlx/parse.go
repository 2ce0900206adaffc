package htmlx

import (
	"errors"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Resolver resolves the references found in a page into absolute,
// normalized URLs.
type Resolver interface {
	// Resolve returns ref resolved against the absolute URL base by the
	// rules of the WHATWG URL Standard, and normalized. It returns an error
	// if ref is malformed or the result is not an http or https URL with
	// a host. It must be safe for concurrent use if Parse is called
	// concurrently with the same Resolver.
	Resolve(base, ref string) (string, error)
}

// BaseResolver is a Resolver that can also prepare a base URL once for
// resolving many references against it. Parse resolves all the references
// of a page against one base, so it uses ResolverFor when the Resolver has
// it; with a parser that is slow to parse a base (by the WHATWG rules, say)
// this saves most of the cost of resolution.
type BaseResolver interface {
	Resolver
	// ResolverFor returns a function that resolves ref against base as
	// Resolve(base, ref) does. It returns an error if base is not an
	// absolute http or https URL.
	ResolverFor(base string) (func(ref string) (string, error), error)
}

// Options control Parse.
type Options struct {
	Resolver  Resolver // resolves and normalizes references; required
	MaxLinks  int      // keep at most this many links (0 means 10000)
	MaxText   int      // keep at most this many bytes of visible text (0 means 1 MiB)
	MaxAnchor int      // keep at most this many bytes of anchor text per link (0 means 256)
	// MaxTokens bounds the work on one page: Parse reads at most this
	// many tokens (tags, texts, comments) and then stops, setting
	// Document.Truncated (0 means DefaultMaxTokens).
	MaxTokens int
	// Token is the crawler's product token, such as "acrawler": a
	// <meta name="acrawler"> applies like <meta name="robots">, and
	// agent-prefixed directives ("acrawler: noindex") apply when the agent
	// is Token.
	Token string
	// Visitors are given every token of the page (outside the content of
	// <noscript> and <noframes>, which Parse reads a second time for
	// links), after Parse has read it, up to MaxTokens. In SVG and
	// MathML the tokens are those of the tree builder, not of a bare
	// tokenizer: an SVG <title> or <style> has tags for content.
	Visitors []Visitor
}

// Defaults for Options and fixed limits.
const (
	DefaultMaxLinks  = 10000
	DefaultMaxText   = 1 << 20
	DefaultMaxAnchor = 256
	// DefaultMaxTokens is more than the tokens of any real page the
	// crawler fetches whole: a 200 KB page of publications has 15,000,
	// so 1 Mi tokens is about 14 MB of such markup. A page made to be
	// costly (a 5 MB run of "<b>", say) stops there.
	DefaultMaxTokens = 1 << 20

	// MaxShortText is the size in bytes at which Title, H1, Description
	// and Lang are cut.
	MaxShortText = 1024

	// MaxAttrs is how many distinct attributes of a tag are read; those
	// after are ignored. Real pages have a few dozen at most on one
	// element; a tag with a hundred thousand is an attack or a bug, and
	// reading it all would only cost time.
	MaxAttrs = 256

	// maxDepth bounds the stack of open elements; deeper elements are not
	// tracked (their hidden attribute, for one, is then not honoured).
	// Every search of the stack, for the element an end tag closes, say,
	// stops there, so that a token costs at most this many steps.
	maxDepth = 256
	// rawLinksPerLink bounds the distinct references collected before
	// resolution, as a multiple of MaxLinks: many resolve to the same URL
	// or to nothing (mailto:, javascript:).
	rawLinksPerLink = 4
	// maxCanonicals bounds the distinct canonical hrefs collected; a page
	// with more has conflicting canonicals.
	maxCanonicals = 8
)

// Document is what Parse extracts from a page.
type Document struct {
	// Title is the text of the first <title>, whitespace collapsed.
	Title string
	// H1 is the visible text of the first visible <h1>, whitespace
	// collapsed.
	H1 string
	// Description is the content of the first <meta name="description">,
	// whitespace collapsed.
	Description string
	// Text is the visible text of the page; see Parse.
	Text string
	// Lang is the lang (or else xml:lang) attribute of <html>, trimmed and
	// lower-cased; "" if absent or not a plausible language tag.
	Lang string
	// Base is the first <base href>, resolved against the page URL; "" if
	// none or if it does not resolve (then links resolve against the page
	// URL, as in browsers).
	Base string
	// Canonical is the href of the <link rel="canonical"> in the head,
	// resolved; "" if none or if it does not resolve. A canonical link in
	// the body is ignored, as search engines do: pages that take user
	// content could otherwise be made to name another canonical URL. So
	// are conflicting ones: if those in the head resolve to different
	// URLs (a theme and a plugin each adding one, say), Canonical is "",
	// as search engines then ignore them all. Those that do not resolve
	// are skipped.
	Canonical string
	// Robots are the directives of every <meta name="robots"> and
	// <meta name=Token>, merged. They count wherever they appear, except
	// inside <template> and <noscript>.
	Robots Directives
	// Refresh is the URL of the first valid <meta http-equiv="refresh">
	// (outside <template> and <noscript>), resolved; "" if none, if it
	// names no URL (a reload), or if the URL does not resolve.
	Refresh string
	// RefreshDelay is the delay of that refresh in seconds (0 for an
	// immediate redirect); meaningful only if Refresh is not "".
	RefreshDelay int
	// Links are the page's links in document order, deduplicated by URL.
	Links []Link
	// Truncated is set if Parse stopped reading the page after
	// Options.MaxTokens tokens: the fields hold what came before.
	Truncated bool
}

// Link is a link found in a page.
type Link struct {
	// URL is absolute, http or https, as returned by the Resolver.
	URL string
	// Anchor is the visible text of the link, whitespace collapsed; if it
	// has none, the alt text of an image in it, else its aria-label, else
	// its title attribute. For <area>: alt, aria-label, title; for
	// <iframe> and <frame>: title.
	Anchor string
	// NoFollow is set if rel holds nofollow, ugc or sponsored.
	NoFollow bool
}

// Parse extracts the document from an HTML page in UTF-8 (as Decode
// returns it). pageURL is the absolute URL of the page.
//
// Links come from <a href> and <area href> (also <a xlink:href> in SVG) and,
// for framed sites, from <iframe src> and <frame src>; not from <img>,
// <script> or <link>. Links inside <template> are ignored; links inside
// hidden elements are kept, and so are links inside <noscript> and
// <noframes>, whose content a crawler that runs no scripts is shown. Every
// reference is resolved with the Resolver against the document's base (the
// first <base href> wherever it is, as in browsers, else pageURL); those it
// rejects (javascript:, mailto:, malformed) are dropped. If the Resolver is
// a BaseResolver, the base is prepared once. Links with the same
// URL are merged into the first: it keeps its rel, and takes the anchor text
// of a later one if it has none. At most MaxLinks links are kept.
//
// Text is the visible text: the content of <script>, <style>, <template>,
// <noscript>, <noframes>, <iframe>, <svg>, <datalist>, <audio>, <video> and
// <canvas>, of elements with the hidden attribute or aria-hidden="true", and
// of <title> is left out; so are attribute values (alt, input values), and
// CSS is not evaluated. Block elements (p, div, li, h1-h6, br, tr, td,
// section, ...) put their text on lines of their own; inline elements (a,
// span, em, b, ...) do not separate words; form controls and embedded
// content separate words with a space. Within a line whitespace, &nbsp;
// included, is collapsed to one space, and <pre> is no exception. Text has
// no empty lines and no leading or trailing whitespace, and is cut at
// MaxText bytes. Characters that are not seen and would split words for
// search are left out of it (and of Title, H1, Description and anchors):
// soft hyphens, zero-width spaces, word joiners, bidi controls, byte order
// marks, and ZWNJ and ZWJ after Latin, Greek or Cyrillic letters (those
// that shape Persian, Indic scripts or emoji stay).
//
// Inside SVG and MathML, as in browsers, <title>, <style>, <script>,
// <textarea> and the like are elements whose content is markup, not raw
// text (a <title> there is not the page's), except in the integration
// points (SVG foreignObject, desc and title; MathML mi, mo, mn, ms, mtext
// and annotation-xml for HTML), whose content is HTML again.
//
// Parse takes time linear in the length of the page, whatever its markup:
// it reads at most MaxAttrs attributes of a tag, follows the nesting of
// elements 256 deep (deeper elements count as inline and visible), and
// stops after MaxTokens tokens, setting Document.Truncated.
//
// Parse never fails on malformed input; it returns an error only if opts
// are invalid: no Resolver, or a negative limit.
func Parse(body []byte, pageURL string, opts Options) (*Document, error) {
	var p parser
	if err := parse(&p, body, pageURL, opts, false); err != nil {
		return nil, err
	}
	return p.doc, nil
}

// parse is Parse, with the parser given (so that it need not be on the
// heap, and tests can look into it). If quiet, it only hands the tokens to
// the visitors, as Tokens does.
func parse(p *parser, body []byte, pageURL string, opts Options, quiet bool) error {
	if opts.Resolver == nil {
		return errors.New("htmlx: parse: Options.Resolver is nil")
	}
	if opts.MaxLinks < 0 || opts.MaxText < 0 || opts.MaxAnchor < 0 || opts.MaxTokens < 0 {
		return errors.New("htmlx: parse: negative limit in Options")
	}
	if opts.MaxLinks == 0 {
		opts.MaxLinks = DefaultMaxLinks
	}
	if opts.MaxText == 0 {
		opts.MaxText = DefaultMaxText
	}
	if opts.MaxAnchor == 0 {
		opts.MaxAnchor = DefaultMaxAnchor
	}
	if opts.MaxTokens == 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	*p = parser{
		opts:   opts,
		token:  strings.ToLower(opts.Token),
		doc:    &Document{},
		stack:  make([]entry, 0, 32),
		rawCap: rawLinksPerLink * opts.MaxLinks,
	}
	p.quiet = quiet
	capHint := 0
	if !quiet {
		// Visible text is typically 30-50% of a page.
		capHint = min(len(body)/2+64, opts.MaxText)
	}
	p.text.reset(opts.MaxText, capHint, false)
	p.title.reset(MaxShortText, 0, true)
	p.h1.reset(MaxShortText, 0, true)
	p.scan(newTokenizer(body))
	if !quiet {
		p.finish(pageURL)
	}
	return nil
}

// Flags of an entry on the stack of open elements.
const (
	fHide      uint8 = 1 << iota // its content is not visible text
	fInert                       // <template>: its content is inert
	fForeign                     // SVG or MathML
	fMath                        // MathML (with fForeign)
	fHTMLPoint                   // an HTML integration point: SVG foreignObject, desc or title, MathML annotation-xml for HTML
	fTextPoint                   // a MathML text integration point: mi, mo, mn, ms or mtext
	fAnchor                      // the <a> whose anchor text is being collected
	fH1                          // the <h1> whose text is H1
)

// entry is an open element.
type entry struct {
	tag   tag
	id    uint32 // for fAnchor: the anchor's sequence number
	cls   class
	flags uint8
}

// What to do with the raw text that follows a raw-text element's start tag.
const (
	rawNone    = iota
	rawSkip    // script, style, iframe, noembed, later titles
	rawTitle   // the first <title>
	rawVisible // textarea, xmp, plaintext
	rawNested  // noscript, noframes: markup to scan for links
)

// rawLink is a reference before resolution.
type rawLink struct {
	href     string
	anchor   string
	nofollow bool
}

type parser struct {
	opts  Options
	token string // opts.Token in lower case
	doc   *Document

	text  textBuf
	title textBuf
	h1    textBuf

	// The stack of open elements and how many of them have each flag.
	attrs            attrs // of the current start tag
	stack            []entry
	tok              *Token // the token being read
	floor            int    // elements below are out of reach (those outside <noscript> while nested)
	hide, inert, fgn int
	// How many open elements have a tag in each bucket, and how many are
	// headings: a search of the stack for an element that is not open
	// ends at once.
	open              [64]uint16
	headings          int
	raw               int  // what to do with the next raw text
	nested            bool // scanning the content of <noscript> or <noframes>
	quiet             bool // for Tokens: only the visitors, no text or links
	inBody            bool // past the head: content (outside <template>) or a body element was seen
	titleSeen, h1Seen bool
	h1Open, h1OnStack bool
	langSeen          bool
	descSeen          bool
	// Tokens read (those of <noscript> content included), and the steps
	// taken in searches of the stack (to check in tests that they take
	// linear time).
	tokens, steps int

	baseSeen, refreshSeen bool
	baseHref, refreshURL  string
	refreshDelay          int
	// The distinct hrefs of the canonical links in the head, and whether
	// there were more than maxCanonicals.
	canonicalHrefs []string
	canonicalMany  bool

	// References in document order, deduplicated, and the anchor being
	// collected.
	links        []rawLink
	linkIndex    map[string]int
	rawCap       int
	anchorOpen   bool
	anchorNested bool // opened while nested
	anchorSeq    uint32
	anchorIdx    int
	anchorHide   int // p.hide when the anchor opened: deeper hidden text is not anchor text
	anchor       textBuf
	anchorAlt    []byte
	anchorLabel  []byte
	anchorTitle  []byte
}

func (p *parser) scan(z *tokenizer) {
	outer := p.tok
	defer func() { p.tok = outer }()
	tok := &Token{z: z}
	p.tok = tok
	visit := !p.nested && len(p.opts.Visitors) > 0
	for !p.doc.Truncated {
		// CDATA sections are text in SVG and MathML, bogus comments
		// elsewhere.
		n := len(p.stack)
		z.AllowCDATA(n > p.floor && p.stack[n-1].flags&fForeign != 0)
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if p.tokens == p.opts.MaxTokens {
			p.doc.Truncated = true
			return
		}
		p.tokens++
		tok.reset(tt)
		raw := p.raw
		p.raw = rawNone
		switch tt {
		case html.TextToken:
			switch {
			case raw == rawSkip:
				// Not needed: spare the decoding.
			case raw != rawNone:
				p.onRawText(raw, tok.Text())
			case isSpace(z.Raw()):
				// Most text between tags is indentation.
				p.brk(sepSpace)
			default:
				p.onText(tok.Text())
			}
		case html.StartTagToken:
			p.onStart(z, false)
		case html.SelfClosingTagToken:
			p.onStart(z, true)
		case html.EndTagToken:
			p.onEnd(z.Raw())
		}
		if visit {
			for _, v := range p.opts.Visitors {
				v.VisitToken(tok)
			}
		}
	}
}

func (p *parser) onText(s []byte) {
	if !p.inBody && !p.nested && p.inert == 0 && len(trimSpaceBytes(s)) > 0 {
		p.inBody = true
	}
	p.visible(s)
}

func (p *parser) onRawText(raw int, s []byte) {
	switch raw {
	case rawTitle:
		p.title.write(s)
	case rawVisible:
		p.visible(s)
	case rawNested:
		p.scanNested(s)
	}
}

// visible adds visible text to the page text, the first h1 and the anchor.
func (p *parser) visible(s []byte) {
	if p.quiet {
		return
	}
	if p.hide == 0 && !p.nested {
		p.text.write(s)
		if p.h1Open {
			p.h1.write(s)
		}
	}
	if p.anchorOpen && p.hide == p.anchorHide && p.anchorNested == p.nested {
		p.anchor.write(s)
	}
}

// brk separates the text before from the text after.
func (p *parser) brk(sep int) {
	if p.quiet {
		return
	}
	if p.hide == 0 && !p.nested {
		p.text.brk(sep)
		if p.h1Open {
			p.h1.brk(sep)
		}
	}
	if p.anchorOpen {
		p.anchor.brk(sep)
	}
}

// scanNested scans the content of <noscript> or <noframes> for links only.
func (p *parser) scanNested(content []byte) {
	depth := len(p.stack)
	p.nested, p.floor = true, depth
	p.scan(newTokenizer(content))
	p.popTo(depth)
	p.floor = 0
	if p.anchorOpen && p.anchorNested {
		p.endAnchor()
	}
	p.nested = false
	p.raw = rawNone
}

// gather reads the wanted attributes of the current start tag into at.
// When visitors are given the token, they read all of its attributes
// (Token.Attrs) and the tag is parsed once, for them and for at; else only
// the wanted ones are read (gatherAttrs). Both give the first value of each
// key among the first MaxAttrs keys, decoded.
func (p *parser) gather(at *attrs) {
	if p.nested || len(p.opts.Visitors) == 0 {
		gatherAttrs(at, p.tok)
		return
	}
	attrsOf(at, p.tok.Attrs())
}

func (p *parser) onStart(z *tokenizer, selfClosing bool) {
	raw := z.Raw()
	t, a, _ := tagOf(raw)
	p.tok.atom, p.tok.atomDone = a, true // for the visitors
	cls := classOf(a)
	foreign := p.inForeign(a)
	if foreign && cls&clBreakout != 0 {
		p.leaveForeign()
		foreign = false
	}
	if foreign {
		// An SVG or MathML element, whatever its name: a <title> or
		// <style> in SVG has markup, not raw text, for content.
		if cls&clRaw != 0 {
			z.NextIsNotRawText()
		}
		cls = 0
	}
	if !foreign {
		p.closeImplied(a, cls)
	}
	switch {
	case cls&clBlock != 0:
		p.brk(sepLine)
	case cls&clSpace != 0:
		p.brk(sepSpace)
	}
	if cls&clHead == 0 && !p.nested && p.inert == 0 {
		// (The content of a <template> in the head leaves the head open.)
		p.inBody = true
	}

	at := &p.attrs
	at.has = 0
	switch a {
	case atom.A, atom.Area, atom.Iframe, atom.Frame, atom.Base, atom.Link, atom.Meta, atom.Html:
		p.gather(at)
	case atom.Img:
		if p.anchorOpen && len(p.anchorAlt) == 0 {
			p.gather(at)
		}
	default:
		if cls&clVoid == 0 && z.hasHiddenKey() {
			p.gather(at)
		}
	}

	var flags uint8
	if v, ok := at.get(attrHidden); ok && !equalFoldBytes(trimSpaceBytes(v), "until-found") {
		flags |= fHide
	}
	if v, ok := at.get(attrAriaHidden); ok && equalFoldBytes(trimSpaceBytes(v), "true") {
		flags |= fHide
	}
	if cls&clHide != 0 {
		flags |= fHide
	}
	if a == atom.Template && !foreign {
		flags |= fInert
	}
	if foreign || a == atom.Svg || a == atom.Math {
		flags |= p.foreignFlags(a, foreign)
	}
	meta := p.inert == 0 && !p.nested // may set document metadata

	switch a {
	case atom.A:
		p.endAnchor()
		href, ok := at.get(attrHref)
		if !ok && foreign {
			href, ok = at.get(attrXLinkHref)
		}
		if ok && p.inert == 0 && p.startAnchor(href, at) {
			flags |= fAnchor
			if flags&fHide != 0 {
				// The text of a hidden link is hidden relative to
				// the page, not to the link.
				p.anchorHide++
			}
		}
	case atom.Area:
		if href, ok := at.get(attrHref); ok && p.inert == 0 {
			rel, _ := at.get(attrRel)
			if i := p.addLink(href, nofollow(rel)); i >= 0 && p.links[i].anchor == "" {
				p.links[i].anchor = fallbackAnchor(p.opts.MaxAnchor, at, attrAlt, attrAriaLabel, attrTitle)
			}
		}
	case atom.Iframe, atom.Frame:
		if src, ok := at.get(attrSrc); ok && p.inert == 0 {
			if i := p.addLink(src, false); i >= 0 && p.links[i].anchor == "" {
				p.links[i].anchor = fallbackAnchor(p.opts.MaxAnchor, at, attrTitle)
			}
		}
	case atom.Img:
		if alt, ok := at.get(attrAlt); ok {
			p.anchorAlt = append(p.anchorAlt[:0], alt...)
		}
	case atom.Base:
		if href, ok := at.get(attrHref); ok && meta && !p.baseSeen {
			p.baseSeen = true
			p.baseHref = string(trimURLSpace(href))
		}
	case atom.Link:
		if href, ok := at.get(attrHref); ok && meta && !p.inBody {
			if rel, _ := at.get(attrRel); hasToken(rel, "canonical") {
				p.addCanonical(trimURLSpace(href))
			}
		}
	case atom.Meta:
		if meta {
			p.onMeta(at)
		}
	case atom.Html:
		if !p.langSeen && meta {
			lang, ok := at.get(attrLang)
			if !ok {
				lang, ok = at.get(attrXMLLang)
			}
			if ok {
				p.langSeen = true
				p.doc.Lang = langTag(lang)
			}
		}
	case atom.H1:
		if !p.h1Seen && !p.nested && !foreign && p.hide == 0 && flags&fHide == 0 {
			p.h1Seen, p.h1Open = true, true
			flags |= fH1
		}
	}

	if cls&clRaw != 0 {
		// The tokenizer reads the content as one text token and then
		// the end tag; the element never goes on the stack.
		p.raw = p.rawKind(a, flags)
		return
	}
	if cls&clVoid != 0 || a == atom.Html || a == atom.Head || a == atom.Body ||
		selfClosing && flags&fForeign != 0 || !p.push(entry{tag: t, id: p.anchorSeq, cls: cls, flags: flags}) {
		if flags&fAnchor != 0 {
			if selfClosing && flags&fForeign != 0 {
				p.endAnchor()
			} else {
				p.anchorHide = p.hide
			}
		}
		if flags&fH1 != 0 {
			p.h1OnStack = false
		}
		return
	}
	if flags&fH1 != 0 {
		p.h1OnStack = true
	}
}

// rawKind says what to do with the content of a raw-text element.
func (p *parser) rawKind(a atom.Atom, flags uint8) int {
	switch a {
	case atom.Title:
		if p.titleSeen || p.hide > 0 || p.inert > 0 || p.nested || flags&fForeign != 0 {
			return rawSkip
		}
		p.titleSeen = true
		return rawTitle
	case atom.Textarea, atom.Xmp, atom.Plaintext:
		if flags&fHide != 0 {
			return rawSkip
		}
		return rawVisible
	case atom.Noscript, atom.Noframes:
		if p.nested || p.inert > 0 || p.quiet {
			return rawSkip
		}
		return rawNested
	}
	return rawSkip
}

func (p *parser) onMeta(at *attrs) {
	content, hasContent := at.get(attrContent)
	if !hasContent {
		return
	}
	if name, ok := at.get(attrName); ok {
		name = trimSpaceBytes(name)
		switch {
		case equalFoldBytes(name, "robots") || p.token != "" && equalFoldBytes(name, p.token):
			p.doc.Robots = p.doc.Robots.Merge(ParseRobotsDirectives(string(content), p.opts.Token))
		case equalFoldBytes(name, "description") && !p.descSeen:
			p.descSeen = true
			p.doc.Description = collapse(content, MaxShortText)
		}
	}
	if equiv, ok := at.get(attrHTTPEquiv); ok && !p.refreshSeen && equalFoldBytes(trimSpaceBytes(equiv), "refresh") {
		if delay, target, ok := parseRefresh(string(content)); ok {
			p.refreshSeen = true
			p.refreshDelay = delay
			p.refreshURL = target
		}
	}
}

func (p *parser) onEnd(raw []byte) {
	t, a, _ := tagOf(raw)
	p.tok.atom, p.tok.atomDone = a, true // for the visitors
	cls := classOf(a)
	switch a {
	case atom.Html, atom.Head, atom.Body:
		// The root and body stay open: content after </body> is still
		// body content.
		return
	case atom.Br:
		// </br> is read as <br>.
		p.brk(sepLine)
		return
	case atom.A:
		p.endAnchor()
	}
	if i := p.openIndex(t, a, cls); i >= 0 {
		p.popTo(i)
	}
	if isHeading(a) && p.h1Open && !p.h1OnStack {
		p.h1Open = false
	}
	switch {
	case cls&clBlock != 0 && p.fgn == 0:
		p.brk(sepLine)
	case cls&clSpace != 0 && p.fgn == 0:
		p.brk(sepSpace)
	}
}

// openIndex returns the position on the stack of the element an end tag
// closes, or -1 if the end tag is to be ignored. This follows the tree
// builder's rules in outline: an end tag of a special or formatting element
// closes the nearest such element within scope; any other end tag closes
// the nearest element of its name unless a special element comes first;
// SVG and MathML elements are matched by name alone.
func (p *parser) openIndex(t tag, a atom.Atom, cls class) int {
	heading := isHeading(a)
	if p.open[bucket(t)] == 0 && (!heading || p.headings == 0) {
		return -1
	}
	for i := len(p.stack) - 1; i >= p.floor; i-- {
		p.steps++
		e := &p.stack[i]
		if e.tag == t || heading && isHeading(atom.Atom(e.tag)) {
			return i
		}
		switch {
		case e.flags&fForeign != 0:
		case cls&(clSpecial|clFormat) != 0:
			if e.cls&clScope != 0 {
				return -1
			}
		case e.cls&clSpecial != 0:
			return -1
		}
	}
	return -1
}

// closeImplied closes the elements that a start tag of a ends implicitly.
func (p *parser) closeImplied(a atom.Atom, cls class) {
	switch a {
	case atom.Li:
		p.closeListItem(atom.Li, atom.Li)
	case atom.Dd, atom.Dt:
		p.closeListItem(atom.Dd, atom.Dt)
	}
	if cls&clClosesP != 0 {
		if i := p.lastIndex(atom.P, atom.P, clScope); i >= 0 {
			p.popTo(i)
		}
	}
	top := atom.Atom(0)
	if n := len(p.stack); n > p.floor && p.stack[n-1].flags&fForeign == 0 {
		top = atom.Atom(p.stack[n-1].tag)
	}
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if isHeading(top) {
			p.popTo(len(p.stack) - 1)
		}
	case atom.Option, atom.Optgroup:
		if top == atom.Option {
			p.popTo(len(p.stack) - 1)
		}
	case atom.Td, atom.Th:
		if i := p.lastIndex(atom.Td, atom.Th, 0); i >= 0 && p.lastIndex(atom.Tr, atom.Table, 0) < i {
			p.popTo(i)
		}
	case atom.Tr:
		if i := p.lastIndex(atom.Tr, atom.Tr, 0); i >= 0 && p.lastIndex(atom.Table, atom.Table, 0) < i {
			p.popTo(i)
		}
	case atom.Tbody, atom.Thead, atom.Tfoot:
		for _, s := range [...]atom.Atom{atom.Tbody, atom.Thead, atom.Tfoot} {
			if i := p.lastIndex(s, s, 0); i >= 0 && p.lastIndex(atom.Table, atom.Table, 0) < i {
				p.popTo(i)
				break
			}
		}
	case atom.A:
		if i := p.lastIndex(atom.A, atom.A, clScope); i >= 0 {
			p.popTo(i)
		}
	}
}

// closeListItem closes an open li (or dd or dt) unless a special element
// other than address, div and p comes first.
func (p *parser) closeListItem(a1, a2 atom.Atom) {
	if !p.mayBeOpen(a1, a2) {
		return
	}
	for i := len(p.stack) - 1; i >= p.floor; i-- {
		p.steps++
		e := &p.stack[i]
		if e.tag == tag(a1) || e.tag == tag(a2) {
			p.popTo(i)
			return
		}
		if e.flags&fForeign == 0 && e.cls&clSpecial != 0 &&
			e.tag != tag(atom.Address) && e.tag != tag(atom.Div) && e.tag != tag(atom.P) {
			return
		}
	}
}

// lastIndex returns the position of the topmost open a1 or a2, searching
// down to the first element of a class in stop; -1 if there is none.
func (p *parser) lastIndex(a1, a2 atom.Atom, stop class) int {
	if !p.mayBeOpen(a1, a2) {
		return -1
	}
	for i := len(p.stack) - 1; i >= p.floor; i-- {
		p.steps++
		e := &p.stack[i]
		if e.tag == tag(a1) || e.tag == tag(a2) {
			return i
		}
		if e.cls&stop != 0 && e.flags&fForeign == 0 {
			return -1
		}
	}
	return -1
}

// mayBeOpen reports whether an a1 or a2 element may be on the stack: false
// means that none is.
func (p *parser) mayBeOpen(a1, a2 atom.Atom) bool {
	return p.open[bucket(tag(a1))] != 0 || p.open[bucket(tag(a2))] != 0
}

// bucket returns the bucket of a tag in parser.open.
func bucket(t tag) int {
	return int(uint32(t) * 2654435761 >> 26)
}

func (p *parser) push(e entry) bool {
	if len(p.stack) >= maxDepth {
		return false
	}
	p.stack = append(p.stack, e)
	p.open[bucket(e.tag)]++
	if isHeading(atom.Atom(e.tag)) {
		p.headings++
	}
	if e.flags&fHide != 0 {
		p.hide++
	}
	if e.flags&fInert != 0 {
		p.inert++
	}
	if e.flags&fForeign != 0 {
		p.fgn++
	}
	return true
}

// popTo closes the elements from position i up.
func (p *parser) popTo(i int) {
	for j := len(p.stack) - 1; j >= i; j-- {
		e := &p.stack[j]
		p.open[bucket(e.tag)]--
		if isHeading(atom.Atom(e.tag)) {
			p.headings--
		}
		if e.flags&fHide != 0 {
			p.hide--
		}
		if e.flags&fInert != 0 {
			p.inert--
		}
		if e.flags&fForeign != 0 {
			p.fgn--
		}
		if e.flags&fAnchor != 0 && p.anchorOpen && p.anchorSeq == e.id {
			p.endAnchor()
		}
		if e.flags&fH1 != 0 {
			p.h1Open, p.h1OnStack = false, false
		}
	}
	if i < len(p.stack) {
		p.stack = p.stack[:i]
	}
}

// inForeign reports whether a start tag of a is read as SVG or MathML
// content, as the tree builder decides: the current element is SVG or
// MathML but not an integration point, where HTML is read.
func (p *parser) inForeign(a atom.Atom) bool {
	n := len(p.stack)
	if p.fgn == 0 || n <= p.floor {
		return false
	}
	top := &p.stack[n-1]
	switch {
	case top.flags&fForeign == 0, top.flags&fHTMLPoint != 0:
		return false
	case top.flags&fTextPoint != 0:
		return a == atom.Mglyph || a == atom.Malignmark
	case top.tag == tag(atom.AnnotationXml) && top.flags&fMath != 0:
		return a != atom.Svg
	}
	return true
}

// foreignFlags returns the flags of an SVG or MathML element a: <svg> and
// <math> read as HTML start their namespace; any other element is in the
// namespace of the current one.
func (p *parser) foreignFlags(a atom.Atom, foreign bool) uint8 {
	flags := fForeign
	if foreign {
		flags |= p.stack[len(p.stack)-1].flags & fMath
	} else if a == atom.Math {
		flags |= fMath
	}
	if flags&fMath == 0 {
		switch a {
		case atom.Foreignobject, atom.Desc, atom.Title:
			flags |= fHTMLPoint
		}
		return flags
	}
	switch a {
	case atom.Mi, atom.Mo, atom.Mn, atom.Ms, atom.Mtext:
		flags |= fTextPoint
	case atom.AnnotationXml:
		if enc, ok := p.tok.Attr("encoding"); ok {
			enc = trimSpaceBytes(enc)
			if equalFoldBytes(enc, "text/html") || equalFoldBytes(enc, "application/xhtml+xml") {
				flags |= fHTMLPoint
			}
		}
	}
	return flags
}

// leaveForeign closes the SVG and MathML elements on top of the stack, up
// to an integration point.
func (p *parser) leaveForeign() {
	i := len(p.stack)
	for i > p.floor && p.stack[i-1].flags&(fForeign|fHTMLPoint|fTextPoint) == fForeign {
		i--
	}
	p.popTo(i)
}

// startAnchor opens the anchor of an <a> and reports whether it did.
func (p *parser) startAnchor(href []byte, at *attrs) bool {
	rel, _ := at.get(attrRel)
	i := p.addLink(href, nofollow(rel))
	if i < 0 {
		return false
	}
	p.anchorOpen = true
	p.anchorNested = p.nested
	p.anchorSeq++
	p.anchorIdx = i
	p.anchorHide = p.hide
	p.anchor.reset(p.opts.MaxAnchor, 0, true)
	p.anchorAlt = p.anchorAlt[:0]
	label, _ := at.get(attrAriaLabel)
	p.anchorLabel = append(p.anchorLabel[:0], label...)
	title, _ := at.get(attrTitle)
	p.anchorTitle = append(p.anchorTitle[:0], title...)
	return true
}

// endAnchor closes the open anchor, if any, and gives its text to its link
// unless the link has text already.
func (p *parser) endAnchor() {
	if !p.anchorOpen {
		return
	}
	p.anchorOpen = false
	l := &p.links[p.anchorIdx]
	if l.anchor != "" {
		return
	}
	for _, s := range [...][]byte{p.anchorAlt, p.anchorLabel, p.anchorTitle} {
		if p.anchor.Len() > 0 {
			break
		}
		p.anchor.write(s)
	}
	l.anchor = p.anchor.String()
}

// addCanonical records the href of a canonical link in the head.
func (p *parser) addCanonical(href []byte) {
	for _, h := range p.canonicalHrefs {
		if h == string(href) {
			return
		}
	}
	if len(p.canonicalHrefs) == maxCanonicals {
		p.canonicalMany = true
		return
	}
	p.canonicalHrefs = append(p.canonicalHrefs, string(href))
}

// addLink records a reference and returns its index, or -1 if too many
// references have been recorded.
func (p *parser) addLink(href []byte, nofollow bool) int {
	if p.quiet {
		return -1
	}
	href = trimURLSpace(href)
	if i, ok := p.linkIndex[string(href)]; ok {
		return i
	}
	if len(p.links) >= p.rawCap {
		return -1
	}
	if p.linkIndex == nil {
		p.linkIndex = make(map[string]int, 64)
		p.links = make([]rawLink, 0, 64)
	}
	s := string(href)
	p.linkIndex[s] = len(p.links)
	p.links = append(p.links, rawLink{href: s, nofollow: nofollow})
	return len(p.links) - 1
}

// finish resolves the references and fills in the document.
func (p *parser) finish(pageURL string) {
	p.endAnchor()
	d := p.doc
	d.Text = p.text.String()
	d.Title = p.title.String()
	d.H1 = p.h1.String()
	r := p.opts.Resolver
	base := pageURL
	if p.baseSeen {
		if u, err := r.Resolve(pageURL, p.baseHref); err == nil {
			d.Base, base = u, u
		}
	}
	if len(p.canonicalHrefs) == 0 && (!p.refreshSeen || p.refreshURL == "") && len(p.links) == 0 {
		return
	}
	resolve := func(ref string) (string, error) { return r.Resolve(base, ref) }
	if br, ok := r.(BaseResolver); ok {
		if f, err := br.ResolverFor(base); err == nil {
			resolve = f
		}
	}
	if !p.canonicalMany {
		for _, h := range p.canonicalHrefs {
			u, err := resolve(h)
			if err != nil {
				continue
			}
			if d.Canonical != "" && d.Canonical != u {
				d.Canonical = "" // conflicting
				break
			}
			d.Canonical = u
		}
	}
	if p.refreshSeen && p.refreshURL != "" {
		if u, err := resolve(p.refreshURL); err == nil {
			d.Refresh, d.RefreshDelay = u, p.refreshDelay
		}
	}
	if len(p.links) == 0 {
		return
	}
	d.Links = make([]Link, 0, min(len(p.links), p.opts.MaxLinks))
	seen := p.linkIndex // done with: reuse it for the resolved URLs
	clear(seen)
	for _, l := range p.links {
		u, err := resolve(l.href)
		if err != nil {
			continue
		}
		if i, ok := seen[u]; ok {
			if d.Links[i].Anchor == "" {
				d.Links[i].Anchor = l.anchor
			}
			continue
		}
		if len(d.Links) == p.opts.MaxLinks {
			break
		}
		seen[u] = len(d.Links)
		d.Links = append(d.Links, Link{URL: u, Anchor: l.anchor, NoFollow: l.nofollow})
	}
	if len(d.Links) == 0 {
		d.Links = nil
	}
}

// isSpace reports whether b is all ASCII whitespace.
func isSpace(b []byte) bool {
	for _, c := range b {
		if !isASCIISpace(c) {
			return false
		}
	}
	return true
}

// fallbackAnchor returns the first of the given attributes that has text.
func fallbackAnchor(max int, at *attrs, ids ...int) string {
	for _, id := range ids {
		if v, ok := at.get(id); ok {
			if s := collapse(v, max); s != "" {
				return s
			}
		}
	}
	return ""
}

// nofollow reports whether a rel value asks not to follow a link.
func nofollow(rel []byte) bool {
	return hasToken(rel, "nofollow", "ugc", "sponsored")
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// langTag returns a lang attribute trimmed and lower-cased, or "" if it is
// not made of the letters, digits, hyphens and underscores of a language
// tag.
func langTag(v []byte) string {
	v = trimSpaceBytes(v)
	if len(v) > MaxShortText {
		return ""
	}
	b := make([]byte, len(v))
	for i, c := range v {
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return ""
		}
		b[i] = c
	}
	return string(b)
}
