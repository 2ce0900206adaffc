package maintext

import (
	"bytes"
	"sync"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/acrawler/acrawler/internal/htmlx"
)

// maxOpen is the number of elements open at once above which a page is
// unparsable, as it is for the HTML tree builder (html, body included).
const maxOpen = 512

// Node flags.
const (
	fBoiler    uint16 = 1 << iota // boilerplate by its markup (see isBoilerplate)
	fProtect                      // main, article or role=main: its ancestors are never pruned
	fMain                         // main or role=main
	fDropped                      // pruned: boilerplate holding nothing protected
	fSkip                         // never text (script, style, head, ...)
	fProtected                    // holds a protected element
	fLink                         // an <a>
	fInArticle                    // inside an article or main
)

// node is an element or a text of the page's tree. The tree is kept in
// document order (preorder): the descendants of node i are the nodes
// i+1 to end-1, so that a subtree is skipped by jumping to its end.
type node struct {
	atom   atom.Atom
	hash   uint32 // of the name of an unknown element, to match its end tag
	flags  uint16
	props  uint8 // of its tag: see propsOf
	text   bool
	parent int32
	end    int32 // one past the last descendant
	start  int32 // text: its bytes in Builder.text
	stop   int32

	// Filled in by stats, for the subtree after pruning: the length of
	// its texts, each trimmed (Readability's measure), the part of it
	// inside links, and commas.
	chars, linkChars, commas int32
	own                      int32  // visible bytes of its own text nodes
	links                    int32  // links in the subtree
	linkedHeads              int32  // headings in the subtree that are all link (see stats)
	cls                      int32  // class weight (see classWeight), for elements
	raw                      int32  // bytes of text in the subtree before pruning (see prune)
	clsHash                  uint32 // of its class attribute (see classHash), 0 if none
	score                    float64
}

// Builder builds the tree of a page from its tokens, as an htmlx.Visitor,
// so that the main text is found in the same pass of the tokenizer as
// htmlx.Parse's text and links. Result then finds the main content. A
// Builder reads one page.
//
// The tree is built by a simplified version of the HTML tree builder's
// rules (implied end tags of p, li, dt, dd, tr, td, th, option and
// headings; an end tag closes the nearest open element of its name unless
// a block is in the way for an inline one), which is what matters for
// telling paragraphs apart.
type Builder struct {
	nodes   []node
	text    []byte
	stack   []int32 // open elements, as indexes into nodes
	classes classCache
	lang    string
	xlang   string
	read    int // bytes of tokens read
	deep    bool
	// depthArticle counts open article and main elements, depthSkip
	// those of skipTags (whose text is not kept), depthForeign svg and
	// math elements.
	depthArticle, depthSkip, depthForeign int
	depthMain                             int    // open main elements (and role=main)
	title                                 []byte // the text of the page's <title>, up to maxTitle bytes
	inTitle, titleRead                    bool
	longest                               int32 // the longest paragraph of prose, found by score
}

// NewBuilder returns a Builder for one page of pageSize bytes (0 if not
// known), which sizes its buffers. Builders are recycled by Result.
func NewBuilder(pageSize int) *Builder {
	pageSize = min(pageSize, MaxInput)
	b, _ := builders.Get().(*Builder)
	if b == nil {
		b = &Builder{stack: make([]int32, 0, 64)}
	}
	// Sized for most pages, not the largest: on go-trafilatura's
	// benchmark pages a page has a node per 63 bytes at the median and per
	// 37 at the 90th percentile, and its text is 14% of its bytes at the
	// median and 33% at the 90th percentile. The rest grow by append;
	// buffers larger than needed were most of a page's allocation and
	// kept large pages' Builders out of the pool.
	if want := max(64, pageSize/40); cap(b.nodes) < want {
		b.nodes = make([]node, 0, want)
	}
	if want := max(512, pageSize/4); cap(b.text) < want {
		b.text = make([]byte, 0, want)
	}
	return b
}

// builders holds Builders for reuse: their node and text buffers are most
// of what extraction allocates.
var builders sync.Pool

// maxPooled is the size of buffers above which a Builder is not kept for
// reuse, so that one huge page does not pin its memory.
const maxPooled = 256 << 10

// release empties b and returns it to the pool.
func (b *Builder) release() {
	if cap(b.text) > maxPooled || cap(b.nodes)*int(unsafe.Sizeof(node{})) > 4*maxPooled {
		return
	}
	b.classes.reset()
	*b = Builder{nodes: b.nodes[:0], text: b.text[:0], stack: b.stack[:0], classes: b.classes, title: b.title[:0]}
	builders.Put(b)
}

// maxTitle is the length of a page's <title> that is kept (see
// textWriter.write).
const maxTitle = 1024

// voidTags have no end tag and no content.
var voidTags = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true, atom.Hr: true,
	atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true, atom.Source: true,
	atom.Track: true, atom.Wbr: true, atom.Param: true, atom.Keygen: true, atom.Basefont: true,
	atom.Bgsound: true, atom.Frame: true,
}

// closesP are start tags that end an open p.
var closesP = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Center: true,
	atom.Details: true, atom.Dialog: true, atom.Dir: true, atom.Div: true, atom.Dl: true,
	atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Header: true, atom.Hgroup: true, atom.Hr: true, atom.Main: true, atom.Menu: true, atom.Nav: true,
	atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Ul: true, atom.Li: true, atom.Dd: true, atom.Dt: true, atom.Listing: true, atom.Xmp: true,
	atom.Plaintext: true, atom.Search: true,
}

// breakout are the HTML elements whose start tag ends SVG or MathML
// content.
var breakout = map[atom.Atom]bool{
	atom.B: true, atom.Big: true, atom.Blockquote: true, atom.Body: true, atom.Br: true,
	atom.Center: true, atom.Code: true, atom.Dd: true, atom.Div: true, atom.Dl: true, atom.Dt: true,
	atom.Em: true, atom.Embed: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Head: true, atom.Hr: true, atom.I: true, atom.Img: true,
	atom.Li: true, atom.Listing: true, atom.Menu: true, atom.Meta: true, atom.Nobr: true, atom.Ol: true,
	atom.P: true, atom.Pre: true, atom.Ruby: true, atom.S: true, atom.Small: true, atom.Span: true,
	atom.Strong: true, atom.Strike: true, atom.Sub: true, atom.Sup: true, atom.Table: true,
	atom.Tt: true, atom.U: true, atom.Ul: true, atom.Var: true,
}

// scopeTags bound the search for an element to close.
var scopeTags = map[atom.Atom]bool{
	atom.Table: true, atom.Td: true, atom.Th: true, atom.Caption: true, atom.Button: true,
	atom.Object: true, atom.Applet: true, atom.Marquee: true, atom.Template: true,
	atom.Svg: true, atom.Math: true,
}

// Properties of tags, looked up once per tag (see propsOf).
const (
	pVoid uint8 = 1 << iota
	pClosesP
	pScope
	pSkip
	pBlock
	pDrop
	pPara
	pContainer // may hold paragraphs, so its class weighs in scoring
)

// containerTags are the elements that may hold paragraphs: the only ones
// that scoring weighs by their class and id.
var containerTags = map[atom.Atom]bool{
	atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Td: true,
	atom.Blockquote: true, atom.Li: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dd: true,
	atom.Form: true, atom.Table: true, atom.Tbody: true, atom.Tr: true, atom.Center: true,
	atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Nav: true, atom.Figure: true,
	atom.Details: true, atom.Font: true,
}

// tagProps holds the properties of the tags that have any, by open
// addressing on the atom (a map lookup was a visible part of reading a
// tag).
var tagProps = func() (t propTable) {
	m := tagPropMap()
	if len(m) > len(t)/2 {
		panic("maintext: propTable too small")
	}
	for a, p := range m {
		i := propSlot(a)
		for t[i].a != 0 {
			i = (i + 1) % len(t)
		}
		t[i] = propEntry{a, p}
	}
	return t
}()

// tagPropMap returns the properties of the tags that have any, by the
// sets that give them.
func tagPropMap() map[atom.Atom]uint8 {
	m := map[atom.Atom]uint8{}
	for _, s := range []struct {
		set  map[atom.Atom]bool
		prop uint8
	}{{voidTags, pVoid}, {closesP, pClosesP}, {scopeTags, pScope}, {skipTags, pSkip}, {blockTags, pBlock},
		{dropTags, pDrop}, {paragraphTags, pPara}, {containerTags, pContainer}} {
		for a := range s.set {
			m[a] |= s.prop
		}
	}
	return m
}

type propEntry struct {
	a atom.Atom
	p uint8
}

type propTable [512]propEntry

func propSlot(a atom.Atom) int { return int(uint32(a) * 2654435761 >> 23) }

// get returns the properties of a, 0 if it has none.
func (t *propTable) get(a atom.Atom) uint8 {
	for i := propSlot(a); ; i = (i + 1) % len(t) {
		switch t[i].a {
		case a:
			return t[i].p
		case 0:
			return 0
		}
	}
}

// propsOf returns the properties of a tag.
func propsOf(a atom.Atom) uint8 {
	if a == 0 {
		return pContainer // a custom element
	}
	return tagProps.get(a)
}

// VisitToken adds a token to the tree.
func (b *Builder) VisitToken(t *htmlx.Token) {
	if b.deep {
		return
	}
	if b.read += len(t.Raw()); b.read > MaxInput || len(b.nodes) >= MaxNodes {
		return
	}
	switch t.Type {
	case html.TextToken:
		if b.depthSkip == 0 {
			b.addText(t.Text())
		} else if b.inTitle && len(b.title) < maxTitle {
			b.title = append(b.title, t.Text()...)
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		b.start(t)
	case html.EndTagToken:
		b.end(t)
	}
}

func (b *Builder) parent() int32 {
	if len(b.stack) == 0 {
		return -1
	}
	return b.stack[len(b.stack)-1]
}

func (b *Builder) addText(s []byte) {
	if len(s) == 0 {
		return
	}
	i := int32(len(b.nodes))
	// Adjacent texts (split by a comment, say) are one.
	if n := len(b.nodes); n > 0 && b.nodes[n-1].text && b.nodes[n-1].parent == b.parent() && int(b.nodes[n-1].stop) == len(b.text) {
		b.text = append(b.text, s...)
		b.nodes[n-1].stop = int32(len(b.text))
		return
	}
	start := int32(len(b.text))
	b.text = append(b.text, s...)
	b.nodes = append(b.nodes, node{text: true, parent: b.parent(), end: i + 1, start: start, stop: int32(len(b.text))})
}

func (b *Builder) start(t *htmlx.Token) {
	a := t.Atom()
	switch a {
	case atom.Html:
		if v, ok := t.Attr("lang"); ok && b.lang == "" {
			b.lang = string(v)
		}
		if v, ok := t.Attr("xml:lang"); ok && b.xlang == "" {
			b.xlang = string(v)
		}
		return
	case atom.Head, atom.Body:
		return
	}
	var hash uint32
	if a == 0 {
		hash = nameHash(t.Name())
	}
	props := propsOf(a)
	if b.depthForeign > 0 && breakout[a] {
		// An HTML element ends SVG or MathML content, as in the tree
		// builder.
		for i := range b.stack {
			if x := b.nodes[b.stack[i]].atom; x == atom.Svg || x == atom.Math {
				b.popTo(i)
				break
			}
		}
	}
	b.closeImplied(a, props)
	i := int32(len(b.nodes))
	n := node{atom: a, hash: hash, props: props, parent: b.parent(), end: i + 1}
	if props&pSkip != 0 {
		n.flags |= fSkip
	}
	if a == atom.A {
		n.flags |= fLink
	}
	if b.depthArticle > 0 {
		n.flags |= fInArticle
	}
	if b.depthMain > 0 {
		n.flags |= fInMain
	}
	switch a {
	case atom.Main, atom.Article:
		n.flags |= fProtect
	case atom.H1:
		n.flags |= fH1
	}
	if a == atom.Main {
		n.flags |= fMain
	}
	at := readElemAttrs(t.Attrs())
	if at.has&hasRole != 0 && bytes.EqualFold(bytes.TrimSpace(at.role), []byte("main")) {
		n.flags |= fProtect | fMain
	}
	// The words of the class list, looked up once and only if needed.
	var ci classInfo
	if len(at.class) > 0 && (props&pDrop == 0 || props&(pContainer|pBlock) != 0) {
		ci = b.classes.of(at.class)
	}
	n.flags |= isBoilerplate(a, props, n.flags&fInArticle != 0, &at, ci)
	if a == atom.Time && !b.inProse() {
		// A date line ("Updated 3 May"), not a date in a sentence.
		n.flags |= fBoiler
	}
	if props&pContainer != 0 {
		n.cls = classWeight(&at, ci)
		n.clsHash = ci.hash
	}
	if props&pBlock != 0 || a == atom.Span {
		if len(at.class) > 0 {
			if ci.parts&partLead != 0 {
				n.flags |= fLead
			}
			if ci.parts&partRecipe != 0 {
				n.flags |= fRecipe
			}
			if ci.parts&partMeta != 0 || ci.parts&partImage != 0 && !ci.pos {
				// A date or meta line, or an image's box (not
				// "text-with-image": a class naming text too).
				n.flags |= fImage
			}
		}
	}
	b.nodes = append(b.nodes, n)
	if props&pVoid != 0 || t.Type == html.SelfClosingTagToken && (a == atom.Svg || a == atom.Math || b.depthForeign > 0) {
		return
	}
	// The tree builder's limit counts html and body.
	if len(b.stack)+2 >= maxOpen {
		b.deep = true
		return
	}
	b.stack = append(b.stack, i)
	if a == atom.Article || n.flags&fMain != 0 {
		b.depthArticle++
	}
	if n.flags&fMain != 0 {
		b.depthMain++
	}
	if props&pSkip != 0 {
		b.depthSkip++
	}
	if a == atom.Title && b.depthForeign == 0 && !b.titleRead {
		b.inTitle = true
	}
	if a == atom.Svg || a == atom.Math {
		b.depthForeign++
	}
}

// inProse reports whether the nearest open block is a paragraph, a
// quotation or a table cell.
func (b *Builder) inProse() bool {
	for i := len(b.stack) - 1; i >= 0; i-- {
		n := &b.nodes[b.stack[i]]
		switch n.atom {
		case atom.P, atom.Blockquote, atom.Td, atom.Dd:
			return true
		}
		if n.props&pBlock != 0 {
			return false
		}
	}
	return false
}

// closeImplied closes the elements that a start tag of a ends implicitly.
func (b *Builder) closeImplied(a atom.Atom, props uint8) {
	switch a {
	case atom.Li:
		b.closeOpen(atom.Li, atom.Li, atom.Ul, atom.Ol)
	case atom.Dd, atom.Dt:
		b.closeOpen(atom.Dd, atom.Dt, atom.Dl, atom.Dl)
	case atom.Tr:
		b.closeOpen(atom.Tr, atom.Tr, atom.Table, atom.Table)
	case atom.Td, atom.Th:
		b.closeOpen(atom.Td, atom.Th, atom.Tr, atom.Table)
	case atom.Tbody, atom.Thead, atom.Tfoot:
		b.closeOpen(atom.Tbody, atom.Thead, atom.Table, atom.Table)
		b.closeOpen(atom.Tfoot, atom.Tfoot, atom.Table, atom.Table)
	case atom.Option:
		b.closeOpen(atom.Option, atom.Option, atom.Select, atom.Datalist)
	case atom.A:
		b.closeOpen(atom.A, atom.A, atom.Table, atom.Table)
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if n := len(b.stack); n > 0 && isHeading(b.nodes[b.stack[n-1]].atom) {
			b.popTo(n - 1)
		}
	}
	if props&pClosesP != 0 {
		b.closeOpen(atom.P, atom.P, 0, 0)
	}
}

// closeOpen closes the nearest open a1 or a2 unless an element stop1,
// stop2 or one of scopeTags comes first.
func (b *Builder) closeOpen(a1, a2, stop1, stop2 atom.Atom) {
	for i := len(b.stack) - 1; i >= 0; i-- {
		n := &b.nodes[b.stack[i]]
		e := n.atom
		if e == a1 || e == a2 {
			b.popTo(i)
			return
		}
		if e == stop1 || e == stop2 || n.props&pScope != 0 {
			return
		}
	}
}

func (b *Builder) popTo(i int) {
	for j := len(b.stack) - 1; j >= i; j-- {
		k := b.stack[j]
		b.nodes[k].end = int32(len(b.nodes))
		if b.inTitle && b.nodes[k].atom == atom.Title {
			b.inTitle, b.titleRead = false, true
		}
		if b.nodes[k].atom == atom.Article || b.nodes[k].flags&fMain != 0 {
			b.depthArticle--
		}
		if b.nodes[k].flags&fMain != 0 {
			b.depthMain--
		}
		if b.nodes[k].props&pSkip != 0 {
			b.depthSkip--
		}
		if a := b.nodes[k].atom; a == atom.Svg || a == atom.Math {
			b.depthForeign--
		}
	}
	b.stack = b.stack[:i]
}

func (b *Builder) end(t *htmlx.Token) {
	a := t.Atom()
	switch a {
	case atom.Html, atom.Head, atom.Body:
		return
	case atom.Br:
		// </br> is read as <br>.
		i := int32(len(b.nodes))
		b.nodes = append(b.nodes, node{atom: atom.Br, parent: b.parent(), end: i + 1})
		return
	}
	var hash uint32
	if a == 0 {
		hash = nameHash(t.Name())
	}
	props := propsOf(a)
	inline := props&(pBlock|pScope) == 0
	for i := len(b.stack) - 1; i >= 0; i-- {
		n := &b.nodes[b.stack[i]]
		if n.atom == a && n.hash == hash || isHeading(a) && isHeading(n.atom) {
			b.popTo(i)
			return
		}
		if inline && n.props&(pBlock|pScope) != 0 {
			return
		}
		if n.props&pScope != 0 && props&pScope == 0 {
			return
		}
	}
}

// finish closes what is still open.
func (b *Builder) finish() {
	b.popTo(0)
}

func nameHash(name []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range name {
		h = (h ^ uint32(c)) * 16777619
	}
	return h | 1
}

// classHash is a hash of a class list without the tokens that name one
// element rather than a kind ("elementor-element-1d905f60", "post-4130"):
// see instanceToken. It is 0 if no token is left.
func classHash(v []byte) uint32 {
	h := uint32(2166136261)
	any := false
	for i := 0; i < len(v); {
		var tok []byte
		if tok, i = nextToken(v, i); len(tok) > 0 && !instanceToken(tok) {
			any = true
			for _, c := range tok {
				h = (h ^ uint32(c)) * 16777619
			}
			h = (h ^ ' ') * 16777619
		}
	}
	if !any {
		return 0
	}
	return h | 1
}

// instanceToken reports whether a class token names one element: its
// last part (after the last '-' or '_') is a number or a hexadecimal id of
// four characters or more ("post-4130", "elementor-element-6ace886"), not
// a size or a rank ("col-md-8", "outline-2").
func instanceToken(tok []byte) bool {
	k := len(tok)
	for k > 0 && tok[k-1] != '-' && tok[k-1] != '_' {
		k--
	}
	last := tok[k:]
	if len(last) < 4 {
		return false
	}
	for _, c := range last {
		if '0' <= c && c <= '9' {
			return true
		}
	}
	return false
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// elemAttrs are the attributes of an element that tell boilerplate and
// content, read in one pass (see readElemAttrs).
type elemAttrs struct {
	role, class, id, style []byte
	has                    uint8 // hasRole, ...: which of them the element has
	ariaHidden             bool  // aria-hidden="true"
}

const (
	hasRole = 1 << iota
	hasClass
	hasID
	hasStyle
	hasHidden
)

// readElemAttrs returns the elemAttrs of a tag's attributes.
func readElemAttrs(attrs []htmlx.Attr) (at elemAttrs) {
	for _, kv := range attrs {
		switch string(kv.Key) {
		case "role":
			at.role, at.has = kv.Val, at.has|hasRole
		case "class":
			at.class, at.has = kv.Val, at.has|hasClass
		case "id":
			at.id, at.has = kv.Val, at.has|hasID
		case "style":
			at.style, at.has = kv.Val, at.has|hasStyle
		case "hidden":
			at.has |= hasHidden
		case "aria-hidden":
			at.ariaHidden = bytes.EqualFold(kv.Val, []byte("true"))
		}
	}
	return at
}
