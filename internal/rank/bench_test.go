package rank

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// webGraph feeds b a web-like graph of n nodes and m edges, the way the
// store streams it: source by source. IDs are hashes. The first 80% of the
// nodes are crawled pages with about m/(0.8n) links each; the rest are
// uncrawled (dangling). Targets are drawn from a power law: the node of
// popularity rank x gets in-degree about x^(-2/3), so in-degrees follow
// P(k) ∝ k^-2.5, as on the web.
func webGraph(b *Builder, n, m int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	id := func(i int) int64 { return int64(mix(uint64(i))) }
	crawled := n * 8 / 10
	for i := range n {
		b.AddNode(id(i))
	}
	for e := range m {
		src := int(int64(e) * int64(crawled) / int64(m))
		u := rnd.Float64()
		x := int(float64(n) * u * u * u)
		dst := int(int64(x) * 999983 % int64(n)) // scatter popularity over the nodes
		b.AddEdge(id(src), id(dst))
	}
}

// mix is SplitMix64's finaliser: a bijection that makes sequential
// numbers look like hashes.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// BenchmarkPageRank1M builds a graph of 1,000,000 nodes and 10,000,000
// edges and runs PageRank with the default options. Besides time per
// operation it reports the build and PageRank times, iterations, the time
// per iteration, the process's peak RSS and the memory the runtime obtained
// from the system. The random graph converges in few iterations; a real
// web graph takes more, up to MaxIterations, at the same cost each.
func BenchmarkPageRank1M(b *testing.B) {
	benchmarkPageRank(b, 1_000_000, 10_000_000)
}

// BenchmarkPageRank100K is the same on a tenth of the graph.
func BenchmarkPageRank100K(b *testing.B) {
	benchmarkPageRank(b, 100_000, 1_000_000)
}

func benchmarkPageRank(b *testing.B, n, m int) {
	var build, rank time.Duration
	var iterations int
	for b.Loop() {
		start := time.Now()
		bld := NewBuilder(n)
		webGraph(bld, n, m)
		g := bld.Build()
		mid := time.Now()
		res, err := PageRank(b.Context(), g, Options{})
		if err != nil {
			b.Fatal(err)
		}
		build += mid.Sub(start)
		rank += time.Since(mid)
		iterations = res.Iterations
		if !res.Converged {
			b.Fatalf("PageRank did not converge in %d iterations", res.Iterations)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(build.Seconds()/float64(b.N), "build-s/op")
	b.ReportMetric(rank.Seconds()/float64(b.N), "rank-s/op")
	b.ReportMetric(float64(iterations), "iterations")
	b.ReportMetric(rank.Seconds()*1000/float64(b.N*iterations), "ms/iteration")
	b.ReportMetric(float64(maxRSS())/(1<<20), "maxrss-MB")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MB")
}
