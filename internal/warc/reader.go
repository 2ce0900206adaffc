package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http/httputil"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v3"
)

// readOptions are the gowarc options for reading: findings are collected,
// not fatal, and decodeRecord decides which matter. Digests are checked.
// unmarshalers are the gowarc parsers that decode records, each used by
// one decode at a time (a parser keeps its gzip reader for the next). They
// are all made while the package initializes, before any goroutine of
// ours runs: gowarc.NewUnmarshaler calls uuid.EnableRandPool, which
// writes a global of google/uuid that every uuid.New reads unguarded (go-
// pdfium makes UUIDs while it extracts a PDF), so making a parser later,
// beside a PDF extraction, would be a data race.
var unmarshalers = func() chan gowarc.Unmarshaler {
	n := max(4, 2*runtime.GOMAXPROCS(0))
	c := make(chan gowarc.Unmarshaler, n)
	for range n {
		c <- gowarc.NewUnmarshaler(readOptions...)
	}
	return c
}()

var readOptions = []gowarc.WarcRecordOption{
	gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
	gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
	gowarc.WithBufferMaxMemBytes(maxMemBytes),
}

// errNotHTTP reports a response record whose block is not an HTTP response.
var errNotHTTP = errors.New("block is not an HTTP response")

// ReadAt reads the response record at loc in the archive directory dir: a
// gzip member or, in a file that is not compressed, a record. It reads the
// file with or without OpenSuffix, whichever exists. Errors wrap
// ErrCorrupt when the bytes at loc are not a whole, valid response record.
func ReadAt(dir string, loc Location) (*Record, error) {
	if !filepath.IsLocal(loc.File) || strings.ContainsAny(loc.File, `/\`) {
		return nil, fmt.Errorf("warc: read %q: not a file name", loc.File)
	}
	if loc.Offset < 0 || loc.Length < 0 {
		return nil, fmt.Errorf("warc: read %s at %d: negative offset or length", loc.File, loc.Offset)
	}
	f, err := openArchive(filepath.Join(dir, loc.File))
	if err != nil {
		return nil, fmt.Errorf("warc: read %s: %w", loc.File, err)
	}
	defer f.Close()
	n := loc.Length
	if n == 0 {
		n = math.MaxInt64 - loc.Offset
	}
	sr := &offsetReader{r: f, off: loc.Offset, end: loc.Offset + n}
	var zr gzip.Reader
	data, err := readRecord(&zr, bufio.NewReader(sr), nil)
	if err == nil {
		var rec *Record
		if rec, err = decodeRecord(data); err == nil {
			if rec.Type == "response" {
				return rec, nil
			}
			err = fmt.Errorf("%w: %s record, not response", ErrCorrupt, rec.Type)
		}
	}
	if sr.err != nil {
		err = sr.err
	}
	return nil, fmt.Errorf("warc: read %s at %d: %w", loc.File, loc.Offset, err)
}

// openArchive opens path, or path+OpenSuffix while the file is being
// written.
func openArchive(path string) (*os.File, error) {
	f, err := os.Open(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	f, err = os.Open(path + OpenSuffix)
	if !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	return os.Open(path) // renamed in between
}

// Scan calls fn with every response record of the WARC file at path, in
// order, and the record's Location (File is the base name of path without
// OpenSuffix). It stops at the first error fn returns and returns that
// error as is. The file is gzip-compressed record by record, as a Writer
// writes it, or not compressed; a gzip member holding more than one record
// (a file compressed as a whole) is an error wrapping ErrCorrupt, since its
// records cannot be read by offset.
//
// A file that ends inside a record, as a crash while writing leaves it, is
// not an error: the torn record is skipped and counted in skipped (0 or 1).
// A bad record followed by a good one is corruption, not a crash: Scan
// returns an error that wraps ErrCorrupt and names the bad record's offset.
func Scan(path string, fn func(*Record, Location) error) (skipped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("warc: scan: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("warc: scan: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), OpenSuffix)
	return scan(f, st.Size(), name, fn)
}

// scan is Scan on the size bytes of r, a file called name.
func scan(r io.ReaderAt, size int64, name string, fn func(*Record, Location) error) (int, error) {
	sr := &offsetReader{r: r, end: size}
	br := bufio.NewReaderSize(sr, 64<<10)
	var zr gzip.Reader
	var buf []byte
	plain := false // the file is not compressed
	for {
		off := sr.off - int64(br.Buffered())
		next, err := br.Peek(1)
		if err != nil {
			if sr.err != nil {
				return 0, fmt.Errorf("warc: scan %s: %w", name, sr.err)
			}
			return 0, nil // end of file
		}
		if plain && (next[0] == '\r' || next[0] == '\n') {
			br.Discard(1) // extra line ends between records
			continue
		}
		if off == 0 {
			plain = !isGzip(br)
		}
		data, err := readRecord(&zr, br, buf[:0])
		buf = data
		if sr.err != nil {
			return 0, fmt.Errorf("warc: scan %s: %w", name, sr.err)
		}
		if err != nil {
			if !recordAfter(r, off+1, size, plain) {
				return 1, nil
			}
			return 0, fmt.Errorf("warc: scan %s: record at offset %d: %w", name, off, err)
		}
		end := sr.off - int64(br.Buffered())
		if t, ok := recordType(data); ok && t != "response" {
			// Only gzip checks the other records, and that they come
			// one to a member.
			if err := oneRecord(data); err != nil {
				return 0, fmt.Errorf("warc: scan %s: record at offset %d: %w", name, off, err)
			}
			continue
		}
		rec, err := decodeRecord(data)
		if err != nil {
			return 0, fmt.Errorf("warc: scan %s: record at offset %d: %w", name, off, err)
		}
		if rec.Type != "response" {
			continue
		}
		if err := fn(rec, Location{File: name, Offset: off, Length: end - off}); err != nil {
			return 0, err
		}
	}
}

// recordType returns the WARC-Type of the record in data if its header
// holds one before the end of the header.
func recordType(data []byte) (string, bool) {
	return warcField(data, gowarc.WarcType)
}

// warcField returns the value of the first field called name in the WARC
// header of the record in data, as written, if there is one.
func warcField(data []byte, name string) (string, bool) {
	head, _, ok := bytes.Cut(data, []byte("\r\n\r\n"))
	if !ok || !bytes.HasPrefix(head, []byte("WARC/")) {
		return "", false
	}
	return headerField(head, name)
}

// headerField returns the value of the first field called name in head,
// lines of "name: value" ending in CRLF (the first line is skipped).
func headerField(head []byte, name string) (string, bool) {
	_, head, _ = bytes.Cut(head, []byte("\n"))
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(bytes.TrimSpace(k)), name) {
			return string(bytes.TrimSpace(v)), true
		}
	}
	return "", false
}

// oneRecord returns an error wrapping ErrCorrupt if data, the content of
// a gzip member, holds more than the WARC record it starts with and the
// line ends after it: a file compressed as a whole is one member whose
// other records would be lost silently. A header it cannot read is left
// to decodeRecord.
func oneRecord(data []byte) error {
	head, _, ok := bytes.Cut(data, []byte("\r\n\r\n"))
	if !ok {
		return nil
	}
	v, _ := headerField(head, gowarc.ContentLength)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > int64(len(data)-len(head)-4) {
		return nil
	}
	rest := bytes.TrimLeft(data[int64(len(head)+4)+n:], "\r\n")
	if len(rest) == 0 {
		return nil
	}
	if bytes.HasPrefix(rest, []byte("WARC/")) {
		return fmt.Errorf("%w: more than one record in a gzip member (a file gzip-compressed as a whole?)", ErrCorrupt)
	}
	return fmt.Errorf("%w: %d bytes after the record", ErrCorrupt, len(rest))
}

// recordAfter reports whether a whole gzip member holding a WARC record,
// or a whole uncompressed record if plain, starts somewhere in r between
// from and size: it tells a torn record at the end of a file from a
// corrupt one in the middle.
func recordAfter(r io.ReaderAt, from, size int64, plain bool) bool {
	if from >= size {
		return false
	}
	magic := []byte{0x1f, 0x8b, 0x08}
	if plain {
		magic = []byte("WARC/1.")
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, from, size-from), 64<<10)
	pos := from
	var zr gzip.Reader
	for {
		b, err := br.ReadByte()
		if err != nil {
			return false
		}
		pos++
		if b != magic[0] {
			continue
		}
		start := pos - 1
		next, err := br.Peek(len(magic) - 1)
		if err != nil || !bytes.Equal(next, magic[1:]) {
			continue
		}
		cand := bufio.NewReader(io.NewSectionReader(r, start, size-start))
		if plain {
			if _, err := readPlain(cand, nil); err == nil {
				return true
			}
		} else if data, err := readMember(&zr, cand, nil); err == nil && bytes.HasPrefix(data, []byte("WARC/")) {
			return true
		}
	}
}

// readRecord reads one record from br, appending to buf: a gzip member,
// or an uncompressed record if br does not start with the gzip magic.
// Errors wrap ErrCorrupt.
func readRecord(zr *gzip.Reader, br *bufio.Reader, buf []byte) ([]byte, error) {
	if isGzip(br) {
		return readMember(zr, br, buf)
	}
	return readPlain(br, buf)
}

// isGzip reports whether br starts with the gzip magic.
func isGzip(br *bufio.Reader) bool {
	b, _ := br.Peek(2)
	return len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b
}

// maxPlainHeader bounds the WARC header of an uncompressed record.
const maxPlainHeader = 1 << 20

// readPlain reads one uncompressed WARC record from br, header, block and
// the CRLFCRLF after it, appending to buf. Errors wrap ErrCorrupt.
func readPlain(br *bufio.Reader, buf []byte) ([]byte, error) {
	if b, err := br.Peek(5); string(b) != "WARC/" {
		if err != nil {
			return buf, fmt.Errorf("%w: %w", ErrCorrupt, noEOF(err))
		}
		return buf, fmt.Errorf("%w: not a WARC record", ErrCorrupt)
	}
	w := bytes.NewBuffer(buf)
	start := w.Len()
	for {
		line, err := br.ReadSlice('\n')
		w.Write(line)
		if w.Len()-start > maxPlainHeader {
			return w.Bytes(), fmt.Errorf("%w: WARC header longer than %d bytes", ErrCorrupt, maxPlainHeader)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return w.Bytes(), fmt.Errorf("%w: WARC header: %w", ErrCorrupt, noEOF(err))
		}
		if string(line) == "\r\n" {
			break
		}
	}
	v, _ := headerField(w.Bytes()[start:], gowarc.ContentLength)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64-4 {
		return w.Bytes(), fmt.Errorf("%w: Content-Length %q", ErrCorrupt, v)
	}
	if _, err := io.CopyN(w, br, n+4); err != nil {
		return w.Bytes(), fmt.Errorf("%w: block: %w", ErrCorrupt, noEOF(err))
	}
	if !bytes.HasSuffix(w.Bytes(), []byte("\r\n\r\n")) {
		return w.Bytes(), fmt.Errorf("%w: block not followed by CRLFCRLF", ErrCorrupt)
	}
	return w.Bytes(), nil
}

// noEOF turns io.EOF into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readMember decompresses one gzip member from br, appending to buf. An
// error from the gzip layer wraps ErrCorrupt.
func readMember(zr *gzip.Reader, br *bufio.Reader, buf []byte) ([]byte, error) {
	if err := zr.Reset(br); err != nil {
		return buf, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	zr.Multistream(false)
	w := bytes.NewBuffer(buf)
	if _, err := w.ReadFrom(zr); err != nil {
		return w.Bytes(), fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return w.Bytes(), nil
}

// decodeRecord parses the WARC record in data, the content of one gzip
// member. It returns the body only for response records. Errors wrap
// ErrCorrupt.
func decodeRecord(data []byte) (rec *Record, err error) {
	defer func() {
		// gowarc is a large parser of untrusted bytes; a panic in it
		// must not take the crawler down.
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("%w: parser panic: %v", ErrCorrupt, p)
		}
	}()
	if err := oneRecord(data); err != nil {
		return nil, err
	}
	u := <-unmarshalers
	defer func() { unmarshalers <- u }()
	wr, _, validation, err := u.Unmarshal(bufio.NewReader(bytes.NewReader(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	defer wr.Close()
	for _, v := range validation {
		var de *gowarc.DigestError
		var le *gowarc.ContentLengthError
		if errors.As(v, &de) || errors.As(v, &le) {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, v)
		}
	}
	h := wr.WarcHeader()
	rec = &Record{
		URL:       targetURI(data),
		Type:      h.Get(gowarc.WarcType),
		Truncated: h.Get(gowarc.WarcTruncated),
	}
	rec.Time, _ = wr.Date()
	if wr.Type() != gowarc.Response {
		return rec, nil
	}
	blk, ok := wr.Block().(gowarc.HttpResponseBlock)
	if !ok || blk.HttpStatusCode() == 0 || blk.HttpHeader() == nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, errNotHTTP)
	}
	rec.Status = blk.HttpStatusCode()
	rec.Header = *blk.HttpHeader()
	body, err := blk.PayloadBytes()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if rec.Body, err = io.ReadAll(body); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if chunked(blk.ProtocolHeaderBytes()) {
		// Stored as received, by another tool: net/http has dropped
		// Transfer-Encoding from the header, so the body must go too.
		// A body that does not parse was decoded already.
		if b, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(rec.Body))); err == nil {
			rec.Body = b
		}
	}
	return rec, nil
}

// targetURI returns the WARC-Target-URI of the record in data as written,
// without the angle brackets of WARC 1.0's grammar. gowarc's value is
// blank when its WHATWG URL parser rejects the URI or the brackets.
func targetURI(data []byte) string {
	v, _ := warcField(data, gowarc.WarcTargetURI)
	if len(v) >= 2 && v[0] == '<' && v[len(v)-1] == '>' {
		v = v[1 : len(v)-1]
	}
	return v
}

// chunked reports whether the HTTP header head ends its Transfer-Encoding
// with chunked.
func chunked(head []byte) bool {
	v, ok := headerField(head, "Transfer-Encoding")
	if !ok {
		return false
	}
	codings := strings.Split(v, ",")
	return strings.EqualFold(strings.TrimSpace(codings[len(codings)-1]), "chunked")
}

// offsetReader reads r from off to end, remembering the first error that
// is not io.EOF so that I/O errors are told from corrupt data.
type offsetReader struct {
	r   io.ReaderAt
	off int64
	end int64
	err error
}

func (o *offsetReader) Read(p []byte) (int, error) {
	if o.off >= o.end {
		return 0, io.EOF
	}
	if rest := o.end - o.off; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := o.r.ReadAt(p, o.off)
	o.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	if err != nil && err != io.EOF && o.err == nil {
		o.err = err
	}
	return n, err
}
