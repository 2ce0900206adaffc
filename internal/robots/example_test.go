package robots_test

import (
	"fmt"

	"github.com/acrawler/acrawler/internal/robots"
)

func Example() {
	body := []byte(`User-agent: *
Disallow: /private/
Allow: /private/reports/
Crawl-delay: 2.5
Sitemap: https://example.edu/sitemap.xml
`)
	r := robots.FromStatus(200, body)
	g := r.Group(robots.ProductToken("acrawler/0.1 (+https://example.org/bot)"))
	fmt.Println(g.Allowed("/private/notes.html"))
	fmt.Println(g.Allowed("/private/reports/2024.pdf"))
	fmt.Println(g.Allowed("/index.html?lang=en"))
	fmt.Println(g.CrawlDelay())
	fmt.Println(r.Sitemaps())
	// Output:
	// false
	// true
	// true
	// 2.5s true
	// [https://example.edu/sitemap.xml]
}
