package urlnorm

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// parts are the components of an http(s) URL as the WHATWG parser holds
// them, before this package's normalization. Both the fast path and the
// WHATWG path produce parts; build turns them into the normalized URL, so
// the two paths share every rule that is not parsing.
type parts struct {
	scheme string // "http" or "https"
	host   string // ASCII; for a domain, possibly uppercase and with a trailing dot
	port   int    // -1 when absent
	// The path is dir followed by ref. dir is "" or "/seg/seg..." with no dot
	// segments left (already parsed); ref, if hasRef, is path text still to
	// be parsed by the WHATWG path state: segments separated by '/', dot
	// segments to be applied, its leading slash already consumed.
	dir    string
	ref    string
	hasRef bool
	query  string // without '?'; "" and absent are the same here
}

// build returns the normalized URL for p.
func (n *Normalizer) build(p *parts) (string, error) {
	var buf [256]byte
	out := buf[:0]
	if len(p.dir)+len(p.ref)+len(p.query)+len(p.host)+24 > len(buf) {
		out = make([]byte, 0, len(p.dir)+len(p.ref)+len(p.query)+len(p.host)+32)
	}
	out = append(out, p.scheme...)
	out = append(out, "://"...)
	hostStart := len(out)
	out, ok := appendHost(out, p.host)
	if !ok {
		return "", errBadHost
	}
	hostEnd := len(out)
	if p.port >= 0 && !(p.port == 80 && p.scheme == "http") && !(p.port == 443 && p.scheme == "https") {
		out = append(out, ':')
		out = strconv.AppendInt(out, int64(p.port), 10)
	}
	out = n.appendPath(out, p)
	if p.query != "" {
		sort := n.sortQuery && !n.keepOrder.match(out[hostStart:hostEnd])
		out = n.appendQuery(out, p.query, sort)
	}
	if len(out) > MaxLength {
		return "", errTooLong
	}
	return string(out), nil
}

// appendHost appends the normalized form of a WHATWG-serialized host:
// lowercase, without a trailing dot. It refuses anything that is not an IP
// literal or a DNS name of letters, digits, '-', '_' and '.' with labels of
// 1 to 63 bytes and at most 253 bytes in all: the WHATWG parser lets through
// hosts such as "a`b" or "a..b" that no resolver will find.
func appendHost(out []byte, host string) ([]byte, bool) {
	if strings.HasPrefix(host, "[") {
		// An IPv6 address, already canonical from the WHATWG parser.
		if len(host) < 3 || host[len(host)-1] != ']' {
			return out, false
		}
		for i := 1; i < len(host)-1; i++ {
			if c := host[i]; !isHex(c) && c != ':' && c != '.' {
				return out, false
			}
		}
		for i := range len(host) {
			out = append(out, toLower(host[i]))
		}
		return out, true
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 {
		return out, false
	}
	label := 0 // length of the current label
	for i := range len(host) {
		c := toLower(host[i])
		if !isHostByte(c) {
			return out, false
		}
		if c == '.' {
			if label == 0 {
				return out, false
			}
			label = 0
		} else if label++; label > 63 {
			return out, false
		}
		out = append(out, c)
	}
	return out, label > 0
}

// appendPath appends p's path, normalized.
func (n *Normalizer) appendPath(out []byte, p *parts) []byte {
	start := len(out)
	for dir := p.dir; dir != ""; {
		dir = dir[1:] // the leading '/'
		seg := dir
		if i := strings.IndexByte(dir, '/'); i >= 0 {
			seg, dir = dir[:i], dir[i:]
		} else {
			dir = ""
		}
		out = append(out, '/')
		out = appendComponent(out, seg, pathKeep)
	}
	if p.hasRef {
		// The WHATWG path state, segment by segment.
		for ref := p.ref; ; {
			seg, rest, more := strings.Cut(ref, "/")
			switch {
			case isDoubleDot(seg):
				if i := bytes.LastIndexByte(out[start:], '/'); i >= 0 {
					out = out[:start+i]
				}
				if !more {
					out = append(out, '/')
				}
			case isSingleDot(seg):
				if !more {
					out = append(out, '/')
				}
			default:
				out = append(out, '/')
				out = appendComponent(out, seg, pathKeep)
			}
			if !more {
				break
			}
			ref = rest
		}
	}
	if len(out) == start {
		return append(out, '/')
	}
	return n.stripMatrix(out, start+bytes.LastIndexByte(out[start:], '/')+1)
}

// stripMatrix removes the ";name=value" parameters named in StripParams
// from the last path segment, out[seg:].
func (n *Normalizer) stripMatrix(out []byte, seg int) []byte {
	semi := bytes.IndexByte(out[seg:], ';')
	if semi < 0 {
		return out
	}
	var buf [128]byte
	kept := append(buf[:0], out[seg:seg+semi]...)
	removed := false
	for params := out[seg+semi+1:]; ; {
		param, rest, more := bytes.Cut(params, []byte{';'})
		name, _, _ := bytes.Cut(param, []byte{'='})
		if n.strip.match(name) {
			removed = true
		} else {
			kept = append(kept, ';')
			kept = append(kept, param...)
		}
		if !more {
			break
		}
		params = rest
	}
	// Stripping must not turn the segment into a dot segment, which would
	// change the path when normalized again.
	if !removed || string(kept) == "." || string(kept) == ".." {
		return out
	}
	return append(out[:seg], kept...)
}

func isSingleDot(s string) bool {
	return s == "." || len(s) == 3 && strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch len(s) {
	case 2:
		return s == ".."
	case 4:
		return s[0] == '.' && strings.EqualFold(s[1:], "%2e") ||
			s[3] == '.' && strings.EqualFold(s[:3], "%2e")
	case 6:
		return strings.EqualFold(s, "%2e%2e")
	}
	return false
}

// span locates one query parameter in a buffer: name is [start, eq), the
// whole parameter [start, end).
type span struct{ start, eq, end int }

// appendQuery appends "?" and the normalized query q, or nothing when no
// parameter is left. Empty parameters ("a&&b") are dropped, parameters named
// in StripParams removed, and the rest sorted by name if sort is set.
func (n *Normalizer) appendQuery(out []byte, q string, sort bool) []byte {
	qstart := len(out)
	out = append(out, '?')
	var spanBuf [16]span
	spans := spanBuf[:0]
	for {
		param, rest, more := strings.Cut(q, "&")
		if param != "" {
			start := len(out)
			out = appendComponent(out, param, queryKeep)
			eq := bytes.IndexByte(out[start:], '=')
			if eq < 0 {
				eq = len(out)
			} else {
				eq += start
			}
			if n.strip.match(out[start:eq]) {
				out = out[:start]
			} else {
				spans = append(spans, span{start, eq, len(out)})
				out = append(out, '&')
			}
		}
		if !more {
			break
		}
		q = rest
	}
	if len(spans) == 0 {
		return out[:qstart]
	}
	out = out[:len(out)-1] // the last '&'
	if !sort || slices.IsSortedFunc(spans, func(a, b span) int { return compareNames(out, a, b) }) {
		return out
	}
	slices.SortStableFunc(spans, func(a, b span) int { return compareNames(out, a, b) })
	var tmp [256]byte
	params := append(tmp[:0], out[qstart+1:]...)
	out = out[:qstart+1]
	for i, s := range spans {
		if i > 0 {
			out = append(out, '&')
		}
		out = append(out, params[s.start-qstart-1:s.end-qstart-1]...)
	}
	return out
}

func compareNames(buf []byte, a, b span) int {
	return bytes.Compare(buf[a.start:a.eq], buf[b.start:b.eq])
}

// byteSet is a set of bytes.
type byteSet [256]bool

// pathKeep and queryKeep are the bytes left as they are in a path segment
// and in a query: RFC 3986's pchar (and '/', '?' in a query), except that
// the query also encodes the apostrophe, as the WHATWG parser does for
// special schemes. Everything else except '%' is percent-encoded.
var (
	pathKeep  = newByteSet(unreserved + "!$&'()*+,;=:@")
	queryKeep = newByteSet(unreserved + "!$&()*+,;=:@/?")
)

const unreserved = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"

func newByteSet(members string) *byteSet {
	var s byteSet
	for i := range len(members) {
		s[members[i]] = true
	}
	return &s
}

// isUnreserved reports whether c is an RFC 3986 unreserved character, which
// never needs percent-encoding.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

const upperHex = "0123456789ABCDEF"

// appendComponent appends s with its percent-encoding normalized: escapes
// of unreserved characters decoded, other escapes in uppercase hex, a '%'
// that starts no escape encoded as "%25", and bytes not in keep encoded.
func appendComponent(out []byte, s string, keep *byteSet) []byte {
	for i := 0; i < len(s); {
		// Copy the run of bytes that stay as they are in one go.
		j := i
		for j < len(s) && keep[s[j]] {
			j++
		}
		out = append(out, s[i:j]...)
		if j == len(s) {
			break
		}
		c := s[j]
		i = j + 1
		if c == '%' && j+2 < len(s) && isHex(s[j+1]) && isHex(s[j+2]) {
			if v := unhex(s[j+1])<<4 | unhex(s[j+2]); isUnreserved(v) {
				out = append(out, v)
			} else {
				out = append(out, '%', upperHex[v>>4], upperHex[v&15])
			}
			i = j + 3
			continue
		}
		out = append(out, '%', upperHex[c>>4], upperHex[c&15])
	}
	return out
}
