package warc

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/http/httpguts"
)

// maxMemBytes keeps gowarc's record buffers in memory when reading: the
// default (1 MiB) would spill larger ones to temporary files.
const maxMemBytes = 1 << 40

// CompressionLevel is the gzip level of the members a Writer makes:
// klauspost/compress's stateless level, whose match table (16 KiB) is on
// the stack of each member's compression, where level 1 keeps one of 128
// KiB in the encoder. Alone, the two take the same time; in a crawl,
// where level 1's table is out of the cache by the next member, the
// stateless level takes less CPU a page, for files within 2% of the size
// on the pages measured (docs/design/write-path.md has the figures). The archive is written
// once per page by the crawl, and read rarely. The stateless level
// compresses each Write on its own, so member gives it a record in one.
const CompressionLevel = gzip.StatelessCompression

// wholeMax is the largest record member writes as one Write of its parts
// joined; a larger one (a PDF, say) is written a part at a time, its
// body in blocks of 32 KiB anyway, so that the join does not copy it.
const wholeMax = 256 << 10

// newRecordID returns a fresh WARC-Record-ID value, a random (version 4)
// UUID URN without angle brackets.
func newRecordID() string {
	var u [16]byte
	rand.Read(u[:]) // never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	b := make([]byte, 0, 45)
	b = append(b, "urn:uuid:"...)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	return string(b)
}

const hexDigits = "0123456789abcdef"

// An encoder turns records into gzip members. Encoders are few (see
// encoders) because a gzip writer and the buffers are large.
type encoder struct {
	buf     bytes.Buffer // the members
	gz      *gzip.Writer
	head    bytes.Buffer // HTTP message head being built
	fields  []byte       // WARC header being built
	infoID  string       // WARC-Warcinfo-ID the members refer to
	respOff int          // offset of the response member in buf
	whole   []byte       // a record's parts joined (member)
}

func newEncoder() *encoder {
	gz, _ := gzip.NewWriterLevel(nil, CompressionLevel)
	return &encoder{gz: gz}
}

// encoders holds the encoders of this process, at most GOMAXPROCS: more
// compressions at once than threads running Go gain nothing, and each
// encoder holds a gzip writer and buffers as large as its largest
// exchange (up to maxPooledBuffer), so 64 crawl workers no longer hold 64
// of them. A slot holds nil until its encoder is first needed.
var encoders = func() chan *encoder {
	n := runtime.GOMAXPROCS(0)
	c := make(chan *encoder, n)
	for range n {
		c <- nil
	}
	return c
}()

// maxPooledBuffer is the largest buffer an encoder keeps, so that one
// large PDF does not pin its size in memory.
const maxPooledBuffer = 1 << 20

// getEncoder waits for a free encoder slot and returns its encoder.
func getEncoder() *encoder {
	e := <-encoders
	if e == nil {
		e = newEncoder()
	}
	return e
}

// putEncoder gives the slot back, dropping buffers grown too large.
func putEncoder(e *encoder) {
	if e.buf.Cap() > maxPooledBuffer {
		e.buf = bytes.Buffer{}
	}
	if e.head.Cap() > maxPooledBuffer {
		e.head = bytes.Buffer{}
	}
	if cap(e.fields) > maxPooledBuffer {
		e.fields = nil
	}
	encoders <- e
}

// exchange encodes x as a request member followed by a response member,
// both referring to the warcinfo record infoID.
func (e *encoder) exchange(x *Exchange, infoID string) error {
	e.buf.Reset()
	e.infoID = infoID
	c, err := checkExchange(x)
	if err != nil {
		return err
	}
	reqID, respID := newRecordID(), newRecordID()
	if err := e.record("request", reqID, respID, x, c, e.requestHead(x, c), nil); err != nil {
		return err
	}
	e.respOff = e.buf.Len()
	return e.record("response", respID, reqID, x, c, e.responseHead(x, c), x.Body)
}

// warcinfo encodes the warcinfo record, with record ID id, of the file
// called name.
func (e *encoder) warcinfo(id, name, software, hostname string, now time.Time) error {
	e.buf.Reset()
	date, err := warcDate(now.Truncate(time.Microsecond))
	if err != nil {
		return err
	}
	block := "software: " + oneLine(software) + "\r\n" +
		"format: WARC File Format 1.1\r\n" +
		"conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
	if hostname != "" {
		block += "hostname: " + oneLine(hostname) + "\r\n"
	}
	sum := sha256.Sum256([]byte(block))
	f := e.fields[:0]
	f = append(f, "WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <"...)
	f = append(f, id...)
	f = append(f, ">\r\nWARC-Date: "...)
	f = append(f, date...)
	f = append(f, "\r\nWARC-Filename: "...)
	f = append(f, oneLine(name)...)
	f = append(f, "\r\nContent-Type: application/warc-fields\r\nContent-Length: "...)
	f = strconv.AppendInt(f, int64(len(block)), 10)
	f = appendDigest(append(f, "\r\nWARC-Block-Digest: "...), sum[:])
	f = append(f, "\r\n\r\n"...)
	f = append(f, block...)
	f = append(f, "\r\n\r\n"...)
	e.fields = f
	return e.member(f)
}

// record appends a request or response record whose block is head and body
// as one gzip member. The WARC header is written here rather than by
// gowarc's record builder, which copied the block through buffers and
// validated what checkExchange has checked already: the fields and their
// order are those gowarc wrote, and the tests read every record back with
// gowarc's strict reader.
func (e *encoder) record(msgtype, id, otherID string, x *Exchange, c checked, head, body []byte) error {
	block := sha256.New()
	block.Write(head)
	block.Write(body)
	var blockSum, payloadSum [sha256.Size]byte
	block.Sum(blockSum[:0])
	payloadSum = sha256.Sum256(body)

	f := e.fields[:0]
	f = append(f, "WARC/1.1\r\nWARC-Type: "...)
	f = append(f, msgtype...)
	f = append(f, "\r\nWARC-Record-ID: <"...)
	f = append(f, id...)
	f = append(f, ">\r\nWARC-Target-URI: "...)
	f = append(f, x.URL...)
	f = append(f, "\r\nWARC-Date: "...)
	f = append(f, c.date...)
	if c.ip != "" {
		f = append(f, "\r\nWARC-IP-Address: "...)
		f = append(f, c.ip...)
	}
	f = append(f, "\r\nWARC-Warcinfo-ID: <"...)
	f = append(f, e.infoID...)
	f = append(f, '>')
	if msgtype == "response" && x.Truncated != "" {
		f = append(f, "\r\nWARC-Truncated: "...)
		f = append(f, x.Truncated...)
	}
	f = append(f, "\r\nContent-Type: application/http;msgtype="...)
	f = append(f, msgtype...)
	f = append(f, "\r\nContent-Length: "...)
	f = strconv.AppendInt(f, int64(len(head)+len(body)), 10)
	f = appendDigest(append(f, "\r\nWARC-Block-Digest: "...), blockSum[:])
	f = appendDigest(append(f, "\r\nWARC-Payload-Digest: "...), payloadSum[:])
	f = append(f, "\r\nWARC-Concurrent-To: <"...)
	f = append(f, otherID...)
	f = append(f, ">\r\n\r\n"...)
	f = append(f, head...)
	e.fields = f
	return e.member(f, body, []byte("\r\n\r\n"))
}

// appendDigest appends a digest field value for sum.
func appendDigest(f, sum []byte) []byte {
	f = append(f, DigestAlgorithm...)
	f = append(f, ':')
	for _, c := range sum {
		f = append(f, hexDigits[c>>4], hexDigits[c&15])
	}
	return f
}

// warcDate formats t as a WARC-Date of WARC 1.1 (RFC 3339, UTC, with the
// fraction of a second), refusing years RFC 3339 cannot write.
func warcDate(t time.Time) (string, error) {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return "", fmt.Errorf("WARC-Date in year %d", y)
	}
	return t.Format(time.RFC3339Nano), nil
}

// member appends parts to buf as one gzip member, in one Write when
// they are at most wholeMax bytes in all (CompressionLevel).
func (e *encoder) member(parts ...[]byte) error {
	e.gz.Reset(&e.buf)
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n <= wholeMax {
		e.whole = e.whole[:0]
		for _, p := range parts {
			e.whole = append(e.whole, p...)
		}
		parts = [][]byte{e.whole}
	}
	for _, p := range parts {
		if _, err := e.gz.Write(p); err != nil {
			return err
		}
	}
	return e.gz.Close()
}

// checked holds what checkExchange derived from an Exchange.
type checked struct {
	u      *url.URL
	method string
	proto  string
	ip     string
	time   time.Time
	date   string // time as WARC-Date
}

// checkExchange rejects what would make a malformed record and fills in
// defaults.
func checkExchange(x *Exchange) (checked, error) {
	var c checked
	for i := 0; i < len(x.URL); i++ {
		if b := x.URL[i]; b <= ' ' || b == 0x7f {
			return c, fmt.Errorf("URL has byte %#x at %d", b, i)
		}
	}
	u, err := url.Parse(x.URL)
	if err != nil {
		return c, err
	}
	if !u.IsAbs() || u.Host == "" {
		return c, fmt.Errorf("URL %q is not absolute", x.URL)
	}
	c.u = u
	c.method = x.Method
	if c.method == "" {
		c.method = http.MethodGet
	}
	if !httpguts.ValidHeaderFieldName(c.method) {
		return c, fmt.Errorf("invalid method %q", x.Method)
	}
	if x.Status < 100 || x.Status > 999 {
		return c, fmt.Errorf("invalid status %d", x.Status)
	}
	if !truncationReasons[x.Truncated] {
		return c, fmt.Errorf("invalid truncation reason %q", x.Truncated)
	}
	c.proto = "HTTP/1.1"
	if _, _, ok := http.ParseHTTPVersion(x.Proto); ok {
		c.proto = x.Proto
	}
	c.ip = parseIP(x.IP)
	c.time = x.Time
	if c.time.IsZero() {
		c.time = time.Now()
	}
	c.time = c.time.Truncate(time.Microsecond)
	if c.date, err = warcDate(c.time); err != nil {
		return c, err
	}
	return c, nil
}

// parseIP returns the address in s ("192.0.2.1", "[2001:db8::1]:443", ...)
// without zone, or "" if there is none.
func parseIP(s string) string {
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return ""
		}
		a = ap.Addr()
	}
	return a.WithZone("").String()
}

// requestHead returns the request line and headers of x, ending with the
// empty line, in e.head until the next call.
func (e *encoder) requestHead(x *Exchange, c checked) []byte {
	e.head.Reset()
	h := e.head.AvailableBuffer()
	h = append(h, c.method...)
	h = append(h, ' ')
	h = append(h, c.u.RequestURI()...)
	h = append(h, ' ')
	h = append(h, c.proto...)
	h = append(h, "\r\nHost: "...)
	host := x.ReqHeader.Get("Host")
	if host == "" {
		host = c.u.Host
	}
	h = append(h, oneLine(host)...)
	h = append(h, "\r\n"...)
	e.head.Write(h)
	writeHeader(&e.head, x.ReqHeader, "Host")
	e.head.WriteString("\r\n")
	return e.head.Bytes()
}

// responseHead returns the status line and headers of x, ending with the
// empty line, rewritten as the package doc says, in e.head until the next
// call.
func (e *encoder) responseHead(x *Exchange, c checked) []byte {
	e.head.Reset()
	e.head.WriteString(c.proto)
	e.head.WriteByte(' ')
	e.head.WriteString(strconv.Itoa(x.Status))
	e.head.WriteByte(' ')
	e.head.WriteString(http.StatusText(x.Status))
	e.head.WriteString("\r\n")
	h := make(http.Header, len(x.RespHeader)+2)
	for k, v := range x.RespHeader {
		h[http.CanonicalHeaderKey(k)] = v
	}
	if x.Decoded {
		if ce := h.Values("Content-Encoding"); len(ce) > 0 {
			h[HeaderOriginalContentEncoding] = []string{strings.Join(ce, ", ")}
		}
		delete(h, "Content-Encoding")
	}
	if cl := h.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(x.Body)) {
		h[HeaderOriginalContentLength] = []string{cl}
	}
	delete(h, "Transfer-Encoding")
	h["Content-Length"] = []string{strconv.Itoa(len(x.Body))}
	writeHeader(&e.head, h, "")
	e.head.WriteString("\r\n")
	return e.head.Bytes()
}

// writeHeader writes h in wire format, sorted by name, leaving out skip and
// names that are not HTTP tokens. Control bytes in values become spaces, so
// that net/http reads every line back.
func writeHeader(buf *bytes.Buffer, h http.Header, skip string) {
	keys := make([]string, 0, len(h))
	for k := range h {
		if httpguts.ValidHeaderFieldName(k) && !strings.EqualFold(k, skip) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			buf.WriteString(k)
			buf.WriteString(": ")
			buf.WriteString(oneLine(v))
			buf.WriteString("\r\n")
		}
	}
}

// oneLine returns s trimmed, with control bytes other than tab replaced by
// spaces.
func oneLine(s string) string {
	s = strings.Trim(s, " \t")
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < ' ' && b != '\t') || b == 0x7f {
			out := []byte(s)
			for j := i; j < len(out); j++ {
				if b := out[j]; (b < ' ' && b != '\t') || b == 0x7f {
					out[j] = ' '
				}
			}
			return strings.Trim(string(out), " \t")
		}
	}
	return s
}
