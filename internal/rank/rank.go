// Package rank computes PageRank over the crawl's link graph. A Builder
// takes edges between arbitrary int64 IDs (URL hashes) and builds a compact
// Graph; PageRank scores its nodes in parallel.
package rank

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Options tunes PageRank. A zero field takes its default.
type Options struct {
	Damping       float64 // probability of following a link rather than jumping; in (0, 1); default 0.85
	Tolerance     float64 // stop when the scores' L1 change in an iteration falls below it; default 1e-6
	MaxIterations int     // stop after this many iterations; default 100
	Workers       int     // goroutines; default GOMAXPROCS
}

// Result is the outcome of PageRank.
type Result struct {
	Scores     []float64 // by dense node index; they sum to 1
	Iterations int       // iterations run
	Converged  bool      // whether the last iteration changed the scores by less than the tolerance
}

// chunkWork is the work (nodes plus incoming edges) in one unit that a
// worker takes at a time.
const chunkWork = 1 << 15

// PageRank computes the PageRank of g's nodes by power iteration, starting
// from the uniform vector. A node with no outgoing links (dangling) spreads
// its rank uniformly over all nodes, as does the random jump, so the scores
// stay a probability distribution. Workers pull ranks over incoming links,
// each writing only its own nodes; the scores do not depend on the number of
// workers nor on the order in which the graph's edges were added.
//
// It returns an error for options out of range, and one wrapping ctx.Err()
// when ctx is done before it finishes; the Result then holds the scores of
// the last completed iteration, if it had started (the uniform vector after
// none), with Converged false.
func PageRank(ctx context.Context, g *Graph, opts Options) (Result, error) {
	return pageRank(ctx, g, opts, chunkWork)
}

func (o Options) withDefaults() (Options, error) {
	if o.Damping == 0 {
		o.Damping = 0.85
	}
	if o.Tolerance == 0 {
		o.Tolerance = 1e-6
	}
	if o.MaxIterations == 0 {
		o.MaxIterations = 100
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case !(o.Damping > 0 && o.Damping < 1):
		return o, fmt.Errorf("rank: pagerank: damping %v outside (0, 1)", o.Damping)
	case !(o.Tolerance > 0):
		return o, fmt.Errorf("rank: pagerank: tolerance %v not positive", o.Tolerance)
	case o.MaxIterations < 0:
		return o, fmt.Errorf("rank: pagerank: max iterations %d negative", o.MaxIterations)
	}
	return o, nil
}

// partial is one chunk's share of an iteration's sums. Summing the chunks'
// shares in chunk order keeps the result independent of scheduling.
type partial struct {
	diff     float64 // L1 change of the chunk's scores
	dangling float64 // new rank held by the chunk's dangling nodes
	_        [48]byte
}

func pageRank(ctx context.Context, g *Graph, opts Options, work int) (Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if g == nil || g.Nodes() == 0 {
		return Result{Scores: []float64{}, Converged: true}, nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("rank: pagerank: %w", err)
	}
	n := g.Nodes()
	d := opts.Damping
	uniform := 1 / float64(n)

	rank := make([]float64, n)
	next := make([]float64, n)
	contrib := make([]float64, n) // rank / out-degree; 0 for dangling nodes
	nextContrib := make([]float64, n)
	var dangling float64
	for v := range rank {
		rank[v] = uniform
		if deg := g.outDeg[v]; deg > 0 {
			contrib[v] = uniform / float64(deg)
		} else {
			dangling += uniform
		}
	}

	chunks := g.chunks(work)
	parts := make([]partial, len(chunks)-1)
	workers := min(opts.Workers, len(parts))

	res := Result{Scores: rank}
	for res.Iterations < opts.MaxIterations {
		base := (1-d)*uniform + d*dangling*uniform
		step := func(c int) {
			p := &parts[c]
			p.diff, p.dangling = 0, 0
			for v := chunks[c]; v < chunks[c+1]; v++ {
				var sum float64
				for _, u := range g.inSrc[g.inOff[v]:g.inOff[v+1]] {
					sum += contrib[u]
				}
				r := base + d*sum
				p.diff += math.Abs(r - rank[v])
				next[v] = r
				if deg := g.outDeg[v]; deg > 0 {
					nextContrib[v] = r / float64(deg)
				} else {
					nextContrib[v] = 0
					p.dangling += r
				}
			}
		}
		if workers == 1 {
			for c := range parts {
				if ctx.Err() != nil {
					break
				}
				step(c)
			}
		} else {
			var claimed atomic.Int64
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for ctx.Err() == nil {
						c := int(claimed.Add(1) - 1)
						if c >= len(parts) {
							return
						}
						step(c)
					}
				})
			}
			wg.Wait()
		}
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("rank: pagerank: %w", err)
		}

		var diff float64
		dangling = 0
		for _, p := range parts {
			diff += p.diff
			dangling += p.dangling
		}
		rank, next = next, rank
		contrib, nextContrib = nextContrib, contrib
		res.Scores = rank
		res.Iterations++
		if diff < opts.Tolerance {
			res.Converged = true
			break
		}
	}
	return res, nil
}

// chunks splits the nodes into contiguous ranges of about work nodes plus
// incoming edges each: range c is [bounds[c], bounds[c+1]). The ranges
// depend only on the graph, never on the number of workers.
func (g *Graph) chunks(work int) []int {
	bounds := []int{0}
	acc := 0
	for v := range g.Nodes() {
		acc += 1 + g.inOff[v+1] - g.inOff[v]
		if acc >= work {
			bounds = append(bounds, v+1)
			acc = 0
		}
	}
	if bounds[len(bounds)-1] != g.Nodes() {
		bounds = append(bounds, g.Nodes())
	}
	return bounds
}
