package archive

import (
	"bytes"
	"testing"
)

// BenchmarkParseCDX reads a JSON answer of 100,000 captures, as the Wayback
// Machine sends for a large domain.
func BenchmarkParseCDX(b *testing.B) {
	benchmarkParseCDX(b, false)
}

// BenchmarkParseCDXText reads the same answer in the text format.
func BenchmarkParseCDXText(b *testing.B) {
	benchmarkParseCDX(b, true)
}

func benchmarkParseCDX(b *testing.B, text bool) {
	const n = 100_000
	var body bytes.Buffer
	writeCDX(&body, map[bool]string{false: "json", true: "text"}[text], noSpaces(testCaptures(n)), keyPrefix+"100000")
	data := body.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		count := 0
		key, err := parseCDX(bytes.NewReader(data), func(Capture) error {
			count++
			return nil
		})
		if err != nil || count != n || key == "" {
			b.Fatalf("parseCDX = %d captures, key %q, %v", count, key, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "captures/s")
}
