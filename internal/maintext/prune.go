package maintext

import (
	"bytes"
	"hash/maphash"
	"math"
	"strings"

	"golang.org/x/net/html/atom"
)

// dropTags are elements that are never main content.
var dropTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Svg: true, atom.Canvas: true, atom.Button: true, atom.Select: true,
	atom.Textarea: true, atom.Input: true, atom.Label: true, atom.Nav: true, atom.Aside: true,
	atom.Footer: true, atom.Dialog: true, atom.Menu: true, atom.Figcaption: true,
}

// dropRoles are ARIA roles of boilerplate.
var dropRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "dialog": true, "alertdialog": true, "menu": true, "menubar": true,
}

// dropWords are words that, as a whole class or id or as a part of one
// joined by "-" or "_" ("cookie-banner", "kvkk_bar"), mark boilerplate.
var dropWords = map[string]bool{
	"cookie": true, "cookies": true, "consent": true, "gdpr": true, "kvkk": true, "cerez": true,
	"breadcrumb": true, "breadcrumbs": true, "skip": true, "share": true, "sharing": true,
	"social": true, "comments": true, "comment": true, "sidebar": true, "navbar": true,
	"pagination": true, "pager": true, "related": true, "masthead": true, "newsletter": true,
	"footer": true, "author": true, "byline": true, "caption": true, "credit": true, "credits": true,
	"tags": true, "subscribe": true, "teasers": true, "rating": true, "ratings": true,
	"copyright": true, "disclaimer": true, "embed": true, "legend": true, "teaser": true,
}

// prune marks as dropped the elements that are boilerplate by their
// markup alone (see isBoilerplate); one marked by a word of softWords only
// if it holds less than a third of the page's text, or of the text of the
// <main> or role=main it is in. An element that holds the page's
// <main>, an <article> or role=main is never dropped (nor is one of these
// itself), so that a wrapper with an unlucky class ("has-sidebar") cannot
// take the content with it; nor is one that holds an <h1>, unless it is an
// aside, a nav, a footer or the page's header (a widget's title).
func (b *Builder) prune() {
	nodes := b.nodes
	var total int32
	for i := len(nodes) - 1; i >= 0; i-- {
		n := &nodes[i]
		if n.text {
			n.raw = n.stop - n.start
		}
		if n.parent >= 0 {
			p := &nodes[n.parent]
			if n.flags&(fProtect|fProtected) != 0 {
				p.flags |= fProtected
			}
			if n.flags&(fH1|fHoldsH1) != 0 {
				p.flags |= fHoldsH1
			}
			if n.flags&fSkip == 0 {
				p.raw += n.raw
			}
		} else if n.flags&fSkip == 0 {
			total += n.raw
		}
	}
	for i := range nodes {
		n := &nodes[i]
		if n.flags&(fProtect|fProtected) != 0 {
			continue
		}
		if n.flags&(fH1|fHoldsH1) != 0 && n.props&pDrop == 0 && (n.atom != atom.Header || n.flags&fInArticle != 0) {
			// An h1 keeps the block that holds it, unless the block is
			// an aside, a nav, a footer or the page's header.
			continue
		}
		if n.flags&fBoiler != 0 || n.flags&fSoftBoiler != 0 && n.raw*3 < b.within(int32(i), total) {
			n.flags |= fDropped
		}
	}
}

// within returns the text that a soft boilerplate element is weighed
// against (see prune): that of the <main> or role=main it is in, else
// the page's, total.
func (b *Builder) within(i, total int32) int32 {
	if b.nodes[i].flags&fInMain == 0 {
		return total
	}
	for p := b.nodes[i].parent; p >= 0; p = b.nodes[p].parent {
		if b.nodes[p].flags&fMain != 0 {
			return b.nodes[p].raw
		}
	}
	return total
}

// isBoilerplate returns fBoiler if an element is boilerplate by its tag,
// role, class, id or visibility, fSoftBoiler if it is only by a word of
// softWords in its class or id, and 0 otherwise; inArticle tells whether
// it is inside an <article> or <main> (where a <header> is the article's
// own).
func isBoilerplate(a atom.Atom, props uint8, inArticle bool, at *elemAttrs, ci classInfo) uint16 {
	if props&pDrop != 0 {
		return fBoiler
	}
	if a == atom.Header && !inArticle {
		return fBoiler
	}
	if a == atom.Form || a == atom.Fieldset {
		// A comment or search form; a form around the whole page (as
		// ASP.NET writes them) holds more than half of its text.
		return fSoftBoiler
	}
	if at.has&hasRole != 0 && dropRoles[strings.ToLower(strings.TrimSpace(string(at.role)))] {
		return fBoiler
	}
	if at.has&hasHidden != 0 || at.ariaHidden {
		return fBoiler
	}
	if v := at.style; at.has&hasStyle != 0 && (bytes.Contains(v, []byte("none")) || bytes.Contains(v, []byte("hidden")) ||
		bytes.Contains(v, []byte("NONE")) || bytes.Contains(v, []byte("HIDDEN")) || hasUpper(v)) {
		s := strings.ToLower(strings.ReplaceAll(string(v), " ", ""))
		if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
			return fBoiler
		}
	}
	kind := ci.drop
	if at.has&hasID != 0 {
		var except map[string]bool
		if bytes.ContainsAny(at.id, "-_") && isSection(a, at.class) {
			// The id of a document section, made from its heading
			// ("related-work", "data-sharing").
			except = headingWords
		}
		kind |= dropWordOf(at.id, except)
	}
	if kind&fBoiler != 0 {
		return fBoiler
	}
	return kind
}

// softWords are dropWords of blocks that a page's layout wraps around its
// content by mistake or by design ("share-update-card", "sidebar-and-
// content-body"): an element they mark is dropped only if it holds less
// than a third of the page's text.
var softWords = map[string]bool{"share": true, "sharing": true, "social": true, "sidebar": true, "related": true, "skip": true,
	"teaser": true}

func hasPositive(v []byte) bool {
	pos, _ := classWords(v)
	return pos
}

// dropKind is the flag that a drop word gives: fSoftBoiler for softWords,
// fBoiler for the others, 0 for "".
func dropKind(w string) uint16 {
	switch {
	case w == "":
		return 0
	case softWords[w]:
		return fSoftBoiler
	}
	return fBoiler
}

// headingWords are dropWords that also begin or end common headings of
// papers and reports ("Related work", "Data sharing", "Social impact",
// "Skip lists", "Author contributions", "Credits"). Pandoc, Quarto, Sphinx and Markdown renderers give a
// section or a heading an id made from its heading's words, so in such an
// id of more than one word they do not mark boilerplate.
var headingWords = map[string]bool{"related": true, "social": true, "share": true, "sharing": true, "skip": true,
	"author": true, "credit": true, "credits": true}

// isSection reports whether an element is a section of a document: a
// <section>, a heading, or an element of class "section" (as Pandoc and
// Sphinx write them in HTML 4).
func isSection(a atom.Atom, class []byte) bool {
	if a == atom.Section || isHeading(a) {
		return true
	}
	for _, c := range bytes.Fields(class) {
		if bytes.EqualFold(c, []byte("section")) {
			return true
		}
	}
	return false
}

// hasDropWord reports whether a class or id list holds one of dropWords,
// other than those in except, as a whole token or as a part of one joined
// by "-" or "_".
func hasDropWord(v []byte, except map[string]bool) bool { return dropWordOf(v, except) != 0 }

// dropWordOf returns the kind (see dropKind) of the first of dropWords
// that a class or id list holds (see hasDropWord), or 0.
func dropWordOf(v []byte, except map[string]bool) uint16 {
	var buf [32]byte
	for i := 0; i < len(v); {
		var tok []byte
		tok, i = nextToken(v, i)
		// A modifier token ("has-sidebar", "no-share") is skipped.
		if isModifier(lowerASCII(buf[:0], tok)) {
			continue
		}
		// An element of a block ("share-card__text") is read by its own
		// name, not the block's.
		if e := bytes.LastIndex(tok, bem); e >= 0 && e+2 < len(tok) {
			tok = tok[e+2:]
		}
		// Its parts: runs of bytes other than '-' and '_'.
		for p := 0; p < len(tok); {
			for p < len(tok) && (tok[p] == '-' || tok[p] == '_') {
				p++
			}
			q := p
			for q < len(tok) && tok[q] != '-' && tok[q] != '_' {
				q++
			}
			if n := q - p; n > 0 && n <= len(buf) {
				w := lowerASCII(buf[:0], tok[p:q])
				if dropWords[string(w)] && !except[string(w)] {
					return dropKind(string(w))
				}
			}
			p = q
		}
	}
	return 0
}

// leadWords are words of the class of an article's lead or standfirst,
// which pages set apart from its body (see Builder.withLead).
var leadWords = map[string]bool{"lead": true, "intro": true, "excerpt": true, "abstract": true,
	"standfirst": true, "subheadline": true, "summary": true, "deck": true, "dek": true}

// imageWords are words of the class of an image's box, whose short text
// is a credit, a source or a caption (see node.imageNote).
var imageWords = map[string]bool{"img": true, "image": true, "images": true, "photo": true, "foto": true,
	"bild": true, "picture": true, "pic": true, "imginline": true}

// metaWords are words of the class of a line about a text (its date, its
// categories), whose short text is not the text (see node.imageNote).
var metaWords = map[string]bool{"date": true, "datum": true, "datetime": true, "meta": true,
	"postmeta": true, "postmetadata": true, "published": true, "timestamp": true}

// recipeWords are words of the class of a recipe's list of ingredients,
// which pages set apart from its steps (see Builder.withLead).
var recipeWords = map[string]bool{"ingredient": true, "ingredients": true, "zutaten": true,
	"ingredientes": true, "ingredienti": true}

// classInfo is what the words of a class list say (see classCache).
type classInfo struct {
	drop     uint16 // boilerplate flag of the class list (see classDrop)
	pos, neg bool   // classWords
	parts    uint8  // classParts
	hash     uint32 // classHash
}

// classCache keeps the classInfo of the class lists of a page: a page
// repeats a few class lists many times. It is an open-addressed table
// whose slots are kept from page to page (see reset): a slot of an earlier
// page is empty, so that nothing is cleared or allocated again.
type classCache struct {
	slots []classSlot // a power of two of them, or none yet
	keys  []byte      // the class lists kept, one after another
	n     int         // class lists kept
	gen   uint32      // the page's generation: slots of another are empty
	// The slot of the class list asked last, if any: an element's class
	// is often its sibling's.
	last int
}

type classSlot struct {
	gen, hash uint32
	off, len  int32 // of the class list in keys
	info      classInfo
}

// maxClassCache bounds the class lists a classCache keeps.
const maxClassCache = 4096

var classSeed = maphash.MakeSeed()

// of returns the classInfo of class list v; a nil cache computes it.
func (c *classCache) of(v []byte) classInfo {
	if c == nil {
		return classInfoOf(v)
	}
	if c.gen == 0 {
		c.reset()
	}
	if c.last >= 0 && c.key(c.last, v) {
		return c.slots[c.last].info
	}
	h := uint32(maphash.Bytes(classSeed, v))
	mask := len(c.slots) - 1
	i := int(h) & mask
	for len(c.slots) > 0 && c.slots[i].gen == c.gen {
		if c.slots[i].hash == h && c.key(i, v) {
			c.last = i
			return c.slots[i].info
		}
		i = (i + 1) & mask
	}
	ci := classInfoOf(v)
	if c.n < maxClassCache && len(c.keys)+len(v) <= math.MaxInt32 {
		if 2*(c.n+1) > len(c.slots) {
			c.grow()
			mask = len(c.slots) - 1
			for i = int(h) & mask; c.slots[i].gen == c.gen; i = (i + 1) & mask {
			}
		}
		c.slots[i] = classSlot{gen: c.gen, hash: h, off: int32(len(c.keys)), len: int32(len(v)), info: ci}
		c.keys = append(c.keys, v...)
		c.n++
		c.last = i
	}
	return ci
}

// key reports whether slot i holds class list v.
func (c *classCache) key(i int, v []byte) bool {
	s := &c.slots[i]
	return s.gen == c.gen && string(c.keys[s.off:s.off+s.len]) == string(v)
}

// grow doubles the slots, keeping the page's class lists.
func (c *classCache) grow() {
	old := c.slots
	c.slots = make([]classSlot, max(64, 2*len(old)))
	mask := len(c.slots) - 1
	for _, s := range old {
		if s.gen != c.gen {
			continue
		}
		i := int(s.hash) & mask
		for c.slots[i].gen == c.gen {
			i = (i + 1) & mask
		}
		c.slots[i] = s
	}
	c.last = -1
}

// reset empties c for another page.
func (c *classCache) reset() {
	c.gen++
	if c.gen == 0 {
		// Generations have gone round: the slots are cleared.
		clear(c.slots)
		c.gen = 1
	}
	if cap(c.keys) > maxPooled {
		c.keys = nil // one page's huge class lists are not kept
	}
	c.keys, c.n, c.last = c.keys[:0], 0, -1
}

// Kinds of class parts (see classParts).
const (
	partLead = 1 << iota
	partRecipe
	partMeta
	partImage
)

// classWordKinds maps each word of dropWords, leadWords, recipeWords,
// metaWords and imageWords to what it says: its drop kind (see dropKind)
// and its part kinds, so that one look-up per part of a class list
// answers all of them (see classInfoOf).
var classWordKinds = func() map[string]wordKind {
	m := map[string]wordKind{}
	for kind, words := range map[uint8]map[string]bool{partLead: leadWords, partRecipe: recipeWords,
		partMeta: metaWords, partImage: imageWords} {
		for w := range words {
			k := m[w]
			k.parts |= kind
			m[w] = k
		}
	}
	for w := range dropWords {
		k := m[w]
		k.drop = dropKind(w)
		m[w] = k
	}
	return m
}()

type wordKind struct {
	drop  uint16
	parts uint8
}

// classInfoOf returns the classInfo of a class list in one pass over its
// tokens, each lowered once: what classDrop, classParts, classHash and
// classWords give, each in a pass of its own (the tests check that it
// is). A list with a token longer than maxClassToken is read by those.
func classInfoOf(v []byte) classInfo {
	var buf [maxClassToken]byte
	var ci classInfo
	h := uint32(2166136261)
	hashed := false
	var drop uint16
	for i := 0; i < len(v); {
		var tok []byte
		tok, i = nextToken(v, i)
		if len(tok) == 0 {
			continue
		}
		if len(tok) > len(buf) {
			return classInfoSlow(v)
		}
		// classHash: the token as it is, unless it names one element.
		if !instanceToken(tok) {
			hashed = true
			for _, c := range tok {
				h = (h ^ uint32(c)) * 16777619
			}
			h = (h ^ ' ') * 16777619
		}
		l := buf[:len(tok)]
		for k, c := range tok {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			l[k] = c
		}
		// An element of a block ("share-card__text") is read by its own
		// name by dropWordOf and classWords; a modifier ("has-sidebar")
		// not at all, dropWordOf judging the whole token, classWords
		// the element's name.
		elem := 0
		for k := len(l) - 2; k >= 0; k-- { // the last "__", if not at the end
			if l[k] == '_' && l[k+1] == '_' {
				if k+2 < len(l) {
					elem = k + 2
				}
				break
			}
		}
		if !isModifier(l[elem:]) {
			switch hasNeg, hasPos := scanWords(l[elem:]); {
			case hasNeg:
				ci.neg = true
			case hasPos:
				ci.pos = true
			}
		}
		findDrop := drop == 0 && !isModifier(l)
		// The parts: runs of bytes other than '-' and '_'.
		for k := 0; k < len(l); {
			for k < len(l) && (l[k] == '-' || l[k] == '_') {
				k++
			}
			m := k
			for m < len(l) && l[m] != '-' && l[m] != '_' {
				m++
			}
			if n := m - k; n > 0 && (n <= 16 || findDrop && n <= 32 && k >= elem) {
				if wk, ok := classWordKinds[string(l[k:m])]; ok {
					if n <= 16 {
						ci.parts |= wk.parts
					}
					if findDrop && k >= elem && wk.drop != 0 {
						drop, findDrop = wk.drop, false
					}
				}
			}
			k = m
		}
	}
	if hashed {
		ci.hash = h | 1
	}
	if drop == fSoftBoiler && ci.pos {
		drop = 0
	}
	ci.drop = drop
	return ci
}

// maxClassToken is the longest class token that classInfoOf reads.
const maxClassToken = 64

// classInfoSlow returns the classInfo of a class list by a pass for each
// of its parts.
func classInfoSlow(v []byte) classInfo {
	ci := classInfo{drop: classDrop(v), parts: classParts(v), hash: classHash(v)}
	ci.pos, ci.neg = classWords(v)
	return ci
}

// classDrop is the boilerplate flag a class list gives an element: that
// of its drop words (dropWordOf), except that a class naming content too
// ("l-sidebar-fixed l-article-body-segment") makes a soft one none.
func classDrop(v []byte) uint16 {
	k := dropWordOf(v, nil)
	if k == fSoftBoiler && hasPositive(v) {
		k = 0
	}
	return k
}

// classParts returns the kinds of the parts of a class list: partLead if
// hasPart(v, leadWords), and so on, in one pass.
func classParts(v []byte) uint8 {
	var buf [16]byte
	var kinds uint8
	for i := 0; i < len(v); {
		for i < len(v) && (isSpaceByte(v[i]) || v[i] == '-' || v[i] == '_') {
			i++
		}
		j := i
		for j < len(v) && !isSpaceByte(v[j]) && v[j] != '-' && v[j] != '_' {
			j++
		}
		if n := j - i; n > 0 && n <= len(buf) {
			kinds |= classWordKinds[string(lowerASCII(buf[:0], v[i:j]))].parts
		}
		i = j
	}
	return kinds
}

// bem separates a block's name from its element's in a class token
// ("share-update-card__update-text").
var bem = []byte("__")

// nextToken returns the class or id token at or after v[i] (empty at the
// end of v) and where the rest of v starts.
func nextToken(v []byte, i int) (tok []byte, next int) {
	for i < len(v) && isSpaceByte(v[i]) {
		i++
	}
	j := tokenEnd(v, i)
	return v[i:j], j
}

func tokenEnd(v []byte, i int) int {
	for i < len(v) && !isSpaceByte(v[i]) {
		i++
	}
	return i
}

// lowerASCII appends s in ASCII lower case to dst, up to its capacity.
func lowerASCII(dst, s []byte) []byte {
	for _, c := range s {
		if len(dst) == cap(dst) {
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func isSpaceByte(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

func hasUpper(b []byte) bool {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}
