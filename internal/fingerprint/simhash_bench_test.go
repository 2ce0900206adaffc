package fingerprint

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkSimHash hashes 50 KB of generated text (about 7,500 words).
func BenchmarkSimHash(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	text := article(r, vocabulary(r, 5000), 10000)[:50000]
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		SimHash(text)
	}
}

// BenchmarkSimHashTurkish hashes 50 KB of non-ASCII text.
func BenchmarkSimHashTurkish(b *testing.B) {
	text := strings.Repeat("Öğrenci işleri sayfaları, akademik yayınlar ve duyurular ayrı ayrı değerlendirilir. Işık hızında çalışan bir sistem değil. ", 500)[:50000]
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		SimHash(text)
	}
}

// BenchmarkIndexNear looks up random fingerprints, half of them near a
// stored one, in an Index of 1,000,000; it reports the Index's memory.
func BenchmarkIndexNear(b *testing.B) {
	const n = 1000000
	r := rand.New(rand.NewPCG(3, 4))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x, _ := NewIndex(3)
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = r.Uint64()
		x.Add(int64(i), fps[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	queries := make([]uint64, 4096)
	for i := range queries {
		queries[i] = r.Uint64()
		if i%2 == 0 {
			queries[i] = flip(r, fps[r.IntN(n)], r.IntN(4))
		}
	}
	i := 0
	for b.Loop() {
		x.Near(queries[i%len(queries)])
		i++
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc-8*n)/(1<<20), "MiB-index")
	runtime.KeepAlive(fps)
}

// BenchmarkIndexAdd measures adding to an Index.
func BenchmarkIndexAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x, _ := NewIndex(3)
	for b.Loop() {
		x.Add(1, r.Uint64())
	}
}
