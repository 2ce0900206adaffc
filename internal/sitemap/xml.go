package sitemap

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// The XML reader below handles the part of XML that sitemaps use, streaming
// and in bounded memory: elements, text with the predefined and numeric
// entities, CDATA sections, comments, processing instructions (the XML
// declaration's encoding is honoured) and DOCTYPE declarations (skipped).
// encoding/xml is not used because it holds every token whole: a 100 MB text
// node would be 100 MB of memory. Element names are not stored either, only
// hashed, to check that end tags match.

// maxDepth bounds element nesting; sitemaps use five levels at most.
const maxDepth = 256

// maxEntity is the longest entity reference decoded, "&" and ";" included;
// longer ones (a numeric reference padded with many zeros) are kept as
// written.
const maxEntity = 64

// FNV-1a, 64 bits, for element names.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// xmlParser reads XML from in and tells b about it.
type xmlParser struct {
	in    *input
	b     *builder
	stack []uint64 // hashes of the names of the open elements

	bom     bool   // the file starts with a UTF-8 byte order mark
	cp1252  bool   // the declared encoding is Windows-1252 or ISO-8859-1, and no BOM says UTF-8
	out     []byte // decoded text, reused
	ent     []byte // an entity reference being read, from its '&'
	prevCR  bool   // the last text byte decoded was '\r'
	seg     []byte // content collected by skipPast, reused
	decl    []byte // the start of the XML declaration's content
	endName []byte // the start of an end tag's name, for messages
}

// text modes of skipPast.
const (
	discard = iota // comments, processing instructions
	cdata          // CDATA sections: decode the content
	capture        // the XML declaration: keep the start in decl
)

// run reads the document until its root element ends.
func (p *xmlParser) run() error {
	in := p.in
	for {
		want := p.b.wantText()
		p.prevCR = false
		for {
			if in.i == in.n && !in.fill() {
				if want {
					p.flushEntity()
				}
				if len(p.stack) == 0 && p.b.kind == Unknown {
					return in.endErr(ErrNotSitemap)
				}
				return p.eof()
			}
			chunk := in.buf[in.i:in.n]
			k := bytes.IndexByte(chunk, '<')
			if k < 0 {
				if want {
					p.decode(chunk, false)
				}
				in.i = in.n
				continue
			}
			if want {
				p.decode(chunk[:k], false)
				p.flushEntity()
			}
			in.i += k + 1
			break
		}
		c, ok := in.next()
		if !ok {
			return p.eof()
		}
		var err error
		switch c {
		case '/':
			err = p.endTag()
		case '?':
			err = p.procInst()
		case '!':
			err = p.bang()
		default:
			err = p.startTag(c)
		}
		if err != nil {
			return err
		}
		if p.b.done {
			return nil
		}
	}
}

// syntax returns an ErrMalformed error for the current line.
func (p *xmlParser) syntax(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrMalformed, p.in.lineNo(), fmt.Sprintf(format, args...))
}

// eof is the error for input that ends inside the document.
func (p *xmlParser) eof() error {
	return p.in.endErr(p.syntax("unexpected end of file"))
}

// startTag reads a start tag whose name begins with c.
func (p *xmlParser) startTag(c byte) error {
	if isSpace(c) || c == '>' || c == '/' || c == '<' || c == '=' || c == '"' || c == '\'' {
		return p.syntax("invalid character %q after <", c)
	}
	in := p.in
	in.i-- // read the name from its first byte
	h := uint64(fnvOffset)
	var local [maxLocal]byte
	ln, n := 0, 0 // bytes of local and of the whole name
	localOK, colon := true, false
	for {
		if in.i == in.n && !in.fill() {
			return p.eof()
		}
		buf := in.buf[in.i:in.n]
		j := 0
		for ; j < len(buf); j++ {
			c = buf[j]
			if isSpace(c) || c == '/' || c == '>' || c == '<' {
				break
			}
			h = (h ^ uint64(c)) * fnvPrime
			switch {
			case c == ':' && !colon && n > 0:
				colon = true
				ln, localOK = 0, true
			case ln < len(local):
				local[ln] = c
				ln++
			default:
				localOK = false
			}
			n++
		}
		in.i += j
		if j < len(buf) {
			break
		}
	}
	in.i++
	if c == '<' {
		return p.syntax("unexpected < in tag")
	}
	selfClosing, err := p.skipAttrs(c)
	if err != nil {
		return err
	}
	id := nameOther
	if localOK && ln > 0 {
		id = lookupName(local[:ln])
	}
	if len(p.stack) == maxDepth {
		return p.syntax("elements nested more than %d deep", maxDepth)
	}
	p.stack = append(p.stack, h)
	if err := p.b.start(id); err != nil {
		return err
	}
	if selfClosing {
		p.stack = p.stack[:len(p.stack)-1]
		return p.b.end()
	}
	return nil
}

// skipAttrs reads the rest of a start tag after its name, from c, through
// its '>', and reports whether it ended with "/>".
func (p *xmlParser) skipAttrs(c byte) (selfClosing bool, err error) {
	in := p.in
	for {
		switch c {
		case '>':
			return selfClosing, nil
		case '<':
			return false, p.syntax("unexpected < in tag")
		case '"', '\'':
			if err := p.skipQuoted(c); err != nil {
				return false, err
			}
		}
		selfClosing = c == '/'
		var ok bool
		if c, ok = in.next(); !ok {
			return false, p.eof()
		}
	}
}

// skipQuoted consumes input through the next quote byte q.
func (p *xmlParser) skipQuoted(q byte) error {
	in := p.in
	for {
		if in.i == in.n && !in.fill() {
			return p.eof()
		}
		if k := bytes.IndexByte(in.buf[in.i:in.n], q); k >= 0 {
			in.i += k + 1
			return nil
		}
		in.i = in.n
	}
}

// endTag reads an end tag after its "</".
func (p *xmlParser) endTag() error {
	in := p.in
	h := uint64(fnvOffset)
	p.endName = p.endName[:0]
	var c byte
	for {
		if in.i == in.n && !in.fill() {
			return p.eof()
		}
		buf := in.buf[in.i:in.n]
		j := 0
		for ; j < len(buf); j++ {
			c = buf[j]
			if isSpace(c) || c == '>' || c == '<' {
				break
			}
			h = (h ^ uint64(c)) * fnvPrime
		}
		if room := 64 - len(p.endName); room > 0 {
			p.endName = append(p.endName, buf[:min(j, room)]...)
		}
		in.i += j
		if j < len(buf) {
			break
		}
	}
	in.i++
	if c == '<' {
		return p.syntax("unexpected < in tag")
	}
	ok := true
	for ok && isSpace(c) {
		c, ok = in.next()
	}
	if !ok {
		return p.eof()
	}
	if c != '>' || len(p.endName) == 0 {
		return p.syntax("invalid end tag </%s", p.endName)
	}
	if len(p.stack) == 0 || p.stack[len(p.stack)-1] != h {
		return p.syntax("unexpected end tag </%s>", p.endName)
	}
	p.stack = p.stack[:len(p.stack)-1]
	return p.b.end()
}

// procInst reads a processing instruction after its "<?". The XML
// declaration, before the root element, may set the encoding, unless a
// byte order mark has set it.
func (p *xmlParser) procInst() error {
	head, _ := p.in.peek(4)
	if len(p.stack) == 0 && p.b.kind == Unknown && len(head) == 4 && string(head[:3]) == "xml" && isSpace(head[3]) {
		p.in.i += 4
		p.decl = p.decl[:0]
		if err := p.skipPast('?', 1, capture); err != nil {
			return err
		}
		p.cp1252 = !p.bom && isCP1252(declEncoding(p.decl))
		return nil
	}
	return p.skipPast('?', 1, discard)
}

// bang reads what follows "<!": a comment, a CDATA section or a declaration.
func (p *xmlParser) bang() error {
	in := p.in
	if head, _ := in.peek(2); string(head) == "--" {
		in.i += 2
		return p.skipPast('-', 2, discard)
	}
	if head, _ := in.peek(7); string(head) == "[CDATA[" {
		in.i += 7
		if !p.b.wantText() {
			return p.skipPast(']', 2, discard)
		}
		p.prevCR = false
		return p.skipPast(']', 2, cdata)
	}
	// A declaration such as <!DOCTYPE ...>, possibly with an internal
	// subset of further declarations and comments. Its first byte is
	// taken as it is, as encoding/xml does.
	if _, ok := in.next(); !ok {
		return p.eof()
	}
	depth := 1
	for {
		c, ok := in.next()
		if !ok {
			return p.eof()
		}
		switch c {
		case '"', '\'':
			if err := p.skipQuoted(c); err != nil {
				return err
			}
		case '<':
			if head, _ := in.peek(3); string(head) == "!--" {
				in.i += 3
				if err := p.skipPast('-', 2, discard); err != nil {
					return err
				}
			} else {
				depth++
			}
		case '>':
			if depth--; depth == 0 {
				return nil
			}
		}
	}
}

// skipPast consumes input through the first occurrence of k bytes c then
// '>' ("-->", "]]>", "?>"), doing with the bytes before it what mode says.
func (p *xmlParser) skipPast(c byte, k int, mode int) error {
	in := p.in
	held := 0 // trailing c bytes not yet known to be content
	p.seg = p.seg[:0]
	for {
		if in.i == in.n && !in.fill() {
			return p.eof()
		}
		for j, x := range in.buf[in.i:in.n] {
			if x == c {
				if held < k {
					held++
				} else if mode != discard {
					p.seg = append(p.seg, c)
				}
				continue
			}
			if x == '>' && held == k {
				in.i += j + 1
				p.flushSeg(mode)
				return nil
			}
			if mode != discard {
				for ; held > 0; held-- {
					p.seg = append(p.seg, c)
				}
				p.seg = append(p.seg, x)
			}
			held = 0
		}
		in.i = in.n
		p.flushSeg(mode)
	}
}

// flushSeg does with the content collected by skipPast what mode says.
func (p *xmlParser) flushSeg(mode int) {
	switch mode {
	case cdata:
		p.decode(p.seg, true)
	case capture:
		if room := 256 - len(p.decl); room > 0 {
			p.decl = append(p.decl, p.seg[:min(room, len(p.seg))]...)
		}
	}
	p.seg = p.seg[:0]
}

// decode decodes text (of a CDATA section if inCDATA) and passes it to the
// builder: entity references are replaced (unless inCDATA), line ends
// normalized to "\n", Windows-1252 converted to UTF-8.
func (p *xmlParser) decode(s []byte, inCDATA bool) {
	if p.b.over {
		return
	}
	if len(p.ent) == 0 && !p.prevCR && p.plain(s, inCDATA) {
		p.b.text(s)
		return
	}
	out := p.out[:0]
	for _, c := range s {
		if len(p.ent) > 0 {
			if c == ';' {
				p.ent = append(p.ent, c)
				out = p.appendEntity(out)
				continue
			}
			if isEntityByte(c) && len(p.ent) < maxEntity-1 {
				p.ent = append(p.ent, c)
				continue
			}
			out = append(out, p.ent...)
			p.ent = p.ent[:0]
		}
		switch {
		case c == '&' && !inCDATA:
			p.ent = append(p.ent, c)
		case c == '\r':
			out = append(out, '\n')
			p.prevCR = true
			continue
		case c == '\n' && p.prevCR:
		case c >= 0x80 && p.cp1252:
			out = utf8.AppendRune(out, cp1252(c))
		default:
			out = append(out, c)
		}
		p.prevCR = false
	}
	p.b.text(out)
	p.out = out
}

// plain reports whether s needs no decoding.
func (p *xmlParser) plain(s []byte, inCDATA bool) bool {
	for _, c := range s {
		if c == '&' && !inCDATA || c == '\r' || c >= 0x80 && p.cp1252 {
			return false
		}
	}
	return true
}

// flushEntity passes an unfinished entity reference to the builder as
// written.
func (p *xmlParser) flushEntity() {
	if len(p.ent) > 0 {
		p.b.text(p.ent)
		p.ent = p.ent[:0]
	}
}

// isEntityByte reports whether c may appear in an entity reference between
// its '&' and ';'.
func isEntityByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '#' || c == '_' || c == '-' || c == '.' || c == ':'
}

// appendEntity appends what the complete reference in p.ent ("&...;")
// stands for, or the reference as written if it names no character, and
// clears p.ent.
func (p *xmlParser) appendEntity(out []byte) []byte {
	ref := p.ent[1 : len(p.ent)-1]
	p.ent = p.ent[:0]
	switch string(ref) {
	case "amp":
		return append(out, '&')
	case "lt":
		return append(out, '<')
	case "gt":
		return append(out, '>')
	case "quot":
		return append(out, '"')
	case "apos":
		return append(out, '\'')
	}
	if r, ok := charRef(ref); ok {
		return utf8.AppendRune(out, r)
	}
	out = append(out, '&')
	out = append(out, ref...)
	return append(out, ';')
}

// charRef decodes the body of a numeric character reference: "#65" or
// "#x41". Like encoding/xml, it accepts any value up to unicode.MaxRune
// (surrogates become U+FFFD when encoded).
func charRef(ref []byte) (rune, bool) {
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	digits, base := ref[1:], uint64(10)
	if digits[0] == 'x' {
		digits, base = digits[1:], 16
	}
	if len(digits) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		v = v*base + d
		if v > utf8.MaxRune {
			return 0, false
		}
	}
	return rune(v), true
}

// declEncoding returns the value of the encoding pseudo-attribute in the
// content of an XML declaration, lowercased, or "".
func declEncoding(decl []byte) string {
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	rest, ok := bytes.CutPrefix(rest, []byte("="))
	if !ok {
		return ""
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
		return ""
	}
	v, _, ok := bytes.Cut(rest[1:], rest[:1])
	if !ok {
		return ""
	}
	return string(bytes.ToLower(v))
}

// isCP1252 reports whether an encoding label is read as Windows-1252: the
// WHATWG Encoding Standard's labels for it, as browsers do.
func isCP1252(label string) bool {
	switch label {
	case "windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591",
		"iso_8859-1:1987", "latin1", "l1", "ibm819", "cp819", "csisolatin1", "iso-ir-100",
		"us-ascii", "ascii", "ansi_x3.4-1968", "iso-8859-1:1987":
		return true
	}
	return false
}

// cp1252High maps Windows-1252 bytes 0x80 to 0x9f to Unicode; the other
// bytes are Latin-1, their own code points. Undefined bytes map to the C1
// control of the same value, as in the WHATWG index.
var cp1252High = [32]rune{
	0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
	0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
	0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
	0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
}

// cp1252 returns the character the Windows-1252 byte c (0x80 or above)
// stands for.
func cp1252(c byte) rune {
	if c < 0xa0 {
		return cp1252High[c-0x80]
	}
	return rune(c)
}
