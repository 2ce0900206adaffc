package postgres

import (
	"strings"
	"testing"
	"unicode/utf8"
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
