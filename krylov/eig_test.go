package krylov

import (
	"math"
	"testing"
)

func TestEstimateEigenvaluesExactWhenStepsCoverSpace(t *testing.T) {
	eig := []float64{0.5, 1, 2, 3, 7, 11}
	A := randomSPD(len(eig), eig, 9)
	est, err := EstimateEigenvalues(A, nil, len(eig), 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(est.Max-11) > 1e-8 || math.Abs(est.Min-0.5) > 1e-8 {
		t.Fatalf("estimate [%g, %g], want [0.5, 11] (steps %d)", est.Min, est.Max, est.Steps)
	}
	if est.Steps > len(eig) {
		t.Errorf("used %d steps on a space of dimension %d", est.Steps, len(eig))
	}
}

func TestEstimateEigenvaluesJacobiLaplace(t *testing.T) {
	// D⁻¹A for the 1D Laplacian has eigenvalues 1 − cos(kπ/(n+1)) ∈ (0, 2); ten steps
	// from a random start get the largest from below within a few percent.
	n := 2000
	A := laplace1D{n}
	est, err := EstimateEigenvalues(A, halfPC{}, n, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
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
}

type halfPC struct{}

func (halfPC) Apply(r, z []float64) {
	for i := range r {
		z[i] = r[i] / 2
	}
}

func TestEigenEstimatorReuse(t *testing.T) {
	n := 3000
	e := NewEigenEstimator(n)
	a, err := e.Estimate(laplace1D{n}, halfPC{}, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Estimate(laplace1D{n}, halfPC{}, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := EstimateEigenvalues(laplace1D{n}, halfPC{}, n, 10, 1)
	if a != b || a != c {
		t.Fatalf("reused estimator gives %v then %v; fresh %v", a, b, c)
	}
}
