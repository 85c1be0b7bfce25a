package blockamg_test

import (
	"math"
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
)

// TestUpperProducts: with AMG.UpperProducts the cycle and CG multiply by the level
// operators' upper copies; the solve reaches 1e-8 by the true residual (computed
// here with the whole matrix), in about the iterations of the full products (the
// same operators, summed in another order), and again after an Update with new
// values written into the solver's matrix (the copies take them).
func TestUpperProducts(t *testing.T) {
	if !bsr.UpperSupported(3) {
		t.Skip("no AVX2 and FMA here (or built with noasm): the upper products do not run")
	}
	A, b, B, err := fem.Ex56System(8, 0)
	if err != nil {
		t.Fatal(err)
	}
	ns := &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}
	full, err := blockamg.NewSolver(A.Clone(), ns, blockamg.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	opt := blockamg.DefaultOptions()
	opt.AMG.UpperProducts = true
	Aup := A.Clone()
	up, err := blockamg.NewSolver(Aup, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	trueResidual := func(M *bsr.Matrix, x []float64) float64 {
		r := make([]float64, len(b))
		M.MulVec(1, x, 0, r)
		nr, nb := 0.0, 0.0
		for i := range r {
			nr += (b[i] - r[i]) * (b[i] - r[i])
			nb += b[i] * b[i]
		}
		return math.Sqrt(nr / nb)
	}
	for step := 0; step < 2; step++ {
		if step == 1 { // new values on the same pattern, still symmetric
			A2 := A.Clone()
			for i := 0; i < A2.BlockRows; i++ { // every diagonal entry doubled
				for k := A2.RowPtr[i]; k < A2.RowPtr[i+1]; k++ {
					if int(A2.ColIdx[k]) == i {
						for p := 0; p < 3; p++ {
							A2.Val[9*k+int64(4*p)] *= 2
						}
					}
				}
			}
			A = A2
			if err := full.Update(A.Clone()); err != nil {
				t.Fatal(err)
			}
			// The upper solver's own matrix, changed in place: every copy is refreshed.
			copy(Aup.Val, A.Val)
			if err := up.Update(Aup); err != nil {
				t.Fatal(err)
			}
		}
		xf, xu := make([]float64, len(b)), make([]float64, len(b))
		rf, err := full.Solve(b, xf)
		if err != nil {
			t.Fatal(err)
		}
		ru, err := up.Solve(b, xu)
		if err != nil {
			t.Fatal(err)
		}
		if rel := trueResidual(A, xu); !(rel <= 1e-8) {
			t.Errorf("step %d: upper products: true relative residual %.3e after %d iterations, want ≤ 1e-8", step, rel, ru.Iterations)
		}
		if d := ru.Iterations - rf.Iterations; d < -1 || d > 1 {
			t.Errorf("step %d: %d iterations with the upper products, %d with the full ones", step, ru.Iterations, rf.Iterations)
		}
	}
}
