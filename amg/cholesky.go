package amg

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
)

// cholesky is the dense factor L (lower, row-major) of the coarsest operator, solved
// exactly at the bottom of every cycle. Its cost, n³/3 once and 2n² per solve, is why
// coarsening goes on until the coarse grid is small (CoarseEqLimit).
type cholesky struct {
	n int
	l []float64
}

// factorCholesky factors the square-blocked matrix A = L·Lᵀ.
func factorCholesky(A *bsr.Matrix) (*cholesky, error) {
	c := &cholesky{}
	return c, c.factor(A)
}

// factor factors A = L·Lᵀ into c, reusing c's storage when the size matches. A pivot
// that is not positive (relative to the original diagonal entry, up to rounding) means
// A is not symmetric positive definite: an error wrapping ErrNotSPD names the scalar row.
func (c *cholesky) factor(A *bsr.Matrix) error {
	n := A.Rows()
	if len(c.l) != n*n {
		c.l = make([]float64, n*n)
	}
	c.n = n
	l := c.l
	clear(l)
	bs := A.R * A.C
	for i := 0; i < A.BlockRows; i++ {
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k])
			blk := A.Val[k*int64(bs) : (k+1)*int64(bs)]
			for p := 0; p < A.R; p++ {
				copy(l[(i*A.R+p)*n+j*A.C:(i*A.R+p)*n+(j+1)*A.C], blk[p*A.C:(p+1)*A.C])
			}
		}
	}
	for j := 0; j < n; j++ {
		orig := l[j*n+j]
		d := orig
		for k := 0; k < j; k++ {
			d -= l[j*n+k] * l[j*n+k]
		}
		if !(d > 1e-14*math.Abs(orig)) || math.IsInf(d, 0) {
			return fmt.Errorf("%w: coarse Cholesky: pivot %g at row %d (diagonal %g)", ErrNotSPD, d, j, orig)
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
	return nil
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
