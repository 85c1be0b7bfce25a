package bsr

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDiagBlocks(t *testing.T) {
	withSmallChunks(t)
	for n := 1; n <= 6; n++ {
		for _, nb := range []int{0, 1, 9} {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(nb)))
			m, d := randMatrix(t, rng, nb, nb, n, n)
			got, err := m.DiagBlocks()
			if err != nil {
				t.Fatal(err)
			}
			cols := nb * n
			for i := 0; i < nb; i++ {
				for ii := 0; ii < n; ii++ {
					for jj := 0; jj < n; jj++ {
						want := d[(i*n+ii)*cols+i*n+jj]
						if g := got[(i*n+ii)*n+jj]; g != want {
							t.Fatalf("n=%d block %d (%d,%d) = %v, want %v", n, i, ii, jj, g, want)
						}
					}
				}
			}
		}
	}
}

func TestDiagRejectsNonSquare(t *testing.T) {
	for _, m := range []*Matrix{Zeros(3, 4, 2, 2), Zeros(3, 3, 2, 3)} {
		if _, err := m.DiagBlocks(); !errors.Is(err, ErrInvalid) {
			t.Fatalf("DiagBlocks: error %v, want ErrInvalid", err)
		}
		if _, err := m.InvertDiag(); !errors.Is(err, ErrInvalid) {
			t.Fatalf("InvertDiag: error %v, want ErrInvalid", err)
		}
	}
}

// diagDominant returns an n×n block with a dominant diagonal, shuffled by a row
// permutation so that partial pivoting has work to do.
func diagDominant(rng *rand.Rand, n int) []float64 {
	a := randVec(rng, n*n)
	for i := 0; i < n; i++ {
		a[i*n+i] += float64(2*n) * math.Copysign(1, a[i*n+i])
	}
	perm := rng.Perm(n)
	p := make([]float64, n*n)
	for i, pi := range perm {
		copy(p[i*n:(i+1)*n], a[pi*n:(pi+1)*n])
	}
	return p
}

func TestInvertDiag(t *testing.T) {
	withSmallChunks(t)
	for n := 1; n <= 6; n++ {
		rng := rand.New(rand.NewPCG(uint64(n), 77))
		const nb = 11
		var bi, bj []int32
		var vals []float64
		for i := 0; i < nb; i++ {
			bi, bj = append(bi, int32(i)), append(bj, int32(i))
			vals = append(vals, diagDominant(rng, n)...)
			if i+1 < nb { // an off-diagonal block that must be ignored
				bi, bj = append(bi, int32(i)), append(bj, int32(i+1))
				vals = append(vals, randVec(rng, n*n)...)
			}
		}
		m, err := FromBlockTriplets(nb, nb, n, n, bi, bj, vals)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := m.DiagBlocks()
		inv, err := m.InvertDiag()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < nb; i++ {
			a, ai := d[i*n*n:(i+1)*n*n], inv[i*n*n:(i+1)*n*n]
			// a·a⁻¹ must be the identity: a dense check independent of the LU.
			for r := 0; r < n; r++ {
				for c := 0; c < n; c++ {
					s := 0.0
					for p := 0; p < n; p++ {
						s += a[r*n+p] * ai[p*n+c]
					}
					want := 0.0
					if r == c {
						want = 1
					}
					if math.Abs(s-want) > 1e-13 {
						t.Fatalf("n=%d block %d: (A·A⁻¹)[%d,%d] = %v", n, i, r, c, s)
					}
				}
			}
		}
	}
}

// A permutation block needs pivoting and has an exact inverse (its transpose).
func TestInvertBlockPivoting(t *testing.T) {
	a := []float64{0, 1, 0, 0, 0, 1, 1, 0, 0}
	inv := nanVec(9)
	if !InvertBlock(3, a, inv) {
		t.Fatal("permutation reported singular")
	}
	want := []float64{0, 0, 1, 1, 0, 0, 0, 1, 0}
	equalDense(t, "inverse", inv, want)
	// In place.
	b := []float64{4, 7, 2, 6}
	if !InvertBlock(2, b, b) {
		t.Fatal("singular")
	}
	for i, w := range []float64{0.6, -0.7, -0.2, 0.4} {
		if math.Abs(b[i]-w) > 1e-15 {
			t.Fatalf("in place: entry %d = %v, want %v", i, b[i], w)
		}
	}
	// Larger than the stack scratch.
	rng := rand.New(rand.NewPCG(8, 8))
	c := diagDominant(rng, 9)
	ci := make([]float64, 81)
	if !InvertBlock(9, c, ci) {
		t.Fatal("9×9 singular")
	}
	for r := 0; r < 9; r++ {
		s := 0.0
		for p := 0; p < 9; p++ {
			s += c[r*9+p] * ci[p*9+r]
		}
		if math.Abs(s-1) > 1e-13 {
			t.Fatalf("9×9 diagonal %d of A·A⁻¹ = %v", r, s)
		}
	}
}

func TestInvertDiagSingular(t *testing.T) {
	withSmallChunks(t)
	cases := []struct {
		name string
		bad  []float64 // the 3×3 diagonal block of row 4 (nil: not stored)
	}{
		{"rank deficient", []float64{1, 2, 3, 2, 4, 6, 0, 1, 1}},
		{"zero block", make([]float64, 9)},
		{"missing block", nil},
		// Exactly singular in real arithmetic; LU leaves a pivot of -2.2e-16, which only
		// the relative pivot threshold catches.
		{"singular up to rounding", []float64{0.1, 0.7, 0, 0.7, 4.9, 0, 0, 0, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var bi, bj []int32
			var vals []float64
			for i := 0; i < 9; i++ {
				blk := []float64{2, 0, 0, 0, 2, 0, 0, 0, 2}
				if i == 4 || i == 7 {
					if tc.bad == nil {
						continue
					}
					blk = tc.bad
				}
				bi, bj, vals = append(bi, int32(i)), append(bj, int32(i)), append(vals, blk...)
			}
			m, err := FromBlockTriplets(9, 9, 3, 3, bi, bj, vals)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 { // the lowest singular row wins whatever the split
				_, err = m.InvertDiag()
				if !errors.Is(err, ErrSingular) || !strings.Contains(err.Error(), "block row 4") {
					t.Fatalf("error %v, want ErrSingular naming block row 4", err)
				}
			}
		})
	}
}

func TestInvertBlockNonFinite(t *testing.T) {
	inv := make([]float64, 4)
	if InvertBlock(2, []float64{1, math.NaN(), 0, 1}, inv) {
		t.Fatal("NaN block inverted")
	}
	if InvertBlock(2, []float64{1, math.Inf(1), 0, 1}, inv) {
		t.Fatal("Inf block inverted")
	}
}

// TestInvertBlockGraded: the units of the unknowns must not decide singularity.
// D·A·D with D = diag(d, 1, 1/d) has the inverse D⁻¹·A⁻¹·D⁻¹ for any d, but its
// entries span d⁴; a pivot test relative to the largest entry calls it singular from
// d = 10⁶ on (after one pass of row and column equilibration, the limit is near
// d = 10¹⁵, entries spanning 10⁶⁰). A singular block stays singular whatever the
// scaling.
func TestInvertBlockGraded(t *testing.T) {
	a := []float64{2, 1, 0, 1, 2, 1, 0, 1, 2}
	ainv := make([]float64, 9)
	if !InvertBlock(3, a, ainv) {
		t.Fatal("A singular")
	}
	sing := []float64{1, 1, 0, 1, 1, 0, 0, 0, 1}
	for _, d := range []float64{1e3, 1e6, 1e10, 1e15} {
		D := []float64{d, 1, 1 / d}
		g := make([]float64, 9)
		s := make([]float64, 9)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				g[i*3+j] = D[i] * a[i*3+j] * D[j]
				s[i*3+j] = D[i] * sing[i*3+j] * D[j]
			}
		}
		inv := nanVec(9)
		if !InvertBlock(3, g, inv) {
			t.Errorf("d = %g: D·A·D reported singular", d)
			continue
		}
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				// (D·A·D)⁻¹ = D⁻¹·A⁻¹·D⁻¹, entry by entry to round-off.
				want := ainv[i*3+j] / (D[i] * D[j])
				if math.Abs(inv[i*3+j]-want) > 1e-14*math.Abs(want)+1e-300 {
					t.Errorf("d = %g: inverse (%d,%d) = %g, want %g", d, i, j, inv[i*3+j], want)
				}
			}
		}
		if InvertBlock(3, s, make([]float64, 9)) {
			t.Errorf("d = %g: singular D·S·D inverted", d)
		}
	}
}
