package warc

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gowarc "github.com/nlnwa/gowarc/v3"
)

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	xs := sampleExchanges()
	locs := writeAll(t, Options{Dir: dir, Software: "acrawler/test"}, xs)
	checkReadBack(t, dir, xs, locs)
}

// checkReadBack checks that the exchanges xs, written to dir at locs,
// read back as they were, by ReadAt and, in order, by Scan.
func checkReadBack(t *testing.T, dir string, xs []Exchange, locs []Location) {
	t.Helper()
	for i, x := range xs {
		t.Run(x.URL, func(t *testing.T) {
			rec, err := ReadAt(dir, locs[i])
			if err != nil {
				t.Fatalf("ReadAt(%+v) = %v", locs[i], err)
			}
			checkRecord(t, fmt.Sprintf("ReadAt(%+v)", locs[i]), rec, x)
		})
	}

	got := scanAll(t, dir)
	if len(got) != len(xs) {
		t.Fatalf("Scan delivered %d records, want %d", len(got), len(xs))
	}
	for i, s := range got {
		if s.loc != locs[i] {
			t.Errorf("Scan record %d at %+v, Write returned %+v", i, s.loc, locs[i])
		}
		checkRecord(t, fmt.Sprintf("Scan record %d", i), s.rec, xs[i])
	}
}

func TestResponseHeaders(t *testing.T) {
	dir := t.TempDir()
	xs := sampleExchanges()
	notDecoded := xs[0]
	notDecoded.URL += "&raw"
	notDecoded.Decoded = false
	notDecoded.Body = []byte("\x1f\x8b\x08 still compressed")
	xs = append(xs, notDecoded)
	locs := writeAll(t, Options{Dir: dir}, xs)
	read := func(i int) *Record {
		t.Helper()
		rec, err := ReadAt(dir, locs[i])
		if err != nil {
			t.Fatalf("ReadAt(%+v) = %v", locs[i], err)
		}
		return rec
	}

	tests := []struct {
		i          int
		name, want string
	}{
		{0, HeaderOriginalContentEncoding, "gzip"},
		{0, HeaderOriginalContentLength, "4711"},
		{0, "Content-Encoding", ""},
		{0, "Content-Length", strconv.Itoa(len(xs[0].Body))},
		{1, HeaderOriginalContentLength, ""}, // it was right
		{2, "Content-Length", "0"},
		{4, "Transfer-Encoding", ""},
		{4, "X-Weird", "a b c\td"},
		{5, HeaderOriginalContentLength, "99999999"},
		{6, "Content-Encoding", "gzip"},
		{6, HeaderOriginalContentEncoding, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", xs[tt.i].URL, tt.name), func(t *testing.T) {
			if got := read(tt.i).Header.Get(tt.name); got != tt.want {
				t.Errorf("ReadAt(%s).Header.Get(%q) = %q, want %q", xs[tt.i].URL, tt.name, got, tt.want)
			}
		})
	}
}

// TestGowarcValidation reads the files with gowarc's strict reader, which
// checks digests, lengths and header syntax, and checks the records' links.
func TestGowarcValidation(t *testing.T) {
	dir := t.TempDir()
	xs := sampleExchanges()
	locs := writeAll(t, Options{Dir: dir, MaxFileSize: 80 << 10}, append(xs, xs...))
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("Files(%s) = %q, want at least 2 files", dir, files)
	}
	var responses []Location
	for _, f := range files {
		responses = append(responses, validateFile(t, f)...)
	}
	if len(responses) != len(locs) {
		t.Fatalf("gowarc read %d responses, want %d", len(responses), len(locs))
	}
	for i := range locs {
		if responses[i] != locs[i] {
			t.Errorf("gowarc read response %d at %+v, Write returned %+v", i, responses[i], locs[i])
		}
	}
}

// validateFile reads the file at path with gowarc's strict reader, checks
// what every record must hold and returns the responses' locations.
func validateFile(t *testing.T, path string) []Location {
	t.Helper()
	r, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithStrictValidation(), gowarc.WithBlockErrorPolicy(gowarc.ErrFail))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	base := filepath.Base(path)
	var infoID, reqID string
	var locs []Location
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", base, i, err)
		}
		if len(rec.Validation) > 0 {
			t.Errorf("%s: record %d at %d: validation %v", base, i, rec.Offset, rec.Validation)
		}
		wr := rec.WarcRecord
		h := wr.WarcHeader()
		if wr.Version() != gowarc.V1_1 {
			t.Errorf("%s: record %d: version %s", base, i, wr.Version())
		}
		for _, f := range []string{gowarc.WarcBlockDigest, gowarc.WarcPayloadDigest} {
			if wr.Type() == gowarc.Warcinfo && f == gowarc.WarcPayloadDigest {
				continue
			}
			if v := h.Get(f); !strings.HasPrefix(v, DigestAlgorithm+":") || len(v) != len(DigestAlgorithm)+1+64 {
				t.Errorf("%s: record %d: %s = %q, want %s:<64 hex digits>", base, i, f, v, DigestAlgorithm)
			}
		}
		switch {
		case i == 0:
			if wr.Type() != gowarc.Warcinfo {
				t.Fatalf("%s: record 0 is %s, want warcinfo", base, wr.Type())
			}
			if got := h.Get(gowarc.WarcFilename); got != base {
				t.Errorf("%s: WARC-Filename = %q", base, got)
			}
			b, _ := wr.Block().RawBytes()
			content, _ := io.ReadAll(b)
			if !bytes.Contains(content, []byte("format: WARC File Format 1.1\r\n")) {
				t.Errorf("%s: warcinfo content = %q", base, content)
			}
			infoID = wr.RecordId()
		case i%2 == 1:
			if wr.Type() != gowarc.Request {
				t.Fatalf("%s: record %d is %s, want request", base, i, wr.Type())
			}
			reqID = wr.RecordId()
		default:
			if wr.Type() != gowarc.Response {
				t.Fatalf("%s: record %d is %s, want response", base, i, wr.Type())
			}
			if got := h.GetId(gowarc.WarcConcurrentTo); got != reqID {
				t.Errorf("%s: response %d: WARC-Concurrent-To = %q, want the request's %q", base, i, got, reqID)
			}
			locs = append(locs, Location{File: base, Offset: rec.Offset, Length: rec.Size})
		}
		if i > 0 {
			if got := h.GetId(gowarc.WarcWarcinfoID); got != infoID {
				t.Errorf("%s: record %d: WARC-Warcinfo-ID = %q, want %q", base, i, got, infoID)
			}
		}
		rec.Close()
	}
	return locs
}

// TestGzipMembers reads the files with compress/gzip one member at a time
// and checks the WARC syntax of each record by hand.
func TestGzipMembers(t *testing.T) {
	dir := t.TempDir()
	xs := sampleExchanges()
	locs := writeAll(t, Options{Dir: dir}, xs)
	data := readFile(t, filepath.Join(dir, locs[0].File))

	recordID := regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}>$`)
	rd := bytes.NewReader(data)
	br := bufio.NewReader(rd)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	ids := map[string]string{} // record ID -> type
	var concurrent [][2]string
	var responseOffsets []int64
	for off := int64(0); ; {
		zr.Multistream(false)
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("member at %d: %v", off, err)
		}
		end := int64(len(data) - rd.Len() - br.Buffered())
		head, rest, ok := bytes.Cut(member, []byte("\r\n\r\n"))
		if !ok {
			t.Fatalf("member at %d: no end of WARC header", off)
		}
		lines := strings.Split(string(head), "\r\n")
		if lines[0] != "WARC/1.1" {
			t.Errorf("member at %d: first line %q, want WARC/1.1", off, lines[0])
		}
		fields := map[string]string{}
		for _, l := range lines[1:] {
			k, v, ok := strings.Cut(l, ": ")
			if !ok || k == "" || strings.ContainsAny(k, " \t") {
				t.Errorf("member at %d: bad header line %q", off, l)
			}
			if k == "WARC-Concurrent-To" {
				concurrent = append(concurrent, [2]string{fields["WARC-Record-ID"], v})
			}
			fields[k] = v
		}
		for _, k := range []string{"WARC-Record-ID", "WARC-Type", "WARC-Date", "Content-Length", "WARC-Block-Digest"} {
			if fields[k] == "" {
				t.Errorf("member at %d: no %s", off, k)
			}
		}
		if !recordID.MatchString(fields["WARC-Record-ID"]) {
			t.Errorf("member at %d: WARC-Record-ID = %q", off, fields["WARC-Record-ID"])
		}
		n, err := strconv.Atoi(fields["Content-Length"])
		if err != nil || n+4 != len(rest) || !bytes.HasSuffix(rest, []byte("\r\n\r\n")) {
			t.Errorf("member at %d: Content-Length %q, then %d bytes ending %q; want the block and CRLFCRLF", off, fields["Content-Length"], len(rest), rest[max(0, len(rest)-4):])
		}
		typ := fields["WARC-Type"]
		types = append(types, typ)
		ids[fields["WARC-Record-ID"]] = typ
		if typ == "response" {
			responseOffsets = append(responseOffsets, off)
			if !bytes.HasPrefix(rest, []byte("HTTP/")) {
				t.Errorf("response at %d: block starts %.20q", off, rest)
			}
		}
		off = end
		if err := zr.Reset(br); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("member at %d: %v", off, err)
		}
	}
	want := []string{"warcinfo"}
	for range xs {
		want = append(want, "request", "response")
	}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("record types = %q, want %q", types, want)
	}
	for i, l := range locs {
		if i < len(responseOffsets) && responseOffsets[i] != l.Offset {
			t.Errorf("response %d starts at %d, Write said %d", i, responseOffsets[i], l.Offset)
		}
	}
	if len(concurrent) != 2*len(xs) {
		t.Errorf("%d WARC-Concurrent-To fields, want %d", len(concurrent), 2*len(xs))
	}
	for _, c := range concurrent {
		if a, b := ids[c[0]], ids[strings.TrimSpace(c[1])]; a == b || a == "" || b == "" {
			t.Errorf("%s (%s) is concurrent to %s (%q)", c[0], a, c[1], b)
		}
	}
}

func TestRotate(t *testing.T) {
	dir := t.TempDir()
	const max = 64 << 10
	var xs []Exchange
	for i := range 40 {
		xs = append(xs, Exchange{
			URL:        fmt.Sprintf("https://example.org/file/%d.bin", i),
			Time:       baseTime,
			Status:     200,
			RespHeader: http.Header{"Content-Type": {"application/octet-stream"}},
			Body:       binaryBody(uint64(i), 20<<10),
		})
	}
	locs := writeAll(t, Options{Dir: dir, MaxFileSize: max}, xs)
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("Files(%s) = %d files, want at least 10", dir, len(files))
	}
	perFile := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, OpenSuffix) {
			t.Errorf("%s still open after Close", f)
		}
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > max {
			t.Errorf("%s is %d bytes, more than MaxFileSize %d", f, st.Size(), max)
		}
		perFile[filepath.Base(f)] = 0
	}
	for _, l := range locs {
		if _, ok := perFile[l.File]; !ok {
			t.Errorf("Write returned %+v, not in Files(%s)", l, dir)
		}
		perFile[l.File]++
	}
	for f, n := range perFile {
		if n == 0 {
			t.Errorf("%s holds no exchange", f)
		}
	}
	got := scanAll(t, dir)
	if len(got) != len(xs) {
		t.Fatalf("Scan delivered %d records, want %d", len(got), len(xs))
	}
	for i, s := range got {
		if s.loc != locs[i] {
			t.Errorf("Scan record %d at %+v, Write returned %+v", i, s.loc, locs[i])
		}
		checkRecord(t, fmt.Sprintf("Scan record %d", i), s.rec, xs[i])
		rec, err := ReadAt(dir, locs[i])
		if err != nil {
			t.Fatalf("ReadAt(%+v) = %v", locs[i], err)
		}
		checkRecord(t, fmt.Sprintf("ReadAt(%+v)", locs[i]), rec, xs[i])
	}
}

func TestScanTornTail(t *testing.T) {
	src := t.TempDir()
	xs := sampleExchanges()
	locs := writeAll(t, Options{Dir: src}, xs)
	data := readFile(t, filepath.Join(src, locs[0].File))
	last := locs[len(locs)-1]
	reqStart := locs[len(locs)-2].Offset + locs[len(locs)-2].Length // the last request member
	if int64(len(data)) != last.Offset+last.Length {
		t.Fatalf("file is %d bytes, last response ends at %d", len(data), last.Offset+last.Length)
	}

	zeros := func(n int64, pad int) []byte {
		return append(bytes.Clone(data[:n]), make([]byte, pad)...)
	}
	tests := []struct {
		name    string
		content []byte
		skipped int
		records int // delivered, if not all but the last
	}{
		{"cut in last request's gzip header", data[:reqStart+4], 1, 0},
		{"cut in last request", data[:reqStart+40], 1, 0},
		{"cut between request and response", data[:last.Offset], 0, 0},
		{"cut in last response's gzip header", data[:last.Offset+7], 1, 0},
		{"cut in last response", data[:last.Offset+last.Length/2], 1, 0},
		{"cut one byte short", data[:len(data)-1], 1, 0},
		{"cut in gzip trailer", data[:len(data)-5], 1, 0},
		{"zero-filled tail", zeros(last.Offset+last.Length/2, 4096), 1, 0},
		{"zeros after the end", zeros(int64(len(data)), 512), 1, len(xs)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, locs[0].File+OpenSuffix) // as a crash leaves it
			if err := os.WriteFile(path, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			var got []Location
			skipped, err := Scan(path, func(r *Record, l Location) error {
				checkRecord(t, fmt.Sprintf("Scan record %d", len(got)), r, xs[len(got)])
				got = append(got, l)
				return nil
			})
			if err != nil || skipped != tt.skipped {
				t.Fatalf("Scan = %d, %v; want %d, nil", skipped, err, tt.skipped)
			}
			want := cmp.Or(tt.records, len(xs)-1)
			if len(got) != want {
				t.Fatalf("Scan delivered %d records, want %d", len(got), want)
			}
			for i, l := range got {
				if l != locs[i] {
					t.Errorf("Scan record %d at %+v, want %+v", i, l, locs[i])
				}
				if _, err := ReadAt(dir, l); err != nil {
					t.Errorf("ReadAt(%+v) = %v", l, err)
				}
			}
			if _, err := ReadAt(dir, last); want < len(xs) && !errors.Is(err, ErrCorrupt) {
				t.Errorf("ReadAt(%+v) of the torn record = %v, want ErrCorrupt", last, err)
			}
		})
	}
}

func TestScanCorrupt(t *testing.T) {
	src := t.TempDir()
	xs := sampleExchanges()
	locs := writeAll(t, Options{Dir: src}, xs)
	data := readFile(t, filepath.Join(src, locs[0].File))
	bad := locs[1]

	tests := []struct {
		name string
		pos  int64 // byte of the second response member to flip
	}{
		{"gzip magic", bad.Offset},
		{"gzip header flags", bad.Offset + 3},
		{"deflate data", bad.Offset + bad.Length/2},
		{"crc", bad.Offset + bad.Length - 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, locs[0].File)
			corrupt := bytes.Clone(data)
			corrupt[tt.pos] ^= 0x55
			if err := os.WriteFile(path, corrupt, 0o644); err != nil {
				t.Fatal(err)
			}
			n := 0
			skipped, err := Scan(path, func(*Record, Location) error { n++; return nil })
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("offset %d:", bad.Offset)) {
				t.Errorf("Scan = %d, %v; want ErrCorrupt at offset %d", skipped, err, bad.Offset)
			}
			if n != 1 {
				t.Errorf("Scan delivered %d records before the corrupt one, want 1", n)
			}
			if _, err := ReadAt(dir, bad); !errors.Is(err, ErrCorrupt) {
				t.Errorf("ReadAt(%+v) = %v, want ErrCorrupt", bad, err)
			}
			if _, err := ReadAt(dir, locs[2]); err != nil {
				t.Errorf("ReadAt(%+v) = %v", locs[2], err)
			}
		})
	}
}

// TestScanDigestMismatch changes a body inside a well-formed gzip member:
// only the WARC digests can tell.
func TestScanDigestMismatch(t *testing.T) {
	dir := t.TempDir()
	x := sampleExchanges()[3]
	locs := writeAll(t, Options{Dir: dir}, []Exchange{x})
	path := filepath.Join(dir, locs[0].File)
	data := readFile(t, path)
	zr, err := gzip.NewReader(bytes.NewReader(data[locs[0].Offset:]))
	if err != nil {
		t.Fatal(err)
	}
	member, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	member = bytes.Replace(member, []byte("Moved Permanently"), []byte("Moved Temporarily"), 1)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(member)
	zw.Close()
	data = append(data[:locs[0].Offset], buf.Bytes()...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAt(dir, Location{File: locs[0].File, Offset: locs[0].Offset}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "digest") {
		t.Errorf("ReadAt(%+v) = %v, want ErrCorrupt for a wrong digest", locs[0], err)
	}
}

// TestOpenFile reads a file while it is being written.
func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	xs := sampleExchanges()[:3]
	var locs []Location
	for _, x := range xs {
		l, err := w.Write(x)
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, l)
	}
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != filepath.Join(dir, locs[0].File+OpenSuffix) {
		t.Fatalf("Files(%s) = %q, want [%s]", dir, files, locs[0].File+OpenSuffix)
	}
	for i, l := range locs {
		rec, err := ReadAt(dir, l)
		if err != nil {
			t.Fatalf("ReadAt(%+v) while open = %v", l, err)
		}
		checkRecord(t, fmt.Sprintf("ReadAt(%+v) while open", l), rec, xs[i])
	}
	got := scanAll(t, dir)
	for i, s := range got {
		if s.loc != locs[i] {
			t.Errorf("Scan of the open file: record %d at %+v, want %+v", i, s.loc, locs[i])
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, locs[0].File)); err != nil {
		t.Errorf("after Close: %v", err)
	}
	for _, l := range locs {
		if _, err := ReadAt(dir, l); err != nil {
			t.Errorf("ReadAt(%+v) after Close = %v", l, err)
		}
	}
	if _, err := w.Write(xs[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestConcurrentWrite(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(Options{Dir: dir, MaxFileSize: 128 << 10})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 8, 25
	xs := make([]Exchange, goroutines*each)
	for i := range xs {
		xs[i] = Exchange{
			URL:        fmt.Sprintf("https://example.org/g%d/p%d", i/each, i%each),
			Time:       baseTime.Add(time.Duration(i) * time.Millisecond),
			Status:     200,
			RespHeader: http.Header{"Content-Type": {"text/html"}},
			Body:       htmlPage(uint64(i), 1000+i*97),
		}
	}
	locs := make([]Location, len(xs))
	errs := make([]error, len(xs))
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := g * each; i < (g+1)*each; i++ {
				locs[i], errs[i] = w.Write(xs[i])
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[Location]bool{}
	for i, l := range locs {
		if errs[i] != nil {
			t.Fatalf("Write(%s) = %v", xs[i].URL, errs[i])
		}
		if seen[l] {
			t.Errorf("Write(%s) returned %+v twice", xs[i].URL, l)
		}
		seen[l] = true
		rec, err := ReadAt(dir, l)
		if err != nil {
			t.Fatalf("ReadAt(%+v) = %v", l, err)
		}
		checkRecord(t, fmt.Sprintf("ReadAt(%+v)", l), rec, xs[i])
	}
	got := scanAll(t, dir)
	if len(got) != len(xs) {
		t.Fatalf("Scan delivered %d records, want %d", len(got), len(xs))
	}
	for _, s := range got {
		if !seen[s.loc] {
			t.Errorf("Scan found a record at %+v that no Write returned", s.loc)
		}
	}
	files, _ := Files(dir)
	if len(files) < 2 {
		t.Errorf("Files(%s) = %d files, want rotation", dir, len(files))
	}
	for _, f := range files {
		validateFile(t, f)
	}
}

func TestWriteInvalid(t *testing.T) {
	good := sampleExchanges()[3]
	tests := []struct {
		name   string
		change func(*Exchange)
	}{
		{"relative URL", func(x *Exchange) { x.URL = "/path" }},
		{"URL with space", func(x *Exchange) { x.URL = "https://example.org/a b" }},
		{"URL with newline", func(x *Exchange) { x.URL = "https://example.org/a\r\nWARC-Type: x" }},
		{"empty URL", func(x *Exchange) { x.URL = "" }},
		{"status 0", func(x *Exchange) { x.Status = 0 }},
		{"status 1000", func(x *Exchange) { x.Status = 1000 }},
		{"truncation reason", func(x *Exchange) { x.Truncated = "partly" }},
		{"method", func(x *Exchange) { x.Method = "GET /x" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := NewWriter(Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			x := good
			tt.change(&x)
			if _, err := w.Write(x); err == nil {
				t.Errorf("Write(%+q) = nil error", x.URL)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if files, _ := Files(dir); len(files) != 0 {
				t.Errorf("Files after a failed Write = %q, want none", files)
			}
		})
	}
}

func TestNewWriterInvalid(t *testing.T) {
	tests := []Options{
		{},
		{Dir: t.TempDir(), Prefix: "a/b"},
		{Dir: t.TempDir(), MaxFileSize: -1},
	}
	for _, opts := range tests {
		if _, err := NewWriter(opts); err == nil {
			t.Errorf("NewWriter(%+v) = nil error", opts)
		}
	}
}

func TestWriteDefaults(t *testing.T) {
	dir := t.TempDir()
	x := Exchange{URL: "http://example.org", Status: 200, Body: []byte("x")}
	locs := writeAll(t, Options{Dir: filepath.Join(dir, "new", "dir")}, []Exchange{x})
	if !regexp.MustCompile(`^acrawler-\d{14}-00000\.warc\.gz$`).MatchString(locs[0].File) {
		t.Errorf("file name %q, want acrawler-YYYYMMDDhhmmss-00000.warc.gz", locs[0].File)
	}
	rec, err := ReadAt(filepath.Join(dir, "new", "dir"), locs[0])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Time.IsZero() || string(rec.Body) != "x" {
		t.Errorf("ReadAt = Time %v, Body %q; want now and \"x\"", rec.Time, rec.Body)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	names := []string{
		"acrawler-20250101000000-00001.warc.gz",
		"acrawler-20250101000000-00000.warc.gz.open",
		"acrawler-20240101000000-00007.warc.gz",
		"other-20250101000000-00010.warc.gz",
		"acrawler-20250101000000-00002.warc.gz",
		"acrawler-20250101000000-00002.warc.gz.open", // renamed while listed
		"acrawler-20250101000000-100000.warc.gz",
		"foreign.warc.gz",
		"notes.txt",
		"acrawler-20250101000000-00003.warc",
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.warc.gz"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"foreign.warc.gz",
		"acrawler-20240101000000-00007.warc.gz",
		"acrawler-20250101000000-00000.warc.gz.open",
		"acrawler-20250101000000-00001.warc.gz",
		"acrawler-20250101000000-00002.warc.gz",
		"other-20250101000000-00010.warc.gz",
		"acrawler-20250101000000-100000.warc.gz",
	}
	got, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Files(%s) =\n%s\nwant\n%s", dir, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Files(filepath.Join(dir, "missing")); err == nil {
		t.Error("Files(missing) = nil error")
	}
}

func TestScanCallbackError(t *testing.T) {
	dir := t.TempDir()
	locs := writeAll(t, Options{Dir: dir}, sampleExchanges())
	stop := errors.New("stop")
	n := 0
	_, err := Scan(filepath.Join(dir, locs[0].File), func(*Record, Location) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Errorf("Scan = %v after %d records, want stop after 2", err, n)
	}
}

func TestReadAtBadLocation(t *testing.T) {
	dir := t.TempDir()
	locs := writeAll(t, Options{Dir: dir}, sampleExchanges())
	l := locs[1]
	tests := []struct {
		name    string
		loc     Location
		corrupt bool
	}{
		{"path outside", Location{File: "../" + l.File, Offset: l.Offset}, false},
		{"path below", Location{File: "x/" + l.File, Offset: l.Offset}, false},
		{"missing file", Location{File: "missing.warc.gz", Offset: l.Offset}, false},
		{"negative offset", Location{File: l.File, Offset: -1}, false},
		{"warcinfo record", Location{File: l.File, Offset: 0}, true},
		{"inside a record", Location{File: l.File, Offset: l.Offset + 1}, true},
		{"short length", Location{File: l.File, Offset: l.Offset, Length: l.Length - 1}, true},
		{"past the end", Location{File: l.File, Offset: 1 << 40}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadAt(dir, tt.loc)
			if err == nil || errors.Is(err, ErrCorrupt) != tt.corrupt {
				t.Errorf("ReadAt(%+v) = %v, want an error (corrupt: %v)", tt.loc, err, tt.corrupt)
			}
		})
	}
	if _, err := ReadAt(dir, Location{File: l.File, Offset: l.Offset}); err != nil {
		t.Errorf("ReadAt(%+v) without length = %v", l, err)
	}
}

// TestWriteFailure makes the open file unwritable: Write fails, and the
// Writer moves on to a new file, leaving the old one readable.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	xs := sampleExchanges()
	first, err := w.Write(xs[0])
	if err != nil {
		t.Fatal(err)
	}
	// Swap the file for a read-only handle: writes and truncation fail.
	w.mu.Lock()
	ro, err := os.Open(w.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	w.f.Close()
	w.f = ro
	w.mu.Unlock()
	if _, err := w.Write(xs[1]); err == nil {
		t.Fatal("Write to a read-only file = nil error")
	}
	second, err := w.Write(xs[2])
	if err != nil {
		t.Fatalf("Write after a failure = %v", err)
	}
	if second.File == first.File {
		t.Errorf("Write after a failure went to %s again", second.File)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, dir)
	if len(got) != 2 || got[0].loc != first || got[1].loc != second {
		t.Fatalf("Scan found %d records, want the 2 written", len(got))
	}
	checkRecord(t, "first", got[0].rec, xs[0])
	checkRecord(t, "after failure", got[1].rec, xs[2])
}

// TestLargeRecords: records larger than a member writes in one piece
// (wholeMax), compressible and not, and one just under it, read back
// whole, by ReadAt, by Scan and by gowarc's strict reader.
func TestLargeRecords(t *testing.T) {
	dir := t.TempDir()
	var xs []Exchange
	for i, body := range [][]byte{htmlPage(7, 3*wholeMax), binaryBody(8, 2*wholeMax), htmlPage(9, wholeMax-2<<10)} {
		xs = append(xs, Exchange{URL: fmt.Sprintf("https://www.example.edu/large/%d", i), Time: baseTime, Status: 200,
			Proto: "HTTP/1.1", RespHeader: http.Header{"Content-Type": {"text/html"}}, Body: body})
	}
	locs := writeAll(t, Options{Dir: dir}, xs)
	checkReadBack(t, dir, xs, locs)
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, f := range files {
		n += len(validateFile(t, f))
	}
	if n != len(xs) {
		t.Errorf("gowarc read %d responses, want %d", n, len(xs))
	}
}
