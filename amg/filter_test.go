package amg

import (
	"math"
	"testing"
)

// TestFilteredHierarchy checks the integration of prolongator filtering: every
// filtered P still reproduces the near-null space of its level (P·B_c equals the
// smoothed P's), Update equals a fresh Setup bit for bit, and CG needs at most one
// more iteration than without filtering.
func TestFilteredHierarchy(t *testing.T) {
	A, b, ns := ex56(t, 10)
	opt := DefaultOptions()
	opt.AggressiveLevels = 0 // fatter prolongators: filtering has something to drop
	plain, err := Setup(A, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := solveCG(t, plain, b)

	opt.FilterTheta = 0.1
	h, err := Setup(A, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	dropped := int64(0)
	for l, L := range h.Levels[:len(h.Levels)-1] {
		if L.Filter == nil {
			t.Fatalf("level %d: no filter plan with FilterTheta %g", l, opt.FilterTheta)
		}
		dropped += L.Filter.Stats().DroppedBlocks
		Bc := h.Levels[l+1].B
		k := h.Levels[l+1].A.R
		want := make([]float64, L.Psmooth.Rows()*k)
		got := make([]float64, L.P.Rows()*k)
		for j := 0; j < k; j++ { // column j of P·B_c, through MulVec on column j of B_c
			col := make([]float64, L.P.Cols())
			for i := range col {
				col[i] = Bc[i*k+j]
			}
			w := make([]float64, L.P.Rows())
			g := make([]float64, L.P.Rows())
			L.Psmooth.MulVec(1, col, 0, w)
			L.P.MulVec(1, col, 0, g)
			for i := range w {
				want[i*k+j], got[i*k+j] = w[i], g[i]
			}
		}
		var d, n float64
		for i := range want {
			d += (want[i] - got[i]) * (want[i] - got[i])
			n += want[i] * want[i]
		}
		if math.Sqrt(d) > 1e-12*math.Sqrt(n) {
			t.Errorf("level %d: ‖P_f·B_c − P·B_c‖ = %.3e·‖P·B_c‖, want ≤ 1e-12", l, math.Sqrt(d/n))
		}
	}
	if dropped == 0 {
		t.Fatal("FilterTheta 0.1 dropped nothing: the test does not exercise filtering")
	}
	if plain.Levels[0].P.NNZBlocks() <= h.Levels[0].P.NNZBlocks() {
		t.Errorf("filtered fine P has %d blocks, unfiltered %d", h.Levels[0].P.NNZBlocks(), plain.Levels[0].P.NNZBlocks())
	}
	res, _ := solveCG(t, h, b)
	if res.Iterations > base.Iterations+1 {
		t.Errorf("filtered: %d iterations, unfiltered %d (want at most one more)", res.Iterations, base.Iterations)
	}

	// Update with scaled values equals a fresh Setup on those values, bit for bit.
	updateMatchesFresh(t, h, A, ns, opt, 1.5)
}
