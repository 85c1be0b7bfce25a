package mesh

import (
	"fmt"
	"slices"
)

// nodeGraph is the graph of nodes that share a volume element (no self-loops), CSR.
type nodeGraph struct {
	ptr []int64
	adj []int32
}

func (g *nodeGraph) neighbors(v int32) []int32 { return g.adj[g.ptr[v]:g.ptr[v+1]] }

func (m *Mesh) nodeGraph() *nodeGraph {
	n := m.Nodes()
	// Node → elements (set index and element), then each node's distinct neighbours.
	inc := make([]int64, n+1)
	for _, s := range m.Volumes {
		for _, p := range s.Nodes {
			inc[p+1]++
		}
	}
	for v := 0; v < n; v++ {
		inc[v+1] += inc[v]
	}
	type ref struct{ set, elem int32 }
	refs := make([]ref, inc[n])
	next := slices.Clone(inc[:n])
	for si, s := range m.Volumes {
		k := s.Type.Nodes()
		for i, p := range s.Nodes {
			refs[next[p]] = ref{int32(si), int32(i / k)}
			next[p]++
		}
	}
	mark := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	g := &nodeGraph{ptr: make([]int64, n+1)}
	for v := 0; v < n; v++ {
		mark[v] = int32(v)
		for _, r := range refs[inc[v]:inc[v+1]] {
			s := &m.Volumes[r.set]
			k := s.Type.Nodes()
			for _, p := range s.Nodes[int(r.elem)*k : int(r.elem+1)*k] {
				if mark[p] != int32(v) {
					mark[p] = int32(v)
					g.adj = append(g.adj, p)
				}
			}
		}
		g.ptr[v+1] = int64(len(g.adj))
	}
	return g
}

// RCM returns a reverse Cuthill–McKee ordering of m's nodes on the graph of nodes
// that share a volume element: perm[i] is the node that becomes node i (Renumber's
// argument). Each connected component, taken in the order of its lowest node, is
// searched breadth-first from a pseudo-peripheral node (the George–Liu iteration: a
// node of least degree in the last level, while that lengthens the level
// structure), each node's unvisited neighbours queued by increasing degree, then
// index; the whole order is then reversed. Ties are broken by index, so the result
// depends on the mesh alone.
//
// A narrow band keeps a block row's columns, and the nodes of neighbouring rows,
// close in memory: that is what the renumbering is for.
func RCM(m *Mesh) []int32 {
	g := m.nodeGraph()
	n := m.Nodes()
	deg := func(v int32) int64 { return g.ptr[v+1] - g.ptr[v] }
	byDegree := func(a, b int32) int {
		if d := deg(a) - deg(b); d != 0 {
			return int(d)
		}
		return int(a - b)
	}
	visited := make([]bool, n)
	level := make([]int32, n) // BFS level during pseudoPeripheral, −1 when untouched
	for i := range level {
		level[i] = -1
	}
	var queue []int32
	// levels runs a BFS from r over unvisited nodes and returns the eccentricity of
	// r and the nodes of the last level; level is reset before it returns.
	levels := func(r int32) (int32, []int32) {
		queue = append(queue[:0], r)
		level[r] = 0
		for h := 0; h < len(queue); h++ {
			v := queue[h]
			for _, w := range g.neighbors(v) {
				if level[w] < 0 && !visited[w] {
					level[w] = level[v] + 1
					queue = append(queue, w)
				}
			}
		}
		ecc := level[queue[len(queue)-1]]
		first := len(queue) - 1
		for first > 0 && level[queue[first-1]] == ecc {
			first--
		}
		last := slices.Clone(queue[first:])
		for _, v := range queue {
			level[v] = -1
		}
		return ecc, last
	}
	order := make([]int32, 0, n)
	var nbrs []int32
	for s := int32(0); s < int32(n); s++ {
		if visited[s] {
			continue
		}
		root := s
		ecc, last := levels(root)
		for {
			x := slices.MinFunc(last, byDegree)
			e, l := levels(x)
			if e <= ecc {
				break
			}
			root, ecc, last = x, e, l
		}
		head := len(order)
		order = append(order, root)
		visited[root] = true
		for ; head < len(order); head++ {
			nbrs = nbrs[:0]
			for _, w := range g.neighbors(order[head]) {
				if !visited[w] {
					visited[w] = true
					nbrs = append(nbrs, w)
				}
			}
			slices.SortFunc(nbrs, byDegree)
			order = append(order, nbrs...)
		}
	}
	slices.Reverse(order)
	return order
}

// Bandwidth is the largest |i − j| over nodes i and j that share a volume element:
// the block bandwidth of the operator assembled on m.
func (m *Mesh) Bandwidth() int {
	bw := 0
	for _, s := range m.Volumes {
		k := s.Type.Nodes()
		for e := 0; e+k <= len(s.Nodes); e += k {
			lo, hi := s.Nodes[e], s.Nodes[e]
			for _, p := range s.Nodes[e : e+k] {
				lo, hi = min(lo, p), max(hi, p)
			}
			bw = max(bw, int(hi-lo))
		}
	}
	return bw
}

// Renumber returns a copy of m whose node i is m's node perm[i]: coordinates and node
// tags move with their nodes, element and face node lists are rewritten, and the
// element order, groups and tags stay. perm must be a permutation of the nodes
// (RCM's result is), and every element and face must refer to nodes of m; anything
// else panics.
func (m *Mesh) Renumber(perm []int32) *Mesh {
	n := m.Nodes()
	if len(perm) != n {
		panic(fmt.Sprintf("mesh: Renumber: permutation of %d nodes for a mesh of %d", len(perm), n))
	}
	inv := make([]int32, n)
	for i := range inv {
		inv[i] = -1
	}
	for i, p := range perm {
		if p < 0 || int(p) >= n || inv[p] >= 0 {
			panic(fmt.Sprintf("mesh: Renumber: entry %d (%d) is not part of a permutation", i, p))
		}
		inv[p] = int32(i)
	}
	r := &Mesh{Coords: make([]float64, len(m.Coords)), Groups: slices.Clone(m.Groups)}
	for i, p := range perm {
		copy(r.Coords[3*i:3*i+3], m.Coords[3*p:3*p+3])
	}
	if len(m.NodeTag) == n {
		r.NodeTag = make([]int64, n)
		for i, p := range perm {
			r.NodeTag[i] = m.NodeTag[p]
		}
	}
	remap := func(sets []Elements) []Elements {
		out := make([]Elements, len(sets))
		for i, s := range sets {
			out[i] = Elements{Type: s.Type, Nodes: make([]int32, len(s.Nodes)), Group: slices.Clone(s.Group), Tag: slices.Clone(s.Tag)}
			for k, p := range s.Nodes {
				if p < 0 || int(p) >= n {
					panic(fmt.Sprintf("mesh: Renumber: %v set %d refers to node %d of %d", s.Type, i, p, n))
				}
				out[i].Nodes[k] = inv[p]
			}
		}
		return out
	}
	r.Volumes = remap(m.Volumes)
	r.Surfaces = remap(m.Surfaces)
	return r
}
