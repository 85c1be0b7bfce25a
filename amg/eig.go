package amg

import (
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// eigWork holds a level's CG–Lanczos vectors between Setup and the Updates, so that a
// re-setup allocates none. The estimate is backend.CGLanczos — the recurrence a device
// re-setup runs — on the CPU backend over the level's own arrays: one iteration for
// the host set-up and every backend.
type eigWork struct {
	start, r, z, p, q backend.Vector
}

func newEigWork(n int) *eigWork {
	v := make([]float64, n)
	krylov.StartVector(v, 0)
	w := &eigWork{start: cpu.WrapVector(v)}
	for _, x := range []*backend.Vector{&w.r, &w.z, &w.p, &w.q} {
		*x = cpu.WrapVector(make([]float64, n))
	}
	return w
}

// estimate returns the extreme eigenvalue estimates of D⁻¹A (dinv holds D⁻¹) from
// steps CG–Lanczos steps; a breakdown (a non-positive rᵀz or pᵀAp) is a
// *krylov.BreakdownError.
func (w *eigWork) estimate(A *bsr.Matrix, dinv []float64, steps, workers int) (krylov.EigenEstimate, error) {
	be := cpu.New(workers)
	res := backend.CGLanczos(be, cpu.WrapMatrix(A), cpu.WrapBlockDiag(A.BlockRows, A.R, dinv),
		w.start, steps, w.r, w.z, w.p, w.q)
	if res.BreakQuantity != "" {
		return krylov.EigenEstimate{}, &krylov.BreakdownError{Iteration: res.BreakIteration,
			Quantity: res.BreakQuantity, Value: res.BreakValue}
	}
	return krylov.LanczosEstimate(res.Alphas, res.Betas)
}
