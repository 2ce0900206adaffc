package sitemap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"testing/iotest"
	"time"
)

// result is everything Parse tells, in a comparable form.
type result struct {
	kind    Kind
	entries []Entry
	err     string
}

func (r result) equal(s result) bool {
	return r.kind == s.kind && r.err == s.err && slices.EqualFunc(r.entries, s.entries, Entry.equal)
}

func (r result) String() string {
	return fmt.Sprintf("%v, %d entries %v, %s", r.kind, len(r.entries), r.entries, r.err)
}

// FuzzParse checks, for any input:
//   - Parse never delivers more than MaxURLs entries, and delivers exactly
//     MaxURLs when it reports ErrTooManyURLs;
//   - every Loc is non-empty, at most MaxLocLen bytes and trimmed, every text
//     entry an http(s) URL; the other fields are in their ranges;
//   - reading one byte at a time, or the same input gzip-compressed, gives
//     the same result;
//   - for XML that encoding/xml accepts, the entries are those the same
//     builder makes from encoding/xml's tokens.
func FuzzParse(f *testing.F) {
	for _, s := range []string{urlsetAllFields, index, textSitemap,
		"<urlset><url><loc>https://a.example/?a=1&amp;b&#x41;<![CDATA[&]]></loc><lastmod>2024-05-03T10:00:00.5+02:00</lastmod><priority>.5</priority></url></urlset>",
		"<!DOCTYPE urlset [<!ENTITY a \"<>\"> <!-- > -->]><urlset><url/><url><loc>&a;</loc></url></urlset>",
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><sitemapindex><sitemap><loc>https://a.example/\xe9</loc></sitemap></sitemapindex>",
		"<html><body>https://a.example/</body></html>",
		"https://a.example/1\r\nhttps://a.example/2\rhttps://a.example/3\n",
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("testdata/extensions.xml"); err == nil {
		f.Add(data)
	}
	lim := Limits{MaxURLs: 5, MaxBytes: 1 << 20}
	run := func(data []byte, oneByte bool) (result, error) {
		var r result
		var rd io.Reader = bytes.NewReader(data)
		if oneByte {
			rd = iotest.OneByteReader(rd)
		}
		kind, err := Parse(rd, lim, func(e Entry) error {
			r.entries = append(r.entries, e)
			return nil
		})
		r.kind = kind
		if err != nil {
			r.err = err.Error()
		}
		return r, err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := run(data, false)
		kind, got := r.kind, r.entries
		if len(got) > lim.MaxURLs || errors.Is(err, ErrTooManyURLs) && len(got) != lim.MaxURLs {
			t.Fatalf("Parse(%q) delivered %d entries, error %v; MaxURLs is %d", data, len(got), err, lim.MaxURLs)
		}
		if len(got) > 0 && kind == Unknown {
			t.Fatalf("Parse(%q) delivered %d entries of kind %v", data, len(got), kind)
		}
		for _, e := range got {
			checkEntry(t, data, kind, e)
		}

		if r2, _ := run(data, true); !r2.equal(r) {
			t.Fatalf("Parse(%q) = %v, but one byte at a time %v", data, r, r2)
		}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			if r2, _ := run(gz(t, data), false); !r2.equal(r) {
				t.Fatalf("Parse(%q) = %v, but gzip-compressed %v", data, r, r2)
			}
		}

		off, isXML := xmlOffset(data)
		if !isXML {
			return
		}
		refKind, refGot, refErr := parseReference(data[off:], lim)
		switch {
		case refErr == nil && refKind == Unknown:
			// encoding/xml accepts a document without a root element.
			if kind != Unknown || !errors.Is(err, ErrNotSitemap) {
				t.Fatalf("Parse(%q) = %v; encoding/xml finds no root element", data, r)
			}
		case refErr == nil || refErr == ErrTooManyURLs || refErr == ErrNotSitemap:
			if len(data) > 0 && bytes.Count(data, []byte("<")) > maxDepth && errors.Is(err, ErrMalformed) {
				return // possibly nested deeper than Parse allows
			}
			if kind != refKind || !slices.EqualFunc(got, refGot, Entry.equal) || !errors.Is(err, refErr) || (refErr == nil) != (err == nil) {
				t.Fatalf("Parse(%q) = %v; with encoding/xml: %v, %d entries %v, %v", data, r, refKind, len(refGot), refGot, refErr)
			}
		}
	})
}

// checkEntry checks the properties every entry has.
func checkEntry(t *testing.T, data []byte, kind Kind, e Entry) {
	t.Helper()
	if e.Loc == "" || len(e.Loc) > MaxLocLen || isSpace(e.Loc[0]) || isSpace(e.Loc[len(e.Loc)-1]) {
		t.Fatalf("Parse(%q): Loc %q is empty, too long or untrimmed", data, e.Loc)
	}
	if kind == Text && !isWebURL([]byte(e.Loc)) {
		t.Fatalf("Parse(%q): text entry %q is not an http(s) URL", data, e.Loc)
	}
	if !e.LastMod.IsZero() && e.LastMod.Location() != time.UTC {
		t.Fatalf("Parse(%q): LastMod %v is not in UTC", data, e.LastMod)
	}
	if kind != URLSet && (e.ChangeFreq != "" || e.Priority != -1) {
		t.Fatalf("Parse(%q): %v entry %+v has a changefreq or priority", data, kind, e)
	}
	switch e.ChangeFreq {
	case "", "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
	default:
		t.Fatalf("Parse(%q): ChangeFreq %q", data, e.ChangeFreq)
	}
	if e.Priority != -1 && !(e.Priority >= 0 && e.Priority <= 1) {
		t.Fatalf("Parse(%q): Priority %v", data, e.Priority)
	}
}

// xmlOffset reports whether Parse reads data as XML, and from which byte.
func xmlOffset(data []byte) (int, bool) {
	off := len(data) - len(bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n"))
	head := data[off:min(len(data), off+sniffLen)]
	if i := xmlStart(head); i >= 0 {
		return off + i, true
	}
	return off, len(head) > 0 && head[0] == '<'
}

// FuzzParseLastMod checks that a date that parses is valid, and that its
// RFC 3339 form, itself a W3C datetime, parses back to the same instant.
func FuzzParseLastMod(f *testing.F) {
	for _, s := range []string{"2024", "2024-05", "2024-05-03", "2024-05-03T10:00Z", "2024-05-03T10:00:00.123+02:00", "2024-05-03 10:00:00-0530"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseLastMod([]byte(s))
		if !ok {
			if !got.IsZero() {
				t.Fatalf("parseLastMod(%q) = %v, false", s, got)
			}
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("parseLastMod(%q) = %v, not in UTC", s, got)
		}
		if got.Year() < -1 || got.Year() > 10000 {
			t.Fatalf("parseLastMod(%q) = %v", s, got)
		}
		if got.Year() < 0 || got.Year() > 9999 {
			return // RFC 3339 has four-digit years
		}
		back := got.Format(time.RFC3339Nano)
		if again, ok := parseLastMod([]byte(back)); !ok || !again.Equal(got) {
			t.Fatalf("parseLastMod(%q) = %v; parseLastMod(%q) = %v, %v", s, got, back, again, ok)
		}
	})
}
