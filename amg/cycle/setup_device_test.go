package cycle

import (
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/internal/cudadrv"
	"github.com/blockamg/blockamg/krylov"
)

// TestSetupResidentMatchesHost builds ex56's hierarchy on the device (SetupResident)
// and on the host (amg.Setup, the oracle) with the same options, and checks that they
// are the same hierarchy — levels, block rows, operator and prolongator patterns'
// sizes, aggregates — and that PCG takes the same iterations to a solution within
// 1e-10 of the host-built hierarchy's; then a device Update after new values.
func TestSetupResidentMatchesHost(t *testing.T) {
	be, err := cuda.New(cuda.Options{})
	if errors.Is(err, cudadrv.ErrNoDriver) || errors.Is(err, cudadrv.ErrNoDevice) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for _, tc := range []struct {
		ne     int
		th     float64
		smooth int
		sym    bool
	}{{8, -0.01, 1, false}, {12, -0.01, 1, false}, {12, 0, 1, true}, {10, -0.01, 0, true}} {
		// The symmetric half (each Ac's upper blocks, mirrored) on both sides.
		be.SetSymmetric(tc.sym)
		A, rhs, B, err := fem.Ex56System(tc.ne, 0)
		if err != nil {
			t.Fatal(err)
		}
		opt := amg.DefaultOptions()
		opt.Threshold, opt.CoarseEqLimit, opt.AggNSmooths, opt.Symmetric = tc.th, 200, tc.smooth, tc.sym
		opt.ChebyshevEstEig = [4]float64{0, 0.2, 0, 1.05}
		h, err := amg.Setup(A, &amg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}, opt)
		if err != nil {
			t.Fatal(err)
		}
		dA, err := be.UploadMatrix(A, false)
		if err != nil {
			t.Fatal(err)
		}
		dB, err := be.NewVector(len(B))
		if err != nil {
			t.Fatal(err)
		}
		be.Upload(dB, B)
		c, info, err := SetupResident(be, dA, dB, 6, opt)
		dB.Free()
		if err != nil {
			t.Fatalf("ne %d: %v", tc.ne, err)
		}
		if len(info.Levels) != len(h.Levels) {
			t.Fatalf("ne %d θ %g: device %d levels, host %d", tc.ne, tc.th, len(info.Levels), len(h.Levels))
		}
		for l, L := range h.Levels {
			d := info.Levels[l]
			if d.BlockRows != L.A.BlockRows || d.Blocks != L.A.NNZBlocks() {
				t.Fatalf("level %d: device %d rows %d blocks, host %d, %d", l, d.BlockRows, d.Blocks, L.A.BlockRows, L.A.NNZBlocks())
			}
			if m := d.Memory; m.Operator < L.A.Bytes() || m.Vectors < 5*8*int64(L.A.Rows()) ||
				(l < len(h.Levels)-1 && (m.Prolongators < L.P.Bytes() || m.Plan <= 0 || m.Smoother <= 0)) {
				t.Fatalf("level %d: device memory %+v, less than the host's operator %d or prolongator %d bytes", l, m, L.A.Bytes(), L.P.Bytes())
			}
			if l < len(h.Levels)-1 && (d.Aggregates != L.Agg.Count || d.PBlocks != L.P.NNZBlocks()) {
				t.Fatalf("level %d: device %d aggregates, P %d blocks; host %d, %d", l, d.Aggregates, d.PBlocks, L.Agg.Count, L.P.NNZBlocks())
			}
		}
		solve := func(cyc *Cycle) ([]float64, int) {
			var w backend.PCGWork
			defer w.Free()
			n := len(rhs)
			bv, _ := be.NewVector(n)
			xv, _ := be.NewVector(n)
			defer bv.Free()
			defer xv.Free()
			be.Upload(bv, rhs)
			res, err := w.Solve(be, cyc.Operator(), cyc, bv, xv, krylov.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, n)
			be.Download(x, xv)
			return x, res.Iterations
		}
		xd, itd := solve(c)
		ref, _, err := UploadResident(be, h)
		if err != nil {
			t.Fatal(err)
		}
		xh, ith := solve(ref)
		ref.Free()
		if itd != ith || relDiff(xd, xh) > 1e-10 {
			t.Fatalf("ne %d θ %g: device set-up %d iterations, host %d; solutions differ by %.3g", tc.ne, tc.th, itd, ith, relDiff(xd, xh))
		}
		// A recurring step on the device-built hierarchy.
		be.ScaleValues(c.FineOperator(), 2)
		if _, err := c.Update(); err != nil {
			t.Fatal(err)
		}
		_, it2 := solve(c)
		if it2 != itd {
			t.Fatalf("after Update of 2·A: %d iterations, want %d", it2, itd)
		}
		if name := c.res.levels[0].gal.Name(); tc.sym && !strings.HasSuffix(name, "-sym") {
			t.Errorf("symmetric operator: device Galerkin %s, want its symmetric half", name)
		}
		t.Logf("ne %d θ %g smooth %d: %d levels, %d iterations, rel. diff %.2g; device set-up %v (level 0: coarsen %v, plan %v, numeric %v, %d MIS rounds)",
			tc.ne, tc.th, tc.smooth, len(info.Levels), itd, relDiff(xd, xh), info.Total,
			info.Levels[0].Coarsen, info.Levels[0].Plan, info.Levels[0].Numeric.Galerkin, info.Levels[0].Rounds)
		c.Free()
	}
}

var flagPerfNE = flag.Int("cycle.perf-ne", 0, "ex56 size of the device set-up timing report (0: skip it)")

// TestPerfSetupResident times SetupResident at ex56 -cycle.perf-ne (opt-in: GBs of
// host and device memory) with the benchmarks' options, phase by phase, and the PCG
// solve after it, twice (the first run compiles nothing: the kernels are loaded by
// cuda.New).
func TestPerfSetupResident(t *testing.T) {
	ne := *flagPerfNE
	if ne == 0 {
		t.Skip("-cycle.perf-ne N runs the device set-up timing report")
	}
	be, err := cuda.New(cuda.Options{})
	if err != nil {
		t.Skip(err)
	}
	defer be.Close()
	A, rhs, B, err := fem.Ex56System(ne, 0)
	if err != nil {
		t.Fatal(err)
	}
	opt := amg.DefaultOptions()
	opt.Threshold, opt.CoarseEqLimit, opt.Symmetric = -0.01, 200, true
	opt.ChebyshevEstEig = [4]float64{0, 0.2, 0, 1.05}
	be.SetSymmetric(true)
	for run := 0; run < 2; run++ {
		dA, err := be.UploadMatrix(A, false)
		if err != nil {
			t.Fatal(err)
		}
		dB, _ := be.NewVector(len(B))
		be.Upload(dB, B)
		if err := be.Err(); err != nil {
			t.Fatal(err)
		}
		c, info, err := SetupResident(be, dA, dB, 6, opt)
		dB.Free()
		if err != nil {
			t.Fatal(err)
		}
		var w backend.PCGWork
		bv, _ := be.NewVector(len(rhs))
		xv, _ := be.NewVector(len(rhs))
		be.Upload(bv, rhs)
		t0 := time.Now()
		res, err := w.Solve(be, c.Operator(), c, bv, xv, krylov.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		ts := time.Since(t0)
		u0 := time.Now()
		ut, err := c.Update()
		if err != nil {
			t.Fatal(err)
		}
		tu := time.Since(u0)
		t.Logf("ne %d run %d: device set-up %.1f ms, solve %.1f ms (%d iterations), re-setup %.1f ms (%.1f by phases)",
			ne, run, ms(info.Total), ms(ts), res.Iterations, ms(tu), ms(ut.Total))
		for l, d := range info.Levels {
			t.Logf("  level %d: %d rows ×%d, %d blocks, %d aggregates, %d rounds: coarsen %.2f ms, plan %.2f ms, numeric %.2f ms (diag %.2f, eig %.2f, smooth %.2f, PᵀAP %.2f)",
				l, d.BlockRows, d.Block, d.Blocks, d.Aggregates, d.Rounds, ms(d.Coarsen), ms(d.Plan),
				ms(d.Numeric.Diag+d.Numeric.Eig+d.Numeric.Smooth+d.Numeric.Transpose+d.Numeric.Galerkin),
				ms(d.Numeric.Diag), ms(d.Numeric.Eig), ms(d.Numeric.Smooth), ms(d.Numeric.Galerkin))
		}
		t.Logf("  coarse %.2f ms", ms(info.Coarse))
		w.Free()
		bv.Free()
		xv.Free()
		c.Free()
	}
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }
