package rank

import (
	"math"
	"slices"
)

// maxNodes is the most nodes a Graph holds: dense indexes are uint32.
const maxNodes = math.MaxUint32

// Builder collects a link graph's nodes and edges, keyed by arbitrary int64
// IDs, and builds a Graph from them. The zero Builder is ready to use. A
// Builder is not safe for concurrent use.
type Builder struct {
	hint  int
	index map[int64]uint32 // ID → index in order of first appearance
	ids   []int64          // index → ID
	src   []uint32         // edges as index pairs, duplicates included
	dst   []uint32

	// AddEdge is usually fed one source's links in a row, so the source's
	// index is remembered to save a map lookup per edge.
	lastSrc   int64
	lastIndex uint32
	hasLast   bool
}

// NewBuilder returns a Builder whose ID table is sized for sizeHint nodes.
// The hint only saves rehashing; a Builder grows past it as needed.
func NewBuilder(sizeHint int) *Builder {
	b := &Builder{hint: max(sizeHint, 0)}
	b.init()
	return b
}

func (b *Builder) init() {
	b.index = make(map[int64]uint32, b.hint)
	b.ids = make([]int64, 0, b.hint)
}

// node returns id's dense index, adding the node if it is new. It panics
// when the graph would exceed maxNodes nodes.
func (b *Builder) node(id int64) uint32 {
	if b.index == nil {
		b.init()
	}
	if i, ok := b.index[id]; ok {
		return i
	}
	if len(b.ids) >= maxNodes {
		panic("rank: more than 4294967295 nodes")
	}
	i := uint32(len(b.ids))
	b.index[id] = i
	b.ids = append(b.ids, id)
	return i
}

// AddEdge records a link from the node src to the node dst, adding either
// node if it is new. A self-link (src == dst) adds its node but no edge. The
// same link added twice counts once.
func (b *Builder) AddEdge(src, dst int64) {
	var s uint32
	if b.hasLast && b.lastSrc == src {
		s = b.lastIndex
	} else {
		s = b.node(src)
		b.lastSrc, b.lastIndex, b.hasLast = src, s, true
	}
	if src == dst {
		return
	}
	b.src = append(b.src, s)
	b.dst = append(b.dst, b.node(dst))
}

// AddNode records the node id, which may have no edges: a page nobody links
// to and that links nowhere still takes part in PageRank. Adding a known
// node does nothing.
func (b *Builder) AddNode(id int64) {
	b.node(id)
}

// Build returns the graph of the nodes and edges added so far and resets
// the Builder to empty, releasing its memory; it can then build another
// graph. The graph's dense indexes follow ascending ID order, so the same
// nodes and edges give the same Graph whatever order they were added in.
func (b *Builder) Build() *Graph {
	ids, src, dst, index := b.ids, b.src, b.dst, b.index
	*b = Builder{hint: b.hint}
	n := len(ids)

	// Renumber the nodes in ID order: perm maps the first-seen index to the
	// sorted one.
	slices.Sort(ids)
	perm := make([]uint32, n)
	for i, id := range ids {
		perm[index[id]] = uint32(i)
	}
	index = nil

	// Bucket the sources by target (a counting sort): the transposed
	// graph's rows.
	inOff := make([]int, n+1)
	for i, d := range dst {
		d = perm[d]
		dst[i] = d
		inOff[d+1]++
	}
	for v := range n {
		inOff[v+1] += inOff[v]
	}
	next := slices.Clone(inOff[:n])
	inSrc := make([]uint32, len(src))
	for i, d := range dst {
		inSrc[next[d]] = perm[src[i]]
		next[d]++
	}
	src, dst, next, perm = nil, nil, nil, nil

	// Sort each row, drop duplicate sources, close the gaps and count the
	// out-degrees of what remains.
	outDeg := make([]uint32, n)
	w := 0
	for v := range n {
		row := inSrc[inOff[v]:inOff[v+1]]
		slices.Sort(row)
		row = slices.Compact(row)
		for _, u := range row {
			outDeg[u]++
		}
		inOff[v] = w
		w += copy(inSrc[w:], row) // may overlap row: it moves down
	}
	inOff[n] = w
	inSrc = inSrc[:w]
	if w < cap(inSrc)-cap(inSrc)/4 {
		inSrc = slices.Clone(inSrc) // many duplicates: give the rest back
	}
	return &Graph{ids: ids, outDeg: outDeg, inOff: inOff, inSrc: inSrc}
}

// Graph is an immutable link graph in compressed sparse row layout over
// dense node indexes 0..Nodes()-1, stored transposed (each node's incoming
// links) for pull-based PageRank. It is safe for concurrent use.
type Graph struct {
	ids    []int64  // index → ID, ascending
	outDeg []uint32 // distinct outgoing links per node
	inOff  []int    // node v's sources are inSrc[inOff[v]:inOff[v+1]]
	inSrc  []uint32 // sorted ascending within each node
}

// Nodes returns the number of nodes.
func (g *Graph) Nodes() int { return len(g.ids) }

// Edges returns the number of distinct edges, self-links excluded.
func (g *Graph) Edges() int { return len(g.inSrc) }

// ID returns the ID of the node with dense index i, 0 <= i < Nodes().
func (g *Graph) ID(i int) int64 { return g.ids[i] }

// Index returns the dense index of the node id, and whether the graph has
// that node.
func (g *Graph) Index(id int64) (int, bool) {
	return slices.BinarySearch(g.ids, id)
}
