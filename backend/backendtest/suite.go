package backendtest

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// TestAll runs every test of the suite as a subtest.
func TestAll(t *testing.T, be backend.Backend) {
	t.Run("Vectors", func(t *testing.T) { TestVectors(t, be) })
	t.Run("DotNorm", func(t *testing.T) { TestDotNorm(t, be) })
	t.Run("UploadInvalid", func(t *testing.T) { TestUploadInvalid(t, be) })
	t.Run("SpMV", func(t *testing.T) { TestSpMV(t, be) })
	t.Run("SpMVTrans", func(t *testing.T) { TestSpMVTrans(t, be) })
	t.Run("BlockDiag", func(t *testing.T) { TestBlockDiag(t, be) })
	t.Run("PCG", func(t *testing.T) { TestPCG(t, be) })
	t.Run("PCGStepper", func(t *testing.T) { TestPCGStepper(t, be) })
	t.Run("ChebStep", func(t *testing.T) { TestChebStep(t, be) })
	t.Run("CGLanczos", func(t *testing.T) { TestCGLanczos(t, be) })
}

// vectorSizes covers empty, tiny, odd and multi-block lengths.
var vectorSizes = []int{0, 1, 7, 255, 1000, 100003}

// TestVectors checks Upload/Download, Zero, Copy, Axpby, Scale and Vmul against plain
// loops, with NaN-poisoned outputs where the operation must not read them.
func TestVectors(t *testing.T, be backend.Backend) {
	for _, n := range vectorSizes {
		rng := newRand(uint64(n) + 1)
		xs, ys, zs := randVec(rng, n), randVec(rng, n), randVec(rng, n)
		x, y, z := vector(t, be, xs), vector(t, be, ys), vector(t, be, zs)

		if got := download(t, be, x); !BitsEqual(got, xs) {
			t.Fatalf("n=%d: Download(Upload(x)) differs from x", n)
		}
		if x.Len() != n {
			t.Fatalf("n=%d: Len() = %d", n, x.Len())
		}
		check := func(op string, got, want []float64) {
			t.Helper()
			if e := relErr(got, want); e > Tol {
				t.Errorf("n=%d %s: relative error %.3g > %g", n, op, e, Tol)
			}
		}
		// y = 2.5x - 0.75y
		be.Axpby(2.5, x, -0.75, y)
		want := make([]float64, n)
		for i := range want {
			want[i] = 2.5*xs[i] - 0.75*ys[i]
		}
		check("Axpby", download(t, be, y), want)
		// beta = 0 must not read y.
		be.Upload(y, NaNVec(n))
		be.Axpby(-3, x, 0, y)
		for i := range want {
			want[i] = -3 * xs[i]
		}
		check("Axpby beta=0 over NaN", download(t, be, y), want)

		be.Upload(y, ys)
		be.Scale(0.5, y)
		for i := range want {
			want[i] = 0.5 * ys[i]
		}
		check("Scale", download(t, be, y), want)

		be.Upload(y, ys)
		be.Vmul(1.5, x, y, 2, z)
		for i := range want {
			want[i] = 1.5*xs[i]*ys[i] + 2*zs[i]
		}
		check("Vmul", download(t, be, z), want)
		be.Upload(z, NaNVec(n))
		be.Vmul(-1, x, y, 0, z)
		for i := range want {
			want[i] = -xs[i] * ys[i]
		}
		check("Vmul beta=0 over NaN", download(t, be, z), want)

		be.Upload(z, NaNVec(n))
		be.Copy(z, x)
		if got := download(t, be, z); !BitsEqual(got, xs) {
			t.Errorf("n=%d: Copy differs from its source", n)
		}
		be.Upload(z, NaNVec(n))
		be.Zero(z)
		for i, v := range download(t, be, z) {
			if v != 0 {
				t.Fatalf("n=%d: Zero left z[%d] = %v", n, i, v)
			}
		}
		if got := download(t, be, x); !BitsEqual(got, xs) {
			t.Errorf("n=%d: an operation modified its input x", n)
		}
		x.Free()
		y.Free()
		z.Free()
		x.Free() // a second Free is a no-op
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
	// A new vector is zero-filled.
	v, err := be.NewVector(1001)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range download(t, be, v) {
		if e != 0 {
			t.Fatalf("NewVector: entry %d = %v, want 0", i, e)
		}
	}
	v.Free()
}

// TestDotNorm checks Dot and Norm against a compensated sum, and that repeated calls
// give the same bits.
func TestDotNorm(t *testing.T, be backend.Backend) {
	for _, n := range append(vectorSizes, 1<<20+3) {
		rng := newRand(uint64(n) + 77)
		xs, ys := randVec(rng, n), randVec(rng, n)
		x, y := vector(t, be, xs), vector(t, be, ys)
		// Kahan-summed reference.
		var s, comp, ss, comp2 float64
		for i := range xs {
			p := xs[i]*ys[i] - comp
			u := s + p
			comp = (u - s) - p
			s = u
			q := xs[i]*xs[i] - comp2
			w := ss + q
			comp2 = (w - ss) - q
			ss = w
		}
		d := be.Dot(x, y)
		// Relative to Σ|xᵢyᵢ|, the scale rounding errors live on.
		abs := 0.0
		for i := range xs {
			abs += math.Abs(xs[i] * ys[i])
		}
		if math.Abs(d-s) > Tol*max(abs, 1e-300) || math.IsNaN(d) {
			t.Errorf("n=%d: Dot = %.17g, want %.17g", n, d, s)
		}
		nrm := be.Norm(x)
		if want := math.Sqrt(ss); math.Abs(nrm-want) > Tol*max(want, 1e-300) || math.IsNaN(nrm) {
			t.Errorf("n=%d: Norm = %.17g, want %.17g", n, nrm, want)
		}
		if d2 := be.Dot(x, y); math.Float64bits(d2) != math.Float64bits(d) {
			t.Errorf("n=%d: Dot not reproducible: %.17g then %.17g", n, d, d2)
		}
		if n == 0 && (d != 0 || nrm != 0) {
			t.Errorf("empty vectors: Dot %v, Norm %v, want 0", d, nrm)
		}
		x.Free()
		y.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// spmvCase is a matrix shape the products are tested on.
type spmvCase struct {
	blockRows, blockCols, r, c, maxPerRow int
}

// spmvCases covers the specialised shapes (3×3, 3×6, 6×3, 6×6), generic ones, rows
// much longer than a warp's worth of values, empty matrices and a single block.
var spmvCases = []spmvCase{
	{50, 40, 3, 3, 8},
	{300, 300, 3, 3, 40},
	{120, 30, 3, 6, 4},
	{30, 120, 6, 3, 12},
	{40, 40, 6, 6, 9},
	{33, 17, 2, 5, 5},
	{64, 64, 1, 1, 70},
	{25, 25, 4, 4, 6},
	{9, 11, 7, 2, 3},
	{0, 5, 3, 3, 1},
	{5, 0, 3, 3, 1},
	{1, 1, 3, 3, 1},
}

func (c spmvCase) String() string {
	return fmt.Sprintf("%dx%d blocks of %dx%d", c.blockRows, c.blockCols, c.r, c.c)
}

// TestSpMV checks y = alpha·A·x + beta·y against the dense product.
func TestSpMV(t *testing.T, be backend.Backend) { testProduct(t, be, false) }

// TestSpMVTrans checks y = alpha·Aᵀ·x + beta·y against the dense product.
func TestSpMVTrans(t *testing.T, be backend.Backend) { testProduct(t, be, true) }

// TestUploadInvalid checks UploadMatrix's contract: a matrix with a non-finite value
// or a broken pattern is refused with an error wrapping bsr.ErrInvalid.
func TestUploadInvalid(t *testing.T, be backend.Backend) {
	nan := RandomBSR(3, 5, 5, 3, 3, 3)
	nan.Val[len(nan.Val)/2] = math.NaN()
	cols := RandomBSR(4, 5, 5, 3, 3, 3)
	cols.ColIdx[0] = 7 // out of range
	for name, m := range map[string]*bsr.Matrix{"a NaN value": nan, "a column out of range": cols} {
		if a, err := be.UploadMatrix(m, false); !errors.Is(err, bsr.ErrInvalid) {
			if a != nil {
				a.Free()
			}
			t.Errorf("UploadMatrix of a matrix with %s: %v, want an error wrapping bsr.ErrInvalid", name, err)
		}
	}
}

func testProduct(t *testing.T, be backend.Backend, trans bool) {
	for ci, tc := range spmvCases {
		m := RandomBSR(uint64(100+ci), tc.blockRows, tc.blockCols, tc.r, tc.c, tc.maxPerRow)
		orig := m.Clone()
		a, err := be.UploadMatrix(m, trans)
		if err != nil {
			t.Fatalf("%v: UploadMatrix: %v", tc, err)
		}
		if br, bc, r, c := a.Dims(); br != m.BlockRows || bc != m.BlockCols || r != m.R || c != m.C {
			t.Fatalf("%v: Dims() = %d %d %d %d", tc, br, bc, r, c)
		}
		rows, cols := m.Rows(), m.Cols()
		in, out := cols, rows
		if trans {
			in, out = rows, cols
		}
		dense := m.ToDense()
		rng := newRand(uint64(7 + ci))
		xs, ys := randVec(rng, in), randVec(rng, out)
		x := vector(t, be, xs)
		y := vector(t, be, ys)
		op := be.SpMV
		name := "SpMV"
		if trans {
			op, name = be.SpMVTrans, "SpMVTrans"
		}
		for _, ab := range [][2]float64{{1, 0}, {-0.5, 2}, {2, 1}, {0, 0.5}} {
			alpha, beta := ab[0], ab[1]
			start := ys
			if beta == 0 {
				start = NaNVec(out)
			}
			be.Upload(y, start)
			op(alpha, a, x, beta, y)
			got := download(t, be, y)
			want := denseMulVec(dense, rows, cols, trans, alpha, xs, beta, start)
			if e := relErr(got, want); e > Tol {
				t.Errorf("%v: %s alpha=%g beta=%g: relative error %.3g > %g", tc, name, alpha, beta, e, Tol)
			}
			// Repeat: bitwise the same.
			be.Upload(y, start)
			op(alpha, a, x, beta, y)
			if again := download(t, be, y); !BitsEqual(again, got) {
				t.Errorf("%v: %s alpha=%g beta=%g: second run differs bitwise", tc, name, alpha, beta)
			}
		}
		if got := download(t, be, x); !BitsEqual(got, xs) {
			t.Errorf("%v: %s modified x", tc, name)
		}
		if !m.SamePattern(orig) || !BitsEqual(m.Val, orig.Val) {
			t.Errorf("%v: UploadMatrix or %s modified the host matrix", tc, name)
		}
		x.Free()
		y.Free()
		a.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestBlockDiag checks y = D·x against per-block dense products for several block
// sizes.
func TestBlockDiag(t *testing.T, be backend.Backend) {
	for _, tc := range []struct{ blocks, b int }{{0, 3}, {1, 3}, {1000, 3}, {333, 6}, {77, 1}, {50, 4}} {
		rng := newRand(uint64(tc.blocks*10 + tc.b))
		vals := randVec(rng, tc.blocks*tc.b*tc.b)
		n := tc.blocks * tc.b
		xs := randVec(rng, n)
		d, err := be.UploadBlockDiag(tc.blocks, tc.b, vals)
		if err != nil {
			t.Fatal(err)
		}
		if nb, b := d.Dims(); nb != tc.blocks || b != tc.b {
			t.Fatalf("Dims() = %d, %d", nb, b)
		}
		x, y := vector(t, be, xs), vector(t, be, NaNVec(n))
		be.BlockDiagApply(d, x, y)
		got := download(t, be, y)
		want := make([]float64, n)
		b := tc.b
		for i := 0; i < tc.blocks; i++ {
			for r := 0; r < b; r++ {
				s := 0.0
				for c := 0; c < b; c++ {
					s += vals[i*b*b+r*b+c] * xs[i*b+c]
				}
				want[i*b+r] = s
			}
		}
		if e := relErr(got, want); e > Tol {
			t.Errorf("%d blocks of %d: relative error %.3g", tc.blocks, tc.b, e)
		}
		x.Free()
		y.Free()
		d.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// PCGProblem is the problem TestPCG and cross-backend tests solve: SPDProblem on a
// 7×7×7 grid (1029 unknowns) and a seeded right-hand side.
func PCGProblem() (*bsr.Matrix, []float64) {
	a := SPDProblem(42, 7, 0.05)
	return a, randVec(newRand(43), a.Rows())
}

// SolvePCG runs backend.PCG with block Jacobi on a and rhs from a zero guess and
// returns the solution and the result.
func SolvePCG(t *testing.T, be backend.Backend, a *bsr.Matrix, rhs []float64, opt krylov.Options) ([]float64, krylov.Result) {
	t.Helper()
	am, err := be.UploadMatrix(a, false)
	if err != nil {
		t.Fatal(err)
	}
	defer am.Free()
	m, err := backend.NewBlockJacobi(be, a)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Free()
	b := vector(t, be, rhs)
	defer b.Free()
	x, err := be.NewVector(len(rhs))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Free()
	res, err := backend.PCG(be, am, backend.Jacobi{Be: be, D: m}, b, x, opt)
	if err != nil {
		t.Fatalf("PCG: %v (after %d iterations)", err, res.Iterations)
	}
	return download(t, be, x), res
}

// TestPCG solves PCGProblem with block-Jacobi PCG and checks the true residual, which
// is computed here from the dense matrix, and that a second solve repeats the bits.
func TestPCG(t *testing.T, be backend.Backend) {
	a, rhs := PCGProblem()
	opt := krylov.Options{RelTol: 1e-10, MaxIter: 2000}
	x, res := SolvePCG(t, be, a, rhs, opt)
	ax := denseMulVec(a.ToDense(), a.Rows(), a.Cols(), false, 1, x, 0, nil)
	var rn, bn float64
	for i := range rhs {
		rn += (rhs[i] - ax[i]) * (rhs[i] - ax[i])
		bn += rhs[i] * rhs[i]
	}
	rel := math.Sqrt(rn / bn)
	if rel > 2*opt.RelTol {
		t.Errorf("true relative residual %.3g after %d iterations, want ≤ %g", rel, res.Iterations, 2*opt.RelTol)
	}
	if res.Iterations < 5 || res.Iterations > 500 {
		t.Errorf("%d iterations: outside the plausible range for this problem", res.Iterations)
	}
	x2, res2 := SolvePCG(t, be, a, rhs, opt)
	if res2.Iterations != res.Iterations || !BitsEqual(x, x2) {
		t.Errorf("second solve differs: %d vs %d iterations, bitwise equal %v", res.Iterations, res2.Iterations, BitsEqual(x, x2))
	}
	t.Logf("%s: PCG block Jacobi, %d unknowns: %d iterations, relative residual %.3g (true %.3g)", be.Name(), len(rhs), res.Iterations, res.Residual/res.InitialResidual, rel)
}

// TestChebStep checks d = c1·d + c2·D⁻¹(b − A·x) with xOut = x + d, the residual b − A·x and
// y = z = s·D·b against dense arithmetic on square
// shapes whose rows select different kernels (short rows, rows of a warp and longer,
// 3×3, 6×6 and a generic size), for c1 = 0 (d holding NaN, which must not be read)
// and c1 ≠ 0. Backends without backend.ChebStepper skip.
func TestChebStep(t *testing.T, be backend.Backend) {
	cs, ok := be.(backend.ChebStepper)
	if !ok {
		t.Skip("backend does not implement backend.ChebStepper")
	}
	for ci, tc := range []spmvCase{{50, 50, 3, 3, 4}, {300, 300, 3, 3, 40}, {200, 200, 3, 3, 27},
		{40, 40, 6, 6, 5}, {120, 120, 6, 6, 20}, {60, 60, 6, 6, 60}, {25, 25, 4, 4, 6}, {1, 1, 3, 3, 1}, {0, 0, 3, 3, 1}} {
		m := RandomBSR(uint64(300+ci), tc.blockRows, tc.blockCols, tc.r, tc.c, tc.maxPerRow)
		a, err := be.UploadMatrix(m, false)
		if err != nil {
			t.Fatalf("%v: %v", tc, err)
		}
		rng := newRand(uint64(31 + ci))
		n, bs := m.Rows(), m.R
		dv := randVec(rng, tc.blockRows*bs*bs)
		dinv, err := be.UploadBlockDiag(tc.blockRows, bs, dv)
		if err != nil {
			t.Fatal(err)
		}
		bs0, xs, d0 := randVec(rng, n), randVec(rng, n), randVec(rng, n)
		dense := m.ToDense()
		ax := denseMulVec(dense, n, n, false, 1, xs, 0, make([]float64, n))
		bvec, xvec := vector(t, be, bs0), vector(t, be, xs)
		for _, c := range [][2]float64{{0, 0.7}, {0.3, -1.2}} {
			start := d0
			if c[0] == 0 {
				start = NaNVec(n)
			}
			d, xo := vector(t, be, start), vector(t, be, NaNVec(n))
			cs.ChebStep(a, dinv, bvec, xvec, c[0], c[1], d, xo)
			got := download(t, be, d)
			// xOut = x + d with the new d, bitwise: one addition per entry.
			gotX := download(t, be, xo)
			for i := range gotX {
				if want := xs[i] + got[i]; math.Float64bits(gotX[i]) != math.Float64bits(want) {
					t.Errorf("%v: ChebStep c1=%g c2=%g: xOut[%d] = %v, want x + d = %v", tc, c[0], c[1], i, gotX[i], want)
					break
				}
			}
			if again := download(t, be, xvec); !BitsEqual(again, xs) {
				t.Errorf("%v: ChebStep modified x", tc)
			}
			xo.Free()
			want := make([]float64, n)
			for i := 0; i < tc.blockRows; i++ {
				for r := 0; r < bs; r++ {
					u := 0.0
					for q := 0; q < bs; q++ {
						u += dv[i*bs*bs+r*bs+q] * (bs0[i*bs+q] - ax[i*bs+q])
					}
					o := i*bs + r
					want[o] = c[1] * u
					if c[0] != 0 {
						want[o] += c[0] * d0[o]
					}
				}
			}
			if e := relErr(got, want); e > Tol {
				t.Errorf("%v: ChebStep c1=%g c2=%g: relative error %.3g > %g", tc, c[0], c[1], e, Tol)
			}
			d.Free()
		}
		// Residual: r = b − A·x, r poisoned first.
		r := vector(t, be, NaNVec(n))
		cs.Residual(a, bvec, xvec, r)
		want := make([]float64, n)
		for i := range want {
			want[i] = bs0[i] - ax[i]
		}
		if e := relErr(download(t, be, r), want); e > Tol {
			t.Errorf("%v: Residual: relative error %.3g > %g", tc, e, Tol)
		}
		// DiagApply2: y = z = s·D·b.
		y, z := vector(t, be, NaNVec(n)), vector(t, be, NaNVec(n))
		cs.DiagApply2(dinv, 0.37, bvec, y, z)
		for i := 0; i < tc.blockRows; i++ {
			for q := 0; q < bs; q++ {
				u := 0.0
				for c := 0; c < bs; c++ {
					u += dv[i*bs*bs+q*bs+c] * bs0[i*bs+c]
				}
				want[i*bs+q] = 0.37 * u
			}
		}
		gy, gz := download(t, be, y), download(t, be, z)
		if e := relErr(gy, want); e > Tol || !BitsEqual(gy, gz) {
			t.Errorf("%v: DiagApply2: relative error %.3g (limit %g), y and z equal: %v", tc, e, Tol, BitsEqual(gy, gz))
		}
		r.Free()
		y.Free()
		z.Free()
		bvec.Free()
		xvec.Free()
		dinv.Free()
		a.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestCGLanczos checks the backend's CG–Lanczos eigenvalue estimate of D⁻¹A against
// the test's own host CG–Lanczos (the same recurrence and start vector), for
// a few step counts including more steps than unknowns (the space is exhausted).
// Backends without backend.Lanczoser skip.
func TestCGLanczos(t *testing.T, be backend.Backend) {
	lz, ok := be.(backend.Lanczoser)
	if !ok {
		t.Skip("backend does not implement backend.Lanczoser")
	}
	// scalar: the same operator with 1×1 blocks (point Jacobi), which takes a
	// backend's path for block sizes without specialised kernels.
	for _, tc := range []struct {
		grid, steps int
		scalar      bool
	}{{7, 10, false}, {5, 3, false}, {2, 40, false}, {4, 8, true}, {12, 10, false}, {12, 6, true}} {
		m := SPDProblem(uint64(50+tc.grid), tc.grid, 0.05)
		if tc.scalar {
			var err error
			if m, err = bsr.FromCSR(m.ToCSR(), 1, 1); err != nil {
				t.Fatal(err)
			}
		}
		n, bs := m.Rows(), m.R
		inv, err := m.InvertDiag()
		if err != nil {
			t.Fatal(err)
		}
		want, err := refEstimate(hostOp{m}, hostJacobi{bs, inv}, n, tc.steps)
		if err != nil {
			t.Fatal(err)
		}
		a, err := be.UploadMatrix(m, false)
		if err != nil {
			t.Fatal(err)
		}
		d, err := be.UploadBlockDiag(m.BlockRows, bs, inv)
		if err != nil {
			t.Fatal(err)
		}
		sv := make([]float64, n)
		krylov.StartVector(sv, 0)
		start := vector(t, be, sv)
		var work [4]backend.Vector
		for i := range work {
			work[i] = vector(t, be, NaNVec(n))
		}
		res, err := lz.CGLanczos(a, d, start, tc.steps, work[0], work[1], work[2], work[3])
		if err != nil || res.BreakQuantity != "" {
			t.Fatalf("grid %d, %d steps: %v, breakdown %q", tc.grid, tc.steps, err, res.BreakQuantity)
		}
		got, err := krylov.LanczosEstimate(res.Alphas, res.Betas)
		if err != nil {
			t.Fatal(err)
		}
		if got.Steps != want.Steps || math.Abs(got.Max-want.Max) > 1e-10*want.Max || math.Abs(got.Min-want.Min) > 1e-8*want.Max {
			t.Errorf("grid %d, %d steps: estimate %+v, host %+v", tc.grid, tc.steps, got, want)
		}
		if again := download(t, be, start); !BitsEqual(again, sv) {
			t.Errorf("grid %d: CGLanczos modified the start vector", tc.grid)
		}
		for _, v := range work {
			v.Free()
		}
		start.Free()
		d.Free()
		a.Free()
	}
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
}

// refEstimate is the test's own CG–Lanczos: plain serial loops, the same start vector
// and stopping rules as backend.CGLanczos, for an independent reference.
func refEstimate(A hostOp, M hostJacobi, n, steps int) (krylov.EigenEstimate, error) {
	steps = min(steps, n)
	dot := func(x, y []float64) float64 {
		s := 0.0
		for i := range x {
			s += x[i] * y[i]
		}
		return s
	}
	r, z, p, q := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	krylov.StartVector(r, 0)
	M.Apply(r, z)
	rz := dot(r, z)
	rz0 := rz
	copy(p, z)
	var alphas, betas []float64
	for it := 1; it <= steps; it++ {
		A.Apply(p, q)
		alpha := rz / dot(p, q)
		alphas = append(alphas, alpha)
		if it == steps {
			break
		}
		for i := range r {
			r[i] -= alpha * q[i]
		}
		M.Apply(r, z)
		rzNew := dot(r, z)
		if rzNew <= 1e-24*rz0 {
			break
		}
		betas = append(betas, rzNew/rz)
		for i := range p {
			p[i] = z[i] + rzNew/rz*p[i]
		}
		rz = rzNew
	}
	return krylov.LanczosEstimate(alphas, betas)
}

// hostOp and hostJacobi are the host reference's operator and preconditioner.
type hostOp struct{ m *bsr.Matrix }

func (o hostOp) Apply(x, y []float64) { o.m.MulVec(1, x, 0, y) }

type hostJacobi struct {
	b   int
	inv []float64
}

func (j hostJacobi) Apply(r, z []float64) {
	for i := 0; i < len(r)/j.b; i++ {
		for q := 0; q < j.b; q++ {
			s := 0.0
			for c := 0; c < j.b; c++ {
				s += j.inv[i*j.b*j.b+q*j.b+c] * r[i*j.b+c]
			}
			z[i*j.b+q] = s
		}
	}
}
