package amg

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/bsr"
)

// CoarseFactor is the dense Cholesky factor L (lower, row-major) of the coarsest
// operator, solved exactly at the bottom of every cycle: by Solve on the host, or on a
// device by a product with the dense inverse (Inverse). It is the one coarse
// factorization of the solver, whatever the backend. Its cost, n³/3 once and 2n² per
// solve, is why coarsening goes on until the coarse grid is small (CoarseEqLimit).
// The zero value is ready for Factor.
type CoarseFactor struct {
	n int
	l []float64
}

// Size returns the number of unknowns factored.
func (c *CoarseFactor) Size() int { return c.n }

// Factor factors the square-blocked matrix A = L·Lᵀ from its lower triangle, reusing
// c's storage when the size matches. A pivot that is not positive (relative to the
// original diagonal entry, up to rounding) means A is not symmetric positive definite:
// an error wrapping ErrNotSPD names the scalar row.
func (c *CoarseFactor) Factor(A *bsr.Matrix) error {
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

// Solve computes x = A⁻¹·b (x and b may alias; len n each).
func (c *CoarseFactor) Solve(b, x []float64) {
	if len(b) != c.n || len(x) != c.n {
		panic("amg: CoarseFactor.Solve: vector length mismatch")
	}
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

// Inverse writes A⁻¹ (n×n, row-major, exactly symmetric) into inv: W = L⁻¹ by
// forward substitution, then A⁻¹ = WᵀW, about 2n³/3 flops.
func (c *CoarseFactor) Inverse(inv []float64) {
	n, l := c.n, c.l
	if len(inv) != n*n {
		panic("amg: CoarseFactor.Inverse: len(inv) != n²")
	}
	w := make([]float64, n*n) // W = L⁻¹, lower, row-major
	for j := 0; j < n; j++ {
		w[j*n+j] = 1 / l[j*n+j]
		for i := j + 1; i < n; i++ {
			s := 0.0
			for k := j; k < i; k++ {
				s -= l[i*n+k] * w[k*n+j]
			}
			w[i*n+j] = s / l[i*n+i]
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := i; k < n; k++ {
				s += w[k*n+i] * w[k*n+j]
			}
			inv[i*n+j], inv[j*n+i] = s, s
		}
	}
}
