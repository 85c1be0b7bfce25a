package cpu

import (
	"math"
	"sync/atomic"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/bsrkern"
	"github.com/blockamg/blockamg/internal/par"
)

// The smoother's row kernels (backend.ChebStepper). Each output row is written by one
// goroutine from values it reads in storage order, so the bits do not depend on the
// worker count. They take the matrix arrays directly so that each maps onto one GPU
// kernel. Blocks of 3×3 and 6×6 (elasticity's fine and coarse levels) have unrolled
// paths; other sizes a generic one.

// minChunk is the least work (stored blocks plus rows, or vector entries) of a
// parallel chunk, so that small levels run on one goroutine. Tests lower it to drive
// the parallel paths on small problems; it never changes results, only the split.
var minChunk = 1 << 13

// value is the storage type of a smoothing operator's values: float64, or float32 for
// a matrix from UploadMatrixFloat32. Products and sums are always formed in float64.
type value interface{ float32 | float64 }

// rowResidual writes t = b_i − (A·x)_i for block row i into t (len A.R).
func rowResidual[T value](A *bsr.Matrix, val []T, i int, b, x, t []float64) {
	switch A.R {
	case 3:
		rowResidual3(A.RowPtr, A.ColIdx, val, i, b, x, (*[3]float64)(t))
	case 6:
		rowResidual6(A.RowPtr, A.ColIdx, val, i, b, x, (*[6]float64)(t))
	default:
		r := A.R
		bs := int64(r * r)
		copy(t, b[i*r:(i+1)*r])
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			j := int(A.ColIdx[k]) * r
			a := val[k*bs : (k+1)*bs]
			for p := 0; p < r; p++ {
				s := 0.0
				for q, v := range a[p*r : (p+1)*r] {
					s += float64(v) * x[j+q]
				}
				t[p] -= s
			}
		}
	}
}

func rowResidual3[T value](rowPtr []int64, colIdx []int32, val []T, i int, b, x []float64, t *[3]float64) {
	var s0, s1, s2 float64
	for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
		j := int(colIdx[k]) * 3
		a := (*[9]T)(val[k*9:])
		xj := (*[3]float64)(x[j:])
		x0, x1, x2 := xj[0], xj[1], xj[2]
		s0 += float64(a[0])*x0 + float64(a[1])*x1 + float64(a[2])*x2
		s1 += float64(a[3])*x0 + float64(a[4])*x1 + float64(a[5])*x2
		s2 += float64(a[6])*x0 + float64(a[7])*x1 + float64(a[8])*x2
	}
	bi := (*[3]float64)(b[i*3:])
	t[0], t[1], t[2] = bi[0]-s0, bi[1]-s1, bi[2]-s2
}

func rowResidual6[T value](rowPtr []int64, colIdx []int32, val []T, i int, b, x []float64, t *[6]float64) {
	var s [6]float64
	for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
		j := int(colIdx[k]) * 6
		a := (*[36]T)(val[k*36:])
		xj := (*[6]float64)(x[j:])
		x0, x1, x2, x3, x4, x5 := xj[0], xj[1], xj[2], xj[3], xj[4], xj[5]
		for p := 0; p < 6; p++ {
			s[p] += float64(a[6*p])*x0 + float64(a[6*p+1])*x1 + float64(a[6*p+2])*x2 +
				float64(a[6*p+3])*x3 + float64(a[6*p+4])*x4 + float64(a[6*p+5])*x5
		}
	}
	bi := (*[6]float64)(b[i*6:])
	for p := 0; p < 6; p++ {
		t[p] = bi[p] - s[p]
	}
}

// blockGemv writes z = d·t for an r×r block d.
func blockGemv(r int, d, t, z []float64) {
	switch r {
	case 3:
		D := (*[9]float64)(d)
		T := (*[3]float64)(t)
		Z := (*[3]float64)(z)
		Z[0] = D[0]*T[0] + D[1]*T[1] + D[2]*T[2]
		Z[1] = D[3]*T[0] + D[4]*T[1] + D[5]*T[2]
		Z[2] = D[6]*T[0] + D[7]*T[1] + D[8]*T[2]
	case 6:
		D := (*[36]float64)(d)
		T := (*[6]float64)(t)
		Z := (*[6]float64)(z)
		for p := 0; p < 6; p++ {
			Z[p] = D[6*p]*T[0] + D[6*p+1]*T[1] + D[6*p+2]*T[2] + D[6*p+3]*T[3] + D[6*p+4]*T[4] + D[6*p+5]*T[5]
		}
	default:
		clear(z[:r])
		bsr.GemvAcc(r, r, d, t, z)
	}
}

func residualT[T value](A *bsr.Matrix, val []T, b, x, res []float64, workers int) {
	r := A.R
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		var rs rowScratch
		for c := lo; c < hi; c += chunkRows {
			e := min(c+chunkRows, hi)
			residualRows(&rs, A, val, c, e, b, x, res[c*r:e*r])
		}
	})
}

// chunkRows is the block rows the row kernels handle a call: the vector kernels'
// per-call cost is spread over them, and a chunk's residuals (at most 6·chunkRows
// values) stay in the first-level cache for the caller's next use.
const chunkRows = 32

// rowScratch holds the vector kernels' lanes and a chunk's residuals; each
// goroutine has its own, on its stack.
type rowScratch struct {
	lanes [bsrkern.ScratchMax * chunkRows]float64
	t     [maxVectorBlock * chunkRows]float64
}

// maxVectorBlock is the largest block size the vector kernels take.
const maxVectorBlock = 6

// residualRows writes t[(i−lo)·r …] = b_i − (A·x)_i for block rows lo ≤ i < hi:
// through the vector kernels for 3×3 or 6×6 blocks where the processor runs them
// (package bsrkern; float32 values are widened in the kernel), else row by row in Go.
// Either way each row's bits depend on that row alone, not on the split into chunks
// or workers.
func residualRows[T value](rs *rowScratch, A *bsr.Matrix, val []T, lo, hi int, b, x, t []float64) {
	r := A.R
	switch v := any(val).(type) {
	case []float64:
		if !bsrkern.Has(r, r, false) {
			break
		}
		bsrkern.ResidualRows(r, r, A.RowPtr, A.ColIdx, v, lo, hi, b, x, t, rs.lanes[:])
		return
	case []float32:
		if !bsrkern.Has(r, r, true) {
			break
		}
		bsrkern.ResidualRowsF32(r, r, A.RowPtr, A.ColIdx, v, lo, hi, b, x, t, rs.lanes[:])
		return
	}
	for i := lo; i < hi; i++ {
		rowResidual(A, val, i, b, x, t[(i-lo)*r:(i-lo+1)*r])
	}
}

// jacobiScale computes d = c2·D⁻¹·b blockwise (the first Chebyshev step from x = 0).
func jacobiScale(r int, dinv, b, d []float64, c2 float64, workers int) {
	n := len(b) / r
	par.For(n, workers, minChunk, func(lo, hi int) {
		var z [8]float64
		zz := z[:]
		if r > len(z) {
			zz = make([]float64, r)
		}
		if r == 3 {
			// Written out: blockGemv's operations in its order, without the call
			// and slicing per row.
			D, B, Dd := dinv[9*lo:9*hi], b[3*lo:3*hi], d[3*lo:3*hi]
			for k := 0; k < hi-lo; k++ {
				dk, bk, dd := (*[9]float64)(D[9*k:]), (*[3]float64)(B[3*k:]), (*[3]float64)(Dd[3*k:])
				z0 := dk[0]*bk[0] + dk[1]*bk[1] + dk[2]*bk[2]
				z1 := dk[3]*bk[0] + dk[4]*bk[1] + dk[5]*bk[2]
				z2 := dk[6]*bk[0] + dk[7]*bk[1] + dk[8]*bk[2]
				dd[0], dd[1], dd[2] = c2*z0, c2*z1, c2*z2
			}
			return
		}
		for i := lo; i < hi; i++ {
			blockGemv(r, dinv[i*r*r:(i+1)*r*r], b[i*r:(i+1)*r], zz)
			di := d[i*r : (i+1)*r]
			for p := range di {
				di[p] = c2 * zz[p]
			}
		}
	})
}

// chebStepT computes d = c1·d + c2·D⁻¹·(b − A·x) and xo = x + d row by row; d is not
// read when c1 is 0.
func chebStepT[T value](A *bsr.Matrix, val []T, dinv, b, x, d, xo []float64, c1, c2 float64, workers int) {
	r := A.R
	par.ForWeighted(A.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		var rs rowScratch
		var z [8]float64
		zz, t := z[:], rs.t[:]
		if r > len(z) {
			zz = make([]float64, r)
		}
		if r > maxVectorBlock {
			t = make([]float64, chunkRows*r)
		}
		for c := lo; c < hi; c += chunkRows {
			e := min(c+chunkRows, hi)
			residualRows(&rs, A, val, c, e, b, x, t)
			chebRows(r, c, e, dinv, t, zz, x, d, xo, c1, c2)
		}
	})
}

// residualSym is residualT for an operator kept by its upper blocks.
func residualSym(u *bsr.Upper, b, x, res []float64, workers int) {
	r := u.B
	par.ForWeighted(u.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		u.Range(lo, hi, x, func(c, e int, s []float64) {
			t := res[c*r : e*r]
			for k, v := range b[c*r : e*r] {
				t[k] = v - s[k]
			}
		})
	})
}

// chebStepSym is chebStepT for an operator kept by its upper blocks: the same
// operations on each row once its product is complete.
func chebStepSym(u *bsr.Upper, dinv, b, x, d, xo []float64, c1, c2 float64, workers int) {
	r := u.B
	par.ForWeighted(u.RowPtr, workers, int64(minChunk), func(lo, hi int) {
		var z [maxVectorBlock]float64
		var t [maxVectorBlock * bsr.UpperChunk]float64
		u.Range(lo, hi, x, func(c, e int, s []float64) {
			tt := t[:(e-c)*r]
			for k, v := range b[c*r : e*r] {
				tt[k] = v - s[k]
			}
			chebRows(r, c, e, dinv, tt, z[:r], x, d, xo, c1, c2)
		})
	})
}

// chebRow finishes the Chebyshev step of block row i from its residual t (z is r
// values of scratch): d_i = c1·d_i + c2·D_i⁻¹·t, xo_i = x_i + d_i; d is not read when
// c1 is 0.
func chebRow(r, i int, dinv, t, z, x, d, xo []float64, c1, c2 float64) {
	blockGemv(r, dinv[i*r*r:(i+1)*r*r], t, z)
	di := d[i*r : (i+1)*r]
	xi, oi := x[i*r:(i+1)*r], xo[i*r:(i+1)*r]
	for p := range di {
		if c1 == 0 {
			di[p] = c2 * z[p] // d is not read (it may hold anything)
		} else {
			di[p] = c1*di[p] + c2*z[p]
		}
		oi[p] = xi[p] + di[p]
	}
}

// chebRows is chebRow for block rows c … e−1, whose residuals are t (r values a row),
// with 3×3 and 6×6 rows written out: the same operations in the same order (so the
// same bits), without chebRow's call and slicing per row, which cost as much as the
// row's arithmetic.
func chebRows(r, c, e int, dinv, t, z, x, d, xo []float64, c1, c2 float64) {
	switch r {
	case 3:
		n := e - c
		D, T := dinv[9*c:9*e], t[:3*n]
		X, Dd, O := x[3*c:3*e], d[3*c:3*e], xo[3*c:3*e]
		for k := 0; k < n; k++ {
			dk, tk := (*[9]float64)(D[9*k:]), (*[3]float64)(T[3*k:])
			z0 := dk[0]*tk[0] + dk[1]*tk[1] + dk[2]*tk[2]
			z1 := dk[3]*tk[0] + dk[4]*tk[1] + dk[5]*tk[2]
			z2 := dk[6]*tk[0] + dk[7]*tk[1] + dk[8]*tk[2]
			xk, dd, ok := (*[3]float64)(X[3*k:]), (*[3]float64)(Dd[3*k:]), (*[3]float64)(O[3*k:])
			// Entry by entry as chebRow goes, d's then xo's.
			if c1 == 0 { // d is not read (it may hold anything)
				dd[0] = c2 * z0
				ok[0] = xk[0] + dd[0]
				dd[1] = c2 * z1
				ok[1] = xk[1] + dd[1]
				dd[2] = c2 * z2
				ok[2] = xk[2] + dd[2]
			} else {
				dd[0] = c1*dd[0] + c2*z0
				ok[0] = xk[0] + dd[0]
				dd[1] = c1*dd[1] + c2*z1
				ok[1] = xk[1] + dd[1]
				dd[2] = c1*dd[2] + c2*z2
				ok[2] = xk[2] + dd[2]
			}
		}
	case 6:
		n := e - c
		D, T := dinv[36*c:36*e], t[:6*n]
		X, Dd, O := x[6*c:6*e], d[6*c:6*e], xo[6*c:6*e]
		for k := 0; k < n; k++ {
			dk, tk := (*[36]float64)(D[36*k:]), (*[6]float64)(T[6*k:])
			xk, dd, ok := (*[6]float64)(X[6*k:]), (*[6]float64)(Dd[6*k:]), (*[6]float64)(O[6*k:])
			for p := 0; p < 6; p++ {
				zp := dk[6*p]*tk[0] + dk[6*p+1]*tk[1] + dk[6*p+2]*tk[2] + dk[6*p+3]*tk[3] + dk[6*p+4]*tk[4] + dk[6*p+5]*tk[5]
				if c1 == 0 {
					dd[p] = c2 * zp
				} else {
					dd[p] = c1*dd[p] + c2*zp
				}
				ok[p] = xk[p] + dd[p]
			}
		}
	default:
		for i := c; i < e; i++ {
			chebRow(r, i, dinv, t[(i-c)*r:(i-c+1)*r], z, x, d, xo, c1, c2)
		}
	}
}

// toFloat32 rounds src into dst.
//
// It reports whether every value fits: a magnitude beyond math.MaxFloat32 becomes
// ±Inf, and the cycle would then fill the solution with NaN.
func toFloat32(src []float64, dst []float32, workers int) bool {
	var overflow atomic.Bool
	par.For(len(src), workers, minChunk, func(lo, hi int) {
		inf := false
		for i := lo; i < hi; i++ {
			dst[i] = float32(src[i])
			inf = inf || math.IsInf(float64(dst[i]), 0)
		}
		if inf {
			overflow.Store(true)
		}
	})
	return !overflow.Load()
}
