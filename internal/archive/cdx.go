package archive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxURLLen is the longest capture URL delivered, in bytes; captures of
// longer URLs are skipped.
const MaxURLLen = 4096

// maxValue bounds the bytes kept of one value of a CDX row or one text line;
// a longer value is not kept (its row is skipped, or its resume key refused).
const maxValue = 16 << 10

// maxValues bounds the values kept of one row; more are read and dropped.
const maxValues = 16

// ErrMalformed: the CDX server's answer could not be read: it is neither the
// JSON nor the text CDX format, it is cut short, or a row has a bad timestamp
// or too few fields.
var ErrMalformed = errors.New("archive: malformed CDX answer")

// errStop stops parseCDX without an error: the caller has what it wants.
var errStop = errors.New("archive: stop")

// fieldIndex locates the fields a Capture is made of in a CDX row; -1: absent.
type fieldIndex struct {
	original, timestamp, statuscode, mimetype int
}

// requested is the field order asked for with fl=.
var requested = fieldIndex{original: 0, timestamp: 1, statuscode: 2, mimetype: 3}

// classic is the order of the default CDX fields: urlkey timestamp original
// mimetype statuscode digest length.
var classic = fieldIndex{original: 2, timestamp: 1, statuscode: 4, mimetype: 3}

// parseCDX reads one answer of a CDX server, in the JSON output format (an
// array of string arrays, the first of them naming the fields) or the plain
// text one (fields separated by spaces or tabs, four in the order requested
// or the seven default ones), and calls fn for each capture. Both formats may end
// with a blank row and a resume key, which parseCDX returns. fn's error is
// returned as it is; errors in the answer wrap ErrMalformed; read errors are
// returned as they are. Empty input is an answer without captures.
func parseCDX(r io.Reader, fn func(Capture) error) (resumeKey string, err error) {
	p := &cdxParser{r: bufio.NewReaderSize(r, 64<<10), fn: fn}
	_, err = p.skipSpace()
	if err == io.EOF {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if err := p.r.UnreadByte(); err != nil {
		return "", err
	}
	if p.isJSON() {
		p.r.ReadByte()
		return p.json()
	}
	// In the text format, a line end in the leading white space is a blank
	// line, which a resume key follows ("\nKEY\n": no captures, a key).
	return p.text(p.lineEnd)
}

// isJSON reports whether the answer, from its first byte that is not white
// space, is JSON: '[' then '[' or ']' (a text line may start with '[', as the
// URL key of an IPv6 host does).
func (p *cdxParser) isJSON() bool {
	head, _ := p.r.Peek(64)
	if len(head) == 0 || head[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(head[1:], " \t\r\n")
	return len(rest) == 0 || rest[0] == '[' || rest[0] == ']'
}

// cdxParser holds the state of parseCDX.
type cdxParser struct {
	r    *bufio.Reader
	fn   func(Capture) error
	row  int // rows read, for messages
	vals [][]byte
	long bool // a value of the row did not fit in maxValue bytes
	// lineEnd says skipSpace has passed a line end.
	lineEnd bool
	buf     []byte
}

// malformed returns an ErrMalformed error about the current row.
func (p *cdxParser) malformed(format string, args ...any) error {
	return fmt.Errorf("%w: row %d: %s", ErrMalformed, p.row+1, fmt.Sprintf(format, args...))
}

// eof turns the end of the input inside the answer into an ErrMalformed
// error, and leaves other errors as they are.
func (p *cdxParser) eof(err error) error {
	if err == io.EOF {
		return p.malformed("unexpected end of answer")
	}
	return err
}

// skipSpace consumes JSON white space and returns the byte after it.
func (p *cdxParser) skipSpace() (byte, error) {
	for {
		c, err := p.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, nil
		}
		p.lineEnd = p.lineEnd || c == '\n'
	}
}

// json reads the JSON format after its opening '['.
func (p *cdxParser) json() (string, error) {
	c, err := p.skipSpace()
	if err != nil {
		return "", p.eof(err)
	}
	if c == ']' {
		return "", nil
	}
	var idx fieldIndex
	var key []byte
	blank, haveKey := false, false
	for ; ; p.row++ {
		if c != '[' {
			return "", p.malformed("want [, found %q", c)
		}
		if err := p.jsonRow(); err != nil {
			return "", err
		}
		switch {
		case p.row == 0:
			if idx, err = p.header(); err != nil {
				return "", err
			}
		case haveKey:
			return "", p.malformed("a row after the resume key")
		case len(p.vals) == 0:
			blank = true
		case blank:
			if len(p.vals) != 1 || p.long {
				return "", p.malformed("a resume key must be one value")
			}
			key, haveKey = append(key, p.vals[0]...), true
		default:
			if err := p.deliver(idx); err != nil {
				return "", err
			}
		}
		if c, err = p.skipSpace(); err != nil {
			return "", p.eof(err)
		}
		if c == ']' {
			return string(key), nil
		}
		if c != ',' {
			return "", p.malformed("want , or ], found %q", c)
		}
		if c, err = p.skipSpace(); err != nil {
			return "", p.eof(err)
		}
	}
}

// header reads the field names of the JSON header row.
func (p *cdxParser) header() (fieldIndex, error) {
	idx := fieldIndex{-1, -1, -1, -1}
	for i, v := range p.vals {
		switch string(v) {
		case "original":
			idx.original = i
		case "timestamp":
			idx.timestamp = i
		case "statuscode":
			idx.statuscode = i
		case "mimetype":
			idx.mimetype = i
		}
	}
	if idx.original < 0 || idx.timestamp < 0 {
		return idx, p.malformed("the header names no original and timestamp fields")
	}
	return idx, nil
}

// jsonRow reads an array of strings after its '[' into p.vals.
func (p *cdxParser) jsonRow() error {
	p.startRow()
	c, err := p.skipSpace()
	if err != nil {
		return p.eof(err)
	}
	if c == ']' {
		return nil
	}
	for {
		if c != '"' {
			return p.malformed("want a string, found %q", c)
		}
		if err := p.jsonString(); err != nil {
			return err
		}
		if c, err = p.skipSpace(); err != nil {
			return p.eof(err)
		}
		if c == ']' {
			return nil
		}
		if c != ',' {
			return p.malformed("want , or ] in a row, found %q", c)
		}
		if c, err = p.skipSpace(); err != nil {
			return p.eof(err)
		}
	}
}

// jsonString reads a string after its opening quote as the next value of
// the row.
func (p *cdxParser) jsonString() error {
	start := len(p.buf)
	for {
		// Fast path: the plain bytes already buffered.
		buf, _ := p.r.Peek(p.r.Buffered())
		k := 0
		for k < len(buf) && buf[k] != '"' && buf[k] != '\\' && buf[k] >= 0x20 {
			k++
		}
		if room := maxValue - (len(p.buf) - start); k > room {
			p.buf = append(p.buf, buf[:room]...)
			p.long = true
		} else {
			p.buf = append(p.buf, buf[:k]...)
		}
		p.r.Discard(k)

		c, err := p.r.ReadByte()
		if err != nil {
			return p.eof(err)
		}
		switch {
		case c == '"':
			p.endValue(start)
			return nil
		case c < 0x20:
			return p.malformed("control character in a string")
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return err
			}
			if len(p.buf)-start+utf8.UTFMax <= maxValue {
				p.buf = utf8.AppendRune(p.buf, r)
			} else {
				p.long = true
			}
		case len(p.buf)-start < maxValue:
			p.buf = append(p.buf, c)
		default:
			p.long = true
		}
	}
}

// escape reads a JSON escape sequence after its backslash.
func (p *cdxParser) escape() (rune, error) {
	c, err := p.r.ReadByte()
	if err != nil {
		return 0, p.eof(err)
	}
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := p.hex4()
		if err != nil || !utf16.IsSurrogate(r) {
			return r, err
		}
		// A surrogate pair is two escapes, a high surrogate then a low one;
		// a lone surrogate is U+FFFD, and the escape after it, if it is not
		// the pair's low half, is read on its own.
		if r >= 0xdc00 {
			return utf8.RuneError, nil
		}
		next, _ := p.r.Peek(6)
		if len(next) < 6 || next[0] != '\\' || next[1] != 'u' {
			return utf8.RuneError, nil
		}
		r2 := rune(0)
		for _, c := range next[2:] {
			d, ok := hexDigit(c)
			if !ok {
				return utf8.RuneError, nil
			}
			r2 = r2<<4 | rune(d)
		}
		if r2 < 0xdc00 || r2 > 0xdfff {
			return utf8.RuneError, nil
		}
		p.r.Discard(6)
		return utf16.DecodeRune(r, r2), nil
	}
	return 0, p.malformed("invalid escape \\%c", c)
}

// hex4 reads the four hex digits of a \u escape.
func (p *cdxParser) hex4() (rune, error) {
	var r rune
	for range 4 {
		c, err := p.r.ReadByte()
		if err != nil {
			return 0, p.eof(err)
		}
		d, ok := hexDigit(c)
		if !ok {
			return 0, p.malformed("invalid \\u escape")
		}
		r = r<<4 | rune(d)
	}
	return r, nil
}

// hexDigit returns the value of a hex digit.
func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// startRow empties p.vals.
func (p *cdxParser) startRow() {
	p.vals = p.vals[:0]
	p.buf = p.buf[:0]
	p.long = false
}

// endValue adds p.buf[start:] to the row's values, keeping at most
// maxValues. The values alias p.buf: when it grows, they stay in the old
// array, which nothing writes again.
func (p *cdxParser) endValue(start int) {
	if len(p.vals) < maxValues {
		p.vals = append(p.vals, p.buf[start:])
	} else {
		p.buf = p.buf[:start]
	}
}

// text reads the plain-text format; blank says a blank line came before
// its first line.
func (p *cdxParser) text(blank bool) (string, error) {
	var key []byte
	haveKey := false
	for ; ; p.row++ {
		line, err := p.line()
		if err == io.EOF && line == nil {
			return string(key), nil
		}
		if err != nil && err != io.EOF {
			return "", err
		}
		p.fields(line)
		switch {
		case len(p.vals) == 0:
			blank = true
		case haveKey:
			return "", p.malformed("a line after the resume key")
		case blank && len(p.vals) == 1:
			if p.long {
				return "", p.malformed("resume key too long")
			}
			key, haveKey = append(key, p.vals[0]...), true
		case len(p.vals) == 4:
			err = p.deliver(requested)
		case len(p.vals) >= 7:
			err = p.deliver(classic)
		default:
			return "", p.malformed("%d fields, want 4 or at least 7", len(p.vals))
		}
		if err != nil {
			return "", err
		}
	}
}

// line returns the next line without its line end; nil at the end of the
// input. The line is valid until the next read.
func (p *cdxParser) line() ([]byte, error) {
	line, err := p.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, p.malformed("line longer than %d bytes", p.r.Size())
	}
	if err == io.EOF && len(line) == 0 {
		return nil, io.EOF
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// fields splits a text line at spaces and tabs into p.vals.
func (p *cdxParser) fields(line []byte) {
	p.vals = p.vals[:0]
	p.long = false
	for len(line) > 0 {
		i := bytes.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		f := line[:i]
		line = line[min(i+1, len(line)):]
		if len(f) == 0 {
			continue
		}
		if len(f) > maxValue {
			p.long = true
		}
		if len(p.vals) < maxValues {
			p.vals = append(p.vals, f)
		}
	}
}

// deliver makes a capture of the row in p.vals and passes it to fn. A row
// whose URL is empty or too long is skipped.
func (p *cdxParser) deliver(idx fieldIndex) error {
	val := func(i int) ([]byte, bool) {
		if i < 0 {
			return nil, true
		}
		if i >= len(p.vals) {
			return nil, false
		}
		return p.vals[i], true
	}
	u, ok1 := val(idx.original)
	ts, ok2 := val(idx.timestamp)
	status, ok3 := val(idx.statuscode)
	mime, ok4 := val(idx.mimetype)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return p.malformed("%d fields, fewer than the header names", len(p.vals))
	}
	t, ok := parseTimestamp(ts)
	if !ok {
		return p.malformed("bad timestamp %.40q", ts)
	}
	if p.long || len(u) == 0 || len(u) > MaxURLLen {
		return nil
	}
	c := Capture{URL: string(u), Time: t, Status: parseStatus(status)}
	if len(mime) > 0 && string(mime) != "-" {
		c.MIME = string(mime)
	}
	return p.fn(c)
}

// parseTimestamp reads a CDX timestamp, yyyyMMddhhmmss in UTC. Like the
// Wayback Machine, it accepts a prefix of at least the year: the rest is the
// start of its period.
func parseTimestamp(ts []byte) (time.Time, bool) {
	if len(ts) < 4 || len(ts) > 14 {
		return time.Time{}, false
	}
	var v [6]int // year, month, day, hour, minute, second
	v[1], v[2] = 1, 1
	for i := 0; i < len(ts); i++ {
		c := ts[i]
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range ts[from:min(to, len(ts))] {
			n = n*10 + int(c-'0')
		}
		return n
	}
	v[0] = num(0, 4)
	for i, at := 1, 4; at < len(ts); i, at = i+1, at+2 {
		if at+2 > len(ts) {
			return time.Time{}, false // an odd number of digits
		}
		v[i] = num(at, at+2)
	}
	if v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > daysIn(v[0], v[1]) || v[3] > 23 || v[4] > 59 || v[5] > 59 {
		return time.Time{}, false
	}
	return time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], 0, time.UTC), true
}

// daysIn returns the number of days in a month.
func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseStatus reads an HTTP status code; anything but three digits ("-" for
// revisit records, for instance) is 0.
func parseStatus(s []byte) int {
	if len(s) != 3 {
		return 0
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}
