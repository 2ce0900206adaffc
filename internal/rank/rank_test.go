package rank

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// exact are options that iterate to the limit of float64 precision.
var exact = Options{Tolerance: 1e-14, MaxIterations: 1000}

// scoresByID runs PageRank on g and returns the scores keyed by ID.
func scoresByID(t *testing.T, g *Graph, opts Options) map[int64]float64 {
	t.Helper()
	res, err := PageRank(t.Context(), g, opts)
	if err != nil {
		t.Fatalf("PageRank: %v", err)
	}
	if !res.Converged {
		t.Fatalf("PageRank did not converge in %d iterations", res.Iterations)
	}
	checkSum(t, res.Scores)
	m := make(map[int64]float64, len(res.Scores))
	for i, s := range res.Scores {
		m[g.ID(i)] = s
	}
	return m
}

// checkSum checks that scores are a probability distribution.
func checkSum(t *testing.T, scores []float64) {
	t.Helper()
	var sum float64
	for i, s := range scores {
		if !(s > 0 && s < 1) && len(scores) > 1 {
			t.Errorf("score[%d] = %v, want in (0, 1)", i, s)
		}
		sum += s
	}
	if len(scores) > 0 && math.Abs(sum-1) > 1e-9 {
		t.Errorf("scores sum to %v, want 1", sum)
	}
}

// solve returns the PageRank of g from a dense linear solve: the fixed point
// x = (1-d)/n + d·(Pᵀx + (dangling·x)/n), as (I - d·M)x = (1-d)/n with
// Gaussian elimination. It is an independent oracle for small graphs.
func solve(g *Graph, d float64) []float64 {
	n := g.Nodes()
	a := make([][]float64, n)
	for v := range a {
		a[v] = make([]float64, n+1)
		a[v][v] = 1
		a[v][n] = (1 - d) / float64(n)
		for u := range n {
			if g.outDeg[u] == 0 {
				a[v][u] -= d / float64(n)
			}
		}
		for _, u := range g.inSrc[g.inOff[v]:g.inOff[v+1]] {
			a[v][u] -= d / float64(g.outDeg[u])
		}
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		for r := range n {
			if r == c {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k <= n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	x := make([]float64, n)
	for v := range x {
		x[v] = a[v][n] / a[v][v]
	}
	return x
}

func TestPageRankKnown(t *testing.T) {
	tests := []struct {
		name  string
		nodes []int64
		edges []edge
		d     float64
		want  map[int64]float64
		tol   float64
	}{
		{
			// Ian Rogers, "The Google PageRank Algorithm and How It Works"
			// (2002): A→B, A→C, B→C, C→A gives PR(A)=1.163, PR(B)=0.644,
			// PR(C)=1.192 on the scale where scores sum to the node count.
			name:  "Rogers three nodes",
			edges: []edge{{1, 2}, {1, 3}, {2, 3}, {3, 1}},
			want:  map[int64]float64{1: 1.163 / 3, 2: 0.644 / 3, 3: 1.192 / 3},
			tol:   0.0005 / 3,
		},
		{
			// The example figure of Wikipedia's "PageRank" article
			// (PageRanks-Example.svg), in percent; A (1) is dangling.
			name: "Wikipedia eleven nodes",
			edges: []edge{
				{2, 3}, {3, 2}, {4, 1}, {4, 2}, {5, 2}, {5, 4}, {5, 6}, {6, 2}, {6, 5},
				{7, 2}, {7, 5}, {8, 2}, {8, 5}, {9, 2}, {9, 5}, {10, 5}, {11, 5},
			},
			want: map[int64]float64{
				1: 0.033, 2: 0.384, 3: 0.343, 4: 0.039, 5: 0.081, 6: 0.039,
				7: 0.016, 8: 0.016, 9: 0.016, 10: 0.016, 11: 0.016,
			},
			tol: 0.0005,
		},
		{
			name:  "cycle is uniform",
			edges: []edge{{1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 1}},
			want:  map[int64]float64{1: 0.2, 2: 0.2, 3: 0.2, 4: 0.2, 5: 0.2},
			tol:   1e-12,
		},
		{
			name:  "lone nodes are uniform",
			nodes: []int64{1, 2, 3, 4},
			want:  map[int64]float64{1: 0.25, 2: 0.25, 3: 0.25, 4: 0.25},
			tol:   1e-12,
		},
		{
			name:  "single node",
			nodes: []int64{42},
			want:  map[int64]float64{42: 1},
			tol:   1e-12,
		},
		{
			// Leaves → dangling centre: c = (1+kd)/(1+k+kd) with k leaves.
			name:  "star inward",
			edges: []edge{{1, 0}, {2, 0}, {3, 0}, {4, 0}},
			want: map[int64]float64{
				0: 4.4 / 8.4, 1: 1 / 8.4, 2: 1 / 8.4, 3: 1 / 8.4, 4: 1 / 8.4,
			},
			tol: 1e-12,
		},
		{
			// Centre → dangling leaves, which hold 1-c: c = (1-d+d(1-c))/n,
			// so c = 1/(n+d), and each leaf has (1-c)/k.
			name:  "star outward",
			edges: []edge{{0, 1}, {0, 2}, {0, 3}, {0, 4}},
			want: map[int64]float64{
				0: 1 / 5.85, 1: 4.85 / 23.4, 2: 4.85 / 23.4, 3: 4.85 / 23.4, 4: 4.85 / 23.4,
			},
			tol: 1e-12,
		},
		{
			// A → B, B dangling: a = 1/(2+d), b = (1+d)/(2+d).
			name:  "dangling pair",
			edges: []edge{{1, 2}},
			want:  map[int64]float64{1: 1 / 2.85, 2: 1.85 / 2.85},
			tol:   1e-12,
		},
		{
			name:  "dangling pair damping 0.5",
			edges: []edge{{1, 2}},
			d:     0.5,
			want:  map[int64]float64{1: 1 / 2.5, 2: 1.5 / 2.5},
			tol:   1e-12,
		},
		{
			// Two copies of Rogers' graph: each copy holds half the rank.
			name:  "disconnected components",
			edges: []edge{{1, 2}, {1, 3}, {2, 3}, {3, 1}, {11, 12}, {11, 13}, {12, 13}, {13, 11}},
			want: map[int64]float64{
				1: 1.163 / 6, 2: 0.644 / 6, 3: 1.192 / 6,
				11: 1.163 / 6, 12: 0.644 / 6, 13: 1.192 / 6,
			},
			tol: 0.0005 / 6,
		},
		{
			// A 2-cycle and a 3-cycle: every node keeps 1/5.
			name:  "disconnected cycles",
			edges: []edge{{1, 2}, {2, 1}, {3, 4}, {4, 5}, {5, 3}},
			want:  map[int64]float64{1: 0.2, 2: 0.2, 3: 0.2, 4: 0.2, 5: 0.2},
			tol:   1e-12,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(tt.nodes, tt.edges)
			opts := exact
			opts.Damping = tt.d
			got := scoresByID(t, g, opts)
			if len(got) != len(tt.want) {
				t.Fatalf("PageRank scored %d nodes, want %d", len(got), len(tt.want))
			}
			for id, want := range tt.want {
				if math.Abs(got[id]-want) > tt.tol {
					t.Errorf("PageRank score of %d = %.6f, want %.6f", id, got[id], want)
				}
			}
		})
	}
}

// randomEdges returns m random edges among n IDs, with duplicates and
// self-links, and leaves some IDs dangling.
func randomEdges(rnd *rand.Rand, n, m int) []edge {
	edges := make([]edge, m)
	for i := range edges {
		src := rnd.Int64N(int64(n))
		if rnd.IntN(4) == 0 {
			src = rnd.Int64N(int64(n)/2 + 1) // half the IDs are less likely sources
		}
		edges[i] = edge{src * 7919, rnd.Int64N(int64(n)) * 7919}
	}
	return edges
}

func TestPageRankMatchesLinearSolve(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, size := range []struct{ n, m int }{{2, 1}, {5, 3}, {10, 30}, {30, 40}, {60, 600}} {
		g := build(nil, randomEdges(rnd, size.n, size.m))
		for _, d := range []float64{0.5, 0.85, 0.99} {
			res, err := PageRank(t.Context(), g, Options{Damping: d, Tolerance: 1e-13, MaxIterations: 10000})
			if err != nil || !res.Converged {
				t.Fatalf("PageRank(%d nodes, d=%v) = converged %v, %v", g.Nodes(), d, res.Converged, err)
			}
			checkSum(t, res.Scores)
			want := solve(g, d)
			for v, w := range want {
				if math.Abs(res.Scores[v]-w) > 1e-10 {
					t.Errorf("PageRank(%d nodes, d=%v) score[%d] = %v, want %v", g.Nodes(), d, v, res.Scores[v], w)
				}
			}
		}
	}
}

func TestPageRankDuplicatesAndSelfLinks(t *testing.T) {
	plain := []edge{{1, 2}, {1, 3}, {2, 3}, {3, 1}, {4, 3}}
	noisy := []edge{{1, 1}, {1, 2}, {1, 3}, {1, 2}, {2, 3}, {2, 2}, {3, 1}, {3, 1}, {3, 1}, {4, 3}, {4, 4}}
	want := scoresByID(t, build(nil, plain), exact)
	got := scoresByID(t, build(nil, noisy), exact)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("PageRank score of %d with duplicates and self-links = %v, want %v", id, got[id], w)
		}
	}
}

func TestPageRankConvergence(t *testing.T) {
	g := build(nil, []edge{{1, 2}, {1, 3}, {2, 3}, {3, 1}})
	tests := []struct {
		name          string
		opts          Options
		wantIter      int
		wantConverged bool
	}{
		{"one iteration", Options{MaxIterations: 1}, 1, false},
		{"two iterations", Options{MaxIterations: 2}, 2, false},
		{"loose tolerance", Options{Tolerance: 0.5}, 1, true},
		{"defaults", Options{}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := PageRank(t.Context(), g, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Converged != tt.wantConverged || (tt.wantIter > 0 && res.Iterations != tt.wantIter) {
				t.Errorf("PageRank(%+v) = %d iterations, converged %v; want %d, %v",
					tt.opts, res.Iterations, res.Converged, tt.wantIter, tt.wantConverged)
			}
			if res.Iterations < 1 || res.Iterations > 100 {
				t.Errorf("PageRank(%+v) ran %d iterations, want 1..100", tt.opts, res.Iterations)
			}
			checkSum(t, res.Scores)
		})
	}

	// A cycle starts at its fixed point: the first iteration changes nothing.
	cycle := build(nil, []edge{{1, 2}, {2, 3}, {3, 1}})
	res, err := PageRank(t.Context(), cycle, Options{})
	if err != nil || res.Iterations != 1 || !res.Converged {
		t.Errorf("PageRank(cycle) = %d iterations, converged %v, %v; want 1, true, nil", res.Iterations, res.Converged, err)
	}
}

func TestPageRankEmpty(t *testing.T) {
	for _, g := range []*Graph{nil, NewBuilder(0).Build()} {
		res, err := PageRank(t.Context(), g, Options{})
		if err != nil || len(res.Scores) != 0 || !res.Converged {
			t.Errorf("PageRank(empty) = %+v, %v; want no scores, converged", res, err)
		}
	}
}

func TestPageRankOptionsErrors(t *testing.T) {
	g := build(nil, []edge{{1, 2}})
	for _, opts := range []Options{
		{Damping: 1},
		{Damping: -0.1},
		{Damping: 1.5},
		{Damping: math.NaN()},
		{Tolerance: -1},
		{Tolerance: math.NaN()},
		{MaxIterations: -1},
	} {
		if _, err := PageRank(t.Context(), g, opts); err == nil {
			t.Errorf("PageRank(%+v) = nil error, want an error", opts)
		}
	}
}

func TestPageRankCanceled(t *testing.T) {
	g := build(nil, randomEdges(rand.New(rand.NewPCG(5, 6)), 1000, 5000))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, workers := range []int{1, 2} {
		_, err := PageRank(ctx, g, Options{Workers: workers})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("PageRank(canceled, %d workers) = %v, want context.Canceled", workers, err)
		}
	}
}

// cancelAfter is a context that reports cancellation once Err has been
// asked more than n times: it cancels PageRank in the middle of a run.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

func TestPageRankCanceledMidway(t *testing.T) {
	g := build(nil, randomEdges(rand.New(rand.NewPCG(5, 6)), 1000, 5000))
	want, err := pageRank(t.Context(), g, Options{MaxIterations: 3, Workers: 1}, 64)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &cancelAfter{Context: t.Context(), n: 1 + 3*len(g.chunks(64)) + 10}
	res, err := pageRank(ctx, g, Options{Workers: 1}, 64)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("PageRank(canceled) = %v, want context.Canceled", err)
	}
	if res.Iterations != 3 || res.Converged || !slices.Equal(res.Scores, want.Scores) {
		t.Errorf("PageRank(canceled in iteration 4) = %d iterations, converged %v, want the scores of iteration 3",
			res.Iterations, res.Converged)
	}
}

func TestPageRankDeterministic(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	edges := randomEdges(rnd, 5000, 40000)
	g := build(nil, edges)
	const work = 100 // many small chunks, so the workers share them
	want, err := pageRank(t.Context(), g, Options{Workers: 1}, work)
	if err != nil {
		t.Fatal(err)
	}
	checkSum(t, want.Scores)
	rnd.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	shuffled := build(nil, edges)
	for _, workers := range []int{1, 2, 3, 8} {
		for _, g := range []*Graph{g, shuffled} {
			got, err := pageRank(t.Context(), g, Options{Workers: workers}, work)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Scores, want.Scores) || got.Iterations != want.Iterations {
				t.Errorf("PageRank with %d workers differs from 1 worker", workers)
			}
		}
	}
	// The public entry point, with its own chunking, agrees to rounding.
	got, err := PageRank(t.Context(), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for v := range got.Scores {
		if math.Abs(got.Scores[v]-want.Scores[v]) > 1e-15 {
			t.Errorf("PageRank score[%d] = %v, want %v", v, got.Scores[v], want.Scores[v])
		}
	}
}
