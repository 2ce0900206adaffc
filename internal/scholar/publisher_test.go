package scholar

import (
	"slices"
	"testing"
)

// Regressions from metadata as publishers and repositories write it.

func TestExtractDatePrecedence(t *testing.T) {
	tests := []struct {
		name, body, date string
	}{
		// Springer and Elsevier give the online date, often in the year
		// before the issue's, next to the publication date.
		{"online date first", `<meta name="citation_online_date" content="2020/12/15">
<meta name="citation_publication_date" content="2021/03">`, "2021-03"},
		{"online date only", `<meta name="citation_online_date" content="2020/12/15">`, "2020-12-15"},
		{"cover date before date", `<meta name="citation_cover_date" content="2021/01/01"><meta name="citation_date" content="2021/03/04">`, "2021-03-04"},
		// DSpace: the creation date (of a thesis, written) before the
		// date issued.
		{"dc created first", `<meta name="DCTERMS.created" content="2018"><meta name="DCTERMS.issued" content="2019-06">`, "2019-06"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := Extract([]byte(`<meta name="citation_title" content="T">`+tt.body), "https://example.org/a", "", nil)
			if md.Date != tt.date {
				t.Errorf("Date = %q, want %q", md.Date, tt.date)
			}
		})
	}
}

func TestExtractBaseHref(t *testing.T) {
	body := `<html><head><base href="/ojs/index.php/jwas/">
<meta name="citation_title" content="T">
<meta name="citation_pdf_url" content="article/download/1287/2044">
<meta name="citation_abstract_html_url" content="article/view/1287">
</head></html>`
	md := Extract([]byte(body), "https://journal.example.org/x/y", "", nil)
	if want := "https://journal.example.org/ojs/index.php/jwas/article/download/1287/2044"; md.PDFURL != want {
		t.Errorf("PDFURL = %q, want %q, resolved against <base href>", md.PDFURL, want)
	}
	if want := "https://journal.example.org/ojs/index.php/jwas/article/view/1287"; md.AbstractURL != want {
		t.Errorf("AbstractURL = %q, want %q", md.AbstractURL, want)
	}
	if shared := extractShared(t, []byte(body), "https://journal.example.org/x/y", "", nil); shared.PDFURL != md.PDFURL {
		t.Errorf("a Scanner fed by htmlx.Parse gives PDFURL %q, Extract %q", shared.PDFURL, md.PDFURL)
	}
}

// A DC.identifier whose lower-case form is longer than itself (invalid
// UTF-8, some letters) made an index into the one cut the other: the ISSN
// was lost, or Extract panicked.
func TestExtractDCIdentifierNotASCII(t *testing.T) {
	for _, v := range []string{"\xff\xff\xff\xff ISSN 2049-3630", "ȺȺȺȺȺȺ issn: 2049-3630", "\xff\xff\xff\xff\xff\xff\xff\xff ISSN 2049-3630", "İstanbul Üniversitesi, ISSN 2049-3630"} {
		md := Extract([]byte(`<meta name="DC.identifier" content="`+v+`">`), "https://example.org/a", "", nil)
		if !slices.Equal(md.ISSN, []string{"2049-3630"}) {
			t.Errorf("DC.identifier %q: ISSN = %q, want [2049-3630]", v, md.ISSN)
		}
	}
}

// A page that lists works, each marked up as one, describes none of them.
func TestExtractListOfWorks(t *testing.T) {
	tests := []struct {
		name, body       string
		title, typ, rule string
	}{
		{"microdata publications list", `<title>Jane Doe</title><ol>
<li itemscope itemtype="http://schema.org/ScholarlyArticle"><span itemprop="author">Jane Doe</span>. <span itemprop="name">Crawling the academic web</span>. <a itemprop="url" href="/p/1">link</a>
<li itemscope itemtype="http://schema.org/ScholarlyArticle"><span itemprop="author">Jane Doe</span>. <span itemprop="name">Politeness budgets</span>.
</ol>`, "", TypeOther, "default"},
		{"jsonld issue", `<script type="application/ld+json">[
{"@type":"ScholarlyArticle","name":"Crawling the academic web","identifier":"10.1000/a"},
{"@type":"ScholarlyArticle","name":"Politeness budgets","identifier":"10.1000/b"}]</script>`, "", TypeOther, "default"},
		{"profile with publications", `<div itemscope itemtype="http://schema.org/Person"><span itemprop="name">Jane Doe</span></div>
<div itemscope itemtype="http://schema.org/CreativeWork"><span itemprop="name">Crawling the academic web</span></div>
<div itemscope itemtype="http://schema.org/CreativeWork"><span itemprop="name">Politeness budgets</span></div>`, "Jane Doe", TypePerson, "microdata:Person"},
		{"main entity among works", `<script type="application/ld+json">{"@graph":[
{"@type":"WebPage","mainEntity":{"@id":"#work"}},
{"@type":"ScholarlyArticle","@id":"#related","name":"A related work"},
{"@type":"ScholarlyArticle","@id":"#work","name":"The work itself","isPartOf":{"@type":"Periodical","name":"J"}}]}</script>`, "The work itself", TypeArticle, "jsonld:ScholarlyArticle"},
		{"same work twice", `<script type="application/ld+json">{"@type":"ScholarlyArticle","name":"The work"}</script>
<script type="application/ld+json">{"@type":"ScholarlyArticle","headline":"The Work","author":"Jane Doe"}</script>`, "The work", TypeArticle, "jsonld:ScholarlyArticle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := Extract([]byte(tt.body), "https://example.org/x", "", nil)
			if md.Title != tt.title || md.Type != tt.typ || md.TypeRule != tt.rule {
				t.Errorf("Title, Type = %q, %s (%s), want %q, %s (%s)", md.Title, md.Type, md.TypeRule, tt.title, tt.typ, tt.rule)
			}
		})
	}
}

// JSON-LD in @graph refers to the authors, journal and publisher by @id
// (Yoast, WordPress journal themes).
func TestExtractJSONLDReferences(t *testing.T) {
	body := `<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
{"@type":"ScholarlyArticle","@id":"https://j.example/a/1#article","headline":"T",
 "author":[{"@id":"https://j.example/#/person/1"},{"@id":"https://j.example/#/person/2"},{"@id":"https://j.example/#/person/404"}],
 "isPartOf":{"@id":"https://j.example/#journal"},"publisher":{"@id":"https://j.example/#org"}},
{"@type":"Person","@id":"https://j.example/#/person/1","name":"Elif Yıldız"},
{"@type":"Person","@id":"https://j.example/#/person/2","givenName":"Pieter","familyName":"van Aalst"},
{"@type":"Periodical","@id":"https://j.example/#journal","name":"Journal of Tests","issn":"2049-3630"},
{"@type":"Organization","@id":"https://j.example/#org","name":"Test Press"}]}</script>`
	md := Extract([]byte(body), "https://j.example/a/1", "", nil)
	if want := []string{"Elif Yıldız", "Pieter van Aalst"}; !slices.Equal(md.Authors, want) {
		t.Errorf("Authors = %q, want %q", md.Authors, want)
	}
	if md.Venue != "Journal of Tests" || md.Publisher != "Test Press" || !slices.Equal(md.ISSN, []string{"2049-3630"}) {
		t.Errorf("Venue, Publisher, ISSN = %q, %q, %q, want Journal of Tests, Test Press, [2049-3630]", md.Venue, md.Publisher, md.ISSN)
	}
}
