package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/works"
)

var worksTests = []test{
	{"WorksJoinCopies", testWorksJoinCopies},
	{"WorksMergeThroughACopy", testWorksMergeThroughACopy},
	{"WorksCopyLeaves", testWorksCopyLeaves},
	{"WorksCopyMoves", testWorksCopyMoves},
	{"WorksSplit", testWorksSplit},
	{"WorksRecords", testWorksRecords},
}

func (e *env) works() crawl.WorkStore {
	e.t.Helper()
	ws, ok := e.s.(crawl.WorkStore)
	if !ok {
		e.t.Fatalf("%T keeps no works (crawl.WorkStore)", e.s)
	}
	return ws
}

func (e *env) workOf(raw string) *crawl.Work {
	e.t.Helper()
	w, err := e.works().WorkOf(e.ctx, crawl.URLID(raw))
	if errors.Is(err, crawl.ErrNotFound) {
		return nil
	}
	if err != nil {
		e.t.Fatalf("WorkOf(%s): %v", raw, err)
	}
	return w
}

func (e *env) allWorks() []*crawl.Work {
	e.t.Helper()
	var out []*crawl.Work
	for w, err := range e.works().Works(e.ctx) {
		if err != nil {
			e.t.Fatalf("Works: %v", err)
		}
		out = append(out, w)
	}
	if n, err := e.works().WorkCount(e.ctx); err != nil || n != int64(len(out)) {
		e.t.Errorf("WorkCount = %d, %v; Works gave %d", n, err, len(out))
	}
	return out
}

// paperPages are one paper's landing page, PDF, repository record and
// preprint, with the metadata each states, a paper that only looks like
// it, and a news page.
func paperPages() []*crawl.Page {
	const landing, pdf = "http://journal.works.test/article/7", "http://journal.works.test/article/7.pdf"
	return []*crawl.Page{
		{URL: landing, Title: "Polite Crawling at Scale: A Study", Meta: &crawl.Metadata{
			Title: "Polite Crawling at Scale: A Study", Authors: []string{"Jamal Sato", "Ayşe Demir"}, Date: "2020-05-01", Year: 2020,
			Venue: "Journal of Applied Crawling", DOI: "10.5555/JAC.7", PDFURL: pdf, Type: "article", Sources: []string{"highwire", "jsonld"},
			Keywords: []string{"crawling"}}},
		{URL: pdf, ContentType: "application/pdf", Title: "Polite Crawling at Scale: A Study", Meta: &crawl.Metadata{
			Title: "Polite Crawling at Scale: A Study", Authors: []string{"J. Sato", "A. Demir"}, Year: 2020, DOI: "10.5555/jac.7", Type: "article"}},
		{URL: "http://repository.works.test/handle/1/7", Title: "Polite crawling at scale", Meta: &crawl.Metadata{
			Title: "Polite crawling at scale", Authors: []string{"Sato, J.", "Demir, Ayşe"}, Year: 2020, Type: "article",
			Abstract: "We crawl politely.", Sources: []string{"dublincore"}}},
		{URL: "http://preprints.works.test/abs/1911.00007", Title: "Polite crawling at scale: a study", Meta: &crawl.Metadata{
			Title: "Polite crawling at scale: a study", Authors: []string{"Jamal Sato"}, Year: 2019, Venue: "arXiv",
			DOI: "10.48550/arxiv.1911.00007", Type: "preprint", Sources: []string{"highwire"}}},
		{URL: "http://other.works.test/papers/3", Title: "Polite Crawling at Scale: A Study", Meta: &crawl.Metadata{
			Title: "Polite Crawling at Scale: A Study", Authors: []string{"Mei Chen"}, Year: 2020, Type: "article", Sources: []string{"highwire"}}},
		{URL: "http://news.works.test/2020/crawling", Title: "Crawling news", Meta: &crawl.Metadata{Title: "Crawling news", Type: "news"}},
	}
}

// testWorksJoinCopies: a paper's landing page, PDF, repository record and
// preprint, committed one by one, are one work whose fields come from
// the most trusted source and say so, with every copy of its kind; a
// paper with its title by another first author is another work; a news
// page is none. The store agrees with works.Cluster, and its works
// survive a reopen.
func testWorksJoinCopies(t *testing.T, e *env) {
	pages := paperPages()
	e.commitPages(pages...)
	w := e.workOf(pages[0].URL)
	if w == nil {
		t.Fatalf("the landing page is in no work")
	}
	for _, p := range pages[1:4] {
		if o := e.workOf(p.URL); o == nil || o.ID != w.ID {
			t.Errorf("%s: work %+v, want %d", p.URL, o, w.ID)
		}
	}
	if o := e.workOf(pages[4].URL); o == nil || o.ID == w.ID {
		t.Errorf("the look-alike by another author: work %+v, want one of its own", o)
	}
	if o := e.workOf(pages[5].URL); o != nil {
		t.Errorf("a news page is in work %+v", o)
	}
	if w.Title != "Polite Crawling at Scale: A Study" || w.DOI != "10.5555/jac.7" || w.Year != 2020 ||
		w.Venue != "Journal of Applied Crawling" || w.Abstract != "We crawl politely." || !w.OpenAccess ||
		len(w.Authors) != 2 || w.Authors[0] != "Jamal Sato" || w.Authors[1] != "Ayşe Demir" {
		t.Errorf("work %+v", w)
	}
	if f := w.Fields["title"]; f.Source != "citation" || f.URL != pages[0].URL {
		t.Errorf("title from %+v, want citation of %s", f, pages[0].URL)
	}
	if f := w.Fields["abstract"]; f.Source != "dublincore" {
		t.Errorf("abstract from %+v, want the repository's Dublin Core", f)
	}
	kinds := map[string]string{}
	for _, c := range w.Copies {
		kinds[c.URL] = c.Kind
		if c.PageID != crawl.URLID(c.URL) {
			t.Errorf("copy %s: page %d", c.URL, c.PageID)
		}
	}
	for url, k := range map[string]string{pages[0].URL: "landing", pages[1].URL: "pdf", pages[2].URL: "repository", pages[3].URL: "preprint"} {
		if kinds[url] != k {
			t.Errorf("copy %s: kind %q, want %q (copies %+v)", url, kinds[url], k, w.Copies)
		}
	}
	got, err := e.works().Work(e.ctx, w.ID)
	if err != nil || got.ID != w.ID || len(got.Copies) != 4 {
		t.Errorf("Work(%d) = %+v, %v", w.ID, got, err)
	}
	if _, err := e.works().Work(e.ctx, w.ID+1000); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("Work of an unknown ID: %v, want ErrNotFound", err)
	}
	// The reference: works.Cluster over the same pages in the same order.
	var copies []works.Copy
	for _, p := range pages {
		if c, ok := works.CopyOf(pageOf(p)); ok {
			copies = append(copies, c)
		}
	}
	if n := len(works.Cluster(copies)); n != 2 {
		t.Errorf("works.Cluster makes %d works of the pages, the test expects 2", n)
	}
	e.s.Close()
	e.s = e.reopen()
	all := e.allWorks()
	if len(all) != 2 {
		t.Fatalf("%d works after reopening, want 2", len(all))
	}
	if all[0].ID >= all[1].ID {
		t.Errorf("Works not in ID order: %d, %d", all[0].ID, all[1].ID)
	}
}

func pageOf(p *crawl.Page) works.Page {
	wp := works.Page{ID: int64(crawl.URLID(p.URL)), URL: p.URL, ContentType: p.ContentType, Status: 200, Blocked: p.Blocked}
	if m := p.Meta; m != nil {
		wp.Meta = &works.Meta{Title: m.Title, Authors: m.Authors, Date: m.Date, Year: m.Year, Venue: m.Venue, DOI: m.DOI,
			PDFURL: m.PDFURL, Abstract: m.Abstract, Type: m.Type, Keywords: m.Keywords, Sources: m.Sources}
	}
	if wp.ContentType == "" {
		wp.ContentType = "text/html"
	}
	return wp
}

// testWorksMergeThroughACopy: two works that a later copy shows to be one
// (a PDF with the DOI, a repository record with the title; then the
// landing page with both, naming the PDF) become one, under the older ID.
func testWorksMergeThroughACopy(t *testing.T, e *env) {
	const pdf = "http://journal.works.test/b.pdf"
	e.commitPages(&crawl.Page{URL: pdf, ContentType: "application/pdf", Title: "Deep Crawling Methods",
		Meta: &crawl.Metadata{Title: "Deep Crawling Methods", DOI: "10.5555/jac.9", Type: "article"}})
	e.commitPages(&crawl.Page{URL: "http://repository.works.test/handle/1/9", Title: "Deep crawling methods",
		Meta: &crawl.Metadata{Title: "Deep crawling methods", Authors: []string{"Chen, M."}, Year: 2021, Type: "article", Sources: []string{"dublincore"}}})
	a, b := e.workOf(pdf), e.workOf("http://repository.works.test/handle/1/9")
	if a == nil || b == nil || a.ID == b.ID {
		t.Fatalf("before the landing page: works %+v and %+v, want two", a, b)
	}
	e.commitPages(&crawl.Page{URL: "http://journal.works.test/b", Title: "Deep Crawling Methods",
		Meta: &crawl.Metadata{Title: "Deep Crawling Methods", Authors: []string{"Mei Chen"}, Year: 2021, DOI: "10.5555/jac.9", PDFURL: pdf,
			Type: "article", Sources: []string{"highwire"}}})
	all := e.allWorks()
	if len(all) != 1 || len(all[0].Copies) != 3 || all[0].ID != min(a.ID, b.ID) {
		t.Fatalf("after the landing page: works %+v, want one of 3 copies with ID %d", all, min(a.ID, b.ID))
	}
	if w := all[0]; w.Authors[0] != "Mei Chen" || w.Fields["title"].Source != "citation" {
		t.Errorf("merged work %+v", w)
	}
	if _, err := e.works().Work(e.ctx, max(a.ID, b.ID)); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("the work merged away: %v, want ErrNotFound", err)
	}
}

// testWorksCopyLeaves: a copy parsed again without its metadata leaves its
// work, which is merged again; the last copy leaving deletes it.
func testWorksCopyLeaves(t *testing.T, e *env) {
	pages := paperPages()[:3]
	e.commitPages(pages...)
	w := e.workOf(pages[0].URL)
	if w == nil || len(w.Copies) != 3 {
		t.Fatalf("work %+v, want 3 copies", w)
	}
	reparse := func(p *crawl.Page) {
		q := *p
		q.ID, q.Meta = crawl.URLID(p.URL), nil
		if err := e.s.Reparse(e.ctx, &q, nil); err != nil {
			t.Fatalf("Reparse(%s): %v", p.URL, err)
		}
	}
	reparse(pages[0])
	if e.workOf(pages[0].URL) != nil {
		t.Errorf("a page without metadata is still a copy")
	}
	w2 := e.workOf(pages[1].URL)
	if w2 == nil || w2.ID != w.ID || len(w2.Copies) != 2 || w2.Fields["title"].Source == "citation" {
		t.Errorf("after the landing page left: %+v", w2)
	}
	reparse(pages[1])
	reparse(pages[2])
	if all := e.allWorks(); len(all) != 0 {
		t.Errorf("works without copies remain: %+v", all)
	}
}

// reparse records a page again with other metadata, as acrawler reparse
// does.
func (e *env) reparse(raw string, title string, m *crawl.Metadata) {
	e.t.Helper()
	p := &crawl.Page{ID: crawl.URLID(raw), URL: raw, Title: title, Meta: m}
	if err := e.s.Reparse(e.ctx, p, nil); err != nil {
		e.t.Fatalf("Reparse(%s): %v", raw, err)
	}
}

// testWorksCopyMoves: a mirror reparsed with another paper's DOI and title
// moves to that paper's work; the work it left is merged again from the
// copies left; its last copy moving away deletes it.
func testWorksCopyMoves(t *testing.T, e *env) {
	meta := func(title, doi string) *crawl.Metadata {
		return &crawl.Metadata{Title: title, Authors: []string{"Jamal Sato"}, Year: 2020, DOI: doi, Type: "article", Sources: []string{"highwire"}}
	}
	const a, mirror, b = "http://journal.works.test/a", "http://mirror.works.test/a", "http://journal.works.test/b"
	e.commitPages(&crawl.Page{URL: a, Title: "Polite Crawling at Scale", Meta: meta("Polite Crawling at Scale", "10.5555/a")},
		&crawl.Page{URL: mirror, Title: "Polite Crawling at Scale", Meta: &crawl.Metadata{Title: "Polite Crawling at Scale", Authors: []string{"Jamal Sato"},
			Year: 2020, DOI: "10.5555/a", Venue: "Mirrored Proceedings", Type: "article", Sources: []string{"dublincore"}}},
		&crawl.Page{URL: b, Title: "Impolite Crawling Considered", Meta: meta("Impolite Crawling Considered", "10.5555/b")})
	wa, wb := e.workOf(a), e.workOf(b)
	if wa == nil || wb == nil || wa.ID == wb.ID || len(wa.Copies) != 2 || wa.Venue != "Mirrored Proceedings" {
		t.Fatalf("before: works %+v and %+v", wa, wb)
	}
	e.reparse(mirror, "Impolite Crawling Considered", &crawl.Metadata{Title: "Impolite Crawling Considered", Authors: []string{"Jamal Sato"},
		Year: 2020, DOI: "10.5555/b", Venue: "Mirrored Proceedings", Type: "article", Sources: []string{"dublincore"}})
	if w := e.workOf(mirror); w == nil || w.ID != wb.ID || len(w.Copies) != 2 || w.Venue != "Mirrored Proceedings" {
		t.Errorf("the mirror after its reparse: work %+v, want %d with 2 copies", w, wb.ID)
	}
	if w := e.workOf(a); w == nil || w.ID != wa.ID || len(w.Copies) != 1 || w.Venue != "" {
		t.Errorf("the work the mirror left: %+v, want %d with 1 copy and no venue", w, wa.ID)
	}
	e.reparse(a, "Impolite Crawling Considered", meta("Impolite Crawling Considered", "10.5555/b"))
	if _, err := e.works().Work(e.ctx, wa.ID); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("the work its last copy left: %v, want ErrNotFound", err)
	}
	if all := e.allWorks(); len(all) != 1 || len(all[0].Copies) != 3 {
		t.Errorf("works %+v, want one of 3 copies", all)
	}
}

// testWorksSplit: the landing page that joined a PDF (by DOI) and two
// deposits (by title and author) leaves when reparsed as another paper:
// the work is split again, the deposits keeping its ID, the PDF a work of
// its own, each merged from its own copies.
func testWorksSplit(t *testing.T, e *env) {
	const pdf, landing = "http://journal.works.test/c.pdf", "http://journal.works.test/c"
	deposit := func(u, author string) *crawl.Page {
		return &crawl.Page{URL: u, Title: "Deep crawling methods", Meta: &crawl.Metadata{Title: "Deep crawling methods", Authors: []string{author},
			Year: 2021, Type: "article", Sources: []string{"dublincore"}}}
	}
	landingMeta := &crawl.Metadata{Title: "Deep Crawling Methods", Authors: []string{"Mei Chen"}, Year: 2021, DOI: "10.5555/jac.11", PDFURL: pdf,
		Type: "article", Sources: []string{"highwire"}}
	e.commitPages(&crawl.Page{URL: pdf, ContentType: "application/pdf", Title: "Deep Crawling Methods",
		Meta: &crawl.Metadata{Title: "Deep Crawling Methods", DOI: "10.5555/jac.11", Type: "article"}},
		deposit("http://repository.works.test/handle/1/11", "Chen, M."), deposit("http://repository.works.test/handle/2/11", "Mei Chen"),
		&crawl.Page{URL: landing, Title: "Deep Crawling Methods", Meta: landingMeta})
	w := e.workOf(landing)
	if all := e.allWorks(); len(all) != 1 || w == nil || len(w.Copies) != 4 {
		t.Fatalf("before: works %+v", all)
	}
	e.reparse(landing, "Shallow Crawling Methods Revisited", &crawl.Metadata{Title: "Shallow Crawling Methods Revisited", Authors: []string{"Mei Chen"},
		Year: 2021, DOI: "10.5555/jac.12", Type: "article", Sources: []string{"highwire"}})
	if all := e.allWorks(); len(all) != 3 {
		t.Fatalf("after the landing page left: %d works, want 3: %+v", len(all), all)
	}
	dep := e.workOf("http://repository.works.test/handle/1/11")
	if dep == nil || dep.ID != w.ID || len(dep.Copies) != 2 || dep.DOI != "" || dep.Fields["title"].Source != "dublincore" {
		t.Errorf("the deposits' work: %+v, want ID %d, 2 copies, no DOI", dep, w.ID)
	}
	p := e.workOf(pdf)
	if p == nil || p.ID == w.ID || len(p.Copies) != 1 || p.DOI != "10.5555/jac.11" {
		t.Errorf("the PDF's work: %+v", p)
	}
	if l := e.workOf(landing); l == nil || l.ID == w.ID || l.ID == p.ID || l.DOI != "10.5555/jac.12" {
		t.Errorf("the landing page's work: %+v", l)
	}
	// Reparsed back, it joins them again under the deposits' ID.
	e.reparse(landing, "Deep Crawling Methods", landingMeta)
	if all := e.allWorks(); len(all) != 1 || all[0].ID != w.ID || len(all[0].Copies) != 4 {
		t.Errorf("after the landing page came back: %+v", all)
	}
}

// recordWorks is a store that records harvested records as copies of
// works.
type recordWorks interface {
	AddRecords(ctx context.Context, records []works.Record) error
}

// testWorksRecords: a repository's record (its Dublin Core, as an OAI-PMH
// harvest reads it) is a repository copy of its paper's work, giving the
// fields no better source has, each saying so; harvested again it is
// replaced, not added; withdrawn, its copy leaves and a work left empty
// is deleted.
func testWorksRecords(t *testing.T, e *env) {
	rs, ok := e.s.(recordWorks)
	if !ok {
		t.Fatalf("%T records no harvested records (AddRecords)", e.s)
	}
	pages := paperPages()[:3]
	e.commitPages(pages...)
	const recURL = "http://repository.works.test/oai?identifier=oai%3Arepository.works.test%3A1%2F7&metadataPrefix=oai_dc&verb=GetRecord"
	const loneURL = "http://repository.works.test/oai?identifier=oai%3Arepository.works.test%3A1%2F8&metadataPrefix=oai_dc&verb=GetRecord"
	rec := works.Record{ID: int64(crawl.URLID(recURL)), URL: recURL, Identifier: "oai:repository.works.test:1/7",
		Meta: works.Meta{Title: "Polite crawling at scale", Authors: []string{"Sato, Jamal", "Demir, Ayşe"}, Date: "2020", Year: 2020,
			Type: "article", Publisher: "Northfield University", Keywords: []string{"Crawling", "politeness"}, Abstract: "We crawl politely, at scale.",
			PDFURL: pages[1].URL}}
	lone := works.Record{ID: int64(crawl.URLID(loneURL)), URL: loneURL, Identifier: "oai:repository.works.test:1/8",
		Meta: works.Meta{Title: "Harvesting metadata at scale: a thesis", Authors: []string{"Lindqvist, Ingrid"}, Year: 2019, Type: "thesis"}}
	withdrawn := works.Record{ID: int64(crawl.URLID(loneURL + "&x")), URL: loneURL + "&x", Identifier: "oai:repository.works.test:1/9", Deleted: true}
	add := func(rs recordWorks, records ...works.Record) {
		t.Helper()
		if err := rs.AddRecords(e.ctx, records); err != nil {
			t.Fatalf("AddRecords: %v", err)
		}
	}
	add(rs, rec, lone, withdrawn)
	w := e.workOf(pages[0].URL)
	if w == nil || len(w.Copies) != 4 {
		t.Fatalf("the paper's work %+v, want 4 copies with the record", w)
	}
	var found bool
	for _, c := range w.Copies {
		if c.URL == recURL {
			found = true
			if c.Kind != "repository" || c.Source != "dublincore" || int64(c.PageID) != rec.ID {
				t.Errorf("the record's copy %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("no copy of the record among %+v", w.Copies)
	}
	// The landing page's citation tags keep the title; the repository's
	// page gives the abstract (Dublin Core, and before the record by URL);
	// the record alone the publisher; keywords gathered from both.
	if f := w.Fields["title"]; f.Source != "citation" || w.Title != "Polite Crawling at Scale: A Study" {
		t.Errorf("title %q from %+v", w.Title, f)
	}
	if f := w.Fields["publisher"]; w.Publisher != "Northfield University" || f.Source != "dublincore" || f.URL != recURL {
		t.Errorf("publisher %q from %+v, want the record's", w.Publisher, f)
	}
	if len(w.Keywords) != 2 || w.Keywords[1] != "politeness" {
		t.Errorf("keywords %q", w.Keywords)
	}
	lw, err := e.works().WorkOf(e.ctx, crawl.ID(lone.ID))
	if err != nil || len(lw.Copies) != 1 || lw.Title != lone.Meta.Title || lw.Fields["title"].URL != loneURL || lw.Type != "thesis" {
		t.Errorf("the record found only in the repository: %+v, %v", lw, err)
	}
	n := len(e.allWorks())
	// Harvested again, with another abstract and subject: replaced.
	rec.Meta.Keywords = []string{"crawling", "robots.txt"}
	add(rs, rec, lone)
	if all := e.allWorks(); len(all) != n {
		t.Errorf("%d works after the records were harvested again, want %d", len(all), n)
	}
	if w := e.workOf(pages[0].URL); w == nil || len(w.Copies) != 4 || len(w.Keywords) != 2 || w.Keywords[1] != "robots.txt" {
		t.Errorf("after the record was harvested again: %+v", w)
	}
	// Withdrawn: the copies leave; the record's own work is deleted.
	rec.Deleted, lone.Deleted = true, true
	add(rs, rec, lone)
	if w := e.workOf(pages[0].URL); w == nil || len(w.Copies) != 3 || w.Publisher != "" {
		t.Errorf("after the record was withdrawn: %+v", w)
	}
	if _, err := e.works().Work(e.ctx, lw.ID); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("the withdrawn record's work: %v, want ErrNotFound", err)
	}
	if all := e.allWorks(); len(all) != n-1 {
		t.Errorf("%d works after the withdrawal, want %d", len(all), n-1)
	}
}
