package scholar

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
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
	title  string
	metas  []meta
	jsonld [][]byte
	items  []*mdItem // top-level microdata items
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

// scan reads the document once with the HTML tokenizer and collects the
// title, the meta elements, the JSON-LD blocks and the microdata items.
// It tracks open elements with a stack and the few implied end tags that
// matter for nesting (li, dt, dd, p, tr, td, th, option), which is enough
// to attribute microdata properties to their items in real pages without
// the cost of building a tree.
func scan(body []byte) *page {
	p := &page{}
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(0)
	stack := make([]frame, 0, 64)
	overflow := 0 // start tags not pushed because the stack was full
	collecting := 0
	scope := func() *mdItem {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1].scope
	}
	pop := func(to int) {
		for len(stack) > to {
			f := &stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.props != nil {
				collecting--
				v := clean(string(f.text), MaxAbstract)
				for _, name := range f.props {
					f.owner.add(name, v)
				}
			}
		}
	}
	// closeImplied pops an open element named one of names, if it is found
	// before any element named in stop.
	closeImplied := func(names []string, stop map[string]bool) {
		for i := len(stack) - 1; i >= 0; i-- {
			t := stack[i].tag
			for _, n := range names {
				if t == n {
					pop(i)
					return
				}
			}
			if stop[t] {
				return
			}
		}
	}

	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			pop(0)
			return p
		case html.TextToken:
			if collecting > 0 {
				t := z.Text()
				for i := range stack {
					if f := &stack[i]; f.props != nil && len(f.text) < MaxAbstract*2 {
						f.text = append(f.text, t...)
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if collecting > 0 && !inlineTags[tag] {
				separate(stack)
			}
			if overflow > 0 {
				overflow--
				continue
			}
			for i := len(stack) - 1; i >= 0 && i >= len(stack)-64; i-- {
				if stack[i].tag == tag {
					pop(i)
					break
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if collecting > 0 && !inlineTags[tag] {
				separate(stack) // <p>a</p><p>b</p> reads "a b"
			}
			var a attrs
			if hasAttr {
				a = readAttrs(z)
			}
			switch tag {
			case "title":
				if p.title == "" && z.Next() == html.TextToken {
					p.title = clean(string(z.Text()), MaxField)
				}
				continue
			case "script":
				if isJSONLD(a.typ) && len(p.jsonld) < maxJSONLD && z.Next() == html.TextToken {
					if t := z.Text(); len(t) <= maxJSONLDLen {
						p.jsonld = append(p.jsonld, bytes.Clone(t))
					}
				}
				continue
			case "style", "noscript", "template", "textarea", "xmp", "iframe", "noembed", "noframes":
				continue // raw text: not visible, not markup
			case "li":
				closeImplied([]string{"li"}, map[string]bool{"ul": true, "ol": true, "menu": true})
			case "dt", "dd":
				closeImplied([]string{"dt", "dd"}, map[string]bool{"dl": true})
			case "tr":
				closeImplied([]string{"tr"}, map[string]bool{"table": true, "tbody": true, "thead": true, "tfoot": true})
			case "td", "th":
				closeImplied([]string{"td", "th"}, map[string]bool{"tr": true, "table": true})
			case "option":
				closeImplied([]string{"option"}, map[string]bool{"select": true, "datalist": true})
			}
			if pClosers[tag] {
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i].tag == "p" {
						pop(i)
						break
					}
					if !inlineTags[stack[i].tag] {
						break
					}
				}
			}
			if tag == "meta" && a.content != nil && len(p.metas) < maxMetas {
				key := a.name
				if key == "" {
					key = a.property
				}
				if key != "" {
					p.metas = append(p.metas, meta{name: strings.ToLower(strings.TrimSpace(key)), content: *a.content})
				}
			}

			// Microdata.
			owner := scope()
			var item *mdItem
			if a.itemscope {
				item = &mdItem{types: strings.Fields(a.itemtype)}
			}
			var textProps []string
			if a.itemprop != "" && owner != nil {
				names := strings.Fields(a.itemprop)
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
			if item != nil && (a.itemprop == "" || owner == nil) && len(p.items) < maxItems {
				p.items = append(p.items, item)
			}

			if voidTags[tag] || tt == html.SelfClosingTagToken {
				continue
			}
			if len(stack) >= maxDepth {
				overflow++
				continue
			}
			f := frame{tag: tag, scope: owner}
			if item != nil {
				f.scope = item
			}
			if textProps != nil {
				f.props, f.owner = textProps, owner
				collecting++
			}
			stack = append(stack, f)
		}
	}
}

// separate ends a word in the text being collected for properties.
func separate(stack []frame) {
	for i := range stack {
		if f := &stack[i]; f.props != nil && len(f.text) > 0 && f.text[len(f.text)-1] != ' ' {
			f.text = append(f.text, ' ')
		}
	}
}

// attrs are the attributes scan looks at.
type attrs struct {
	name, property, typ     string
	content                 *string
	itemscope               bool
	itemtype, itemprop      string
	href, src, datetime     string
	valueAttr, data         string
	hasHref, hasSrc, hasVal bool
}

func readAttrs(z *html.Tokenizer) attrs {
	var a attrs
	for n := 0; n < 64; n++ {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "name":
			a.name = string(v)
		case "property":
			a.property = string(v)
		case "content":
			c := string(v)
			a.content = &c
		case "type":
			a.typ = string(v)
		case "itemscope":
			a.itemscope = true
		case "itemtype":
			a.itemtype = string(v)
		case "itemprop":
			a.itemprop = string(v)
		case "href":
			a.href, a.hasHref = string(v), true
		case "src":
			a.src, a.hasSrc = string(v), true
		case "datetime":
			a.datetime = string(v)
		case "value":
			a.valueAttr, a.hasVal = string(v), true
		case "data":
			a.data = string(v)
		}
		if !more {
			break
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
		if a.content != nil {
			return clean(*a.content, MaxAbstract), true
		}
		return "", true
	case "a", "area", "link":
		return strings.TrimSpace(a.href), true
	case "img", "audio", "video", "source", "embed", "iframe", "track":
		return strings.TrimSpace(a.src), true
	case "object":
		return strings.TrimSpace(a.data), true
	case "data", "meter":
		return clean(a.valueAttr, MaxField), true
	case "time":
		if a.datetime != "" {
			return clean(a.datetime, MaxField), true
		}
	}
	if a.content != nil { // content="" on any element, as RDFa and some sites use it
		return clean(*a.content, MaxAbstract), true
	}
	return "", false
}

// isJSONLD reports whether a script type is application/ld+json.
func isJSONLD(typ string) bool {
	typ, _, _ = strings.Cut(typ, ";")
	return strings.EqualFold(strings.TrimSpace(typ), "application/ld+json")
}
