package filter

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestKernels6 checks the unrolled k = 6 kernels against the generic loops (bitwise on
// amd64, where Go does not fuse multiply-adds) and the solve against M·y = e.
func TestKernels6(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	same := func(a, b float64) bool {
		if runtime.GOARCH == "amd64" {
			return math.Float64bits(a) == math.Float64bits(b)
		}
		return math.Abs(a-b) <= 1e-14*(math.Abs(a)+math.Abs(b))
	}
	for trial := 0; trial < 50; trial++ {
		const k = 6
		r := 1 + trial%6
		G := randomBc(rng, 3, k, 0.5) // M = Σ B_Jᵀ B_J over three blocks
		M := make([]float64, k*k)
		for J := 0; J < 3; J++ {
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					for l := 0; l < k; l++ {
						M[a*k+b] += G[J*k*k+l*k+a] * G[J*k*k+l*k+b]
					}
				}
			}
		}
		L := make([]float64, packed(k))
		if !cholesky(k, M, L, DefaultPivotTol) {
			t.Fatal("SPD matrix rejected")
		}
		e := make([]float64, r*k)
		for v := range e {
			e[v] = rng.NormFloat64()
		}
		y1, y2 := make([]float64, r*k), make([]float64, r*k)
		solveRows(r, k, L, e, y1)
		solve6(r, L, e, y2)
		for v := range y1 {
			if !same(y1[v], y2[v]) {
				t.Fatalf("solve6 differs from solveRows: %v vs %v", y2[v], y1[v])
			}
		}
		for q := 0; q < r; q++ { // M·y = e
			for a := 0; a < k; a++ {
				s := 0.0
				for b := 0; b < k; b++ {
					s += M[a*k+b] * y1[q*k+b]
				}
				if math.Abs(s-e[q*k+a]) > 1e-12*(1+math.Abs(e[q*k+a]))*100 {
					t.Fatalf("M·y = %v, want %v", s, e[q*k+a])
				}
			}
		}
		o1 := make([]float64, r*k)
		for v := range o1 {
			o1[v] = rng.NormFloat64()
		}
		o2 := append([]float64(nil), o1...)
		want := append([]float64(nil), o1...)
		gemmNTAcc(r, k, y1, G[:k*k], o1)
		gemmNT6Acc(r, y1, G[:k*k], o2)
		for a := 0; a < r; a++ {
			for c := 0; c < k; c++ {
				for l := 0; l < k; l++ {
					want[a*k+c] += y1[a*k+l] * G[c*k+l]
				}
			}
		}
		for v := range o1 {
			if !same(o1[v], o2[v]) || math.Abs(o1[v]-want[v]) > 1e-13*(1+math.Abs(want[v])) {
				t.Fatalf("gemmNT: generic %v, unrolled %v, reference %v", o1[v], o2[v], want[v])
			}
		}
	}
}
