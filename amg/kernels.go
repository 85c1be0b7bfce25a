package amg

import (
	"blockamg/bsr"
	"blockamg/internal/par"
)

// The cycle's row kernels. Each output row is written by one goroutine from values it
// reads in storage order, so the bits do not depend on the worker count. They take the
// matrix arrays directly so that each maps onto one GPU kernel.

// minChunk is the least work (stored blocks plus rows, or vector entries) of a
// parallel chunk, so that small levels run on one goroutine. Tests lower it to drive
// the parallel paths on small problems; it never changes results, only the split.
var minChunk = 1 << 13

// rowResidual writes t = b_i − (A·x)_i for block row i into t (len A.R).
func rowResidual(A *bsr.Matrix, i int, b, x, t []float64) {
	r := A.R
	bs := int64(r * r)
	copy(t, b[i*r:(i+1)*r])
	if r == 3 {
		t0, t1, t2 := t[0], t[1], t[2]
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k]) * 3
			a := (*[9]float64)(A.Val[k*9:])
			xj := (*[3]float64)(x[j:])
			t0 -= a[0]*xj[0] + a[1]*xj[1] + a[2]*xj[2]
			t1 -= a[3]*xj[0] + a[4]*xj[1] + a[5]*xj[2]
			t2 -= a[6]*xj[0] + a[7]*xj[1] + a[8]*xj[2]
		}
		t[0], t[1], t[2] = t0, t1, t2
		return
	}
	if r == 6 {
		var acc [6]float64
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k]) * 6
			a := (*[36]float64)(A.Val[k*36:])
			xj := (*[6]float64)(x[j:])
			for p := 0; p < 6; p++ {
				ap := (*[6]float64)(a[p*6:])
				acc[p] += ap[0]*xj[0] + ap[1]*xj[1] + ap[2]*xj[2] + ap[3]*xj[3] + ap[4]*xj[4] + ap[5]*xj[5]
			}
		}
		for p := range acc {
			t[p] -= acc[p]
		}
		return
	}
	for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
		j := int(A.ColIdx[k]) * r
		a := A.Val[k*bs : (k+1)*bs]
		for p := 0; p < r; p++ {
			s := 0.0
			for q, v := range a[p*r : (p+1)*r] {
				s += v * x[j+q]
			}
			t[p] -= s
		}
	}
}

// residual computes res = b − A·x.
func residual(A *bsr.Matrix, b, x, res []float64, workers int) {
	r := A.R
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			rowResidual(A, i, b, x, res[i*r:(i+1)*r])
		}
	})
}

// jacobiScale computes d = c2·D⁻¹·b blockwise (the first Chebyshev step from x = 0).
func jacobiScale(r int, dinv, b, d []float64, c2 float64, workers int) {
	n := len(b) / r
	par.For(n, workers, minChunk, func(lo, hi int) {
		t := make([]float64, r)
		for i := lo; i < hi; i++ {
			clear(t)
			bsr.GemvAcc(r, r, dinv[i*r*r:(i+1)*r*r], b[i*r:(i+1)*r], t)
			for p, v := range t {
				d[i*r+p] = c2 * v
			}
		}
	})
}

// chebStep computes d = c1·d + c2·D⁻¹·(b − A·x) row by row.
func chebStep(A *bsr.Matrix, dinv, b, x, d []float64, c1, c2 float64, workers int) {
	r := A.R
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		t := make([]float64, r)
		z := make([]float64, r)
		for i := lo; i < hi; i++ {
			rowResidual(A, i, b, x, t)
			clear(z)
			bsr.GemvAcc(r, r, dinv[i*r*r:(i+1)*r*r], t, z)
			di := d[i*r : (i+1)*r]
			for p, v := range z {
				di[p] = c1*di[p] + c2*v
			}
		}
	})
}

// addTo computes x += d.
func addTo(x, d []float64, workers int) {
	par.For(len(x), workers, minChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x[i] += d[i]
		}
	})
}
