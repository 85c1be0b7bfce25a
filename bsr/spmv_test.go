package bsr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/internal/bsrkern"
)

// coefficient pairs every product is checked with; beta 0 must ignore NaN in y.
var alphaBeta = [][2]float64{{1, 0}, {-0.5, 0}, {2, 1}, {1.5, -0.25}, {0, 0.5}, {0, 0}}

func TestMulVec(t *testing.T) {
	withSmallChunks(t)
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		m, d := randMatrix(t, rng, nbr, nbc, r, c)
		rows, cols := nbr*r, nbc*c
		x := randVec(rng, cols)
		y0 := randVec(rng, rows)
		xCopy := append([]float64(nil), x...)
		for _, ab := range alphaBeta {
			alpha, beta := ab[0], ab[1]
			want, scale := denseMulVec(d, rows, cols, false, alpha, x, beta, y0)
			var ref []float64
			for _, w := range []int{1, 2, 3, 7} {
				y := append([]float64(nil), y0...)
				if beta == 0 {
					y = nanVec(rows)
				}
				m.MulVecWorkers(w, alpha, x, beta, y)
				closeVec(t, "MulVec", y, want, scale, 1e-14)
				if ref == nil {
					ref = y
				} else {
					sameBits(t, "MulVec worker counts", y, ref)
				}
			}
			y := append([]float64(nil), y0...)
			m.MulVec(alpha, x, beta, y)
			sameBits(t, "MulVec default workers", y, ref)
		}
		sameBits(t, "x unchanged", x, xCopy)
	})
}

func TestMulTransVec(t *testing.T) {
	withSmallChunks(t)
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		m, d := randMatrix(t, rng, nbr, nbc, r, c)
		rows, cols := nbr*r, nbc*c
		x := randVec(rng, rows)
		y0 := randVec(rng, cols)
		xCopy := append([]float64(nil), x...)
		valCopy := append([]float64(nil), m.Val...)
		for _, ab := range alphaBeta {
			alpha, beta := ab[0], ab[1]
			want, scale := denseMulVec(d, rows, cols, true, alpha, x, beta, y0)
			var ref []float64
			for _, w := range []int{1, 2, 3, 7} {
				y := append([]float64(nil), y0...)
				if beta == 0 {
					y = nanVec(cols)
				}
				m.MulTransVecWorkers(w, alpha, x, beta, y)
				closeVec(t, "MulTransVec", y, want, scale, 1e-14)
				if ref == nil {
					ref = y
				} else {
					sameBits(t, "MulTransVec worker counts", y, ref)
				}
			}
			y := append([]float64(nil), y0...)
			m.MulTransVec(alpha, x, beta, y)
			sameBits(t, "MulTransVec default workers", y, ref)
		}
		sameBits(t, "x unchanged", x, xCopy)
		sameBits(t, "A unchanged", m.Val, valCopy)
	})
}

// alpha == 0 must not read x, so a NaN there does not reach y.
func TestMulVecAlphaZeroIgnoresX(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m, _ := randMatrix(t, rng, 6, 5, 3, 3)
	y := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
	m.MulVec(0, nanVec(15), 2, y)
	for i, v := range y {
		if v != 2*float64(i+1) {
			t.Fatalf("y[%d] = %v, want %v", i, v, 2*float64(i+1))
		}
	}
	yt := make([]float64, 15)
	m.MulTransVec(0, nanVec(18), 0, yt)
	for i, v := range yt {
		if v != 0 || math.Signbit(v) {
			t.Fatalf("yt[%d] = %v, want 0", i, v)
		}
	}
}

// The 3×3 and 6×6 row kernels are hand-written; a large random matrix exercises them on
// many rows, against the generic path.
func TestMulVecSpecialisedMatchesGeneric(t *testing.T) {
	// The scalar 3×3 and 6×6 loops do the generic loop's operations in its order, so
	// with the vector kernels off they must agree bit for bit.
	defer func(e bool) { bsrkern.Enabled = e }(bsrkern.Enabled)
	bsrkern.Enabled = false
	for _, b := range []int{3, 6} {
		rng := rand.New(rand.NewPCG(uint64(b), 9))
		m, _ := randMatrix(t, rng, 200, 180, b, b)
		x := randVec(rng, m.Cols())
		got := nanVec(m.Rows())
		m.MulVecWorkers(1, 1.25, x, 0, got)
		want := nanVec(m.Rows())
		m.mulRowsGeneric(0, m.BlockRows, 1.25, x, 0, want)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%d×%d: entry %d: %v vs generic %v", b, b, i, got[i], want[i])
			}
		}
	}
}

func TestMulVecVectorKernels(t *testing.T) {
	// The vector kernels sum in another order with fused multiply-adds, so they are
	// held to the rounding bound of any summation order: |error| ≤ γ·Σ|a||x| with
	// γ = n·u for the n terms of a row (Higham, §3.1), against a sum in float64 of
	// the products in the generic order.
	if !bsrkern.Enabled {
		t.Skip("vector kernels not available on this machine (no AVX2+FMA, or -tags noasm)")
	}
	for _, sh := range [][2]int{{3, 3}, {6, 6}, {3, 6}} {
		br, bc := sh[0], sh[1]
		rng := rand.New(rand.NewPCG(uint64(br*bc), 10))
		m, _ := randMatrix(t, rng, 200, 180, br, bc)
		x := randVec(rng, m.Cols())
		y0 := randVec(rng, m.Rows())
		got := append([]float64(nil), y0...)
		m.MulVecWorkers(1, 1.25, x, -0.5, got)
		for i := 0; i < m.BlockRows; i++ {
			for r := 0; r < br; r++ {
				var sum, abs float64
				n := 0
				for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
					j := int64(m.ColIdx[k])
					for c := 0; c < bc; c++ {
						a := m.Val[k*int64(br*bc)+int64(r*bc+c)]
						sum += a * x[j*int64(bc)+int64(c)]
						abs += math.Abs(a * x[j*int64(bc)+int64(c)])
						n++
					}
				}
				row := i*br + r
				want := 1.25*sum - 0.5*y0[row]
				bound := float64(n+2)*0x1p-53*(1.25*abs+0.5*math.Abs(y0[row]))*2 + 1e-300
				if d := math.Abs(got[row] - want); d > bound || math.IsNaN(got[row]) {
					t.Fatalf("%d×%d: row %d: %v vs %v (|diff| %g > bound %g)", br, bc, row, got[row], want, d, bound)
				}
			}
		}
	}
}

func TestMulVecPanicsOnLength(t *testing.T) {
	m := Zeros(2, 3, 2, 2)
	mustPanic(t, "MulVec x", func() { m.MulVec(1, make([]float64, 5), 0, make([]float64, 4)) })
	mustPanic(t, "MulVec y", func() { m.MulVec(1, make([]float64, 6), 0, make([]float64, 5)) })
	mustPanic(t, "MulTransVec x", func() { m.MulTransVec(1, make([]float64, 6), 0, make([]float64, 6)) })
	mustPanic(t, "MulTransVec y", func() { m.MulTransVec(1, make([]float64, 4), 0, make([]float64, 4)) })
}

// TestMulTransVec36KernelBits: the 3×6 restriction's vector kernel does the scalar
// loop's operations in its order, so with and without it the product is the same bit
// for bit, for any worker count.
func TestMulTransVec36KernelBits(t *testing.T) {
	if !bsrkern.Enabled {
		t.Skip("vector kernels not available on this machine (no AVX2+FMA, or -tags noasm)")
	}
	rng := rand.New(rand.NewPCG(36, 11))
	m, _ := randMatrix(t, rng, 300, 90, 3, 6)
	x := randVec(rng, m.Rows())
	y0 := randVec(rng, m.Cols())
	defer func(e bool) { bsrkern.Enabled = e }(bsrkern.Enabled)
	bsrkern.Enabled = false
	want := append([]float64(nil), y0...)
	m.MulTransVecWorkers(1, -1.25, x, 0.5, want)
	bsrkern.Enabled = true
	for _, w := range []int{1, 3} {
		got := append([]float64(nil), y0...)
		m.MulTransVecWorkers(w, -1.25, x, 0.5, got)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%d workers: entry %d: %v, the scalar loop %v", w, i, got[i], want[i])
			}
		}
	}
}
