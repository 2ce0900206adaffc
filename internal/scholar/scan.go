package scholar

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/acrawler/acrawler/internal/htmlx"
)

// Bounds on the work one page can cause.
const (
	maxMetas     = 2000    // <meta> elements kept
	maxJSONLD    = 20      // JSON-LD blocks kept
	maxJSONLDLen = 1 << 20 // bytes of one JSON-LD block
	maxItems     = 200     // microdata items
	maxProps     = 400     // property values per microdata item
	maxDepth     = 512     // open elements tracked
)

// meta is one <meta name|property content> element.
type meta struct {
	name    string // lower case
	content string
}

// mdItem is a microdata item: its types and property values, each value a
// string or a nested *mdItem.
type mdItem struct {
	types []string
	props map[string][]any
	n     int
}

func (it *mdItem) add(name string, v any) {
	if it.n >= maxProps {
		return
	}
	if it.props == nil {
		it.props = map[string][]any{}
	}
	it.props[name] = append(it.props[name], v)
	it.n++
}

// frame is an open element during the scan.
type frame struct {
	tag   string
	scope *mdItem  // the item that itemprops inside this element belong to
	props []string // this element's itemprop names, if its value is its text
	owner *mdItem  // the item those props belong to
	text  []byte   // text content collected for props
}

// page is what one scan of a document finds.
type page struct {
	title    string
	base     string // the first <base href>, as written
	seenBase bool
	metas    []meta
	jsonld   [][]byte
	items    []*mdItem // top-level microdata items
}

var voidTags = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
	"param": true, "keygen": true,
}

// pClosers are start tags that end an open <p>.
var pClosers = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "div": true, "dl": true,
	"fieldset": true, "figure": true, "footer": true, "form": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hr": true, "main": true,
	"nav": true, "ol": true, "p": true, "pre": true, "section": true, "table": true, "ul": true,
}

// inline tags may stand between an open <p> and a block that closes it.
var inlineTags = map[string]bool{
	"a": true, "abbr": true, "b": true, "bdi": true, "bdo": true, "cite": true, "code": true,
	"data": true, "dfn": true, "em": true, "font": true, "i": true, "kbd": true, "mark": true,
	"q": true, "s": true, "samp": true, "small": true, "span": true, "strong": true, "sub": true,
	"sup": true, "time": true, "u": true, "var": true,
}

// Bits of tagKinds.
const (
	kindVoid = 1 << iota
	kindPCloser
)

// tagKinds holds, by atom, whether an element is in voidTags and in
// pClosers, so that a start tag costs one lookup; every name of those sets
// is an atom's (TestTagKinds).
var tagKinds = func() map[atom.Atom]uint8 {
	m := map[atom.Atom]uint8{}
	for kind, set := range map[uint8]map[string]bool{kindVoid: voidTags, kindPCloser: pClosers} {
		for name := range set {
			m[atom.Lookup([]byte(name))] |= kind
		}
	}
	delete(m, 0)
	return m
}()

// Scanner collects what Extract reads from a page (the title, the meta
// elements, the JSON-LD blocks and the microdata items) from the page's
// tokens: it is an htmlx.Visitor, so that it can read the page in the
// pass htmlx.Parse makes. Metadata then gives the result. A Scanner reads
// one page.
//
// It tracks open elements with a stack and the few implied end tags that
// matter for nesting (li, dt, dd, p, tr, td, th, option), which is enough
// to attribute microdata properties to their items in real pages without
// the cost of building a tree.
type Scanner struct {
	p          page
	stack      []frame
	overflow   int // start tags not pushed because the stack was full
	collecting int
	skip       int // what the next token is read as, after <title> or a JSON-LD <script>
	foreign    int // open <svg> and <math> elements: a <title> there names a drawing, not the page
	done       bool
}

// What the token after a start tag is read as.
const (
	skipNone   = iota
	skipTitle  // the first <title>: its text
	skipJSONLD // a JSON-LD <script>: its content
)

// NewScanner returns a Scanner for one page.
func NewScanner() *Scanner {
	return &Scanner{stack: make([]frame, 0, 64)}
}

// finish closes the elements left open and returns the page.
func (s *Scanner) finish() *page {
	if !s.done {
		s.done = true
		s.pop(0)
	}
	return &s.p
}

func (s *Scanner) scope() *mdItem {
	if len(s.stack) == 0 {
		return nil
	}
	return s.stack[len(s.stack)-1].scope
}

func (s *Scanner) pop(to int) {
	for len(s.stack) > to {
		f := &s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		if f.props != nil {
			s.collecting--
			v := clean(string(f.text), MaxAbstract)
			for _, name := range f.props {
				f.owner.add(name, v)
			}
		}
	}
}

// closeImplied pops an open element named one of names, if it is found
// before any element named in stop.
func (s *Scanner) closeImplied(names []string, stop map[string]bool) {
	for i := len(s.stack) - 1; i >= 0; i-- {
		t := s.stack[i].tag
		for _, n := range names {
			if t == n {
				s.pop(i)
				return
			}
		}
		if stop[t] {
			return
		}
	}
}

// Stop sets of closeImplied.
var (
	liNames, liStop         = []string{"li"}, map[string]bool{"ul": true, "ol": true, "menu": true}
	dtNames, dtStop         = []string{"dt", "dd"}, map[string]bool{"dl": true}
	trNames, trStop         = []string{"tr"}, map[string]bool{"table": true, "tbody": true, "thead": true, "tfoot": true}
	tdNames, tdStop         = []string{"td", "th"}, map[string]bool{"tr": true, "table": true}
	optionNames, optionStop = []string{"option"}, map[string]bool{"select": true, "datalist": true}
)

// VisitToken reads one token of the page.
func (s *Scanner) VisitToken(t *htmlx.Token) {
	if s.done {
		return
	}
	p := &s.p
	tt := t.Type
	if skip := s.skip; skip != skipNone {
		// The token after <title> or a JSON-LD <script>, read as its
		// content whatever it is.
		s.skip = skipNone
		if tt == html.TextToken {
			switch skip {
			case skipTitle:
				p.title = clean(string(t.Text()), MaxField)
			case skipJSONLD:
				if txt := t.Text(); len(txt) <= maxJSONLDLen {
					p.jsonld = append(p.jsonld, bytes.Clone(txt))
				}
			}
		}
		return
	}
	switch tt {
	case html.TextToken:
		if s.collecting > 0 {
			txt := t.Text()
			for i := range s.stack {
				if f := &s.stack[i]; f.props != nil && len(f.text) < MaxAbstract*2 {
					f.text = append(f.text, txt...)
				}
			}
		}
	case html.EndTagToken:
		tag := tagName(t)
		if (tag == "svg" || tag == "math") && s.foreign > 0 {
			s.foreign--
		}
		if s.collecting > 0 && !inlineTags[tag] {
			separate(s.stack)
		}
		if s.overflow > 0 {
			s.overflow--
			return
		}
		for i := len(s.stack) - 1; i >= 0 && i >= len(s.stack)-64; i-- {
			if s.stack[i].tag == tag {
				s.pop(i)
				break
			}
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		tag := tagName(t)
		if s.collecting > 0 && !inlineTags[tag] {
			separate(s.stack) // <p>a</p><p>b</p> reads "a b"
		}
		a := readAttrs(t)
		switch tag {
		case "svg", "math":
			if tt == html.StartTagToken {
				s.foreign++
			}
		case "title":
			if p.title == "" && s.foreign == 0 && tt == html.StartTagToken {
				s.skip = skipTitle
			}
			return
		case "script":
			if isJSONLD(string(a.typ)) && len(p.jsonld) < maxJSONLD {
				s.skip = skipJSONLD
			}
			return
		case "style", "noscript", "template", "textarea", "xmp", "iframe", "noembed", "noframes":
			return // raw text: not visible, not markup
		case "li":
			s.closeImplied(liNames, liStop)
		case "dt", "dd":
			s.closeImplied(dtNames, dtStop)
		case "tr":
			s.closeImplied(trNames, trStop)
		case "td", "th":
			s.closeImplied(tdNames, tdStop)
		case "option":
			s.closeImplied(optionNames, optionStop)
		case "base":
			if a.hasHref && !p.seenBase {
				p.seenBase = true
				p.base = strings.TrimSpace(string(a.href))
			}
		}
		kinds := tagKinds[t.Atom()]
		if kinds&kindPCloser != 0 {
			for i := len(s.stack) - 1; i >= 0; i-- {
				if s.stack[i].tag == "p" {
					s.pop(i)
					break
				}
				if !inlineTags[s.stack[i].tag] {
					break
				}
			}
		}
		if tag == "meta" && a.hasContent && len(p.metas) < maxMetas {
			key := a.name
			if len(key) == 0 {
				key = a.property
			}
			if len(key) > 0 {
				p.metas = append(p.metas, meta{name: strings.ToLower(strings.TrimSpace(string(key))), content: string(a.content)})
			}
		}

		// Microdata.
		owner := s.scope()
		var item *mdItem
		if a.itemscope {
			item = &mdItem{types: strings.Fields(string(a.itemtype))}
		}
		var textProps []string
		if len(a.itemprop) > 0 && owner != nil {
			names := strings.Fields(string(a.itemprop))
			switch {
			case item != nil:
				for _, n := range names {
					owner.add(n, item)
				}
			default:
				if v, ok := a.value(tag); ok {
					for _, n := range names {
						owner.add(n, v)
					}
				} else if !voidTags[tag] && tt == html.StartTagToken {
					textProps = names
				}
			}
		}
		if item != nil && (len(a.itemprop) == 0 || owner == nil) && len(p.items) < maxItems {
			p.items = append(p.items, item)
		}

		if kinds&kindVoid != 0 || tt == html.SelfClosingTagToken {
			return
		}
		if len(s.stack) >= maxDepth {
			s.overflow++
			return
		}
		f := frame{tag: tag, scope: owner}
		if item != nil {
			f.scope = item
		}
		if textProps != nil {
			f.props, f.owner = textProps, owner
			s.collecting++
		}
		s.stack = append(s.stack, f)
	}
}

// tagName returns the name of a tag: the atom's string for a known
// element, without allocating.
func tagName(t *htmlx.Token) string {
	if a := t.Atom(); a != 0 {
		return a.String()
	}
	return string(t.Name())
}

// separate ends a word in the text being collected for properties.
func separate(stack []frame) {
	for i := range stack {
		if f := &stack[i]; f.props != nil && len(f.text) > 0 && f.text[len(f.text)-1] != ' ' {
			f.text = append(f.text, ' ')
		}
	}
}

// attrs are the attributes the Scanner looks at, kept as the token's
// bytes (valid during the token): what is kept of them is copied.
type attrs struct {
	name, property, typ     []byte
	content                 []byte
	hasContent              bool
	itemscope               bool
	itemtype, itemprop      []byte
	href, src, datetime     []byte
	valueAttr, data         []byte
	hasHref, hasSrc, hasVal bool
}

func readAttrs(t *htmlx.Token) attrs {
	var a attrs
	for n, kv := range t.Attrs() {
		if n >= 64 {
			break
		}
		k, v := kv.Key, kv.Val
		switch string(k) {
		case "name":
			a.name = v
		case "property":
			a.property = v
		case "content":
			a.content, a.hasContent = v, true
		case "type":
			a.typ = v
		case "itemscope":
			a.itemscope = true
		case "itemtype":
			a.itemtype = v
		case "itemprop":
			a.itemprop = v
		case "href":
			a.href, a.hasHref = v, true
		case "src":
			a.src, a.hasSrc = v, true
		case "datetime":
			a.datetime = v
		case "value":
			a.valueAttr, a.hasVal = v, true
		case "data":
			a.data = v
		}
	}
	return a
}

// value returns the microdata value an element with itemprop has from its
// attributes, as the microdata standard defines it, or false when its value
// is its text content.
func (a *attrs) value(tag string) (string, bool) {
	switch tag {
	case "meta":
		if a.hasContent {
			return clean(string(a.content), MaxAbstract), true
		}
		return "", true
	case "a", "area", "link":
		return string(bytes.TrimSpace(a.href)), true
	case "img", "audio", "video", "source", "embed", "iframe", "track":
		return string(bytes.TrimSpace(a.src)), true
	case "object":
		return string(bytes.TrimSpace(a.data)), true
	case "data", "meter":
		return clean(string(a.valueAttr), MaxField), true
	case "time":
		if len(a.datetime) > 0 {
			return clean(string(a.datetime), MaxField), true
		}
	}
	if a.hasContent { // content="" on any element, as RDFa and some sites use it
		return clean(string(a.content), MaxAbstract), true
	}
	return "", false
}

// isJSONLD reports whether a script type is application/ld+json.
func isJSONLD(typ string) bool {
	typ, _, _ = strings.Cut(typ, ";")
	return strings.EqualFold(strings.TrimSpace(typ), "application/ld+json")
}

// Names returns what the page's meta elements call the page and its site:
// og:title (else twitter:title) and og:site_name (else application-name),
// whitespace collapsed; "" when absent. Call it after the last token.
func (s *Scanner) Names() (title, site string) {
	var tw, app string
	for _, m := range s.p.metas {
		v := func() string { return clean(stripTags(m.content), MaxField) }
		switch m.name {
		case "og:title":
			if title == "" {
				title = v()
			}
		case "twitter:title":
			if tw == "" {
				tw = v()
			}
		case "og:site_name":
			if site == "" {
				site = v()
			}
		case "application-name":
			if app == "" {
				app = v()
			}
		}
	}
	if title == "" {
		title = tw
	}
	if site == "" {
		site = app
	}
	return title, site
}
