package warc

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v3"
	"golang.org/x/net/http/httpguts"
)

// decodeMember decodes the gzip member, or uncompressed record, at the
// start of data.
func decodeMember(data []byte) (*Record, error) {
	var zr gzip.Reader
	member, err := readRecord(&zr, bufio.NewReader(bytes.NewReader(data)), nil)
	if err != nil {
		return nil, err
	}
	return decodeRecord(member)
}

// FuzzRoundTrip checks that every exchange Write accepts is stored as
// records that gowarc's strict reader accepts and that read back to the
// same URL, status, body and headers.
func FuzzRoundTrip(f *testing.F) {
	f.Add("dept/people.html?sort=name", "Content-Type", "text/html", []byte("<p>hi</p>"), 200, true, "HTTP/1.1")
	f.Add("", "Location", "https://example.org/\r\nX: y", []byte{}, 301, false, "")
	f.Add("a%20b/%zz", "Content-Encoding", " gzip\t", []byte("\r\n\r\nWARC/1.1\r\n"), 599, true, "HTTP/2.0")
	f.Add("x", "Bad Key", "\x00\x7f\xff", []byte{0x1f, 0x8b, 0x08, 0}, 304, false, "HTTP/9")
	f.Fuzz(func(t *testing.T, path, key, value string, body []byte, status int, decoded bool, proto string) {
		x := Exchange{
			URL:        "https://example.org/" + path,
			ReqHeader:  http.Header{key: {value}},
			Status:     status,
			Proto:      proto,
			RespHeader: http.Header{key: {value}},
			Body:       body,
			Decoded:    decoded,
			Time:       baseTime,
		}
		e := getEncoder()
		defer putEncoder(e)
		if err := e.exchange(&x, newRecordID()); err != nil {
			if _, cerr := checkExchange(&x); cerr == nil {
				t.Fatalf("exchange(%q) = %v, but the exchange is valid", x.URL, err)
			}
			return
		}
		data := e.buf.Bytes()

		for _, m := range [][]byte{data[:e.respOff], data[e.respOff:]} {
			var zr gzip.Reader
			member, err := readMember(&zr, bufio.NewReader(bytes.NewReader(m)), nil)
			if err != nil {
				t.Fatal(err)
			}
			strict := gowarc.NewUnmarshaler(gowarc.WithStrictValidation(), gowarc.WithBlockErrorPolicy(gowarc.ErrFail))
			wr, _, validation, err := strict.Unmarshal(bufio.NewReader(bytes.NewReader(member)))
			if err != nil || len(validation) > 0 {
				t.Fatalf("strict gowarc reading of the record of %q = %v, %v\n%q", x.URL, err, validation, member)
			}
			wr.Close()
		}

		req, err := decodeMember(data[:e.respOff])
		if err != nil || req.Type != "request" || req.URL != x.URL {
			t.Fatalf("request record of %q read back as %+v, %v", x.URL, req, err)
		}
		rec, err := decodeMember(data[e.respOff:])
		if err != nil {
			t.Fatalf("response record of %q: %v", x.URL, err)
		}
		if rec.URL != x.URL || rec.Status != x.Status || !bytes.Equal(rec.Body, x.Body) {
			t.Fatalf("response record read back as %q %d %q, want %q %d %q", rec.URL, rec.Status, rec.Body, x.URL, x.Status, x.Body)
		}
		if got := rec.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
			t.Errorf("Content-Length = %q, want %d", got, len(body))
		}
		k := http.CanonicalHeaderKey(key)
		switch k {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding", HeaderOriginalContentEncoding, HeaderOriginalContentLength:
		default:
			if httpguts.ValidHeaderFieldName(key) {
				if got := rec.Header.Values(k); len(got) != 1 || got[0] != oneLine(value) {
					t.Errorf("header %s = %q, want [%q]", k, got, oneLine(value))
				}
			}
		}
	})
}

// FuzzScan checks that Scan always answers, delivers records whose
// locations lie in order inside the file, and that each location reads
// back as the record Scan delivered.
func FuzzScan(f *testing.F) {
	e := getEncoder()
	var file []byte
	e.warcinfo(newRecordID(), "f.warc.gz", "acrawler", "host", baseTime)
	file = append(file, e.buf.Bytes()...)
	for i, x := range sampleExchanges()[2:5] {
		e.exchange(&x, newRecordID())
		file = append(file, e.buf.Bytes()...)
		f.Add(bytes.Clone(file[:len(file)-i*7]))
	}
	putEncoder(e)
	f.Add(file)
	f.Add(append(bytes.Clone(file[:200]), file...))
	var plain []byte // the same records uncompressed
	for br := bufio.NewReader(bytes.NewReader(file)); ; {
		if _, err := br.Peek(1); err != nil {
			break
		}
		var zr gzip.Reader
		member, err := readMember(&zr, br, nil)
		if err != nil {
			f.Fatal(err)
		}
		plain = append(plain, member...)
	}
	f.Add(plain)
	f.Add(bytes.Clone(plain[:len(plain)-9]))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff})
	f.Add([]byte("WARC/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var locs []Location
		var recs []*Record
		skipped, err := scan(bytes.NewReader(data), int64(len(data)), "f", func(r *Record, l Location) error {
			locs = append(locs, l)
			recs = append(recs, r)
			return nil
		})
		if skipped != 0 && (skipped != 1 || err != nil) {
			t.Fatalf("scan = %d, %v; want 0 or 1 skipped, and not with an error", skipped, err)
		}
		end := int64(0)
		for i, l := range locs {
			if l.File != "f" || l.Offset < end || l.Length <= 0 || l.Offset+l.Length > int64(len(data)) {
				t.Fatalf("record %d at %+v: not after %d and inside %d bytes", i, l, end, len(data))
			}
			end = l.Offset + l.Length
			rec, err := decodeMember(data[l.Offset:end])
			if err != nil || rec.URL != recs[i].URL || !bytes.Equal(rec.Body, recs[i].Body) {
				t.Fatalf("record %d at %+v reads back as %v, %v", i, l, rec, err)
			}
			if _, err := url.Parse(rec.URL); rec.Status == 0 && err == nil {
				t.Fatalf("record %d at %+v has no status", i, l)
			}
		}
	})
}

// FuzzDecode checks that decoding the content of a gzip member always
// answers without gowarc panicking, and that a response it accepts has a
// status.
func FuzzDecode(f *testing.F) {
	e := getEncoder()
	for _, x := range sampleExchanges()[2:5] {
		e.exchange(&x, newRecordID())
		for _, m := range [][]byte{e.buf.Bytes()[:e.respOff], e.buf.Bytes()[e.respOff:]} {
			var zr gzip.Reader
			member, err := readMember(&zr, bufio.NewReader(bytes.NewReader(m)), nil)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(member)
		}
	}
	putEncoder(e)
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := decodeRecord(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || strings.Contains(err.Error(), "parser panic") {
				t.Fatalf("decodeRecord = %v", err)
			}
			return
		}
		if rec.Type == "response" && (rec.Status < 100 || rec.Status > 999) {
			t.Fatalf("decodeRecord = response with status %d", rec.Status)
		}
	})
}
