package amg

// chebyshev is the polynomial smoother of PETSc's KSPCHEBYSHEV preconditioned by
// block Jacobi: a fixed number of Chebyshev iterations for D⁻¹A on the interval
// [emin, emax]. A fixed degree and interval make it a fixed polynomial in D⁻¹A, a
// symmetric operator in the A inner product, which keeps the V-cycle symmetric.
type chebyshev struct {
	emin, emax float64
	degree     int
}

// apply runs the iterations on A·x = b, treating x as zero on entry when zeroGuess
// (and then skipping the first product with A). d is scratch of len(b).
func (c *chebyshev) apply(A cycleOp, dinv, b, x, d []float64, zeroGuess bool, workers int) {
	theta := (c.emax + c.emin) / 2
	delta := (c.emax - c.emin) / 2
	sigma := theta / delta
	rho := 1 / sigma
	// Step 0: d = D⁻¹(b − A·x)/θ, x += d.
	if zeroGuess {
		jacobiScale(A.A.R, dinv, b, d, 1/theta, workers)
		copy(x, d)
	} else {
		A.chebStep(dinv, b, x, d, 0, 1/theta, workers)
		addTo(x, d, workers)
	}
	// Steps k ≥ 1: ρ_k = 1/(2σ − ρ_{k−1}), d = ρ_kρ_{k−1}·d + (2ρ_k/δ)·D⁻¹(b − A·x).
	for k := 1; k < c.degree; k++ {
		rhoNew := 1 / (2*sigma - rho)
		A.chebStep(dinv, b, x, d, rhoNew*rho, 2*rhoNew/delta, workers)
		addTo(x, d, workers)
		rho = rhoNew
	}
}
