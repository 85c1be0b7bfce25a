package krylov

import (
	"math"
	"testing"
)

// TestLanczosEstimate checks the Ritz values against the tridiagonal matrix written
// out: d₀ = 1/α₀, d₁ = 1/α₁ + β₀/α₀, e₀ = √β₀/α₀, whose eigenvalues are
// (d₀+d₁)/2 ± √(((d₀−d₁)/2)² + e₀²).
func TestLanczosEstimate(t *testing.T) {
	a0, a1, b0 := 0.5, 0.25, 0.8
	d0, d1, e0 := 1/a0, 1/a1+b0/a0, math.Sqrt(b0)/a0
	m, r := (d0+d1)/2, math.Sqrt((d0-d1)*(d0-d1)/4+e0*e0)
	est, err := LanczosEstimate([]float64{a0, a1}, []float64{b0})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(est.Min-(m-r)) > 1e-14*m || math.Abs(est.Max-(m+r)) > 1e-14*m || est.Steps != 2 {
		t.Errorf("estimate %+v, want [%g, %g] in 2 steps", est, m-r, m+r)
	}
	if _, err := LanczosEstimate(nil, nil); err == nil {
		t.Error("no coefficients: no error")
	}
}
