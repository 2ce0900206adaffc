package maintext

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtract checks that Extract answers for any bytes: no panic, an error
// only when there is no content or the parser gives up, text in valid UTF-8 within MaxText, and a
// language that is a lower-case two- or three-letter subtag or ""; and
// that a Builder fed by htmlx.Parse (as the crawl does) answers the same.
func FuzzExtract(f *testing.F) {
	pages, _ := filepath.Glob("../scholar/testdata/*.html")
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, "https://example.org/a", "")
		}
	}
	f.Add([]byte("<html lang=TR><body><div class='has_sidebar'><h1>x</h1><p>Metin</p></div>"), "", "tr, en")
	f.Add([]byte("<table><tr><td><pre>a\r\nb</pre><br><li>x"), "::", "en-GB")
	f.Add([]byte("<meta charset=windows-1254><p>\xfe\xfd\xf0"), "http://x/", "")
	f.Add([]byte(blogPage), "", "")
	f.Add([]byte("<div class=content><p>a, b, c, d, e, f, g, h, i, j, k, l, m</p><p>x</div><div id=footer><p>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa</p>"), "", "")
	f.Fuzz(func(t *testing.T, body []byte, pageURL, contentLanguage string) {
		res, err := Extract(body, pageURL, contentLanguage)
		if errors.Is(err, ErrUnparsable) {
			if utf8.Valid(body) && len(body) <= MaxInput {
				if _, serr := extractShared(t, body, contentLanguage); !errors.Is(serr, ErrUnparsable) {
					t.Errorf("Extract(%q) is unparsable, but not to a Builder given the tokens by htmlx.Parse (%v)", body, serr)
				}
			}
			return
		}
		if err != nil && !errors.Is(err, ErrNoContent) {
			t.Fatalf("Extract(%q) error %v, want nil, ErrNoContent or ErrUnparsable", body, err)
		}
		if (err != nil) != (res.Text == "") {
			t.Errorf("Extract(%q) = %q, %v: error and empty text must go together", body, res.Text, err)
		}
		if len(res.Text) > MaxText || !utf8.ValidString(res.Text) {
			t.Errorf("Extract(%q).Text is %d bytes or invalid UTF-8", body, len(res.Text))
		}
		if strings.ContainsAny(res.Text, "\u00ad\u2060\ufeff\u200e\u200f") {
			t.Errorf("Extract(%q).Text = %q holds an invisible character", body, res.Text)
		}
		if res.Lang != "" && primaryTag(res.Lang) != res.Lang {
			t.Errorf("Extract(%q).Lang = %q, not a lower-case primary subtag", body, res.Lang)
		}
		if utf8.Valid(body) && len(body) <= MaxInput {
			shared, serr := extractShared(t, body, contentLanguage)
			if shared != res || !errors.Is(serr, ErrUnparsable) && errors.Is(err, ErrUnparsable) {
				t.Errorf("Extract(%q) = %q, %v, but a Builder given the tokens by htmlx.Parse gives %q, %v", body, res, err, shared, serr)
			}
		}
	})
}
