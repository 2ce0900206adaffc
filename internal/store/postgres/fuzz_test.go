package postgres

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/crawl"
)

// FuzzParseDSNHidesPassword: whatever the password, a DSN that cannot be
// parsed gives an error without it, and one that can names its server
// without it.
func FuzzParseDSNHidesPassword(f *testing.F) {
	for _, s := range []string{"s3cretPassw0rd", "p@ss:w/rd?x=1", "with space", "`quoted`", "%zzpercent", "ünïcödé-pass"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, pw string, form uint8) {
		if len(pw) < 8 || !utf8.ValidString(pw) {
			t.Skip() // short strings occur in messages by chance
		}
		var dsn string
		switch form % 3 {
		case 0:
			dsn = "postgres://user:" + pw + "@127.0.0.1:notaport/db"
		case 1:
			if strings.ContainsAny(pw, " \t\n\v\f\r'\"\\") {
				t.Skip() // such a value must be quoted in a key=value string
			}
			dsn = "user=u password=" + pw + " host=127.0.0.1 port=notaport"
		case 2:
			if strings.ContainsAny(pw, "&#") {
				t.Skip() // ends the query parameter
			}
			dsn = "postgres://user@127.0.0.1:notaport/db?password=" + pw
		}
		cfg, target, err := parseDSN(dsn)
		if err != nil {
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("parseDSN(%q) error %q shows the password", dsn, err)
			}
			return
		}
		if p := cfg.ConnConfig.Password; len(p) >= 8 && strings.Contains(target, p) {
			t.Fatalf("parseDSN(%q) target %q shows the password %q", dsn, target, p)
		}
	})
}

// FuzzClean: the result is storable as PostgreSQL TEXT, clean keeps
// storable text as it is, and cleaning twice changes nothing.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x00b", "caf\xe9", "\xff\x00\xfe", "ok ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := clean(s)
		if !utf8.ValidString(c) || strings.IndexByte(c, 0) >= 0 {
			t.Fatalf("clean(%q) = %q, not storable", s, c)
		}
		if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 && c != s {
			t.Fatalf("clean(%q) = %q, want it unchanged", s, c)
		}
		if cc := clean(c); cc != c {
			t.Fatalf("clean(clean(%q)) = %q, want %q", s, cc, c)
		}
	})
}

// FuzzMetadataJSON: the document is valid JSON that JSONB accepts (no
// escaped NUL, valid UTF-8) and decodes to the metadata with each invalid
// byte of its strings replaced by U+FFFD (as encoding/json does) and NULs
// dropped: metadata with storable strings is kept as it is.
func FuzzMetadataJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x00b", "caf\xe9", `back\slash \u0000`, "\\\x00", "ok ü"} {
		f.Add(s, s, 2024)
	}
	f.Fuzz(func(t *testing.T, title, author string, year int) {
		m := &crawl.Metadata{Title: title, Authors: []string{author, "x"}, Year: year, Keywords: []string{title}}
		doc, err := metadataJSON(m)
		if err != nil || doc == nil {
			t.Fatalf("metadataJSON(%+v) = %v, %v", m, doc, err)
		}
		if !utf8.ValidString(*doc) || strings.Contains(strings.ReplaceAll(*doc, `\\`, ""), `\u0000`) {
			t.Fatalf("metadataJSON(%+v) = %s, which JSONB refuses", m, *doc)
		}
		var got crawl.Metadata
		if err := json.Unmarshal([]byte(*doc), &got); err != nil {
			t.Fatalf("metadataJSON(%+v) = %s: %v", m, *doc, err)
		}
		storable := func(s string) string { return strings.ReplaceAll(string([]rune(s)), "\x00", "") }
		want := crawl.Metadata{Title: storable(title), Authors: []string{storable(author), "x"}, Year: year,
			Keywords: []string{storable(title)}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("metadataJSON(%+v) decodes to %+v, want %+v", m, got, want)
		}
	})
}
