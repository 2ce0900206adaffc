package sitemap_test

import (
	"fmt"
	"strings"

	"github.com/acrawler/acrawler/internal/sitemap"
)

func ExampleParse() {
	body := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url>
    <loc>https://www.example.edu/research/?topic=crawling&amp;page=2</loc>
    <lastmod>2024-05-03T10:00:00+02:00</lastmod>
    <changefreq>weekly</changefreq>
    <priority>0.8</priority>
  </url>
  <url><loc>https://www.example.edu/people/</loc></url>
</urlset>`
	kind, err := sitemap.Parse(strings.NewReader(body), sitemap.Limits{}, func(e sitemap.Entry) error {
		fmt.Println(e.Loc, e.LastMod, e.ChangeFreq, e.Priority)
		return nil
	})
	fmt.Println(kind, err)
	// Output:
	// https://www.example.edu/research/?topic=crawling&page=2 2024-05-03 08:00:00 +0000 UTC weekly 0.8
	// https://www.example.edu/people/ 0001-01-01 00:00:00 +0000 UTC  -1
	// urlset <nil>
}
