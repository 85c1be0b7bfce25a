package amg

import "math"

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
		// Plain sums of squares: near-null space entries are O(1) to O(size of the
		// domain), far from overflow.
		xx := 0.0
		for _, v := range x[j+1:] {
			xx += v * v
		}
		if xx == 0 {
			tau[j] = 0
			continue
		}
		beta := -math.Copysign(math.Sqrt(alpha*alpha+xx), alpha)
		tau[j] = (beta - alpha) / beta
		s := 1 / (alpha - beta)
		u := x[j+1:]
		for i := range u {
			u[i] *= s
		}
		x[j] = beta
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
