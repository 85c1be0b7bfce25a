package bsr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// agree fails unless got and want agree bitwise on amd64 (where Go never fuses
// multiply-adds, and the specialised kernels keep the generic summation order), and to
// 1e-15 relative to the sum of magnitudes elsewhere.
func agree(t *testing.T, what string, got, want, mag []float64) {
	t.Helper()
	for i := range got {
		if runtime.GOARCH == "amd64" {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s: entry %d: %v vs %v (not bitwise equal)", what, i, got[i], want[i])
			}
		} else if math.Abs(got[i]-want[i]) > 1e-15*mag[i] {
			t.Fatalf("%s: entry %d: %v vs %v", what, i, got[i], want[i])
		}
	}
}

// intVec has small integer entries, so that products and sums are exact and any
// summation order gives the same bits: a reference that needs no tolerance.
func intVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(rng.IntN(19) - 9)
	}
	return v
}

func TestGemmAcc(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for r := 1; r <= 6; r++ {
		for k := 1; k <= 6; k++ {
			for c := 1; c <= 6; c++ {
				a, b, out := intVec(rng, r*k), intVec(rng, k*c), intVec(rng, r*c)
				want := append([]float64(nil), out...)
				for i := 0; i < r; i++ {
					for j := 0; j < c; j++ {
						for p := 0; p < k; p++ {
							want[i*c+j] += a[i*k+p] * b[p*c+j]
						}
					}
				}
				got := append([]float64(nil), out...)
				GemmAcc(r, k, c, a, b, got)
				equalDense(t, fmt.Sprintf("GemmAcc %d,%d,%d", r, k, c), got, want)
				// aᵀ stored k×r gives the same product through GemmTNAcc.
				at := make([]float64, k*r)
				for i := 0; i < r; i++ {
					for p := 0; p < k; p++ {
						at[p*r+i] = a[i*k+p]
					}
				}
				got = append(got[:0], out...)
				GemmTNAcc(r, k, c, at, b, got)
				equalDense(t, fmt.Sprintf("GemmTNAcc %d,%d,%d", r, k, c), got, want)
			}
		}
	}
}

func TestGemvAcc(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for r := 1; r <= 6; r++ {
		for c := 1; c <= 6; c++ {
			a, x, y := intVec(rng, r*c), intVec(rng, c), intVec(rng, r)
			want := append([]float64(nil), y...)
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					want[i] += a[i*c+j] * x[j]
				}
			}
			got := append([]float64(nil), y...)
			GemvAcc(r, c, a, x, got)
			equalDense(t, fmt.Sprintf("GemvAcc %d,%d", r, c), got, want)
			xt := intVec(rng, r)
			yt := intVec(rng, c)
			want = append([]float64(nil), yt...)
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					want[j] += a[i*c+j] * xt[i]
				}
			}
			GemvTAcc(r, c, a, xt, yt)
			equalDense(t, fmt.Sprintf("GemvTAcc %d,%d", r, c), yt, want)
		}
	}
}

// The unrolled kernels against the generic loops on random (inexact) values.
func TestSpecialisedKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for trial := 0; trial < 50; trial++ {
		for _, s := range [][3]int{{3, 3, 6}, {6, 3, 6}, {3, 6, 6}, {6, 6, 6}} {
			r, k, c := s[0], s[1], s[2]
			a, b, out := randVec(rng, r*k), randVec(rng, k*c), randVec(rng, r*c)
			got, want := append([]float64(nil), out...), append([]float64(nil), out...)
			GemmAcc(r, k, c, a, b, got)
			gemmGeneric(r, k, c, a, b, want)
			mag := make([]float64, r*c)
			absA, absB := absVec(a), absVec(b)
			copy(mag, absVec(out))
			gemmGeneric(r, k, c, absA, absB, mag)
			agree(t, fmt.Sprintf("gemm%d%d%d", r, k, c), got, want, mag)
		}
		for _, k := range []int{3, 6} {
			a, b, out := randVec(rng, k*6), randVec(rng, k*6), randVec(rng, 36)
			got, want := append([]float64(nil), out...), append([]float64(nil), out...)
			GemmTNAcc(6, k, 6, a, b, got)
			gemmTNGeneric(6, k, 6, a, b, want)
			mag := absVec(out)
			gemmTNGeneric(6, k, 6, absVec(a), absVec(b), mag)
			agree(t, fmt.Sprintf("gemmTN6%d6", k), got, want, mag)
		}
		for _, s := range [][2]int{{3, 3}, {6, 6}, {3, 6}, {6, 3}} {
			r, c := s[0], s[1]
			a := randVec(rng, r*c)
			x, y := randVec(rng, c), randVec(rng, r)
			got, want := append([]float64(nil), y...), append([]float64(nil), y...)
			GemvAcc(r, c, a, x, got)
			gemvGeneric(r, c, a, x, want)
			mag := absVec(y)
			gemvGeneric(r, c, absVec(a), absVec(x), mag)
			agree(t, fmt.Sprintf("gemv%d%d", r, c), got, want, mag)

			xt, yt := randVec(rng, r), randVec(rng, c)
			got, want = append([]float64(nil), yt...), append([]float64(nil), yt...)
			GemvTAcc(r, c, a, xt, got)
			gemvTGeneric(r, c, a, xt, want)
			mag = absVec(yt)
			gemvTGeneric(r, c, absVec(a), absVec(xt), mag)
			agree(t, fmt.Sprintf("gemvT%d%d", r, c), got, want, mag)
		}
	}
}

func absVec(v []float64) []float64 {
	a := make([]float64, len(v))
	for i, x := range v {
		a[i] = math.Abs(x)
	}
	return a
}

func TestKernelsPanicOnShortSlices(t *testing.T) {
	s := make([]float64, 17)
	mustPanic(t, "GemmAcc", func() { GemmAcc(3, 3, 6, s, s, s) })
	mustPanic(t, "GemmTNAcc", func() { GemmTNAcc(6, 3, 6, s, s, s) })
	mustPanic(t, "GemvAcc", func() { GemvAcc(3, 6, s, s, s) })
	mustPanic(t, "GemvTAcc", func() { GemvTAcc(6, 3, s, s, s) })
	mustPanic(t, "InvertBlock", func() { InvertBlock(5, s, s) })
}

// GemmFunc and GemmTNFunc give GemmAcc's and GemmTNAcc's bits for every shape, the
// unrolled ones and others.
func TestGemmFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 5))
	for _, s := range [][3]int{{3, 3, 6}, {6, 3, 6}, {3, 6, 6}, {6, 6, 6}, {2, 2, 3}, {3, 3, 3}} {
		r, k, c := s[0], s[1], s[2]
		a, b, out := randVec(rng, r*k), randVec(rng, k*c), randVec(rng, r*c)
		got, want := append([]float64(nil), out...), append([]float64(nil), out...)
		GemmFunc(r, k, c)(a, b, got)
		GemmAcc(r, k, c, a, b, want)
		equalBits(t, fmt.Sprintf("GemmFunc %d,%d,%d", r, k, c), got, want)
		got, want = append([]float64(nil), out...), append([]float64(nil), out...)
		GemmTNFunc(r, k, c)(a, b, got)
		GemmTNAcc(r, k, c, a, b, want)
		equalBits(t, fmt.Sprintf("GemmTNFunc %d,%d,%d", r, k, c), got, want)
	}
}

func equalBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: entry %d: %v vs %v", what, i, got[i], want[i])
		}
	}
}
