package backend

import "math"

// CGLanczos runs the CG–Lanczos recurrence of an eigenvalue estimate for D⁻¹A with
// be's primitives (the iteration of krylov.EstimateEigenvalues: the same start
// vector, coefficients and stopping rules) in the work vectors r, z, p, q. Every inner
// product is a round trip to the backend; a Lanczoser keeps them in its own memory.
// Backends without one, and the CPU backend's Lanczoser, run this.
func CGLanczos(be Backend, a Matrix, dinv BlockDiag, start Vector, steps int, r, z, p, q Vector) LanczosResult {
	var res LanczosResult
	n := start.Len()
	if steps < 1 || n < 1 {
		panic("backend: CGLanczos: no steps or empty vectors")
	}
	steps = min(steps, n)
	brk := func(it int, what string, v float64) LanczosResult {
		res.BreakIteration, res.BreakQuantity, res.BreakValue = it, what, v
		return res
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	be.Copy(r, start)
	be.BlockDiagApply(dinv, r, z)
	rz := be.Dot(r, z)
	if !(rz > 0) || !finite(rz) {
		return brk(0, "rᵀz", rz)
	}
	rz0 := rz
	be.Copy(p, z)
	for it := 1; it <= steps; it++ {
		be.SpMV(1, a, p, 0, q)
		pq := be.Dot(p, q)
		if !(pq > 0) || !finite(pq) {
			return brk(it, "pᵀAp", pq)
		}
		alpha := rz / pq
		res.Alphas = append(res.Alphas, alpha)
		if it == steps {
			break
		}
		be.Axpby(-alpha, q, 1, r)
		be.BlockDiagApply(dinv, r, z)
		rzNew := be.Dot(r, z)
		// An exhausted Krylov space shows as rᵀz collapsing to rounding level.
		if rzNew <= 1e-24*rz0 {
			break
		}
		if !finite(rzNew) {
			return brk(it, "rᵀz", rzNew)
		}
		beta := rzNew / rz
		res.Betas = append(res.Betas, beta)
		rz = rzNew
		be.Axpby(1, z, beta, p)
	}
	return res
}
