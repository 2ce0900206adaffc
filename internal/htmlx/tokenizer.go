package htmlx

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// tokenizer splits a page held in memory into tokens by the rules of
// golang.org/x/net/html's Tokenizer, token for token (a differential test
// and fuzz target hold it to that), without its costs: it reads the page
// in place rather than through a reader and a buffer, keeps a tag's
// attributes as offsets into the page (no copy, no set of names: repeated
// ones are dropped when they are read), and decodes character references,
// line breaks and NULs only when a text or value has them, into a buffer
// of its own, never into the page. It takes time linear in the page.
//
// As with x/net/html, the caller says when a start tag is SVG or MathML
// content, whose <title>, <style> or <script> has markup and not raw text
// for content (NextIsNotRawText), and where CDATA sections are text
// (AllowCDATA).
type tokenizer struct {
	buf []byte
	// buf[start:end] is the current token; end is also where reading
	// goes on. buf[ds:de] is its data: a text's text, a tag's name, a
	// comment's or doctype's content.
	start, end int
	ds, de     int
	// eof is set when a read found no byte left; like x/net/html's err,
	// it makes the next token an error token.
	eof bool
	tt  html.TokenType
	// rawTag is the lower-case name of the raw-text element whose
	// content the next token is ("" if none).
	rawTag                            string
	textIsRaw, convertNUL, allowCDATA bool
	// The attributes of the current start tag as offsets, repeated keys
	// included.
	attrs []attrSpan
	// scratch holds what was decoded for the current token.
	scratch []byte
}

// attrSpan is an attribute as offsets into the page: buf[k0:k1] its key,
// buf[v0:v1] its value.
type attrSpan struct{ k0, k1, v0, v1 int32 }

func newTokenizer(buf []byte) *tokenizer {
	return &tokenizer{buf: buf}
}

// reset makes z read buf from the start.
func (z *tokenizer) reset(buf []byte) {
	*z = tokenizer{buf: buf, attrs: z.attrs[:0], scratch: z.scratch[:0]}
}

// AllowCDATA sets whether <![CDATA[...]]> is text (in SVG and MathML) or
// a bogus comment.
func (z *tokenizer) AllowCDATA(allow bool) { z.allowCDATA = allow }

// NextIsNotRawText says that the start tag just read is foreign content:
// what follows is markup, not raw text.
func (z *tokenizer) NextIsNotRawText() { z.rawTag = "" }

// Raw returns the bytes of the current token as they are in the page.
func (z *tokenizer) Raw() []byte { return z.buf[z.start:z.end] }

func (z *tokenizer) readByte() byte {
	if z.end >= len(z.buf) {
		z.eof = true
		return 0
	}
	c := z.buf[z.end]
	z.end++
	return c
}

// afterLT reads up to the next '<' and the byte after it, which it
// returns; false at the end of the page.
func (z *tokenizer) afterLT() (byte, bool) {
	i := bytes.IndexByte(z.buf[z.end:], '<')
	if i < 0 {
		z.end = len(z.buf)
		z.eof = true
		return 0, false
	}
	z.end += i + 1
	c := z.readByte()
	return c, !z.eof
}

func isTagSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f'
}

func (z *tokenizer) skipWhiteSpace() {
	if z.eof {
		return
	}
	for z.end < len(z.buf) && isTagSpace(z.buf[z.end]) {
		z.end++
	}
	if z.end >= len(z.buf) {
		z.eof = true
	}
}

// Next reads the next token and returns its type; html.ErrorToken at the
// end of the page.
func (z *tokenizer) Next() html.TokenType {
	z.start = z.end
	z.ds, z.de = z.end, z.end
	z.scratch = z.scratch[:0]
	if z.eof {
		z.tt = html.ErrorToken
		return z.tt
	}
	if z.rawTag != "" {
		if z.rawTag == "plaintext" {
			z.end = len(z.buf)
			z.eof = true
			z.de = z.end
			z.textIsRaw = true
		} else {
			z.readRawOrRCDATA()
		}
		if z.de > z.ds {
			z.tt = html.TextToken
			z.convertNUL = true
			return z.tt
		}
	}
	z.textIsRaw = false
	z.convertNUL = false

	for {
		// Text runs to the next '<'.
		c, ok := z.afterLT()
		if !ok {
			break
		}
		var tokenType html.TokenType
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			tokenType = html.StartTagToken
		case c == '/':
			tokenType = html.EndTagToken
		case c == '!' || c == '?':
			tokenType = html.CommentToken
		default:
			z.end--
			continue
		}
		// Text before the tag is a token of its own, first.
		if x := z.end - len("<a"); z.start < x {
			z.end = x
			z.de = x
			z.tt = html.TextToken
			return z.tt
		}
		switch tokenType {
		case html.StartTagToken:
			z.tt = z.readStartTag()
			return z.tt
		case html.EndTagToken:
			c = z.readByte()
			if z.eof {
				break
			}
			if c == '>' {
				// "</>" is no token: an empty comment stands for it.
				z.tt = html.CommentToken
				return z.tt
			}
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				z.readTag(false)
				if z.eof {
					z.tt = html.ErrorToken
				} else {
					z.tt = html.EndTagToken
				}
				return z.tt
			}
			z.end--
			z.readUntilCloseAngle()
			z.tt = html.CommentToken
			return z.tt
		case html.CommentToken:
			if c == '!' {
				z.tt = z.readMarkupDeclaration()
				return z.tt
			}
			z.end--
			z.readUntilCloseAngle()
			z.tt = html.CommentToken
			return z.tt
		}
		break
	}
	if z.start < z.end {
		z.de = z.end
		z.tt = html.TextToken
		return z.tt
	}
	z.tt = html.ErrorToken
	return z.tt
}

// readRawOrRCDATA reads up to the end tag of z.rawTag.
func (z *tokenizer) readRawOrRCDATA() {
	if z.rawTag == "script" {
		z.readScript()
		z.textIsRaw = true
		z.rawTag = ""
		return
	}
	for {
		c, ok := z.afterLT()
		if !ok {
			break
		}
		if c != '/' {
			z.end--
			continue
		}
		if z.readRawEndTag() || z.eof {
			break
		}
	}
	z.de = z.end
	// A textarea's or title's content may hold character references.
	z.textIsRaw = z.rawTag != "textarea" && z.rawTag != "title"
	z.rawTag = ""
}

// readRawEndTag reads "</rawTag" followed by a space, '/' or '>' after
// "</" and, if it is there, backs up to its start and returns true.
func (z *tokenizer) readRawEndTag() bool {
	for i := 0; i < len(z.rawTag); i++ {
		c := z.readByte()
		if z.eof {
			return false
		}
		if c != z.rawTag[i] && c != z.rawTag[i]-('a'-'A') {
			z.end--
			return false
		}
	}
	c := z.readByte()
	if z.eof {
		return false
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		z.end -= 3 + len(z.rawTag)
		return true
	}
	z.end--
	return false
}

// readScript reads up to the end tag of a script, following the rules for
// "<!--" and "<script>" inside a script.
func (z *tokenizer) readScript() {
	defer func() { z.de = z.end }()
	var c byte

scriptData:
	if i := bytes.IndexByte(z.buf[z.end:], '<'); i >= 0 {
		z.end += i + 1
	} else {
		z.end = len(z.buf)
		z.eof = true
		return
	}
	goto scriptDataLessThanSign

scriptDataLessThanSign:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '/':
		goto scriptDataEndTagOpen
	case '!':
		goto scriptDataEscapeStart
	}
	z.end--
	goto scriptData

scriptDataEndTagOpen:
	if z.readRawEndTag() || z.eof {
		return
	}
	goto scriptData

scriptDataEscapeStart:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '-' {
		goto scriptDataEscapeStartDash
	}
	z.end--
	goto scriptData

scriptDataEscapeStartDash:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '-' {
		goto scriptDataEscapedDashDash
	}
	z.end--
	goto scriptData

scriptDataEscaped:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDashDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataEscaped

scriptDataEscapedLessThanSign:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '/' {
		goto scriptDataEscapedEndTagOpen
	}
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		goto scriptDataDoubleEscapeStart
	}
	z.end--
	goto scriptData

scriptDataEscapedEndTagOpen:
	if z.readRawEndTag() || z.eof {
		return
	}
	goto scriptDataEscaped

scriptDataDoubleEscapeStart:
	z.end--
	for i := 0; i < len("script"); i++ {
		c = z.readByte()
		if z.eof {
			return
		}
		if c != "script"[i] && c != "SCRIPT"[i] {
			z.end--
			goto scriptDataEscaped
		}
	}
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		goto scriptDataDoubleEscaped
	}
	z.end--
	goto scriptDataEscaped

scriptDataDoubleEscaped:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDashDash:
	c = z.readByte()
	if z.eof {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedLessThanSign:
	c = z.readByte()
	if z.eof {
		return
	}
	if c == '/' {
		goto scriptDataDoubleEscapeEnd
	}
	z.end--
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapeEnd:
	if z.readRawEndTag() {
		z.end += len("</script>")
		goto scriptDataEscaped
	}
	if z.eof {
		return
	}
	goto scriptDataDoubleEscaped
}

// readComment reads a comment after its "<!--".
func (z *tokenizer) readComment() {
	z.ds = z.end
	defer func() {
		if z.de < z.ds {
			// A comment with no data, like <!-->.
			z.de = z.ds
		}
	}()
	dashCount := 0
	beginning := true
	for {
		c := z.readByte()
		if z.eof {
			z.de = z.abruptCommentDataEnd()
			return
		}
		switch c {
		case '-':
			dashCount++
			continue
		case '>':
			if dashCount >= 2 || beginning {
				z.de = z.end - len("-->")
				return
			}
		case '!':
			if dashCount >= 2 {
				c = z.readByte()
				if z.eof {
					z.de = z.abruptCommentDataEnd()
					return
				} else if c == '>' {
					z.de = z.end - len("--!>")
					return
				} else if c == '-' {
					dashCount = 1
					beginning = false
					continue
				}
			}
		}
		dashCount = 0
		beginning = false
	}
}

// abruptCommentDataEnd is where the data of a comment cut by the end of
// the page ends: before the dashes (and '!') it ends with.
func (z *tokenizer) abruptCommentDataEnd() int {
	raw := z.Raw()
	if len(raw) >= len("<!--") {
		raw = raw[len("<!--"):]
		switch {
		case bytes.HasSuffix(raw, []byte("--!")):
			return z.end - 3
		case bytes.HasSuffix(raw, []byte("--")):
			return z.end - 2
		case bytes.HasSuffix(raw, []byte("-")):
			return z.end - 1
		}
	}
	return z.end
}

// readUntilCloseAngle reads up to and including the next '>'.
func (z *tokenizer) readUntilCloseAngle() {
	z.ds = z.end
	i := bytes.IndexByte(z.buf[z.end:], '>')
	if i < 0 {
		z.end = len(z.buf)
		z.eof = true
		z.de = z.end
		return
	}
	z.end += i + 1
	z.de = z.end - 1
}

// readMarkupDeclaration reads what follows "<!": a comment, a doctype, a
// CDATA section or a bogus comment.
func (z *tokenizer) readMarkupDeclaration() html.TokenType {
	z.ds = z.end
	var c [2]byte
	for i := 0; i < 2; i++ {
		c[i] = z.readByte()
		if z.eof {
			z.de = z.end
			if i == 1 && c[0] == '>' {
				z.de--
			}
			return html.CommentToken
		}
	}
	if c[0] == '-' && c[1] == '-' {
		z.readComment()
		return html.CommentToken
	}
	z.end -= 2
	if z.readDoctype() {
		return html.DoctypeToken
	}
	if z.allowCDATA && z.readCDATA() {
		z.convertNUL = true
		return html.TextToken
	}
	z.readUntilCloseAngle()
	return html.CommentToken
}

// readDoctype reads a doctype after "<!" if there is one.
func (z *tokenizer) readDoctype() bool {
	const s = "DOCTYPE"
	for i := 0; i < len(s); i++ {
		c := z.readByte()
		if z.eof {
			// Read the fragment again, as a bogus comment.
			z.end = z.ds
			z.eof = false
			return false
		}
		if c != s[i] && c != s[i]+('a'-'A') {
			z.end = z.ds
			return false
		}
	}
	if z.skipWhiteSpace(); z.eof {
		z.ds, z.de = z.end, z.end
		return true
	}
	z.readUntilCloseAngle()
	return true
}

// readCDATA reads a CDATA section after "<!" if there is one.
func (z *tokenizer) readCDATA() bool {
	const s = "[CDATA["
	for i := 0; i < len(s); i++ {
		c := z.readByte()
		if z.eof {
			z.end = z.ds
			z.eof = false
			return false
		}
		if c != s[i] {
			z.end = z.ds
			return false
		}
	}
	z.ds = z.end
	brackets := 0
	for {
		c := z.readByte()
		if z.eof {
			z.de = z.end
			return true
		}
		switch c {
		case ']':
			brackets++
		case '>':
			if brackets >= 2 {
				z.de = z.end - len("]]>")
				return true
			}
			brackets = 0
		default:
			brackets = 0
		}
	}
}

// rawTags are the elements whose content is raw text or RCDATA.
var rawTags = [...]string{"iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp"}

// readStartTag reads a start tag after its "<" and first letter.
func (z *tokenizer) readStartTag() html.TokenType {
	z.readTag(true)
	if z.eof {
		return html.ErrorToken
	}
	if name := z.buf[z.ds:z.de]; 3 <= len(name) && len(name) <= 9 {
		for _, s := range rawTags {
			if equalFoldBytes(name, s) {
				z.rawTag = s
				break
			}
		}
	}
	// Self-closing: "/>" ends the tag, and the '/' is not the end of the
	// last attribute's unquoted value (<p a=/>). The tokenizer compares
	// with the last attribute it keeps, and a repeated key is not kept;
	// only the last attribute can end just before the '>'.
	if z.buf[z.end-2] == '/' {
		n := len(z.attrs)
		if n == 0 || int(z.attrs[n-1].v1)-1 != z.end-2 || !z.kept(n-1) {
			return html.SelfClosingTagToken
		}
	}
	return html.StartTagToken
}

// kept reports whether attribute i is one the tokenizer keeps: its key
// is not empty and not that of an earlier attribute.
func (z *tokenizer) kept(i int) bool {
	a := z.attrs[i]
	if a.k0 == a.k1 {
		return false
	}
	key := z.buf[a.k0:a.k1]
	for _, b := range z.attrs[:i] {
		if equalFold(z.buf[b.k0:b.k1], key) {
			return false
		}
	}
	return true
}

// readTag reads a tag's name and attributes after its "<" (or "</") and
// first letter.
func (z *tokenizer) readTag(saveAttr bool) {
	z.attrs = z.attrs[:0]
	z.readTagName()
	if z.skipWhiteSpace(); z.eof {
		return
	}
	for {
		c := z.readByte()
		if z.eof || c == '>' {
			break
		}
		z.end--
		k0 := z.end
		z.readTagAttrKey()
		k1 := z.end
		v0, v1 := z.readTagAttrVal()
		if saveAttr && k1 > k0 {
			z.attrs = append(z.attrs, attrSpan{int32(k0), int32(k1), int32(v0), int32(v1)})
		}
		if z.skipWhiteSpace(); z.eof {
			break
		}
	}
}

// Bytes that end a tag's name, an attribute's key or an unquoted value.
const (
	endSpace = 1 << iota // ' ', '\n', '\r', '\t', '\f'
	endSlash             // '/'
	endGT                // '>'
	endEq                // '='
)

var tagEnds = func() (t [256]uint8) {
	for _, c := range " \n\r\t\f" {
		t[c] = endSpace
	}
	t['/'], t['>'], t['='] = endSlash, endGT, endEq
	return t
}()

// readTagName sets the data to the tag's name.
func (z *tokenizer) readTagName() {
	z.ds = z.end - 1
	i := z.end
	for i < len(z.buf) && tagEnds[z.buf[i]]&(endSpace|endSlash|endGT) == 0 {
		i++
	}
	switch {
	case i == len(z.buf):
		z.end, z.de, z.eof = i, i, true
	case tagEnds[z.buf[i]] == endSpace:
		z.end, z.de = i+1, i
	default:
		z.end, z.de = i, i
	}
}

// readTagAttrKey reads an attribute's key. A leading '=' is part of it.
func (z *tokenizer) readTagAttrKey() {
	i := z.end
	if i < len(z.buf) && z.buf[i] == '=' {
		i++
	}
	for i < len(z.buf) && tagEnds[z.buf[i]] == 0 {
		i++
	}
	z.end = i
	if i == len(z.buf) {
		z.eof = true
	}
}

// readTagAttrVal reads an attribute's value, if any, and returns where it
// is.
func (z *tokenizer) readTagAttrVal() (v0, v1 int) {
	v0, v1 = z.end, z.end
	if z.skipWhiteSpace(); z.eof {
		return
	}
	c := z.readByte()
	if z.eof {
		return
	}
	if c == '/' {
		return
	}
	if c != '=' {
		z.end--
		return
	}
	if z.skipWhiteSpace(); z.eof {
		return
	}
	quote := z.readByte()
	if z.eof {
		return
	}
	switch quote {
	case '>':
		z.end--
		return
	case '\'', '"':
		v0 = z.end
		i := bytes.IndexByte(z.buf[z.end:], quote)
		if i < 0 {
			z.end = len(z.buf)
			z.eof = true
			return v0, z.end
		}
		z.end += i + 1
		return v0, z.end - 1
	default:
		v0 = z.end - 1
		i := z.end
		for i < len(z.buf) && tagEnds[z.buf[i]]&(endSpace|endGT) == 0 {
			i++
		}
		switch {
		case i == len(z.buf):
			z.end, z.eof = i, true
			return v0, i
		case z.buf[i] == '>':
			z.end = i
			return v0, i
		}
		z.end = i + 1
		return v0, i
	}
}

// Text returns the text of a text, comment or doctype token, line breaks
// normalized, NULs replaced where the tokenizer replaces them, and
// character references decoded unless the text is raw. It is the page's
// own bytes unless one of those changes it.
func (z *tokenizer) Text() []byte {
	switch z.tt {
	case html.TextToken, html.CommentToken, html.DoctypeToken:
	default:
		return nil
	}
	s := z.buf[z.ds:z.de]
	nul := z.convertNUL || z.tt == html.CommentToken
	amp := !z.textIsRaw
	if !needsChange(s, nul, amp) {
		return s
	}
	from := len(z.scratch)
	z.scratch = convertText(z.scratch, s, nul)
	if amp {
		t := z.scratch[from:]
		if bytes.IndexByte(t, '&') >= 0 {
			from2 := len(z.scratch)
			z.scratch = unescapeTo(z.scratch, t, false)
			return z.scratch[from2:]
		}
	}
	return z.scratch[from:]
}

// needsChange reports whether s has a carriage return, or a NUL to
// replace, or a character reference to decode.
func needsChange(s []byte, nul, amp bool) bool {
	// Eight bytes at a time while none of them is special: a byte equal
	// to c makes x^(c*ones) have a zero byte, which (y-ones)&^y&highs
	// finds exactly.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		x := binary.LittleEndian.Uint64(s)
		y := x ^ ('\r' * ones)
		special := (y - ones) &^ y
		if nul {
			special |= (x - ones) &^ x
		}
		if amp {
			y = x ^ ('&' * ones)
			special |= (y - ones) &^ y
		}
		if special&highs != 0 {
			break
		}
		s = s[8:]
	}
	for _, c := range s {
		if special[c] {
			switch c {
			case '\r':
				return true
			case 0:
				if nul {
					return true
				}
			case '&':
				if amp {
					return true
				}
			}
		}
	}
	return false
}

// special marks the bytes that may make the tokenizer change a text or
// value; upper marks those that lower changes.
var special, upper = func() (s, u [256]bool) {
	s['\r'], s[0], s['&'] = true, true, true
	for c := 'A'; c <= 'Z'; c++ {
		u[c] = true
	}
	u[0] = true
	return s, u
}()

// hasHiddenKey reports whether the current start tag has a hidden or
// aria-hidden attribute, ignoring case.
func (z *tokenizer) hasHiddenKey() bool {
	for _, a := range z.attrs {
		if n := a.k1 - a.k0; n == 6 || n == 11 {
			k := z.buf[a.k0:a.k1]
			if equalFoldBytes(k, "hidden") || equalFoldBytes(k, "aria-hidden") {
				return true
			}
		}
	}
	return false
}

// convertText appends s to dst with "\r\n" and "\r" made "\n" and, if nul,
// NULs made U+FFFD.
func convertText(dst, s []byte, nul bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\r':
			dst = append(dst, '\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
		case 0:
			if nul {
				dst = append(dst, "\ufffd"...)
			} else {
				dst = append(dst, 0)
			}
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// tagName returns the lower-case name of the current tag, NULs replaced.
func (z *tokenizer) tagName() []byte {
	switch z.tt {
	case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
	default:
		return nil
	}
	return z.lower(z.buf[z.ds:z.de])
}

// lower returns s in lower case with NULs made U+FFFD: s itself if that
// changes nothing, else a copy in the scratch buffer.
func (z *tokenizer) lower(s []byte) []byte {
	change := false
	for _, c := range s {
		if upper[c] {
			change = true
			break
		}
	}
	if !change {
		return s
	}
	from := len(z.scratch)
	for _, c := range s {
		switch {
		case 'A' <= c && c <= 'Z':
			z.scratch = append(z.scratch, c+'a'-'A')
		case c == 0:
			z.scratch = append(z.scratch, "\ufffd"...)
		default:
			z.scratch = append(z.scratch, c)
		}
	}
	return z.scratch[from:]
}

// attrVal returns an attribute's value as the tokenizer gives it: NULs
// made U+FFFD, line breaks normalized and character references decoded
// (by the rules for attributes).
func (z *tokenizer) attrVal(a attrSpan) []byte {
	v := z.buf[a.v0:a.v1]
	if !needsChange(v, true, true) {
		return v
	}
	from := len(z.scratch)
	z.scratch = convertText(z.scratch, v, true)
	t := z.scratch[from:]
	if bytes.IndexByte(t, '&') < 0 {
		return t
	}
	from2 := len(z.scratch)
	z.scratch = unescapeTo(z.scratch, t, true)
	return z.scratch[from2:]
}

// equalFold reports whether a and b are equal but for the case of ASCII
// letters.
func equalFold(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x != y {
			if 'A' <= x && x <= 'Z' {
				x += 'a' - 'A'
			}
			if 'A' <= y && y <= 'Z' {
				y += 'a' - 'A'
			}
			if x != y {
				return false
			}
		}
	}
	return true
}

// unescapeTo appends s to dst with its character references decoded as
// x/net/html decodes them in text or, if attribute, in attribute values.
// The common references are decoded here; the rest by html.UnescapeString,
// one reference at a time.
func unescapeTo(dst, s []byte, attribute bool) []byte {
	for i := 0; i < len(s); {
		j := bytes.IndexByte(s[i:], '&')
		if j < 0 {
			return append(dst, s[i:]...)
		}
		dst = append(dst, s[i:i+j]...)
		i += j
		n := refLen(s[i:])
		if n == 1 {
			dst = append(dst, '&')
			i++
			continue
		}
		ref := s[i : i+n]
		if ref[1] == '#' {
			dst = appendNumericRef(dst, ref)
			i += n
			continue
		}
		if attribute && ref[n-1] != ';' && i+n < len(s) && s[i+n] == '=' {
			// "&name=" in a value is left as it is.
			dst = append(dst, ref...)
			i += n
			continue
		}
		if r, ok := commonRef(ref); ok {
			dst = append(dst, r...)
			i += n
			continue
		}
		out := html.UnescapeString(string(ref))
		if attribute && !fullMatch(ref, out) {
			// In a value a reference counts only if its whole name is
			// one; in text, the longest known prefix of the name counts.
			out = string(ref)
		}
		dst = append(dst, out...)
		i += n
	}
	return dst
}

// refLen returns the length of the character reference at the start of
// s (which starts with '&'): "&#" with digits, or "&" with letters and
// digits, and a ';' if one follows; 1 if neither.
func refLen(s []byte) int {
	i := 1
	if i < len(s) && s[i] == '#' {
		i++
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			i++
			d := i
			for i < len(s) && isHexDigit(s[i]) {
				i++
			}
			if i == d {
				return 1
			}
		} else {
			d := i
			for i < len(s) && '0' <= s[i] && s[i] <= '9' {
				i++
			}
			if i == d {
				return 1
			}
		}
		if i < len(s) && s[i] == ';' {
			i++
		}
		return i
	}
	for i < len(s) && isAlnum(s[i]) {
		i++
	}
	if i == 1 {
		return 1
	}
	if i < len(s) && s[i] == ';' {
		i++
	}
	return i
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// appendNumericRef appends the character of a numeric reference ("&#38;",
// "&#x26"), with the replacements of the HTML standard.
func appendNumericRef(dst, ref []byte) []byte {
	i := 2
	base := rune(10)
	if ref[i] == 'x' || ref[i] == 'X' {
		base = 16
		i++
	}
	x := rune(0)
	for ; i < len(ref) && ref[i] != ';'; i++ {
		c := ref[i]
		var d rune
		switch {
		case '0' <= c && c <= '9':
			d = rune(c - '0')
		case 'a' <= c && c <= 'f':
			d = rune(c - 'a' + 10)
		default:
			d = rune(c - 'A' + 10)
		}
		if x <= 0x10FFFF {
			x = base*x + d
		}
	}
	switch {
	case 0x80 <= x && x <= 0x9F:
		// Windows-1252's characters, as the standard maps them.
		return append(dst, html.UnescapeString(string(ref))...)
	case x == 0 || 0xD800 <= x && x <= 0xDFFF || x > 0x10FFFF:
		x = utf8.RuneError
	}
	return utf8.AppendRune(dst, x)
}

// commonRef decodes the most common named references.
func commonRef(ref []byte) (string, bool) {
	switch string(ref) {
	case "&amp;", "&amp":
		return "&", true
	case "&lt;", "&lt":
		return "<", true
	case "&gt;", "&gt":
		return ">", true
	case "&quot;", "&quot":
		return "\"", true
	case "&nbsp;", "&nbsp":
		return "\u00a0", true
	case "&apos;":
		return "'", true
	case "&copy;", "&copy":
		return "\u00a9", true
	case "&mdash;":
		return "\u2014", true
	case "&ndash;":
		return "\u2013", true
	case "&hellip;":
		return "\u2026", true
	case "&rsquo;":
		return "\u2019", true
	case "&lsquo;":
		return "\u2018", true
	case "&rdquo;":
		return "\u201d", true
	case "&ldquo;":
		return "\u201c", true
	case "&raquo;", "&raquo":
		return "\u00bb", true
	case "&laquo;", "&laquo":
		return "\u00ab", true
	case "&middot;", "&middot":
		return "\u00b7", true
	case "&shy;", "&shy":
		return "\u00ad", true
	case "&bull;":
		return "\u2022", true
	}
	return "", false
}

// fullMatch reports whether html.UnescapeString decoded the whole name of
// the reference ref to out, rather than a prefix of it (or nothing). A
// whole name gives one or two characters; a prefix leaves the rest of the
// name, and a ';' if there was one, after the character it gives.
func fullMatch(ref []byte, out string) bool {
	if out == string(ref) {
		return false
	}
	if ref[len(ref)-1] == ';' {
		return out == ";" || out[len(out)-1] != ';'
	}
	return utf8.RuneCountInString(out) == 1
}
