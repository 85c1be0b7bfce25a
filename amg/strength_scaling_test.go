package amg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// TestStrengthBadlyScaled: block norms whose squares underflow or overflow are
// measured like the others, so a badly scaled but valid matrix gets the strength graph
// of its well-scaled form, not "diagonal block missing, zero or not finite".
func TestStrengthBadlyScaled(t *testing.T) {
	// diag(1, …, 1e-170, …): ‖A_ii‖² underflowed to zero.
	d := laplace1D(t, 10)
	for k := range d.Val {
		d.Val[k] = 0
	}
	for i := 0; i < 10; i++ {
		k, _ := d.Find(i, i)
		d.Val[k] = 1
		if i == 4 {
			d.Val[k] = 1e-170
		}
	}
	if _, err := Strength(d, 0, 1); err != nil {
		t.Errorf("diag(1, 1e-170): %v", err)
	}
	// D·A·D with D a power of two per node, 2^±500: every norm scales exactly, so
	// every decision, at every threshold, is the unscaled one.
	A := gridMatrix(t, 12, 12, 2, true, 1e-3, 5)
	rng := rand.New(rand.NewPCG(7, 8))
	dd := make([]float64, A.Rows())
	for i := 0; i < A.BlockRows; i++ {
		s := math.Ldexp(1, rng.IntN(1001)-500)
		dd[2*i], dd[2*i+1] = s, s
	}
	As, _, _ := scaleSystem(A, nil, nil, dd)
	// And with D = 10^u per node, u in [−150, 150]: the same graph (no decision of
	// these thresholds is a near-tie).
	Ag, _, _ := scaleSystem(A, nil, nil, logScaling(A.Rows(), 2, 150, true, 9))
	for _, th := range []float64{-1, 0, 0.02, 0.08, 0.3} {
		g0, err := Strength(A, th, 1)
		if err != nil {
			t.Fatal(err)
		}
		for name, M := range map[string]*bsr.Matrix{"2^±500": As, "10^±150": Ag} {
			g, err := Strength(M, th, 2)
			if err != nil {
				t.Errorf("θ %g, D %s: %v", th, name, err)
				continue
			}
			if !slicesEqual(g.RowPtr, g0.RowPtr) || !slicesEqual(g.Adj, g0.Adj) {
				t.Errorf("θ %g, D %s: %d edges, unscaled %d", th, name, len(g.Adj), len(g0.Adj))
			}
		}
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
