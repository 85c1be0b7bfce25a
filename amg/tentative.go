package amg

import (
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Tentative builds the tentative prolongator and the coarse near-null space from the
// aggregates and the near-null space B of a level (b unknowns per node, k vectors,
// node-blocked row-major: node v's b×k block is B[v·b·k : (v+1)·b·k]).
//
// For each aggregate the rows of B of its nodes (in ascending node order) are stacked
// into an (size·b)×k matrix and factored B_agg = Q·R by a Householder QR. Q's rows go
// into P_tent: node v of aggregate a gets one b×k block in block column a, so P_tent
// has orthonormal columns per aggregate. R (k×k) becomes the near-null space of coarse
// node a, so P_tent·B_c = B on every aggregated node. An aggregate with fewer than k
// rows is padded with zero rows as PETSc does (P_tent·B_c = B still holds, but its
// columns are then dependent); Aggregate with minNodes = ⌈k/b⌉ avoids that.
//
// Nodes in no aggregate get an empty row. The work is split over aggregates, so the
// result does not depend on workers.
func Tentative(agg *Aggregates, B []float64, b, k, workers int) (P *bsr.Matrix, Bc []float64) {
	n := len(agg.Of)
	if len(B) != n*b*k {
		panic("amg: Tentative: near-null space size mismatch")
	}
	m := agg.Count
	P = &bsr.Matrix{BlockRows: n, BlockCols: m, R: b, C: k, RowPtr: make([]int64, n+1)}
	for v, a := range agg.Of {
		P.RowPtr[v+1] = P.RowPtr[v]
		if a >= 0 {
			P.RowPtr[v+1]++
		}
	}
	P.ColIdx = make([]int32, P.RowPtr[n])
	P.Val = make([]float64, P.RowPtr[n]*int64(b*k))
	for v, a := range agg.Of {
		if a >= 0 {
			P.ColIdx[P.RowPtr[v]] = a
		}
	}
	Bc = make([]float64, m*k*k)
	bk := b * k
	par.ForWeighted(agg.Ptr, workers, int64(minChunk)/8, func(lo, hi int) {
		var q []float64
		tau := make([]float64, k)
		for a := lo; a < hi; a++ {
			nodes := agg.Members(a)
			rows := len(nodes) * b
			mdata := max(rows, k)
			if cap(q) < mdata*k {
				q = make([]float64, mdata*k)
			}
			q = q[:mdata*k]
			clear(q)
			// Gather the aggregate's rows of B column-major (QR runs down columns).
			for t, v := range nodes {
				blk := B[int(v)*bk : (int(v)+1)*bk]
				for p := 0; p < b; p++ {
					for j := 0; j < k; j++ {
						q[j*mdata+t*b+p] = blk[p*k+j]
					}
				}
			}
			thinQR(mdata, k, q, Bc[a*k*k:(a+1)*k*k], tau)
			for t, v := range nodes {
				blk := P.Block(P.RowPtr[v])
				for p := 0; p < b; p++ {
					for j := 0; j < k; j++ {
						blk[p*k+j] = q[j*mdata+t*b+p]
					}
				}
			}
		}
	})
	return P, Bc
}
