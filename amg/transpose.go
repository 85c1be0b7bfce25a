package amg

import (
	"blockamg/bsr"
	"blockamg/internal/par"
)

// transposePlan forms R = Pᵀ once and refreshes its values when P's change: the
// restriction is stored explicitly so that it runs as a row-parallel product like any
// other (Pᵀ·r by columns of P would need atomics or a column split on a GPU).
type transposePlan struct {
	R    *bsr.Matrix
	perm []int64 // block t of R is the transpose of block perm[t] of P
}

// newTransposePlan computes the pattern of Pᵀ and fills its values.
func newTransposePlan(P *bsr.Matrix, workers int) *transposePlan {
	n, m := P.BlockRows, P.BlockCols
	R := &bsr.Matrix{BlockRows: m, BlockCols: n, R: P.C, C: P.R, RowPtr: make([]int64, m+1)}
	for _, c := range P.ColIdx {
		R.RowPtr[c+1]++
	}
	for c := 0; c < m; c++ {
		R.RowPtr[c+1] += R.RowPtr[c]
	}
	nnz := R.RowPtr[m]
	R.ColIdx = make([]int32, nnz)
	perm := make([]int64, nnz)
	next := append([]int64(nil), R.RowPtr[:m]...)
	for i := 0; i < n; i++ {
		for k := P.RowPtr[i]; k < P.RowPtr[i+1]; k++ {
			c := P.ColIdx[k]
			R.ColIdx[next[c]] = int32(i)
			perm[next[c]] = k
			next[c]++
		}
	}
	R.Val = make([]float64, nnz*int64(P.R*P.C))
	tp := &transposePlan{R: R, perm: perm}
	tp.numeric(P, workers)
	return tp
}

// numeric copies P's current values, transposed, into R.
func (tp *transposePlan) numeric(P *bsr.Matrix, workers int) {
	r, c := P.R, P.C
	bs := int64(r * c)
	R := tp.R
	par.For(len(tp.perm), workers, minChunk, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			src := P.Val[tp.perm[t]*bs : (tp.perm[t]+1)*bs]
			dst := R.Val[int64(t)*bs : int64(t+1)*bs]
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					dst[j*r+i] = src[i*c+j]
				}
			}
		}
	})
}
