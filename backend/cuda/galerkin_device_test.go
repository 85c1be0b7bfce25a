package cuda

import (
	"math"
	"slices"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/fem"
)

// TestGalerkinOnMatchesCPU checks the product planned on the device (NewGalerkinOn),
// with its tensor-core schedule and with the search kernels, against amg.Setup's
// coarse operator, the host Galerkin product: the same pattern, values to rounding;
// the symmetric half against the full product; and the tensor-core schedule built on
// the device against the host-built plan of the same variant (tc-pairs on the 3×6
// level, tc-block on the others), bit for bit, since both sum the same terms in the
// same order.
func TestGalerkinOnMatchesCPU(t *testing.T) {
	be := device(t)
	defer be.SetSymmetric(be.opt.Symmetric)
	reserve := tcReserve
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
		for _, search := range []bool{false, true} {
			var ref []float64
			for _, sym := range []bool{false, true} {
				be.SetSymmetric(sym)
				// The search kernels once by request, once as the fallback of a
				// schedule that would not leave the reserve free (all of the device).
				deviceTCOff = search && sym
				if search && !sym {
					tcReserve = 1
				}
				gi, err := be.NewGalerkinOn(dA, dP)
				deviceTCOff, tcReserve = false, reserve
				if err != nil {
					t.Fatal(err)
				}
				g := gi.(*deviceGalerkin)
				if (g.tc == nil) != search {
					t.Fatalf("level %d sym %v: plan %s, want the search kernels %v", l, sym, g.Name(), search)
				}
				run := func() *Matrix {
					nan := make([]float64, g.ac.val.Len())
					for i := range nan {
						nan[i] = math.NaN()
					}
					if err := g.ac.val.Upload(nan); err != nil {
						t.Fatal(err)
					}
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
				if g.tc != nil {
					v := GalerkinTCBlock
					if g.tc.pairs {
						v = GalerkinTCPairs
					}
					pl, err := be.GalerkinSymbolicFor(L.A, L.P, func(GalerkinStats) ([]GalerkinVariant, error) { return []GalerkinVariant{v}, nil })
					if err != nil {
						t.Fatal(err)
					}
					if err := pl.PoisonAc(); err != nil {
						t.Fatal(err)
					}
					if err := pl.Numeric(v, dA, dP); err != nil {
						t.Fatal(err)
					}
					host, err := pl.DownloadAc()
					if err != nil {
						t.Fatal(err)
					}
					if i := firstBitDiff(got.Val, host.Val); i >= 0 {
						t.Errorf("level %d sym %v: %s differs from the host-planned %s at value %d: %v, host %v", l, sym, g.Name(), v, i, got.Val[i], host.Val[i])
					}
					pl.Free()
					t.Logf("level %d sym %v: %v", l, sym, g.tc)
				}
				t.Logf("level %d sym %v (%s): max difference from the host %.2g of %.2g, %d plan bytes", l, sym, g.Name(), d, n, g.DeviceBytes())
				g.Free()
			}
		}
		dA.Free()
		dP.Free()
	}
}
