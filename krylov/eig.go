package krylov

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/lapack/gonum"
)

// EigenEstimate holds extreme eigenvalue estimates of M⁻¹A.
type EigenEstimate struct {
	Min, Max float64 // smallest and largest Ritz values
	Steps    int     // CG steps the estimate is built from
}

// EstimateEigenvalues estimates the extreme eigenvalues of M⁻¹A (A and M symmetric
// positive definite, size n) from steps iterations of preconditioned CG on A·x = b with
// a fixed pseudo-random right-hand side: the CG coefficients give the Lanczos
// tridiagonal matrix whose eigenvalues (Ritz values) approximate those of M⁻¹A from
// inside, the largest one converging fastest. This is what PETSc's
// KSPComputeExtremeSingularValues does for CG (GAMG's -pc_gamg_esteig_ksp_max_it).
//
// It stops early when the Krylov space is exhausted (the residual vanishes). A
// non-positive pᵀAp or rᵀz returns *BreakdownError. The result depends only on the
// inputs, never on workers.
func EstimateEigenvalues(A Operator, M Preconditioner, n, steps, workers int) (EigenEstimate, error) {
	if n < 1 {
		return EigenEstimate{}, fmt.Errorf("%w: eigenvalue estimate on size %d", ErrTolerance, n)
	}
	return NewEigenEstimator(n).Estimate(A, M, steps, workers)
}

// EigenEstimator runs EstimateEigenvalues in work vectors it keeps, so that repeated
// estimates of the same size (multigrid re-setup) do not allocate them again. It is
// not safe for concurrent use.
type EigenEstimator struct {
	n          int
	r, z, p, q []float64
}

// NewEigenEstimator returns an estimator for operators of size n ≥ 1.
func NewEigenEstimator(n int) *EigenEstimator {
	return &EigenEstimator{n: n, r: make([]float64, n), z: make([]float64, n), p: make([]float64, n), q: make([]float64, n)}
}

// Estimate is EstimateEigenvalues for the estimator's size.
func (e *EigenEstimator) Estimate(A Operator, M Preconditioner, steps, workers int) (EigenEstimate, error) {
	n := e.n
	if steps < 1 || n < 1 {
		return EigenEstimate{}, fmt.Errorf("%w: eigenvalue estimate with %d steps on size %d", ErrTolerance, steps, n)
	}
	if M == nil {
		M = Identity{}
	}
	r, z, p, q := e.r, e.z, e.p, e.q
	forEach(n, workers, func(lo, hi int) { StartVector(r[lo:hi], lo) })
	M.Apply(r, z)
	rz := dot(r, z, workers)
	if !(rz > 0) || math.IsInf(rz, 0) {
		return EigenEstimate{}, &BreakdownError{Iteration: 0, Quantity: "rᵀz", Value: rz}
	}
	rz0 := rz
	copy(p, z)
	steps = min(steps, n) // a space of dimension n is exhausted after n steps
	alphas := make([]float64, 0, steps)
	betas := make([]float64, 0, steps)
	for it := 1; it <= steps; it++ {
		A.Apply(p, q)
		pq := dot(p, q, workers)
		if !(pq > 0) || math.IsInf(pq, 0) {
			return EigenEstimate{}, &BreakdownError{Iteration: it, Quantity: "pᵀAp", Value: pq}
		}
		alpha := rz / pq
		alphas = append(alphas, alpha)
		if it == steps {
			break
		}
		forEach(n, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				r[i] -= alpha * q[i]
			}
		})
		M.Apply(r, z)
		rzNew := dot(r, z, workers)
		// An exhausted Krylov space shows as rᵀz collapsing towards rounding level
		// (relative residual 1e-12); continuing would add spurious Ritz values.
		if rzNew <= 1e-24*rz0 {
			break
		}
		if math.IsInf(rzNew, 0) || math.IsNaN(rzNew) {
			return EigenEstimate{}, &BreakdownError{Iteration: it, Quantity: "rᵀz", Value: rzNew}
		}
		beta := rzNew / rz
		betas = append(betas, beta)
		rz = rzNew
		forEach(n, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				p[i] = z[i] + beta*p[i]
			}
		})
	}
	return LanczosEstimate(alphas, betas)
}

// StartVector fills v with the estimator's pseudo-random start vector from entry
// offset on: v[i] is entry offset+i. A backend that runs the same CG–Lanczos iteration
// (amg/backendcycle) starts from it to get the same estimate.
func StartVector(v []float64, offset int) {
	for i := range v {
		v[i] = noise(uint64(offset + i))
	}
}

// LanczosEstimate returns the extreme Ritz values of the Lanczos tridiagonal matrix
// built from the coefficients of k steps of preconditioned CG: alphas (k values) and
// betas (k−1 values, or k where the last is unused).
func LanczosEstimate(alphas, betas []float64) (EigenEstimate, error) {
	// Lanczos tridiagonal from CG: d₀ = 1/α₀, dⱼ = 1/αⱼ + βⱼ₋₁/αⱼ₋₁, eⱼ = √βⱼ/αⱼ.
	k := len(alphas)
	if k == 0 || len(betas) < k-1 {
		return EigenEstimate{}, fmt.Errorf("krylov: eigenvalue estimate from %d α and %d β", k, len(betas))
	}
	d := make([]float64, k)
	off := make([]float64, k)
	for j := 0; j < k; j++ {
		d[j] = 1 / alphas[j]
		if j > 0 {
			d[j] += betas[j-1] / alphas[j-1]
		}
		if j < k-1 {
			off[j] = math.Sqrt(betas[j]) / alphas[j]
		}
	}
	if !(gonum.Implementation{}).Dsterf(k, d, off) {
		return EigenEstimate{}, fmt.Errorf("krylov: eigenvalue estimate: tridiagonal eigenvalue iteration did not converge")
	}
	// Dsterf sorts ascending.
	return EigenEstimate{Min: d[0], Max: d[k-1], Steps: k}, nil
}

// noise returns a pseudo-random value in [-1, 1) that depends only on i (splitmix64),
// so the start vector is the same for any worker count.
func noise(i uint64) float64 {
	z := (i + 1) * 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/float64(1<<52) - 1
}
