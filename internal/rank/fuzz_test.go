package rank

import (
	"math"
	"slices"
	"testing"
)

// FuzzPageRank reads data as a damping byte followed by (source, target)
// byte pairs, IDs spread over int64, and checks the graph against a direct
// count and the scores against a dense linear solve.
func FuzzPageRank(f *testing.F) {
	f.Add([]byte{200, 1, 2, 1, 3, 2, 3, 3, 1})
	f.Add([]byte{0, 1, 1, 1, 2, 1, 2, 9, 9})
	f.Add([]byte{255, 0, 1, 1, 2, 2, 3, 3, 0, 4})
	f.Add([]byte{128})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 400 {
			return
		}
		d := 0.05 + 0.9*float64(data[0])/255 // in (0, 0.95]
		id := func(b byte) int64 { return int64(b%40-20) * 0x1000_0000_0000_0001 }
		nodes := map[int64]bool{}
		want := map[edge]bool{}
		var edges []edge
		for i := 1; i+1 < len(data); i += 2 {
			e := edge{id(data[i]), id(data[i+1])}
			edges = append(edges, e)
			nodes[e.src], nodes[e.dst] = true, true
			if e.src != e.dst {
				want[e] = true
			}
		}
		var lone []int64
		if len(data)%2 == 0 {
			lone = append(lone, id(data[len(data)-1]))
			nodes[lone[0]] = true
		}

		g := build(lone, edges)
		checkGraph(t, g)
		if g.Nodes() != len(nodes) || g.Edges() != len(want) {
			t.Fatalf("graph has %d nodes, %d edges, want %d, %d", g.Nodes(), g.Edges(), len(nodes), len(want))
		}
		for _, e := range links(g) {
			if !want[e] {
				t.Fatalf("graph has edge %v, not added", e)
			}
		}
		slices.Reverse(edges)
		if r := build(lone, edges); !slices.Equal(r.inSrc, g.inSrc) || !slices.Equal(r.inOff, g.inOff) {
			t.Fatalf("graph from reversed edges differs")
		}

		opts := Options{Damping: d, Tolerance: 1e-13, MaxIterations: 2000, Workers: 1}
		res, err := pageRank(t.Context(), g, opts, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Fatalf("PageRank(d=%v) did not converge in %d iterations", d, res.Iterations)
		}
		checkSum(t, res.Scores)
		n := float64(g.Nodes())
		oracle := solve(g, d)
		for v, s := range res.Scores {
			if s < (1-d)/n*(1-1e-9) {
				t.Errorf("score[%d] = %v, below the jump share %v", v, s, (1-d)/n)
			}
			if math.Abs(s-oracle[v]) > 1e-9 {
				t.Errorf("score[%d] = %v, linear solve gives %v", v, s, oracle[v])
			}
		}
		opts.Workers = 3
		if par, err := pageRank(t.Context(), g, opts, 3); err != nil || !slices.Equal(par.Scores, res.Scores) {
			t.Errorf("PageRank with 3 workers differs from 1 worker (err %v)", err)
		}
	})
}
