package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// parseAll parses data and collects the entries.
func parseAll(data []byte, lim Limits) (Kind, []Entry, error) {
	var got []Entry
	kind, err := Parse(bytes.NewReader(data), lim, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	return kind, got, err
}

// gz compresses data.
func gz(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(data); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// page is an entry with only a Loc, as text sitemaps and bare <url>s give.
func page(loc string) Entry { return Entry{Loc: loc, Priority: -1} }

// date is a UTC time.
func date(y int, m time.Month, d, h, min, s, ns int) time.Time {
	return time.Date(y, m, d, h, min, s, ns, time.UTC)
}

// checkParse parses input and compares kind, entries and error.
func checkParse(t *testing.T, input []byte, wantKind Kind, want []Entry, wantErr error) {
	t.Helper()
	kind, got, err := parseAll(input, Limits{})
	if kind != wantKind || !slices.EqualFunc(got, want, Entry.equal) || !errors.Is(err, wantErr) || (wantErr == nil && err != nil) {
		t.Errorf("Parse(%.200q) = %v, %v, %v; want %v, %v, %v", input, kind, got, err, wantKind, want, wantErr)
	}
}

// equal compares entries, times by instant.
func (e Entry) equal(f Entry) bool {
	return e.Loc == f.Loc && e.LastMod.Equal(f.LastMod) && e.ChangeFreq == f.ChangeFreq && e.Priority == f.Priority
}

const urlsetAllFields = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url>
    <loc>https://www.example.edu/</loc>
    <lastmod>2024-05-03</lastmod>
    <changefreq>Daily</changefreq>
    <priority>1.0</priority>
  </url>
  <url>
    <loc>https://www.example.edu/research/?a=1&amp;b=2</loc>
    <lastmod>2024-05-03T10:00:00+02:00</lastmod>
    <changefreq>weekly</changefreq>
    <priority>0.8</priority>
  </url>
  <url>
    <loc>https://www.example.edu/people/</loc>
  </url>
</urlset>
`

var urlsetAllFieldsWant = []Entry{
	{Loc: "https://www.example.edu/", LastMod: date(2024, 5, 3, 0, 0, 0, 0), ChangeFreq: "daily", Priority: 1},
	{Loc: "https://www.example.edu/research/?a=1&b=2", LastMod: date(2024, 5, 3, 8, 0, 0, 0), ChangeFreq: "weekly", Priority: 0.8},
	page("https://www.example.edu/people/"),
}

const index = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap>
    <loc>https://www.example.edu/sitemap-pages.xml</loc>
    <lastmod>2024-05-03T10:00:00Z</lastmod>
  </sitemap>
  <sitemap>
    <loc>https://www.example.edu/sitemap-news.xml.gz</loc>
    <changefreq>daily</changefreq>
    <priority>0.5</priority>
  </sitemap>
</sitemapindex>
`

var indexWant = []Entry{
	{Loc: "https://www.example.edu/sitemap-pages.xml", LastMod: date(2024, 5, 3, 10, 0, 0, 0), Priority: -1},
	page("https://www.example.edu/sitemap-news.xml.gz"),
}

const textSitemap = "\xef\xbb\xbfhttps://www.example.edu/\r\n" +
	"  http://www.example.edu/a b\n" +
	"# a comment\n" +
	"\n" +
	"HTTPS://www.example.edu/upper\n" +
	"/relative/path\n" +
	"ftp://www.example.edu/file\n" +
	"https://\n" +
	"\thttps://www.example.edu/last"

var textWant = []Entry{
	page("https://www.example.edu/"),
	page("HTTPS://www.example.edu/upper"),
	page("https://www.example.edu/last"),
}

func TestParseKinds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		kind  Kind
		want  []Entry
	}{
		{"urlset", urlsetAllFields, URLSet, urlsetAllFieldsWant},
		{"index", index, Index, indexWant},
		{"text", textSitemap, Text, textWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkParse(t, []byte(tc.input), tc.kind, tc.want, nil)
		})
		t.Run(tc.name+" gzip", func(t *testing.T) {
			checkParse(t, gz(t, []byte(tc.input)), tc.kind, tc.want, nil)
		})
		t.Run(tc.name+" one byte at a time", func(t *testing.T) {
			var got []Entry
			kind, err := Parse(iotest.OneByteReader(strings.NewReader(tc.input)), Limits{}, func(e Entry) error {
				got = append(got, e)
				return nil
			})
			if kind != tc.kind || err != nil || !slices.EqualFunc(got, tc.want, Entry.equal) {
				t.Errorf("Parse(OneByteReader(%q)) = %v, %v, %v; want %v, %v, nil", tc.input, kind, got, err, tc.kind, tc.want)
			}
		})
	}
}

// TestParseGzipMultistream: concatenated gzip members are one file.
func TestParseGzipMultistream(t *testing.T) {
	half := len(urlsetAllFields) / 2
	data := append(gz(t, []byte(urlsetAllFields[:half])), gz(t, []byte(urlsetAllFields[half:]))...)
	checkParse(t, data, URLSet, urlsetAllFieldsWant, nil)
}

func TestParseNamespaces(t *testing.T) {
	one := []Entry{page("https://a.example/")}
	for _, input := range []string{
		`<urlset><url><loc>https://a.example/</loc></url></urlset>`,
		`<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>https://a.example/</loc></url></urlset>`,
		`<urlset xmlns="https://www.sitemaps.org/schemas/sitemap/0.9/"><url><loc>https://a.example/</loc></url></urlset>`,
		`<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://a.example/</sm:loc></sm:url></sm:urlset>`,
		`<sm:urlset><sm:url><loc>https://a.example/</loc></sm:url></sm:urlset>`,
		`<urlset xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd" xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
			`<url><loc>https://a.example/</loc></url></urlset>`,
	} {
		t.Run(input, func(t *testing.T) {
			checkParse(t, []byte(input), URLSet, one, nil)
		})
	}
}

// TestParseExtensions: image, video, news and xhtml:link children are
// ignored, including the loc-named elements inside them.
func TestParseExtensions(t *testing.T) {
	data, err := os.ReadFile("testdata/extensions.xml")
	if err != nil {
		t.Fatal(err)
	}
	checkParse(t, data, URLSet, []Entry{
		{Loc: "https://news.example.edu/2024/05/telescope.html", LastMod: date(2024, 5, 2, 16, 30, 0, 0), ChangeFreq: "never", Priority: 0.6},
		page("https://www.example.edu/en/"),
		page("https://www.example.edu/video/lecture-1"),
	}, nil)
}

func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  []Entry
	}{
		{"https://a.example/\n", []Entry{page("https://a.example/")}},
		{"https://a.example/", []Entry{page("https://a.example/")}},
		{"https://a.example/1\rhttps://a.example/2\r", []Entry{page("https://a.example/1"), page("https://a.example/2")}},
		{"https://a.example/1\r\nhttps://a.example/2\r\n", []Entry{page("https://a.example/1"), page("https://a.example/2")}},
		{"\n\n  \nhttp://a.example/x?q=1&r=2#f  \n", []Entry{page("http://a.example/x?q=1&r=2#f")}},
		{"https://a.example/é\n", []Entry{page("https://a.example/é")}},
		{"# list\nhttps://a.example/\nnot a url\n", []Entry{page("https://a.example/")}},
		{"https://a.example/caf\xe9\n\xff\xfe not a URL\n", []Entry{page("https://a.example/caf\xe9")}},
	} {
		t.Run(tc.input, func(t *testing.T) {
			checkParse(t, []byte(tc.input), Text, tc.want, nil)
		})
	}
}

func TestParseTextNotSitemap(t *testing.T) {
	for _, input := range []string{
		"",
		"   \n\t\n",
		"\xef\xbb\xbf",
		"just some words\nand more\n",
		`{"urls": ["https://a.example/"]}`,
		"/relative\n./x\n",
		"\x00\x01\x02https://a.example/\n",
		"\xff\xfeh\x00t\x00t\x00p\x00", // UTF-16
	} {
		t.Run(input, func(t *testing.T) {
			checkParse(t, []byte(input), Unknown, nil, ErrNotSitemap)
		})
	}
}

// TestParseXMLText covers entities, CDATA, white space and encodings in
// element text.
func TestParseXMLText(t *testing.T) {
	for _, tc := range []struct {
		loc  string // the XML inside <loc>
		want string // the Loc
	}{
		{"https://a.example/?a=1&amp;b=2", "https://a.example/?a=1&b=2"},
		{"https://a.example/?a=1&b=2", "https://a.example/?a=1&b=2"},        // unescaped '&' kept
		{"https://a.example/?a=1&b=2;c", "https://a.example/?a=1&b=2;c"},    // looks like an entity, names none
		{"https://a.example/&nbsp;x", "https://a.example/&nbsp;x"},          // HTML entity kept
		{"https://a.example/&#x41;&#66;&#x1F600;", "https://a.example/AB😀"}, // character references
		{"https://a.example/&#;&#x;&#xZZ;&#1114112;", "https://a.example/&#;&#x;&#xZZ;&#1114112;"},
		{"https://a.example/&lt;&gt;&quot;&apos;", `https://a.example/<>"'`},
		{"https://a.example/&amp", "https://a.example/&amp"},
		{"<![CDATA[https://a.example/?a=1&b=2]]>", "https://a.example/?a=1&b=2"},
		{"<![CDATA[https://a.example/?a=1&amp;b=<2>]]>", "https://a.example/?a=1&amp;b=<2>"},
		{"<![CDATA[https://a.example/]]]]><![CDATA[>]]>", "https://a.example/]]>"},
		{"https://a.example/<!-- comment -->x", "https://a.example/x"},
		{"https://a.example/<?pi x?>y", "https://a.example/y"},
		{"  \n\t https://a.example/ \r\n ", "https://a.example/"},
		{"https://a.example/a\r\nb\rc", "https://a.example/a\nb\nc"},
		{"https://a.example/<b>bold</b>x", "https://a.example/x"}, // only the direct text
		{"https://a.example/é", "https://a.example/é"},
		{"https://a.example/\xe9", "https://a.example/\xe9"}, // invalid UTF-8 passed through
	} {
		t.Run(tc.loc, func(t *testing.T) {
			input := "<urlset><url><loc>" + tc.loc + "</loc></url></urlset>"
			checkParse(t, []byte(input), URLSet, []Entry{page(tc.want)}, nil)
		})
	}
}

func TestParseEncoding(t *testing.T) {
	for _, tc := range []struct {
		decl string
		want string
	}{
		{`<?xml version="1.0" encoding="ISO-8859-1"?>`, "https://a.example/café€"},
		{`<?xml version='1.0' encoding='windows-1252' ?>`, "https://a.example/café€"},
		{`<?xml version="1.0" encoding = "latin1"?>`, "https://a.example/café€"},
		{`<?xml version="1.0" encoding="UTF-8"?>`, "https://a.example/caf\xe9\x80"},
		{`<?xml version="1.0" encoding="Shift_JIS"?>`, "https://a.example/caf\xe9\x80"},
		{``, "https://a.example/caf\xe9\x80"},
	} {
		t.Run(tc.decl, func(t *testing.T) {
			input := tc.decl + "\n<urlset><url><loc>https://a.example/caf\xe9\x80</loc></url></urlset>"
			checkParse(t, []byte(input), URLSet, []Entry{page(tc.want)}, nil)
		})
	}
	// A UTF-8 byte order mark settles the encoding: a declaration naming
	// another one is wrong (XML 1.0 section 4.3.3 and appendix F; the
	// WHATWG Encoding Standard's decode lets the BOM win).
	t.Run("BOM and ISO-8859-1 declared", func(t *testing.T) {
		input := "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<urlset><url><loc>https://a.example/café</loc></url></urlset>"
		checkParse(t, []byte(input), URLSet, []Entry{page("https://a.example/café")}, nil)
	})
}

// TestParseSkippedEntries: entries without a usable loc are left out, the
// others stand.
func TestParseSkippedEntries(t *testing.T) {
	long := "https://a.example/" + strings.Repeat("x", MaxLocLen-len("https://a.example/"))
	for _, tc := range []struct {
		name string
		urls string
		want []Entry
	}{
		{"no loc", "<url><lastmod>2024</lastmod></url>", nil},
		{"empty loc", "<url><loc></loc></url><url><loc> </loc></url><url><loc/></url>", nil},
		{"longest loc", "<url><loc>" + long + "</loc></url>", []Entry{page(long)}},
		{"longest loc padded", "<url><loc>\n  " + long + strings.Repeat(" ", 5000) + "</loc></url>", []Entry{page(long)}},
		{"loc too long", "<url><loc>" + long + "y</loc></url><url><loc>https://b.example/</loc></url>", []Entry{page("https://b.example/")}},
		{"loc too long inside", "<url><loc>" + long[:100] + strings.Repeat(" ", MaxLocLen) + "y</loc></url>", nil},
		{"first loc counts", "<url><loc>https://a.example/1</loc><loc>https://a.example/2</loc></url>", []Entry{page("https://a.example/1")}},
		{"first of each field counts", "<url><loc>https://a.example/</loc><priority>0.1</priority><priority>0.9</priority><changefreq>x</changefreq><changefreq>daily</changefreq></url>",
			[]Entry{{Loc: "https://a.example/", Priority: 0.1}}},
		{"loc not a direct child", "<url><x><loc>https://a.example/</loc></x></url>", nil},
		{"url not a direct child", "<x><url><loc>https://a.example/</loc></url></x>", nil},
		{"sitemap in urlset", "<sitemap><loc>https://a.example/</loc></sitemap>", nil},
		{"field outside url", "<loc>https://a.example/</loc><url><loc>https://b.example/</loc></url>", []Entry{page("https://b.example/")}},
		{"relative loc kept", "<url><loc>/relative</loc></url>", []Entry{page("/relative")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkParse(t, []byte("<urlset>"+tc.urls+"</urlset>"), URLSet, tc.want, nil)
		})
	}
}

func TestParseFields(t *testing.T) {
	for _, tc := range []struct {
		xml  string
		want Entry
	}{
		{"<changefreq> ALWAYS </changefreq>", Entry{ChangeFreq: "always", Priority: -1}},
		{"<changefreq>hourly</changefreq>", Entry{ChangeFreq: "hourly", Priority: -1}},
		{"<changefreq>monthly</changefreq>", Entry{ChangeFreq: "monthly", Priority: -1}},
		{"<changefreq>Yearly</changefreq>", Entry{ChangeFreq: "yearly", Priority: -1}},
		{"<changefreq>never</changefreq>", Entry{ChangeFreq: "never", Priority: -1}},
		{"<changefreq>fortnightly</changefreq>", Entry{Priority: -1}},
		{"<changefreq>dailyy</changefreq>", Entry{Priority: -1}},
		{"<priority>0.5</priority>", Entry{Priority: 0.5}},
		{"<priority>0</priority>", Entry{Priority: 0}},
		{"<priority>.3</priority>", Entry{Priority: 0.3}},
		{"<priority>1.</priority>", Entry{Priority: 1}},
		{"<priority>1.01</priority>", Entry{Priority: -1}},
		{"<priority>-0.5</priority>", Entry{Priority: -1}},
		{"<priority>0,5</priority>", Entry{Priority: -1}},
		{"<priority>5e-1</priority>", Entry{Priority: -1}},
		{"<priority>NaN</priority>", Entry{Priority: -1}},
		{"<priority>.</priority>", Entry{Priority: -1}},
		{"<priority></priority>", Entry{Priority: -1}},
		{"<lastmod>2024-02-29</lastmod>", Entry{LastMod: date(2024, 2, 29, 0, 0, 0, 0), Priority: -1}},
		{"<lastmod>2023-02-29</lastmod>", Entry{Priority: -1}},
		{"<lastmod>" + strings.Repeat(" ", 100) + "2024</lastmod>", Entry{LastMod: date(2024, 1, 1, 0, 0, 0, 0), Priority: -1}},
		{"<lastmod>2024" + strings.Repeat("0", 100) + "</lastmod>", Entry{Priority: -1}},
	} {
		t.Run(tc.xml, func(t *testing.T) {
			tc.want.Loc = "https://a.example/"
			input := "<urlset><url><loc>https://a.example/</loc>" + tc.xml + "</url></urlset>"
			checkParse(t, []byte(input), URLSet, []Entry{tc.want}, nil)
		})
	}
}

func TestParseLastMod(t *testing.T) {
	plus2 := time.FixedZone("+02:00", 2*3600)
	for _, tc := range []struct {
		in   string
		want time.Time // zero: invalid
	}{
		{"2024", date(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-05", date(2024, 5, 1, 0, 0, 0, 0)},
		{"2024-05-03", date(2024, 5, 3, 0, 0, 0, 0)},
		{"2024-05-03T10:00Z", date(2024, 5, 3, 10, 0, 0, 0)},
		{"2024-05-03T10:00:59Z", date(2024, 5, 3, 10, 0, 59, 0)},
		{"2024-05-03T10:00:59.5Z", date(2024, 5, 3, 10, 0, 59, 500_000_000)},
		{"2024-05-03T10:00:59.123456789Z", date(2024, 5, 3, 10, 0, 59, 123456789)},
		{"2024-05-03T10:00:59.1234567891234Z", date(2024, 5, 3, 10, 0, 59, 123456789)},
		{"2024-05-03T10:00:59,25Z", date(2024, 5, 3, 10, 0, 59, 250_000_000)},
		{"2024-05-03T10:00+02:00", time.Date(2024, 5, 3, 10, 0, 0, 0, plus2)},
		{"2024-05-03T10:00:00+02:00", time.Date(2024, 5, 3, 10, 0, 0, 0, plus2)},
		{"2024-05-03T10:00:00.000+02:00", time.Date(2024, 5, 3, 10, 0, 0, 0, plus2)},
		{"2024-05-03T10:00:00+0200", time.Date(2024, 5, 3, 10, 0, 0, 0, plus2)},
		{"2024-05-03T10:00:00+02", time.Date(2024, 5, 3, 10, 0, 0, 0, plus2)},
		{"2024-05-03T01:00:00-05:30", date(2024, 5, 3, 6, 30, 0, 0)},
		{"2024-01-01T00:30:00+01:00", date(2023, 12, 31, 23, 30, 0, 0)},
		{"2024-05-03T10:00:00", date(2024, 5, 3, 10, 0, 0, 0)},
		{"2024-05-03 10:00:00", date(2024, 5, 3, 10, 0, 0, 0)},
		{"2024-05-03t10:00:00z", date(2024, 5, 3, 10, 0, 0, 0)},
		{"2024-05-03T23:59:59.999999999-23:59", date(2024, 5, 4, 23, 58, 59, 999999999)},
		{"", time.Time{}},
		{"24", time.Time{}},
		{"20240503", time.Time{}},
		{"2024-5-3", time.Time{}},
		{"2024-13", time.Time{}},
		{"2024-00", time.Time{}},
		{"2024-04-31", time.Time{}},
		{"1900-02-29", time.Time{}},
		{"2000-02-29", date(2000, 2, 29, 0, 0, 0, 0)},
		{"2024-05-03T", time.Time{}},
		{"2024-05-03T10", time.Time{}},
		{"2024-05-03T10:00:", time.Time{}},
		{"2024-05-03T24:00Z", time.Time{}},
		{"2024-05-03T10:60Z", time.Time{}},
		{"2024-05-03T10:00:60Z", time.Time{}},
		{"2024-05-03T10:00:00.Z", time.Time{}},
		{"2024-05-03T10:00:00+24:00", time.Time{}},
		{"2024-05-03T10:00:00+02:60", time.Time{}},
		{"2024-05-03T10:00:00+2", time.Time{}},
		{"2024-05-03T10:00:00+02:0", time.Time{}},
		{"2024-05-03T10:00:00 +02:00", time.Time{}},
		{"2024-05-03T10:00:00ZZ", time.Time{}},
		{"2024-05-03T10:00:00Z\x00", time.Time{}},
		{"2024-05-03+02:00", time.Time{}},
		{"Fri, 03 May 2024 10:00:00 GMT", time.Time{}},
		{"２０２４", time.Time{}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := parseLastMod([]byte(tc.in))
			if ok != !tc.want.IsZero() || !got.Equal(tc.want) || (ok && got.Location() != time.UTC) {
				t.Errorf("parseLastMod(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
			}
		})
	}
}

func TestParseNotSitemap(t *testing.T) {
	for _, input := range []string{
		"<!DOCTYPE html>\n<html lang=en><head><title>Not found</title></head><body><p>Sorry</p></body></html>",
		"<html><body><a href=\"https://a.example/\">x</a>",
		`<?xml version="1.0"?><rss version="2.0"><channel><item><link>https://a.example/</link></item></channel></rss>`,
		`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://a.example/"/></entry></feed>`,
		`<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>`,
		`<?xml version="1.0"?>`,
		`<!-- nothing -->`,
		`<url><loc>https://a.example/</loc></url>`,
		`<URLSET><URL><LOC>https://a.example/</LOC></URL></URLSET>`, // names are case-sensitive
	} {
		t.Run(input, func(t *testing.T) {
			checkParse(t, []byte(input), Unknown, nil, ErrNotSitemap)
		})
	}
}

func TestParseMalformed(t *testing.T) {
	const head = "<urlset><url><loc>https://a.example/1</loc></url>"
	one := []Entry{page("https://a.example/1")}
	for _, tc := range []struct {
		name  string
		input string
		kind  Kind
		want  []Entry
		line  string
	}{
		{"truncated in text", head + "<url><loc>https://a.exam", URLSet, one, "line 1"},
		{"truncated in tag", head + "<url><lo", URLSet, one, "line 1"},
		{"truncated after url", head, URLSet, one, "line 1"},
		{"truncated after <", head + "<", URLSet, one, "line 1"},
		{"truncated in comment", head + "<!-- x -", URLSet, one, "line 1"},
		{"truncated in CDATA", head + "<url><loc><![CDATA[https://a.example/2]]", URLSet, one, "line 1"},
		{"truncated in quotes", head + "<url a='>", URLSet, one, "line 1"},
		{"truncated in declaration", "<!DOCTYPE x [ <!ENTITY a 'b'> ", Unknown, nil, "line 1"},
		{"truncated before root", "<?xml version='1.0'?>\n<urlse", Unknown, nil, "line 2"},
		{"mismatched end tag", head + "\n<url><loc>https://a.example/2</url></loc>", URLSet, one, "line 2"},
		{"end tag before root", "</urlset>", Unknown, nil, "line 1"},
		{"end tag with a prefix", "<a:urlset><url><loc>https://a.example/1</loc></url></b:urlset>", URLSet, one, "line 1"},
		{"garbage", head + "\n\n<<<>>>", URLSet, one, "line 3"},
		{"space after <", head + "< url>", URLSet, one, "line 1"},
		{"empty end tag", head + "</>", URLSet, one, "line 1"},
		{"lt in tag", head + "<url <loc>", URLSet, one, "line 1"},
		{"binary after root start", head + "\n\x00\x01<\x02", URLSet, one, "line 2"},
		{"deep nesting", head + strings.Repeat("<a>", maxDepth), URLSet, one, "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, got, err := parseAll([]byte(tc.input), Limits{})
			if kind != tc.kind || !slices.EqualFunc(got, tc.want, Entry.equal) || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.line+":") {
				t.Errorf("Parse(%q) = %v, %v, %v; want %v, %v, ErrMalformed at %s", tc.input, kind, got, err, tc.kind, tc.want, tc.line)
			}
		})
	}
}

// TestParseLenient: common faults of real files that are read anyway.
func TestParseLenient(t *testing.T) {
	one := []Entry{page("https://a.example/")}
	for _, input := range []string{
		"\xef\xbb\xbf<?xml version=\"1.0\"?><urlset><url><loc>https://a.example/</loc></url></urlset>",
		"\n\n  <?xml version=\"1.0\"?><urlset><url><loc>https://a.example/</loc></url></urlset>",
		"<urlset a=b><url><loc>https://a.example/</loc></url></urlset>",
		"<urlset><url><loc>https://a.example/</loc></url></urlset>\n<html>trailing junk is not read<",
		"<urlset ><url\n><loc\t>https://a.example/</loc ></url\n></urlset\r\n>",
		"<urlset><url><loc>https://a.example/</loc><!-- a -- b --></url></urlset>",
		"<urlset><url><loc>https://a.example/</loc><image:image a='x>y' b=\"<\"/></url></urlset>",
		"<br />\n<b>Warning</b>: Cannot modify header information in /var/www/wp-includes/functions.php on line 42<br />\n" +
			"<?xml version=\"1.0\"?><urlset><url><loc>https://a.example/</loc></url></urlset>",
		"Notice: undefined index\n<urlset><url><loc>https://a.example/</loc></url></urlset>",
	} {
		t.Run(input, func(t *testing.T) {
			checkParse(t, []byte(input), URLSet, one, nil)
		})
	}
}

// TestParseEntityExpansion: entities declared in a DOCTYPE are not expanded,
// so a billion laughs document is small work.
func TestParseEntityExpansion(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("<?xml version=\"1.0\"?>\n<!DOCTYPE urlset [\n  <!ENTITY lol \"lol\">\n  <!-- a comment with > inside -->\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&doc, "  <!ENTITY lol%d \"%s\">\n", i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	doc.WriteString("  <!ENTITY ext SYSTEM \"file:///etc/passwd\">\n]>\n<urlset><url><loc>https://a.example/&lol9;&ext;</loc></url></urlset>\n")
	checkParse(t, []byte(doc.String()), URLSet, []Entry{page("https://a.example/&lol9;&ext;")}, nil)
}

func TestParseMaxURLs(t *testing.T) {
	urlset := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("<urlset>\n")
		for i := range n {
			fmt.Fprintf(&b, "<url><loc>https://a.example/%d</loc></url>\n", i)
		}
		b.WriteString("</urlset>\n")
		return b.Bytes()
	}
	text := func(n int) []byte {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "https://a.example/%d\n", i)
		}
		return b.Bytes()
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		kind    Kind
		max     int
		want    int
		wantErr error
	}{
		{"urlset 50000", urlset(50_000), URLSet, 0, 50_000, nil},
		{"urlset 50001", urlset(50_001), URLSet, 0, 50_000, ErrTooManyURLs},
		{"text 50001", text(50_001), Text, 0, 50_000, ErrTooManyURLs},
		{"urlset 3 of 3", urlset(3), URLSet, 3, 3, nil},
		{"urlset 3 of 4", urlset(4), URLSet, 3, 3, ErrTooManyURLs},
		{"text 1 of 2", text(2), Text, 1, 1, ErrTooManyURLs},
		{"gzip urlset 50001", gz(t, urlset(50_001)), URLSet, 0, 50_000, ErrTooManyURLs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, got, err := parseAll(tc.data, Limits{MaxURLs: tc.max})
			if kind != tc.kind || len(got) != tc.want || err != tc.wantErr {
				t.Fatalf("Parse(%s, MaxURLs %d) = %v, %d entries, %v; want %v, %d, %v", tc.name, tc.max, kind, len(got), err, tc.kind, tc.want, tc.wantErr)
			}
			for i, e := range got {
				if want := fmt.Sprintf("https://a.example/%d", i); e.Loc != want {
					t.Fatalf("Parse(%s): entry %d is %q, want %q", tc.name, i, e.Loc, want)
				}
			}
		})
	}
}

func TestParseMaxBytes(t *testing.T) {
	doc := []byte(urlsetAllFields)
	end := bytes.Index(doc, []byte("</url>")) + len("</url>")
	for _, tc := range []struct {
		name    string
		max     int64
		want    int
		kind    Kind
		wantErr error
	}{
		{"exactly", int64(len(doc)), 3, URLSet, nil},
		{"after the root", int64(len(doc) - 1), 3, URLSet, nil}, // what follows the root is not read
		{"inside the root's end tag", int64(len(doc) - 2), 3, URLSet, ErrTooLarge},
		{"after the first url", int64(end), 1, URLSet, ErrTooLarge},
		{"inside the first url", int64(end - 1), 0, URLSet, ErrTooLarge},
		{"before the root", 10, 0, Unknown, ErrTooLarge},
	} {
		for _, compress := range []bool{false, true} {
			data := doc
			if compress {
				data = gz(t, doc)
			}
			t.Run(fmt.Sprintf("%s gzip=%v", tc.name, compress), func(t *testing.T) {
				kind, got, err := parseAll(data, Limits{MaxBytes: tc.max})
				if kind != tc.kind || len(got) != tc.want || err != tc.wantErr {
					t.Errorf("Parse(MaxBytes %d) = %v, %d entries, %v; want %v, %d, %v", tc.max, kind, len(got), err, tc.kind, tc.want, tc.wantErr)
				}
			})
		}
	}
	t.Run("largest limit", func(t *testing.T) {
		kind, got, err := parseAll(doc, Limits{MaxBytes: math.MaxInt64})
		if kind != URLSet || !slices.EqualFunc(got, urlsetAllFieldsWant, Entry.equal) || err != nil {
			t.Errorf("Parse(MaxBytes MaxInt64) = %v, %v, %v; want urlset, %v, nil", kind, got, err, urlsetAllFieldsWant)
		}
	})
	t.Run("text line cut by the limit", func(t *testing.T) {
		data := []byte("https://a.example/1\nhttps://a.example/22\n")
		kind, got, err := parseAll(data, Limits{MaxBytes: int64(len(data) - 2)})
		if kind != Text || !slices.EqualFunc(got, []Entry{page("https://a.example/1")}, Entry.equal) || err != ErrTooLarge {
			t.Errorf("Parse(%q, MaxBytes %d) = %v, %v, %v; want text, [https://a.example/1], ErrTooLarge", data, len(data)-2, kind, got, err)
		}
	})
}

// bomb is an endless gzip stream: head, then member repeated forever. Each
// member is a gzip of 1 MiB of fill.
type bomb struct {
	head   []byte
	member []byte
	off    int
}

func newBomb(tb testing.TB, head string, fill string) *bomb {
	tb.Helper()
	return &bomb{head: gz(tb, []byte(head)), member: gz(tb, bytes.Repeat([]byte(fill), (1<<20)/len(fill)))}
}

func (b *bomb) Read(p []byte) (int, error) {
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	n := copy(p, b.member[b.off:])
	b.off = (b.off + n) % len(b.member)
	return n, nil
}

// TestParseBombs: endless compressed input ends with ErrTooLarge once
// MaxBytes are decompressed, without holding them.
func TestParseBombs(t *testing.T) {
	for _, tc := range []struct {
		name string
		head string
		fill string
		want int
	}{
		{"white space", "<urlset><url><loc>https://a.example/</loc></url>", " \n", 1},
		{"comment", "<urlset><!--", "lol", 0},
		{"one loc", "<urlset><url><loc>https://a.example/</loc></url><url><loc>https://a.example/", "a", 1},
		{"one attribute", "<urlset><url a='", "a", 0},
		{"one name", "<urlset><url", "a", 0},
		{"text lines", "https://a.example/\n", "\n", 1},
		{"one text line", "https://a.example/\nhttps://", "a", 1},
		{"deep nesting", "<urlset>", "<a>", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const max = 16 << 20
			r := newBomb(t, tc.head, tc.fill)
			var before, after runtimeMem
			before.read()
			kind, got, err := func() (Kind, []Entry, error) {
				var got []Entry
				kind, err := Parse(r, Limits{MaxBytes: max}, func(e Entry) error {
					got = append(got, e)
					return nil
				})
				return kind, got, err
			}()
			after.read()
			wantErr := ErrTooLarge
			if tc.name == "deep nesting" {
				wantErr = ErrMalformed
			}
			if kind == Unknown || len(got) != tc.want || !errors.Is(err, wantErr) {
				t.Errorf("Parse(%s bomb) = %v, %d entries, %v; want %d entries, %v", tc.name, kind, len(got), err, tc.want, wantErr)
			}
			if alloc := after.total - before.total; alloc > 1<<20 {
				t.Errorf("Parse(%s bomb) allocated %d bytes for %d bytes of input", tc.name, alloc, max)
			}
		})
	}
}

// TestParseFnError: fn's error stops parsing and comes back as it is.
func TestParseFnError(t *testing.T) {
	stop := errors.New("stop")
	for _, tc := range []struct {
		name  string
		input []byte
		kind  Kind
	}{
		{"urlset", []byte(urlsetAllFields), URLSet},
		{"index", []byte(index), Index},
		{"text", []byte(textSitemap), Text},
		{"gzip", gz(t, []byte(urlsetAllFields)), URLSet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			kind, err := Parse(bytes.NewReader(tc.input), Limits{}, func(Entry) error {
				calls++
				if calls == 2 {
					return stop
				}
				return nil
			})
			if kind != tc.kind || err != stop || calls != 2 {
				t.Errorf("Parse(%s) with fn failing on the 2nd entry = %v, %v after %d calls; want %v, %v after 2", tc.name, kind, err, calls, tc.kind, stop)
			}
		})
	}
}

// TestParseReadErrors: errors from the reader and from gzip are wrapped; the
// entries before them stand.
func TestParseReadErrors(t *testing.T) {
	boom := errors.New("connection reset")
	for _, tc := range []struct {
		name string
		r    io.Reader
		kind Kind
		want int
		is   error
	}{
		{"xml", io.MultiReader(strings.NewReader("<urlset><url><loc>https://a.example/</loc></url>"), iotest.ErrReader(boom)), URLSet, 1, boom},
		{"text", io.MultiReader(strings.NewReader("https://a.example/\nhttps://a.example/2"), iotest.ErrReader(boom)), Text, 1, boom},
		{"xml data and error", iotest.DataErrReader(io.MultiReader(strings.NewReader("<urlset><url><loc>https://a.example/</loc></url>"), iotest.ErrReader(boom))), URLSet, 1, boom},
		{"before anything", iotest.ErrReader(boom), Unknown, 0, boom},
		{"gzip header", strings.NewReader("\x1f\x8bxxxxxxxxxxxxxxxxxxxxxxxxx"), Unknown, 0, gzip.ErrHeader},
		{"gzip truncated", bytes.NewReader(gz(t, []byte(urlsetAllFields))[:200]), URLSet, 1, io.ErrUnexpectedEOF},
		{"gzip checksum", bytes.NewReader(corruptCRC(gz(t, []byte("https://a.example/\n")))), Text, 1, gzip.ErrChecksum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			kind, err := Parse(tc.r, Limits{}, func(Entry) error { n++; return nil })
			if kind != tc.kind || n != tc.want || !errors.Is(err, tc.is) || !strings.HasPrefix(err.Error(), "sitemap: ") {
				t.Errorf("Parse(%s) = %v, %d entries, %v; want %v, %d, an error wrapping %v", tc.name, kind, n, err, tc.kind, tc.want, tc.is)
			}
		})
	}
}

// corruptCRC flips a bit of a gzip file's CRC-32.
func corruptCRC(data []byte) []byte {
	data = slices.Clone(data)
	data[len(data)-8] ^= 1
	return data
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Unknown: "unknown", URLSet: "urlset", Index: "sitemapindex", Text: "text", Kind(9): "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
