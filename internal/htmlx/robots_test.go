package htmlx

import "testing"

func TestParseRobotsDirectives(t *testing.T) {
	tests := []struct {
		value, token string
		want         Directives
	}{
		{"", "acrawler", Directives{}},
		{"noindex", "acrawler", Directives{NoIndex: true}},
		{"NoIndex, NOFOLLOW", "acrawler", Directives{NoIndex: true, NoFollow: true}},
		{"none", "acrawler", Directives{NoIndex: true, NoFollow: true}},
		{"all", "acrawler", Directives{}},
		{"index, follow", "acrawler", Directives{}},
		{"noarchive,nosnippet", "acrawler", Directives{NoArchive: true, NoSnippet: true}},
		{"nocache", "acrawler", Directives{NoArchive: true}},
		{"noindex nofollow", "acrawler", Directives{NoIndex: true, NoFollow: true}},
		{"noindex;nofollow", "acrawler", Directives{NoIndex: true, NoFollow: true}},
		{" , noindex ,, ", "acrawler", Directives{NoIndex: true}},
		{"max-snippet:0", "acrawler", Directives{NoSnippet: true}},
		{"max-snippet: 0", "acrawler", Directives{NoSnippet: true}},
		{"max-snippet:50, max-image-preview:large", "acrawler", Directives{}},
		{"unavailable_after: 25 Jun 2010 15:00:00 PST", "acrawler", Directives{}},
		// Dates in RFC 822 and RFC 850 form, which Google accepts, hold a
		// comma: what follows the comma is no user agent.
		{"unavailable_after: Wednesday, 25-Jun-25 15:00:00 GMT, noindex", "acrawler", Directives{NoIndex: true}},
		{"unavailable_after: Wed, 25 Jun 2025 15:00:00 GMT, nofollow", "acrawler", Directives{NoFollow: true}},
		{"googlebot: unavailable_after: Wed, 25 Jun 2025 15:00:00 GMT, nofollow", "acrawler", Directives{}},
		{"noimageindex, notranslate, unknown", "acrawler", Directives{}},
		{"googlebot: noindex", "acrawler", Directives{}},
		{"googlebot: noindex, nofollow", "acrawler", Directives{}},
		{"acrawler: noindex", "acrawler", Directives{NoIndex: true}},
		{"ACrawler: noindex, nofollow", "acrawler", Directives{NoIndex: true, NoFollow: true}},
		{"*: noarchive", "acrawler", Directives{NoArchive: true}},
		{"nosnippet, googlebot: noindex", "acrawler", Directives{NoSnippet: true}},
		{"googlebot: noindex, acrawler: nofollow", "acrawler", Directives{NoFollow: true}},
		{"acrawler: max-snippet:0", "acrawler", Directives{NoSnippet: true}},
		{"acrawler: noindex", "", Directives{}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			if got := ParseRobotsDirectives(tt.value, tt.token); got != tt.want {
				t.Errorf("ParseRobotsDirectives(%q, %q) = %+v, want %+v", tt.value, tt.token, got, tt.want)
			}
		})
	}
}

func TestDirectivesMerge(t *testing.T) {
	a := Directives{NoIndex: true, NoArchive: true}
	b := Directives{NoFollow: true, NoArchive: true}
	want := Directives{NoIndex: true, NoFollow: true, NoArchive: true}
	if got := a.Merge(b); got != want {
		t.Errorf("%+v.Merge(%+v) = %+v, want %+v", a, b, got, want)
	}
	if got := a.Merge(Directives{}); got != a {
		t.Errorf("%+v.Merge(zero) = %+v, want %+v", a, got, a)
	}
}

func TestParseRefresh(t *testing.T) {
	tests := []struct {
		in     string
		delay  int
		target string
		ok     bool
	}{
		{"0;url=x", 0, "x", true},
		{"0; url=x", 0, "x", true},
		{"5; URL='x y'", 5, "x y", true},
		{`3;url="/a'b"`, 3, "/a'b", true},
		{"0, url = /x", 0, "/x", true},
		{"0 url=/x", 0, "/x", true},
		{"0;/direct", 0, "/direct", true},
		{"0; 'quoted'", 0, "quoted", true},
		{"0; 'unterminated", 0, "unterminated", true},
		{"0;urlx", 0, "urlx", true},
		{"0;url", 0, "url", true},
		{"0;url /x", 0, "url /x", true},
		{"1.5; url=/x", 1, "/x", true},
		{".5; url=/x", 0, "/x", true},
		{"  10  ", 10, "", true},
		{"10;", 10, "", true},
		{"99999999999999999999; url=/x", 2147483647, "/x", true},
		{"", 0, "", false},
		{"url=/x", 0, "", false},
		{"5x; url=/x", 0, "", false},
		{"-1; url=/x", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			delay, target, ok := parseRefresh(tt.in)
			if delay != tt.delay || target != tt.target || ok != tt.ok {
				t.Errorf("parseRefresh(%q) = %d, %q, %v; want %d, %q, %v", tt.in, delay, target, ok, tt.delay, tt.target, tt.ok)
			}
		})
	}
}
