package krylov

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// dense is a dense row-major operator for tests.
type dense struct {
	n int
	a []float64
}

func (d dense) Apply(x, y []float64) {
	for i := 0; i < d.n; i++ {
		s := 0.0
		for j := 0; j < d.n; j++ {
			s += d.a[i*d.n+j] * x[j]
		}
		y[i] = s
	}
}

// jacobi is point Jacobi for a dense matrix.
type jacobi struct{ d dense }

func (j jacobi) Apply(r, z []float64) {
	for i := range r {
		z[i] = r[i] / j.d.a[i*j.d.n+i]
	}
}

// randomSPD returns Qᵀ·diag(eig)·Q with a random orthogonal Q (fixed seed).
func randomSPD(n int, eig []float64, seed uint64) dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += q.At(i, k) * eig[k] * q.At(j, k)
			}
			a[i*n+j] = s
		}
	}
	// Symmetrise exactly.
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			v := 0.5 * (a[i*n+j] + a[j*n+i])
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	return dense{n, a}
}

func denseSolve(t *testing.T, d dense, b []float64) []float64 {
	t.Helper()
	var x mat.VecDense
	if err := x.SolveVec(mat.NewDense(d.n, d.n, d.a), mat.NewVecDense(d.n, b)); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

func TestCGMatchesDenseSolve(t *testing.T) {
	n := 60
	eig := make([]float64, n)
	for i := range eig {
		eig[i] = math.Pow(10, 4*float64(i)/float64(n-1)) // condition 1e4
	}
	A := randomSPD(n, eig, 7)
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	want := denseSolve(t, A, b)
	for _, tc := range []struct {
		name string
		M    Preconditioner
		x0   float64
	}{{"none", nil, 0}, {"jacobi", jacobi{A}, 0}, {"jacobi-x0", jacobi{A}, 0.5}} {
		t.Run(tc.name, func(t *testing.T) {
			x := make([]float64, n)
			for i := range x {
				x[i] = tc.x0
			}
			opt := DefaultOptions()
			opt.RelTol = 1e-12
			opt.History = true
			res, err := CG(A, tc.M, b, x, opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.History) != res.Iterations+1 {
				t.Errorf("history has %d entries for %d iterations", len(res.History), res.Iterations)
			}
			// True residual must meet the target reported.
			ax := make([]float64, n)
			A.Apply(x, ax)
			rr := 0.0
			for i := range ax {
				rr += (b[i] - ax[i]) * (b[i] - ax[i])
			}
			if math.Sqrt(rr) > res.Target || math.Abs(math.Sqrt(rr)-res.Residual) > 1e-12*res.InitialResidual {
				t.Errorf("true residual %g, reported %g, target %g", math.Sqrt(rr), res.Residual, res.Target)
			}
			for i := range x {
				if math.Abs(x[i]-want[i]) > 1e-8*(1+math.Abs(want[i])) {
					t.Fatalf("x[%d] = %g, dense solve %g", i, x[i], want[i])
				}
			}
		})
	}
}

func TestCGZeroRHS(t *testing.T) {
	A := randomSPD(5, []float64{1, 2, 3, 4, 5}, 1)
	x := make([]float64, 5)
	res, err := CG(A, nil, make([]float64, 5), x, DefaultOptions())
	if err != nil || res.Iterations != 0 {
		t.Fatalf("zero rhs: %d iterations, err %v", res.Iterations, err)
	}
}

func TestCGNotConverged(t *testing.T) {
	n := 40
	eig := make([]float64, n)
	for i := range eig {
		eig[i] = float64(i + 1)
	}
	A := randomSPD(n, eig, 2)
	b := make([]float64, n)
	b[0] = 1
	opt := DefaultOptions()
	opt.MaxIter = 3
	res, err := CG(A, nil, b, make([]float64, n), opt)
	var nc *NotConvergedError
	if !errors.As(err, &nc) {
		t.Fatalf("want NotConvergedError, got %v", err)
	}
	if nc.Iterations != 3 || res.Iterations != 3 || !(nc.Residual > nc.Target) {
		t.Errorf("error %+v, result %+v", nc, res)
	}
}

func TestCGBreakdown(t *testing.T) {
	// Indefinite operator.
	A := randomSPD(6, []float64{1, 2, -3, 4, 5, 6}, 5)
	b := []float64{1, 2, 3, 4, 5, 6}
	_, err := CG(A, nil, b, make([]float64, 6), DefaultOptions())
	var be *BreakdownError
	if !errors.As(err, &be) || !be.Operator() {
		t.Fatalf("indefinite operator: want operator breakdown, got %v", err)
	}
	// Negative definite preconditioner.
	S := randomSPD(6, []float64{1, 2, 3, 4, 5, 6}, 5)
	_, err = CG(S, negate{}, b, make([]float64, 6), DefaultOptions())
	if !errors.As(err, &be) || be.Operator() || be.Quantity != "rᵀz" {
		t.Fatalf("negative preconditioner: want rᵀz breakdown, got %v", err)
	}
	// NaN from the preconditioner.
	_, err = CG(S, nanPC{}, b, make([]float64, 6), DefaultOptions())
	if !errors.As(err, &be) {
		t.Fatalf("NaN preconditioner: want breakdown, got %v", err)
	}
}

type negate struct{}

func (negate) Apply(r, z []float64) {
	for i := range r {
		z[i] = -r[i]
	}
}

type nanPC struct{}

func (nanPC) Apply(r, z []float64) {
	for i := range r {
		z[i] = math.NaN()
	}
}

func TestCGBadOptions(t *testing.T) {
	A := randomSPD(3, []float64{1, 2, 3}, 1)
	for _, tc := range []struct {
		name  string
		set   func(*Options)
		field string // the option the message must name
	}{
		{"NaN RelTol", func(o *Options) { o.RelTol = math.NaN() }, "RelTol"},
		{"negative RelTol", func(o *Options) { o.RelTol = -1 }, "RelTol"},
		{"infinite RelTol", func(o *Options) { o.RelTol = math.Inf(1) }, "RelTol"},
		{"infinite AbsTol", func(o *Options) { o.AbsTol = math.Inf(1) }, "AbsTol"},
		{"negative MaxIter", func(o *Options) { o.MaxIter = -1 }, "MaxIter"},
	} {
		opt := DefaultOptions()
		tc.set(&opt)
		x := make([]float64, 3)
		_, err := CG(A, nil, []float64{1, 1, 1}, x, opt)
		if !errors.Is(err, ErrTolerance) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: got %v, want ErrTolerance naming %s", tc.name, err, tc.field)
		}
		if x[0] != 0 {
			t.Errorf("%s: x changed to %v", tc.name, x)
		}
	}
}

// laplace1D is the tridiagonal [-1 2 -1] operator, large enough to span many chunks.
type laplace1D struct{ n int }

func (l laplace1D) Apply(x, y []float64) {
	for i := 0; i < l.n; i++ {
		s := 2 * x[i]
		if i > 0 {
			s -= x[i-1]
		}
		if i < l.n-1 {
			s -= x[i+1]
		}
		y[i] = s
	}
}

func TestCGDeterministicAcrossWorkers(t *testing.T) {
	n := 5*chunk + 17
	A := laplace1D{n}
	b := make([]float64, n)
	for i := range b {
		b[i] = noise(uint64(i))
	}
	var xs [2][]float64
	var hs [2][]float64
	for k, w := range []int{1, 2} {
		opt := DefaultOptions()
		opt.MaxIter = 200
		opt.Workers = w
		opt.History = true
		x := make([]float64, n)
		res, err := CG(A, nil, b, x, opt)
		var nc *NotConvergedError
		if err != nil && !errors.As(err, &nc) {
			t.Fatal(err)
		}
		xs[k], hs[k] = x, res.History
	}
	for i := range xs[0] {
		if math.Float64bits(xs[0][i]) != math.Float64bits(xs[1][i]) {
			t.Fatalf("x[%d] differs between 1 and 2 workers: %v vs %v", i, xs[0][i], xs[1][i])
		}
	}
	for i := range hs[0] {
		if hs[0][i] != hs[1][i] {
			t.Fatalf("history[%d] differs: %v vs %v", i, hs[0][i], hs[1][i])
		}
	}
}

// scaledOp is s·A.
type scaledOp struct {
	a Operator
	s float64
}

func (o scaledOp) Apply(x, y []float64) {
	o.a.Apply(x, y)
	for i := range y {
		y[i] *= o.s
	}
}

// scaledJacobi is z = r/(2s), point Jacobi for s·laplace1D.
type scaledJacobi struct{ s float64 }

func (j scaledJacobi) Apply(r, z []float64) {
	for i := range r {
		z[i] = r[i] / (2 * j.s)
	}
}

// TestCGBadlyScaled: residual norms of a system scaled by 2^±600 (entries near
// 1e±180) are computed without overflow or underflow, so CG takes the same iterations
// and finds the same solution as for the unscaled system, instead of a false
// breakdown (‖r‖ = Inf) or a false convergence (‖r‖ = 0).
func TestCGBadlyScaled(t *testing.T) {
	n := 2*chunk + 5
	b := make([]float64, n)
	for i := range b {
		b[i] = noise(uint64(i))
	}
	solve := func(s float64) (Result, []float64) {
		bs := make([]float64, n)
		for i, v := range b {
			bs[i] = v * s
		}
		opt := DefaultOptions()
		opt.AbsTol = 0
		opt.MaxIter = 300
		x := make([]float64, n)
		res, err := CG(scaledOp{laplace1D{n}, s}, scaledJacobi{s}, bs, x, opt)
		if err != nil && !errors.As(err, new(*NotConvergedError)) {
			t.Fatalf("scale %g: %v", s, err)
		}
		return res, x
	}
	ref, xref := solve(1)
	for _, e := range []int{600, -600} {
		s := math.Ldexp(1, e)
		res, x := solve(s)
		if res.Iterations != ref.Iterations || !equalBits(x, xref) {
			t.Errorf("2^%d: %d iterations (unscaled %d), solution bitwise equal: %v", e, res.Iterations, ref.Iterations, equalBits(x, xref))
		}
		if got, want := res.InitialResidual/s, ref.InitialResidual; math.Abs(got-want) > 1e-14*want {
			t.Errorf("2^%d: initial residual %g·2^%d, want %g", e, got, e, want)
		}
	}
}

func equalBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}
