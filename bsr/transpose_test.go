package bsr

import (
	"math/rand/v2"
	"testing"
)

func TestTranspose(t *testing.T) {
	withSmallChunks(t)
	forEachCase(t, func(t *testing.T, rng *rand.Rand, nbr, nbc, r, c int) {
		m, d := randMatrix(t, rng, nbr, nbc, r, c)
		rows, cols := nbr*r, nbc*c
		want := make([]float64, len(d))
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				want[j*rows+i] = d[i*cols+j]
			}
		}
		var ref *Matrix
		for _, w := range []int{1, 2, 3, 7} {
			tr := m.TransposeWorkers(w)
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			if tr.BlockRows != nbc || tr.BlockCols != nbr || tr.R != c || tr.C != r {
				t.Fatalf("transpose is %d×%d blocks of %d×%d", tr.BlockRows, tr.BlockCols, tr.R, tr.C)
			}
			if tr.NNZBlocks() != m.NNZBlocks() {
				t.Fatalf("%d blocks, want %d", tr.NNZBlocks(), m.NNZBlocks())
			}
			equalDense(t, "Aᵀ", walkDense(tr), want)
			if ref == nil {
				ref = tr
			} else if !tr.SamePattern(ref) {
				t.Fatal("pattern depends on worker count")
			} else {
				sameBits(t, "Aᵀ worker counts", tr.Val, ref.Val)
			}
		}
		back := m.Transpose().Transpose()
		if !back.SamePattern(m) {
			t.Fatal("(Aᵀ)ᵀ pattern differs from A")
		}
		sameBits(t, "(Aᵀ)ᵀ", back.Val, m.Val)
	})
}

// MulTransVec must agree with MulVec on the explicit transpose.
func TestMulTransVecMatchesTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, s := range [][2]int{{3, 3}, {3, 6}, {6, 3}, {2, 5}} {
		m, _ := randMatrix(t, rng, 40, 30, s[0], s[1])
		x := randVec(rng, m.Rows())
		a := nanVec(m.Cols())
		m.MulTransVec(1, x, 0, a)
		b := nanVec(m.Cols())
		m.Transpose().MulVec(1, x, 0, b)
		for i := range a {
			if d := a[i] - b[i]; d > 1e-13 || d < -1e-13 {
				t.Fatalf("%v: entry %d: %v vs %v", s, i, a[i], b[i])
			}
		}
	}
}
