package htmlx

import (
	"bytes"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// prescanLen is how much of a body the <meta> prescan looks at, as in the
// HTML standard; headScanLen bounds the look further into <head> when the
// prescan found nothing and the body is not UTF-8.
const (
	prescanLen  = 1024
	headScanLen = 64 << 10
)

// Decode converts an HTML body to UTF-8. The encoding is chosen as the HTML
// standard's encoding sniffing algorithm does: a byte order mark, then the
// charset parameter of contentType (the Content-Type header), then a
// <meta charset> or <meta http-equiv="Content-Type"> in the first 1024
// bytes. Labels are those of the WHATWG Encoding Standard; an unknown label
// is skipped as if absent.
//
// Like browsers, and unlike the standard's prescan, Decode also honours a
// <meta> declaration that comes later in <head> (after a long script, say)
// when the body is not valid UTF-8: it looks through <head>, up to 64 KiB.
//
// Where nothing declares an encoding, Decode deviates from the standard's
// windows-1252 default: a body that is valid UTF-8 (a character cut off at
// the very end, as a size limit leaves it, is allowed) is taken as UTF-8,
// anything else as windows-1252. Pure ASCII thus reports "utf-8". Most of
// today's web is UTF-8 and text in a legacy 8-bit encoding is almost never
// valid UTF-8 by accident, so this guess is right far more often than the
// fixed default; browsers, too, guess here rather than trust the default.
//
// Unlike browsers, Decode takes a body that is valid UTF-8 and has
// characters outside ASCII as UTF-8 even when a <meta> declares another
// encoding (a template copied from an older page, say): text in a legacy
// encoding is almost never valid UTF-8 by accident. An encoding named by
// the Content-Type header is obeyed, as in browsers, unless the body is
// such UTF-8 and is not valid in that encoding (decoding it gives
// replacement characters).
//
// Decode returns the UTF-8 text, without byte order mark, and the WHATWG
// name of the encoding used ("utf-8", "windows-1254", "shift_jis", ...).
// Invalid byte sequences become U+FFFD; bad input is never an error. The
// result may share memory with body when body is already valid UTF-8.
func Decode(body []byte, contentType string) (utf8Body []byte, encodingName string, err error) {
	enc, name, from, body, valid := sniff(body, contentType)
	// A body that is UTF-8 may declare another encoding all the same: a
	// page that copied its <meta> from an older one, say.
	utf8Text := (from == fromHeader || from == fromMeta) && name != "utf-8" && isUTF8Text(body)
	if utf8Text && from == fromMeta {
		return decode(unicode.UTF8, "utf-8", body, false)
	}
	out, name, err := decode(enc, name, body, valid)
	if err == nil && utf8Text && bytes.Contains(out, replacementChar) && !bytes.Contains(body, replacementChar) {
		// The header wins, as in browsers, unless the body is not
		// in the encoding it names.
		return decode(unicode.UTF8, "utf-8", body, false)
	}
	return out, name, err
}

// decode converts body from enc, named name, to UTF-8; valid says that
// body is known to be valid UTF-8.
func decode(enc encoding.Encoding, name string, body []byte, valid bool) ([]byte, string, error) {
	if enc == unicode.UTF8 && (valid || utf8.Valid(body)) {
		return body, name, nil
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, name, fmt.Errorf("htmlx: decode %s: %w", name, err)
	}
	if !utf8.Valid(out) {
		// Decoders are meant to emit valid UTF-8; make sure of it.
		out = bytes.ToValidUTF8(out, replacementChar)
	}
	return out, name, nil
}

// Where sniff found the encoding.
const (
	fromBOM = iota
	fromHeader
	fromMeta
	fromSniffing
)

// sniff chooses the encoding of body and returns it, its name, where it was
// found and body without a byte order mark, and whether body was found
// to be valid UTF-8 on the way.
func sniff(body []byte, contentType string) (encoding.Encoding, string, int, []byte, bool) {
	switch {
	case bytes.HasPrefix(body, []byte{0xef, 0xbb, 0xbf}):
		return unicode.UTF8, "utf-8", fromBOM, body[3:], false
	case bytes.HasPrefix(body, []byte{0xfe, 0xff}):
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be", fromBOM, body[2:], false
	case bytes.HasPrefix(body, []byte{0xff, 0xfe}):
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le", fromBOM, body[2:], false
	}
	if label := contentTypeCharset(contentType); label != "" {
		if enc, name, ok := lookupEncoding(label); ok {
			return enc, name, fromHeader, body, false
		}
	}
	if enc, name, ok := prescan(body, prescanLen, false); ok {
		return enc, name, fromMeta, body, false
	}
	if ok, cut := utf8Prefix(body); ok {
		return unicode.UTF8, "utf-8", fromSniffing, body, !cut
	}
	if len(body) > prescanLen {
		if enc, name, ok := prescan(body, headScanLen, true); ok {
			return enc, name, fromMeta, body, false
		}
	}
	enc, name, _ := lookupEncoding("windows-1252")
	return enc, name, fromSniffing, body, false
}

// isUTF8Text reports whether body is valid UTF-8 (but for a character cut
// off at the end) with at least one character outside ASCII: text in a
// legacy encoding with characters outside ASCII is almost never that.
func isUTF8Text(body []byte) bool {
	i := 0
	for i < len(body) && body[i] < utf8.RuneSelf {
		i++
	}
	return i < len(body) && validUTF8Prefix(body[i:])
}

// lookupEncoding returns the encoding with a WHATWG label, and its name.
func lookupEncoding(label string) (encoding.Encoding, string, bool) {
	enc, err := htmlindex.Get(label)
	if err != nil {
		return nil, "", false
	}
	name, err := htmlindex.Name(enc)
	if err != nil {
		return nil, "", false
	}
	if name == "utf-8" {
		enc = unicode.UTF8
	}
	return enc, name, true
}

// contentTypeCharset returns the charset parameter of a Content-Type value,
// also from values that mime.ParseMediaType rejects.
func contentTypeCharset(contentType string) string {
	if contentType == "" {
		return ""
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		return params["charset"]
	}
	return metaCharset(contentType)
}

// metaCharset extracts a charset from the content of a
// <meta http-equiv="Content-Type"> element, by the HTML standard's
// "algorithm for extracting a character encoding from a meta element".
func metaCharset(s string) string {
	for {
		i := indexFold(s, "charset")
		if i < 0 {
			return ""
		}
		s = s[i+len("charset"):]
		j := skipASCIISpace(s, 0)
		if j == len(s) || s[j] != '=' {
			continue
		}
		s = s[skipASCIISpace(s, j+1):]
		if s == "" {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return ""
			}
			return s[1 : 1+end]
		}
		end := strings.IndexAny(s, "; \t\n\f\r")
		if end < 0 {
			end = len(s)
		}
		return s[:end]
	}
}

// indexFold returns the index of the first instance of the lower-case ASCII
// word in s, matched case-insensitively, or -1.
func indexFold(s, word string) int {
	for i := 0; i+len(word) <= len(s); i++ {
		if asciiEqualFold(s[i:i+len(word)], word) {
			return i
		}
	}
	return -1
}

// prescan looks for a <meta> that declares the encoding in the first limit
// bytes of body, as the HTML standard's prescan does (with a tokenizer
// rather than its byte-level rules). If headOnly, it stops at the first
// element that cannot be in <head>.
func prescan(body []byte, limit int, headOnly bool) (encoding.Encoding, string, bool) {
	if len(body) > limit {
		body = body[:limit]
	}
	if bytes.IndexByte(body, '<') < 0 {
		return nil, "", false
	}
	z := newTokenizer(body)
	tok := &Token{z: z}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return nil, "", false
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok.reset(tt)
		if tag := z.tagName(); string(tag) != "meta" {
			if headOnly && classOf(atom.Lookup(tag))&clHead == 0 {
				return nil, "", false
			}
			continue
		}
		var (
			label      string
			gotPragma  bool
			needPragma = -1 // unknown; 0 false; 1 true
			found      bool
		)
		for _, kv := range tok.Attrs() {
			key, val := kv.Key, kv.Val
			switch string(key) {
			case "http-equiv":
				if asciiEqualFold(string(val), "content-type") {
					gotPragma = true
				}
			case "content":
				if !found {
					if cs := metaCharset(string(val)); cs != "" {
						label, found, needPragma = cs, true, 1
					}
				}
			case "charset":
				if !found {
					label, found, needPragma = string(val), true, 0
				}
			}
		}
		if !found || needPragma == 1 && !gotPragma {
			continue
		}
		enc, name, ok := lookupEncoding(label)
		if !ok {
			continue
		}
		switch name {
		case "utf-16be", "utf-16le":
			// A document that could be read this far is not UTF-16.
			return unicode.UTF8, "utf-8", true
		case "x-user-defined":
			enc, name, _ = lookupEncoding("windows-1252")
		}
		return enc, name, true
	}
}

// validUTF8Prefix reports whether body is valid UTF-8, allowing a character
// cut off at the end if the rest has a multi-byte character to show that it
// is UTF-8 (a lone final byte such as 0xE9 is more likely Latin-1 "é").
func validUTF8Prefix(body []byte) bool {
	ok, _ := utf8Prefix(body)
	return ok
}

// utf8Prefix is validUTF8Prefix, and also says whether a character was
// cut off at the end.
func utf8Prefix(body []byte) (ok, cut bool) {
	for i := len(body) - 1; i >= 0 && i >= len(body)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(body[i]) {
			if !utf8.FullRune(body[i:]) {
				body, cut = body[:i], true
			}
			break
		}
	}
	if !utf8.Valid(body) {
		return false, cut
	}
	if cut {
		for _, c := range body {
			if c >= utf8.RuneSelf {
				return true, cut
			}
		}
		return false, cut
	}
	return true, false
}

// asciiEqualFold reports whether s equals the lower-case ASCII word,
// ignoring the case of ASCII letters.
func asciiEqualFold(s, word string) bool {
	if len(s) != len(word) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}
