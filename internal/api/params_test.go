package api

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

func TestParseSearch(t *testing.T) {
	tests := []struct {
		in    string
		want  crawl.SearchRequest
		param string // the parameter refused, "" when accepted
	}{
		{"", crawl.SearchRequest{Limit: 10, ByWork: true}, ""},
		{"q=focused+crawling", crawl.SearchRequest{Query: "focused crawling", Limit: 10, ByWork: true}, ""},
		{"q=%22a%22+AND+(&limit=100&offset=10000", crawl.SearchRequest{Query: `"a" AND (`, Limit: 100, Offset: 10000, ByWork: true}, ""},
		{"q=x&host=https://a.edu&type=thesis&lang=en&year_from=2000&year_to=2020",
			crawl.SearchRequest{Query: "x", Limit: 10, Host: "https://a.edu", Type: "thesis", Lang: "en", YearFrom: 2000, YearTo: 2020, ByWork: true}, ""},
		{"q=x&year_from=0&year_to=0", crawl.SearchRequest{Query: "x", Limit: 10, ByWork: true}, ""},
		{"q=first&q=second", crawl.SearchRequest{Query: "first", Limit: 10, ByWork: true}, ""},
		{"limit=&offset=", crawl.SearchRequest{Limit: 10, ByWork: true}, ""},
		{"q=x&group=page", crawl.SearchRequest{Query: "x", Limit: 10}, ""},
		{"q=x&group=work", crawl.SearchRequest{Query: "x", Limit: 10, ByWork: true}, ""},
		{"group=host", crawl.SearchRequest{}, "group"},
		{"limit=0", crawl.SearchRequest{}, "limit"},
		{"limit=+5", crawl.SearchRequest{}, "limit"},
		{"limit=0x10", crawl.SearchRequest{}, "limit"},
		{"offset=10001", crawl.SearchRequest{}, "offset"},
		{"year_from=2101", crawl.SearchRequest{}, "year_from"},
		{"year_to=999", crawl.SearchRequest{}, "year_to"},
		{"year_from=2001&year_to=2000", crawl.SearchRequest{}, "year_from"},
		{"q=" + strings.Repeat("é", 251), crawl.SearchRequest{}, "q"},
		{"type=" + strings.Repeat("t", 41), crawl.SearchRequest{}, "type"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			v, err := url.ParseQuery(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseSearch(v)
			var pe *paramError
			switch {
			case tc.param != "":
				if !errors.As(err, &pe) || pe.param != tc.param {
					t.Errorf("parseSearch(%q) error = %v, want one naming %q", tc.in, err, tc.param)
				}
			case err != nil:
				t.Errorf("parseSearch(%q) error = %v", tc.in, err)
			case got != tc.want:
				t.Errorf("parseSearch(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzParseSearch checks that parseSearch always answers: a request within
// the bounds, which its own link form reads back the same, or an error
// naming one of the parameters.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"", "q=x", "q=x&limit=5&offset=20&host=h&type=t&lang=l&year_from=2000&year_to=2001",
		"limit=-1", "year_from=3000", "q=%00%ff", "offset=1e3"} {
		f.Add(s)
	}
	params := map[string]bool{"q": true, "limit": true, "offset": true, "host": true, "type": true, "lang": true, "year_from": true, "year_to": true}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		r, err := parseSearch(v)
		if err != nil {
			var pe *paramError
			if !errors.As(err, &pe) || !params[pe.param] {
				t.Fatalf("parseSearch(%q) error %v names no parameter", raw, err)
			}
			return
		}
		if len(r.Query) > query.MaxLength || r.Limit < 1 || r.Limit > MaxLimit || r.Offset < 0 || r.Offset > MaxOffset ||
			r.YearFrom != 0 && (r.YearFrom < MinYear || r.YearFrom > MaxYear) || r.YearTo != 0 && (r.YearTo < MinYear || r.YearTo > MaxYear) ||
			r.YearFrom != 0 && r.YearTo != 0 && r.YearFrom > r.YearTo || len(r.Host) > maxHostLen {
			t.Fatalf("parseSearch(%q) = %+v, out of bounds", raw, r)
		}
		back, err := parseSearch(searchQuery(r))
		if err != nil || back != r {
			t.Fatalf("parseSearch(searchQuery(%+v)) = %+v, %v", r, back, err)
		}
	})
}

func TestPagination(t *testing.T) {
	tests := []struct {
		limit, offset, total int
		prev, next           bool
		pages                []int
		current              int
	}{
		{10, 0, 0, false, false, nil, 0},
		{10, 0, 7, false, false, nil, 0},
		{10, 0, 10, false, false, nil, 0},
		{10, 0, 11, false, true, []int{1, 2}, 1},
		{10, 10, 11, true, false, []int{1, 2}, 2},
		{10, 50, 1000, true, true, []int{2, 3, 4, 5, 6, 7, 8, 9, 10}, 6},
		{10, 0, 1000, false, true, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1},
		{100, 10000, 50000, true, false, []int{93, 94, 95, 96, 97, 98, 99, 100, 101}, 101},
		{10, 9990, 50000, true, true, []int{993, 994, 995, 996, 997, 998, 999, 1000, 1001}, 1000},
		{10, 5, 30, true, true, []int{1, 2, 3}, 0},   // an offset between pages: no page is current
		{10, 40, 30, true, false, []int{1, 2, 3}, 0}, // past the end
	}
	for _, tc := range tests {
		req := crawl.SearchRequest{Query: "q", Limit: tc.limit, Offset: tc.offset}
		prev, next, pages := pagination(req, tc.total)
		var nums []int
		cur := 0
		for _, p := range pages {
			nums = append(nums, p.Number)
			if p.Current {
				cur = p.Number
			}
			if r, err := parseSearch(mustQuery(t, p.URL)); err != nil || r.Offset != (p.Number-1)*tc.limit {
				t.Errorf("page %d links to %q (%+v, %v)", p.Number, p.URL, r, err)
			}
		}
		if (prev != "") != tc.prev || (next != "") != tc.next || !equalInts(nums, tc.pages) || cur != tc.current {
			t.Errorf("pagination(limit %d, offset %d, total %d) = prev %q, next %q, pages %v (current %d), want prev %v, next %v, pages %v (current %d)",
				tc.limit, tc.offset, tc.total, prev, next, nums, cur, tc.prev, tc.next, tc.pages, tc.current)
		}
		for _, u := range []string{prev, next} {
			if u == "" {
				continue
			}
			if _, err := parseSearch(mustQuery(t, u)); err != nil {
				t.Errorf("pagination(limit %d, offset %d, total %d) links to %q, which is refused: %v", tc.limit, tc.offset, tc.total, u, err)
			}
		}
	}
}

func mustQuery(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFacetsAndChips(t *testing.T) {
	req := crawl.SearchRequest{Query: "q", Limit: 10, Offset: 20, Type: "thesis", YearFrom: 2020, YearTo: 2020, ByWork: true}
	gs := facets(req, crawl.Facets{
		Host: map[string]int{"https://a.edu": 3, "https://b.edu": 5, "": 1},
		Type: map[string]int{"thesis": 8},
		Year: map[int]int{2020: 8, 0: 2},
	})
	got := map[string][]facetValue{}
	for _, g := range gs {
		got[g.Name] = g.Values
	}
	if h := got["host"]; len(h) != 2 || h[0].Label != "b.edu" || h[0].Count != 5 || h[0].URL != "/?host=https%3A%2F%2Fb.edu&q=q&type=thesis&year_from=2020&year_to=2020" {
		t.Errorf("host facet = %+v", h)
	}
	if ty := got["type"]; len(ty) != 1 || !ty[0].Selected || ty[0].URL != "/?q=q&year_from=2020&year_to=2020" {
		t.Errorf("type facet = %+v, want thesis selected, linking to its removal", ty)
	}
	if y := got["year"]; len(y) != 1 || !y[0].Selected || y[0].URL != "/?q=q&type=thesis" {
		t.Errorf("year facet = %+v", y)
	}
	chips, hidden := filterChips(req)
	if len(chips) != 2 || chips[0].Label != "Type: thesis" || chips[1].Label != "Year: 2020" || chips[1].URL != "/?q=q&type=thesis" {
		t.Errorf("chips = %+v", chips)
	}
	if len(hidden) != 3 || hidden[0] != (field{"type", "thesis"}) {
		t.Errorf("hidden fields = %+v, want type and years (no offset, no q)", hidden)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-12345, "-12,345"}} {
		if got := formatInt(tc.n); got != tc.want {
			t.Errorf("formatInt(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1536, "1.5 KiB"}, {5 << 30, "5.0 GiB"}} {
		if got := formatBytes(tc.n); got != tc.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"short", 10, "short", false},
		{"héllo wörld", 2, "h", true}, // never inside a UTF-8 sequence
		{"one two three", 9, "one two", true},
	} {
		got, cut := truncateText(tc.in, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("truncateText(%q, %d) = %q, %v, want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
	if got := doiLink("10.1000/a b?c#d"); got != "https://doi.org/10.1000/a%20b%3Fc%23d" {
		t.Errorf("doiLink = %q", got)
	}
}

// Every facet link leads to a search the server accepts, whatever years the
// backend counts: a PDF's creation date may give any year from 1 to 9999,
// and such a year cannot be filtered for.
func TestFacetLinksAreAccepted(t *testing.T) {
	req := crawl.SearchRequest{Query: "q", Limit: DefaultLimit}
	gs := facets(req, crawl.Facets{Year: map[int]int{1: 4, 999: 3, 2020: 2, 9999: 1, MinYear: 1, MaxYear: 1, MaxYear + 1: 1}})
	var years []string
	for _, g := range gs {
		for _, v := range g.Values {
			if g.Name == "year" {
				years = append(years, v.Label)
			}
			if _, err := parseSearch(mustQuery(t, v.URL)); err != nil {
				t.Errorf("facet %s %q links to %q, which is refused: %v", g.Name, v.Label, v.URL, err)
			}
		}
	}
	if want := []string{"2100", "2020", "1000"}; !slices.Equal(years, want) {
		t.Errorf("year facet = %v, want %v (the years a search can filter for, newest first)", years, want)
	}
}
