package amg

import (
	"testing"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/krylov"
)

// ex56 returns PETSc ex56's matrix, right-hand side and orthonormal rigid-body modes.
func ex56(t testing.TB, ne int) (*bsr.Matrix, []float64, *NullSpace) {
	t.Helper()
	A, rhs, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	return A, rhs, &NullSpace{Rows: A.Rows(), Cols: 6, Data: B}
}

func solveCG(t testing.TB, h *Hierarchy, b []float64) (krylov.Result, []float64) {
	t.Helper()
	x := make([]float64, len(b))
	opt := krylov.DefaultOptions()
	opt.History = true
	opt.Workers = h.Opt.Workers
	res, err := refCG(h, b, x, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, x
}

func TestEx56Iterations(t *testing.T) {
	for _, tc := range []struct{ ne, petsc int }{{9, 16}, {11, 17}} {
		A, b, ns := ex56(t, tc.ne)
		opt := DefaultOptions()
		h, err := Setup(A, ns, opt)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := solveCG(t, h, b)
		for _, li := range h.Info() {
			t.Logf("level %d: rows %d nnzb %d aggs %d eig [%.3g %.3g]", li.Level, li.Rows, li.NNZBlocks, li.Aggregates, li.EigMin, li.EigMax)
		}
		t.Logf("ne=%d: %d iterations (PETSc %d), oc %.3f", tc.ne, res.Iterations, tc.petsc, h.OperatorComplexity())
		if res.Iterations > tc.petsc {
			t.Errorf("ne=%d: %d iterations, PETSc needs %d", tc.ne, res.Iterations, tc.petsc)
		}
	}
}
