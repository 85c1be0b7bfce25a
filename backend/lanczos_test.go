package backend_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// lanczos runs backend.CGLanczos on the CPU backend from krylov's start vector and
// returns the estimate.
func lanczos(t *testing.T, workers int, a *bsr.Matrix, dinv []float64, steps int) krylov.EigenEstimate {
	t.Helper()
	n := a.Rows()
	sv := make([]float64, n)
	krylov.StartVector(sv, 0)
	be := cpu.New(workers)
	var w [4]backend.Vector
	for i := range w {
		w[i] = cpu.WrapVector(make([]float64, n))
	}
	res := backend.CGLanczos(be, cpu.WrapMatrix(a), cpu.WrapBlockDiag(a.BlockRows, a.R, dinv), cpu.WrapVector(sv),
		steps, w[0], w[1], w[2], w[3])
	if res.BreakQuantity != "" {
		t.Fatalf("breakdown: %+v", res)
	}
	est, err := krylov.LanczosEstimate(res.Alphas, res.Betas)
	if err != nil {
		t.Fatal(err)
	}
	return est
}

// TestCGLanczosExactWhenStepsCoverSpace: on a space of dimension n, n steps find the
// extreme eigenvalues of a dense SPD matrix QΛQᵀ exactly (to rounding).
func TestCGLanczosExactWhenStepsCoverSpace(t *testing.T) {
	eig := []float64{0.5, 1, 2, 3, 7, 11}
	n := len(eig)
	rng := rand.New(rand.NewPCG(9, 9))
	// Q from Gram–Schmidt on random columns.
	q := make([][]float64, n)
	for j := range q {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		for _, u := range q[:j] {
			s := 0.0
			for i := range v {
				s += u[i] * v[i]
			}
			for i := range v {
				v[i] -= s * u[i]
			}
		}
		s := 0.0
		for _, x := range v {
			s += x * x
		}
		for i := range v {
			v[i] /= math.Sqrt(s)
		}
		q[j] = v
	}
	var bi, bj []int32
	var vals []float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += q[k][i] * eig[k] * q[k][j]
			}
			bi, bj, vals = append(bi, int32(i)), append(bj, int32(j)), append(vals, s)
		}
	}
	a, err := bsr.FromBlockTriplets(n, n, 1, 1, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	ident := []float64{1, 1, 1, 1, 1, 1}
	est := lanczos(t, 1, a, ident, 20)
	if math.Abs(est.Max-11) > 1e-8 || math.Abs(est.Min-0.5) > 1e-8 {
		t.Fatalf("estimate [%g, %g], want [0.5, 11] (steps %d)", est.Min, est.Max, est.Steps)
	}
	if est.Steps > n {
		t.Errorf("used %d steps on a space of dimension %d", est.Steps, n)
	}
}

// TestCGLanczosJacobiLaplace: D⁻¹A of the 1D Laplacian has eigenvalues
// 1 − cos(kπ/(n+1)) ∈ (0, 2); ten steps get the largest from below within a few
// percent, and the result does not depend on the worker count.
func TestCGLanczosJacobiLaplace(t *testing.T) {
	n := 20000
	var bi, bj []int32
	var vals []float64
	for i := 0; i < n; i++ {
		for _, j := range []int{i - 1, i, i + 1} {
			if j < 0 || j >= n {
				continue
			}
			v := -1.0
			if j == i {
				v = 2
			}
			bi, bj, vals = append(bi, int32(i)), append(bj, int32(j)), append(vals, v)
		}
	}
	a, err := bsr.FromBlockTriplets(n, n, 1, 1, bi, bj, vals)
	if err != nil {
		t.Fatal(err)
	}
	half := make([]float64, n)
	for i := range half {
		half[i] = 0.5
	}
	est := lanczos(t, 1, a, half, 10)
	lmax := 1 - math.Cos(float64(n)*math.Pi/float64(n+1))
	if est.Max > lmax*(1+1e-12) || est.Max < 0.9*lmax {
		t.Fatalf("λmax estimate %g, true %g", est.Max, lmax)
	}
	if est.Steps != 10 {
		t.Errorf("steps %d, want 10", est.Steps)
	}
	if est.Min <= 0 || est.Min >= est.Max {
		t.Errorf("λmin estimate %g not in (0, λmax)", est.Min)
	}
	if again := lanczos(t, 3, a, half, 10); again != est {
		t.Errorf("3 workers: %+v, 1 worker: %+v", again, est)
	}
}
