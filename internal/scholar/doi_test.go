package scholar

import (
	"slices"
	"strings"
	"testing"
)

func TestNormalizeDOI(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when not a DOI
	}{
		{"10.1000/xyz123", "10.1000/xyz123"},
		{"10.1000/XYZ123", "10.1000/xyz123"},
		{"  10.1000/xyz  ", "10.1000/xyz"},
		{"https://doi.org/10.1000/ABC", "10.1000/abc"},
		{"http://dx.doi.org/10.1000/abc", "10.1000/abc"},
		{"HTTPS://DOI.ORG/10.1000/abc", "10.1000/abc"},
		{"doi.org/10.1000/abc", "10.1000/abc"},
		{"doi:10.1000/abc", "10.1000/abc"},
		{"DOI: 10.1000/abc", "10.1000/abc"},
		{"DOI 10.1000/abc", "10.1000/abc"},
		{"info:doi/10.1000/abc", "10.1000/abc"},
		{"urn:doi:10.1000/abc", "10.1000/abc"},
		{"10.1000/abc.", "10.1000/abc"},
		{"10.1000/abc).", "10.1000/abc"},
		{"10.1000/abc(1)", "10.1000/abc(1)"},
		{"10.1000/abc(1))", "10.1000/abc(1)"},
		{"10.1000/abc;", "10.1000/abc"},
		{"10.1000/abc'\"", "10.1000/abc"},
		{"10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0", "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-0"},
		{"10.1000.10/abc", "10.1000.10/abc"},
		{"10.12345678/abc", "10.12345678/abc"},
		{"https://doi.org/10.1000/a%2Fb", "10.1000/a/b"},
		{"10.1000%2Fabc", "10.1000/abc"},
		{"10.1000/a%20b", "10.1000/a%20b"}, // not from a URL: taken literally
		{"10.1000/ça", "10.1000/ça"},
		{"https://doi.org/10.1000/abc?utm_source=feed", "10.1000/abc"}, // the query is the URL's
		{"https://doi.org/10.1000/a%3Fb#x", "10.1000/a?b"},
		{"10.1000/abc?", "10.1000/abc"},
		{"10.1000/abc”", "10.1000/abc"},
		// Not DOIs.
		{"", ""},
		{"10.100/abc", ""},  // registrant code too short
		{"10.1000/", ""},    // empty suffix
		{"10.1000", ""},     // no suffix
		{"11.1000/abc", ""}, // not the DOI directory
		{"10.1000/a b", ""}, // space in the suffix
		{"10.1000/a\x00b", ""},
		{"10.1000/a\xffb", ""},
		{"https://example.org/10.1000/abc", ""},
		{"10.1000/" + strings.Repeat("a", MaxDOILength), ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := NormalizeDOI(tt.in)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("NormalizeDOI(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.want != "")
			}
			if ok {
				if again, ok2 := NormalizeDOI(got); again != got || !ok2 {
					t.Errorf("NormalizeDOI(%q) = %q, %v: not idempotent", got, again, ok2)
				}
			}
		})
	}
}

func TestFindDOIs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"no identifiers here, 10.5 percent", nil},
		{"See https://doi.org/10.1000/ABC.", []string{"10.1000/abc"}},
		{"(doi:10.1000/abc)", []string{"10.1000/abc"}},
		{"Smith (2019), doi:10.1000/abc, pp. 1-2; also 10.2000/def.", []string{"10.1000/abc", "10.2000/def"}},
		{"10.1000/abc and again 10.1000/ABC", []string{"10.1000/abc"}},
		{"https://example.org/cite?doi=10.1000%2Fabc&format=bib", []string{"10.1000/abc"}},
		{"https://dx.doi.org/10.1000/a(b)c)", []string{"10.1000/a(b)c"}},
		{`<a href="https://doi.org/10.1000/xyz">`, []string{"10.1000/xyz"}},
		{"x10.1000/abc 110.1000/abc", nil}, // inside a word or a number
		{"version 1.10.1000/abc", nil},
		{"Türkçe:10.1000/abc", []string{"10.1000/abc"}},
		{"10.1000/abc#section-2", []string{"10.1000/abc"}},
		{"line one\n10.1000/abc\tline two", []string{"10.1000/abc"}},
		{"https://example.org/cite?doi=10.1000%2Fabc%22%3E%20x", []string{"10.1000/abc"}}, // encoded stops end it too
		{"10.0000/%220", nil},
		// SICI DOIs (Wiley, AMS) have a segment in angle brackets.
		{"doi:10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O.", []string{"10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"}},
		{"https://doi.org/10.1175/1520-0469(1999)056%3C1403:TIOSWV%3E2.0.CO;2", []string{"10.1175/1520-0469(1999)056<1403:tioswv>2.0.co;2"}},
		{"10.1000/abc<br>10.1000/def</a>", []string{"10.1000/abc", "10.1000/def"}},
		// Publishers' URLs: a query, a PDF, a view after the DOI.
		{"https://www.tandfonline.com/doi/full/10.1080/01639374.2020.1?scroll=top&needAccess=true", []string{"10.1080/01639374.2020.1"}},
		{"https://link.springer.com/content/pdf/10.1007/s11192-021-03948-5.pdf", []string{"10.1007/s11192-021-03948-5"}},
		{"https://www.frontiersin.org/articles/10.3389/fpsyg.2020.01234/full", []string{"10.3389/fpsyg.2020.01234"}},
		{"https://onlinelibrary.wiley.com/doi/10.1002/asi.1234/abstract", []string{"10.1002/asi.1234"}},
		{"https://doi.org/10.1000/abc/full", []string{"10.1000/abc/full"}}, // a doi.org path is all DOI
		// Quotes and punctuation of other scripts around a DOI.
		{"“doi:10.1000/abc” and «10.1000/def»", []string{"10.1000/abc", "10.1000/def"}},
		{"see 10.1000/abc… or 10.1000/def。", []string{"10.1000/abc", "10.1000/def"}},
		{"Is it 10.1000/abc? Yes!", []string{"10.1000/abc"}},
		{"doi:\u00a010.1000/abc\u00a0(2019)", []string{"10.1000/abc"}},
		{"çç10.1000/abc", nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := FindDOIs(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("FindDOIs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFindDOIsCap(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("doi:10.1000/")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(strings.Repeat("0", i/26))
		b.WriteString(" ")
	}
	if got := FindDOIs(b.String()); len(got) != MaxDOIs {
		t.Errorf("FindDOIs(200 DOIs) gave %d, want %d", len(got), MaxDOIs)
	}
}
