package sitemap

// name identifies the local names of elements that matter to a sitemap.
type name uint8

const (
	nameOther name = iota
	nameURLSet
	nameURL
	nameSitemapIndex
	nameSitemap
	nameLoc
	nameLastMod
	nameChangeFreq
	namePriority
)

// maxLocal is the length of the longest local name lookupName knows.
const maxLocal = len("sitemapindex")

// lookupName returns the name whose local part is local.
func lookupName(local []byte) name {
	switch string(local) {
	case "urlset":
		return nameURLSet
	case "url":
		return nameURL
	case "sitemapindex":
		return nameSitemapIndex
	case "sitemap":
		return nameSitemap
	case "loc":
		return nameLoc
	case "lastmod":
		return nameLastMod
	case "changefreq":
		return nameChangeFreq
	case "priority":
		return namePriority
	}
	return nameOther
}

// maxField bounds the text kept of a lastmod, changefreq or priority: longer
// values are invalid.
const maxField = 64

// builder turns the elements and text of a sitemap into entries. The XML
// parser (and, in tests, a reference parser built on encoding/xml) tells it
// which elements start and end and what text they hold; parseText feeds it
// lines.
type builder struct {
	maxURLs int
	fn      func(Entry) error

	kind  Kind
	n     int  // entries delivered
	depth int  // elements open
	done  bool // the root element has ended

	inItem bool   // a <url> (or <sitemap>) is open at depth 2
	field  name   // the field open at depth 3 whose text is wanted, or nameOther
	seen   uint16 // bit n set: field n has been read in this item
	e      Entry  // the item being read; its Loc is in loc
	loc    []byte
	locBad bool // the item's loc was too long

	// acc holds the text of the open field or line, leading white space
	// dropped, at most limit bytes; over records that more non-space text
	// followed.
	acc   []byte
	limit int
	over  bool
}

// start records that an element with the given local name starts. It returns
// ErrNotSitemap if that element is a root other than urlset or
// sitemapindex.
func (b *builder) start(n name) error {
	b.depth++
	switch b.depth {
	case 1:
		switch n {
		case nameURLSet:
			b.kind = URLSet
		case nameSitemapIndex:
			b.kind = Index
		default:
			return ErrNotSitemap
		}
	case 2:
		if b.kind == URLSet && n == nameURL || b.kind == Index && n == nameSitemap {
			b.inItem = true
			b.seen = 0
			b.e = Entry{Priority: -1}
			b.loc = b.loc[:0]
			b.locBad = false
		}
	case 3:
		if !b.inItem || b.seen&(1<<n) != 0 {
			break
		}
		switch n {
		case nameLoc:
			b.startText(MaxLocLen)
		case nameLastMod:
			b.startText(maxField)
		case nameChangeFreq, namePriority:
			if b.kind != URLSet {
				return nil
			}
			b.startText(maxField)
		default:
			return nil
		}
		b.field = n
	}
	return nil
}

// end records that the innermost open element ends. Its error is fn's, or
// ErrTooManyURLs.
func (b *builder) end() error {
	b.depth--
	switch b.depth {
	case 0:
		b.done = true
	case 1:
		if b.inItem {
			b.inItem = false
			if len(b.loc) > 0 && !b.locBad {
				b.e.Loc = string(b.loc)
				return b.emit(b.e)
			}
		}
	case 2:
		if b.field != nameOther {
			b.endField()
		}
	}
	return nil
}

// wantText reports whether the text that comes next matters: it is the
// direct content of a field.
func (b *builder) wantText() bool {
	return b.field != nameOther && b.depth == 3
}

// endField stores the value of the field that ends.
func (b *builder) endField() {
	f := b.field
	b.field = nameOther
	b.seen |= 1 << f
	v := trimSpaceRight(b.acc)
	if b.over {
		if f == nameLoc {
			b.locBad = true
		}
		return
	}
	switch f {
	case nameLoc:
		b.loc = append(b.loc[:0], v...)
	case nameLastMod:
		b.e.LastMod, _ = parseLastMod(v)
	case nameChangeFreq:
		b.e.ChangeFreq = parseChangeFreq(v)
	case namePriority:
		b.e.Priority = parsePriority(v)
	}
}

// emit delivers e, or returns ErrTooManyURLs if maxURLs are out already.
func (b *builder) emit(e Entry) error {
	if b.n == b.maxURLs {
		return ErrTooManyURLs
	}
	b.n++
	return b.fn(e)
}

// startText starts collecting text, keeping at most limit bytes.
func (b *builder) startText(limit int) {
	if b.acc == nil {
		b.acc = make([]byte, 0, MaxLocLen)
	}
	b.acc = b.acc[:0]
	b.limit = limit
	b.over = false
}

// text adds p to the collected text. Leading white space is dropped. Once
// limit bytes are kept, further white space is dropped too and anything else
// marks the text as too long; so the text, trimmed, is too long exactly when
// over is set.
func (b *builder) text(p []byte) {
	if b.over {
		return
	}
	if len(b.acc) == 0 {
		i := 0
		for i < len(p) && isSpace(p[i]) {
			i++
		}
		p = p[i:]
	}
	if len(b.acc)+len(p) <= b.limit {
		b.acc = append(b.acc, p...)
		return
	}
	room := b.limit - len(b.acc)
	b.acc = append(b.acc, p[:room]...)
	for _, c := range p[room:] {
		if !isSpace(c) {
			b.over = true
			return
		}
	}
}

// startLine starts a line of a text sitemap.
func (b *builder) startLine() {
	b.startText(MaxLocLen)
}

// endLine delivers the line collected if it is a URL.
func (b *builder) endLine() error {
	v := trimSpaceRight(b.acc)
	if b.over || !isWebURL(v) {
		return nil
	}
	b.kind = Text
	return b.emit(Entry{Loc: string(v), Priority: -1})
}

// trimSpaceRight returns s without its trailing XML white space.
func trimSpaceRight(s []byte) []byte {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// isWebURL reports whether s looks like an absolute http or https URL: the
// scheme in any case, "://", at least one more byte, and no white space or
// control characters.
func isWebURL(s []byte) bool {
	rest, ok := cutPrefixFold(s, "http://")
	if !ok {
		rest, ok = cutPrefixFold(s, "https://")
	}
	if !ok || len(rest) == 0 {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// cutPrefixFold is bytes.CutPrefix with ASCII case folding; prefix is
// lowercase.
func cutPrefixFold(s []byte, prefix string) ([]byte, bool) {
	if len(s) < len(prefix) {
		return s, false
	}
	for i := range len(prefix) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return s, false
		}
	}
	return s[len(prefix):], true
}

// parseChangeFreq returns the changefreq value v names, lowercased, or "".
func parseChangeFreq(v []byte) string {
	if len(v) > len("monthly") {
		return ""
	}
	var low [len("monthly")]byte
	for i, c := range v {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(v)]) {
	case "always":
		return "always"
	case "hourly":
		return "hourly"
	case "daily":
		return "daily"
	case "weekly":
		return "weekly"
	case "monthly":
		return "monthly"
	case "yearly":
		return "yearly"
	case "never":
		return "never"
	}
	return ""
}
