package dist

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/blockamg/blockamg/bsr"
)

// ErrPartition is wrapped by the errors of the partitioners when their input cannot be
// partitioned (coordinates that do not fit, an unknown method, a non-square matrix).
var ErrPartition = errors.New("dist: cannot partition")

// Partitioning methods, the names of Partition.Method and of `solve --partition`.
const (
	PartitionEven  = "even"  // the input's order cut into even ranges (slabs for ex56)
	PartitionSFC   = "sfc"   // a Hilbert curve over the coordinates cut into even pieces
	PartitionRCB   = "rcb"   // recursive coordinate bisection
	PartitionGraph = "graph" // recursive BFS level-set bisection of the matrix graph
)

// Partition splits n block rows (nodes) over ranks with a renumbering that makes each
// rank's part contiguous, so that Layout stays contiguous ranges: row i of the
// renumbered system is row Perm[i] of the input, and Inv is Perm's inverse. Every
// partitioner gives part r exactly EvenLayout's share of rows, so parts are balanced
// within one row, and is deterministic: ties are broken by the input's row number, so
// every rank computes the same partition from the same input.
type Partition struct {
	Method string
	Layout Layout
	Perm   []int // new → input
	Inv    []int // input → new
}

// EvenPartition is the input's order cut into even ranges: the identity renumbering.
func EvenPartition(n, size int) Partition {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	return Partition{Method: PartitionEven, Layout: EvenLayout(n, size), Perm: perm, Inv: slices.Clone(perm)}
}

// CoordPartition partitions n = len(coords)/dim nodes over size ranks by their
// coordinates (dim 2 or 3, node i at coords[i·dim:(i+1)·dim]), with method
// PartitionRCB, PartitionSFC or PartitionEven. Errors wrap ErrPartition.
func CoordPartition(coords []float64, dim, size int, method string) (Partition, error) {
	if size < 1 {
		return Partition{}, fmt.Errorf("%w: %d ranks", ErrPartition, size)
	}
	if dim != 2 && dim != 3 || len(coords)%dim != 0 {
		return Partition{}, fmt.Errorf("%w: %d coordinates of dimension %d", ErrPartition, len(coords), dim)
	}
	for i, x := range coords {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Partition{}, fmt.Errorf("%w: coordinate %d of node %d is %g", ErrPartition, i%dim, i/dim, x)
		}
	}
	n := len(coords) / dim
	lay := EvenLayout(n, size)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	switch method {
	case PartitionEven:
		return EvenPartition(n, size), nil
	case PartitionRCB:
		rcb(coords, dim, order, lay.Offsets)
	case PartitionSFC:
		hilbertOrder(coords, dim, order)
	default:
		return Partition{}, fmt.Errorf("%w: method %q needs %q, %q or %q with coordinates", ErrPartition, method, PartitionRCB, PartitionSFC, PartitionEven)
	}
	return fromOrder(method, lay, order), nil
}

// fromOrder is the partition whose renumbering is order (new → input) on lay.
func fromOrder(method string, lay Layout, order []int) Partition {
	inv := make([]int, len(order))
	for i, o := range order {
		inv[o] = i
	}
	return Partition{Method: method, Layout: lay, Perm: order, Inv: inv}
}

// rcb orders nodes so that the ranks' shares (off, relative to nodes' start) are
// boxes: it splits nodes across their bounding box's longest axis at the share of the
// first half of the ranks, and recurses into both halves.
func rcb(coords []float64, dim int, nodes []int, off []int) {
	ranks := len(off) - 1
	if ranks <= 1 || len(nodes) <= 1 {
		return
	}
	axis, best := 0, -1.0
	for d := 0; d < dim; d++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range nodes {
			lo, hi = min(lo, coords[v*dim+d]), max(hi, coords[v*dim+d])
		}
		if hi-lo > best {
			axis, best = d, hi-lo
		}
	}
	slices.SortFunc(nodes, func(a, b int) int {
		ca, cb := coords[a*dim+axis], coords[b*dim+axis]
		switch {
		case ca < cb:
			return -1
		case ca > cb:
			return 1
		}
		return a - b
	})
	h := ranks / 2
	cut := off[h] - off[0]
	left := slices.Clone(off[:h+1])
	right := slices.Clone(off[h:])
	rcb(coords, dim, nodes[:cut], left)
	rcb(coords, dim, nodes[cut:], right)
}

// hilbertBits is the resolution of the Hilbert curve per axis: 3·21 bits fit a uint64.
const hilbertBits = 21

// hilbertOrder sorts nodes along a Hilbert curve through the coordinates' bounding
// box, scaled alike on every axis so that the curve's cells are cubes.
func hilbertOrder(coords []float64, dim int, nodes []int) {
	lo := make([]float64, dim)
	ext := 0.0
	for d := 0; d < dim; d++ {
		l, h := math.Inf(1), math.Inf(-1)
		for _, v := range nodes {
			l, h = min(l, coords[v*dim+d]), max(h, coords[v*dim+d])
		}
		lo[d], ext = l, max(ext, h-l)
	}
	if ext == 0 {
		ext = 1
	}
	scale := float64(uint64(1)<<hilbertBits-1) / ext
	keys := make([]uint64, len(coords)/dim)
	var x [3]uint32
	for _, v := range nodes {
		for d := 0; d < dim; d++ {
			x[d] = uint32((coords[v*dim+d] - lo[d]) * scale)
		}
		keys[v] = hilbertKey(x[:dim])
	}
	slices.SortFunc(nodes, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return a - b
	})
}

// hilbertKey is the position of the cell x (hilbertBits bits per axis) along the
// Hilbert curve: Skilling's transform of the axes into the curve's transposed form
// ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004), then its bits
// interleaved.
func hilbertKey(x []uint32) uint64 {
	n := len(x)
	m := uint32(1) << (hilbertBits - 1)
	// Inverse undo of the excess work.
	for q := m; q > 1; q >>= 1 {
		p := q - 1
		for i := 0; i < n; i++ {
			if x[i]&q != 0 {
				x[0] ^= p
			} else {
				t := (x[0] ^ x[i]) & p
				x[0] ^= t
				x[i] ^= t
			}
		}
	}
	// Gray encode.
	for i := 1; i < n; i++ {
		x[i] ^= x[i-1]
	}
	var t uint32
	for q := m; q > 1; q >>= 1 {
		if x[n-1]&q != 0 {
			t ^= q - 1
		}
	}
	for i := range x {
		x[i] ^= t
	}
	var key uint64
	for b := hilbertBits - 1; b >= 0; b-- {
		for i := 0; i < n; i++ {
			key = key<<1 | uint64(x[i]>>uint(b)&1)
		}
	}
	return key
}

// GraphPartition partitions a's block rows over size ranks by recursive level-set
// bisection of its block graph (rows i and j adjacent when block (i, j) or (j, i) is
// stored): each part is split at its ranks' share along a breadth-first order from a
// pseudo-peripheral row, so that both halves are connected where the part is, with a
// short frontier between them. For matrices without coordinates. Errors wrap
// ErrPartition.
func GraphPartition(a *bsr.Matrix, size int) (Partition, error) {
	if size < 1 {
		return Partition{}, fmt.Errorf("%w: %d ranks", ErrPartition, size)
	}
	if a.BlockRows != a.BlockCols {
		return Partition{}, fmt.Errorf("%w: a %d×%d block matrix is not square", ErrPartition, a.BlockRows, a.BlockCols)
	}
	n := a.BlockRows
	adj := symmetricGraph(a)
	lay := EvenLayout(n, size)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// part[v] is the subset v is in during the recursion: BFS stays within it.
	part := make([]int32, n)
	level := make([]int32, n)
	var next int32 = 1
	var bisect func(nodes []int, off []int)
	bisect = func(nodes []int, off []int) {
		ranks := len(off) - 1
		if ranks <= 1 || len(nodes) <= 1 {
			return
		}
		id := part[nodes[0]]
		bfs := levelOrder(adj, part, id, level, nodes)
		copy(nodes, bfs)
		h := ranks / 2
		cut := off[h] - off[0]
		for _, v := range nodes[:cut] {
			part[v] = next
		}
		for _, v := range nodes[cut:] {
			part[v] = next + 1
		}
		next += 2
		left, right := slices.Clone(off[:h+1]), slices.Clone(off[h:])
		bisect(nodes[:cut], left)
		bisect(nodes[cut:], right)
	}
	bisect(order, lay.Offsets)
	return fromOrder(PartitionGraph, lay, order), nil
}

// symmetricGraph is a's block pattern made symmetric, without the diagonal: each
// row's neighbours, sorted.
func symmetricGraph(a *bsr.Matrix) [][]int32 {
	n := a.BlockRows
	adj := make([][]int32, n)
	for i := 0; i < n; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			if j := int(a.ColIdx[k]); j != i {
				adj[i] = append(adj[i], int32(j))
				adj[j] = append(adj[j], int32(i))
			}
		}
	}
	for i := range adj {
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	return adj
}

// levelOrder returns nodes, the members of subset id, in breadth-first order from a
// pseudo-peripheral node of each connected piece (pieces taken in the order of their
// smallest member): the last node reached by a BFS from the piece's smallest member,
// George and Liu's start, so that the levels are long and narrow. mark is scratch of
// one entry per graph node, left as it was found.
func levelOrder(adj [][]int32, part []int32, id int32, mark []int32, nodes []int) []int {
	sorted := slices.Clone(nodes)
	slices.Sort(sorted)
	// mark: 0 unvisited, 1 reached by a probe, 2 placed in the order.
	bfs := func(start int, q []int, m int32) []int {
		q = append(q, start)
		mark[start] = m
		for h := len(q) - 1; h < len(q); h++ {
			for _, w := range adj[q[h]] {
				if part[w] == id && mark[w] < m {
					mark[w] = m
					q = append(q, int(w))
				}
			}
		}
		return q
	}
	out := make([]int, 0, len(nodes))
	var probe []int
	for _, s := range sorted {
		if mark[s] == 2 {
			continue
		}
		probe = bfs(s, probe[:0], 1)
		start := probe[len(probe)-1]
		for _, v := range probe {
			mark[v] = 0
		}
		out = bfs(start, out, 2)
	}
	for _, v := range out {
		mark[v] = 0
	}
	return out
}

// SliceSym returns block rows [lo, hi) of Π·a·Πᵀ, a renumbered by p in rows and
// columns (a square matrix on the input's numbering), with global columns in the new
// numbering, sorted: NewMatrix's rows for a rank that holds the whole input matrix.
func (p Partition) SliceSym(a *bsr.Matrix, lo, hi int) *bsr.Matrix {
	return p.slice(a, lo, hi, true)
}

// ReadRows is SliceSym for a caller that reads the rows once and keeps nothing
// (Hierarchy.Update): where p keeps the input's order it returns a view of a's rows
// (its columns and values shared, no copy), else SliceSym's renumbered copy.
func (p Partition) ReadRows(a *bsr.Matrix, lo, hi int) *bsr.Matrix {
	for i, r := range p.Perm {
		if i != r {
			return p.SliceSym(a, lo, hi)
		}
	}
	if lo < 0 || hi < lo || hi > len(p.Perm) || a.BlockRows != len(p.Perm) {
		panic("dist: Partition ReadRows: row range or matrix outside the partition")
	}
	bs := int64(a.R * a.C)
	p0, p1 := a.RowPtr[lo], a.RowPtr[hi]
	rows := &bsr.Matrix{BlockRows: hi - lo, BlockCols: a.BlockCols, R: a.R, C: a.C, RowPtr: make([]int64, hi-lo+1),
		ColIdx: a.ColIdx[p0:p1], Val: a.Val[p0*bs : p1*bs]}
	for i := range rows.RowPtr {
		rows.RowPtr[i] = a.RowPtr[lo+i] - p0
	}
	return rows
}

// SliceRows returns block rows [lo, hi) of Π·a, a's rows renumbered by p and its
// columns kept: a prolongator's rows on the renumbered fine level.
func (p Partition) SliceRows(a *bsr.Matrix, lo, hi int) *bsr.Matrix {
	return p.slice(a, lo, hi, false)
}

// SliceCols returns block rows [lo, hi) of a·Πᵀ, a's columns renumbered by p and
// sorted: a restriction onto the renumbered fine level.
func (p Partition) SliceCols(a *bsr.Matrix, lo, hi int) *bsr.Matrix {
	s := Slice(a, lo, hi)
	return p.renumberCols(s)
}

func (p Partition) slice(a *bsr.Matrix, lo, hi int, cols bool) *bsr.Matrix {
	if lo < 0 || hi < lo || hi > len(p.Perm) || a.BlockRows != len(p.Perm) {
		panic("dist: Partition slice: row range or matrix outside the partition")
	}
	bs := int64(a.R * a.C)
	out := &bsr.Matrix{BlockRows: hi - lo, BlockCols: a.BlockCols, R: a.R, C: a.C, RowPtr: make([]int64, hi-lo+1)}
	for i := lo; i < hi; i++ {
		r := p.Perm[i]
		p0, p1 := a.RowPtr[r], a.RowPtr[r+1]
		out.ColIdx = append(out.ColIdx, a.ColIdx[p0:p1]...)
		out.Val = append(out.Val, a.Val[p0*bs:p1*bs]...)
		out.RowPtr[i-lo+1] = int64(len(out.ColIdx))
	}
	if cols {
		return p.renumberCols(out)
	}
	return out
}

// renumberCols maps m's columns through Inv and sorts each row's blocks by their new
// column, in place.
func (p Partition) renumberCols(m *bsr.Matrix) *bsr.Matrix {
	if m.BlockCols != len(p.Inv) {
		panic("dist: Partition: the matrix's columns are not the partition's rows")
	}
	bs := m.R * m.C
	var idx []int
	var cols []int32
	var vals []float64
	for i := 0; i < m.BlockRows; i++ {
		p0, p1 := m.RowPtr[i], m.RowPtr[i+1]
		idx, cols = idx[:0], cols[:0]
		for k := p0; k < p1; k++ {
			idx = append(idx, int(k-p0))
			cols = append(cols, int32(p.Inv[m.ColIdx[k]]))
		}
		sort.Slice(idx, func(x, y int) bool { return cols[idx[x]] < cols[idx[y]] })
		vals = append(vals[:0], m.Val[p0*int64(bs):p1*int64(bs)]...)
		for t, s := range idx {
			m.ColIdx[p0+int64(t)] = cols[s]
			copy(m.Val[(p0+int64(t))*int64(bs):], vals[s*bs:(s+1)*bs])
		}
	}
	return m
}

// Permute returns v (blocks of bs values on the input's numbering) in the new
// numbering: block i of the result is block Perm[i] of v.
func (p Partition) Permute(v []float64, bs int) []float64 {
	if len(v) != len(p.Perm)*bs {
		panic("dist: Partition.Permute: vector length is not rows × bs")
	}
	out := make([]float64, len(v))
	for i, o := range p.Perm {
		copy(out[i*bs:(i+1)*bs], v[o*bs:(o+1)*bs])
	}
	return out
}

// Restore is Permute's inverse: v on the new numbering, returned on the input's.
func (p Partition) Restore(v []float64, bs int) []float64 {
	if len(v) != len(p.Perm)*bs {
		panic("dist: Partition.Restore: vector length is not rows × bs")
	}
	out := make([]float64, len(v))
	for i, o := range p.Perm {
		copy(out[o*bs:(o+1)*bs], v[i*bs:(i+1)*bs])
	}
	return out
}

// PartQuality is what one part of a partition costs the matrix's halo exchange.
type PartQuality struct {
	Rows       int // block rows of the part
	Ghosts     int // distinct block columns of other parts its rows name: its halo
	Neighbours int // parts that own those columns
	Cut        int // stored blocks of its rows in other parts' columns
}

// Quality returns, for the input matrix a (square, on the input's numbering), each
// part's rows, halo, neighbours and cut blocks under p, and the edge cut: the stored
// off-part blocks of all parts, which is twice the cut edges of a symmetric pattern.
func (p Partition) Quality(a *bsr.Matrix) (parts []PartQuality, cut int) {
	if a.BlockRows != len(p.Perm) || a.BlockCols != len(p.Perm) {
		panic("dist: Partition.Quality: the matrix is not the partition's")
	}
	size := p.Layout.Size()
	owner := make([]int32, len(p.Perm))
	for r := 0; r < size; r++ {
		lo, hi := p.Layout.Range(r)
		for i := lo; i < hi; i++ {
			owner[p.Perm[i]] = int32(r)
		}
	}
	parts = make([]PartQuality, size)
	for r := 0; r < size; r++ {
		lo, hi := p.Layout.Range(r)
		q := &parts[r]
		q.Rows = hi - lo
		ghosts := map[int32]bool{}
		nb := map[int32]bool{}
		for i := lo; i < hi; i++ {
			row := p.Perm[i]
			for k := a.RowPtr[row]; k < a.RowPtr[row+1]; k++ {
				j := a.ColIdx[k]
				if o := owner[j]; o != int32(r) {
					q.Cut++
					ghosts[j] = true
					nb[o] = true
				}
			}
		}
		q.Ghosts, q.Neighbours = len(ghosts), len(nb)
		cut += q.Cut
	}
	return parts, cut
}
