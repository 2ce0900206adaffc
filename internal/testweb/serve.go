package testweb

import (
	"bytes"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// ServeHTTP serves the web. A request in proxy form (absolute URI, as sent
// by a client whose Transport.Proxy points here) names its host in the URL;
// any other request names it in the Host header, whose port is ignored.
// Unknown hosts get 502 Bad Gateway in proxy mode (as a proxy whose DNS
// lookup failed) and, in origin mode, a 404 page listing the known sites.
// CONNECT is refused with 405: the web is plain HTTP only.
func (w *Web) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	proxy := r.URL.IsAbs()
	hostport := r.Host
	if proxy {
		hostport = r.URL.Host
	}
	host, port := splitHostPort(hostport)
	target := requestTarget(r, proxy)
	gen, idx := w.logBegin(Request{
		Time: time.Now(), Host: host, Path: target, Method: r.Method,
		UserAgent: r.UserAgent(), Proxy: proxy,
	})
	lw := &logWriter{ResponseWriter: rw, w: w, gen: gen, idx: idx}
	defer lw.done()

	if r.Method == http.MethodConnect {
		lw.Header().Set("Allow", "GET, HEAD")
		http.Error(lw, "CONNECT is not supported: the test web is plain HTTP", http.StatusMethodNotAllowed)
		return
	}
	s := w.byHost[host]
	if proxy && (s == nil || r.URL.Scheme != "http" || port != "" && port != "80") {
		http.Error(lw, "testweb proxy: cannot reach "+hostport+": no such host", http.StatusBadGateway)
		return
	}
	if s == nil {
		w.serveUnknownHost(lw, r, hostport)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		lw.Header().Set("Allow", "GET, HEAD")
		http.Error(lw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.mu.RLock()
	p, _ := s.resolve(cleanPath(r.URL.Path), r.URL.RawQuery)
	w.mu.RUnlock()
	if p == nil {
		p = &page{key: cleanPath(r.URL.Path), kind: "fault", status: http.StatusNotFound, title: "Page not found", render: renderStatus}
	}
	w.servePage(lw, r, s, p)
}

// requestTarget is the path and query as the client sent them (the
// authority for CONNECT).
func requestTarget(r *http.Request, proxy bool) string {
	t := r.RequestURI
	if t == "" { // a request built in process, not read from a connection
		return r.URL.RequestURI()
	}
	if proxy {
		if i := strings.Index(t, "://"); i >= 0 {
			t = t[i+3:]
			if j := strings.IndexAny(t, "/?"); j >= 0 {
				t = t[j:]
			} else {
				t = "/"
			}
		}
		if t[0] == '?' {
			t = "/" + t
		}
	}
	return t
}

// splitHostPort lower-cases the host and splits off a port, if any.
func splitHostPort(hostport string) (host, port string) {
	host = strings.ToLower(hostport)
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		host, port = host[:i], host[i+1:]
	}
	host = strings.TrimSuffix(host, ".")
	return host, port
}

// servePage writes p: special handlers serve themselves; generated pages
// get an ETag, a Last-Modified and conditional and range handling.
// Removed pages answer their 404 or 410 page.
func (w *Web) servePage(rw http.ResponseWriter, r *http.Request, s *site, p *page) {
	w.mu.RLock()
	if p.dead() {
		p = p.tomb
	}
	if p.serve != nil {
		w.mu.RUnlock()
		p.serve(w, s, p, rw, r)
		return
	}
	buf := w.getBuf()
	defer w.putBuf(buf)
	d := doc{w: w, s: s, p: p, b: buf, r: seedFor(w.seed, p.textHost(s), p.key, p.version)}
	h := rw.Header()
	if s.session {
		d.sid = w.newSessionID()
		h.Set("Set-Cookie", "JSESSIONID="+d.sid+"; Path=/; HttpOnly")
	}
	p.render(&d)
	mod := s.lastModified(p)
	w.mu.RUnlock()
	body := buf.Bytes()
	if p.charset != "" && p.ctype == "" {
		enc := w.getBuf()
		defer w.putBuf(enc)
		encodeCharset(enc, body, p.charset)
		body = enc.Bytes()
	}
	ctype := p.contentType()
	if p.xRobots != "" {
		h.Set("X-Robots-Tag", p.xRobots)
	}
	if p.status != http.StatusOK {
		h.Set("Content-Type", ctype)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		rw.WriteHeader(p.status)
		if r.Method != http.MethodHead {
			rw.Write(body)
		}
		return
	}
	serveContent(rw, r, ctype, etag(body), mod, body)
}

// serveContent writes a 200 response with validators, or 304 when the
// request's If-None-Match or (without it) If-Modified-Since says the client
// has it. Range requests get the whole body, as servers may answer.
func serveContent(rw http.ResponseWriter, r *http.Request, ctype, tag string, mod time.Time, body []byte) {
	h := rw.Header()
	h.Set("ETag", tag)
	h.Set("Last-Modified", mod.UTC().Format(http.TimeFormat))
	if notModified(r, tag, mod) {
		rw.WriteHeader(http.StatusNotModified)
		return
	}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rw.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		rw.Write(body)
	}
}

// notModified evaluates If-None-Match (weak comparison) and, when it is
// absent, If-Modified-Since, for GET and HEAD.
func notModified(r *http.Request, tag string, mod time.Time) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == tag {
				return true
			}
		}
		return false
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !mod.Truncate(time.Second).After(t)
}

// etag is a strong validator of a body: its CRC-32 and length.
func etag(body []byte) string {
	var b [32]byte
	e := append(b[:0], '"')
	e = strconv.AppendUint(e, uint64(crc32.ChecksumIEEE(body)), 16)
	e = append(e, '-')
	e = strconv.AppendInt(e, int64(len(body)), 16)
	e = append(e, '"')
	return string(e)
}

// encodeCharset writes the UTF-8 body in a single-byte charset; runes the
// charset lacks become numeric character references, as browsers do.
func encodeCharset(dst *bytes.Buffer, body []byte, charset string) {
	cm := charmap.Windows1254
	if charset == "iso-8859-9" {
		cm = charmap.ISO8859_9
	}
	for len(body) > 0 {
		c := body[0]
		if c < utf8.RuneSelf {
			dst.WriteByte(c)
			body = body[1:]
			continue
		}
		r, n := utf8.DecodeRune(body)
		body = body[n:]
		if b, ok := cm.EncodeRune(r); ok {
			dst.WriteByte(b)
			continue
		}
		dst.WriteString("&#")
		dst.WriteString(strconv.Itoa(int(r)))
		dst.WriteByte(';')
	}
}

func (w *Web) getBuf() *bytes.Buffer {
	if b, ok := w.bufs.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return bytes.NewBuffer(make([]byte, 0, 32<<10))
}

func (w *Web) putBuf(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		w.bufs.Put(b)
	}
}

// newSessionID returns a new session id for each call.
func (w *Web) newSessionID() string {
	n := w.session.Add(1)
	return strings.ToUpper(strconv.FormatUint(mix(w.seed^n*0x9e3779b97f4a7c15)|1<<63, 16))
}

// serveUnknownHost answers origin-mode requests for hosts the web does not
// have, listing the sites that exist.
func (w *Web) serveUnknownHost(rw http.ResponseWriter, r *http.Request, hostport string) {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>acrawler test web</title></head>\n<body>\n<h1>acrawler test web</h1>\n<p>No site is called ")
	writeEsc(&b, hostport)
	b.WriteString(". This server serves the sites below by Host header. To browse them, set this server as your HTTP proxy (for example <code>http_proxy=http://")
	writeEsc(&b, r.Host)
	b.WriteString("</code>) and open a link.</p>\n<ul>\n")
	for _, s := range w.sortedHosts() {
		b.WriteString("<li><a href=\"")
		writeEsc(&b, s.origin)
		b.WriteString("/\">")
		writeEsc(&b, s.host)
		b.WriteString("</a> – ")
		writeEsc(&b, s.kind)
		b.WriteString(": ")
		writeEsc(&b, s.notes)
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul>\n</body></html>\n")
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	rw.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		rw.Write(b.Bytes())
	}
}

// logWriter records the status and body size of a response in the
// request log as they are written, so that the log is up to date by the
// time the client has the response.
type logWriter struct {
	http.ResponseWriter
	w        *Web
	gen, idx int
	code     int
	n        int64
}

func (l *logWriter) WriteHeader(code int) {
	if l.code == 0 && code >= 200 {
		l.code = code
		l.w.logSet(l.gen, l.idx, l.code, l.n)
	}
	l.ResponseWriter.WriteHeader(code)
}

func (l *logWriter) Write(p []byte) (int, error) {
	if l.code == 0 {
		l.code = http.StatusOK
	}
	l.w.logSet(l.gen, l.idx, l.code, l.n+int64(len(p)))
	n, err := l.ResponseWriter.Write(p)
	l.n += int64(n)
	if n < len(p) {
		l.w.logSet(l.gen, l.idx, l.code, l.n)
	}
	return n, err
}

// done records a response that wrote nothing (an implicit 200).
func (l *logWriter) done() {
	if l.code == 0 {
		l.code = http.StatusOK
		l.w.logSet(l.gen, l.idx, l.code, l.n)
	}
}

// Flush lets streaming handlers (drip) flush through the wrapper.
func (l *logWriter) Flush() {
	if f, ok := l.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController access to the underlying writer.
func (l *logWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// serveRedirect answers with p.status and Location p.loc.
func serveRedirect(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Location", p.loc)
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		rw.Write([]byte("<!DOCTYPE html><title>Moved</title><p>This page has moved to <a href=\"" + p.loc + "\">" + p.loc + "</a>.</p>\n"))
	}
}
