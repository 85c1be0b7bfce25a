package amg

import (
	"math"

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
// The QR is invariant under scaling B's columns (near-null vectors in any units,
// 1e±160 included: its norms are safe against overflow and underflow, see thinQR). It
// is made invariant under a diagonal scaling D·A·D of the operator, whose near-null
// space is D⁻¹·B, by weighting: an aggregate whose unknowns' √a_pp (agg.DiagExp, from
// Strength) spread by more than 2^24 is factored as W·B_agg = Q·R with W the powers
// of two of √a_pp (see rowWeights); P_tent's rows are then W⁻¹·Q, orthonormal in the
// W²-weighted inner product, and B_c is R. The coarse space is the same; the plain QR
// would have kept the aggregate's small rows only to ε over their scale, so that D·P,
// the prolongator as the unscaled system sees it, lost its meaning there. For the
// operators of real problems the QR is the plain one, bit for bit.
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
		var q, w []float64
		tau := make([]float64, k)
		for a := lo; a < hi; a++ {
			nodes := agg.Members(a)
			rows := len(nodes) * b
			mdata := max(rows, k)
			if cap(q) < mdata*k {
				q, w = make([]float64, mdata*k), make([]float64, mdata)
			}
			q, w = q[:mdata*k], w[:mdata]
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
			weighted := agg.DiagExp != nil && rowWeights(nodes, agg.DiagExp, b, w)
			if weighted {
				for j := 0; j < k; j++ {
					for p := 0; p < mdata; p++ {
						q[j*mdata+p] *= w[p]
					}
				}
			}
			thinQR(mdata, k, q, Bc[a*k*k:(a+1)*k*k], tau)
			if weighted {
				// W·B_agg = Q·R: P_tent's rows are W⁻¹·Q (exact: powers of two).
				for j := 0; j < k; j++ {
					for p := 0; p < mdata; p++ {
						q[j*mdata+p] /= w[p]
					}
				}
			}
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

// rowSpreadLog2 is the binary logarithm of the spread of the unknowns' scales √a_pp
// inside one aggregate beyond which Tentative weights the rows of its QR. Householder
// QR is backward stable column by column: a row ρ times smaller than the aggregate's
// largest is reproduced only to about ε/ρ of itself, 4·10⁻⁹ at ρ = 2⁻²⁴. The operators
// of real problems stay far below it inside an aggregate (√a_pp varies by 2⁵ across
// ex56's soft sphere at α = 10⁻³, by at most 2¹¹ on the data cases of
// /work/shared/data), so for them the QR is the plain one; a system scaled as D·A·D, whose near-null space is D⁻¹·B, crosses it as
// soon as D varies by more than 2²⁴ ≈ 1.7·10⁷ inside an aggregate, and so does a
// material contrast beyond 2⁴⁸ ≈ 3·10¹⁴, where weighting does no harm.
const rowSpreadLog2 = 24

// rowWeights writes the row weights of an aggregate's QR into w (one per row of q,
// padding rows included) and reports whether they are needed: when the exponents ex of
// √a_pp of its unknowns (nodes' b unknowns in order; unscaled marks an unknown whose
// a_pp gave none) spread by more than rowSpreadLog2, w_p = 2^(ex_p − max ex) (1 for
// unmarked and padding rows). B_agg is then factored as W·B_agg = Q·R, a QR in the
// inner product of the operator's diagonal: P_tent = W⁻¹·Q, B_c = R. For D·A·D with
// D⁻¹·B, W·D⁻¹·B is √diag(A)·B up to powers of two whatever D, so the basis, the
// coarse operator and the rest of the hierarchy are those of the unscaled system up to
// rounding (and a change of basis on the coarse levels).
func rowWeights(nodes []int32, ex []int16, b int, w []float64) bool {
	lo, hi := math.MaxInt16, math.MinInt16
	for _, v := range nodes {
		for _, e := range ex[int(v)*b : (int(v)+1)*b] {
			if e != unscaled {
				lo, hi = min(lo, int(e)), max(hi, int(e))
			}
		}
	}
	if hi < lo || hi-lo <= rowSpreadLog2 {
		return false
	}
	for p := range w {
		w[p] = 1
	}
	for t, v := range nodes {
		for p, e := range ex[int(v)*b : (int(v)+1)*b] {
			if e != unscaled {
				w[t*b+p] = math.Ldexp(1, int(e)-hi)
			}
		}
	}
	return true
}
