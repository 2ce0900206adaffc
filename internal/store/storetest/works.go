package storetest

import (
	"errors"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/works"
)

var worksTests = []test{
	{"WorksJoinCopies", testWorksJoinCopies},
	{"WorksMergeThroughACopy", testWorksMergeThroughACopy},
	{"WorksCopyLeaves", testWorksCopyLeaves},
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
