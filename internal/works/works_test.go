package works

import (
	"reflect"
	"strings"
	"testing"
)

func TestNormalizeDOI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10.1000/ABC.def", "10.1000/abc.def"},
		{"https://doi.org/10.1000/XYZ", "10.1000/xyz"},
		{"doi:10.5555/JAC.2020.0001.", "10.5555/jac.2020.0001"},
		{"not a doi", ""},
		{"", ""},
	} {
		if got := NormalizeDOI(tc.in); got != tc.want {
			t.Errorf("NormalizeDOI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Crawling the Web, Politely!", "crawling the web politely"},
		{"  Öğrenme  ve   Ağlar ", "ogrenme ve aglar"},
		{"Zoë’s “Müller”—Test", "zoe s muller test"},
		{"İstanbul", "istanbul"},
		{"a--b", "a b"},
		{"", ""},
	} {
		if got := NormalizeTitle(tc.in); got != tc.want {
			t.Errorf("NormalizeTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitTitle(t *testing.T) {
	for _, tc := range []struct{ in, main, sub string }{
		{"Crawling the Web: Lessons from a Decade", "crawling the web", "lessons from a decade"},
		{"Crawling the Web — Lessons", "crawling the web", "lessons"},
		{"Crawling the web", "crawling the web", ""},
		{"A: short", "a short", ""},
		{"Is crawling polite? Yes it is", "is crawling polite", "yes it is"},
	} {
		m, s := SplitTitle(tc.in)
		if m != tc.main || s != tc.sub {
			t.Errorf("SplitTitle(%q) = %q, %q; want %q, %q", tc.in, m, s, tc.main, tc.sub)
		}
	}
}

func TestSamePerson(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Sato, J.", "Jamal Sato", true},
		{"Sato, Jamal", "Jamal Sato", true},
		{"J. Sato", "Jamal Sato", true},
		{"Sato JA", "Jamal A. Sato", true},
		{"Sato", "Jamal Sato", true},
		{"Şahin, Ayşe", "Ayse Sahin", true},
		{"Anna van der Berg", "Berg, A.", true},
		{"Jamal Sato", "John Sato", false},
		{"J. Sato", "K. Sato", false},
		{"Jamal Sato", "Jamal Saito", false},
		{"", "Jamal Sato", false},
	} {
		if got := SamePerson(tc.a, tc.b); got != tc.want {
			t.Errorf("SamePerson(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SamePerson(tc.b, tc.a); got != tc.want && tc.a != "" {
			t.Errorf("SamePerson(%q, %q) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestFamilyKey(t *testing.T) {
	for in, want := range map[string]string{
		"Anna van der Berg": "berg", "van der Berg, Anna": "berg", "Sato, J.": "sato", "Jamal Sato Jr.": "sato",
		"Müller, Jürgen": "muller", "": "",
	} {
		if got := FamilyKey(in); got != want {
			t.Errorf("FamilyKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func land(url, title string, authors []string, year int, doi string) Copy {
	return Copy{URL: url, Kind: KindLanding, Source: SourceCitation, Title: title, Authors: authors, Year: year, DOI: doi}
}

func TestMatch(t *testing.T) {
	sato := []string{"Jamal Sato", "Ayşe Demir"}
	a := land("http://j.test/a", "Polite Crawling at Scale: A Study", sato, 2020, "10.5555/jac.1")
	for _, tc := range []struct {
		name string
		b    Copy
		want bool
	}{
		{"same DOI, other title", land("http://r.test/1", "Something else entirely", nil, 0, "10.5555/jac.1"), true},
		{"other DOI, same title", land("http://x.test/1", a.Title, sato, 2020, "10.5555/jac.2"), false},
		{"preprint DOI, same title", land("http://arxiv.test/1", a.Title, sato, 2019, "10.48550/arxiv.2001.00001"), true},
		{"no DOI, deposit spelling", land("http://r.test/2", "Polite crawling at scale", []string{"Sato, J.", "Demir, A."}, 2020, ""), true},
		{"no DOI, subtitle differs", land("http://r.test/3", "Polite Crawling at Scale: A Survey", sato, 2020, ""), false},
		{"no DOI, other first author", land("http://r.test/4", a.Title, []string{"John Sato"}, 2020, ""), false},
		{"no DOI, years apart", land("http://r.test/5", a.Title, sato, 2023, ""), false},
		{"no DOI, a year apart", land("http://r.test/6", a.Title, sato, 2019, ""), true},
		{"no DOI, no authors", land("http://r.test/7", a.Title, nil, 2020, ""), false},
		{"no DOI, different title", land("http://r.test/8", "Polite Crawling at Small Scale", sato, 2020, ""), false},
	} {
		if got := Match(a, tc.b); got != tc.want {
			t.Errorf("%s: Match = %v, want %v", tc.name, got, tc.want)
		}
		if got := Match(tc.b, a); got != tc.want {
			t.Errorf("%s: Match (reversed) = %v, want %v", tc.name, got, tc.want)
		}
		if tc.want && !shareKey(a, tc.b) {
			t.Errorf("%s: copies that match share no key: %q %q", tc.name, Keys(a), Keys(tc.b))
		}
	}
}

func shareKey(a, b Copy) bool {
	for _, x := range Keys(a) {
		for _, y := range Keys(b) {
			if x == y {
				return true
			}
		}
	}
	return false
}

func TestMatchPDFLink(t *testing.T) {
	l := land("http://j.test/a", "Polite Crawling at Scale", []string{"Jamal Sato"}, 2020, "")
	l.PDFURL = "http://j.test/a.pdf"
	pdf := Copy{URL: "http://j.test/a.pdf", Kind: KindPDF, Source: SourceText, Title: "Polite Crawling at Scale"}
	if !Match(l, pdf) || !Match(pdf, l) || !shareKey(l, pdf) {
		t.Error("a landing page and the PDF it names do not match")
	}
	other := pdf
	other.Title = "Minutes of the Board"
	if Match(l, other) {
		t.Error("a landing page matches the PDF it names whose title is another")
	}
	notNamed := pdf
	notNamed.URL = "http://j.test/b.pdf"
	if Match(l, notNamed) {
		t.Error("a PDF without authors matches a page that does not name it")
	}
}

func TestCopyOf(t *testing.T) {
	meta := &Meta{Title: "T is a title here", Authors: []string{"A B"}, Type: "article", Sources: []string{"highwire", "dublincore"}, DOI: "https://doi.org/10.1000/X", PDFURL: "http://h.test/x.pdf"}
	for _, tc := range []struct {
		name string
		p    Page
		ok   bool
		kind Kind
		src  Source
		oa   bool
	}{
		{"landing", Page{URL: "http://journal.test/article/1", ContentType: "text/html", Status: 200, Meta: meta}, true, KindLanding, SourceCitation, false},
		{"repository", Page{URL: "http://repository.uni.test/handle/1/2", ContentType: "text/html", Status: 200, Meta: meta}, true, KindRepository, SourceCitation, false},
		{"preprint", Page{URL: "http://preprints.test/abs/1", ContentType: "text/html", Status: 200, Meta: meta}, true, KindPreprint, SourceCitation, false},
		{"pdf", Page{URL: "http://h.test/x.pdf", ContentType: "application/pdf", Status: 200, Meta: &Meta{Title: "T", Authors: []string{"A B"}, Type: "other"}}, true, KindPDF, SourcePDF, true},
		{"pdf without authors", Page{URL: "http://h.test/x.pdf", ContentType: "application/pdf", Status: 200, Meta: &Meta{Title: "T", Type: "other"}}, false, "", "", false},
		{"404", Page{URL: "http://h.test/", ContentType: "text/html", Status: 404, Meta: meta}, false, "", "", false},
		{"blocked", Page{URL: "http://h.test/", ContentType: "text/html", Status: 200, Blocked: true, Meta: meta}, false, "", "", false},
		{"news", Page{URL: "http://h.test/", ContentType: "text/html", Status: 200, Meta: &Meta{Title: "T", Type: "news"}}, false, "", "", false},
		{"no meta", Page{URL: "http://h.test/", ContentType: "text/html", Status: 200}, false, "", "", false},
	} {
		c, ok := CopyOf(tc.p)
		if ok != tc.ok || c.Kind != tc.kind || c.Source != tc.src || c.OpenAccess != tc.oa {
			t.Errorf("%s: CopyOf = %v %q %q oa=%v, want %v %q %q oa=%v", tc.name, ok, c.Kind, c.Source, c.OpenAccess, tc.ok, tc.kind, tc.src, tc.oa)
		}
		if ok && c.Kind != KindPDF && c.DOI != "10.1000/x" {
			t.Errorf("%s: DOI %q not normalized", tc.name, c.DOI)
		}
	}
}

func TestMerge(t *testing.T) {
	landing := Copy{PageID: 1, URL: "http://j.test/a", Kind: KindLanding, Source: SourceCitation, Type: "article",
		Title: "Polite Crawling at Scale: A Study", Authors: []string{"J. Sato", "Ayşe Demir", "J. Sato"}, Year: 2020, Date: "2020-05-01",
		Venue: "Journal of Applied Crawling", DOI: "10.5555/jac.1", PDFURL: "http://j.test/a.pdf", Keywords: []string{"Crawling", "politeness"}}
	pdf := Copy{PageID: 2, URL: "http://j.test/a.pdf", Kind: KindPDF, Source: SourcePDF, OpenAccess: true,
		Title: "Polite crawling at scale", Authors: []string{"Jamal Sato", "A. Demir"}, Year: 2021}
	repo := Copy{PageID: 3, URL: "http://repository.test/handle/1", Kind: KindRepository, Source: SourceDublinCore, Type: "article",
		Title: "Polite crawling at scale", Authors: []string{"Sato, Jamal", "Demir, Ayşe"}, Year: 2020, Abstract: "We crawl.", Keywords: []string{"crawling", "Robots"}}
	pre := Copy{PageID: 4, URL: "http://preprints.test/abs/1", Kind: KindPreprint, Source: SourceCitation, Type: "preprint",
		Title: "Polite Crawling at Scale", Authors: []string{"Jamal Sato"}, Year: 2019, Venue: "arXiv", DOI: "10.48550/arxiv.1901.1"}
	w := Merge([]Copy{pdf, repo, pre, landing})
	want := Work{
		Type: "article", Title: landing.Title, Authors: []string{"Jamal Sato", "Ayşe Demir"}, Year: 2020, Date: "2020-05-01",
		Venue: "Journal of Applied Crawling", DOI: "10.5555/jac.1", DOIs: []string{"10.5555/jac.1", "10.48550/arxiv.1901.1"},
		Abstract: "We crawl.", Keywords: []string{"Crawling", "politeness", "Robots"},
		URL: landing.URL, PDFURL: pdf.URL, OpenAccess: true,
		Fields: map[string]Field{
			"title": {SourceCitation, landing.URL}, "type": {SourceCitation, landing.URL}, "year": {SourceCitation, landing.URL},
			"venue": {SourceCitation, landing.URL}, "doi": {SourceCitation, landing.URL}, "authors": {SourceCitation, landing.URL},
			"keywords": {SourceCitation, landing.URL}, "abstract": {SourceDublinCore, repo.URL},
		},
		Copies: []CopyRef{
			{1, landing.URL, KindLanding, true, SourceCitation},
			{4, pre.URL, KindPreprint, false, SourceCitation},
			{3, repo.URL, KindRepository, false, SourceDublinCore},
			{2, pdf.URL, KindPDF, true, SourcePDF},
		},
	}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("Merge =\n%+v\nwant\n%+v", w, want)
	}
	// The order of the copies does not matter.
	if w2 := Merge([]Copy{landing, pre, repo, pdf}); !reflect.DeepEqual(w, w2) {
		t.Errorf("Merge depends on the order of its copies:\n%+v\n%+v", w, w2)
	}
}

func TestCluster(t *testing.T) {
	sato := []string{"Jamal Sato"}
	cs := []Copy{
		land("http://a.test/1", "Polite Crawling at Scale", sato, 2020, "10.1/a"),
		land("http://a.test/2", "Polite Crawling at Scale", sato, 2020, "10.1/b"), // same title, other DOI
		land("http://r.test/1", "Polite crawling at scale", []string{"Sato, J."}, 2020, ""),
		land("http://r.test/2", "Something else", nil, 2020, "10.1/b"),
		land("http://a.test/3", "Polite Crawling at Scale", []string{"Mei Chen"}, 2020, ""),
	}
	for i := range cs {
		cs[i].PageID = int64(i + 1)
	}
	got := Cluster(cs)
	want := [][]int{{0, 2}, {1, 3}, {4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cluster = %v, want %v", got, want)
	}
}

func TestKeysBounded(t *testing.T) {
	c := land("http://a.test/1", strings.Repeat("word ", 10000), []string{strings.Repeat("x", 5000)}, 2020, "")
	for _, k := range Keys(c) {
		if len(k) > 600 {
			t.Errorf("key of %d bytes", len(k))
		}
	}
}

func TestAdd(t *testing.T) {
	m := NewMemory()
	meta := func(title, doi string) *Meta {
		return &Meta{Title: title, Authors: []string{"Jamal Sato"}, Year: 2020, DOI: doi, Type: "article", Sources: []string{"highwire"}}
	}
	page := func(id int64, url string, m *Meta) Page {
		return Page{ID: id, URL: url, ContentType: "text/html", Status: 200, Meta: m}
	}
	w1, _ := Add(m, page(1, "http://j.test/1", meta("Polite Crawling at Scale", "10.1/a")))
	w2, _ := Add(m, page(2, "http://r.test/handle/1", meta("Polite crawling at scale", "")))
	w3, _ := Add(m, page(3, "http://x.test/1", meta("Another Work Altogether", "")))
	if w1 == 0 || w2 != w1 || w3 == w1 {
		t.Fatalf("works %d %d %d, want the first two one and the third apart", w1, w2, w3)
	}
	// The same page again: the same work.
	if w, _ := Add(m, page(2, "http://r.test/handle/1", meta("Polite crawling at scale", ""))); w != w1 {
		t.Errorf("page committed again: work %d, want %d", w, w1)
	}
	// A page that stops being a copy leaves its work.
	if w, _ := Add(m, Page{ID: 2, URL: "http://r.test/handle/1", Status: 404}); w != 0 {
		t.Errorf("a 404 is in work %d", w)
	}
	if ws := m.Works(); len(ws) != 2 || len(ws[0].Copies) != 1 {
		t.Errorf("works after a copy left: %+v", ws)
	}
	// The last copy leaving deletes the work.
	Add(m, Page{ID: 3, URL: "http://x.test/1", Status: 410})
	if ws := m.Works(); len(ws) != 1 {
		t.Errorf("works after the last copy of one left: %+v", ws)
	}
	// A copy that joins two works makes them one.
	a, _ := Add(m, page(10, "http://j.test/10", meta("Crawling the Deep Web Again", "10.1/z")))
	b, _ := Add(m, page(11, "http://p.test/11", &Meta{Title: "Crawling the Deep Web Again: Extended", Type: "article", Sources: []string{"highwire"}, PDFURL: "http://j.test/10.pdf"}))
	if a == b {
		t.Fatalf("unrelated pages joined")
	}
	c, _ := Add(m, Page{ID: 12, URL: "http://j.test/10.pdf", ContentType: "application/pdf", Status: 200, Meta: &Meta{Title: "Crawling the Deep Web Again", Authors: []string{"J. Sato"}, DOI: "10.1/z"}})
	if c != a {
		t.Errorf("the PDF joined work %d, want %d", c, a)
	}
	for _, w := range m.Works() {
		if w.ID == b {
			t.Errorf("work %d still exists after joining %d: %+v", b, a, w)
		}
		if w.ID == a && len(w.Copies) != 3 {
			t.Errorf("work %d has %d copies, want 3", a, len(w.Copies))
		}
	}
}

// workOf returns the work a page is a copy of in m, 0 if none.
func workOf(m *Memory, page int64) int64 {
	w, _, _, _ := m.CopyWork(page)
	return w
}

// TestAddMoves: a page whose DOI changes on a recrawl moves to the work of
// its new DOI; one whose abstract changes stays, its work merged again;
// the work it left loses it and is merged again from the copies left.
func TestAddMoves(t *testing.T) {
	m := NewMemory()
	page := func(id int64, url, title, doi, abstract string) Page {
		return Page{ID: id, URL: url, ContentType: "text/html", Status: 200, Meta: &Meta{Title: title, Authors: []string{"Jamal Sato"},
			Year: 2020, DOI: doi, Abstract: abstract, Type: "article", Sources: []string{"highwire"}}}
	}
	a, _ := Add(m, page(1, "http://j.test/a", "Polite Crawling at Scale", "10.1234/a", "A first."))
	Add(m, page(2, "http://m.test/a", "Polite Crawling at Scale", "10.1234/a", ""))
	b, _ := Add(m, page(3, "http://j.test/b", "Impolite Crawling Considered", "10.1234/b", "B first."))
	if a == b || workOf(m, 2) != a {
		t.Fatalf("works %d %d %d", a, workOf(m, 2), b)
	}
	// An abstract changes: the page stays.
	if w, _ := Add(m, page(1, "http://j.test/a", "Polite Crawling at Scale", "10.1234/a", "A second.")); w != a {
		t.Errorf("a page with another abstract is in work %d, want %d", w, a)
	}
	if w := m.works[a]; w.Abstract != "A second." || len(w.Copies) != 2 {
		t.Errorf("after the abstract changed: %+v", w)
	}
	// The mirror is corrected to the other paper: it moves.
	if w, _ := Add(m, page(2, "http://m.test/a", "Impolite Crawling Considered", "10.1234/b", "")); w != b {
		t.Errorf("the corrected mirror is in work %d, want %d", w, b)
	}
	if wa, wb := m.works[a], m.works[b]; len(wa.Copies) != 1 || len(wb.Copies) != 2 || wb.Fields["title"].URL != "http://j.test/b" {
		t.Errorf("after the move: %+v and %+v", wa, wb)
	}
	// The last copy of a moves: a is deleted.
	Add(m, page(1, "http://j.test/a", "Impolite Crawling Considered", "10.1234/b", "A second."))
	if _, ok := m.works[a]; ok || len(m.works) != 1 || len(m.works[b].Copies) != 3 {
		t.Errorf("after the last copy moved: %+v", m.Works())
	}
}

// TestAddSplits: the copy that joined two groups of copies leaves their
// work (a landing page with the DOI of a PDF and the title of a deposit,
// reparsed with another title and DOI): the work is split again, the
// larger part keeping its ID, each part merged from its own copies.
func TestAddSplits(t *testing.T) {
	m := NewMemory()
	html := func(id int64, url string, md *Meta) Page {
		return Page{ID: id, URL: url, ContentType: "text/html", Status: 200, Meta: md}
	}
	Add(m, Page{ID: 1, URL: "http://j.test/b.pdf", ContentType: "application/pdf", Status: 200,
		Meta: &Meta{Title: "Deep Crawling Methods", DOI: "10.5555/9", Type: "article"}})
	Add(m, html(2, "http://r.test/handle/9", &Meta{Title: "Deep crawling methods", Authors: []string{"Chen, M."}, Year: 2021, Type: "article", Sources: []string{"dublincore"}}))
	Add(m, html(3, "http://r.test/handle/9b", &Meta{Title: "Deep crawling methods", Authors: []string{"Mei Chen"}, Year: 2021, Type: "article", Sources: []string{"dublincore"}}))
	if workOf(m, 1) == workOf(m, 2) {
		t.Fatalf("the PDF and the deposit are one work before the landing page")
	}
	landing := &Meta{Title: "Deep Crawling Methods", Authors: []string{"Mei Chen"}, Year: 2021, DOI: "10.5555/9", PDFURL: "http://j.test/b.pdf",
		Type: "article", Sources: []string{"highwire"}}
	w, _ := Add(m, html(4, "http://j.test/b", landing))
	if len(m.works) != 1 || workOf(m, 1) != w || workOf(m, 2) != w {
		t.Fatalf("after the landing page: %+v", m.Works())
	}
	// Reparsed, the landing page is another paper's.
	other := *landing
	other.Title, other.DOI, other.PDFURL = "Shallow Crawling Methods Revisited", "10.5555/10", ""
	nw, _ := Add(m, html(4, "http://j.test/b", &other))
	if len(m.works) != 3 {
		t.Fatalf("after the landing page left: %d works, want 3: %+v", len(m.works), m.Works())
	}
	if workOf(m, 2) != w || workOf(m, 3) != w || workOf(m, 1) == w || nw == w || workOf(m, 1) == nw {
		t.Errorf("parts: PDF in %d, deposits in %d and %d, landing page in %d; the deposits should keep %d", workOf(m, 1), workOf(m, 2), workOf(m, 3), nw, w)
	}
	if ws := m.works[w]; len(ws.Copies) != 2 || ws.DOI != "" || ws.Fields["title"].Source != SourceDublinCore {
		t.Errorf("the deposits' work: %+v", ws)
	}
	if wp := m.works[workOf(m, 1)]; len(wp.Copies) != 1 || wp.DOI != "10.5555/9" {
		t.Errorf("the PDF's work: %+v", wp)
	}
	// The landing page comes back: one work again, under the deposits' ID.
	if got, _ := Add(m, html(4, "http://j.test/b", landing)); got != w || len(m.works) != 1 {
		t.Errorf("the landing page back: work %d, works %+v", got, m.Works())
	}
}

// TestAddRecord: a harvested record's Dublin Core is a repository copy of
// its work, below the landing page's citation tags and above its PDF;
// harvested again it replaces its copy; deleted, its copy leaves; a page
// with the record's ID does not touch it.
func TestAddRecord(t *testing.T) {
	m := NewMemory()
	land, _ := Add(m, Page{ID: 1, URL: "http://j.test/a", ContentType: "text/html", Status: 200, Meta: &Meta{Title: "Polite Crawling at Scale: A Study",
		Authors: []string{"Jamal Sato"}, Year: 2020, DOI: "10.1234/a", Type: "article", Sources: []string{"highwire"}}})
	pdf, _ := Add(m, Page{ID: 2, URL: "http://r.test/bitstream/1/a.pdf", ContentType: "application/pdf", Status: 200,
		Meta: &Meta{Title: "Polite crawling at scale", Authors: []string{"A. Demir"}}})
	rec := Record{ID: 100, URL: "http://r.test/oai?verb=GetRecord&identifier=oai:r.test:1&metadataPrefix=oai_dc", Identifier: "oai:r.test:1",
		Meta: Meta{Title: "Polite crawling at scale", Authors: []string{"Sato, Jamal"}, Year: 2020, Date: "2020", Type: "article",
			Publisher: "Northfield University", Abstract: "We crawl politely.", Keywords: []string{"crawling", "politeness"},
			PDFURL: "http://r.test/bitstream/1/a.pdf"}}
	w, err := AddRecord(m, rec)
	if err != nil || w != land || pdf == land {
		t.Fatalf("AddRecord: work %d, %v; the landing page's %d, the PDF's %d (apart before the record)", w, err, land, pdf)
	}
	got := m.works[w]
	if len(m.works) != 1 || len(got.Copies) != 3 {
		t.Fatalf("works %+v: the record should join the landing page and the PDF it names", m.Works())
	}
	for field, src := range map[string]Source{"title": SourceCitation, "doi": SourceCitation, "publisher": SourceDublinCore,
		"abstract": SourceDublinCore, "keywords": SourceDublinCore} {
		if f := got.Fields[field]; f.Source != src {
			t.Errorf("%s from %+v, want %s", field, f, src)
		}
	}
	if f := got.Fields["publisher"]; f.URL != rec.URL || got.Publisher != "Northfield University" {
		t.Errorf("publisher %q from %+v", got.Publisher, f)
	}
	kinds := map[int64]Kind{}
	for _, c := range got.Copies {
		kinds[c.PageID] = c.Kind
	}
	if kinds[100] != KindRepository || got.Copies[1].PageID != 100 {
		t.Errorf("copies %+v: the record should be a repository copy, after the landing page", got.Copies)
	}
	// Harvested again with a corrected abstract: replaced, not added.
	rec.Meta.Abstract = "We crawl very politely."
	if w2, _ := AddRecord(m, rec); w2 != w || len(m.works[w].Copies) != 3 || m.works[w].Abstract != "We crawl very politely." {
		t.Errorf("harvested again: work %d %+v", w2, m.works[w])
	}
	// A page committed under the record's ID leaves it alone.
	if pw, _ := Add(m, Page{ID: 100, URL: rec.URL, ContentType: "text/xml", Status: 200}); pw != 0 || workOf(m, 100) != w {
		t.Errorf("a page with the record's ID: work %d, the record's %d", pw, workOf(m, 100))
	}
	// Deleted: the copy leaves; the PDF joined through it is split off.
	rec.Deleted = true
	if w3, _ := AddRecord(m, rec); w3 != 0 {
		t.Errorf("a deleted record is in work %d", w3)
	}
	if len(m.works) != 2 || len(m.works[w].Copies) != 1 || m.works[w].Publisher != "" {
		t.Errorf("after the record was withdrawn: %+v", m.Works())
	}
}

func TestRecordCopy(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Record
		ok   bool
	}{
		{"deleted", Record{ID: 1, Deleted: true, Meta: Meta{Title: "A", Authors: []string{"B"}}}, false},
		{"no title", Record{ID: 1, Meta: Meta{Authors: []string{"B"}}}, false},
		{"no creator nor DOI", Record{ID: 1, Meta: Meta{Title: "A Collection"}}, false},
		{"DOI only", Record{ID: 1, Meta: Meta{Title: "A", DOI: "https://doi.org/10.1234/X"}}, true},
		{"creators", Record{ID: 1, Meta: Meta{Title: "A", Authors: []string{"B"}}}, true},
	} {
		c, ok := RecordCopy(tc.r)
		if ok != tc.ok {
			t.Errorf("%s: %v, want %v", tc.name, ok, tc.ok)
		}
		if ok && (c.Kind != KindRepository || c.Source != SourceDublinCore || c.OpenAccess || (tc.r.Meta.DOI != "" && c.DOI != "10.1234/x")) {
			t.Errorf("%s: %+v", tc.name, c)
		}
	}
}
