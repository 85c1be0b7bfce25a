package cycle

import "github.com/blockamg/blockamg/backend"

// The Chebyshev smoother of PETSc's KSPCHEBYSHEV preconditioned by block Jacobi:
// Degree Chebyshev iterations for D⁻¹A on the interval [ChebMin, ChebMax]. A fixed
// degree and interval make it a fixed polynomial in D⁻¹A, a symmetric operator in the
// A inner product, which keeps the V-cycle symmetric (CG needs that).
//
// With θ = (max+min)/2, δ = (max−min)/2, σ = θ/δ and ρ₀ = 1/σ: step 0 is
// d = D⁻¹(b − A·x)/θ; steps k ≥ 1 take ρ_k = 1/(2σ − ρ_{k−1}) and
// d = ρ_kρ_{k−1}·d + (2ρ_k/δ)·D⁻¹(b − A·x); each adds d to x.

func init() { RegisterSmoother("chebyshev", newChebyshev) }

func newChebyshev(be backend.Backend, lv *Level) (Smoother, error) {
	if err := checkInterval(lv); err != nil {
		return nil, err
	}
	theta := func() float64 { return (lv.ChebMax + lv.ChebMin) / 2 }
	delta := func() float64 { return (lv.ChebMax - lv.ChebMin) / 2 }
	return &polynomial{
		be: be, lv: lv,
		first: func() float64 { return 1 / theta() },
		init:  func() float64 { return 1 / (theta() / delta()) }, // ρ₀ = 1/σ
		coef: func(_ int, rho *float64) (float64, float64) {
			sigma := theta() / delta()
			rhoNew := 1 / (2*sigma - *rho)
			c1, c2 := rhoNew**rho, 2*rhoNew/delta()
			*rho = rhoNew
			return c1, c2
		},
	}, nil
}
