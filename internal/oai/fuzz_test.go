package oai

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/scholar"
)

func addCorpus(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<OAI-PMH><ListIdentifiers><header status="deleted"><identifier>a</identifier></header><resumptionToken cursor="x">t</resumptionToken></ListIdentifiers></OAI-PMH>`))
}

// FuzzParse checks what Parse returns: records, values and their number
// within the limits, every string valid UTF-8, every URL absolute http(s),
// the DOI a fixed point of its normalization, and output bounded linearly
// by the input.
func FuzzParse(f *testing.F) {
	addCorpus(f)
	lim := Limits{MaxBytes: 1 << 20, MaxRecords: 20, MaxField: 200, MaxValues: 8}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := Parse(body, lim)
		if err != nil {
			if resp != nil {
				t.Fatal("a response with an error")
			}
			return
		}
		if len(resp.Records) > lim.MaxRecords || len(resp.Errors) > lim.MaxValues || len(resp.Formats) > lim.MaxValues {
			t.Fatalf("%d records, %d errors, %d formats over the limits", len(resp.Records), len(resp.Errors), len(resp.Formats))
		}
		total := 0
		check := func(what, s string) {
			total += len(s)
			if len(s) > lim.MaxField {
				t.Fatalf("%s: %d bytes > MaxField", what, len(s))
			}
			if !utf8.ValidString(s) {
				t.Fatalf("%s: invalid UTF-8 %q", what, s)
			}
		}
		list := func(what string, l []string, max int) {
			if len(l) > max {
				t.Fatalf("%s: %d values > %d", what, len(l), max)
			}
			for _, s := range l {
				check(what, s)
			}
		}
		check("ResponseDate", resp.ResponseDate)
		check("BaseURL", resp.BaseURL)
		if resp.Token != nil {
			check("Token", resp.Token.Value)
		}
		for _, e := range resp.Errors {
			check("error", e.Message)
		}
		for _, r := range resp.Records {
			for _, s := range []string{r.Identifier, r.Datestamp, r.Title, r.Date, r.Type, r.Publisher, r.Description, r.Language, r.DOI, r.Handle} {
				check("field", s)
			}
			for _, l := range [][]string{r.Sets, r.Creators, r.Contributors, r.Subjects, r.Rights, r.Sources, r.Formats, r.Identifiers, r.Relations} {
				list("values", l, lim.MaxValues)
			}
			list("URLs", r.URLs, 2*lim.MaxValues)
			list("PDFURLs", r.PDFURLs, 2*lim.MaxValues)
			for _, u := range append(append([]string(nil), r.URLs...), r.PDFURLs...) {
				p, err := url.Parse(u)
				if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
					t.Fatalf("URL %q is not absolute http(s)", u)
				}
			}
			if r.DOI != "" {
				if d, ok := scholar.NormalizeDOI(r.DOI); !ok || d != r.DOI {
					t.Fatalf("DOI %q normalizes to %q, %v", r.DOI, d, ok)
				}
			}
			if r.Year != 0 && (r.Year < 1000 || r.Year > 2999 || !strings.Contains(r.Date, itoa4(r.Year))) {
				t.Fatalf("Year %d from Date %q", r.Year, r.Date)
			}
		}
		// A value appears at most three times (as sent, as URL or DOI, as
		// Title or Date), and a byte of input becomes at most three of
		// output (U+FFFD for an invalid byte).
		if total > 9*len(body)+64 {
			t.Fatalf("%d bytes of strings from %d bytes of input", total, len(body))
		}
	})
}

func itoa4(y int) string {
	return string([]byte{byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10)})
}

// FuzzToken checks that a resumption token survives the trip: written
// escaped into a response, parsed, put in a request URL and read back
// from that URL's query, it is the token the repository sent.
func FuzzToken(f *testing.F) {
	for _, s := range []string{"oai_dc////100", "metadataPrefix%3Doai_dc%26offset%3D212", "a b&c<d>\"'", "é/ü?x=1#f", "  padded  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		if !utf8.ValidString(tok) || len(tok) > 1000 {
			return
		}
		for _, r := range tok {
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError {
				return // not a character XML can carry
			}
		}
		var b strings.Builder
		b.WriteString(`<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords><resumptionToken cursor="3">`)
		if err := xml.EscapeText(&b, []byte(tok)); err != nil {
			t.Fatal(err)
		}
		b.WriteString(`</resumptionToken></ListRecords></OAI-PMH>`)
		resp, err := Parse([]byte(b.String()), Limits{})
		if err != nil {
			t.Fatalf("Parse: %v", err)
		}
		want := strings.Trim(tok, " \t\r\n")
		if resp.Token == nil || resp.Token.Value != want || resp.Token.Cursor != 3 {
			t.Fatalf("Token = %#v, want %q", resp.Token, want)
		}
		u, err := requestURL("http://repo.test/oai?old=1#x", url.Values{"verb": {"ListRecords"}, "resumptionToken": {want}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Query()["resumptionToken"]; len(got) != 1 || got[0] != want || p.Query().Has("old") {
			t.Fatalf("URL %s carries %q, want %q", u, got, want)
		}
	})
}

func TestParseEmptyToken(t *testing.T) {
	resp, err := Parse([]byte(`<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords><resumptionToken completeListSize="5" cursor="4"/></ListRecords></OAI-PMH>`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Token == nil || resp.Token.Value != "" || resp.Token.CompleteListSize != 5 {
		t.Errorf("Token = %+v, want an empty token ending a list of 5", resp.Token)
	}
	if errors.Is(resp.Err(), ErrNoRecordsMatch) {
		t.Error("an empty token is not an error")
	}
}

// pages is a Getter that answers the pages of a fuzz input in turn,
// separated by NUL bytes, and then the last one again.
type pages struct {
	bodies [][]byte
	n      int
}

func (p *pages) Get(_ context.Context, _ string) (int, []byte, time.Duration, error) {
	b := p.bodies[min(p.n, len(p.bodies)-1)]
	p.n++
	if bytes.HasPrefix(b, []byte("503")) {
		return 503, nil, time.Second, nil
	}
	return 200, b, 0, nil
}

// FuzzHarvest runs the harvester over arbitrary answers: it ends within
// MaxPages requests, reports what it counts, and either completes or
// leaves a token to resume from when it stopped after a page.
func FuzzHarvest(f *testing.F) {
	f.Add([]byte(`<OAI-PMH><ListRecords><record><header><identifier>a</identifier></header></record><resumptionToken>t1</resumptionToken></ListRecords></OAI-PMH>` + "\x00" +
		`<OAI-PMH><ListRecords><record><header status="deleted"><identifier>b</identifier></header></record><resumptionToken>t1</resumptionToken></ListRecords></OAI-PMH>`))
	f.Add([]byte(`<OAI-PMH><error code="badResumptionToken"/></OAI-PMH>` + "\x00" + `<OAI-PMH><ListRecords><resumptionToken/></ListRecords></OAI-PMH>`))
	f.Add([]byte("503\x00<OAI-PMH><error code=\"noRecordsMatch\"/></OAI-PMH>"))
	f.Fuzz(func(t *testing.T, in []byte) {
		g := &pages{bodies: bytes.Split(in, []byte{0})}
		h := &Harvester{Getter: g, BaseURL: "http://r.test/oai"}
		const maxPages = 8
		records, deleted, reported := 0, 0, 0
		last := ""
		res, err := h.ListRecords(context.Background(), Options{Token: "start", MaxPages: maxPages, RestartOnBadToken: true}, func(p *Page) error {
			reported++
			records += len(p.Records)
			for _, r := range p.Records {
				if r.Deleted {
					deleted++
				}
			}
			last = p.Token
			return nil
		})
		if g.n > maxPages+1 {
			t.Fatalf("%d requests for MaxPages %d", g.n, maxPages)
		}
		if res.Pages != reported || res.Records != records || res.Deleted != deleted {
			t.Fatalf("Result %+v; reported %d pages, %d records, %d deleted", res, reported, records, deleted)
		}
		if (err == nil) != res.Complete {
			t.Fatalf("err %v with Complete %v", err, res.Complete)
		}
		if err != nil && reported > 0 && res.Token != last {
			t.Fatalf("stopped with token %q after a page that gave %q", res.Token, last)
		}
	})
}
