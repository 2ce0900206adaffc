package robots

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks properties that hold for every body and path:
//   - Allowed always answers, and /robots.txt is always allowed;
//   - appending a comment line changes nothing;
//   - the body with every line commented out allows everything;
//   - for a body well under MaxSize, LF, CRLF and CR line ends read the same;
//   - a path and its canonical form get the same answer;
//   - an allow or disallow line whose pattern starts with neither '/' nor
//     '*' changes nothing.
func FuzzParse(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /\n"), "/page")
	f.Add([]byte("User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\nUser-Agent: foobot\nDisallow:/\nAllow:/example/page.html\n"), "/example/page.html")
	f.Add([]byte("user-agent: acrawler\nallow: /$\ndisallow: /\ncrawl-delay: 0.5\nsitemap: https://a.example/s.xml\n"), "/")
	f.Add([]byte("\xef\xbb\xbfUser-agent: acrawler # x\r\nDisallow: /%E3%83%84*%2a$\r\n"), "/ツ/*")
	f.Add([]byte("Disallow: /x\nUser-agent: a\nUser-agent: acrawler\n\nAllow: /x\nDisallow: /\r"), "/x?y#z")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		answers := func(b []byte) (allowed bool, delay string, sitemaps []string) {
			r := Parse(b)
			g := r.Group("acrawler")
			if !g.Allowed("/robots.txt") {
				t.Fatalf("Parse(%q): /robots.txt disallowed", b)
			}
			d, ok := g.CrawlDelay()
			if d < 0 || d > MaxCrawlDelay {
				t.Fatalf("Parse(%q): CrawlDelay() = %v, out of range", b, d)
			}
			if ok {
				delay = d.String()
			}
			return g.Allowed(path), delay, r.Sitemaps()
		}
		a, d, s := answers(body)

		if a2, d2, s2 := answers(append(slices.Clip(body), "\n# comment\n"...)); a2 != a || d2 != d || !slices.Equal(s2, s) {
			t.Fatalf("Parse(%q): answer for %q changed when a comment was appended: %v %q %q, then %v %q %q", body, path, a, d, s, a2, d2, s2)
		}

		commented := append([]byte("#"), body...)
		commented = bytes.ReplaceAll(commented, []byte("\r"), []byte("\n#"))
		commented = bytes.ReplaceAll(commented, []byte("\n"), []byte("\n#"))
		if len(commented) <= MaxSize {
			if a2, d2, s2 := answers(commented); !a2 || d2 != "" || len(s2) != 0 {
				t.Fatalf("Parse(%q), only comments: Allowed(%q) = %v, delay %q, sitemaps %q", commented, path, a2, d2, s2)
			}
		}

		if len(body) < MaxSize/4 {
			lf := bytes.ReplaceAll(bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
			for _, end := range []string{"\n", "\r\n", "\r"} {
				b := bytes.ReplaceAll(lf, []byte("\n"), []byte(end))
				if a2, d2, s2 := answers(b); a2 != a || d2 != d || !slices.Equal(s2, s) {
					t.Fatalf("Parse(%q) and Parse(%q) differ for %q", body, b, path)
				}
			}
		}

		if len(body) < MaxSize/4 {
			// The pattern: the path without what would end the value or
			// the line, after a letter.
			pat := "p" + strings.Map(func(r rune) rune {
				if r == '#' || r == '\n' || r == '\r' {
					return -1
				}
				return r
			}, path)
			for _, field := range []string{"Allow", "Disallow"} {
				b := append(slices.Clip(body), "\n"+field+": "+pat+"\n"...)
				if a2, d2, s2 := answers(b); a2 != a || d2 != d || !slices.Equal(s2, s) {
					t.Fatalf("Parse(%q): answer for %q changed when %s: %s was appended", body, path, field, pat)
				}
			}
		}

		g := Parse(body).Group("acrawler")
		p := path
		if i := strings.IndexByte(p, '#'); i >= 0 {
			p = p[:i]
		}
		if c := canonical(p); g.Allowed(c) != a {
			t.Fatalf("Parse(%q): Allowed(%q) = %v but Allowed(%q) = %v", body, path, a, c, !a)
		}
	})
}
