package sitemap

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// urlset50k is a 50,000-URL urlset in the style of a university CMS, every
// entry with a lastmod and most with a changefreq and priority.
func urlset50k() []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` + "\n")
	t := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	sections := []string{"research", "people", "news", "courses", "events", "publications"}
	for i := range 50_000 {
		fmt.Fprintf(&b, "  <url>\n    <loc>https://www.example.edu/%s/%d/item-%d.html?lang=en&amp;v=%d</loc>\n    <lastmod>%s</lastmod>\n",
			sections[i%len(sections)], 2000+i%25, i, i%7, t.Add(-time.Duration(i)*time.Hour).Format(time.RFC3339))
		if i%4 != 0 {
			b.WriteString("    <changefreq>monthly</changefreq>\n    <priority>0.5</priority>\n")
		}
		b.WriteString("  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func benchmarkParse(b *testing.B, data []byte, size int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		_, err := Parse(bytes.NewReader(data), Limits{}, func(e Entry) error {
			n++
			return nil
		})
		if err != nil || n != 50_000 {
			b.Fatalf("Parse = %d entries, %v", n, err)
		}
	}
	b.ReportMetric(float64(50_000*b.N)/b.Elapsed().Seconds(), "URLs/s")
}

// BenchmarkParseGzip50k parses a gzipped 50,000-URL urlset; MB/s counts
// decompressed bytes.
func BenchmarkParseGzip50k(b *testing.B) {
	data := urlset50k()
	benchmarkParse(b, gz(b, data), len(data))
}

// BenchmarkParse50k parses the same urlset uncompressed.
func BenchmarkParse50k(b *testing.B) {
	data := urlset50k()
	benchmarkParse(b, data, len(data))
}

// BenchmarkParseBomb reads 50 MiB of a gzip bomb to ErrTooLarge: B/op is the
// memory that costs.
func BenchmarkParseBomb(b *testing.B) {
	bomb := newBomb(b, "<urlset><url><loc>https://a.example/", "a")
	b.SetBytes(DefaultMaxBytes)
	b.ReportAllocs()
	for b.Loop() {
		r := *bomb
		if _, err := Parse(&r, Limits{}, func(Entry) error { return nil }); err != ErrTooLarge {
			b.Fatalf("Parse(bomb) = %v, want ErrTooLarge", err)
		}
	}
}
