package filter

import "math"

// cholesky factors the symmetric k×k matrix M (row-major, lower triangle read) as
// M = L·Lᵀ into L, packed row-major lower triangle (row j's j+1 entries start at
// j(j+1)/2), with each diagonal entry replaced by its reciprocal so that the solves
// only multiply. It reports false when a pivot d_j (the Schur complement entry before
// the square root) is not above tol·M_jj: column j of the stacked coarse blocks is then
// (nearly) in the span of the columns before it, and the projection is not defined to
// working accuracy. The ratio d_j/M_jj does not change when the near-null vectors are
// rescaled, and neither does the projection.
func cholesky(k int, M, L []float64, tol float64) bool {
	for j := 0; j < k; j++ {
		rj := j * (j + 1) / 2
		d := M[j*k+j]
		for l := 0; l < j; l++ {
			d -= L[rj+l] * L[rj+l]
		}
		if !(d > tol*M[j*k+j]) {
			return false
		}
		ljj := math.Sqrt(d)
		inv := 1 / ljj
		L[rj+j] = inv
		for i := j + 1; i < k; i++ {
			ri := i * (i + 1) / 2
			s := M[i*k+j]
			for l := 0; l < j; l++ {
				s -= L[ri+l] * L[rj+l]
			}
			L[ri+j] = s * inv
		}
	}
	return true
}
