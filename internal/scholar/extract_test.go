package scholar

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExtractEmpty(t *testing.T) {
	for _, body := range []string{"", "<", "<html>", "\x00\xff", "<meta name=citation_title>"} {
		md := Extract([]byte(body), "", "", nil)
		if md == nil || md.Type != TypeOther || md.Title != "" || len(md.Sources) != 0 {
			t.Errorf("Extract(%q) = %+v, want an empty record of type other", body, md)
		}
	}
}

func TestExtractTrust(t *testing.T) {
	body := `<html><head>
<meta property="og:title" content="OG title">
<meta name="DC.title" content="DC title">
<meta name="dc.date" content="1999">
<meta name="citation_title" content="Highwire title">
<script type="application/ld+json">{"@type":"ScholarlyArticle","name":"JSON-LD title","datePublished":"2001-02-03","keywords":"a, b"}</script>
</head></html>`
	md := Extract([]byte(body), "https://example.org/a", "", nil)
	if md.Title != "Highwire title" {
		t.Errorf("Title = %q, want the Highwire one", md.Title)
	}
	if md.Date != "2001-02-03" || md.Year != 2001 {
		t.Errorf("Date, Year = %q, %d, want the JSON-LD date 2001-02-03", md.Date, md.Year)
	}
	if want := []string{"highwire", "jsonld"}; !slices.Equal(md.Sources, want) {
		t.Errorf("Sources = %q, want %q", md.Sources, want)
	}
	if want := []string{"a", "b"}; !slices.Equal(md.Keywords, want) {
		t.Errorf("Keywords = %q, want %q", md.Keywords, want)
	}
}

func TestExtractJSONLDShapes(t *testing.T) {
	tests := []struct {
		name, script, title string
	}{
		{"object", `{"@type":"ScholarlyArticle","headline":"T"}`, "T"},
		{"array", `[{"@type":"WebSite","name":"Site"},{"@type":"ScholarlyArticle","headline":"T"}]`, "T"},
		{"graph", `{"@context":"https://schema.org","@graph":[{"@type":"WebPage","name":"P"},{"@type":["CreativeWork","ScholarlyArticle"],"name":"T"}]}`, "T"},
		{"prefixed type", `{"@type":"schema:ScholarlyArticle","name":"T"}`, "T"},
		{"main entity", `{"@type":"WebPage","mainEntity":{"@type":"Thesis","name":"T"}}`, "T"},
		{"two values", `{"@type":"WebSite","name":"S"} {"@type":"Dataset","name":"T"}`, "T"},
		{"cdata", `//<![CDATA[
{"@type":"ScholarlyArticle","name":"T"}
//]]>`, "T"},
		{"malformed", `{"@type":"ScholarlyArticle","name":"T",}`, ""},
		{"not an object", `"just a string"`, ""},
		{"deep", strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `<script type="application/ld+json; charset=utf-8">` + tt.script + `</script>`
			md := Extract([]byte(body), "https://example.org/", "", nil)
			if md.Title != tt.title {
				t.Errorf("Extract(%s).Title = %q, want %q", tt.name, md.Title, tt.title)
			}
		})
	}
}

func TestExtractJSONLDFields(t *testing.T) {
	body := `<script type="application/ld+json">{
 "@type": "ScholarlyArticle", "headline": "T",
 "author": {"@list": [{"@type":"Person","givenName":"Ana","familyName":"Lima"}, "Kowalski, Tomasz", {"name": "Rossi, Nadia"}]},
 "datePublished": "2020-07",
 "isPartOf": {"@type": "PublicationIssue", "issueNumber": 3,
   "isPartOf": {"@type": "PublicationVolume", "volumeNumber": "12",
     "isPartOf": {"@type": "Periodical", "name": "Journal of Tests", "issn": ["2049-3630", "bad"]}}},
 "pagination": "101–110",
 "identifier": [{"@type": "PropertyValue", "propertyID": "DOI", "value": "10.1000/ABC"}],
 "encoding": {"@type": "MediaObject", "encodingFormat": "application/pdf", "contentUrl": "/files/t.pdf"},
 "url": "https://example.org/t",
 "publisher": "Test Press",
 "keywords": [{"@type": "DefinedTerm", "name": "k1"}, "k2"],
 "description": "An abstract."
}</script>`
	md := Extract([]byte(body), "https://example.org/page", "", nil)
	want := &Metadata{
		Title: "T", Authors: []string{"Ana Lima", "Tomasz Kowalski", "Nadia Rossi"}, Date: "2020-07", Year: 2020,
		Venue: "Journal of Tests", Volume: "12", Issue: "3", FirstPage: "101", LastPage: "110",
		DOI: "10.1000/abc", PDFURL: "https://example.org/files/t.pdf", AbstractURL: "https://example.org/t",
		ISSN: []string{"2049-3630"}, Publisher: "Test Press", Keywords: []string{"k1", "k2"}, Abstract: "An abstract.",
		Type: TypeArticle, TypeRule: "jsonld:ScholarlyArticle", TypeClues: []string{"jsonld:ScholarlyArticle"},
		Sources: []string{"jsonld"}, DOIs: []string{"10.1000/abc"},
	}
	compareFields(t, "jsonld fields", md, want)
}

func TestExtractMicrodataNesting(t *testing.T) {
	// Unclosed <li> and <p>, as real pages have them: each item must keep
	// its own properties.
	body := `<ul>
<li itemscope itemtype="http://schema.org/Person"><span itemprop="name">First Person</span>
<li itemscope itemtype="http://schema.org/ScholarlyArticle"><p><span itemprop="headline">The <i>Real</i> Title</span>
<div itemprop="author" itemscope itemtype="http://schema.org/Person"><span itemprop="name">Ada Lovelace</span></div>
<time itemprop="datePublished" datetime="1843-09-01">September 1843</time>
<a itemprop="url" href="/notes">notes</a>
</ul>`
	md := Extract([]byte(body), "https://example.org/", "", nil)
	if md.Title != "The Real Title" || !slices.Equal(md.Authors, []string{"Ada Lovelace"}) || md.Date != "1843-09-01" {
		t.Errorf("Extract(microdata) = %q by %q on %q, want \"The Real Title\" by Ada Lovelace on 1843-09-01", md.Title, md.Authors, md.Date)
	}
	if md.AbstractURL != "https://example.org/notes" {
		t.Errorf("AbstractURL = %q, want https://example.org/notes", md.AbstractURL)
	}
	if md.TypeRule != "microdata:ScholarlyArticle" {
		t.Errorf("TypeRule = %q, want microdata:ScholarlyArticle", md.TypeRule)
	}
}

func TestExtractCaps(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<meta name="citation_title" content="` + strings.Repeat("Very long title ", 10000) + `">`)
	for i := range 500 {
		fmt.Fprintf(&b, `<meta name="citation_author" content="Author%c Number%c%c">`, 'A'+i%26, 'a'+i/26%26, 'a'+i%7)
	}
	b.WriteString(`<meta name="citation_keywords" content="` + strings.Repeat("kw;", 300) + `">`)
	for i := range 300 {
		fmt.Fprintf(&b, `<meta name="citation_keywords" content="k%d">`, i)
	}
	b.WriteString(`<meta name="citation_abstract" content="` + strings.Repeat("word ", 100000) + `">`)
	b.WriteString(`<meta name="citation_journal_title" content="J` + "\xff\xfe\x00" + `ournal">`)
	var text strings.Builder
	for i := range 300 {
		fmt.Fprintf(&text, "doi:10.1000/%d ", i)
	}
	md := Extract([]byte(b.String()), "https://example.org/", text.String(), nil)
	if len(md.Title) > MaxField || len(md.Title) < MaxField-20 {
		t.Errorf("len(Title) = %d, want just under %d", len(md.Title), MaxField)
	}
	if len(md.Authors) != MaxAuthors {
		t.Errorf("len(Authors) = %d, want %d", len(md.Authors), MaxAuthors)
	}
	if len(md.Keywords) > MaxKeywords {
		t.Errorf("len(Keywords) = %d, want at most %d", len(md.Keywords), MaxKeywords)
	}
	if len(md.Abstract) > MaxAbstract {
		t.Errorf("len(Abstract) = %d, want at most %d", len(md.Abstract), MaxAbstract)
	}
	if md.Venue != "Journal" {
		t.Errorf("Venue = %q, want invalid bytes dropped: \"Journal\"", md.Venue)
	}
	if len(md.DOIs) != MaxDOIs {
		t.Errorf("len(DOIs) = %d, want %d", len(md.DOIs), MaxDOIs)
	}
	checkInvariants(t, md)
}

func TestExtractURLs(t *testing.T) {
	body := `<meta name="citation_journal_title" content="J">
<meta name="citation_pdf_url" content="../files/a.pdf">
<meta name="citation_abstract_html_url" content="javascript:alert(1)">`
	md := Extract([]byte(body), "https://example.org/articles/1/view", "", nil)
	if md.PDFURL != "https://example.org/articles/files/a.pdf" || md.AbstractURL != "" {
		t.Errorf("PDFURL, AbstractURL = %q, %q, want the PDF resolved and the script dropped", md.PDFURL, md.AbstractURL)
	}
	md = Extract([]byte(body), "", "", nil)
	if md.PDFURL != "" {
		t.Errorf("PDFURL = %q without a page URL, want \"\"", md.PDFURL)
	}
	// A work's only PDF link is its PDF; a page with two has none.
	md = Extract([]byte(`<meta name="citation_journal_title" content="J">`), "https://example.org/a", "",
		[]string{"https://example.org/a.pdf", "https://example.org/about", "https://example.org/a.pdf"})
	if md.PDFURL != "https://example.org/a.pdf" {
		t.Errorf("PDFURL = %q, want the only PDF link", md.PDFURL)
	}
	md = Extract([]byte(`<meta name="citation_journal_title" content="J">`), "https://example.org/a", "",
		[]string{"https://example.org/a.pdf", "https://example.org/b.pdf"})
	if md.PDFURL != "" {
		t.Errorf("PDFURL = %q with two PDF links, want \"\"", md.PDFURL)
	}
	md = Extract(nil, "https://example.org/news/1", "", []string{"https://example.org/report.pdf"})
	if md.PDFURL != "" {
		t.Errorf("PDFURL = %q on a news page, want \"\"", md.PDFURL)
	}
}

// checkInvariants checks what Extract promises for any input.
func checkInvariants(t *testing.T, md *Metadata) {
	t.Helper()
	if md == nil {
		t.Fatal("Extract returned nil")
	}
	strs := map[string]string{
		"Title": md.Title, "Date": md.Date, "Venue": md.Venue, "Volume": md.Volume, "Issue": md.Issue,
		"FirstPage": md.FirstPage, "LastPage": md.LastPage, "DOI": md.DOI, "PDFURL": md.PDFURL,
		"AbstractURL": md.AbstractURL, "Publisher": md.Publisher, "Type": md.Type, "TypeRule": md.TypeRule,
	}
	for k, v := range strs {
		if len(v) > MaxField || !utf8.ValidString(v) {
			t.Errorf("%s = %q: longer than %d bytes or invalid UTF-8", k, v, MaxField)
		}
	}
	if len(md.Abstract) > MaxAbstract || !utf8.ValidString(md.Abstract) {
		t.Errorf("Abstract: %d bytes or invalid UTF-8", len(md.Abstract))
	}
	lists := []struct {
		name string
		l    []string
		max  int
	}{{"Authors", md.Authors, MaxAuthors}, {"Keywords", md.Keywords, MaxKeywords}, {"ISSN", md.ISSN, MaxIDs}, {"ISBN", md.ISBN, MaxIDs}, {"DOIs", md.DOIs, MaxDOIs}}
	for _, l := range lists {
		if len(l.l) > l.max {
			t.Errorf("len(%s) = %d, want at most %d", l.name, len(l.l), l.max)
		}
		seen := map[string]bool{}
		for _, v := range l.l {
			if v == "" || seen[v] || len(v) > MaxField || !utf8.ValidString(v) {
				t.Errorf("%s has %q: empty, repeated, too long or invalid", l.name, v)
			}
			seen[v] = true
		}
	}
	for _, d := range append([]string{md.DOI}, md.DOIs...) {
		if d == "" {
			continue
		}
		if n, ok := NormalizeDOI(d); !ok || n != d {
			t.Errorf("DOI %q is not normalized: NormalizeDOI gives %q, %v", d, n, ok)
		}
	}
	for _, u := range []string{md.PDFURL, md.AbstractURL} {
		if u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			t.Errorf("URL %q is not absolute http(s)", u)
		}
	}
	if (md.Date == "") != (md.Year == 0) || (md.Date != "" && md.Date[:4] != fmt.Sprint(md.Year)) {
		t.Errorf("Date %q and Year %d disagree", md.Date, md.Year)
	}
	switch md.Type {
	case TypeArticle, TypePreprint, TypeThesis, TypeProceedings, TypeBook, TypeDataset, TypePerson, TypeListing, TypeNews, TypeOther:
	default:
		t.Errorf("Type = %q, not a known type", md.Type)
	}
	if md.TypeRule == "" {
		t.Error("TypeRule is empty")
	}
}
