package bsrkern

import (
	"math/rand/v2"
	"testing"
)

// bandedRows is a banded block-row structure like a reordered mesh's: n rows, about
// per blocks each, columns within ±band of the row.
func bandedRows(n, per, band, b int) (rowPtr []int64, colIdx []int32, val, x []float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	rowPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		lo := max(0, i-band)
		hi := min(n, i+band+1)
		seen := map[int]bool{i: true}
		for len(seen) < min(per, hi-lo) {
			seen[lo+rng.IntN(hi-lo)] = true
		}
		for c := lo; c < hi; c++ {
			if seen[c] {
				colIdx = append(colIdx, int32(c))
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

var benchN = 55000

func benchMul(b *testing.B, bs int) {
	if !Enabled {
		b.Skip("no AVX2 and FMA here (or built with noasm)")
	}
	n := benchN
	rowPtr, colIdx, val, x := bandedRows(n, 13*3/bs*2, 300, bs)
	y := make([]float64, n*bs)
	s := make([]float64, Scratch66*32)
	b.SetBytes(int64(len(val)) * 8)
	for b.Loop() {
		for c := 0; c < n; c += 32 {
			e := min(c+32, n)
			if bs == 3 {
				Mul33(rowPtr, colIdx, val, c, e, x, y[c*bs:], s)
			} else {
				Mul66(rowPtr, colIdx, val, c, e, x, y[c*bs:], s)
			}
		}
	}
}

func BenchmarkMul33(b *testing.B) { benchMul(b, 3) }
func BenchmarkMul66(b *testing.B) { benchMul(b, 6) }

func BenchmarkMul33Cached(b *testing.B) {
	benchN = 1500
	defer func() { benchN = 55000 }()
	benchMul(b, 3)
}
func BenchmarkMul66Cached(b *testing.B) {
	benchN = 1500
	defer func() { benchN = 55000 }()
	benchMul(b, 6)
}
