package amg

import (
	"fmt"
	"math"
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Graph is the strength-of-connection graph between the nodes (block rows) of a level:
// symmetric, without self-loops, each adjacency list sorted.
type Graph struct {
	Nodes  int     // block rows of the level's operator
	RowPtr []int64 // len Nodes+1
	Adj    []int32 // neighbours of node i: Adj[RowPtr[i]:RowPtr[i+1]]
}

// Neighbors returns the sorted neighbours of node i (aliasing g.Adj).
func (g *Graph) Neighbors(i int) []int32 { return g.Adj[g.RowPtr[i]:g.RowPtr[i+1]] }

// Degree returns the number of neighbours of node i.
func (g *Graph) Degree(i int) int { return int(g.RowPtr[i+1] - g.RowPtr[i]) }

// Strength builds the strength graph of a square-blocked matrix as GAMG does on its
// scalar node graph: each block is reduced to its Frobenius norm, the norms are scaled
// symmetrically, s_ij = ‖A_ij‖ / √(‖A_ii‖‖A_jj‖), and the edge i–j is kept when
// s_ij > threshold (a negative threshold keeps every stored block, explicit zeros
// included). The result is symmetrised (an edge kept in either direction is kept), so
// a structurally unsymmetric A still gives a valid graph. A missing or zero diagonal
// block is an error naming the block row.
func Strength(A *bsr.Matrix, threshold float64, workers int) (*Graph, error) {
	if A.BlockRows != A.BlockCols || A.R != A.C {
		panic("amg: Strength: matrix not square-blocked")
	}
	n := A.BlockRows
	bs := A.R * A.C
	// Squared norms are plain sums of squares, which overflow for entries beyond about
	// 1e154 and underflow below 1e-154. The strength test is invariant under scaling A,
	// so when the diagonal norms come out zero or infinite for a matrix whose entries
	// are that large or small, they are recomputed on A scaled by a power of two (exact,
	// the same decisions as for a well-scaled A).
	scale := 1.0
	norm2 := func(k int64) float64 {
		s := 0.0
		for _, v := range A.Val[k*int64(bs) : (k+1)*int64(bs)] {
			v *= scale
			s += v * v
		}
		return s
	}
	// Diagonal norms, with the lowest bad row reported whatever the split.
	diag := make([]float64, n)
	bad := make([]bool, n)
	diagNorms := func() int {
		par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				diag[i] = 0
				k, ok := A.Find(i, i)
				if ok {
					diag[i] = math.Sqrt(norm2(k))
				}
				bad[i] = !(diag[i] > 0) || math.IsInf(diag[i], 0)
			}
		})
		return slices.Index(bad, true)
	}
	first := diagNorms()
	if first >= 0 {
		if s, ok := rescale(A.Val); ok {
			scale = s
			first = diagNorms()
		}
	}
	if first >= 0 {
		return nil, fmt.Errorf("%w: block row %d: diagonal block missing, zero or not finite", ErrInput, first)
	}
	// keep[k] marks the strong off-diagonal blocks. ‖A_ij‖/√(d_i·d_j) > θ is tested as
	// ‖A_ij‖² > θ²·d_i·d_j (θ ≥ 0): no root and no division per block; a negative θ
	// keeps every stored off-diagonal block and needs no norm at all.
	keep := make([]bool, A.NNZBlocks())
	th2 := threshold * threshold
	sPtr := make([]int64, n+1)
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := int64(0)
			for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
				j := int(A.ColIdx[k])
				if j != i && (threshold < 0 || norm2(k) > th2*diag[i]*diag[j]) {
					keep[k] = true
					c++
				}
			}
			sPtr[i+1] = c
		}
	})
	for i := 0; i < n; i++ {
		sPtr[i+1] += sPtr[i]
	}
	sAdj := make([]int32, sPtr[n])
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := sPtr[i]
			for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
				if keep[k] {
					sAdj[p] = A.ColIdx[k]
					p++
				}
			}
		}
	})
	return symmetrize(n, sPtr, sAdj, workers), nil
}

// symmetrize returns the graph S ∪ Sᵀ: S itself when it is already symmetric (the
// usual case, checked by binary searches without allocating), else the sorted merge of
// each row of S with the same row of Sᵀ (filled in row order, hence sorted).
func symmetrize(n int, sPtr []int64, sAdj []int32, workers int) *Graph {
	asym := make([]bool, n)
	par.For(n, workers, minChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for _, j := range sAdj[sPtr[i]:sPtr[i+1]] {
				if _, ok := slices.BinarySearch(sAdj[sPtr[j]:sPtr[j+1]], int32(i)); !ok {
					asym[i] = true
					break
				}
			}
		}
	})
	if !slices.Contains(asym, true) {
		return &Graph{Nodes: n, RowPtr: sPtr, Adj: sAdj}
	}
	tPtr := make([]int64, n+1)
	for _, j := range sAdj {
		tPtr[j+1]++
	}
	for i := 0; i < n; i++ {
		tPtr[i+1] += tPtr[i]
	}
	tAdj := make([]int32, len(sAdj))
	next := append([]int64(nil), tPtr[:n]...)
	for i := 0; i < n; i++ {
		for _, j := range sAdj[sPtr[i]:sPtr[i+1]] {
			tAdj[next[j]] = int32(i)
			next[j]++
		}
	}
	// merge calls emit on the sorted union of row i of S and of Sᵀ.
	merge := func(i int, emit func(int32)) {
		a, b := sAdj[sPtr[i]:sPtr[i+1]], tAdj[tPtr[i]:tPtr[i+1]]
		for len(a) > 0 || len(b) > 0 {
			switch {
			case len(b) == 0 || (len(a) > 0 && a[0] < b[0]):
				emit(a[0])
				a = a[1:]
			case len(a) == 0 || b[0] < a[0]:
				emit(b[0])
				b = b[1:]
			default:
				emit(a[0])
				a, b = a[1:], b[1:]
			}
		}
	}
	g := &Graph{Nodes: n, RowPtr: make([]int64, n+1)}
	par.For(n, workers, minChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := int64(0)
			merge(i, func(int32) { c++ })
			g.RowPtr[i+1] = c
		}
	})
	for i := 0; i < n; i++ {
		g.RowPtr[i+1] += g.RowPtr[i]
	}
	g.Adj = make([]int32, g.RowPtr[n])
	par.For(n, workers, minChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := g.RowPtr[i]
			merge(i, func(j int32) { g.Adj[p] = j; p++ })
		}
	})
	return g
}

// rescale returns a power of two that brings the largest magnitude in v near 1, and
// whether v needs it: its largest magnitude is finite, non-zero and beyond 2^±400,
// where squares of its entries (or of the smaller ones) leave the float64 range.
func rescale(v []float64) (float64, bool) {
	amax := 0.0
	for _, x := range v {
		amax = math.Max(amax, math.Abs(x))
	}
	if !(amax > 0) || math.IsInf(amax, 0) {
		return 1, false
	}
	_, e := math.Frexp(amax)
	if e > -400 && e < 400 {
		return 1, false
	}
	return math.Ldexp(1, -e), true
}
