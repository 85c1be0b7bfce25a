package bsrkern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// needKernels skips t where the vector kernels do not run.
func needKernels(t testing.TB) {
	t.Helper()
	if !Enabled {
		t.Skip("no AVX2 and FMA here (or built with noasm): the vector kernels do not run")
	}
}

// randomRows is a random block-row structure of n rows of b×b blocks over n block
// columns (sorted columns, some rows empty), its values and a vector x.
func randomRows(rng *rand.Rand, n, b int) (rowPtr []int64, colIdx []int32, val, x []float64) {
	rowPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		if rng.IntN(7) != 0 { // every seventh row or so stays empty
			for c := 0; c < n; c++ {
				if c == i || rng.IntN(n) < 5 {
					colIdx = append(colIdx, int32(c))
				}
			}
		}
		rowPtr[i+1] = int64(len(colIdx))
	}
	val, x = randomValues(rng, len(colIdx), n, b)
	return
}

// random36 is a random structure of n block rows of 3×6 blocks (a prolongator's)
// over nc block columns (ascending columns, some rows empty) and its values.
func random36(rng *rand.Rand, n, nc int) (rowPtr []int64, colIdx []int32, val []float64) {
	rowPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		if rng.IntN(7) != 0 {
			for c := 0; c < nc; c++ {
				if rng.IntN(nc) < 4 {
					colIdx = append(colIdx, int32(c))
				}
			}
		}
		rowPtr[i+1] = int64(len(colIdx))
	}
	val = make([]float64, len(colIdx)*18)
	for k := range val {
		val[k] = rng.NormFloat64()
	}
	return rowPtr, colIdx, val
}

// randomValues returns normal random values of nblk b×b blocks and a vector over n
// block columns.
func randomValues(rng *rand.Rand, nblk, n, b int) (val, x []float64) {
	val = make([]float64, nblk*b*b)
	for k := range val {
		val[k] = rng.NormFloat64()
	}
	x = make([]float64, n*b)
	for k := range x {
		x[k] = rng.NormFloat64()
	}
	return val, x
}

// TestMul checks MulRows on 3×3 and 6×6 blocks against the product formed entry by entry, on every
// row range of a random matrix, with the outputs poisoned first, to the rounding
// bound of any summation order.
func TestMul(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range []int{3, 6} {
		n := 40
		rowPtr, colIdx, val, x := randomRows(rng, n, b)
		want, bound := make([]float64, n*b), make([]float64, n*b)
		for i := 0; i < n; i++ {
			for p := 0; p < b; p++ {
				var abs float64
				for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
					for q := 0; q < b; q++ {
						v := val[int(k)*b*b+p*b+q] * x[int(colIdx[k])*b+q]
						want[i*b+p] += v
						abs += math.Abs(v)
					}
				}
				// The rounding bound of any summation order of the row's terms.
				bound[i*b+p] = 2 * float64(b*int(rowPtr[i+1]-rowPtr[i])+2) * 0x1p-53 * abs
			}
		}
		for lo := 0; lo < n; lo += 7 {
			for hi := lo; hi <= n; hi += 5 {
				y := make([]float64, (hi-lo)*b)
				for k := range y {
					y[k] = math.NaN()
				}
				scratch := make([]float64, Scratch66*(hi-lo))
				if b == 3 {
					MulRows(3, 3, rowPtr, colIdx, val, lo, hi, x, y, scratch)
				} else {
					MulRows(6, 6, rowPtr, colIdx, val, lo, hi, x, y, scratch)
				}
				for k, v := range y {
					w := want[lo*b+k]
					if !(math.Abs(v-w) <= bound[lo*b+k]) {
						t.Fatalf("b=%d rows [%d,%d): y[%d] = %v, want %v (bound %g)", b, lo, hi, k, v, w, bound[lo*b+k])
					}
				}
			}
		}
	}
}

// TestMulEmpty: a range without blocks writes zeros and reads no values, for
// float64 and float32 values.
func TestMulEmpty(t *testing.T) {
	needKernels(t)
	for _, c := range []struct {
		b   int
		f32 bool
	}{{3, false}, {3, true}, {6, true}} {
		y := make([]float64, 2*c.b)
		for k := range y {
			y[k] = float64(k + 1)
		}
		if c.f32 {
			MulRowsF32(c.b, c.b, []int64{0, 0, 0}, nil, nil, 0, 2, nil, y, make([]float64, ScratchMax*2))
		} else {
			MulRows(c.b, c.b, []int64{0, 0, 0}, nil, nil, 0, 2, nil, y, make([]float64, ScratchMax*2))
		}
		for k, v := range y {
			if v != 0 {
				t.Fatalf("%d×%d, float32 %v: y[%d] = %v, want 0", c.b, c.b, c.f32, k, v)
			}
		}
	}
}

// TestMulMalformedPanics: every product, for float64 and float32 values, panics on a
// malformed matrix instead of reading outside its slices.
func TestMulMalformedPanics(t *testing.T) {
	needKernels(t)
	// Two block rows, one block each; x holds two block columns.
	cases := []struct {
		name   string
		rowPtr []int64
		colIdx []int32
	}{
		{"column beyond x", []int64{0, 1, 2}, []int32{0, 2}},
		{"negative column", []int64{0, 1, 2}, []int32{-1, 0}},
		{"row end beyond the blocks", []int64{0, 1, 3}, []int32{0, 1}},
		{"decreasing row pointer", []int64{0, 2, 1}, []int32{0, 1}},
		{"negative row pointer", []int64{-1, 1, 2}, []int32{0, 1}},
		{"blocks but no values", []int64{0, 1, 2}, nil},
	}
	type product func(rowPtr []int64, colIdx []int32, val []float64, x, y, scratch []float64)
	f64 := func(r, c int) product {
		return func(rowPtr []int64, colIdx []int32, val []float64, x, y, scratch []float64) {
			MulRows(r, c, rowPtr, colIdx, val, 0, 2, x, y, scratch)
		}
	}
	f32 := func(r, c int) product {
		return func(rowPtr []int64, colIdx []int32, val []float64, x, y, scratch []float64) {
			MulRowsF32(r, c, rowPtr, colIdx, float32Rows(val), 0, 2, x, y, scratch)
		}
	}
	products := []struct {
		name string
		r, c int
		mul  product
	}{
		{"3×3", 3, 3, f64(3, 3)}, {"6×6", 6, 6, f64(6, 6)}, {"3×6", 3, 6, f64(3, 6)},
		{"3×3 float32", 3, 3, f32(3, 3)}, {"6×6 float32", 6, 6, f32(6, 6)},
	}
	for _, p := range products {
		for _, c := range cases {
			val := make([]float64, len(c.colIdx)*p.r*p.c)
			x := make([]float64, 2*p.c)
			y := make([]float64, 2*p.r)
			scratch := make([]float64, 2*Scratch66)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s, %s: no panic", p.name, c.name)
					}
				}()
				p.mul(c.rowPtr, c.colIdx, val, x, y, scratch)
			}()
		}
	}
}

// float32Rows rounds val to float32.
func float32Rows(val []float64) []float32 {
	v := make([]float32, len(val))
	for k, a := range val {
		v[k] = float32(a)
	}
	return v
}

// TestMulF32 checks MulRowsF32 on 3×3 and 6×6 blocks on every row range of a random matrix
// with float32 values, outputs and scratch poisoned first, against the product formed
// entry by entry in float64 from the widened values. A row of n terms is summed in
// another order by the kernel (fused products in lanes, lanes summed, at most n+2
// roundings deep) than by the reference (at most n): each is within
// (n+2)·u/(1−(n+2)·u)·Σ|a·x| of the exact sum, u = 2⁻⁵³, so they differ by at most
// twice that. The widened values also make MulRows a bitwise reference.
func TestMulF32(t *testing.T) {
	needKernels(t)
	const u = 0x1p-53
	rng := rand.New(rand.NewPCG(5, 6))
	for _, b := range []int{3, 6} {
		n := 40
		rowPtr, colIdx, val64, x := randomRows(rng, n, b)
		val := float32Rows(val64)
		wide := make([]float64, len(val))
		for k, a := range val {
			wide[k] = float64(a)
		}
		want := make([]float64, n*b)
		bound := make([]float64, n*b)
		for i := 0; i < n; i++ {
			terms := float64(int(rowPtr[i+1]-rowPtr[i]) * b)
			g := (terms + 2) * u / (1 - (terms+2)*u)
			for p := 0; p < b; p++ {
				abs := 0.0
				for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
					for q := 0; q < b; q++ {
						ax := float64(val[int(k)*b*b+p*b+q]) * x[int(colIdx[k])*b+q]
						want[i*b+p] += ax
						abs += math.Abs(ax)
					}
				}
				// abs is itself computed with roundings, low by at most a relative
				// terms·u/(1−terms·u): the factor 1 + 2·terms·u covers that.
				bound[i*b+p] = 2 * g * abs * (1 + 2*terms*u)
			}
		}
		for lo := 0; lo < n; lo += 7 {
			for hi := lo; hi <= n; hi += 5 {
				y := make([]float64, (hi-lo)*b)
				y64 := make([]float64, (hi-lo)*b)
				scratch := make([]float64, Scratch66*(hi-lo))
				for k := range y {
					y[k] = math.NaN()
				}
				for k := range scratch {
					scratch[k] = math.NaN()
				}
				s64 := make([]float64, Scratch66*(hi-lo))
				if b == 3 {
					MulRowsF32(3, 3, rowPtr, colIdx, val, lo, hi, x, y, scratch)
					MulRows(3, 3, rowPtr, colIdx, wide, lo, hi, x, y64, s64)
				} else {
					MulRowsF32(6, 6, rowPtr, colIdx, val, lo, hi, x, y, scratch)
					MulRows(6, 6, rowPtr, colIdx, wide, lo, hi, x, y64, s64)
				}
				for k, v := range y {
					w := want[lo*b+k]
					if !(math.Abs(v-w) <= bound[lo*b+k]) {
						t.Fatalf("b=%d rows [%d,%d): y[%d] = %v, want %v within %.3g", b, lo, hi, k, v, w, bound[lo*b+k])
					}
					if math.Float64bits(v) != math.Float64bits(y64[k]) {
						t.Fatalf("b=%d rows [%d,%d): y[%d] = %v, the float64 kernel on the widened values gives %v", b, lo, hi, k, v, y64[k])
					}
				}
			}
		}
	}
}

// TestMulF32LastBlock: a matrix whose float32 values end exactly at the end of a
// block, placed at the end of a page followed by an unmapped one where the operating
// system allows it, is read without touching a byte past its values.
func TestMulF32LastBlock(t *testing.T) {
	needKernels(t)
	for _, b := range []int{3, 6} {
		val, release := guardedFloat32(t, b*b)
		for k := range val {
			val[k] = float32(k + 1)
		}
		x := make([]float64, b)
		for k := range x {
			x[k] = 1
		}
		y := make([]float64, b)
		scratch := make([]float64, Scratch66)
		if b == 3 {
			MulRowsF32(3, 3, []int64{0, 1}, []int32{0}, val, 0, 1, x, y, scratch)
		} else {
			MulRowsF32(6, 6, []int64{0, 1}, []int32{0}, val, 0, 1, x, y, scratch)
		}
		for p := 0; p < b; p++ {
			w := 0.0
			for q := 0; q < b; q++ {
				w += float64(val[p*b+q])
			}
			if y[p] != w {
				t.Errorf("%d×%d: y[%d] = %v, want %v", b, b, p, y[p], w)
			}
		}
		release()
	}
}

// TestMul36 checks MulRows on 3×6 blocks (more block columns than rows, as a
// prolongator's are fewer) against the product formed entry by entry, on every row
// range, with the outputs poisoned first, to the rounding bound of any summation
// order: |error| ≤ 2·(n+2)·2⁻⁵³·Σ|a·x| for a row's n terms.
func TestMul36(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(3, 6))
	const n, cols = 40, 17
	rowPtr, colIdx, val := random36(rng, n, cols)
	x := make([]float64, cols*6)
	for k := range x {
		x[k] = rng.NormFloat64()
	}
	want, bound := make([]float64, n*3), make([]float64, n*3)
	for i := 0; i < n; i++ {
		for p := 0; p < 3; p++ {
			var abs float64
			for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
				for q := 0; q < 6; q++ {
					v := val[int(k)*18+p*6+q] * x[int(colIdx[k])*6+q]
					want[i*3+p] += v
					abs += math.Abs(v)
				}
			}
			bound[i*3+p] = 2 * float64(6*(rowPtr[i+1]-rowPtr[i])+2) * 0x1p-53 * abs
		}
	}
	for lo := 0; lo < n; lo += 7 {
		for hi := lo; hi <= n; hi += 5 {
			y := make([]float64, (hi-lo)*3)
			for k := range y {
				y[k] = math.NaN()
			}
			MulRows(3, 6, rowPtr, colIdx, val, lo, hi, x, y, make([]float64, Scratch36*(hi-lo)))
			for k, v := range y {
				if w := want[lo*3+k]; !(math.Abs(v-w) <= bound[lo*3+k]) {
					t.Fatalf("rows [%d,%d): y[%d] = %v, want %v (bound %g)", lo, hi, k, v, w, bound[lo*3+k])
				}
			}
		}
	}
}
