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

// StartVector fills v with the CG–Lanczos estimate's pseudo-random start vector from
// entry offset on: v[i] is entry offset+i. The host set-up (amg) and a re-setup on a
// backend (amg/cycle) both start backend.CGLanczos from it, so they get the same
// estimate.
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
		return EigenEstimate{}, fmt.Errorf("%w: eigenvalue estimate from %d α and %d β", ErrTolerance, k, len(betas))
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
	// Dsterf rescales a matrix whose entries approach the overflow or underflow
	// thresholds, and gonum's rescaling of a single column panics; an exact scaling
	// by a power of two into the middle of the range first changes no Ritz value's
	// bits beyond that scaling.
	amax := 0.0
	for j := range d {
		amax = math.Max(amax, math.Max(math.Abs(d[j]), math.Abs(off[j])))
	}
	if !(amax > 0) || math.IsInf(amax, 0) {
		return EigenEstimate{}, fmt.Errorf("%w: eigenvalue estimate: Lanczos matrix entries up to %g", ErrBreakdown, amax)
	}
	scale := 1.0
	if amax > 0x1p100 || amax < 0x1p-100 {
		_, e := math.Frexp(amax)
		scale = math.Ldexp(1, -e)
		for j := range d {
			d[j] *= scale
			off[j] *= scale
		}
	}
	if !(gonum.Implementation{}).Dsterf(k, d, off) {
		return EigenEstimate{}, fmt.Errorf("%w: eigenvalue estimate: tridiagonal eigenvalue iteration did not converge", ErrBreakdown)
	}
	for j := range d {
		d[j] /= scale
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
