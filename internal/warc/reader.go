package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v3"
)

// readOptions are the gowarc options for reading: findings are collected,
// not fatal, and decodeRecord decides which matter. Digests are checked.
var readOptions = []gowarc.WarcRecordOption{
	gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn),
	gowarc.WithSpecViolationPolicy(gowarc.ErrWarn),
	gowarc.WithBufferMaxMemBytes(maxMemBytes),
}

// errNotHTTP reports a response record whose block is not an HTTP response.
var errNotHTTP = errors.New("block is not an HTTP response")

// ReadAt reads the response record at loc in the archive directory dir. It
// reads the file with or without OpenSuffix, whichever exists. Errors wrap
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
	data, err := readMember(&zr, bufio.NewReader(sr), nil)
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
// error as is.
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
	for {
		off := sr.off - int64(br.Buffered())
		if _, err := br.Peek(1); err != nil {
			if sr.err != nil {
				return 0, fmt.Errorf("warc: scan %s: %w", name, sr.err)
			}
			return 0, nil // end of file
		}
		data, err := readMember(&zr, br, buf[:0])
		buf = data
		if sr.err != nil {
			return 0, fmt.Errorf("warc: scan %s: %w", name, sr.err)
		}
		if err != nil {
			if !recordAfter(r, off+1, size) {
				return 1, nil
			}
			return 0, fmt.Errorf("warc: scan %s: record at offset %d: %w", name, off, err)
		}
		end := sr.off - int64(br.Buffered())
		if t, ok := recordType(data); ok && t != "response" {
			continue // only gzip checks the other records
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
	head, _, ok := bytes.Cut(data, []byte("\r\n\r\n"))
	if !ok || !bytes.HasPrefix(head, []byte("WARC/")) {
		return "", false
	}
	for line := range bytes.SplitSeq(head, []byte("\r\n")) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), gowarc.WarcType) {
			return string(bytes.TrimSpace(v)), true
		}
	}
	return "", false
}

// recordAfter reports whether a whole gzip member holding a WARC record
// starts somewhere in r between from and size: it tells a torn record at
// the end of a file from a corrupt one in the middle.
func recordAfter(r io.ReaderAt, from, size int64) bool {
	if from >= size {
		return false
	}
	magic := []byte{0x1f, 0x8b, 0x08}
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
		next, err := br.Peek(2)
		if err != nil || !bytes.Equal(next, magic[1:]) {
			continue
		}
		cand := bufio.NewReader(io.NewSectionReader(r, start, size-start))
		if data, err := readMember(&zr, cand, nil); err == nil && bytes.HasPrefix(data, []byte("WARC/")) {
			return true
		}
	}
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
	gowarcMu.Lock()
	u := gowarc.NewUnmarshaler(readOptions...)
	gowarcMu.Unlock()
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
		URL:       h.Get(gowarc.WarcTargetURI),
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
	return rec, nil
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
