package rank

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// edge is a link between two IDs, for building test graphs.
type edge struct{ src, dst int64 }

// build returns the graph of the given nodes and edges.
func build(nodes []int64, edges []edge) *Graph {
	b := NewBuilder(len(nodes))
	for _, id := range nodes {
		b.AddNode(id)
	}
	for _, e := range edges {
		b.AddEdge(e.src, e.dst)
	}
	return b.Build()
}

// links returns the graph's edges as ID pairs, sorted.
func links(g *Graph) []edge {
	var out []edge
	for v := range g.Nodes() {
		for _, u := range g.inSrc[g.inOff[v]:g.inOff[v+1]] {
			out = append(out, edge{g.ID(int(u)), g.ID(v)})
		}
	}
	slices.SortFunc(out, func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.dst, b.dst))
	})
	return out
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name      string
		nodes     []int64
		edges     []edge
		wantIDs   []int64
		wantLinks []edge
	}{
		{name: "empty"},
		{
			name:    "lone nodes",
			nodes:   []int64{7, -3, 7, 0},
			wantIDs: []int64{-3, 0, 7},
		},
		{
			name:      "chain",
			edges:     []edge{{3, 2}, {2, 1}},
			wantIDs:   []int64{1, 2, 3},
			wantLinks: []edge{{2, 1}, {3, 2}},
		},
		{
			name:      "duplicates counted once",
			edges:     []edge{{1, 2}, {1, 2}, {2, 1}, {1, 2}, {1, 3}, {1, 2}},
			wantIDs:   []int64{1, 2, 3},
			wantLinks: []edge{{1, 2}, {1, 3}, {2, 1}},
		},
		{
			name:      "self-link keeps its node but no edge",
			edges:     []edge{{5, 5}, {6, 6}, {5, 6}},
			wantIDs:   []int64{5, 6},
			wantLinks: []edge{{5, 6}},
		},
		{
			name:      "extreme IDs",
			edges:     []edge{{-1 << 63, 1<<63 - 1}, {1<<63 - 1, -1 << 63}},
			wantIDs:   []int64{-1 << 63, 1<<63 - 1},
			wantLinks: []edge{{-1 << 63, 1<<63 - 1}, {1<<63 - 1, -1 << 63}},
		},
		{
			name:      "edge node also added alone",
			nodes:     []int64{9},
			edges:     []edge{{8, 9}},
			wantIDs:   []int64{8, 9},
			wantLinks: []edge{{8, 9}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(tt.nodes, tt.edges)
			ids := make([]int64, g.Nodes())
			for i := range ids {
				ids[i] = g.ID(i)
			}
			if !slices.Equal(ids, tt.wantIDs) && len(ids)+len(tt.wantIDs) > 0 {
				t.Errorf("IDs = %v, want %v", ids, tt.wantIDs)
			}
			if got := links(g); !slices.Equal(got, tt.wantLinks) {
				t.Errorf("links = %v, want %v", got, tt.wantLinks)
			}
			if g.Edges() != len(tt.wantLinks) {
				t.Errorf("Edges() = %d, want %d", g.Edges(), len(tt.wantLinks))
			}
			checkGraph(t, g)
		})
	}
}

// checkGraph checks the invariants of g's layout.
func checkGraph(t *testing.T, g *Graph) {
	t.Helper()
	n := g.Nodes()
	if len(g.inOff) != n+1 || g.inOff[0] != 0 || g.inOff[n] != g.Edges() {
		t.Fatalf("offsets %v do not span %d edges", g.inOff, g.Edges())
	}
	outDeg := make([]uint32, n)
	for v := range n {
		if v > 0 && g.ids[v-1] >= g.ids[v] {
			t.Errorf("ID(%d) = %d not above ID(%d) = %d", v, g.ids[v], v-1, g.ids[v-1])
		}
		if i, ok := g.Index(g.ID(v)); !ok || i != v {
			t.Errorf("Index(%d) = %d, %v, want %d, true", g.ID(v), i, ok, v)
		}
		row := g.inSrc[g.inOff[v]:g.inOff[v+1]]
		for k, u := range row {
			if int(u) >= n || int(u) == v || (k > 0 && row[k-1] >= u) {
				t.Errorf("sources of node %d = %v, want distinct, sorted, in range, no self-link", v, row)
				break
			}
			outDeg[u]++
		}
	}
	if !slices.Equal(outDeg, g.outDeg) {
		t.Errorf("out-degrees = %v, want %v", g.outDeg, outDeg)
	}
}

func TestIndexMissing(t *testing.T) {
	g := build([]int64{10, 20, 30}, nil)
	for _, id := range []int64{0, 15, 31, -10} {
		if i, ok := g.Index(id); ok {
			t.Errorf("Index(%d) = %d, true, want false", id, i)
		}
	}
}

func TestBuildOrderIndependent(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var edges []edge
	for range 2000 {
		edges = append(edges, edge{rnd.Int64N(300), rnd.Int64N(300)})
	}
	want := build(nil, edges)
	rnd.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	got := build(nil, edges)
	if !slices.Equal(got.ids, want.ids) || !slices.Equal(got.inOff, want.inOff) ||
		!slices.Equal(got.inSrc, want.inSrc) || !slices.Equal(got.outDeg, want.outDeg) {
		t.Errorf("graph built from shuffled edges differs")
	}
	checkGraph(t, got)
}

func TestBuilderReuse(t *testing.T) {
	var b Builder // the zero Builder works
	b.AddEdge(1, 2)
	b.AddEdge(1, 3)
	first := b.Build()
	b.AddEdge(1, 4)
	second := b.Build()
	if first.Nodes() != 3 || first.Edges() != 2 {
		t.Errorf("first graph: %d nodes, %d edges, want 3, 2", first.Nodes(), first.Edges())
	}
	if second.Nodes() != 2 || second.Edges() != 1 || second.ID(1) != 4 {
		t.Errorf("second graph: %d nodes, %d edges, want 2, 1 (1 → 4)", second.Nodes(), second.Edges())
	}
	if empty := b.Build(); empty.Nodes() != 0 || empty.Edges() != 0 {
		t.Errorf("third graph: %d nodes, %d edges, want empty", empty.Nodes(), empty.Edges())
	}
}
