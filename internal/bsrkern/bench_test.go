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
	val, x = randomValues(rng, len(colIdx), n, b)
	return
}

// benchRows are the block rows of the benchmarks' matrices: beyond the caches, or
// (cached) within them.
const benchRows, benchCachedRows = 55000, 1500

// benchMul times y = A·x over n block rows in chunks of 32, as the smoother calls it,
// with float64 values or (f32) their float32 rounding. Bytes are the values' storage,
// the stream that bounds the kernels, so MB/s compares the two value types directly.
func benchMul(b *testing.B, n, bs int, f32 bool) {
	needKernels(b)
	rowPtr, colIdx, val, x := bandedRows(n, 13*3/bs*2, 300, bs)
	var val32 []float32
	if f32 {
		val32 = make([]float32, len(val))
		for k, v := range val {
			val32[k] = float32(v)
		}
		val = nil
	}
	y := make([]float64, n*bs)
	s := make([]float64, Scratch66*32)
	if f32 {
		b.SetBytes(int64(len(val32)) * 4)
	} else {
		b.SetBytes(int64(len(val)) * 8)
	}
	for b.Loop() {
		for c := 0; c < n; c += 32 {
			e := min(c+32, n)
			if f32 {
				MulRowsF32(bs, bs, rowPtr, colIdx, val32, c, e, x, y[c*bs:], s)
			} else {
				MulRows(bs, bs, rowPtr, colIdx, val, c, e, x, y[c*bs:], s)
			}
		}
	}
}

func BenchmarkMul33(b *testing.B)          { benchMul(b, benchRows, 3, false) }
func BenchmarkMul66(b *testing.B)          { benchMul(b, benchRows, 6, false) }
func BenchmarkMul33F32(b *testing.B)       { benchMul(b, benchRows, 3, true) }
func BenchmarkMul66F32(b *testing.B)       { benchMul(b, benchRows, 6, true) }
func BenchmarkMul33Cached(b *testing.B)    { benchMul(b, benchCachedRows, 3, false) }
func BenchmarkMul66Cached(b *testing.B)    { benchMul(b, benchCachedRows, 6, false) }
func BenchmarkMul33F32Cached(b *testing.B) { benchMul(b, benchCachedRows, 3, true) }
func BenchmarkMul66F32Cached(b *testing.B) { benchMul(b, benchCachedRows, 6, true) }

// bandedUpper is the symmetric counterpart of bandedRows: the blocks on and above the
// diagonal of n rows (the diagonal first), about (per+1)/2 a row within band of it, so
// that the whole matrix holds about per blocks a row, as bandedRows'.
func bandedUpper(n, per, band, b int) (rowPtr []int64, colIdx []int32, val, x []float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	rowPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		hi := min(n, i+band+1)
		seen := map[int]bool{i: true}
		for len(seen) < min((per+1)/2, hi-i) {
			seen[i+rng.IntN(hi-i)] = true
		}
		for c := i; c < hi; c++ {
			if seen[c] {
				colIdx = append(colIdx, int32(c))
			}
		}
		rowPtr[i+1] = int64(len(colIdx))
	}
	val, x = randomValues(rng, len(colIdx), n, b)
	return
}

// benchSym times the product SymRows forms over n block rows in chunks of 32, one
// range, with the accumulators added as bsr.Upper adds them. Bytes are the whole
// matrix's values (bandedRows' count), so MB/s compares with benchMul's directly.
func benchSym(b *testing.B, n, bs int) {
	needKernels(b)
	per := 13 * 3 / bs * 2
	rowPtr, colIdx, val, x := bandedUpper(n, per, 300, bs)
	y := make([]float64, n*bs)
	st := AccStride(bs)
	acc := make([]float64, n*st)
	s := make([]float64, Scratch66*32)
	b.SetBytes(int64(2*len(colIdx)-n) * int64(bs*bs) * 8)
	for b.Loop() {
		clear(acc)
		for c := 0; c < n; c += 32 {
			e := min(c+32, n)
			SymRows(bs, rowPtr, colIdx, val, c, e, x, y[c*bs:], s, acc, 0, n)
			for i := c; i < e; i++ {
				for p := 0; p < bs; p++ {
					y[i*bs+p] += acc[i*st+p]
				}
			}
		}
	}
}

func BenchmarkSym33(b *testing.B) { benchSym(b, benchRows, 3) }
func BenchmarkSym66(b *testing.B) { benchSym(b, benchRows, 6) }
