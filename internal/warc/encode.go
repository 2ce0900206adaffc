package warc

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v3"
	"golang.org/x/net/http/httpguts"
)

// maxMemBytes keeps gowarc's record buffers in memory: the body is in memory
// already, and the default (1 MiB) would spill larger ones to temporary
// files.
const maxMemBytes = 1 << 40

// recordOptions are the gowarc options of every record built here: digests
// computed and added. Build's validation findings are not errors: the input
// is checked before, and the tests read the files back strictly.
var recordOptions = []gowarc.WarcRecordOption{
	gowarc.WithDefaultDigestAlgorithm(DigestAlgorithm),
	gowarc.WithAddMissingDigest(true),
	gowarc.WithBufferMaxMemBytes(maxMemBytes),
}

var marshaler = gowarc.NewMarshaler()

// gowarcMu serializes gowarc.NewRecordBuilder and gowarc.NewUnmarshaler:
// both call uuid.EnableRandPool, which writes a global without
// synchronization (a data race between concurrent writers otherwise). For
// the same reason record IDs are made here rather than by gowarc.
var gowarcMu sync.Mutex

// newBuilder is gowarc.NewRecordBuilder with recordOptions, and with a
// record ID unless id is given.
func newBuilder(typ gowarc.RecordType, id string) gowarc.WarcRecordBuilder {
	gowarcMu.Lock()
	b := gowarc.NewRecordBuilder(typ, recordOptions...)
	gowarcMu.Unlock()
	if id == "" {
		id = newRecordID()
	}
	b.AddWarcHeader(gowarc.WarcRecordID, "<"+id+">")
	return b
}

// newRecordID returns a fresh WARC-Record-ID value, a random (version 4)
// UUID URN without angle brackets.
func newRecordID() string {
	var u [16]byte
	rand.Read(u[:]) // never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", u[:4], u[4:6], u[6:8], u[8:10], u[10:])
}

// An encoder turns records into gzip members. It is reused through
// encoderPool because a gzip writer is large.
type encoder struct {
	buf     bytes.Buffer // the members
	gz      *gzip.Writer
	head    bytes.Buffer // HTTP message head being built
	infoID  string       // WARC-Warcinfo-ID the members refer to
	respOff int          // offset of the response member in buf
}

var encoderPool = sync.Pool{New: func() any {
	gz, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return &encoder{gz: gz}
}}

// maxPooledBuffer is the largest buffer an encoder keeps in the pool, so
// that one large PDF does not pin its size in memory.
const maxPooledBuffer = 1 << 20

func getEncoder() *encoder { return encoderPool.Get().(*encoder) }

func putEncoder(e *encoder) {
	if e.buf.Cap() > maxPooledBuffer || e.head.Cap() > maxPooledBuffer {
		return
	}
	encoderPool.Put(e)
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
	req, err := e.build(gowarc.Request, x, c, e.requestHead(x, c), nil)
	if err != nil {
		return err
	}
	defer req.Close()
	resp, err := e.build(gowarc.Response, x, c, e.responseHead(x, c), x.Body)
	if err != nil {
		return err
	}
	defer resp.Close()
	req.WarcHeader().AddId(gowarc.WarcConcurrentTo, resp.RecordId())
	resp.WarcHeader().AddId(gowarc.WarcConcurrentTo, req.RecordId())
	if err := e.member(req); err != nil {
		return err
	}
	e.respOff = e.buf.Len()
	return e.member(resp)
}

// warcinfo encodes the warcinfo record, with record ID id, of the file
// called name.
func (e *encoder) warcinfo(id, name, software, hostname string, now time.Time) error {
	e.buf.Reset()
	b := newBuilder(gowarc.Warcinfo, id)
	b.AddWarcHeaderTime(gowarc.WarcDate, now.Truncate(time.Microsecond))
	b.AddWarcHeader(gowarc.WarcFilename, name)
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	fields := []string{
		"software: " + oneLine(software),
		"format: WARC File Format 1.1",
		"conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
	}
	if hostname != "" {
		fields = append(fields, "hostname: "+oneLine(hostname))
	}
	b.WriteString(strings.Join(fields, "\r\n") + "\r\n")
	r, _, err := b.Build()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := checkFields(r); err != nil {
		return err
	}
	return e.member(r)
}

// member appends r to buf as one gzip member.
func (e *encoder) member(r gowarc.WarcRecord) error {
	e.gz.Reset(&e.buf)
	if _, _, err := marshaler.Marshal(e.gz, r, 0); err != nil {
		return err
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

// build makes a request or response record whose block is head and body.
func (e *encoder) build(typ gowarc.RecordType, x *Exchange, c checked, head, body []byte) (gowarc.WarcRecord, error) {
	b := newBuilder(typ, "")
	b.AddWarcHeader(gowarc.WarcTargetURI, x.URL)
	b.AddWarcHeaderTime(gowarc.WarcDate, c.time)
	if c.ip != "" {
		b.AddWarcHeader(gowarc.WarcIPAddress, c.ip)
	}
	b.AddWarcHeader(gowarc.WarcWarcinfoID, "<"+e.infoID+">")
	msgtype := "request"
	if typ == gowarc.Response {
		msgtype = "response"
		if x.Truncated != "" {
			b.AddWarcHeader(gowarc.WarcTruncated, x.Truncated)
		}
	}
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationHttp+";msgtype="+msgtype)
	b.Write(head)
	b.Write(body)
	r, _, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build %s record: %w", msgtype, err)
	}
	// Build's validation blanks the value of WARC-Target-URI when gowarc's
	// WHATWG URL parser rejects it, as it does valid RFC 3986 URIs such as
	// http://1.2.3.999/ or http://xn--a.example/: the URL checked above
	// is what the record is about, so put it back.
	r.WarcHeader().Set(gowarc.WarcTargetURI, x.URL)
	if err := checkFields(r); err != nil {
		r.Close()
		return nil, fmt.Errorf("build %s record: %w", msgtype, err)
	}
	return r, nil
}

// checkFields reports a WARC header field of r left empty, as Build's
// validation leaves a value it rejects (a WARC-Date past year 9999, ...):
// such a record would be written with the field blank.
func checkFields(r gowarc.WarcRecord) error {
	for _, f := range *r.WarcHeader() {
		if f.Value == "" {
			return fmt.Errorf("gowarc rejected the value of %s", f.Name)
		}
	}
	return nil
}

// requestHead returns the request line and headers of x, ending with the
// empty line.
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
	return bytes.Clone(e.head.Bytes())
}

// responseHead returns the status line and headers of x, ending with the
// empty line, rewritten as the package doc says.
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
	return bytes.Clone(e.head.Bytes())
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
