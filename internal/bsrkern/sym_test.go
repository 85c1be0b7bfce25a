package bsrkern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomUpper is a random symmetric matrix of n block rows of b×b blocks: the blocks
// on and above the diagonal (the diagonal first in each row, as bsr.Upper stores
// them; a few rows hold only it), and the whole matrix as dense rows.
func randomUpper(rng *rand.Rand, n, b int) (rowPtr []int64, colIdx []int32, val, dense []float64) {
	nb := n * b
	dense = make([]float64, nb*nb)
	rowPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		for c := i; c < n; c++ {
			if c != i && (rng.IntN(9) == 0 || rng.IntN(n) >= 6) {
				continue
			}
			colIdx = append(colIdx, int32(c))
			for p := 0; p < b; p++ {
				for q := 0; q < b; q++ {
					v := rng.NormFloat64()
					if c == i && q < p {
						v = dense[(i*b+q)*nb+c*b+p] // a symmetric diagonal block
					}
					val = append(val, v)
					dense[(i*b+p)*nb+c*b+q] = v
					dense[(c*b+q)*nb+i*b+p] = v
				}
			}
		}
		rowPtr[i+1] = int64(len(colIdx))
	}
	return
}

// symProduct is y = A·x the way bsr.Upper forms it over the worker ranges cut at
// bounds: each range's accumulators start at zero, take the rows before the range
// (in chunks of chunk rows), then the range's own rows, and row i's result is its
// sum plus its accumulator.
func symProduct(b int, rowPtr []int64, colIdx []int32, val, x []float64, bounds []int, chunk int) []float64 {
	n := len(rowPtr) - 1
	y := make([]float64, n*b)
	for k := range y {
		y[k] = math.NaN()
	}
	scratch := make([]float64, ScratchMax*chunk)
	for w := 0; w+1 < len(bounds); w++ {
		lo, hi := bounds[w], bounds[w+1]
		st := AccStride(b)
		acc := make([]float64, (hi-lo)*st)
		s := make([]float64, chunk*b)
		for c := 0; c < lo; c += chunk {
			e := min(c+chunk, lo)
			SymRows(b, rowPtr, colIdx, val, c, e, x, s, scratch, acc, lo, hi)
		}
		for c := lo; c < hi; c += chunk {
			e := min(c+chunk, hi)
			SymRows(b, rowPtr, colIdx, val, c, e, x, y[c*b:e*b], scratch, acc, lo, hi)
		}
		for i := lo; i < hi; i++ {
			for p := 0; p < b; p++ {
				y[i*b+p] += acc[(i-lo)*st+p]
			}
		}
	}
	return y
}

// TestSymRows checks SymRows on 3×3 and 6×6 blocks against the dense product of the
// whole symmetric matrix, to the rounding bound of any summation order, and that the
// result is bitwise the same for every split into worker ranges and chunks.
func TestSymRows(t *testing.T) {
	needKernels(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, b := range []int{3, 6} {
		n := 50
		rowPtr, colIdx, val, dense := randomUpper(rng, n, b)
		x := make([]float64, n*b)
		for k := range x {
			x[k] = rng.NormFloat64()
		}
		nb := n * b
		want, bound := make([]float64, nb), make([]float64, nb)
		for p := 0; p < nb; p++ {
			var abs float64
			terms := 0
			for q := 0; q < nb; q++ {
				if v := dense[p*nb+q] * x[q]; dense[p*nb+q] != 0 {
					want[p] += v
					abs += math.Abs(v)
					terms++
				}
			}
			bound[p] = 2 * float64(terms+2) * 0x1p-53 * abs
		}
		ref := symProduct(b, rowPtr, colIdx, val, x, []int{0, n}, 32)
		for k, v := range ref {
			if !(math.Abs(v-want[k]) <= bound[k]) {
				t.Fatalf("b=%d: y[%d] = %v, want %v (bound %g)", b, k, v, want[k], bound[k])
			}
		}
		for _, split := range []struct {
			bounds []int
			chunk  int
		}{
			{[]int{0, n}, 1}, {[]int{0, n}, 7}, {[]int{0, 17, n}, 5}, {[]int{0, 1, 2, 30, 31, n}, 32},
			{[]int{0, 10, 20, 30, 40, n}, 3},
		} {
			y := symProduct(b, rowPtr, colIdx, val, x, split.bounds, split.chunk)
			for k, v := range y {
				if math.Float64bits(v) != math.Float64bits(ref[k]) {
					t.Fatalf("b=%d, ranges %v, chunks of %d: y[%d] = %v, want %v bitwise (one range)", b, split.bounds, split.chunk, k, v, ref[k])
				}
			}
		}
	}
}

// TestSymRowsMalformedPanics: SymRows panics on a malformed matrix or short
// accumulators instead of reading or writing outside its slices.
func TestSymRowsMalformedPanics(t *testing.T) {
	needKernels(t)
	cases := []struct {
		name      string
		rowPtr    []int64
		colIdx    []int32
		base, khi int
		acc       int
	}{
		{"column beyond x", []int64{0, 2, 3}, []int32{0, 2, 1}, 0, 2, 2},
		{"negative column", []int64{0, 2, 3}, []int32{0, -1, 1}, 0, 2, 2},
		{"row end beyond the blocks", []int64{0, 2, 4}, []int32{0, 1, 1}, 0, 2, 2},
		{"decreasing row pointer", []int64{0, 2, 1}, []int32{0, 1, 1}, 0, 2, 2},
		{"negative row pointer", []int64{-1, 2, 3}, []int32{0, 1, 1}, 0, 2, 2},
		{"short accumulators", []int64{0, 2, 3}, []int32{0, 1, 1}, 0, 2, 1},
		{"negative base", []int64{0, 2, 3}, []int32{0, 1, 1}, -1, 2, 3},
		{"diagonal not first", []int64{0, 2, 3}, []int32{1, 0, 1}, 0, 2, 2},
		{"row without its diagonal", []int64{0, 2, 3}, []int32{0, 1, 0}, 0, 2, 2},
	}
	for _, b := range []int{3, 6} {
		for _, c := range cases {
			val := make([]float64, len(c.colIdx)*b*b)
			x := make([]float64, 2*b)
			y := make([]float64, 2*b)
			acc := make([]float64, c.acc*AccStride(b))
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("b=%d, %s: no panic", b, c.name)
					}
				}()
				SymRows(b, c.rowPtr, c.colIdx, val, 0, 2, x, y, make([]float64, 2*Scratch66), acc, c.base, c.khi)
			}()
		}
	}
}
