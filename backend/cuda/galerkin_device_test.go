package cuda

import (
	"math"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/fem"
)

// TestGalerkinOnMatchesCPU checks the product planned on the device (NewGalerkinOn)
// against amg.Setup's coarse operator, the host Galerkin product: the same pattern,
// values to rounding; and the symmetric half against the full product.
func TestGalerkinOnMatchesCPU(t *testing.T) {
	be := device(t)
	defer be.SetSymmetric(be.opt.Symmetric)
	A, _, modes, err := fem.Ex56System(10, 2)
	if err != nil {
		t.Fatal(err)
	}
	opt := amg.DefaultOptions()
	opt.Threshold, opt.CoarseEqLimit = -0.01, 200
	h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: modes}, opt)
	if err != nil {
		t.Fatal(err)
	}
	for l := 0; l < len(h.Levels)-1; l++ {
		L, want := h.Levels[l], h.Levels[l+1].A
		dA, err := be.UploadMatrixBSR(L.A, false)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := be.UploadPattern(L.P, true)
		if err != nil {
			t.Fatal(err)
		}
		dP := pm.(*Matrix)
		if err := be.UploadValues(dP, L.P.Val); err != nil {
			t.Fatal(err)
		}
		be.RefreshTranspose(dP)
		var ref []float64
		for _, sym := range []bool{false, true} {
			be.SetSymmetric(sym)
			gi, err := be.NewGalerkinOn(dA, dP)
			if err != nil {
				t.Fatal(err)
			}
			g := gi.(*deviceGalerkin)
			run := func() *Matrix {
				if err := g.Numeric(dA, dP); err != nil {
					t.Fatal(err)
				}
				return g.ac
			}
			got := downloadMatrix(t, run())
			if !slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.ColIdx, want.ColIdx) {
				t.Fatalf("level %d: Ac pattern differs from the host's", l)
			}
			var d, n float64
			for i, v := range want.Val {
				d = max(d, math.Abs(got.Val[i]-v))
				n = max(n, math.Abs(v))
			}
			if d > 1e-12*n {
				t.Fatalf("level %d sym %v: Ac differs from the host's by %.3g (max |Ac| %.3g)", l, sym, d, n)
			}
			if sym {
				if i := firstBitDiff(got.Val, ref); i >= 0 && math.Abs(got.Val[i]-ref[i]) > 1e-12*n {
					t.Fatalf("level %d: symmetric half differs from the full product at %d", l, i)
				}
			} else {
				ref = got.Val
			}
			t.Logf("level %d sym %v (%s): max difference from the host %.2g of %.2g", l, sym, g.Name(), d, n)
			g.Free()
		}
		dA.Free()
		dP.Free()
	}
}
