package maintext

import (
	"bytes"

	"golang.org/x/net/html/atom"
)

// Scoring, after Readability.js (Mozilla's Reader View) in outline: every
// paragraph of at least minParagraph visible bytes scores 1, plus 1 per
// comma, plus 1 per 100 bytes (at most 3); it gives its score to its
// parent, half to its grandparent and a sixth, a ninth and a twelfth to the
// three ancestors above. An element starts from a score by its tag and by
// the words of its class and id, and its final score is scaled down by its
// link density (the share of its text inside links). The best element is
// the content, with those of its siblings that score at least a fifth of
// it or are paragraphs of prose.
const (
	minParagraph = 25
	fInit        = fInArticle << 1  // score initialized
	fSoftBoiler  = fInit << 1       // boilerplate by a class of softWords: see prune
	fInMain      = fSoftBoiler << 1 // inside a main or role=main
	fH1          = fInMain << 1     // an h1: see prune
	fHoldsH1     = fH1 << 1         // holds an h1
	fLead        = fHoldsH1 << 1    // a lead or standfirst by its class (see leadWords)
	fRecipe      = fImage << 1      // a recipe's ingredients by its class (see recipeWords)
	fImage       = fLead << 1       // an image's box or a meta line by its class (see imageNote)
)

// paragraphTags are the elements scored as paragraphs; div, section and
// article are scored too when they hold text of their own.
var paragraphTags = map[atom.Atom]bool{
	atom.P: true, atom.Pre: true, atom.Td: true, atom.Blockquote: true, atom.Li: true,
	atom.Dd: true, atom.Dt: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
}

// tagScore is the score an element starts from, by its tag.
func tagScore(a atom.Atom) float64 {
	switch a {
	case atom.Div, atom.Article, atom.Main, atom.Section:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// Words of class and id that make an element more or less likely to be the
// content (Readability's lists, trimmed).
var (
	positiveWords = [][]byte{[]byte("article"), []byte("body"), []byte("content"), []byte("entry"),
		[]byte("main"), []byte("page"), []byte("post"), []byte("text"), []byte("blog"), []byte("story"),
		[]byte("abstract"), []byte("icerik"), []byte("makale")}
	negativeWords = [][]byte{[]byte("banner"), []byte("combx"), []byte("comment"), []byte("contact"),
		[]byte("footer"), []byte("gdpr"), []byte("masthead"), []byte("media"), []byte("outbrain"),
		[]byte("promo"), []byte("related"), []byte("scroll"), []byte("share"), []byte("shoutbox"),
		[]byte("sidebar"), []byte("skyscraper"), []byte("sponsor"), []byte("shopping"), []byte("tags"),
		[]byte("widget"), []byte("menu"), []byte("nav"), []byte("header"), []byte("topbar"), []byte("cookie")}
)

// classWeight is ±25 for each of class and id whose tokens (the words
// between spaces) hold positive or negative words and not both: a class
// list naming both ("l-sidebar-fixed l-article-body-segment", "entry
// share") says nothing. A token that holds both ("comment-body") is
// negative, and a token that is a modifier of its element ("has-sidebar",
// "no-share", "with-comments") is not read.
func classWeight(at *elemAttrs, ci classInfo) int32 {
	w := wordWeight(ci.pos, ci.neg)
	if len(at.id) > 0 {
		w += wordWeight(classWords(at.id))
	}
	return w
}

// wordWeight is the weight of a class or id list by what classWords says
// of it.
func wordWeight(pos, neg bool) int32 {
	switch {
	case neg && !pos:
		return -25
	case pos && !neg:
		return 25
	}
	return 0
}

// classWords reports whether a class or id list has a token with a
// positive word and one with a negative word (see classWeight).
func classWords(v []byte) (pos, neg bool) {
	var buf [64]byte
	for i := 0; i < len(v); {
		var tok []byte
		tok, i = nextToken(v, i)
		if e := bytes.LastIndex(tok, bem); e >= 0 && e+2 < len(tok) {
			tok = tok[e+2:] // an element of a block, by its own name
		}
		if len(tok) == 0 {
			continue
		}
		if len(tok) > len(buf) {
			tok = tok[:len(buf)]
		}
		l := buf[:len(tok)]
		for i, c := range tok {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			l[i] = c
		}
		if isModifier(l) {
			continue
		}
		switch hasNeg, hasPos := scanWords(l); {
		case hasNeg:
			neg = true
		case hasPos:
			pos = true
		}
		if pos && neg {
			break // nothing more can change
		}
	}
	return pos, neg
}

// wordScanner is an Aho-Corasick automaton of negativeWords and
// positiveWords (lower-case ASCII letters): scanWords reads a token with
// one step of it a byte, whatever the words.
var wordScanner = newWordAutomaton(negativeWords, positiveWords)

// Flags of a state of a wordAutomaton: a word of the kind ends there.
const (
	wordNeg uint8 = 1 << iota
	wordPos
)

type wordAutomaton struct {
	next [][27]uint8 // by state, by letter ('a' to 'z'; 26 for any other byte)
	out  []uint8     // by state: wordNeg, wordPos
}

func letterOf(c byte) int {
	if 'a' <= c && c <= 'z' {
		return int(c - 'a')
	}
	return 26
}

func newWordAutomaton(neg, pos [][]byte) *wordAutomaton {
	a := &wordAutomaton{next: make([][27]uint8, 1), out: make([]uint8, 1)}
	goto_ := [][27]int{{}}
	for i := range goto_[0] {
		goto_[0][i] = -1
	}
	add := func(w []byte, flag uint8) {
		st := 0
		for _, c := range w {
			l := letterOf(c)
			if l == 26 {
				panic("maintext: a class word not of lower-case letters") // see scanWords
			}
			if goto_[st][l] < 0 {
				var row [27]int
				for i := range row {
					row[i] = -1
				}
				goto_ = append(goto_, row)
				a.out = append(a.out, 0)
				goto_[st][l] = len(goto_) - 1
			}
			st = goto_[st][l]
		}
		a.out[st] |= flag
	}
	for _, w := range neg {
		add(w, wordNeg)
	}
	for _, w := range pos {
		add(w, wordPos)
	}
	if len(goto_) > 256 {
		panic("maintext: too many states for the class words")
	}
	// Breadth first: a state's failure is the longest proper suffix of
	// its string that is a state; its moves and words are completed
	// from it.
	a.next = make([][27]uint8, len(goto_))
	fail := make([]int, len(goto_))
	queue := []int{}
	for l := 0; l < 27; l++ {
		if s := goto_[0][l]; s > 0 {
			a.next[0][l] = uint8(s)
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		a.out[st] |= a.out[fail[st]]
		for l := 0; l < 27; l++ {
			if s := goto_[st][l]; s > 0 {
				fail[s] = int(a.next[fail[st]][l])
				a.next[st][l] = uint8(s)
				queue = append(queue, s)
			} else {
				a.next[st][l] = a.next[fail[st]][l]
			}
		}
	}
	return a
}

// scanWords reports whether s (in lower case) holds a word of
// negativeWords and, if it holds none, whether it holds one of
// positiveWords, in one pass.
func scanWords(s []byte) (neg, pos bool) {
	a := wordScanner
	st := uint8(0)
	var found uint8
	for _, c := range s {
		st = a.next[st][letterOf(c)]
		if found |= a.out[st]; found&wordNeg != 0 {
			return true, found&wordPos != 0
		}
	}
	return false, found&wordPos != 0
}

// isModifier reports whether a class token (in lower case) says what an
// element has or lacks rather than what it is: "has-sidebar",
// "no-share", "with_comments", "without-footer".
func isModifier(tok []byte) bool {
	if len(tok) < 3 || tok[0] != 'h' && tok[0] != 'n' && tok[0] != 'w' {
		return false
	}
	for _, p := range modifierPrefixes {
		if len(tok) > len(p) && bytes.HasPrefix(tok, p) && (tok[len(p)] == '-' || tok[len(p)] == '_') {
			return true
		}
	}
	return false
}

var modifierPrefixes = [][]byte{[]byte("has"), []byte("no"), []byte("with"), []byte("without")}

// stats fills in the text figures of every node, after pruning: a dropped
// or never-visible subtree counts for nothing in its ancestors.
func (b *Builder) stats() {
	nodes := b.nodes
	for i := len(nodes) - 1; i >= 0; i-- {
		n := &nodes[i]
		if n.text {
			// Readability's measure: the length of the text trimmed.
			t := trimASCIISpace(b.text[n.start:n.stop])
			n.chars = int32(len(t))
			n.commas = int32(bytes.Count(t, comma))
		} else if n.flags&fLink != 0 {
			n.linkChars = n.chars
			n.links++
		}
		if isHeading(n.atom) && n.chars > 0 && n.linkChars*10 >= n.chars*9 {
			n.linkedHeads++
		}
		if n.parent >= 0 && n.flags&(fDropped|fSkip) == 0 {
			p := &nodes[n.parent]
			p.links += n.links
			p.linkedHeads += n.linkedHeads
			p.chars += n.chars
			p.linkChars += n.linkChars
			p.commas += n.commas
			if n.text {
				p.own += n.chars
			}
		}
	}
}

var comma = []byte(",")

func trimASCIISpace(b []byte) []byte {
	for len(b) > 0 && isSpaceByte(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpaceByte(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func (n *node) linkDensity() float64 {
	if n.chars == 0 {
		return 0
	}
	return float64(n.linkChars) / float64(n.chars)
}

// initScore gives an element its starting score once.
func (b *Builder) initScore(i int32) {
	n := &b.nodes[i]
	if n.flags&fInit == 0 {
		n.flags |= fInit
		n.score = tagScore(n.atom) + float64(n.cls)
	}
}

// score scores the elements and returns the best one, or -1 if no
// paragraph is long enough.
func (b *Builder) score() int32 {
	nodes := b.nodes
	var cands []int32
	longest := int32(-1) // the longest paragraph of prose
	for i := int32(0); i < int32(len(nodes)); {
		n := &nodes[i]
		if n.text {
			i++
			continue
		}
		if n.flags&(fDropped|fSkip) != 0 {
			i = n.end
			continue
		}
		isPara := n.props&pPara != 0 ||
			n.own >= minParagraph && (n.atom == atom.Div || n.atom == atom.Section || n.atom == atom.Article)
		if isPara && n.chars >= minParagraph && n.linkChars*4 < n.chars && (longest < 0 || n.chars > nodes[longest].chars) {
			longest = i
		}
		if isPara && n.chars >= minParagraph {
			s := 1 + float64(n.commas) + min(float64(n.chars)/100, 3)
			p := n.parent
			for level := 0; p >= 0 && level < 5; level++ {
				if nodes[p].flags&fInit == 0 {
					b.initScore(p)
					cands = append(cands, p)
				}
				div := 1.0
				switch level {
				case 0:
				case 1:
					div = 2
				default:
					div = float64(level * 3)
				}
				nodes[p].score += s / div
				p = nodes[p].parent
			}
		}
		i++
	}
	best, bestScore := int32(-1), 0.0
	inner, innerScore := int32(-1), 0.0
	for _, c := range cands {
		n := &nodes[c]
		n.score *= 1 - n.linkDensity()
		if best < 0 || n.score > bestScore {
			best, bestScore = c, n.score
		}
		if n.inLandmark() && (inner < 0 || n.score > innerScore) {
			inner, innerScore = c, n.score
		}
	}
	// Reader comments or a gallery's captions may outscore an article
	// that the page marks as its main content (with less than a quarter
	// of the page's text, else it is the content without scoring): the
	// best block inside it is the content unless it scores less than a
	// quarter of the best outside.
	if best >= 0 && inner >= 0 && !nodes[best].inLandmark() && nodes[best].flags&fProtected == 0 &&
		innerScore*landmarkShare >= bestScore {
		best = inner
	}
	b.longest = longest
	return best
}

// landmarkShare: see score.
const landmarkShare = 4

// inLandmark reports whether an element is or is inside a <main> or
// role=main. (Not an <article>: a page's list of teasers is often one of
// articles.)
func (n *node) inLandmark() bool {
	return n.flags&(fInMain|fMain) != 0
}

// siblings returns the content: the best element and those of its
// siblings that score at least a fifth of it or are paragraphs of prose
// (a p, or a block with over 80 bytes of text of its own).
func (b *Builder) siblings(best int32) []int32 {
	nodes := b.nodes
	threshold := max(10, nodes[best].score*0.2)
	// A candidate that is its parent's only content is the parent.
	for {
		p := nodes[best].parent
		if p < 0 || nodes[p].chars > nodes[best].chars+nodes[best].chars/10 {
			break
		}
		best = p
	}
	top := &nodes[best]
	if top.flags&fMain != 0 {
		// The page's main content has no siblings.
		return []int32{best}
	}
	if top.flags&fInit != 0 {
		// Siblings are weighed against the block at their level.
		threshold = max(10, top.score*0.2)
	}
	var out []int32
	first, end := int32(0), int32(len(nodes))
	if p := top.parent; p >= 0 {
		first, end = p+1, nodes[p].end
	}
	for i := first; i < end; i = nodes[i].end {
		n := &nodes[i]
		if n.text || n.flags&(fDropped|fSkip) != 0 || n.parent != top.parent {
			continue
		}
		switch {
		case i == best:
		case n.flags&fInit != 0 && n.score >= threshold:
		case n.clsHash != 0 && n.clsHash == top.clsHash && n.atom == top.atom && n.chars >= minParagraph && n.linkDensity() < 0.5:
			// A part of the same kind (the steps of a how-to, the
			// sections of a long article).
		case (n.atom == atom.P || n.own > 80) && n.chars > 80 && n.linkDensity() < 0.25:
		default:
			continue
		}
		out = append(out, i)
	}
	return out
}

// linkBlockTags are the elements that linkBlock may drop.
var linkBlockTags = map[atom.Atom]bool{
	atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Div: true, atom.Section: true,
	atom.Table: true, atom.Td: true, atom.Menu: true, atom.Nav: true,
}

// linkBlock reports whether an element inside content of contentChars
// visible bytes, contentLinks of them inside links, is a block of links (a
// list of categories, tags, related pages, a table of contents, the menu
// cell of a layout table, a "read more" line) that is not the content
// itself:
//   - at least two links, half of its text inside them, and less than half
//     of the content's text; a table cell of links with commas between
//     them (the linked authors of a paper) stays;
//   - or, in content that is mostly not links, a block other than a
//     table cell with a quarter of its text in links, no commas (no
//     prose, no list of authors), and less than a quarter of the
//     content's text: a box of teasers, a "more on this" panel;
//   - or, in content that is mostly not links, a short block (less than
//     maxLinkLine bytes: a paragraph, a list item, a heading) nine tenths
//     of whose text is inside links.
//
// A list of linked titles that is most of a page (a listing) stays.
func (n *node) linkBlock(contentChars, contentLinks int32) bool {
	if n.links == 0 {
		return false
	}
	if n.chars < maxLinkLine && n.linkChars*10 >= n.chars*9 && contentLinks*2 < contentChars &&
		(linkBlockTags[n.atom] || n.props&pPara != 0 || n.atom == atom.H1) {
		return true
	}
	if !linkBlockTags[n.atom] {
		return false
	}
	return n.links >= 2 && n.linkChars*2 >= n.chars && n.chars*2 < contentChars && (n.atom != atom.Td || n.commas == 0) ||
		n.atom != atom.Td && n.linkChars*4 > n.chars && n.commas == 0 && n.chars*4 < contentChars && contentLinks*2 < contentChars
}

// labelledLink reports whether element i, inside content of contentChars
// visible bytes, contentLinks of them inside links, is a line pointing to
// another page: a short label ending in a colon and then the linked title
// of the other page ("Read also: <a>The winter camp and its nights</a>"),
// in content that is mostly not links. The label is at most maxLabel
// bytes, the title at least three words and at least half of the line; a
// single linked word or address ("E-mail: <a>office@…</a>") stays.
func (b *Builder) labelledLink(i, contentChars, contentLinks int32) bool {
	n := &b.nodes[i]
	if n.links == 0 || n.chars >= maxLinkLine || n.linkChars*2 < n.chars || n.chars-n.linkChars > maxLabel ||
		contentLinks*2 >= contentChars || !(linkBlockTags[n.atom] || n.props&pPara != 0) {
		return false
	}
	label, words := false, 0
	for j := i + 1; j < n.end; j++ {
		t := &b.nodes[j]
		if !t.text {
			if t.flags&(fSkip|fDropped) != 0 {
				j = t.end - 1
			}
			continue
		}
		s := trimASCIISpace(b.text[t.start:t.stop])
		if len(s) == 0 {
			continue
		}
		if !b.inLink(j, i) {
			if words > 0 || label {
				return false // text after the link, or a second label
			}
			if s[len(s)-1] != ':' {
				return false
			}
			label = true
			continue
		}
		if !label {
			return false // the link comes first
		}
		words += len(bytes.Fields(s))
	}
	return label && words >= 3
}

// inLink reports whether node j has a link among its ancestors below
// element top.
func (b *Builder) inLink(j, top int32) bool {
	for p := b.nodes[j].parent; p > top; p = b.nodes[p].parent {
		if b.nodes[p].flags&fLink != 0 {
			return true
		}
	}
	return false
}

// maxLabel is the length of the label of a labelled link (see
// labelledLink).
const maxLabel = 24

// teaser reports whether an element inside content of contentChars
// visible bytes, contentLinks of them inside links, is a teaser or a list
// of them: a block under a quarter of the content with a heading that is
// all link (the title of another page), in content that is mostly not
// links.
func (n *node) teaser(contentChars, contentLinks int32) bool {
	return n.linkedHeads > 0 && (linkBlockTags[n.atom] || n.atom == atom.Article || n.atom == atom.Li) &&
		n.chars*4 < contentChars && n.chars < maxTeaser*n.linkedHeads && contentLinks*2 < contentChars
}

// imageNote reports whether an element is the short text of an image's
// box (a credit, a source, a "show image" toggle) or a line about the
// text (a date, "posted in"): a class with a word of imageWords or
// metaWords and under maxImageNote bytes of text.
func (n *node) imageNote() bool {
	return n.flags&fImage != 0 && n.chars < maxImageNote
}

// maxImageNote: see imageNote.
const maxImageNote = 300

// minorNegative reports whether an element inside content of contentChars
// visible bytes is a small block (less than a twentieth of the content)
// whose class or id has a negative word (a promo box, a media credit, a
// widget, a contact line).
func (n *node) minorNegative(contentChars int32) bool {
	return n.cls < 0 && n.chars*20 < contentChars
}

// maxLinkLine is the length under which a block all of links is a link
// line (see linkBlock).
const maxLinkLine = 200

// maxTeaser is the length of text under which a block with a heading all
// of link is a teaser (see teaser).
const maxTeaser = 600
