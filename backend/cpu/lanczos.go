package cpu

import (
	"math"

	"blockamg/backend"
)

var _ backend.Lanczoser = (*Backend)(nil)

// CGLanczos implements backend.Lanczoser: krylov.EstimateEigenvalues' recurrence on
// the backend's vectors.
func (b *Backend) CGLanczos(a backend.Matrix, dinv backend.BlockDiag, start backend.Vector, steps int,
	r, z, p, q backend.Vector) (backend.LanczosResult, error) {
	var res backend.LanczosResult
	n := start.Len()
	if steps < 1 || n < 1 {
		panic("cpu: CGLanczos: no steps or empty vectors")
	}
	steps = min(steps, n)
	brk := func(it int, what string, v float64) (backend.LanczosResult, error) {
		res.BreakIteration, res.BreakQuantity, res.BreakValue = it, what, v
		return res, nil
	}
	b.Copy(r, start)
	b.BlockDiagApply(dinv, r, z)
	rz := b.Dot(r, z)
	if !(rz > 0) || math.IsInf(rz, 0) {
		return brk(0, "rᵀz", rz)
	}
	rz0 := rz
	b.Copy(p, z)
	rv, qv, pv, zv := vec(r), vec(q), vec(p), vec(z)
	for it := 1; it <= steps; it++ {
		b.SpMV(1, a, p, 0, q)
		pq := b.Dot(p, q)
		if !(pq > 0) || math.IsInf(pq, 0) {
			return brk(it, "pᵀAp", pq)
		}
		alpha := rz / pq
		res.Alphas = append(res.Alphas, alpha)
		if it == steps {
			break
		}
		for i := range rv {
			rv[i] -= alpha * qv[i]
		}
		b.BlockDiagApply(dinv, r, z)
		rzNew := b.Dot(r, z)
		if rzNew <= 1e-24*rz0 {
			break
		}
		if math.IsInf(rzNew, 0) || math.IsNaN(rzNew) {
			return brk(it, "rᵀz", rzNew)
		}
		beta := rzNew / rz
		res.Betas = append(res.Betas, beta)
		rz = rzNew
		for i := range pv {
			pv[i] = zv[i] + beta*pv[i]
		}
	}
	return res, nil
}
