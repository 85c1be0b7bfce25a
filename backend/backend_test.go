package backend_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/backendtest"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

func TestCounters(t *testing.T) {
	var c backend.Counters
	c.AddH2D("setup", 100)
	c.AddH2D("setup", 20)
	c.AddD2H("solve", 8)
	if got := c.Phase("setup"); got.H2DBytes != 120 || got.H2DCalls != 2 || got.D2HBytes != 0 {
		t.Errorf("setup = %+v", got)
	}
	if got := c.Total(); got.H2DBytes != 120 || got.D2HBytes != 8 || got.D2HCalls != 1 {
		t.Errorf("total = %+v", got)
	}
	if p := c.Phases(); len(p) != 2 || p[0] != "setup" || p[1] != "solve" {
		t.Errorf("phases = %v", p)
	}
	var sb strings.Builder
	if err := c.Write(&sb); err != nil || !strings.Contains(sb.String(), "solve") {
		t.Errorf("Write: %v, %q", err, sb.String())
	}
	c.Reset()
	if got := c.Total(); got != (backend.Traffic{}) {
		t.Errorf("after Reset: %+v", got)
	}
}

// pcgSetup uploads op (the matrix PCG iterates with), the block Jacobi of a and the
// right-hand side rhs to a CPU backend, with a zero initial guess x.
func pcgSetup(t *testing.T, op, a *bsr.Matrix, rhs []float64) (be *cpu.Backend, am backend.Matrix, m backend.BlockDiag, b, x backend.Vector) {
	t.Helper()
	be = cpu.New(0)
	am, err := be.UploadMatrix(op, false)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = backend.NewBlockJacobi(be, a); err != nil {
		t.Fatal(err)
	}
	b, _ = be.NewVector(len(rhs))
	x, _ = be.NewVector(len(rhs))
	be.Upload(b, rhs)
	return be, am, m, b, x
}

func TestPCGNotConverged(t *testing.T) {
	a, rhs := backendtest.PCGProblem()
	be, am, m, b, x := pcgSetup(t, a, a, rhs)
	res, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, krylov.Options{RelTol: 1e-12, MaxIter: 3})
	var nc *krylov.NotConvergedError
	if !errors.As(err, &nc) || res.Iterations != 3 {
		t.Fatalf("3 iterations: err %v, result %+v", err, res)
	}
}

func TestPCGZeroRHS(t *testing.T) {
	a, _ := backendtest.PCGProblem()
	be := cpu.New(0)
	am, _ := be.UploadMatrix(a, false)
	m, _ := backend.NewBlockJacobi(be, a)
	b, _ := be.NewVector(a.Rows())
	x, _ := be.NewVector(a.Rows())
	ones := make([]float64, a.Rows())
	for i := range ones {
		ones[i] = 1
	}
	be.Upload(x, ones)
	res, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, krylov.DefaultOptions())
	out := make([]float64, a.Rows())
	be.Download(out, x)
	if err != nil || res.Iterations != 0 || out[0] != 0 {
		t.Fatalf("zero rhs: err %v, %+v, x[0] = %v (want 0)", err, res, out[0])
	}
}

// TestPCGIndefinite checks the breakdown error on a negative definite matrix.
func TestPCGIndefinite(t *testing.T) {
	a, rhs := backendtest.PCGProblem()
	neg := a.Clone()
	for i := range neg.Val {
		neg.Val[i] = -neg.Val[i]
	}
	// Block Jacobi of A (positive), so that the operator is the one to blame.
	be, am, m, b, x := pcgSetup(t, neg, a, rhs)
	var bd *krylov.BreakdownError
	if _, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, krylov.DefaultOptions()); !errors.As(err, &bd) {
		t.Fatalf("negative definite matrix: err %v, want *krylov.BreakdownError", err)
	}
	// A singular diagonal block is reported by NewBlockJacobi.
	z := bsr.Zeros(2, 2, 3, 3)
	if _, err := backend.NewBlockJacobi(be, z); !errors.Is(err, bsr.ErrSingular) {
		t.Fatalf("zero matrix: err %v, want bsr.ErrSingular", err)
	}
}

// TestPCGBadOptions: tolerances that are NaN, negative or infinite and a negative
// iteration limit are errors wrapping krylov.ErrTolerance (as for krylov.CG), and x is
// left alone.
func TestPCGBadOptions(t *testing.T) {
	a, rhs := backendtest.PCGProblem()
	be, am, m, b, x := pcgSetup(t, a, a, rhs)
	for _, opt := range []krylov.Options{
		{RelTol: math.NaN(), MaxIter: 10},
		{RelTol: -1, MaxIter: 10},
		{RelTol: math.Inf(1), MaxIter: 10},
		{RelTol: 1e-8, AbsTol: math.NaN(), MaxIter: 10},
		{RelTol: 1e-8, MaxIter: -1},
	} {
		res, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, opt)
		if !errors.Is(err, krylov.ErrTolerance) || res.Iterations != 0 {
			t.Errorf("%+v: err %v, result %+v", opt, err, res)
		}
	}
	out := make([]float64, len(rhs))
	be.Download(out, x)
	for i, v := range out {
		if v != 0 {
			t.Fatalf("x[%d] = %v after rejected options, want 0", i, v)
		}
	}
}

// plain hides the CPU backend's backend.CGStepper.
type plain struct{ backend.Backend }

// TestPCGStepperBitwise: on the CPU backend, whose CGStepper runs the generic path's
// own primitives, the stepper's iterates are bitwise those of the generic path.
func TestPCGStepperBitwise(t *testing.T) {
	a, rhs := backendtest.PCGProblem()
	be, am, m, b, x := pcgSetup(t, a, a, rhs)
	opt := krylov.Options{RelTol: 1e-10, MaxIter: 500, History: true}
	res, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, opt)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, len(rhs))
	be.Download(got, x)
	pb := plain{be}
	res2, err := backend.PCG(pb, am, backend.Jacobi{Be: pb, D: m}, b, x, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(rhs))
	be.Download(want, x)
	if res.Iterations != res2.Iterations || len(res.History) != len(res2.History) {
		t.Fatalf("stepper %d iterations, generic %d", res.Iterations, res2.Iterations)
	}
	for i := range res.History {
		if math.Float64bits(res.History[i]) != math.Float64bits(res2.History[i]) {
			t.Fatalf("residual %d: stepper %v, generic %v", i, res.History[i], res2.History[i])
		}
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("x[%d]: stepper %v, generic %v", i, got[i], want[i])
		}
	}
}

// TestPCGWorkReuse: solves through one PCGWork (its vectors kept between them, dirty
// from the last solve) give the bits of fresh PCG calls, for two sizes in turn.
func TestPCGWorkReuse(t *testing.T) {
	var w backend.PCGWork
	defer w.Free()
	opt := krylov.Options{RelTol: 1e-10, MaxIter: 500}
	for _, grid := range []int{7, 5, 7} {
		a := backendtest.SPDProblem(42, grid, 0.05)
		rhs := make([]float64, a.Rows())
		for i := range rhs {
			rhs[i] = math.Sin(float64(i))
		}
		be, am, m, b, x := pcgSetup(t, a, a, rhs)
		res, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, opt)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, len(rhs))
		be.Download(want, x)
		for rep := 0; rep < 2; rep++ {
			res2, err := w.Solve(be, am, backend.Jacobi{Be: be, D: m}, b, x, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(rhs))
			be.Download(got, x)
			if res2.Iterations != res.Iterations || res2.Residual != res.Residual {
				t.Fatalf("grid %d, solve %d: %+v, fresh PCG %+v", grid, rep, res2, res)
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("grid %d, solve %d: x[%d] = %v, fresh PCG %v", grid, rep, i, got[i], want[i])
				}
			}
		}
	}
}

// TestPCGStagnation: with a tolerance no floating-point iterate can meet, CG on an SPD
// system runs until rounding breaks its recurrence; that must be reported as
// stagnation with the true residual, not as an indefinite operator. A genuinely
// indefinite operator still breaks down as such (TestPCGIndefinite).
func TestPCGStagnation(t *testing.T) {
	a := backendtest.SPDProblem(3, 6, 0.05)
	rhs := make([]float64, a.Rows())
	for i := range rhs {
		rhs[i] = math.Sin(float64(i) + 1)
	}
	be, am, m, b, x := pcgSetup(t, a, a, rhs)
	opt := krylov.Options{RelTol: 0, AbsTol: 0, MaxIter: 500}
	for name, step := range map[string]backend.Backend{"generic": plain{be}, "stepper": be} {
		_, err := backend.PCG(step, am, backend.Jacobi{Be: step, D: m}, b, x, opt)
		var nc *krylov.NotConvergedError
		if !errors.As(err, &nc) || !nc.Stagnated || !errors.Is(err, krylov.ErrNotConverged) {
			t.Fatalf("%s: rtol = atol = 0: %v, want stagnation (*krylov.NotConvergedError with Stagnated)", name, err)
		}
		if !(nc.Residual < 1e-10*math.Sqrt(float64(len(rhs)))) {
			t.Errorf("%s: stagnated at true residual %g", name, nc.Residual)
		}
		if !strings.Contains(err.Error(), "unattainable") {
			t.Errorf("%s: message %q does not say the tolerance is unattainable", name, err)
		}
	}
}
