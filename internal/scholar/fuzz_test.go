package scholar

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtract checks that Extract answers for any page, and that what it
// answers keeps its promises: caps hold, strings are valid UTF-8, DOIs are
// normalized, URLs absolute, Date and Year agree, Type is a known type;
// and that a Scanner fed by htmlx.Parse (as the crawl does) answers the
// same.
func FuzzExtract(f *testing.F) {
	pages, _ := filepath.Glob("testdata/*.html")
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, "https://example.org/a/b", "doi:10.1000/x (2019)", "https://doi.org/10.1000/y")
		}
	}
	f.Add([]byte(`<div itemscope itemtype="https://schema.org/Thesis"><span itemprop="name">T</span><li itemprop="author" itemscope><b itemprop="name">A, B</b></div>`), "", "", "")
	f.Add([]byte(`<script type="application/ld+json">{"@graph":[{"@type":"Book","isbn":"0-306-40615-2","author":[{"givenName":"A"}]}]}</script>`), "http://x/", "", "")
	f.Add([]byte(`<meta name="DC.identifier" content="ISSN 2049-3630"><meta name="prism.doi" content="doi:10.1000/%41">`), "http://x/", "", "")
	f.Fuzz(func(t *testing.T, body []byte, pageURL, text, link string) {
		md := Extract(body, pageURL, text, []string{link})
		checkInvariants(t, md)
		if shared := extractShared(t, body, pageURL, text, []string{link}); !reflect.DeepEqual(md, shared) {
			t.Errorf("Extract(%q) = %+v, but a Scanner given the tokens by htmlx.Parse gives %+v", body, md, shared)
		}
		if md.PDFURL != "" && !utf8.ValidString(md.PDFURL) {
			t.Errorf("PDFURL %q is invalid UTF-8", md.PDFURL)
		}
	})
}

// FuzzFindDOIs checks that every DOI found is normalized, found at most
// once, and found again in itself.
func FuzzFindDOIs(f *testing.F) {
	for _, s := range []string{
		"See https://doi.org/10.1000/ABC.", "(doi:10.1000/a(b)c))", "?doi=10.1000%2Fabc&x=1",
		"10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0", "10.1000/ça 10.1000.5/x",
		"x10.1000/abc", "10.1000/a%252Fb", "doi:10.12345/\u0130",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := FindDOIs(s)
		if len(got) > MaxDOIs {
			t.Fatalf("FindDOIs(%q) gave %d DOIs, more than %d", s, len(got), MaxDOIs)
		}
		seen := map[string]bool{}
		for _, d := range got {
			if seen[d] {
				t.Errorf("FindDOIs(%q) repeats %q", s, d)
			}
			seen[d] = true
			if n, ok := NormalizeDOI(d); !ok || n != d {
				t.Errorf("FindDOIs(%q) gave %q, which NormalizeDOI turns into %q, %v", s, d, n, ok)
			}
			if !strings.Contains(d, "%") {
				if again := FindDOIs(d); !slices.Equal(again, []string{d}) {
					t.Errorf("FindDOIs(%q) = %q, want the DOI itself", d, again)
				}
			}
		}
		if n, ok := NormalizeDOI(s); ok {
			if again, ok := NormalizeDOI(n); !ok || again != n {
				t.Errorf("NormalizeDOI(%q) = %q, but NormalizeDOI(%q) = %q, %v", s, n, n, again, ok)
			}
		}
	})
}
