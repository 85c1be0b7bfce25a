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

// keptChain smooths L's tentative prolongator n times the straightforward way, every
// step with its own plan and values (the chain as it was before intermediate values
// were dropped), and returns the final values: the bits newSmoothChain and
// runSmoothChain must reproduce.
func keptChain(L *Level, n int) []float64 {
	X := L.Ptent
	for s := 0; s < n; s++ {
		sp := newSmoothPlan(L.A, X, 1)
		sp.numeric(L.A, X, L.Dinv, L.Omega, 1)
		X = sp.Y
	}
	return X.Val
}

// TestSmoothChainKeepsOnlyFinalValues checks that a level keeps the values of its
// smoothed prolongator but not those of the intermediate smoothing steps (only their
// patterns), after Setup and after Update, with the bits of a chain that keeps every
// step. Before, every step kept its values: memory grew with AggNSmooths (6.2 GB at
// AggNSmooths = 200 on a 6.6k-unknown problem).
func TestSmoothChainKeepsOnlyFinalValues(t *testing.T) {
	A, _, ns := ex56(t, 6)
	for _, n := range []int{1, 2, 3, 4} {
		opt := DefaultOptions()
		opt.AggNSmooths = n
		opt.CoarseEqLimit = 30
		h, err := Setup(A, ns, opt)
		if err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
			for l, L := range h.Levels[:len(h.Levels)-1] {
				steps := L.SmoothSteps()
				if len(steps) != n || steps[n-1] != L.Psmooth {
					t.Fatalf("N=%d %s level %d: %d steps, last is Psmooth: %v", n, when, l, len(steps), steps[len(steps)-1] == L.Psmooth)
				}
				for s, Y := range steps[:n-1] {
					if Y.Val != nil {
						t.Errorf("N=%d %s level %d: intermediate step %d keeps %d values (%.1f kB)",
							n, when, l, s+1, len(Y.Val), float64(len(Y.Val))*8/1e3)
					}
					if int64(len(Y.ColIdx)) != Y.NNZBlocks() {
						t.Errorf("N=%d %s level %d: step %d lost its pattern", n, when, l, s+1)
					}
				}
				if want := keptChain(L, n); !sameBits(L.Psmooth.Val, want) {
					t.Errorf("N=%d %s level %d: smoothed P differs from the kept chain by %g", n, when, l, maxDiff(L.Psmooth.Val, want))
				}
			}
		}
		check("after Setup")
		updateMatchesFresh(t, h, A, ns, opt, 2.5)
		check("after Update")
	}
}
