package backendtest

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// plainBackend hides a backend's optional interfaces (backend.CGStepper among them),
// so backend.PCG takes its generic path.
type plainBackend struct{ backend.Backend }

// flipAfter is block Jacobi whose output changes sign from its n-th application on:
// an indefinite preconditioner that breaks rᵀz down in the middle of a solve.
type flipAfter struct {
	backend.Jacobi
	n, calls int
}

func (f *flipAfter) Apply(r, z backend.Vector) {
	f.Jacobi.Apply(r, z)
	if f.calls++; f.calls >= f.n {
		f.Be.Scale(-1, z)
	}
}

// TestPCGStepper checks backend.PCG on a backend.CGStepper against its generic path
// on the same backend: the same iterations, residual history and solution (to 1e-12;
// bitwise on a backend whose stepper uses its own primitives), and the same
// *krylov.BreakdownError and *krylov.NotConvergedError, including a breakdown of rᵀz
// in the middle of the solve, which the stepper sees one iteration late. Backends
// without backend.CGStepper skip.
func TestPCGStepper(t *testing.T, be backend.Backend) {
	if _, ok := be.(backend.CGStepper); !ok {
		t.Skip("backend does not implement backend.CGStepper")
	}
	a, rhs := PCGProblem()
	neg := a.Clone()
	for i := range neg.Val {
		neg.Val[i] = -neg.Val[i]
	}
	type outcome struct {
		x   []float64
		res krylov.Result
		err error
	}
	solve := func(b backend.Backend, op *bsr.Matrix, opt krylov.Options, flip int) outcome {
		am, err := b.UploadMatrix(op, false)
		if err != nil {
			t.Fatal(err)
		}
		defer am.Free()
		m, err := backend.NewBlockJacobi(b, a)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Free()
		var pre backend.Preconditioner = backend.Jacobi{Be: b, D: m}
		if flip > 0 {
			pre = &flipAfter{Jacobi: backend.Jacobi{Be: b, D: m}, n: flip}
		}
		bv := vector(t, b, rhs)
		defer bv.Free()
		x := vector(t, b, NaNVec(len(rhs)))
		defer x.Free()
		res, err := backend.PCG(b, am, pre, bv, x, opt)
		return outcome{download(t, b, x), res, err}
	}
	hist := krylov.Options{RelTol: 1e-10, MaxIter: 2000, History: true}
	for _, tc := range []struct {
		name string
		op   *bsr.Matrix
		opt  krylov.Options
		flip int
	}{
		{"converges", a, hist, 0},
		{"not converged", a, krylov.Options{RelTol: 1e-12, MaxIter: 3, History: true}, 0},
		{"pᵀAp breakdown", neg, hist, 0},
		{"rᵀz breakdown at restart", a, hist, 1},
		{"rᵀz breakdown at iteration 3", a, hist, 4},
	} {
		got := solve(be, tc.op, tc.opt, tc.flip)
		want := solve(plainBackend{be}, tc.op, tc.opt, tc.flip)
		if got.res.Iterations != want.res.Iterations || len(got.res.History) != len(want.res.History) {
			t.Errorf("%s: %d iterations, %d residuals recorded; generic path %d, %d", tc.name,
				got.res.Iterations, len(got.res.History), want.res.Iterations, len(want.res.History))
			continue
		}
		for i := range got.res.History {
			if h, w := got.res.History[i], want.res.History[i]; math.Abs(h-w) > 1e-12*want.res.History[0] {
				t.Errorf("%s: residual %d: %v, generic path %v", tc.name, i, h, w)
				break
			}
		}
		var gb, wb *krylov.BreakdownError
		var gn, wn *krylov.NotConvergedError
		switch {
		case errors.As(want.err, &wb):
			if !errors.As(got.err, &gb) || gb.Iteration != wb.Iteration || gb.Quantity != wb.Quantity {
				t.Errorf("%s: error %v, generic path %v", tc.name, got.err, want.err)
			}
		case errors.As(want.err, &wn):
			if !errors.As(got.err, &gn) || gn.Iterations != wn.Iterations {
				t.Errorf("%s: error %v, generic path %v", tc.name, got.err, want.err)
			}
		case want.err != nil || got.err != nil:
			t.Errorf("%s: error %v, generic path %v", tc.name, got.err, want.err)
		}
		if want.err == nil {
			if e := relErr(got.x, want.x); e > 1e-12 {
				t.Errorf("%s: solutions differ by %.3g", tc.name, e)
			}
		}
		if tc.name == "rᵀz breakdown at iteration 3" && (wb == nil || wb.Iteration != 3) {
			t.Errorf("%s: the generic path's error is %v: the test case does not break down where it should", tc.name, want.err)
		}
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}
