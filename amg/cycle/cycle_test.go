package cycle

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/krylov"
)

// ex56 builds the ex56 problem and its SA hierarchy with the options of the
// comparison against PETSc GAMG.
func ex56(t *testing.T, ne int) (*amg.Hierarchy, []float64) {
	t.Helper()
	A, rhs, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := amg.DefaultOptions()
	opt.Threshold = -0.01
	opt.CoarseEqLimit = 200
	opt.ChebyshevEstEig = [4]float64{0, 0.2, 0, 1.05}
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return h, rhs
}

// backends returns the backends to test: the CPU always, the GPU where a driver is.
func backends(t *testing.T) map[string]backend.Backend {
	bes := map[string]backend.Backend{"cpu": cpu.New(0)}
	g, err := cuda.New(cuda.Options{})
	switch {
	case err == nil:
		bes["cuda"] = g
	case errors.Is(err, cudadrv.ErrNoDriver) || errors.Is(err, cudadrv.ErrNoDevice):
		t.Log("cuda backend skipped: " + err.Error())
	default:
		t.Fatalf("cuda backend: %v", err)
	}
	return bes
}

func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d / n)
}

// denseCycle is the test's reference V-cycle: dense matrices from the hierarchy's
// levels, the Chebyshev recurrence written out, the coarsest level by Gaussian
// elimination.
func denseCycle(h *amg.Hierarchy, l int, b []float64) []float64 {
	L := h.Levels[l]
	n := len(b)
	A := L.A.ToDense()
	if l == len(h.Levels)-1 {
		return gaussSolve(A, b)
	}
	mul := func(M []float64, rows, cols int, x []float64) []float64 {
		y := make([]float64, rows)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				y[i] += M[i*cols+j] * x[j]
			}
		}
		return y
	}
	bs := L.A.R
	x, d := make([]float64, n), make([]float64, n)
	cheb := func() {
		theta, delta := (L.ChebMax+L.ChebMin)/2, (L.ChebMax-L.ChebMin)/2
		sigma := theta / delta
		rho := 1 / sigma
		for k := 0; k < h.Opt.SmootherIts; k++ {
			ax := mul(A, n, n, x)
			c1, c2 := 0.0, 1/theta
			if k > 0 {
				rhoNew := 1 / (2*sigma - rho)
				c1, c2 = rhoNew*rho, 2*rhoNew/delta
				rho = rhoNew
			}
			for i := 0; i < n/bs; i++ {
				for p := 0; p < bs; p++ {
					s := 0.0
					for q := 0; q < bs; q++ {
						s += L.Dinv[i*bs*bs+p*bs+q] * (b[i*bs+q] - ax[i*bs+q])
					}
					d[i*bs+p] = c1*d[i*bs+p] + c2*s
				}
			}
			for i := range x {
				x[i] += d[i]
			}
		}
	}
	cheb()
	ax := mul(A, n, n, x)
	P := L.P.ToDense()
	nc := L.P.Cols()
	bc := make([]float64, nc)
	for i := 0; i < n; i++ {
		for j := 0; j < nc; j++ {
			bc[j] += P[i*nc+j] * (b[i] - ax[i])
		}
	}
	e := mul(P, n, nc, denseCycle(h, l+1, bc))
	for i := range x {
		x[i] += e[i]
	}
	cheb()
	return x
}

// gaussSolve solves the dense system A·x = b by elimination with partial pivoting.
func gaussSolve(a, b []float64) []float64 {
	n := len(b)
	A := append([]float64(nil), a...)
	x := append([]float64(nil), b...)
	for k := 0; k < n; k++ {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(A[i*n+k]) > math.Abs(A[p*n+k]) {
				p = i
			}
		}
		for j := 0; j < n; j++ {
			A[k*n+j], A[p*n+j] = A[p*n+j], A[k*n+j]
		}
		x[k], x[p] = x[p], x[k]
		for i := k + 1; i < n; i++ {
			f := A[i*n+k] / A[k*n+k]
			for j := k; j < n; j++ {
				A[i*n+j] -= f * A[k*n+j]
			}
			x[i] -= f * x[k]
		}
	}
	for i := n - 1; i >= 0; i-- {
		for j := i + 1; j < n; j++ {
			x[i] -= A[i*n+j] * x[j]
		}
		x[i] /= A[i*n+i]
	}
	return x
}

// unfused hides a backend's optional fused kernels, so that the cycle runs its
// generic steps (SpMV, BlockDiagApply, Axpby).
type unfused struct{ backend.Backend }

func TestCycleMatchesDense(t *testing.T) {
	h, rhs := ex56(t, 4)
	want := denseCycle(h, 0, rhs)
	bes := backends(t)
	bes["cpu-unfused"] = unfused{cpu.New(0)}
	for name, be := range bes {
		c, err := Upload(be, h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, _ := be.NewVector(len(rhs))
		z, _ := be.NewVector(len(rhs))
		be.Upload(r, rhs)
		got := make([]float64, len(rhs))
		for i := range got {
			got[i] = math.NaN()
		}
		c.Apply(r, z)
		be.Download(got, z)
		if d := relDiff(got, want); !(d < 1e-12) {
			t.Errorf("%s: V-cycle differs from the dense reference by %.2e (want < 1e-12)", name, d)
		}
		// Repeated application is bitwise identical.
		again := make([]float64, len(rhs))
		c.Apply(r, z)
		be.Download(again, z)
		for i := range got {
			if got[i] != again[i] {
				t.Fatalf("%s: second V-cycle differs at %d", name, i)
			}
		}
		r.Free()
		z.Free()
		c.Free()
		if err := be.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func TestPCGMatchesCPU(t *testing.T) {
	h, rhs := ex56(t, 10)
	opt := krylov.DefaultOptions()
	// The reference: the same PCG over the CPU backend without its fused kernels.
	ref := unfused{cpu.New(1)}
	rc, err := Upload(ref, h)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Free()
	rb, _ := ref.NewVector(len(rhs))
	rx, _ := ref.NewVector(len(rhs))
	ref.Upload(rb, rhs)
	want, err := backend.PCG(ref, rc.Operator(), rc, rb, rx, opt)
	if err != nil {
		t.Fatal(err)
	}
	xcpu := make([]float64, len(rhs))
	ref.Download(xcpu, rx)
	for name, be := range backends(t) {
		c, err := Upload(be, h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := be.NewVector(len(rhs))
		x, _ := be.NewVector(len(rhs))
		be.Upload(b, rhs)
		be.SetPhase("solve")
		before := be.Counters().Phase("solve")
		got, err := backend.PCG(be, c.Operator(), c, b, x, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		traffic := be.Counters().Phase("solve")
		xs := make([]float64, len(rhs))
		be.Download(xs, x)
		if got.Iterations != want.Iterations {
			t.Errorf("%s: %d iterations, CPU CG %d", name, got.Iterations, want.Iterations)
		}
		if d := relDiff(xs, xcpu); !(d < 1e-8) {
			t.Errorf("%s: solution differs from the CPU one by %.2e (want < 1e-8)", name, d)
		}
		// Traffic during the solve: per iteration a few scalars and the coarsest vectors.
		coarse := int64(h.Levels[len(h.Levels)-1].A.Rows())
		limit := int64(got.Iterations+2) * (2*coarse*8 + 64)
		if moved := traffic.H2DBytes + traffic.D2HBytes - before.H2DBytes - before.D2HBytes; moved > limit {
			t.Errorf("%s: solve moved %d bytes host↔device, want ≤ %d (scalars and the coarsest vectors only)", name, moved, limit)
		}
		b.Free()
		x.Free()
		c.Free()
	}
}

func TestPCGNotConverged(t *testing.T) {
	h, rhs := ex56(t, 6)
	be := cpu.New(1)
	c, err := Upload(be, h)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free()
	b, _ := be.NewVector(len(rhs))
	x, _ := be.NewVector(len(rhs))
	be.Upload(b, rhs)
	opt := krylov.DefaultOptions()
	opt.MaxIter = 2
	_, err = backend.PCG(be, c.Operator(), c, b, x, opt)
	var nc *krylov.NotConvergedError
	if !errors.As(err, &nc) || nc.Iterations != 2 {
		t.Fatalf("PCG with MaxIter 2: error %v, want *krylov.NotConvergedError after 2 iterations", err)
	}
}
