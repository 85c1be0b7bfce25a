package amg

import (
	"math"

	"github.com/blockamg/blockamg/bsr"
)

// thinQR factors the m×k matrix a (m ≥ k), stored column-major (column j is
// a[j*m:(j+1)*m]), as a = Q·R by Householder reflections with LAPACK's dgeqrf/dorgqr
// conventions (R_jj = −sign(x_j)‖x‖, no reflection when the part below the diagonal
// is already zero). It overwrites a with Q (m×k column-major, orthonormal columns even
// when a is rank deficient) and writes R (k×k upper triangular, row-major) into r.
// tau needs k entries of scratch.
func thinQR(m, k int, a, r, tau []float64) {
	if m < k {
		panic("amg: thinQR: fewer rows than columns")
	}
	col := func(j int) []float64 { return a[j*m : (j+1)*m : (j+1)*m] }
	// Factor: Householder vectors below the diagonal, R on and above it.
	for j := 0; j < k; j++ {
		x := col(j)
		alpha := x[j]
		u := x[j+1:]
		// The plain sum of squares, and its plain root, wherever they stay in range
		// (near-null space entries of any sane scale). A column scaled beyond 1e±154
		// (a near-null vector given in other units) would overflow them or underflow
		// them to zero, then NaN or a skipped reflection; there its norm is taken on
		// the column scaled by a power of two, and u is divided rather than multiplied
		// by a reciprocal that could overflow. Householder QR is otherwise invariant
		// under column scaling (exactly for powers of two), so Q does not depend on
		// the scale of B's columns.
		xx := 0.0
		for _, v := range u {
			xx += v * v
		}
		if nn := alpha*alpha + xx; xx > 0 && nn >= bsr.SumSquaresTiny && !math.IsInf(nn, 0) {
			beta := -math.Copysign(math.Sqrt(nn), alpha)
			tau[j] = (beta - alpha) / beta
			s := 1 / (alpha - beta)
			for i := range u {
				u[i] *= s
			}
			x[j] = beta
		} else {
			if ss, _ := bsr.SumSquares(u); ss == 0 {
				tau[j] = 0
				continue
			}
			beta := -math.Copysign(bsr.Norm(x[j:]), alpha)
			tau[j] = (beta - alpha) / beta
			d := alpha - beta
			for i := range u {
				u[i] /= d
			}
			x[j] = beta
		}
		// Apply H = I − τ·[1; u]·[1; u]ᵀ to the remaining columns.
		for c := j + 1; c < k; c++ {
			y := col(c)
			yl := y[j+1:]
			w := y[j]
			for i, v := range u {
				w += v * yl[i]
			}
			w *= tau[j]
			y[j] -= w
			for i, v := range u {
				yl[i] -= w * v
			}
		}
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			if j >= i {
				r[i*k+j] = a[j*m+i]
			} else {
				r[i*k+j] = 0
			}
		}
	}
	// Form Q = H₀·H₁·…·H_{k−1}·[I; 0] in place, last reflector first (dorg2r): when
	// reflector j is applied, columns c > j already hold H_{j+1}⋯H_{k−1}·e_c, whose
	// entries in rows ≤ j are zero.
	for j := k - 1; j >= 0; j-- {
		x := col(j)
		u := x[j+1:]
		for c := j + 1; c < k; c++ {
			yl := col(c)[j+1:]
			w := 0.0
			for i, v := range u {
				w += v * yl[i]
			}
			w *= tau[j]
			col(c)[j] = -w
			for i, v := range u {
				yl[i] -= w * v
			}
		}
		// Column j: H_j·e_j = e_j − τ·[1; u].
		t := tau[j]
		for i := range u {
			u[i] *= -t
		}
		x[j] = 1 - t
		clear(x[:j])
	}
}
