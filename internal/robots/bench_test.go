package robots

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// largeFile is testdata/large.txt: about 20 KB in the style of a large
// university site, with a group of blocked bots, a few throttled ones and a
// "*" group of about 600 rules.
func largeFile(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/large.txt")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestLargeFile(t *testing.T) {
	r := Parse(largeFile(t))
	if got := len(r.Sitemaps()); got != 20 {
		t.Errorf("Sitemaps() has %d URLs, want 20", got)
	}
	runChecksOn := func(token string, path string, want bool) {
		if got := r.Group(token).Allowed(path); got != want {
			t.Errorf("Group(%q).Allowed(%q) = %v, want %v", token, path, got, want)
		}
	}
	runChecksOn("mj12bot", "/", false)
	runChecksOn("webreaper", "/news/", false)
	runChecksOn("download", "/news/", false) // "Download Ninja" names "download"
	runChecksOn("ia_archiver", "/news/2024", true)
	runChecksOn("ia_archiver", "/people/", false)
	runChecksOn("googlebot", "/people/private/x", true)
	runChecksOn("googlebot", "/search?q=x", false)
	runChecksOn("acrawler", "/people/private/x", false)
	runChecksOn("acrawler", "/people/public/x", true)
	runChecksOn("acrawler", "/wiki/Sp%c3%a9cial:Random", false)
	runChecksOn("acrawler", "/wiki/Spécial:Random", false)
	runChecksOn("acrawler", "/wp-admin/admin-ajax.php", true)
	runChecksOn("acrawler", "/news/2024/article?session=1", false)
	runChecksOn("acrawler", "/news/2024/article", true)
	if d, ok := r.Group("acrawler").CrawlDelay(); d != time.Second || !ok {
		t.Errorf("Group(\"acrawler\").CrawlDelay() = %v, %v, want 1s, true", d, ok)
	}
	if d, ok := r.Group("bingbot").CrawlDelay(); d != 5*time.Second || !ok {
		t.Errorf("Group(\"bingbot\").CrawlDelay() = %v, %v, want 5s, true", d, ok)
	}
}

func BenchmarkParse(b *testing.B) {
	body := largeFile(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(body)
	}
}

// BenchmarkParseManyAgents parses MaxSize bytes of user-agent lines in one
// group: the time must stay that of any file of its size (it was quadratic
// in the number of agents: 2.5 s, against 4.5 ms now).
func BenchmarkParseManyAgents(b *testing.B) {
	body := []byte(manyAgents())
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		Parse(body)
	}
}

func BenchmarkGroup(b *testing.B) {
	r := Parse(largeFile(b))
	b.ReportAllocs()
	for b.Loop() {
		r.Group("acrawler")
	}
}

// hundredRules is a "*" group of 100 rules, a fifth of them with wildcards.
func hundredRules() []byte {
	var s strings.Builder
	s.WriteString("User-agent: *\n")
	for i := range 20 {
		fmt.Fprintf(&s, "Disallow: /section%d/private/\n", i)
		fmt.Fprintf(&s, "Allow: /section%d/private/public/\n", i)
		fmt.Fprintf(&s, "Disallow: /section%d/*.pdf$\n", i)
		fmt.Fprintf(&s, "Disallow: /lang%d/search\n", i)
		fmt.Fprintf(&s, "Disallow: /lang%d/edit?\n", i)
	}
	return []byte(s.String())
}

var benchPaths = []string{
	"/",
	"/section7/private/report.html",
	"/section7/private/public/index.html",
	"/section12/papers/thesis.pdf",
	"/section12/papers/thesis.pdf?download=1",
	"/lang3/search?q=robots",
	"/news/2024/05/an-article-about-something-with-a-long-slug.html",
	"/people/%E3%83%84/profile?tab=publications&page=2",
}

func BenchmarkAllowed(b *testing.B) {
	g := Parse(hundredRules()).Group("acrawler")
	if len(g.rules) != 100 {
		b.Fatalf("group has %d rules, want 100", len(g.rules))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.Allowed(benchPaths[i%len(benchPaths)])
		i++
	}
}

func BenchmarkAllowedLargeFile(b *testing.B) {
	g := Parse(largeFile(b)).Group("acrawler")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.Allowed(benchPaths[i%len(benchPaths)])
		i++
	}
}

func BenchmarkAllowedPathological(b *testing.B) {
	g := Parse([]byte("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n")).Group("x")
	path := "/" + strings.Repeat("a", 10000)
	b.SetBytes(int64(len(path)))
	for b.Loop() {
		g.Allowed(path)
	}
}
