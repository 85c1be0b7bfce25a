package amg

import (
	"slices"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// smoothPlan computes one Jacobi smoothing step of a prolongator,
//
//	Y = X − ω·D⁻¹·A·X,
//
// on a pattern computed once (the pattern of A·X together with that of X) and reused
// by every numeric call: re-setup with new values of A only refills Y.Val.
type smoothPlan struct {
	Y *bsr.Matrix // result: A.BlockRows×X.BlockCols blocks of X.R×X.C
}

// newSmoothPlan computes the pattern of Y from the patterns of A (n×n blocks) and X
// (n×m blocks). Rows are independent, so the pattern is the same for any workers.
func newSmoothPlan(A, X *bsr.Matrix, workers int) *smoothPlan {
	n, m := A.BlockRows, X.BlockCols
	Y := &bsr.Matrix{BlockRows: n, BlockCols: m, R: X.R, C: X.C, RowPtr: make([]int64, n+1)}
	// rowCols visits the distinct columns of row i of A·X ∪ X, using mark (len m, all
	// entries ≠ i on entry) to skip repeats.
	rowCols := func(i int, mark []int32, visit func(c int32)) {
		see := func(j int) {
			for t := X.RowPtr[j]; t < X.RowPtr[j+1]; t++ {
				if c := X.ColIdx[t]; mark[c] != int32(i) {
					mark[c] = int32(i)
					visit(c)
				}
			}
		}
		see(i)
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			see(int(A.ColIdx[k]))
		}
	}
	newMark := func() []int32 {
		mark := make([]int32, m)
		for c := range mark {
			mark[c] = -1
		}
		return mark
	}
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		mark := newMark()
		for i := lo; i < hi; i++ {
			c := int64(0)
			rowCols(i, mark, func(int32) { c++ })
			Y.RowPtr[i+1] = c
		}
	})
	for i := 0; i < n; i++ {
		Y.RowPtr[i+1] += Y.RowPtr[i]
	}
	Y.ColIdx = make([]int32, Y.RowPtr[n])
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		mark := newMark()
		for i := lo; i < hi; i++ {
			p := Y.RowPtr[i]
			rowCols(i, mark, func(c int32) { Y.ColIdx[p] = c; p++ })
			slices.Sort(Y.ColIdx[Y.RowPtr[i]:p])
		}
	})
	Y.Val = make([]float64, Y.RowPtr[n]*int64(Y.R*Y.C))
	return &smoothPlan{Y: Y}
}

// SmoothPattern returns a matrix with the pattern of one Jacobi smoothing step of X,
// A·X ∪ X (rows sorted), and zero values: the pattern Setup gives the smoothed
// prolongator, for a set-up made elsewhere to be checked or mirrored against.
func SmoothPattern(A, X *bsr.Matrix, workers int) *bsr.Matrix { return newSmoothPlan(A, X, workers).Y }

// numeric fills Y for the current values of A and X, the block inverses dinv of A's
// diagonal (n consecutive b×b blocks) and the weight omega. Every row of Y is summed by
// one goroutine in the order of A's and X's storage, so the bits do not depend on
// workers.
//
// Every value of Y is written (none is read), so Y.Val may hold anything on entry.
func (s *smoothPlan) numeric(A, X *bsr.Matrix, dinv []float64, omega float64, workers int) {
	Y := s.Y
	b, k := X.R, X.C
	bb, bk := int64(b*b), int64(b*k)
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		pos := make([]int32, Y.BlockCols) // column → offset in the current row of Y
		var acc []float64
		tmp := make([]float64, bk)
		for i := lo; i < hi; i++ {
			y0, y1 := Y.RowPtr[i], Y.RowPtr[i+1]
			for t := y0; t < y1; t++ {
				pos[Y.ColIdx[t]] = int32(t - y0)
			}
			acc = slices.Grow(acc[:0], int((y1-y0)*bk))[:(y1-y0)*bk]
			clear(acc)
			// acc = (A·X)_i
			for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
				j := A.ColIdx[a]
				ablk := A.Val[a*bb : (a+1)*bb]
				for t := X.RowPtr[j]; t < X.RowPtr[j+1]; t++ {
					o := int64(pos[X.ColIdx[t]]) * bk
					bsr.GemmAcc(b, b, k, ablk, X.Val[t*bk:(t+1)*bk], acc[o:o+bk])
				}
			}
			// Y_i = X_i − ω·D⁻¹_i·acc
			d := dinv[int64(i)*bb : int64(i+1)*bb]
			for t := y0; t < y1; t++ {
				out := Y.Val[t*bk : (t+1)*bk]
				clear(out)
			}
			for t := X.RowPtr[i]; t < X.RowPtr[i+1]; t++ {
				o := (y0 + int64(pos[X.ColIdx[t]])) * bk
				copy(Y.Val[o:o+bk], X.Val[t*bk:(t+1)*bk])
			}
			for t := y0; t < y1; t++ {
				clear(tmp)
				bsr.GemmAcc(b, b, k, d, acc[(t-y0)*bk:(t-y0+1)*bk], tmp)
				out := Y.Val[t*bk : (t+1)*bk]
				for q, v := range tmp {
					out[q] -= omega * v
				}
			}
		}
	})
}

// A level smooths its tentative prolongator AggNSmooths times: Ptent = Y₀ → Y₁ → … →
// Y_N = Psmooth, one smoothPlan per step. An intermediate Y_s (0 < s < N) is read only
// by the next step, so its values live only while the chain runs: between set-ups a
// level keeps the final prolongator's values and the intermediate steps' patterns
// (what Update and a device upload need; Level.SmoothSteps returns them with Val nil),
// not N arrays of values — 6.2 GB at N = 200 on a 6.6k-unknown problem when every
// step kept its own. The steps and their order of operations are the same either way,
// so the bits are too.

// newSmoothChain computes the plans and values of n smoothing steps of Ptent and
// returns them with the smoothed prolongator Y_n (Ptent itself for n = 0). Each
// intermediate step's values are dropped once the next step has read them.
func newSmoothChain(A, Ptent *bsr.Matrix, dinv []float64, omega float64, n, workers int) ([]*smoothPlan, *bsr.Matrix) {
	plans := make([]*smoothPlan, 0, n)
	X := Ptent
	for s := 0; s < n; s++ {
		sp := newSmoothPlan(A, X, workers)
		sp.numeric(A, X, dinv, omega, workers)
		if s > 0 {
			X.Val = nil
		}
		plans = append(plans, sp)
		X = sp.Y
	}
	return plans, X
}

// runSmoothChain refills the chain of plans (from newSmoothChain) for new values of A,
// dinv and omega and returns the smoothed prolongator, the last plan's Y (Ptent without
// plans). The intermediate steps alternate between two scratch arrays, each as long as
// the largest of its parity (patterns only grow along the chain), dropped at the end.
func runSmoothChain(plans []*smoothPlan, A, Ptent *bsr.Matrix, dinv []float64, omega float64, workers int) *bsr.Matrix {
	var need [2]int64
	for s, sp := range plans[:max(len(plans)-1, 0)] {
		need[s%2] = max(need[s%2], sp.Y.RowPtr[sp.Y.BlockRows]*int64(sp.Y.R*sp.Y.C))
	}
	scratch := [2][]float64{make([]float64, need[0]), make([]float64, need[1])}
	X := Ptent
	for s, sp := range plans {
		last := s == len(plans)-1
		if !last {
			sp.Y.Val = scratch[s%2][:sp.Y.RowPtr[sp.Y.BlockRows]*int64(sp.Y.R*sp.Y.C)]
		}
		sp.numeric(A, X, dinv, omega, workers)
		X = sp.Y
	}
	for _, sp := range plans[:max(len(plans)-1, 0)] {
		sp.Y.Val = nil
	}
	return X
}
