package bsr

import (
	"math"
	"math/rand/v2"
	"testing"
)

// symScaled returns D·A·D for the n×n row-major a.
func symScaled(n int, a, d []float64) []float64 {
	g := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g[i*n+j] = d[i] * a[i*n+j] * d[j]
		}
	}
	return g
}

// checkScaledInverse checks inv against (D·A·D)⁻¹ = D⁻¹·A⁻¹·D⁻¹, entry (i, j) to
// round-off of the largest entry of A⁻¹ (scaled by D_i·D_j: small entries of A⁻¹ are
// not resolved better than that by any inversion).
func checkScaledInverse(t *testing.T, what string, n int, inv, ainv, d []float64) {
	t.Helper()
	amax := 0.0
	for _, v := range ainv {
		amax = max(amax, math.Abs(v))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			got := inv[i*n+j] * d[i] * d[j]
			if math.Abs(got-ainv[i*n+j]) > 1e-12*amax {
				t.Errorf("%s: D·inv·D (%d,%d) = %g, want %g", what, i, j, got, ainv[i*n+j])
				return
			}
		}
	}
}

// TestInvertBlockSymmetricScaling: an SPD block of a system scaled as D·A·D with D
// spanning many orders inside the node can have rows dominated by off-diagonal
// entries; row-then-column equilibration then leaves two rows nearly parallel and the
// block was called singular ("level 0: bsr: singular block"), or inverted with no
// correct digit. The block below is
// hypre_beam_tet_459's diagonal block of node 1 with D as in the campaign's scaling
// (spanning 1e±30); random SPD blocks are scaled by D spanning 1e±150.
func TestInvertBlockSymmetricScaling(t *testing.T) {
	a := []float64{75, -8.33333333333333, -8.33333333333333, -8.33333333333333, 66.6666666666667, 0, -8.33333333333333, 0, 66.6666666666667}
	d := []float64{6.131470120454979e-05, 7.381437779817651e+17, 2.004421869217591e-07}
	ainv := make([]float64, 9)
	if !InvertBlock(3, a, ainv) {
		t.Fatal("A singular")
	}
	g := symScaled(3, a, d)
	inv := nanVec(9)
	if !InvertBlock(3, g, inv) {
		t.Fatal("D·A·D of hypre_beam_tet_459's block 1 reported singular")
	}
	checkScaledInverse(t, "hypre block", 3, inv, ainv, d)
	// In place (inv aliasing a), the second attempt must start from the block, not
	// from what the first one left.
	gi := append([]float64(nil), g...)
	if !InvertBlock(3, gi, gi) {
		t.Fatal("in place: reported singular")
	}
	checkScaledInverse(t, "hypre block in place", 3, gi, ainv, d)
	if _, err := (&Matrix{BlockRows: 1, BlockCols: 1, R: 3, C: 3, RowPtr: []int64{0, 1}, ColIdx: []int32{0}, Val: g}).InvertDiag(); err != nil {
		t.Errorf("InvertDiag: %v", err)
	}

	// D = diag(1e20, 1, 1e-20), the same units in every node: equilibration alone
	// passed the pivot test with an inverse 36 times its largest entry off for this
	// node block of ex56 (ne = 6, node 115; its round-off couplings are what D
	// magnifies).
	e56 := []float64{1.1392685185185185, -6.932117640329194e-18, -6.932117640329194e-18, -6.932117640329194e-18, 1.1392685185185183, -0.10544999999999999, -6.932117640329194e-18, -0.10544999999999999, 1.1392685185185185}
	e56inv := make([]float64, 9)
	if !InvertBlock(3, e56, e56inv) {
		t.Fatal("ex56 block singular")
	}
	for _, blk := range []struct {
		a, ainv []float64
	}{{a, ainv}, {e56, e56inv}} {
		for _, du := range [][]float64{{1e20, 1, 1e-20}, {1e150, 1e-150, 1}, {1e6, 1, 1e-6}} {
			inv := nanVec(9)
			if !InvertBlock(3, symScaled(3, blk.a, du), inv) {
				t.Errorf("D %v: reported singular", du)
				continue
			}
			checkScaledInverse(t, "units", 3, inv, blk.ainv, du)
		}
	}

	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{2, 3, 6} {
		for trial := 0; trial < 200; trial++ {
			// A = LLᵀ + I, well conditioned.
			l := make([]float64, n*n)
			for i := range l {
				l[i] = rng.Float64()*2 - 1
			}
			a := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					for q := 0; q < n; q++ {
						a[i*n+j] += l[i*n+q] * l[j*n+q]
					}
				}
				a[i*n+i]++
			}
			ainv := make([]float64, n*n)
			if !InvertBlock(n, a, ainv) {
				t.Fatal("A singular")
			}
			d := make([]float64, n)
			for i := range d {
				d[i] = math.Pow(10, 150*(2*rng.Float64()-1))
			}
			inv := nanVec(n * n)
			if !InvertBlock(n, symScaled(n, a, d), inv) {
				t.Errorf("n %d trial %d: D·A·D (D %.3g) reported singular", n, trial, d)
				continue
			}
			checkScaledInverse(t, "random block", n, inv, ainv, d)
		}
	}
}

// TestInvertBlockFirstAttemptBits: a block the equilibrated LU inverts gets exactly
// its bits; the second attempt never runs for it.
func TestInvertBlockFirstAttemptBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{1, 3, 6} {
		for trial := 0; trial < 100; trial++ {
			a := randVec(rng, n*n)
			for i := 0; i < n; i++ {
				a[i*n+i] += float64(n)
			}
			want := make([]float64, n*n)
			if !invertEquilibrated(n, a, want, make([]float64, n*n), make([]int, n), make([]float64, 2*n)) {
				continue
			}
			got := nanVec(n * n)
			if !InvertBlock(n, a, got) {
				t.Fatalf("n %d: InvertBlock failed where the first attempt succeeds", n)
			}
			sameBits(t, "inverse", got, want)
		}
	}
}
