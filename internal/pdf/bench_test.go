package pdf

import (
	"context"
	"testing"
)

// BenchmarkExtract measures extraction of the two-page two-column paper,
// reported per page.
func BenchmarkExtract(b *testing.B) {
	e := sharedExtractor(b)
	data := readTestdata(b, "twocolumn.pdf")
	pages := extract(b, e, data).Pages
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Extract(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*pages), "ms/page")
}

// BenchmarkNew measures the start-up of an Extractor that compiles the
// PDFium module.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		e, err := New(context.Background(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

// BenchmarkNewCached measures the start-up of an Extractor that finds the
// compiled module in Options.CacheDir.
func BenchmarkNewCached(b *testing.B) {
	sharedExtractor(b)
	for b.Loop() {
		e, err := New(context.Background(), Options{CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}
