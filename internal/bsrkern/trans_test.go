package bsrkern

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// transRef is the restriction's plain Go loop: for rows [lo, hi) and block columns
// [clo, chi), y_c += A_icᵀ·(alpha·x_i), each entry ((y + a0·b0) + a1·b1) + a2·b2.
func transRef(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, alpha float64, x, y []float64, clo, chi int) {
	for i := lo; i < hi; i++ {
		a0, a1, a2 := alpha*x[3*i], alpha*x[3*i+1], alpha*x[3*i+2]
		for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
			c := int(colIdx[k])
			if c < clo || c >= chi {
				continue
			}
			b := val[18*k : 18*k+18]
			for j := 0; j < 6; j++ {
				y[6*c+j] = y[6*c+j] + b[j]*a0 + b[6+j]*a1 + b[12+j]*a2
			}
		}
	}
}

// TestTransRows36 checks the kernel bitwise against the Go loop it replaces, for
// every row range and several column ranges, from a y of random values (so the
// products are added to something), and that y outside the column range is left
// alone.
func TestTransRows36(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(3, 4))
	n, nc := 50, 17
	rowPtr, colIdx, val := random36(rng, n, nc)
	_, x := randomValues(rng, 0, n, 3)
	y0 := make([]float64, 6*nc)
	for k := range y0 {
		y0[k] = rng.NormFloat64()
	}
	for _, alpha := range []float64{1, -0.7} {
		for lo := 0; lo < n; lo += 9 {
			for hi := lo; hi <= n; hi += 11 {
				for _, cr := range [][2]int{{0, nc}, {0, 5}, {5, 12}, {12, nc}, {3, 3}} {
					want := append([]float64(nil), y0...)
					got := append([]float64(nil), y0...)
					transRef(rowPtr, colIdx, val, lo, hi, alpha, x, want, cr[0], cr[1])
					TransRows36(rowPtr, colIdx, val, lo, hi, alpha, x, got, cr[0], cr[1])
					for k := range want {
						if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
							t.Fatalf("alpha %v rows [%d, %d) columns %v: y[%d] = %v, want %v", alpha, lo, hi, cr, k, got[k], want[k])
						}
					}
				}
			}
		}
	}
}

// TestTransRows36Malformed: a block column beyond y, a row pointer beyond the blocks
// or decreasing, and rows beyond x each panic, naming the kernel.
func TestTransRows36Malformed(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(5, 6))
	n, nc := 8, 6
	for name, f := range map[string]func(rowPtr []int64, colIdx []int32, val, x, y []float64) ([]int64, []int32, []float64, []float64, []float64){
		"column beyond y": func(rp []int64, ci []int32, v, x, y []float64) ([]int64, []int32, []float64, []float64, []float64) {
			return rp, ci, v, x, y[:6*(nc-1)]
		},
		"row end beyond the blocks": func(rp []int64, ci []int32, v, x, y []float64) ([]int64, []int32, []float64, []float64, []float64) {
			rp[n] += 3
			return rp, ci, v, x, y
		},
		"row pointer decreasing": func(rp []int64, ci []int32, v, x, y []float64) ([]int64, []int32, []float64, []float64, []float64) {
			rp[3], rp[4] = rp[4], rp[3]-1
			return rp, ci, v, x, y
		},
		"rows beyond x": func(rp []int64, ci []int32, v, x, y []float64) ([]int64, []int32, []float64, []float64, []float64) {
			return rp, ci, v, x[:3*n-1], y
		},
	} {
		// Every row couples to the first and the last column.
		rowPtr := []int64{0}
		var colIdx []int32
		for i := 0; i < n; i++ {
			colIdx = append(colIdx, 0, int32(nc-1))
			rowPtr = append(rowPtr, int64(len(colIdx)))
		}
		_, x := randomValues(rng, 0, n, 3)
		val := make([]float64, 18*len(colIdx))
		y := make([]float64, 6*nc)
		rp, ci, v, xs, ys := f(rowPtr, colIdx, val, x, y)
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Errorf("%s: no panic", name)
					return
				}
				if s, ok := r.(string); ok && !strings.Contains(s, "TransRows36") {
					t.Errorf("%s: panic %q does not name the kernel", name, s)
				}
			}()
			TransRows36(rp, ci, v, 0, n, 1, xs, ys, 0, nc)
		}()
	}
}

// TestResidualRows: b − A·x folded in one pass gives the bits of MulRows followed by
// the subtraction, for every shape and both value types, on row ranges of a random
// matrix.
func TestResidualRows(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][2]int{{3, 3}, {6, 6}, {3, 6}} {
		r, c := sh[0], sh[1]
		n := 30
		var rowPtr []int64
		var colIdx []int32
		var val, x []float64
		if r == c {
			rowPtr, colIdx, val, x = randomRows(rng, n, r)
		} else {
			const nc = 17
			rowPtr, colIdx, val = random36(rng, n, nc)
			_, x = randomValues(rng, 0, nc, c)
		}
		b := make([]float64, n*r)
		for k := range b {
			b[k] = rng.NormFloat64()
		}
		v32 := make([]float32, len(val))
		for k, v := range val {
			v32[k] = float32(v)
		}
		for _, f32 := range []bool{false, true} {
			if f32 && !Has(r, c, true) {
				continue
			}
			for _, rg := range [][2]int{{0, n}, {3, 17}, {17, 18}, {5, 5}} {
				lo, hi := rg[0], rg[1]
				m := hi - lo
				want, got := make([]float64, m*r), make([]float64, m*r)
				for k := range got {
					got[k] = math.NaN()
				}
				scratch := make([]float64, ScratchMax*max(m, 1))
				if f32 {
					MulRowsF32(r, c, rowPtr, colIdx, v32, lo, hi, x, want, scratch)
					ResidualRowsF32(r, c, rowPtr, colIdx, v32, lo, hi, b, x, got, scratch)
				} else {
					MulRows(r, c, rowPtr, colIdx, val, lo, hi, x, want, scratch)
					ResidualRows(r, c, rowPtr, colIdx, val, lo, hi, b, x, got, scratch)
				}
				for k := range want {
					w := b[r*lo+k] - want[k]
					if math.Float64bits(got[k]) != math.Float64bits(w) {
						t.Fatalf("%d×%d f32 %v rows [%d, %d): entry %d: %v, want %v", r, c, f32, lo, hi, k, got[k], w)
					}
				}
			}
		}
	}
}
