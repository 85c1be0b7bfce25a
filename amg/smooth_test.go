package amg

import (
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// denseSmooth returns (I − ω·D⁻¹A)·X densely, D⁻¹ given as block inverses.
func denseSmooth(A, X *bsr.Matrix, dinv []float64, omega float64) []float64 {
	n, b := A.Rows(), A.R
	Ad := A.ToDense()
	Dd := make([]float64, n*n)
	for i := 0; i < A.BlockRows; i++ {
		for p := 0; p < b; p++ {
			for q := 0; q < b; q++ {
				Dd[(i*b+p)*n+i*b+q] = dinv[i*b*b+p*b+q]
			}
		}
	}
	S := denseMul(n, n, n, Dd, Ad)
	for i := range S {
		S[i] *= -omega
	}
	for i := 0; i < n; i++ {
		S[i*n+i]++
	}
	return denseMul(n, n, X.Cols(), S, X.ToDense())
}

func TestSmoothedProlongatorMatchesDense(t *testing.T) {
	for _, tc := range []struct {
		name  string
		b, k  int
		steps int
	}{{"b3k6", 3, 6, 1}, {"b2k3", 2, 3, 1}, {"b2k2-two-steps", 2, 2, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			A := gridMatrix(t, 9, 8, tc.b, true, 0.05, 6)
			B := randomVec(A.Rows()*tc.k, 11)
			g, err := Strength(A, 0.01, 1)
			if err != nil {
				t.Fatal(err)
			}
			agg := Aggregate(g, true, (tc.k+tc.b-1)/tc.b)
			Ptent, _ := Tentative(agg, B, tc.b, tc.k, 1)
			dinv, err := A.InvertDiag()
			if err != nil {
				t.Fatal(err)
			}
			omega := 0.37
			X := Ptent
			want := Ptent.ToDense()
			for s := 0; s < tc.steps; s++ {
				sp := newSmoothPlan(A, X, 1)
				for p := range sp.Y.Val {
					sp.Y.Val[p] = 1e300 // poison: numeric must overwrite every value
				}
				sp.numeric(A, X, dinv, omega, 1)
				if err := sp.Y.Validate(); err != nil {
					t.Fatal(err)
				}
				want = denseSmooth(A, X, dinv, omega)
				if d := maxDiff(sp.Y.ToDense(), want); d > 1e-13 {
					t.Fatalf("step %d: smoothed P differs from dense by %g", s, d)
				}
				// Two workers give the same bits.
				sp2 := newSmoothPlan(A, X, 2)
				sp2.numeric(A, X, dinv, omega, 2)
				if !sameBits(sp.Y.Val, sp2.Y.Val) || len(sp.Y.ColIdx) != len(sp2.Y.ColIdx) {
					t.Fatal("smoothed P depends on workers")
				}
				X = sp.Y
			}
		})
	}
}
