package oai

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func readCase(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRecords(t *testing.T) {
	for _, tc := range []struct {
		file    string
		verb    string
		records []Record
		token   *ResumptionToken
	}{
		{
			file: "dspace-listrecords.xml", verb: "ListRecords",
			records: []Record{{
				Identifier: "oai:dspace.example.edu:1721.1/12345", Datestamp: "2024-11-02T14:05:09Z",
				Sets:         []string{"com_1721.1_1", "col_1721.1_7"},
				Title:        "Polite crawling of institutional repositories",
				Creators:     []string{"Sato, Jamal", "Okafor, N."},
				Contributors: []string{"Lindqvist, Maria (advisor)"},
				Subjects:     []string{"web crawling", "OAI-PMH"},
				Description:  "We harvest repositories\u2026 & compare <results>.",
				Date:         "2019-06", Year: 2019, Type: "Article",
				Publisher: "Northfield University Press", Language: "en_US",
				Rights:  []string{"Creative Commons Attribution 4.0"},
				Sources: []string{"Journal of Applied Crawling 12(3)"},
				Formats: []string{"application/pdf"},
				DOI:     "10.5555/jac.2019.042", Handle: "1721.1/12345",
				URLs:    []string{"https://hdl.handle.net/1721.1/12345"},
				PDFURLs: []string{"https://dspace.example.edu/bitstream/handle/1721.1/12345/paper.pdf?sequence=1"},
				Identifiers: []string{"https://hdl.handle.net/1721.1/12345", "https://doi.org/10.5555/JAC.2019.042",
					"https://dspace.example.edu/bitstream/handle/1721.1/12345/paper.pdf?sequence=1"},
				Relations: []string{"Journal of Applied Crawling"},
			}, {
				Identifier: "oai:dspace.example.edu:1721.1/999", Datestamp: "2024-12-01T00:00:00Z",
				Deleted: true, Sets: []string{"col_1721.1_7"},
			}},
			token: &ResumptionToken{Value: "oai_dc////100", CompleteListSize: 250, Cursor: 0,
				ExpirationDate: time.Date(2025, 3, 1, 10, 30, 0, 0, time.UTC)},
		},
		{
			file: "eprints-listrecords.xml", verb: "ListRecords",
			records: []Record{{
				Identifier: "oai:eprints.example.ac.uk:4711", Datestamp: "2023-05-17T10:22:41Z",
				Sets:        []string{"7374617475733D707562", "7375626A656374733D51", "74797065733D61727469636C65"},
				Title:       "Frontier scheduling: a survey",
				Creators:    []string{"Sato, J.", "Müller, Anna"},
				Subjects:    []string{"QA75 Electronic computers. Computer science"},
				Description: "We survey <frontier> designs & their politeness.",
				Publisher:   "ACM", Date: "2021", Year: 2021, Type: "Article", Language: "en",
				Formats: []string{"text"},
				DOI:     "10.1145/3441234",
				URLs:    []string{"http://eprints.example.ac.uk/4711/"},
				PDFURLs: []string{"http://eprints.example.ac.uk/4711/1/frontier-survey.pdf"},
				Identifiers: []string{"http://eprints.example.ac.uk/4711/1/frontier-survey.pdf",
					"Sato, J. and Müller, Anna (2021) Frontier scheduling: a survey. Computing Surveys, 54 (2). pp. 1-30. ISSN 0360-0300"},
				Relations: []string{"http://eprints.example.ac.uk/4711/", "info:eu-repo/semantics/altIdentifier/doi/10.1145/3441234",
					"https://doi.org/10.1145/3441234"},
			}},
			token: &ResumptionToken{Value: "metadataPrefix%3Doai_dc%26offset%3D212", CompleteListSize: -1, Cursor: -1},
		},
		{
			file: "ojs-listrecords.xml", verb: "ListRecords",
			records: []Record{{
				Identifier: "oai:ojs.journals.example.org:article/88", Datestamp: "2024-07-01T09:15:00Z",
				Sets:        []string{"jac:ART"},
				Title:       "Robots.txt in the wild: a ten-year study",
				Creators:    []string{"Sato, Jamal"},
				Subjects:    []string{"robots exclusion"},
				Description: "<p>Ten years of robots.txt files.</p>",
				Publisher:   "Journal of Applied Crawling", Date: "2024-06-30", Year: 2024,
				Type: "info:eu-repo/semantics/article", Language: "eng",
				Rights:      []string{"Copyright (c) 2024 Jamal Sato"},
				Sources:     []string{"Journal of Applied Crawling; Vol. 5 No. 2 (2024); 1-20", "2345-6789"},
				Formats:     []string{"application/pdf"},
				DOI:         "10.5555/jac.2024.088",
				URLs:        []string{"https://journals.example.org/index.php/jac/article/view/88"},
				PDFURLs:     []string{"https://journals.example.org/index.php/jac/article/download/88/120"},
				Identifiers: []string{"https://journals.example.org/index.php/jac/article/view/88", "10.5555/jac.2024.088"},
				Relations: []string{"https://journals.example.org/index.php/jac/article/view/88/120",
					"https://journals.example.org/index.php/jac/article/download/88/120"},
			}},
			token: &ResumptionToken{Value: "", CompleteListSize: 101, Cursor: 100,
				ExpirationDate: time.Date(2025, 1, 21, 12, 0, 0, 0, time.UTC)},
		},
		{
			file: "prefixes-bom.xml", verb: "GetRecord",
			records: []Record{{
				Identifier: "oai:invenio.example.org:555", Datestamp: "2025-02-28",
				Sets:     []string{"user-crawling"},
				Title:    "Café crawling\u00a0notes",
				Creators: []string{"Jamal Sato"},
				Date:     "2025-02-27", Year: 2025,
				DOI:     "10.5281/zenodo.555",
				URLs:    []string{"https://invenio.example.org/records/555"},
				PDFURLs: []string{"https://invenio.example.org/records/555/files/notes.PDF?download=1"},
				Identifiers: []string{"doi:10.5281/zenodo.555", "https://invenio.example.org/records/555",
					"https://invenio.example.org/records/555/files/notes.PDF?download=1"},
			}},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			resp, err := Parse(readCase(t, tc.file), Limits{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if resp.Verb != tc.verb {
				t.Errorf("Verb = %q, want %q", resp.Verb, tc.verb)
			}
			if resp.Err() != nil || resp.Truncated {
				t.Errorf("Err() = %v, Truncated = %v", resp.Err(), resp.Truncated)
			}
			if len(resp.Records) != len(tc.records) {
				t.Fatalf("%d records, want %d: %+v", len(resp.Records), len(tc.records), resp.Records)
			}
			for i, want := range tc.records {
				if got := resp.Records[i]; !reflect.DeepEqual(got, want) {
					t.Errorf("record %d =\n%#v\nwant\n%#v", i, got, want)
				}
			}
			if !reflect.DeepEqual(resp.Token, tc.token) {
				t.Errorf("Token = %+v, want %+v", resp.Token, tc.token)
			}
		})
	}
}

func TestParseIdentify(t *testing.T) {
	resp, err := Parse(readCase(t, "identify.xml"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := &Identify{
		RepositoryName: "Example University DSpace", BaseURL: "https://dspace.example.edu/oai/request",
		ProtocolVersion: "2.0", AdminEmails: []string{"repository@example.edu"},
		EarliestDatestamp: "2001-01-01T00:00:00Z", DeletedRecord: "persistent", Granularity: SecondGranularity,
	}
	if !reflect.DeepEqual(resp.Identify, want) {
		t.Errorf("Identify = %+v, want %+v", resp.Identify, want)
	}
	if resp.ResponseDate != "2025-03-01T09:30:00Z" || resp.BaseURL != "https://dspace.example.edu/oai/request" {
		t.Errorf("ResponseDate, BaseURL = %q, %q", resp.ResponseDate, resp.BaseURL)
	}
}

func TestParseFormats(t *testing.T) {
	resp, err := Parse(readCase(t, "formats.xml"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []MetadataFormat{
		{Prefix: "oai_dc", Schema: "http://www.openarchives.org/OAI/2.0/oai_dc.xsd", Namespace: NamespaceOAIDC},
		{Prefix: "mods", Schema: "http://www.loc.gov/standards/mods/v3/mods-3-1.xsd", Namespace: "http://www.loc.gov/mods/v3"},
	}
	if !reflect.DeepEqual(resp.Formats, want) {
		t.Errorf("Formats = %+v, want %+v", resp.Formats, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		want error
	}{
		{"error-badtoken.xml", ErrBadResumptionToken},
		{"error-norecords.xml", ErrNoRecordsMatch},
	} {
		resp, err := Parse(readCase(t, tc.file), Limits{})
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.file, err)
		}
		if !errors.Is(resp.Err(), tc.want) {
			t.Errorf("Parse(%s).Err() = %v, want %v", tc.file, resp.Err(), tc.want)
		}
		if errors.Is(resp.Err(), ErrBadArgument) {
			t.Errorf("Parse(%s).Err() matches badArgument", tc.file)
		}
	}
	for _, code := range []ErrorCode{BadArgument, BadVerb, CannotDisseminateFormat, IDDoesNotExist, NoSetHierarchy, NoMetadataFormats} {
		body := `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2025-01-01T00:00:00Z</responseDate>` +
			`<request>http://r.test/oai</request><error code="` + string(code) + `">no</error></OAI-PMH>`
		resp, err := Parse([]byte(body), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var e *Error
		if !errors.As(resp.Err(), &e) || e.Code != code || e.Message != "no" {
			t.Errorf("error %s: Err() = %#v", code, resp.Err())
		}
		if !errors.Is(resp.Err(), &Error{Code: code}) {
			t.Errorf("errors.Is(%v, %s) is false", resp.Err(), code)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		is         error
	}{
		{"truncated", string(readCase(t, "truncated.xml")), ErrTruncated},
		{"html", "<!DOCTYPE html><html><body>Service unavailable</body></html>", nil},
		{"empty", "", ErrTruncated},
		{"other root", `<rss version="2.0"><channel/></rss>`, nil},
		{"two roots", `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"/><OAI-PMH/>`, nil},
		{"unknown entity", `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>&bogus;</responseDate></OAI-PMH>`, nil},
		{"unsupported charset", `<?xml version="1.0" encoding="koi8-r"?><OAI-PMH/>`, nil},
	} {
		_, err := Parse([]byte(tc.body), Limits{})
		if err == nil {
			t.Errorf("Parse(%s) = nil error", tc.name)
			continue
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("Parse(%s) = %v, want %v", tc.name, err, tc.is)
		}
	}
	if _, err := Parse([]byte(`<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"/><OAI-PMH/>`), Limits{}); errors.Is(err, ErrTruncated) {
		t.Errorf("two roots: %v, not a truncation", err)
	}
	big := strings.Repeat(" ", 101)
	if _, err := Parse([]byte(big), Limits{MaxBytes: 100}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Parse(101 bytes, MaxBytes 100) = %v, want ErrTooLarge", err)
	}
}

// TestParseRepairs covers what repositories send that strict XML refuses.
func TestParseRepairs(t *testing.T) {
	const head = `<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><GetRecord><record><header><identifier>x</identifier></header><metadata>` +
		`<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">`
	const tail = `</oai_dc:dc></metadata></record></GetRecord></OAI-PMH>`
	for _, tc := range []struct {
		name, body, title string
	}{
		{"form feed", head + "<dc:title>Page\x0cbreak</dc:title>" + tail, "Page break"},
		{"invalid utf-8", head + "<dc:title>Caf\xe9</dc:title>" + tail, "Caf\uFFFD"},
		{"latin-1", `<?xml version="1.0" encoding="ISO-8859-1"?>` + head + "<dc:title>Caf\xe9</dc:title>" + tail, "Café"},
		{"undeclared dc prefix", strings.Replace(head, ` xmlns:dc="http://purl.org/dc/elements/1.1/"`, "", 1) + "<dc:title>T</dc:title>" + tail, "T"},
		{"no namespace", `<OAI-PMH><GetRecord><record><header><identifier>x</identifier></header><metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title>` + tail, "T"},
		{"nested markup", head + "<dc:title>A <i>bold</i>\n  claim</dc:title>" + tail, "A bold claim"},
	} {
		resp, err := Parse([]byte(tc.body), Limits{})
		if err != nil {
			t.Errorf("Parse(%s): %v", tc.name, err)
			continue
		}
		if len(resp.Records) != 1 || resp.Records[0].Title != tc.title {
			t.Errorf("Parse(%s) records = %+v, want title %q", tc.name, resp.Records, tc.title)
		}
	}
}

func TestParseLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords>`)
	for i := 0; i < 5; i++ {
		b.WriteString(`<record><header><identifier>id</identifier></header><metadata><dc xmlns="http://purl.org/dc/elements/1.1/">`)
		b.WriteString("<title>" + strings.Repeat("é", 50) + "</title>")
		for j := 0; j < 10; j++ {
			b.WriteString("<creator>A</creator>")
		}
		b.WriteString(`</dc></metadata></record>`)
	}
	b.WriteString(`</ListRecords></OAI-PMH>`)
	resp, err := Parse([]byte(b.String()), Limits{MaxRecords: 3, MaxField: 9, MaxValues: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated || len(resp.Records) != 3 {
		t.Fatalf("Truncated = %v, %d records; want true, 3", resp.Truncated, len(resp.Records))
	}
	r := resp.Records[0]
	if r.Title != strings.Repeat("é", 4) || len(r.Creators) != 4 {
		t.Errorf("Title = %q, %d creators; want 4 é and 4 creators", r.Title, len(r.Creators))
	}
}

func TestGranularity(t *testing.T) {
	ts := time.Date(2025, 3, 1, 9, 30, 5, 0, time.FixedZone("", 3600))
	for _, tc := range []struct {
		g    Granularity
		want string
	}{
		{DayGranularity, "2025-03-01"},
		{SecondGranularity, "2025-03-01T08:30:05Z"},
		{"", "2025-03-01"},
	} {
		if got := tc.g.Format(ts); got != tc.want {
			t.Errorf("%q.Format = %q, want %q", tc.g, got, tc.want)
		}
		back, err := ParseDatestamp(tc.want)
		if err != nil || back.Format("2006-01-02") != "2025-03-01" {
			t.Errorf("ParseDatestamp(%q) = %v, %v", tc.want, back, err)
		}
	}
	if _, err := ParseDatestamp("2025-03-01T08:30:05.123Z"); err != nil {
		t.Errorf("fractional seconds: %v", err)
	}
	if _, err := ParseDatestamp("yesterday"); err == nil {
		t.Error("ParseDatestamp(yesterday) = nil error")
	}
}
