package archive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// parseAll runs parseCDX over data and collects the captures.
func parseAll(data []byte, oneByte bool) ([]Capture, string, error) {
	var got []Capture
	r := bytes.NewReader(data)
	var key string
	var err error
	fn := func(c Capture) error {
		got = append(got, c)
		return nil
	}
	if oneByte {
		key, err = parseCDX(iotest.OneByteReader(r), fn)
	} else {
		key, err = parseCDX(r, fn)
	}
	return got, key, err
}

// render writes captures and a resume key in the JSON or text format, as
// Captures asks for them.
func render(captures []Capture, key string, text bool) []byte {
	status := func(c Capture) string {
		if c.Status == 0 {
			return "-"
		}
		return fmt.Sprintf("%03d", c.Status)
	}
	mime := func(c Capture) string {
		if c.MIME == "" {
			return "-"
		}
		return c.MIME
	}
	var b bytes.Buffer
	if text {
		for _, c := range captures {
			fmt.Fprintf(&b, "%s %s %s %s\n", c.URL, c.Time.Format("20060102150405"), status(c), mime(c))
		}
		if key != "" {
			fmt.Fprintf(&b, "\n%s\n", key)
		}
		return b.Bytes()
	}
	rows := [][]string{{"original", "timestamp", "statuscode", "mimetype"}}
	for _, c := range captures {
		rows = append(rows, []string{c.URL, c.Time.Format("20060102150405"), status(c), mime(c)})
	}
	if key != "" {
		rows = append(rows, []string{}, []string{key})
	}
	out, _ := json.Marshal(rows)
	return out
}

// FuzzParseCDX checks, for any answer:
//   - parsing always ends, with at most one capture per 8 bytes of input,
//     each with a non-empty URL of at most MaxURLLen bytes, a time between
//     years 0 and 9999 in UTC and a status of three digits or 0;
//   - reading one byte at a time gives the same result;
//   - the captures and resume key of an answer read without error, written
//     again in the JSON format and (where their values have no spaces) the
//     text format, read back the same.
func FuzzParseCDX(f *testing.F) {
	for _, s := range []string{
		twoRows + "]",
		twoRows + `,[],["org%2Carchive%29%2F+19980109140106%21"]]`,
		"http://www.example.edu/ 20010203040506 200 text/html\nhttp://www.example.edu/a 2002 - warc/revisit\n\nkey\n",
		"edu,example)/ 20010203040506 http://www.example.edu/ text/html 200 DIGEST 1234\n",
		`[["timestamp","original"],["2001","http://a.example/\u00e9\ud83d\ude00\"\\\/"]]`,
		"[]",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, key, err := parseAll(data, false)
		if len(got) > len(data)/8 {
			t.Fatalf("parseCDX(%q) = %d captures from %d bytes", data, len(got), len(data))
		}
		for _, c := range got {
			if c.URL == "" || len(c.URL) > MaxURLLen || c.Time.Location().String() != "UTC" || c.Time.Year() < 0 || c.Time.Year() > 9999 ||
				c.Status != 0 && (c.Status > 999) || c.MIME == "-" {
				t.Fatalf("parseCDX(%q): capture %+v", data, c)
			}
		}
		if len(key) > maxValue {
			t.Fatalf("parseCDX(%q): resume key of %d bytes", data, len(key))
		}
		got2, key2, err2 := parseAll(data, true)
		if !slices.Equal(got, got2) || key != key2 || fmt.Sprint(err) != fmt.Sprint(err2) {
			t.Fatalf("parseCDX(%q) = %v, %q, %v; one byte at a time %v, %q, %v", data, got, key, err, got2, key2, err2)
		}
		if err != nil {
			return
		}

		valid := utf8.ValidString(key)
		spaceless := key == "" || !strings.ContainsAny(key, " \t\r\n")
		for _, c := range got {
			valid = valid && utf8.ValidString(c.URL) && utf8.ValidString(c.MIME)
			spaceless = spaceless && !strings.ContainsAny(c.URL+c.MIME, " \t\r\n")
		}
		for _, text := range []bool{false, true} {
			if !text && !valid || text && !spaceless {
				continue
			}
			out := render(got, key, text)
			if text && bytes.HasPrefix(out, []byte("[")) {
				continue // a text answer that starts like JSON is read as JSON
			}
			back, backKey, err := parseAll(out, false)
			if err != nil || !slices.Equal(back, got) || backKey != key {
				t.Fatalf("parseCDX(%q) = %v, %q; written again (text %v) as %q, read as %v, %q, %v", data, got, key, text, out, back, backKey, err)
			}
		}
	})
}
