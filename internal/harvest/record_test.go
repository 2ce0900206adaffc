package harvest_test

import (
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/harvest"
	"github.com/acrawler/acrawler/internal/oai"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// TestRecordOf: a record's Dublin Core as package works reads it.
func TestRecordOf(t *testing.T) {
	n, err := urlnorm.New(urlnorm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const ep = "http://repo.test/oai/request"
	r := &oai.Record{Identifier: "oai:repo.test:1234/5", Title: " Polite crawling ", Creators: []string{"Sato, J.", " ", "Demir, Ayşe"},
		Date: "2021-03-04T10:00:00Z", Year: 2021, Type: "info:eu-repo/semantics/doctoralThesis", Publisher: "Northfield University",
		Description: "We crawl politely.", Subjects: []string{"Crawling"}, Sources: []string{"http://repo.test/", "Journal of Crawling 3(2)"},
		DOI: "10.5555/x.5", PDFURLs: []string{"HTTP://Repo.test:80/bitstream/1234/5/a.pdf"}}
	got := harvest.RecordOf(ep, r, n)
	if got.URL != harvest.RecordURL(ep, r.Identifier, n) || got.ID != int64(crawl.URLID(got.URL)) || got.Identifier != r.Identifier ||
		!strings.HasPrefix(got.URL, ep+"?") || !strings.Contains(got.URL, "identifier=oai%3Arepo.test%3A1234%2F5") {
		t.Errorf("record at %s (%d)", got.URL, got.ID)
	}
	m := got.Meta
	if m.Title != "Polite crawling" || len(m.Authors) != 2 || m.Authors[1] != "Demir, Ayşe" || m.Date != "2021" || m.Year != 2021 ||
		m.Type != "thesis" || m.Publisher != "Northfield University" || m.Abstract != "We crawl politely." || m.Keywords[0] != "Crawling" ||
		m.Venue != "Journal of Crawling 3(2)" || m.DOI != "10.5555/x.5" || m.PDFURL != "http://repo.test/bitstream/1234/5/a.pdf" {
		t.Errorf("meta %+v", m)
	}
	if got := harvest.RecordOf(ep, &oai.Record{Identifier: "oai:repo.test:1234/6", Date: "2020-05", Year: 2020, Title: "T", Type: "Article"}, n); got.Meta.Date != "2020-05" || got.Meta.Type != "article" {
		t.Errorf("a date without time %q, type %q", got.Meta.Date, got.Meta.Type)
	}
	del := harvest.RecordOf(ep, &oai.Record{Identifier: "oai:repo.test:1234/7", Deleted: true}, n)
	if !del.Deleted || del.Meta.Title != "" || del.ID == 0 {
		t.Errorf("deleted: %+v", del)
	}
	if u := harvest.RecordURL("http://repo.test/oai?x=1", "a", nil); u != "http://repo.test/oai?x=1&verb=GetRecord&metadataPrefix=oai_dc&identifier=a" {
		t.Errorf("RecordURL of an endpoint with a query: %s", u)
	}
}
