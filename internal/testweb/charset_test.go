package testweb

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTurkishCharsets(t *testing.T) {
	w := New(Config{PagesPerSite: 30})
	seen := map[string]bool{}
	for _, p := range w.Pages() {
		if !strings.HasPrefix(p.URL, "http://www.karadeniz-universitesi.test/") || !isHTML(p.ContentType) {
			continue
		}
		rec := serve(t, w, p.URL)
		raw := rec.Body.Bytes()
		ctype := rec.Header().Get("Content-Type")
		if ctype != p.ContentType {
			t.Errorf("GET %s: Content-Type %q, Lookup says %q", p.URL, ctype, p.ContentType)
		}
		var mode string
		switch {
		case bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")):
			mode = "bom"
			if p.Charset != "utf-8" || !utf8.Valid(raw) {
				t.Errorf("GET %s: BOM page, Charset %q, valid UTF-8 %v", p.URL, p.Charset, utf8.Valid(raw))
			}
		case strings.Contains(ctype, "charset=windows-1254"):
			mode = "header"
		case bytes.Contains(raw[:min(len(raw), 1024)], []byte(`<meta charset="windows-1254">`)):
			mode = "meta"
		case bytes.Contains(raw[:min(len(raw), 1024)], []byte(`<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-9">`)):
			mode = "http-equiv"
			if p.Charset != "iso-8859-9" {
				t.Errorf("GET %s: http-equiv ISO-8859-9 page, Charset %q", p.URL, p.Charset)
			}
		default:
			t.Errorf("GET %s: charset not declared (Content-Type %q)", p.URL, ctype)
			continue
		}
		seen[mode] = true
		if mode != "bom" && utf8.Valid(raw) {
			t.Errorf("GET %s: a %s page is valid UTF-8; want single-byte Turkish", p.URL, p.Charset)
		}
		text := string(decodeBody(t, raw, p.Charset))
		for _, word := range []string{"Yayınlar", "Araştırma", "Akademik Kadro", "Öğrenci İşleri", "Karadeniz Üniversitesi"} {
			if !strings.Contains(text, word) {
				t.Errorf("GET %s (%s): decoded text lacks %q", p.URL, mode, word)
			}
		}
		if !strings.Contains(text, `href="`+nonASCIIKey+`"`) {
			t.Errorf("GET %s: no raw Turkish href %q", p.URL, nonASCIIKey)
		}
	}
	for _, mode := range []string{"header", "meta", "http-equiv", "bom"} {
		if !seen[mode] {
			t.Errorf("no page declares its charset by %s", mode)
		}
	}
}

func TestTurkishURLs(t *testing.T) {
	w := New(Config{PagesPerSite: 30})
	prefixes := map[string]int{"/arastirma/": 0, "/yayinlar/": 0, "/yayinlar/makale/": 0, "/yayinlar/tez/": 0, "/yayinlar/bildiri/": 0, "/akademik-kadro/": 0}
	for _, p := range w.Pages() {
		path, ok := strings.CutPrefix(p.URL, "http://www.karadeniz-universitesi.test")
		if !ok {
			continue
		}
		for pre := range prefixes {
			if strings.HasPrefix(path, pre) {
				prefixes[pre]++
			}
		}
	}
	for pre, n := range prefixes {
		if n == 0 {
			t.Errorf("no URL under %s", pre)
		}
	}
	// The Turkish path is reached by its UTF-8 percent-encoding, not by
	// the windows-1254 bytes of the page that links it.
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://www.karadeniz-universitesi.test/duyurular/%C3%B6%C4%9Frenci-i%C5%9Fleri", true},
		{"http://www.karadeniz-universitesi.test/duyurular/öğrenci-işleri", true},
		{"http://www.karadeniz-universitesi.test/duyurular/%F6%F0renci-i%FEleri", false},
	} {
		if _, ok := w.Lookup(tc.url); ok != tc.want {
			t.Errorf("Lookup(%q) found = %v, want %v", tc.url, ok, tc.want)
		}
		if rec := serve(t, w, "http://www.karadeniz-universitesi.test/duyurular/%C3%B6%C4%9Frenci-i%C5%9Fleri"); rec.Code != 200 {
			t.Errorf("GET Turkish path = %d", rec.Code)
		}
	}
	robots := serve(t, w, "http://www.karadeniz-universitesi.test/robots.txt").Body.String()
	if !strings.Contains(robots, "Crawl-delay: 1\n") {
		t.Errorf("Turkish robots.txt lacks Crawl-delay: 1:\n%s", robots)
	}
}
