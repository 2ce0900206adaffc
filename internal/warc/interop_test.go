package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTargetURIKept writes URLs that are valid RFC 3986 URIs but that
// gowarc's WHATWG parser rejects: the record must name them all the same.
func TestTargetURIKept(t *testing.T) {
	dir := t.TempDir()
	xs := []Exchange{
		{URL: "http://1.2.3.999/a", Status: 200, Body: []byte("a"), Time: baseTime},
		{URL: "http://xn--a.example/b", Status: 200, Body: []byte("b"), Time: baseTime},
	}
	locs := writeAll(t, Options{Dir: dir}, xs)
	data := readFile(t, filepath.Join(dir, locs[0].File))
	for i, x := range xs {
		zr, err := gzip.NewReader(bytes.NewReader(data[locs[i].Offset:]))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if want := "\r\nWARC-Target-URI: " + x.URL + "\r\n"; !bytes.Contains(member, []byte(want)) {
			t.Errorf("response record of %s has no %q:\n%.400s", x.URL, want, member)
		}
		rec, err := ReadAt(dir, locs[i])
		if err != nil || rec.URL != x.URL {
			t.Errorf("ReadAt(%+v) = URL %q, %v; want %q", locs[i], rec.URL, err, x.URL)
		}
	}

	// A time gowarc cannot format would leave WARC-Date blank: refused.
	w, err := NewWriter(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	far := Exchange{URL: "http://example.org/", Status: 200, Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if loc, err := w.Write(far); err == nil {
		t.Errorf("Write with a WARC-Date in year 10000 = %+v, nil; want an error", loc)
	}
}

// foreignRecord returns a response record as other tools write it: sha1
// base32 digests, the given version line and WARC-Target-URI value.
func foreignRecord(version, targetURI, httpMsg string) []byte {
	digest := func(b []byte) string {
		s := sha1.Sum(b)
		return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
	}
	_, payload, _ := strings.Cut(httpMsg, "\r\n\r\n")
	return fmt.Appendf(nil, "%s\r\n"+
		"WARC-Type: response\r\n"+
		"WARC-Record-ID: <urn:uuid:%08x-1234-4234-8234-123456789abc>\r\n"+
		"WARC-Date: 2014-01-02T03:04:05Z\r\n"+
		"WARC-Target-URI: %s\r\n"+
		"Content-Type: application/http; msgtype=response\r\n"+
		"WARC-Block-Digest: %s\r\n"+
		"WARC-Payload-Digest: %s\r\n"+
		"Content-Length: %d\r\n\r\n%s\r\n\r\n",
		version, len(targetURI), targetURI, digest([]byte(httpMsg)), digest([]byte(payload)), len(httpMsg), httpMsg)
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestReadForeign reads files as other tools write them: WARC/1.0 with the
// angle brackets its grammar puts around WARC-Target-URI (wget), chunked
// bodies stored as received (wget, Heritrix, warcio), uncompressed files,
// and whole-file gzip, which cannot be read by offset and must be an error
// rather than one record.
func TestReadForeign(t *testing.T) {
	const page = "<p>hello</p>"
	plain := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 12\r\n\r\n" + page
	chunked := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\r\n<p>he\r\n7\r\nllo</p>\r\n0\r\n\r\n"
	recs := [][]byte{
		foreignRecord("WARC/1.0", "<http://example.com/a>", plain),
		foreignRecord("WARC/1.1", "http://example.com/b", plain),
		foreignRecord("WARC/1.0", "http://example.com/c", chunked),
	}
	want := []string{"http://example.com/a", "http://example.com/b", "http://example.com/c"}
	perRecord, uncompressed := []byte{}, []byte{}
	for _, r := range recs {
		perRecord = append(perRecord, gzipped(r)...)
		uncompressed = append(uncompressed, r...)
	}

	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"per-record.warc.gz", perRecord},
		{"uncompressed.warc", uncompressed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var got []string
			skipped, err := Scan(path, func(r *Record, l Location) error {
				got = append(got, r.URL)
				if string(r.Body) != page || r.Status != 200 {
					t.Errorf("Scan record at %+v: status %d, body %q; want 200, %q", l, r.Status, r.Body, page)
				}
				rec, err := ReadAt(dir, l)
				if err != nil || rec.URL != r.URL || !bytes.Equal(rec.Body, r.Body) {
					t.Errorf("ReadAt(%+v) = %v, %v; want what Scan delivered", l, rec, err)
				}
				return nil
			})
			if err != nil || skipped != 0 || strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("Scan = %d, %v, URLs %q; want 0, nil, %q", skipped, err, got, want)
			}

			// Cut in the last record: a torn tail, as for our own files.
			torn := filepath.Join(dir, "torn-"+tt.name)
			if err := os.WriteFile(torn, tt.data[:len(tt.data)-20], 0o644); err != nil {
				t.Fatal(err)
			}
			n := 0
			skipped, err = Scan(torn, func(*Record, Location) error { n++; return nil })
			if err != nil || skipped != 1 || n != len(recs)-1 {
				t.Errorf("Scan of a torn file = %d, %v after %d records; want 1, nil after %d", skipped, err, n, len(recs)-1)
			}

			// A bad second record, with a good one after: corruption.
			i := len(recs[0]) // its first byte
			if tt.data[0] == 0x1f {
				i = len(gzipped(recs[0]))
			}
			bad := filepath.Join(dir, "bad-"+tt.name)
			corrupt := bytes.Clone(tt.data)
			corrupt[i] ^= 0x55
			if err := os.WriteFile(bad, corrupt, 0o644); err != nil {
				t.Fatal(err)
			}
			n = 0
			skipped, err = Scan(bad, func(*Record, Location) error { n++; return nil })
			if !errors.Is(err, ErrCorrupt) || n != 1 {
				t.Errorf("Scan of a file with a bad second record = %d, %v after %d records; want ErrCorrupt after 1", skipped, err, n)
			}
		})
	}

	t.Run("whole-file.warc.gz", func(t *testing.T) {
		for _, first := range [][]byte{recs[0], warcinfoRecord()} {
			dir := t.TempDir()
			path := filepath.Join(dir, "whole-file.warc.gz")
			if err := os.WriteFile(path, gzipped(append(bytes.Clone(first), uncompressed...)), 0o644); err != nil {
				t.Fatal(err)
			}
			n := 0
			skipped, err := Scan(path, func(*Record, Location) error { n++; return nil })
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("Scan of whole-file gzip = %d, %v after %d records; want ErrCorrupt", skipped, err, n)
			}
			if _, err := ReadAt(dir, Location{File: "whole-file.warc.gz"}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("ReadAt of whole-file gzip = %v, want ErrCorrupt", err)
			}
		}
	})
}

// warcinfoRecord returns the warcinfo record a Writer starts a file with.
func warcinfoRecord() []byte {
	e := getEncoder()
	defer putEncoder(e)
	if err := e.warcinfo(newRecordID(), "f.warc.gz", "acrawler", "", baseTime); err != nil {
		panic(err)
	}
	zr, _ := gzip.NewReader(bufio.NewReader(bytes.NewReader(e.buf.Bytes())))
	b, _ := io.ReadAll(zr)
	return b
}
