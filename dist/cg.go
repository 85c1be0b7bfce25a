package dist

import (
	"fmt"
	"slices"
)

// Preconditioner applies z = M⁻¹r on this rank's part of distributed vectors. An
// implementation that communicates must do so on every rank together; if it can fail
// it also has an Err() error method (Hierarchy has), which CG checks after each Apply.
type Preconditioner interface {
	Apply(r, z []float64)
}

// apply runs m and returns the error it kept, if it keeps one.
func apply(m Preconditioner, r, z []float64) error {
	m.Apply(r, z)
	if e, ok := m.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// CGResult is what CG reports.
type CGResult struct {
	Iterations int     // iterations done
	Residual   float64 // ‖b − Ax‖₂ / ‖b‖₂ at the end (the recurrence's residual)
}

// CG solves A·x = b by preconditioned conjugate gradients from the x given, until
// ‖r‖₂ ≤ rtol·‖b‖₂ or maxIter iterations, on every rank together. It stops at its limit
// with an error wrapping ErrNotConverged, and at a non-positive pᵀAp or rᵀz with one
// wrapping ErrBreakdown. Every scalar comes from Dot, so each rank takes the same
// branches, and a rerun with the same layout gives the same bits.
func CG(a *Matrix, m Preconditioner, b, x []float64, rtol float64, maxIter int) (CGResult, error) {
	n := a.LocalLen()
	if !slices.Equal(a.Layout.Offsets, a.ColLayout.Offsets) {
		panic("dist: CG: the operator's columns are not distributed as its rows")
	}
	if len(b) != n || len(x) != n {
		panic("dist: CG: vector length is not LocalLen")
	}
	c := a.Comm
	r, z, p, q := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	if err := a.MulVec(x, q); err != nil {
		return CGResult{}, err
	}
	for i := range r {
		r[i] = b[i] - q[i]
	}
	bn, err := Norm(c, b)
	if err != nil {
		return CGResult{}, err
	}
	if bn == 0 {
		bn = 1
	}
	rn, err := Norm(c, r)
	if err != nil {
		return CGResult{}, err
	}
	res := CGResult{Residual: rn / bn}
	if res.Residual <= rtol {
		return res, nil
	}
	if err := apply(m, r, z); err != nil {
		return res, err
	}
	copy(p, z)
	rz, err := Dot(c, r, z)
	if err != nil {
		return res, err
	}
	for res.Iterations < maxIter {
		if rz <= 0 {
			return res, fmt.Errorf("%w: rᵀz = %g at iteration %d", ErrBreakdown, rz, res.Iterations)
		}
		if err := a.MulVec(p, q); err != nil {
			return res, err
		}
		pq, err := Dot(c, p, q)
		if err != nil {
			return res, err
		}
		if pq <= 0 {
			return res, fmt.Errorf("%w: pᵀAp = %g at iteration %d", ErrBreakdown, pq, res.Iterations)
		}
		alpha := rz / pq
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * q[i]
		}
		res.Iterations++
		if rn, err = Norm(c, r); err != nil {
			return res, err
		}
		res.Residual = rn / bn
		if res.Residual <= rtol {
			return res, nil
		}
		if err := apply(m, r, z); err != nil {
			return res, err
		}
		rzNew, err := Dot(c, r, z)
		if err != nil {
			return res, err
		}
		beta := rzNew / rz
		rz = rzNew
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	return res, fmt.Errorf("%w: relative residual %.3g after %d iterations (rtol %g)", ErrNotConverged, res.Residual, res.Iterations, rtol)
}
