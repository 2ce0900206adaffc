package htmlx

import (
	"bytes"
	"reflect"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

const (
	turkish = "Araştırma Yayınları Öğrenci İşleri ğüşıöçĞÜŞİÖÇ"
	chinese = "中文信息处理研究组：计算语言学与自然语言处理"
)

func encode(t testing.TB, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return b
}

func TestDecode(t *testing.T) {
	w1254 := func(s string) []byte { return encode(t, charmap.Windows1254, s) }
	utf16le := func(s string) []byte { return encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), s) }
	utf16be := func(s string) []byte { return encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), s) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	b := func(s string) []byte { return []byte(s) }
	gbk := func(s string) []byte { return encode(t, simplifiedchinese.GBK, s) }
	// w1254dec reads the UTF-8 bytes of s as windows-1254.
	w1254dec := func(s string) string {
		out, err := charmap.Windows1254.NewDecoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// A long script pushes the <meta> past the 1024 bytes of the prescan.
	longScript := "<script>" + string(bytes.Repeat([]byte("var x = 1;\n"), 120)) + "</script>"

	tests := []struct {
		name        string
		body        []byte
		contentType string
		want        string
		wantEnc     string
	}{
		{"header windows-1254", w1254("<p>" + turkish), "text/html; charset=windows-1254", "<p>" + turkish, "windows-1254"},
		{"header quoted upper case", w1254(turkish), `text/html; Charset="WINDOWS-1254"`, turkish, "windows-1254"},
		{"header malformed", w1254(turkish), "text/html;; charset=windows-1254; charset=x", turkish, "windows-1254"},
		{"meta charset", cat(b(`<html><head><meta charset="windows-1254"><title>`), w1254(turkish)), "", `<html><head><meta charset="windows-1254"><title>` + turkish, "windows-1254"},
		{"meta http-equiv iso-8859-9", cat(b(`<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-9">`), w1254(turkish)), "text/html", `<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-9">` + turkish, "windows-1254"},
		{"meta http-equiv quoted charset", cat(b(`<meta content="text/html; charsetx; charset = 'windows-1254'" http-equiv=content-type>`), w1254("ş")), "", `<meta content="text/html; charsetx; charset = 'windows-1254'" http-equiv=content-type>` + "ş", "windows-1254"},
		{"meta http-equiv unterminated quote", b(`<meta http-equiv=content-type content="charset='windows-1254">` + turkish), "", `<meta http-equiv=content-type content="charset='windows-1254">` + turkish, "utf-8"},
		{"meta charset and content: first wins", cat(b(`<meta charset=windows-1254 content="charset=windows-1250" http-equiv=content-type>`), w1254("ş")), "", `<meta charset=windows-1254 content="charset=windows-1250" http-equiv=content-type>` + "ş", "windows-1254"},
		{"meta content without http-equiv is ignored", cat(b(`<meta content="text/html; charset=iso-8859-9">`), w1254("ş")), "", `<meta content="text/html; charset=iso-8859-9">` + "þ", "windows-1252"},
		{"meta after 1024 bytes in head", cat(b("<head>"+longScript+`<meta charset="windows-1254">`), w1254(turkish)), "", "<head>" + longScript + `<meta charset="windows-1254">` + turkish, "windows-1254"},
		{"meta after 1024 bytes but UTF-8 body", b("<head>" + longScript + `<meta charset="windows-1254">` + turkish), "", "<head>" + longScript + `<meta charset="windows-1254">` + turkish, "utf-8"},
		{"header wins over meta", cat(b(`<meta charset="windows-1252">`), w1254(turkish)), "text/html; charset=windows-1254", `<meta charset="windows-1252">` + turkish, "windows-1254"},
		{"utf-8 BOM", b("\xef\xbb\xbf" + turkish), "", turkish, "utf-8"},
		{"BOM wins over header", b("\xef\xbb\xbf" + turkish), "text/html; charset=windows-1254", turkish, "utf-8"},
		{"utf-16le BOM", utf16le("<p>" + turkish), "text/html; charset=windows-1254", "<p>" + turkish, "utf-16le"},
		{"utf-16be BOM", utf16be(turkish), "", turkish, "utf-16be"},
		{"utf-16 header without BOM", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), turkish), "text/html; charset=utf-16le", turkish, "utf-16le"},
		{"meta utf-16 means utf-8", b(`<meta charset="utf-16">` + turkish), "", `<meta charset="utf-16">` + turkish, "utf-8"},
		{"unknown header charset falls back to meta", cat(b(`<meta charset="windows-1254">`), w1254(turkish)), "text/html; charset=x-no-such", `<meta charset="windows-1254">` + turkish, "windows-1254"},
		{"unknown charsets fall back to sniffing utf-8", b(`<meta charset="klingon">` + turkish), "text/html; charset=x-no-such", `<meta charset="klingon">` + turkish, "utf-8"},
		{"unknown charsets fall back to windows-1252", b("<meta charset=\"klingon\">caf\xe9"), "text/html; charset=x-no-such", `<meta charset="klingon">café`, "windows-1252"},
		{"no declaration utf-8", b(turkish), "", turkish, "utf-8"},
		{"no declaration ascii", b("<p>plain"), "text/html", "<p>plain", "utf-8"},
		{"no declaration utf-8 cut mid-character", b(turkish + "\xc4"), "", turkish + "\ufffd", "utf-8"},
		{"no declaration latin-1", b("caf\xe9 na\xefve"), "", "café naïve", "windows-1252"},
		{"windows-1252 for latin1 label", b("\x93quoted\x94"), "text/html; charset=ISO-8859-1", "\u201cquoted\u201d", "windows-1252"},
		{"invalid utf-8 declared", b("a\xffb\xc3"), "text/html; charset=utf-8", "a\ufffdb\ufffd", "utf-8"},
		{"empty", nil, "", "", "utf-8"},
		{"shift_jis", encode(t, japanese.ShiftJIS, "日本語"), "text/html; charset=Shift_JIS", "日本語", "shift_jis"},
		// A body that is UTF-8 in spite of its <meta>.
		{"meta gb2312 but utf-8", b(`<meta charset="gb2312"><title>` + chinese), "", `<meta charset="gb2312"><title>` + chinese, "utf-8"},
		{"meta http-equiv gb2312 but utf-8", b(`<meta http-equiv=Content-Type content="text/html; charset=gb2312">` + chinese), "text/html", `<meta http-equiv=Content-Type content="text/html; charset=gb2312">` + chinese, "utf-8"},
		{"meta windows-1254 but utf-8", b(`<meta charset="windows-1254">` + turkish), "", `<meta charset="windows-1254">` + turkish, "utf-8"},
		{"meta shift_jis but utf-8", b(`<meta charset="shift_jis">日本語`), "", `<meta charset="shift_jis">日本語`, "utf-8"},
		{"meta gb2312 but utf-8 cut mid-character", b(`<meta charset="gb2312">` + chinese + "\xe4\xb8"), "", `<meta charset="gb2312">` + chinese + "\ufffd", "utf-8"},
		{"meta gb2312 ascii", b(`<meta charset="gb2312"><p>plain`), "", `<meta charset="gb2312"><p>plain`, "gbk"},
		{"meta gb2312 gbk", cat(b(`<meta charset="gb2312">`), gbk(chinese)), "", `<meta charset="gb2312">` + chinese, "gbk"},
		// The header wins unless the body is UTF-8 and not in the
		// encoding it names.
		{"header gb2312 but utf-8", b("<p>" + chinese + "<p>"), "text/html; charset=gb2312", "<p>" + chinese + "<p>", "utf-8"},
		{"header gb2312 gbk", gbk("<p>" + chinese + "<p>"), "text/html; charset=gb2312", "<p>" + chinese + "<p>", "gbk"},
		{"header windows-1254 wins over utf-8", b("<p>Öğrenci İşleri"), "text/html; charset=windows-1254", "<p>" + w1254dec("Öğrenci İşleri"), "windows-1254"},
		{"header windows-1254 but utf-8 not windows-1254", b("<p>" + turkish), "text/html; charset=windows-1254", "<p>" + turkish, "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, enc, err := Decode(tt.body, tt.contentType)
			if err != nil {
				t.Fatalf("Decode(%q, %q) error: %v", tt.body, tt.contentType, err)
			}
			if string(got) != tt.want || enc != tt.wantEnc {
				t.Errorf("Decode(%q, %q) = %q, %q; want %q, %q", tt.body, tt.contentType, got, enc, tt.want, tt.wantEnc)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("<meta charset=windows-1254>\xfe\xfd"), "")
	f.Add([]byte("\xff\xfe<\x00p\x00"), "text/html")
	f.Add([]byte("\xfe\xff\x00"), "")
	f.Add([]byte("caf\xe9"), "text/html; charset=utf-8")
	f.Add([]byte("\x1b$)C\x0e"), "text/html; charset=iso-2022-kr")
	f.Add([]byte("\x82\xa0"), "text/html; charset=shift_jis")
	f.Add([]byte("\x81"), "text/html; charset=gb18030")
	f.Add([]byte("\x81"), "text/html; charset=x-user-defined")
	f.Add([]byte(`<meta charset=gb2312>`+chinese), "")
	f.Add([]byte(`<meta charset=windows-1254>`+turkish), "text/html; charset=gb2312")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		got, enc, err := Decode(body, contentType)
		if err != nil {
			t.Fatalf("Decode(%q, %q) error: %v", body, contentType, err)
		}
		if !utf8.Valid(got) {
			t.Errorf("Decode(%q, %q) = %q (%s), not valid UTF-8", body, contentType, got, enc)
		}
		if enc == "" {
			t.Errorf("Decode(%q, %q): no encoding name", body, contentType)
		}
		// UTF-8 with characters outside ASCII is taken as UTF-8
		// whatever a <meta> says.
		if contentTypeCharset(contentType) == "" && utf8.Valid(body) && !bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) &&
			bytes.ContainsFunc(body, func(r rune) bool { return r >= utf8.RuneSelf }) && (enc != "utf-8" || !bytes.Equal(got, body)) {
			t.Errorf("Decode(%q, %q) = %q, %q; want the body as UTF-8", body, contentType, got, enc)
		}
	})
}

func TestDecodeThenParse(t *testing.T) {
	page := `<html lang=tr><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-9"><title>` + turkish + `</title></head>` +
		`<body><p>` + turkish + `</p><a href="/öğrenci">Öğrenci İşleri</a></body></html>`
	body := encode(t, charmap.Windows1254, page)
	utf, enc, err := Decode(body, "text/html")
	if err != nil || enc != "windows-1254" {
		t.Fatalf("Decode: %q, %v", enc, err)
	}
	doc := mustParse(t, string(utf), Options{})
	if wantText := turkish + "\nÖğrenci İşleri"; doc.Title != turkish || doc.Text != wantText || doc.Lang != "tr" {
		t.Errorf("Parse(Decode(page)): Title %q, Text %q, Lang %q; want %q, %q, %q", doc.Title, doc.Text, doc.Lang, turkish, wantText, "tr")
	}
	want := []Link{{URL: "https://www.uni.example/%C3%B6%C4%9Frenci", Anchor: "Öğrenci İşleri"}}
	if !reflect.DeepEqual(doc.Links, want) {
		t.Errorf("Parse(Decode(page)).Links = %+v, want %+v", doc.Links, want)
	}
}
