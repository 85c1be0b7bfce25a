package amg

import "math"

// thinQR factors the m×k row-major matrix a (m ≥ k) as a = Q·R by Householder
// reflections (LAPACK's dgeqrf/dorgqr conventions: R_jj = −sign(x_j)‖x‖, no reflection
// when the part below the diagonal is already zero). It overwrites a with Q (m×k,
// orthonormal columns even when a is rank deficient) and writes R (k×k, upper
// triangular, row-major) into r. tau needs k entries and v m entries of scratch.
func thinQR(m, k int, a, r, tau, v []float64) {
	if m < k {
		panic("amg: thinQR: fewer rows than columns")
	}
	// Factor: Householder vectors below the diagonal, R on and above it.
	for j := 0; j < k; j++ {
		alpha := a[j*k+j]
		// Plain sums of squares: near-null space entries are O(1) to O(size of the
		// domain), far from overflow.
		xx := 0.0
		for i := j + 1; i < m; i++ {
			xx += a[i*k+j] * a[i*k+j]
		}
		if xx == 0 {
			tau[j] = 0
			continue
		}
		beta := -math.Copysign(math.Sqrt(alpha*alpha+xx), alpha)
		tau[j] = (beta - alpha) / beta
		s := 1 / (alpha - beta)
		for i := j + 1; i < m; i++ {
			a[i*k+j] *= s
		}
		a[j*k+j] = beta
		// Apply H = I − τ·u·uᵀ (u = [1; a[j+1:, j]]) to the remaining columns.
		for c := j + 1; c < k; c++ {
			w := a[j*k+c]
			for i := j + 1; i < m; i++ {
				w += a[i*k+j] * a[i*k+c]
			}
			w *= tau[j]
			a[j*k+c] -= w
			for i := j + 1; i < m; i++ {
				a[i*k+c] -= w * a[i*k+j]
			}
		}
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			if j >= i {
				r[i*k+j] = a[i*k+j]
			} else {
				r[i*k+j] = 0
			}
		}
	}
	// Form Q = H₀·H₁·…·H_{k−1}·[I; 0] in place, last reflector first.
	for j := k - 1; j >= 0; j-- {
		for i := j + 1; i < m; i++ {
			v[i] = a[i*k+j]
		}
		// Columns c > j already hold Q's columns after H_{j+1}…; apply H_j to them.
		for c := j + 1; c < k; c++ {
			w := a[j*k+c]
			for i := j + 1; i < m; i++ {
				w += v[i] * a[i*k+c]
			}
			w *= tau[j]
			a[j*k+c] -= w
			for i := j + 1; i < m; i++ {
				a[i*k+c] -= w * v[i]
			}
		}
		// Column j: H_j·e_j = e_j − τ·u.
		a[j*k+j] = 1 - tau[j]
		for i := j + 1; i < m; i++ {
			a[i*k+j] = -tau[j] * v[i]
		}
		for i := 0; i < j; i++ {
			a[i*k+j] = 0
		}
	}
}
