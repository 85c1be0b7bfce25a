package amg

import (
	"fmt"
	"math"

	"blockamg/bsr"
)

// cholesky is the dense factor L (lower, row-major) of the coarsest operator, solved
// exactly at the bottom of every cycle. Its cost, n³/3 once and 2n² per solve, is why
// coarsening goes on until the coarse grid is small (CoarseEqLimit).
type cholesky struct {
	n int
	l []float64
}

// factorCholesky factors the square-blocked matrix A = L·Lᵀ. A pivot that is not
// positive (relative to the original diagonal entry, up to rounding) means A is not
// symmetric positive definite: an error wrapping ErrNotSPD names the scalar row.
func factorCholesky(A *bsr.Matrix) (*cholesky, error) {
	n := A.Rows()
	l := A.ToDense()
	for j := 0; j < n; j++ {
		orig := l[j*n+j]
		d := orig
		for k := 0; k < j; k++ {
			d -= l[j*n+k] * l[j*n+k]
		}
		if !(d > 1e-14*math.Abs(orig)) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("%w: coarse Cholesky: pivot %g at row %d (diagonal %g)", ErrNotSPD, d, j, orig)
		}
		d = math.Sqrt(d)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := l[i*n+j]
			li, lj := l[i*n:i*n+j], l[j*n:j*n+j]
			for k := range lj {
				s -= li[k] * lj[k]
			}
			l[i*n+j] = s / d
		}
	}
	for i := 0; i < n; i++ {
		clear(l[i*n+i+1 : (i+1)*n])
	}
	return &cholesky{n: n, l: l}, nil
}

// solve computes x = A⁻¹·b (x and b may alias).
func (c *cholesky) solve(b, x []float64) {
	n, l := c.n, c.l
	copy(x, b)
	for i := 0; i < n; i++ {
		s := x[i]
		for k, v := range l[i*n : i*n+i] {
			s -= v * x[k]
		}
		x[i] = s / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * x[k]
		}
		x[i] = s / l[i*n+i]
	}
}
