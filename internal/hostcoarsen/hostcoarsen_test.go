package hostcoarsen

import (
	"errors"
	"testing"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/krylov"
)

// TestSetupResidentMatchesSetup: SetupResident on the host Coarsener builds amg.Setup's
// hierarchy (levels, block rows, operator, prolongator and tentative prolongator
// patterns' sizes, aggregates), and PCG on it takes the iterations of PCG on the
// host hierarchy uploaded by UploadResident; the options SetupResident does not cover
// are refused with backend.ErrUnsupported.
func TestSetupResidentMatchesSetup(t *testing.T) {
	be := New(1)
	for _, tc := range []struct {
		ne     int
		th     float64
		smooth int
	}{{6, -0.01, 1}, {8, 0, 1}, {6, 0.05, 0}} {
		A, rhs, B, err := fem.Ex56System(tc.ne, 1)
		if err != nil {
			t.Fatal(err)
		}
		opt := amg.DefaultOptions()
		opt.Threshold, opt.AggNSmooths, opt.CoarseEqLimit, opt.Workers = tc.th, tc.smooth, 100, 1
		h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
		if err != nil {
			t.Fatal(err)
		}
		dA, err := be.UploadMatrix(A.Clone(), false)
		if err != nil {
			t.Fatal(err)
		}
		dB, _ := be.NewVector(len(B))
		be.Upload(dB, B)
		c, info, err := cycle.SetupResident(be, dA, dB, 6, opt)
		if err != nil {
			t.Fatalf("ne %d: %v", tc.ne, err)
		}
		defer c.Free()
		if len(info.Levels) != len(h.Levels) {
			t.Fatalf("ne %d θ %g: %d levels, host %d", tc.ne, tc.th, len(info.Levels), len(h.Levels))
		}
		for l, L := range h.Levels {
			d := info.Levels[l]
			if d.BlockRows != L.A.BlockRows || d.Blocks != L.A.NNZBlocks() {
				t.Fatalf("level %d: %d rows %d blocks, host %d, %d", l, d.BlockRows, d.Blocks, L.A.BlockRows, L.A.NNZBlocks())
			}
			if l < len(h.Levels)-1 && (d.Aggregates != L.Agg.Count || d.PBlocks != L.P.NNZBlocks() ||
				d.PtentBlocks != L.Ptent.NNZBlocks() || d.Edges != L.Edges || d.Rounds < 1) {
				t.Fatalf("level %d: %+v; host %d aggregates, P %d blocks, P_tent %d, %d edges", l, d, L.Agg.Count,
					L.P.NNZBlocks(), L.Ptent.NNZBlocks(), L.Edges)
			}
		}
		ref, _, err := cycle.UploadResident(be, h)
		if err != nil {
			t.Fatal(err)
		}
		defer ref.Free()
		if got, want := iterations(t, be, c, rhs), iterations(t, be, ref, rhs); got != want {
			t.Errorf("ne %d θ %g: %d iterations on the device set-up, %d on the host's", tc.ne, tc.th, got, want)
		}
	}
	A, _, B, err := fem.Ex56System(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*amg.Options){
		"AggNSmooths 2":   func(o *amg.Options) { o.AggNSmooths = 2 },
		"FilterTheta":     func(o *amg.Options) { o.FilterTheta = 0.1 },
		"SmootherFloat32": func(o *amg.Options) { o.SmootherFloat32 = true },
	} {
		opt := amg.DefaultOptions()
		mod(&opt)
		dA, _ := be.UploadMatrix(A, false)
		dB, _ := be.NewVector(len(B))
		be.Upload(dB, B)
		if _, _, err := cycle.SetupResident(be, dA, dB, 6, opt); !errors.Is(err, backend.ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", name, err)
		}
		if err := cycle.CheckSetupResident(be, opt); !errors.Is(err, backend.ErrUnsupported) {
			t.Errorf("CheckSetupResident, %s: %v, want ErrUnsupported", name, err)
		}
	}
}

func iterations(t *testing.T, be *Backend, c *cycle.Cycle, rhs []float64) int {
	t.Helper()
	var w backend.PCGWork
	defer w.Free()
	bv, _ := be.NewVector(len(rhs))
	xv, _ := be.NewVector(len(rhs))
	be.Upload(bv, rhs)
	res, err := w.Solve(be, c.Operator(), c, bv, xv, krylov.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res.Iterations
}
