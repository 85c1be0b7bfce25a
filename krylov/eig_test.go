package krylov

import (
	"errors"
	"math"
	"strings"
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

// TestLanczosEstimateExtremeScale: coefficients near the ends of the float64 range
// (an operator scaled by 1e±160) give the scaled Ritz values, not a panic in the
// tridiagonal eigenvalue routine.
func TestLanczosEstimateExtremeScale(t *testing.T) {
	base, err := LanczosEstimate([]float64{0.5, 0.25}, []float64{0.8})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{1e-160, 1e130, 1e160} {
		est, err := LanczosEstimate([]float64{0.5 / s, 0.25 / s}, []float64{0.8})
		if err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		if math.Abs(est.Max/s-base.Max) > 1e-13*base.Max || math.Abs(est.Min/s-base.Min) > 1e-13*base.Max {
			t.Errorf("scale %g: %+v, want %g × %+v", s, est, s, base)
		}
	}
	if _, err := LanczosEstimate([]float64{math.NaN(), 1}, []float64{1}); !errors.Is(err, ErrBreakdown) {
		t.Errorf("NaN coefficient: %v, want ErrBreakdown", err)
	}
}

// TestBreakdownMessageNamesIllConditioning: a loss of definiteness of rᵀz after
// progress is reported as ill-conditioning, at the start as a plain indefinite
// preconditioner.
func TestBreakdownMessageNamesIllConditioning(t *testing.T) {
	late := (&BreakdownError{Iteration: 5, Quantity: "rᵀz", Value: -1}).Error()
	early := (&BreakdownError{Iteration: 0, Quantity: "rᵀz", Value: -1}).Error()
	if !strings.Contains(late, "ill-conditioned") || strings.Contains(early, "ill-conditioned") {
		t.Errorf("messages: %q / %q", late, early)
	}
}
