package testweb

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func repoGet(t *testing.T, r *Repository, target string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://"+RepositoryHost+target, nil))
	return rec
}

func TestRepositoryDeterministic(t *testing.T) {
	a, b := NewRepository(New(Config{Seed: 3})), NewRepository(New(Config{Seed: 3}))
	if !reflect.DeepEqual(a.Records(), b.Records()) {
		t.Fatal("two repositories of one seed differ")
	}
	for _, target := range []string{"/oai?verb=ListRecords&metadataPrefix=oai_dc", "/oai?verb=Identify", "/handle/20.500.12345/1003"} {
		if x, y := repoGet(t, a, target).Body.String(), repoGet(t, b, target).Body.String(); x != y {
			t.Errorf("%s differs between two repositories of one seed", target)
		}
	}
	if c := NewRepository(New(Config{Seed: 4})); reflect.DeepEqual(a.Records(), c.Records()) {
		t.Error("two seeds give the same repository")
	}
}

// TestRepositoryRecords checks the ground truth: deposits of publications
// of the web with deposit-style metadata, repository-only theses, deleted
// records, and the landing pages and PDFs they name.
func TestRepositoryRecords(t *testing.T) {
	w := New(Config{})
	r := NewRepository(w)
	recs := r.Records()
	var deposits, only, deleted, initials, retitled int
	for i, rec := range recs {
		if i > 0 && rec.Datestamp.Before(recs[i-1].Datestamp) {
			t.Errorf("record %s listed out of datestamp order", rec.Identifier)
		}
		if rec.Deleted {
			deleted++
			if rec.Landing != "" || rec.Title != "" {
				t.Errorf("deleted record %s has metadata", rec.Identifier)
			}
			if code := repoGet(t, r, "/handle/"+rec.Handle).Code; code != http.StatusNotFound {
				t.Errorf("deleted record's landing page: %d", code)
			}
			continue
		}
		if rec.Original == "" {
			only++
		} else {
			deposits++
			info, ok := w.Lookup(rec.Original)
			if !ok || info.Citation == nil || info.Citation.DOI != rec.DOI {
				t.Errorf("record %s: original %s is not a publication with DOI %s", rec.Identifier, rec.Original, rec.DOI)
			}
			if rec.Title != rec.Citation.Title {
				retitled++
			}
			if len(rec.Creators) != len(rec.Citation.Authors) {
				t.Errorf("record %s: %d creators, original has %d", rec.Identifier, len(rec.Creators), len(rec.Citation.Authors))
			}
		}
		for _, c := range rec.Creators {
			if strings.HasSuffix(c, ".") {
				initials++
			}
			if !strings.Contains(c, ", ") {
				t.Errorf("creator %q is not written Last, First", c)
			}
		}
		land := repoGet(t, r, strings.TrimPrefix(rec.Landing, "http://"+RepositoryHost))
		body := land.Body.String()
		if land.Code != http.StatusOK || !strings.Contains(body, `<meta name="citation_pdf_url" content="`+rec.PDF+`">`) ||
			!strings.Contains(body, `<meta name="citation_title" content="`) {
			t.Errorf("landing page of %s: %d\n%s", rec.Identifier, land.Code, body)
		}
		pdf := repoGet(t, r, strings.TrimPrefix(rec.PDF, "http://"+RepositoryHost))
		if pdf.Code != http.StatusOK || pdf.Header().Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(pdf.Body.Bytes(), []byte("%PDF-")) {
			t.Errorf("PDF of %s: %d %q", rec.Identifier, pdf.Code, pdf.Header().Get("Content-Type"))
		}
	}
	if deposits < 2*RepositoryPageSize || only != 4 || deleted != 2 || initials == 0 || retitled == 0 {
		t.Errorf("%d deposits, %d repository-only, %d deleted, %d initials, %d retitled", deposits, only, deleted, initials, retitled)
	}
	if code := repoGet(t, r, "/bitstream/handle/20.500.12345/1000/other.pdf").Code; code != http.StatusNotFound {
		t.Errorf("a PDF name that is not the record's: %d", code)
	}
}

func TestRepositoryProtocolErrors(t *testing.T) {
	w := New(Config{})
	r := NewRepository(w)
	for _, tc := range []struct{ target, code string }{
		{"/oai", "badVerb"},
		{"/oai?verb=Frobnicate", "badVerb"},
		{"/oai?verb=ListRecords&verb=ListRecords&metadataPrefix=oai_dc", "badVerb"},
		{"/oai?verb=ListRecords", "badArgument"},
		{"/oai?verb=ListRecords&metadataPrefix=oai_dc&color=red", "badArgument"},
		{"/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2020-01-01&until=2021-01-01T00:00:00Z", "badArgument"},
		{"/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2021-01-01&until=2020-01-01", "badArgument"},
		{"/oai?verb=ListRecords&metadataPrefix=oai_dc&from=yesterday", "badArgument"},
		{"/oai?verb=ListRecords&metadataPrefix=marc21", "cannotDisseminateFormat"},
		{"/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2099-01-01", "noRecordsMatch"},
		{"/oai?verb=ListRecords&resumptionToken=bogus", "badResumptionToken"},
		{"/oai?verb=ListRecords&resumptionToken=oai_dc/////20/0&metadataPrefix=oai_dc", "badArgument"},
		{"/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:elsewhere:1", "idDoesNotExist"},
	} {
		body := repoGet(t, r, tc.target).Body.String()
		if !strings.Contains(body, `<error code="`+tc.code+`">`) {
			t.Errorf("%s: want error %s, got\n%s", tc.target, tc.code, body)
		}
	}
	// A token of an earlier epoch has expired.
	page1 := repoGet(t, r, "/oai?verb=ListIdentifiers&metadataPrefix=oai_dc").Body.String()
	tok := between(page1, `">`, "</resumptionToken>")
	if tok == "" || strings.Contains(page1, "<metadata>") {
		t.Fatalf("ListIdentifiers page 1 has no token or has metadata:\n%s", page1)
	}
	if body := repoGet(t, r, "/oai?verb=ListIdentifiers&resumptionToken="+tok).Body.String(); strings.Contains(body, "<error") {
		t.Fatalf("token %q refused: %s", tok, body)
	}
	w.Advance()
	if body := repoGet(t, r, "/oai?verb=ListIdentifiers&resumptionToken="+tok).Body.String(); !strings.Contains(body, `<error code="badResumptionToken">`) {
		t.Errorf("token of the last epoch accepted: %s", body)
	}
}

// between returns the text of s after the last before that precedes end.
func between(s, before, end string) string {
	j := strings.Index(s, end)
	if j < 0 {
		return ""
	}
	i := strings.LastIndex(s[:j], before)
	if i < 0 {
		return ""
	}
	return s[i+len(before) : j]
}

func TestRepositoryGetRecord(t *testing.T) {
	r := NewRepository(New(Config{}))
	rec := r.Records()[0]
	body := repoGet(t, r, "/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier="+rec.Identifier).Body.String()
	if !strings.Contains(body, "<identifier>"+rec.Identifier+"</identifier>") || !strings.Contains(body, "<dc:identifier>"+rec.PDF+"</dc:identifier>") {
		t.Errorf("GetRecord %s:\n%s", rec.Identifier, body)
	}
}

// TestRepositorySite adds the repository to a web as a site and checks
// that the web's ground truth describes what it serves.
func TestRepositorySite(t *testing.T) {
	w := New(Config{})
	if w.byHost[RepositoryHost] == nil { // until New builds it
		w.addSite(w.buildRepository())
	}
	var info *SiteInfo
	for _, s := range w.Sites() {
		if s.Host == RepositoryHost {
			info = &s
		}
	}
	if info == nil || info.Kind != "repository" || !info.Academic || info.Robots != "allow-all" || info.Pages == 0 {
		t.Fatalf("SiteInfo = %+v", info)
	}
	n := 0
	for _, p := range w.Pages() {
		if hostOf(p.URL) != RepositoryHost {
			continue
		}
		n++
		rec := serve(t, w, p.URL)
		if rec.Code != p.Status || rec.Header().Get("Content-Type") != p.ContentType {
			t.Errorf("GET %s = %d %q, truth %d %q", p.URL, rec.Code, rec.Header().Get("Content-Type"), p.Status, p.ContentType)
		}
		if p.Kind != "publication" {
			continue
		}
		c := p.Citation
		body := rec.Body.String()
		if c == nil || c.PDF == "" || !strings.Contains(body, `<meta name="citation_pdf_url" content="`+c.PDF+`">`) ||
			!strings.Contains(body, `<meta name="citation_publication_date" content="`+strings.ReplaceAll(c.Date, "-", "/")+`">`) ||
			strings.Count(body, `<meta name="citation_author"`) != len(c.Authors) ||
			(c.DOI != "") != strings.Contains(body, `<meta name="citation_doi" content="`+c.DOI+`">`) {
			t.Errorf("publication %s: truth %+v\n%s", p.URL, c, body)
		}
	}
	if n != info.Pages {
		t.Errorf("%d pages of the repository in Pages(), SiteInfo says %d", n, info.Pages)
	}
	for _, target := range []string{"/oai?verb=Identify", "/oai/busy?verb=ListRecords&metadataPrefix=oai_dc"} {
		u := "http://" + RepositoryHost + target
		p, ok := w.Lookup(u)
		rec := serve(t, w, u)
		if !ok || p.Kind != "feed" || p.Status != rec.Code || !strings.Contains(rec.Body.String(), "<OAI-PMH") {
			t.Errorf("Lookup(%s) = %+v, %v; served %d", u, p, ok, rec.Code)
		}
	}
	if p, ok := w.Lookup("http://" + RepositoryHost + "/robots.txt"); !ok || p.Kind != "robots" {
		t.Errorf("robots.txt: %+v", p)
	}
	if body := serve(t, w, "http://"+RepositoryHost+"/robots.txt").Body.String(); !strings.Contains(body, "Disallow: /discover") {
		t.Errorf("robots.txt:\n%s", body)
	}
}
