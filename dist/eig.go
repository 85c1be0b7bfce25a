package dist

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// InvertDiag returns the inverses of the diagonal blocks of this rank's rows of a,
// each by bsr.InvertBlock as amg's set-up inverts them, so the values are the serial
// set-up's bits. A missing or singular block is an error wrapping bsr.ErrSingular, a
// diagonal entry that is not positive one wrapping amg.ErrNotSPD, naming the global
// block row. No rank takes part but this one.
func InvertDiag(a *Matrix) ([]float64, error) {
	b := a.Local.R
	n := a.Hi - a.Lo
	dinv := make([]float64, n*b*b)
	for i := 0; i < n; i++ {
		k, ok := a.Local.Find(i, i-a.ColLo+a.Lo)
		if !ok {
			return nil, fmt.Errorf("dist: %w: block row %d has no diagonal block", bsr.ErrSingular, a.Lo+i)
		}
		blk := a.Local.Block(k)
		for p := 0; p < b; p++ {
			if !(blk[p*b+p] > 0) {
				return nil, fmt.Errorf("dist: %w: block row %d: diagonal entry %d is %g, not positive", amg.ErrNotSPD, a.Lo+i, p, blk[p*b+p])
			}
		}
		if !bsr.InvertBlock(b, blk, dinv[i*b*b:(i+1)*b*b]) {
			return nil, fmt.Errorf("dist: %w: diagonal block of block row %d is singular to float64 precision", bsr.ErrSingular, a.Lo+i)
		}
	}
	return dinv, nil
}

// EstimateEigenvalues estimates the extreme eigenvalues of D⁻¹A, dinv holding this
// rank's rows of D⁻¹ (InvertDiag), from steps steps of CG–Lanczos: the recurrence,
// start vector (krylov.StartVector by global index) and stopping rules of the serial
// set-up's backend.CGLanczos, with every product and inner product distributed (Dot:
// the same bits on every rank, so all take the same branches). The estimate differs
// from the serial one in the last bits, the sums being grouped by rank. A breakdown is
// an error wrapping amg.ErrNotSPD. Every rank must call it together.
func EstimateEigenvalues(a *Matrix, dinv []float64, steps int) (krylov.EigenEstimate, error) {
	b := a.Local.R
	n := a.LocalLen()
	if len(dinv) != (a.Hi-a.Lo)*b*b {
		panic("dist: EstimateEigenvalues: dinv does not hold this rank's diagonal blocks")
	}
	N := a.Layout.N() * b
	if steps < 1 || N < 1 {
		panic("dist: EstimateEigenvalues: no steps or an empty operator")
	}
	steps = min(steps, N)
	r, z, p, q := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	krylov.StartVector(r, a.Lo*b)
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	brk := func(it int, what string, v float64) error {
		return fmt.Errorf("dist: %w: eigenvalue estimate: %w", amg.ErrNotSPD,
			&krylov.BreakdownError{Iteration: it, Quantity: what, Value: v})
	}
	blockDiag(b, dinv, r, z)
	rz, err := Dot(a.Comm, r, z)
	if err != nil {
		return krylov.EigenEstimate{}, err
	}
	if !(rz > 0) || !finite(rz) {
		return krylov.EigenEstimate{}, brk(0, "rᵀz", rz)
	}
	rz0 := rz
	copy(p, z)
	var alphas, betas []float64
	for it := 1; it <= steps; it++ {
		if err := a.MulVec(p, q); err != nil {
			return krylov.EigenEstimate{}, err
		}
		pq, err := Dot(a.Comm, p, q)
		if err != nil {
			return krylov.EigenEstimate{}, err
		}
		if !(pq > 0) || !finite(pq) {
			return krylov.EigenEstimate{}, brk(it, "pᵀAp", pq)
		}
		alpha := rz / pq
		alphas = append(alphas, alpha)
		if it == steps {
			break
		}
		for i := range r {
			r[i] -= alpha * q[i]
		}
		blockDiag(b, dinv, r, z)
		rzNew, err := Dot(a.Comm, r, z)
		if err != nil {
			return krylov.EigenEstimate{}, err
		}
		if rzNew <= 1e-24*rz0 {
			break
		}
		if !finite(rzNew) {
			return krylov.EigenEstimate{}, brk(it, "rᵀz", rzNew)
		}
		beta := rzNew / rz
		betas = append(betas, beta)
		rz = rzNew
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	return krylov.LanczosEstimate(alphas, betas)
}
