// Package sitemap reads sitemap files (sitemaps.org protocol 0.9): XML URL
// sets, XML sitemap indexes and plain-text lists of URLs, gzip-compressed or
// not.
//
// The package is a pure leaf: Parse takes a reader and a callback, does no
// other I/O, never logs and keeps no global state. It streams: memory stays
// bounded (about 150 KiB per call, buffers and gzip state included) whatever
// the input, a gzip bomb or a single 100 MB <loc> included.
//
// Decisions where the protocol leaves room or real files stray from it:
//
//   - The input is gzip-compressed if it starts with the gzip magic bytes
//     1f 8b, whatever its name or Content-Type says. Concatenated gzip
//     members are read as one stream.
//   - A file with "<?xml ", "<urlset" or "<sitemapindex" in its first 512
//     bytes is XML from there: what comes before is skipped (broken CMS
//     plugins print PHP warnings there). Otherwise, after an optional UTF-8
//     byte order mark and white space, a file whose first byte is '<' is
//     XML, and anything else is a text sitemap.
//   - XML elements are recognized by their local name alone: the namespace
//     may be the sitemaps.org one, another one or none ("urlset", "url",
//     "loc", "lastmod", "changefreq", "priority", "sitemapindex",
//     "sitemap"). Fields count only as direct children of an entry, and
//     entries only as direct children of the root, so extension elements
//     (image:loc, video:content_loc, news:, xhtml:link alternates) are
//     ignored. A field given twice counts once: the first time.
//   - A root element that is neither urlset nor sitemapindex (an HTML page,
//     an RSS or Atom feed) ends parsing with ErrNotSitemap; feeds are not
//     read.
//   - XML is read leniently where real sitemaps are commonly broken: an
//     unescaped '&' or an unknown entity such as &nbsp; is kept as written
//     (encoding/xml's non-strict mode does the same), attribute values may be
//     unquoted. Entities declared in a DOCTYPE are never expanded, so entity
//     expansion attacks do nothing. Element structure is checked: a
//     mismatched end tag, markup cut short or a file that ends inside the
//     root element is malformed (ErrMalformed).
//   - An XML declaration naming ISO-8859-1, Latin-1, Windows-1252 or
//     US-ASCII is decoded as Windows-1252 (as browsers do); any other
//     declared encoding is read as UTF-8, which suits the ASCII URLs that
//     nearly all such files hold. A UTF-8 byte order mark wins over the
//     declaration: the file is UTF-8 (XML 1.0 appendix F; browsers do the
//     same). Invalid UTF-8 is passed through.
//   - Text values are trimmed of XML white space. A Loc longer than MaxLocLen
//     bytes (after trimming) or empty drops its entry; a lastmod, changefreq
//     or priority that cannot be read is left at its zero value (Priority:
//     -1) and the entry stands.
//   - A text sitemap holds one URL per line. Lines that do not look like an
//     absolute http or https URL (scheme, "://", something after it, no
//     white space or control characters inside) are ignored. Lines end at
//     LF, CRLF or CR. A text file in which no line is a URL, or with a NUL
//     byte in its first 512 bytes (binary data, UTF-16), is ErrNotSitemap.
package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"
)

// Kind says what a sitemap file holds.
type Kind int

// The kinds of sitemap files.
const (
	// Unknown: the file was not recognized as a sitemap (or reading failed
	// before it could be).
	Unknown Kind = iota
	// URLSet: an XML <urlset>; its entries are pages.
	URLSet
	// Index: an XML <sitemapindex>; its entries are further sitemap files.
	Index
	// Text: a plain-text list of page URLs, one per line.
	Text
)

// String returns the kind's name as used in logs: "unknown", "urlset",
// "sitemapindex" or "text".
func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	case Text:
		return "text"
	}
	return "unknown"
}

// Entry is one <url> of a URL set, one <sitemap> of an index, or one line of
// a text sitemap.
type Entry struct {
	// Loc is the URL as written, trimmed of white space and with XML
	// entities decoded; never empty and at most MaxLocLen bytes. It is not
	// validated or normalized: that is the caller's job.
	Loc string
	// LastMod is the <lastmod> date, in UTC, or the zero time if absent or
	// not a W3C datetime. Accepted forms: YYYY, YYYY-MM, YYYY-MM-DD, and
	// YYYY-MM-DDThh:mm, with seconds, with a fraction of a second (any number
	// of digits), each with a time zone ("Z", "+01:00", "-0500", "+01") or,
	// as commonly found, without one (read as UTC). A space or a lowercase t
	// may stand for the T.
	LastMod time.Time
	// ChangeFreq is the <changefreq> value lowercased, if it is one of
	// "always", "hourly", "daily", "weekly", "monthly", "yearly", "never";
	// "" otherwise. Always "" for index and text entries.
	ChangeFreq string
	// Priority is the <priority> value, between 0 and 1, or -1 if absent or
	// invalid. Always -1 for index and text entries.
	Priority float64
}

// Limits bounds the work done on one file. A zero field takes its default.
type Limits struct {
	// MaxURLs is the number of entries delivered per file (default
	// DefaultMaxURLs). A file with more delivers the first MaxURLs and
	// Parse returns ErrTooManyURLs.
	MaxURLs int
	// MaxBytes is the number of decompressed bytes read (default
	// DefaultMaxBytes). A longer file ends with ErrTooLarge after the
	// entries found in its first MaxBytes.
	MaxBytes int64
}

// Default limits and sizes, from the sitemaps.org protocol where it sets them.
const (
	// DefaultMaxURLs is the protocol's limit of URLs per sitemap file.
	DefaultMaxURLs = 50_000
	// DefaultMaxBytes is the protocol's limit on a sitemap's uncompressed
	// size: 50 MiB.
	DefaultMaxBytes = 50 << 20
	// MaxLocLen is the longest Loc delivered, in bytes. The protocol allows
	// 2,048 characters; real files go beyond, so this is more generous.
	MaxLocLen = 4096
)

// Errors returned by Parse. They are returned as they are, or wrapped with
// more detail; test with errors.Is.
var (
	// ErrTooManyURLs: the file has more than Limits.MaxURLs entries. The
	// first MaxURLs were delivered.
	ErrTooManyURLs = errors.New("sitemap: too many URLs")
	// ErrTooLarge: the file is longer than Limits.MaxBytes once
	// decompressed. The entries read before the limit were delivered.
	ErrTooLarge = errors.New("sitemap: file too large")
	// ErrNotSitemap: the file is not a sitemap: an HTML page, a feed, a
	// binary file, a text file without URLs.
	ErrNotSitemap = errors.New("sitemap: not a sitemap")
	// ErrMalformed: the XML is broken (cut short, mismatched tags, stray
	// '<'). The entries read before the damage were delivered.
	ErrMalformed = errors.New("sitemap: malformed XML")
)

// Parse reads one sitemap file from r — an XML <urlset>, an XML
// <sitemapindex> or a text file of one URL per line, gzip-compressed or not —
// and calls fn for each entry, in file order. It returns the kind of the file.
//
// Parse streams: it never holds the whole file, and it stops reading at the
// end of the XML root element (what follows, a gzip trailer included, is not
// checked). Entries delivered before an error stand. The error is nil at the
// end of a good file; fn's own error, returned as it is, if fn failed
// (parsing stops there); ErrTooManyURLs, ErrTooLarge, ErrNotSitemap or
// ErrMalformed (possibly wrapped); or a wrapped error from reading r or
// decompressing it. The kind is returned as soon as it is known (from the
// root element, or the first URL line of a text file), with errors that come
// after that.
func Parse(r io.Reader, lim Limits, fn func(Entry) error) (Kind, error) {
	if lim.MaxURLs <= 0 {
		lim.MaxURLs = DefaultMaxURLs
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultMaxBytes
	}
	br := bufio.NewReaderSize(r, 16<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Unknown, fmt.Errorf("sitemap: gunzip: %w", err)
		}
		src = zr
	}
	in := &input{r: &limitReader{r: src, left: lim.MaxBytes}, buf: make([]byte, 64<<10)}
	b := &builder{maxURLs: lim.MaxURLs, fn: fn}

	isXML, bom, err := sniff(in)
	if err != nil {
		return Unknown, err
	}
	if isXML {
		p := &xmlParser{in: in, b: b, bom: bom}
		err = p.run()
	} else {
		err = parseText(in, b)
	}
	return b.kind, err
}

// sniff skips a UTF-8 byte order mark and leading white space and says
// whether the file is XML and whether it had the mark. It reports
// ErrNotSitemap if the first bytes look binary.
func sniff(in *input) (xml, bom bool, err error) {
	if head, _ := in.peek(3); bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		in.i += 3
		bom = true
	}
	for {
		if in.i == in.n && !in.fill() {
			return false, bom, in.endErr(ErrNotSitemap)
		}
		c := in.buf[in.i]
		if !isSpace(c) {
			break
		}
		in.i++
	}
	head, _ := in.peek(sniffLen)
	if i := xmlStart(head); i >= 0 {
		in.i += i
		return true, bom, nil
	}
	if head[0] == '<' {
		return true, bom, nil
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return false, bom, ErrNotSitemap
	}
	return false, bom, nil
}

// sniffLen is the number of bytes sniff looks at.
const sniffLen = 512

// xmlStart returns the index in head of the first "<?xml ", "<urlset" or
// "<sitemapindex", or -1. Text before the XML, such as a PHP warning
// printed by a CMS plugin, is skipped that way.
func xmlStart(head []byte) int {
	start := -1
	for _, s := range []string{"<?xml ", "<urlset", "<sitemapindex"} {
		if i := bytes.Index(head, []byte(s)); i >= 0 && (start < 0 || i < start) {
			start = i
		}
	}
	return start
}

// isSpace reports whether c is XML white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r'
}

// limitReader reads at most left bytes from r and returns ErrTooLarge, rather
// than io.EOF, if r has more.
type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p))-1 > l.left { // not len(p) > left+1: left may be MaxInt64
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	if int64(n) > l.left {
		n = int(l.left)
		l.left = -1
		return n, ErrTooLarge
	}
	l.left -= int64(n)
	return n, err
}

// input is a read buffer over the decompressed file that keeps count of the
// lines it has passed, for error messages.
type input struct {
	r    io.Reader
	buf  []byte
	i, n int   // buf[i:n] is unread
	err  error // the reader's error, once it has returned one
	// line counts the newlines in the input before buf[mark].
	line int
	mark int
}

// fill reads more input when buf[i:n] is empty. It reports whether there is
// some; when there is not, in.err says why.
func (in *input) fill() bool {
	if in.i < in.n {
		return true
	}
	in.count()
	in.i, in.n, in.mark = 0, 0, 0
	return in.read()
}

// read appends what the reader gives to buf[n:].
func (in *input) read() bool {
	for tries := 0; in.err == nil; tries++ {
		if tries == 100 {
			in.err = io.ErrNoProgress
			break
		}
		var k int
		k, in.err = in.r.Read(in.buf[in.n:])
		in.n += k
		if k > 0 {
			return true
		}
	}
	return in.i < in.n
}

// count adds the newlines in buf[mark:i] to line.
func (in *input) count() {
	if in.mark < in.i {
		in.line += bytes.Count(in.buf[in.mark:in.i], []byte{'\n'})
	}
	in.mark = in.i
}

// peek returns up to k unread bytes without consuming them: fewer only at
// the end of the input.
func (in *input) peek(k int) ([]byte, bool) {
	if in.n-in.i < k {
		in.count()
		copy(in.buf, in.buf[in.i:in.n])
		in.n -= in.i
		in.i, in.mark = 0, 0
		for in.n < k && in.err == nil {
			in.read()
		}
	}
	end := min(in.i+k, in.n)
	return in.buf[in.i:end], end-in.i == k
}

// next consumes and returns one byte; ok is false at the end of the input.
func (in *input) next() (c byte, ok bool) {
	if in.i == in.n && !in.fill() {
		return 0, false
	}
	c = in.buf[in.i]
	in.i++
	return c, true
}

// endErr is the error for running out of input: eof if the input ended, the
// reader's error, wrapped, otherwise.
func (in *input) endErr(eof error) error {
	switch {
	case in.err == nil, in.err == io.EOF:
		return eof
	case errors.Is(in.err, ErrTooLarge):
		return ErrTooLarge
	}
	return fmt.Errorf("sitemap: read: %w", in.err)
}

// lineNo is the 1-based line number of the next unread byte.
func (in *input) lineNo() int {
	in.count()
	return in.line + 1
}

// parseText reads a text sitemap: one URL per line.
func parseText(in *input, b *builder) error {
	b.startLine()
	for {
		if in.i == in.n && !in.fill() {
			if in.err != io.EOF {
				// The last line may be cut short: it is not read.
				return in.endErr(nil)
			}
			if err := b.endLine(); err != nil {
				return err
			}
			if b.kind == Unknown {
				return ErrNotSitemap
			}
			return nil
		}
		chunk := in.buf[in.i:in.n]
		k := lineEnd(chunk)
		if k == 0 && len(b.acc) == 0 && !b.over {
			in.i++ // an empty line, or the LF of a CRLF
			continue
		}
		if k < 0 {
			b.text(chunk)
			in.i = in.n
			continue
		}
		b.text(chunk[:k])
		in.i += k + 1
		if err := b.endLine(); err != nil {
			return err
		}
		b.startLine()
	}
}

// lineEnd returns the index of the first '\n' or '\r' in s, or -1.
func lineEnd(s []byte) int {
	for i, c := range s {
		if c == '\n' || c == '\r' {
			return i
		}
	}
	return -1
}
