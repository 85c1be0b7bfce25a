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
	// DiagExp holds, per scalar unknown p (node i's b unknowns at i·b … i·b+b−1), the
	// binary exponent of √a_pp, the scale of the unknown (unscaled, math.MinInt16,
	// where a_pp is not positive); Aggregate passes it on for Tentative's row weights.
	// nil when unknown (a Graph built by hand).
	DiagExp []int16
}

// unscaled marks an unknown without a scale in Graph.DiagExp and Aggregates.DiagExp.
const unscaled = math.MinInt16

// diagExp returns the binary exponent of √a for a diagonal entry a: ⌊e/2⌋ for
// a = f·2^e, f in [0.5, 1), so that 2^diagExp(a) is within a factor 2 of √a; unscaled
// for a ≤ 0, NaN or ±Inf.
func diagExp(a float64) int16 {
	if !(a > 0) || math.IsInf(a, 0) {
		return unscaled
	}
	_, e := math.Frexp(a)
	return int16(e >> 1)
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
// block is an error naming the block row. The graph also records the scale √a_pp of
// every unknown (Graph.DiagExp) for the tentative prolongator.
func Strength(A *bsr.Matrix, threshold float64, workers int) (*Graph, error) {
	if A.BlockRows != A.BlockCols || A.R != A.C {
		panic("amg: Strength: matrix not square-blocked")
	}
	n := A.BlockRows
	bs := A.R * A.C
	block := func(k int64) []float64 { return A.Val[k*int64(bs) : (k+1)*int64(bs)] }
	// Squared norms come from bsr.SumSquares: the plain sum of squares wherever it
	// neither underflows nor overflows (every block of a sanely scaled matrix), and
	// otherwise a mantissa and a power-of-four exponent computed on the block scaled by
	// a power of two, so that blocks beyond 1e±154 (D·A·D with D spanning many orders,
	// a matrix scaled by 2^±600) are measured as exactly as the others.
	//
	// Diagonal norms: diag[i]·2^dexp[i] = ‖A_ii‖ (dexp 0 and diag[i] the plain root
	// for a block whose plain sum is in range), with the lowest bad row reported
	// whatever the split.
	diag := make([]float64, n)
	dexp := make([]int, n)
	bad := make([]bool, n)
	b := A.R
	uexp := make([]int16, n*b)
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			diag[i], dexp[i] = 0, 0
			for p := 0; p < b; p++ {
				uexp[i*b+p] = unscaled
			}
			if k, ok := A.Find(i, i); ok {
				s, e := bsr.SumSquares(block(k))
				diag[i], dexp[i] = math.Sqrt(s), e
				for p := 0; p < b; p++ {
					uexp[i*b+p] = diagExp(block(k)[p*b+p])
				}
			}
			bad[i] = !(diag[i] > 0) || math.IsInf(diag[i], 0)
		}
	})
	if first := slices.Index(bad, true); first >= 0 {
		return nil, fmt.Errorf("%w: block row %d: diagonal block missing, zero or not finite", ErrInput, first)
	}
	// keep[k] marks the strong off-diagonal blocks. ‖A_ij‖/√(d_i·d_j) > θ is tested as
	// ‖A_ij‖² > θ²·d_i·d_j (θ ≥ 0): no root and no division per block; a negative θ
	// keeps every stored off-diagonal block and needs no norm at all. Where a norm
	// needed its scaled form, or θ²·d_i·d_j overflows, the test is made on mantissas
	// and exponents instead (strong): the same comparison, without leaving the range.
	keep := make([]bool, A.NNZBlocks())
	th2 := threshold * threshold
	sPtr := make([]int64, n+1)
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c := int64(0)
			for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
				j := int(A.ColIdx[k])
				if j == i {
					continue
				}
				if threshold >= 0 {
					s, e := bsr.SumSquares(block(k))
					if r := th2 * diag[i] * diag[j]; e == 0 && dexp[i] == 0 && dexp[j] == 0 && !math.IsInf(r, 0) {
						if !(s > r) {
							continue
						}
					} else if !strong(s, 2*e, th2, diag[i], dexp[i], diag[j], dexp[j]) {
						continue
					}
				}
				keep[k] = true
				c++
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
	g := symmetrize(n, sPtr, sAdj, workers)
	g.DiagExp = uexp
	return g, nil
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

// strong reports whether s·2^es > th2·(di·2^ei)·(dj·2^ej) for finite non-negative
// factors, without forming a product that could overflow or underflow: each factor
// is split into a mantissa in [0.5, 1) and an exponent, the mantissas are multiplied
// (no under- or overflow) and the exponents added; only the final comparison scales a
// mantissa, and math.Ldexp saturates to 0 or +Inf exactly where the answer is
// decided by the exponents alone.
func strong(s float64, es int, th2, di float64, ei int, dj float64, ej int) bool {
	ms, xs := math.Frexp(s)
	mt, xt := math.Frexp(th2)
	mi, xi := math.Frexp(di)
	mj, xj := math.Frexp(dj)
	return ms > math.Ldexp(mt*mi*mj, xt+xi+xj+ei+ej-xs-es)
}
