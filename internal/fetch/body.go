package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxRetryAfter caps Response.RetryAfter: a server asking for more is
// treated as asking for a day.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads a Retry-After value (RFC 9110 section 10.2.3):
// delta-seconds or an HTTP-date, relative to now. Absent, malformed and
// past values give 0; the result is capped at maxRetryAfter.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.Trim(v, " \t")
	if v == "" {
		return 0
	}
	if isDigits(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter // too many digits for int64 is also "very long"
		}
		return time.Duration(n) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	d := t.Sub(now)
	switch {
	case d <= 0:
		return 0
	case d > maxRetryAfter:
		return maxRetryAfter
	}
	return d
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// mediaType returns the lowercased type/subtype of a Content-Type value
// without parameters, or "" when the value holds no valid media type.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.Trim(ct, " \t")
	slash := strings.IndexByte(ct, '/')
	if slash <= 0 || slash == len(ct)-1 {
		return ""
	}
	lower := true
	for i := 0; i < len(ct); i++ {
		c := ct[i]
		if i == slash {
			continue
		}
		if !isTokenByte(c) {
			return ""
		}
		if 'A' <= c && c <= 'Z' {
			lower = false
		}
	}
	if lower {
		return ct
	}
	return strings.ToLower(ct)
}

// isTokenByte reports whether c may appear in an RFC 9110 token.
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// errTooLarge is returned by readBody when the decoded body exceeds its limit.
var errTooLarge = errors.New("body too large")

// errEncoding marks a Content-Encoding the client cannot decode.
type errEncoding string

func (e errEncoding) Error() string {
	return "unsupported content encoding " + strconv.Quote(string(e))
}

// decoder returns a reader of the decoded body for a Content-Encoding value
// and a function that releases it. It supports identity, gzip (and x-gzip,
// multi-member streams) and deflate (zlib-wrapped, or raw as some servers
// send it). An empty compressed body decodes to an empty body.
func decoder(encoding string, r io.Reader) (io.Reader, func(), error) {
	encoding = strings.ToLower(strings.Trim(encoding, " \t"))
	switch encoding {
	case "", "identity":
		return r, func() {}, nil
	case "gzip", "x-gzip":
		d := gzipPool.Get().(*gzipDecoder)
		d.br.Reset(r)
		release := func() {
			d.br.Reset(nil)
			gzipPool.Put(d)
		}
		if _, err := d.br.Peek(1); err == io.EOF {
			release()
			return eofReader{}, func() {}, nil
		}
		if err := d.zr.Reset(&d.br); err != nil {
			release()
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return &d.zr, release, nil
	case "deflate":
		br := bufio.NewReader(r)
		hdr, err := br.Peek(2)
		switch {
		case len(hdr) == 0 && err == io.EOF:
			return eofReader{}, func() {}, nil
		case len(hdr) == 2 && isZlibHeader(hdr[0], hdr[1]):
			zr, err := zlib.NewReader(br)
			if err != nil {
				return nil, nil, fmt.Errorf("deflate: %w", err)
			}
			return zr, func() { zr.Close() }, nil
		}
		fr := flate.NewReader(br)
		return fr, func() { fr.Close() }, nil
	}
	return nil, nil, errEncoding(encoding)
}

// isZlibHeader reports whether two bytes form an RFC 1950 header for a
// deflate stream.
func isZlibHeader(cmf, flg byte) bool {
	return cmf&0x0f == 8 && cmf>>4 <= 7 && (uint16(cmf)<<8|uint16(flg))%31 == 0
}

// gzipDecoder is a pooled gzip reader with its own read buffer, so that a
// fetch allocates neither the decompressor nor a bufio.Reader.
type gzipDecoder struct {
	br bufio.Reader
	zr gzip.Reader
}

var gzipPool = sync.Pool{New: func() any { return new(gzipDecoder) }}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// readBody reads r to EOF after prefix, the bytes already read from it,
// and returns the whole body, or errTooLarge (and no body) as soon as more
// than limit bytes in all are read; it never reads more than limit+1 bytes.
// size is the body's length when known, else -1: a known size is read
// into one allocation of size+1 bytes, and an unknown one into a pooled
// buffer copied out at the end, so that each body costs one allocation of
// about its own size.
func readBody(r io.Reader, prefix []byte, limit int64, size int64) ([]byte, error) {
	if int64(len(prefix)) > limit {
		return nil, errTooLarge
	}
	lr := &io.LimitedReader{R: r, N: limit + 1 - int64(len(prefix))}
	if size >= 0 {
		buf := make([]byte, len(prefix), min(max(size, int64(len(prefix))), limit)+1)
		copy(buf, prefix)
		buf, err := readAll(lr, buf, limit)
		if err != nil {
			return nil, err
		}
		return buf, nil
	}
	sp := scratchPool.Get().(*[]byte)
	buf, err := readAll(lr, append((*sp)[:0], prefix...), limit)
	var body []byte
	if err == nil && len(buf) > 0 {
		body = bytes.Clone(buf)
	}
	if cap(buf) <= maxScratch {
		*sp = buf[:0]
		scratchPool.Put(sp)
	}
	return body, err
}

// readAll appends r to buf until EOF, or until buf grows beyond limit
// (errTooLarge).
func readAll(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// scratchPool holds buffers for bodies of unknown length; buffers grown
// beyond maxScratch are left to the garbage collector.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

const maxScratch = 1 << 20

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// headerBytes approximates the size on the wire of a response's status line
// and header block.
func headerBytes(resp *http.Response) int64 {
	n := len(resp.Proto) + 1 + len(resp.Status) + 2 + 2
	for k, vs := range resp.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	if len(resp.TransferEncoding) > 0 {
		n += len("Transfer-Encoding: chunked\r\n")
	}
	return int64(n)
}
