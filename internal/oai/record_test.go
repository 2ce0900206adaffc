package oai

import (
	"reflect"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		ids, rels []string
		want      Record
	}{
		{ids: []string{"doi:10.1000/ABC.1", "https://doi.org/10.1000/other"}, want: Record{DOI: "10.1000/abc.1"}},
		{ids: []string{"info:doi/10.1000/x"}, want: Record{DOI: "10.1000/x"}},
		{ids: []string{"DOI: 10.1000/x."}, want: Record{DOI: "10.1000/x"}},
		{ids: []string{"http://dx.doi.org/10.1000/a%2Fb"}, want: Record{DOI: "10.1000/a/b"}},
		{ids: []string{"hdl:1721.1/55", "http://hdl.handle.net/1721.1/56?locatt=x"},
			want: Record{Handle: "1721.1/55", URLs: []string{"http://hdl.handle.net/1721.1/56?locatt=x"}}},
		{ids: []string{"https://repo.test/server/api/core/bitstreams/0b3c/download", "https://repo.test/items/0b3c"},
			want: Record{URLs: []string{"https://repo.test/items/0b3c"}, PDFURLs: []string{"https://repo.test/server/api/core/bitstreams/0b3c/download"}}},
		{ids: []string{"https://repo.test/a.PDF", "https://repo.test/a.PDF", "ftp://repo.test/a.pdf", "https://repo.test/with space", "urn:nbn:de:1", "https://"},
			want: Record{PDFURLs: []string{"https://repo.test/a.PDF"}}},
		// EPrints: the landing page is a relation when no identifier is one.
		{ids: []string{"https://e.test/1/1/x.pdf"}, rels: []string{"https://e.test/1/", "info:eu-repo/semantics/altIdentifier/doi/10.1000/Y"},
			want: Record{DOI: "10.1000/y", URLs: []string{"https://e.test/1/"}, PDFURLs: []string{"https://e.test/1/1/x.pdf"}}},
		// A relation is not a landing page when an identifier is.
		{ids: []string{"https://r.test/item/1"}, rels: []string{"https://other.test/dataset/9"},
			want: Record{URLs: []string{"https://r.test/item/1"}}},
	} {
		var dc dcValues
		dc.fields[fIdentifier], dc.fields[fRelation] = tc.ids, tc.rels
		var got Record
		dc.fill(&got)
		got.Identifiers, got.Relations = nil, nil
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("fill(%q, %q) = %+v, want %+v", tc.ids, tc.rels, got, tc.want)
		}
	}
}

func TestYear(t *testing.T) {
	for _, tc := range []struct {
		dates []string
		year  int
		date  string
	}{
		{[]string{"2024-11-02T14:05:09Z", "2019-06"}, 2019, "2019-06"},
		{[]string{"May 2003"}, 2003, "May 2003"},
		{[]string{"12345", "n.d."}, 0, "12345"},
		{[]string{"0999", "3000-01-01", "1999"}, 1999, "1999"},
	} {
		var dc dcValues
		dc.fields[fDate] = tc.dates
		var r Record
		dc.fill(&r)
		if r.Year != tc.year || r.Date != tc.date {
			t.Errorf("dates %q: Year %d Date %q, want %d %q", tc.dates, r.Year, r.Date, tc.year, tc.date)
		}
	}
}
