package bsr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// Benchmarks run on a random matrix of benchRows block rows with about 27 blocks per
// row (a hexahedral elasticity stencil's count) whose columns fall within a band of
// ±benchBand block columns around the diagonal, like a bandwidth-reduced mesh. It is
// built directly, not through triplets, and cached per shape.
const (
	benchRows = 100_000
	benchBand = 2_000
	benchNNZ  = 27
)

var benchCache sync.Map // [2]int{r, c} -> *Matrix

func benchMatrix(b *testing.B, r, c int) *Matrix {
	b.Helper()
	key := [2]int{r, c}
	if m, ok := benchCache.Load(key); ok {
		return m.(*Matrix)
	}
	rng := rand.New(rand.NewPCG(uint64(r), uint64(c)))
	m := &Matrix{BlockRows: benchRows, BlockCols: benchRows, R: r, C: c, RowPtr: make([]int64, benchRows+1)}
	m.ColIdx = make([]int32, 0, benchRows*benchNNZ)
	cols := make([]int32, 0, benchNNZ+1)
	for i := 0; i < benchRows; i++ {
		cols = append(cols[:0], int32(i))
		for len(cols) < benchNNZ {
			j := i + rng.IntN(2*benchBand+1) - benchBand
			if j >= 0 && j < benchRows && !slices.Contains(cols, int32(j)) {
				cols = append(cols, int32(j))
			}
		}
		slices.Sort(cols)
		m.ColIdx = append(m.ColIdx, cols...)
		m.RowPtr[i+1] = int64(len(m.ColIdx))
	}
	m.Val = randVec(rng, len(m.ColIdx)*r*c)
	if err := m.Validate(); err != nil {
		b.Fatal(err)
	}
	benchCache.Store(key, m)
	return m
}

// benchMul times y = A x (or Aᵀ x) on workers goroutines (0: GOMAXPROCS) and reports
// the bytes of the matrix streamed per operation.
func benchMul(b *testing.B, r, c, workers int, trans bool) {
	m := benchMatrix(b, r, c)
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := randVec(rng, m.Cols()), make([]float64, m.Rows())
	if trans {
		x, y = randVec(rng, m.Rows()), make([]float64, m.Cols())
	}
	b.SetBytes(m.Bytes())
	b.ResetTimer()
	for b.Loop() {
		if trans {
			m.MulTransVecWorkers(workers, 1, x, 0, y)
		} else {
			m.MulVecWorkers(workers, 1, x, 0, y)
		}
	}
}

func benchTranspose(b *testing.B, r, c, workers int) {
	m := benchMatrix(b, r, c)
	b.SetBytes(m.Bytes())
	b.ResetTimer()
	for b.Loop() {
		m.TransposeWorkers(workers)
	}
}

func BenchmarkMulVec33(b *testing.B)       { benchMul(b, 3, 3, 0, false) }
func BenchmarkMulVec33Serial(b *testing.B) { benchMul(b, 3, 3, 1, false) }
func BenchmarkMulTransVec33(b *testing.B)  { benchMul(b, 3, 3, 0, true) }
func BenchmarkMulTransVec33Serial(b *testing.B) {
	benchMul(b, 3, 3, 1, true)
}
func BenchmarkMulVec66(b *testing.B)      { benchMul(b, 6, 6, 0, false) }
func BenchmarkMulVec36(b *testing.B)      { benchMul(b, 3, 6, 0, false) }
func BenchmarkMulTransVec36(b *testing.B) { benchMul(b, 3, 6, 0, true) }
func BenchmarkTranspose33(b *testing.B)   { benchTranspose(b, 3, 3, 0) }

// BenchmarkMulVec33Workers shows the scaling with the worker count.
func BenchmarkMulVec33Workers(b *testing.B) {
	for _, w := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprint(w), func(b *testing.B) { benchMul(b, 3, 3, w, false) })
	}
}
