package bsrkern

import (
	"math"
	"math/rand/v2"
	"testing"
)

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
	val = make([]float64, len(colIdx)*b*b)
	for k := range val {
		val[k] = rng.NormFloat64()
	}
	x = make([]float64, n*b)
	for k := range x {
		x[k] = rng.NormFloat64()
	}
	return
}

// TestMul checks Mul33 and Mul66 against the product formed entry by entry, on every
// row range of a random matrix, with the outputs poisoned first.
func TestMul(t *testing.T) {
	if !Enabled {
		t.Skip("no AVX2 and FMA here (or built with noasm): the vector kernels do not run")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range []int{3, 6} {
		n := 40
		rowPtr, colIdx, val, x := randomRows(rng, n, b)
		want := make([]float64, n*b)
		for i := 0; i < n; i++ {
			for k := rowPtr[i]; k < rowPtr[i+1]; k++ {
				for p := 0; p < b; p++ {
					for q := 0; q < b; q++ {
						want[i*b+p] += val[int(k)*b*b+p*b+q] * x[int(colIdx[k])*b+q]
					}
				}
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
					Mul33(rowPtr, colIdx, val, lo, hi, x, y, scratch)
				} else {
					Mul66(rowPtr, colIdx, val, lo, hi, x, y, scratch)
				}
				for k, v := range y {
					w := want[lo*b+k]
					if !(math.Abs(v-w) <= 1e-13*(1+math.Abs(w))) {
						t.Fatalf("b=%d rows [%d,%d): y[%d] = %v, want %v", b, lo, hi, k, v, w)
					}
				}
			}
		}
	}
}

// TestMulEmpty: a range without blocks writes zeros and reads no values.
func TestMulEmpty(t *testing.T) {
	if !Enabled {
		t.Skip("no AVX2 and FMA here (or built with noasm): the vector kernels do not run")
	}
	y := []float64{1, 2, 3, 4, 5, 6}
	Mul33([]int64{0, 0, 0}, nil, nil, 0, 2, nil, y, make([]float64, 18))
	for k, v := range y {
		if v != 0 {
			t.Fatalf("y[%d] = %v, want 0", k, v)
		}
	}
}

func TestMulMalformedPanics(t *testing.T) {
	if !Enabled {
		t.Skip("no AVX2 and FMA here (or built with noasm): the vector kernels do not run")
	}
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
		{"blocks but no values", []int64{0, 1, 2}, nil},
	}
	for _, b := range []int{3, 6} {
		for _, c := range cases {
			val := make([]float64, len(c.colIdx)*b*b)
			x := make([]float64, 2*b)
			y := make([]float64, 2*b)
			scratch := make([]float64, 2*Scratch66)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%d×%d, %s: no panic", b, b, c.name)
					}
				}()
				if b == 3 {
					Mul33(c.rowPtr, c.colIdx, val, 0, 2, x, y, scratch)
				} else {
					Mul66(c.rowPtr, c.colIdx, val, 0, 2, x, y, scratch)
				}
			}()
		}
	}
}
