package urlnorm

import (
	"testing"
)

// reportRate adds a URLs/s figure: each iteration handles one URL.
func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "URLs/s")
}

func BenchmarkNormalize(b *testing.B) {
	n := defaultNormalizer(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		n.Normalize(benchURLs[i%len(benchURLs)])
		i++
	}
	reportRate(b)
}

// BenchmarkNormalizeWHATWG is Normalize without the fast path, for
// comparison.
func BenchmarkNormalizeWHATWG(b *testing.B) {
	n := defaultNormalizer(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		n.normalizeSlow(benchURLs[i%len(benchURLs)])
		i++
	}
	reportRate(b)
}

// BenchmarkResolve resolves a page's links against its parsed base.
func BenchmarkResolve(b *testing.B) {
	n := defaultNormalizer(b)
	base, err := n.ParseBase(benchBase)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		base.Resolve(benchRefs[i%len(benchRefs)])
		i++
	}
	reportRate(b)
}

// BenchmarkResolveWHATWG is BenchmarkResolve without the fast path.
func BenchmarkResolveWHATWG(b *testing.B) {
	n := defaultNormalizer(b)
	base, err := n.ParseBase(benchBase)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		base.resolveSlow(benchRefs[i%len(benchRefs)])
		i++
	}
	reportRate(b)
}

// BenchmarkResolveUnparsedBase is Normalizer.Resolve, which parses the base
// for every link.
func BenchmarkResolveUnparsedBase(b *testing.B) {
	n := defaultNormalizer(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		n.Resolve(benchBase, benchRefs[i%len(benchRefs)])
		i++
	}
	reportRate(b)
}

func BenchmarkParseBase(b *testing.B) {
	n := defaultNormalizer(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		n.ParseBase(benchURLs[i%len(benchURLs)])
		i++
	}
	reportRate(b)
}

func BenchmarkRegistrableDomain(b *testing.B) {
	hosts := make([]string, 0, len(benchURLs))
	n := defaultNormalizer(b)
	for _, u := range benchURLs {
		if s, err := n.Normalize(u); err == nil {
			hosts = append(hosts, Hostname(s))
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		RegistrableDomain(hosts[i%len(hosts)])
		i++
	}
	reportRate(b)
}
