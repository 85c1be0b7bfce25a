package blockamg_test

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cuda/cudatest"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/hostcoarsen"
)

// relDiff returns ‖x−y‖/‖y‖.
func relDiff(x, y []float64) float64 {
	d, n := 0.0, 0.0
	for i := range x {
		d += (x[i] - y[i]) * (x[i] - y[i])
		n += y[i] * y[i]
	}
	return math.Sqrt(d / n)
}

// countingCoarsener is the host Coarsener counting the uploads of square matrices
// (fine operators; the tentative prolongators are not).
type countingCoarsener struct {
	*hostcoarsen.Backend
	uploads int
}

func (b *countingCoarsener) UploadMatrix(m *bsr.Matrix, withTranspose bool) (backend.Matrix, error) {
	if m.BlockRows == m.BlockCols {
		b.uploads++
	}
	return b.Backend.UploadMatrix(m, withTranspose)
}

// checkDeviceVsHost sets ex56 of size ne up on dev twice — the default (a device
// set-up, when dev is a Coarsener) and HostSetup — and checks that the default made
// a device set-up, and that both solve in the same iterations to solutions within
// tol, first and after an Update of 2·A and a Refresh of 3·(2·A).
func checkDeviceVsHost(t *testing.T, dev backend.Resetter, ne int, tol float64) {
	t.Helper()
	A, b, ns := ex56Parts(t, ne)
	opt := blockamg.DefaultOptions()
	opt.Backend, opt.Device, opt.Workers = blockamg.CUDA, dev, 1
	d := newSolver(t, A.Clone(), ns, opt)
	opt.HostSetup = true
	h := newSolver(t, A.Clone(), ns, opt)
	info := d.DeviceSetup()
	if info == nil || d.Hierarchy() != nil || d.SetupFallback() != nil {
		t.Fatalf("default set-up on a Coarsener: DeviceSetup %v, Hierarchy %v, fallback %v; want a device set-up",
			info != nil, d.Hierarchy() != nil, d.SetupFallback())
	}
	if h.DeviceSetup() != nil || h.Hierarchy() == nil || h.SetupFallback() != nil {
		t.Fatalf("HostSetup: DeviceSetup %v, Hierarchy %v, fallback %v; want a host set-up",
			h.DeviceSetup() != nil, h.Hierarchy() != nil, h.SetupFallback())
	}
	if len(info.Levels) != len(h.Hierarchy().Levels) {
		t.Fatalf("device set-up: %d levels, host %d", len(info.Levels), len(h.Hierarchy().Levels))
	}
	for l, L := range h.Hierarchy().Levels {
		if dl := info.Levels[l]; dl.BlockRows != L.A.BlockRows || dl.Blocks != L.A.NNZBlocks() {
			t.Errorf("level %d: device %d block rows, %d blocks; host %d, %d", l, dl.BlockRows, dl.Blocks, L.A.BlockRows, L.A.NNZBlocks())
		}
	}
	if first, _ := d.DeviceSetupTimes(); first.Total <= 0 || first.Total > info.Total || d.UploadTime() <= 0 {
		t.Errorf("device set-up: first numeric set-up %v of %v in all, upload %v", first.Total, info.Total, d.UploadTime())
	}
	compare := func(when string) {
		t.Helper()
		rd, xd := solveWith(t, d, b)
		rh, xh := solveWith(t, h, b)
		if rd.Iterations != rh.Iterations || !(relDiff(xd, xh) <= tol) {
			t.Errorf("%s: device set-up %d iterations, host set-up %d; solutions differ by %.3g (want ≤ %g)",
				when, rd.Iterations, rh.Iterations, relDiff(xd, xh), tol)
		}
	}
	compare("first solve")
	A2 := A.Clone()
	A2.Scale(2)
	for _, s := range []*blockamg.Solver{d, h} {
		if err := s.Update(A2); err != nil {
			t.Fatal(err)
		}
	}
	compare("after Update")
	for _, s := range []*blockamg.Solver{d, h} {
		s.Backend().(backend.Resetter).ScaleValues(s.FineOperator(), 3)
		if err := s.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	compare("after Refresh")
}

// TestDeviceSetupOnCoarsener: on a Device that is a backend.Coarsener (the host one:
// package amg's functions behind the device interface), NewSolver sets up on the
// device by default, as amg.Setup would have (levels, sizes, iterations, solution);
// Update and Refresh work on it.
func TestDeviceSetupOnCoarsener(t *testing.T) {
	checkDeviceVsHost(t, hostcoarsen.New(1), 8, 1e-10)
}

// TestDeviceSetupFallback: options the device set-up does not cover set up on the
// host instead, with the reason (ErrUnsupported) in SetupFallback and without an
// upload of the fine operator before the host set-up's own; and the device set-up
// refuses bad input with the host's sentinels.
func TestDeviceSetupFallback(t *testing.T) {
	A, b, ns := ex56Parts(t, 4)
	for _, tc := range []struct {
		name string
		mod  func(*blockamg.Options)
	}{
		{"AggNSmooths 2", func(o *blockamg.Options) { o.AMG.AggNSmooths = 2 }},
		{"FilterTheta", func(o *blockamg.Options) { o.AMG.FilterTheta = 0.05 }},
	} {
		dev := &countingCoarsener{Backend: hostcoarsen.New(1)}
		opt := onCPUDevice(dev)
		tc.mod(&opt)
		s := newSolver(t, A.Clone(), ns, opt)
		if !errors.Is(s.SetupFallback(), blockamg.ErrUnsupported) || s.DeviceSetup() != nil || s.Hierarchy() == nil {
			t.Errorf("%s: fallback %v, device set-up %v; want a host set-up for ErrUnsupported", tc.name, s.SetupFallback(), s.DeviceSetup() != nil)
		}
		if dev.uploads != 1 {
			t.Errorf("%s: %d fine-operator uploads, want 1 (the host set-up's)", tc.name, dev.uploads)
		}
		c := newSolver(t, A.Clone(), ns, func() blockamg.Options { o := blockamg.DefaultOptions(); tc.mod(&o); return o }())
		got, _ := solveWith(t, s, b)
		ref, _ := solveWith(t, c, b)
		if got.Iterations != ref.Iterations {
			t.Errorf("%s: %d iterations after the fallback, %d on the CPU", tc.name, got.Iterations, ref.Iterations)
		}
	}

	dev := hostcoarsen.New(1)
	bad := A.Clone()
	bad.Val[5] = math.NaN()
	if _, err := blockamg.NewSolver(bad, ns, onCPUDevice(dev)); !errors.Is(err, blockamg.ErrInput) {
		t.Errorf("device set-up of a matrix with a NaN: %v, want ErrInput", err)
	}
	short := &blockamg.NullSpace{Rows: ns.Rows - 3, Cols: 6, Data: ns.Data[:(ns.Rows-3)*6]}
	if _, err := blockamg.NewSolver(A.Clone(), short, onCPUDevice(dev)); !errors.Is(err, blockamg.ErrInput) {
		t.Errorf("device set-up with a near-null space of the wrong size: %v, want ErrInput", err)
	}
	zero := A.Clone()
	zero.Scale(0)
	if _, err := blockamg.NewSolver(zero, ns, onCPUDevice(dev)); !errors.Is(err, blockamg.ErrInput) {
		t.Errorf("device set-up of a zero matrix: %v, want ErrInput (the strength graph's missing diagonal, as on the host)", err)
	}
	if _, err := blockamg.NewSolver(singularDiag(A), ns, onCPUDevice(dev)); !errors.Is(err, blockamg.ErrSingular) {
		t.Errorf("device set-up with a singular diagonal block: %v, want ErrSingular", err)
	}
	s := newSolver(t, A.Clone(), nil, onCPUDevice(dev)) // nil: ConstantModes
	if s.DeviceSetup() == nil {
		t.Fatalf("no device set-up with the constant modes: %v", s.SetupFallback())
	}
	other := A.Clone()
	other.ColIdx[1], other.ColIdx[2] = other.ColIdx[2], other.ColIdx[1]
	if err := s.Update(other); !errors.Is(err, blockamg.ErrPattern) {
		t.Errorf("Update with another pattern after a device set-up: %v, want ErrPattern", err)
	}
	if _, err := s.Solve(b, make([]float64, len(b))); err != nil {
		t.Errorf("Solve after a refused Update: %v", err)
	}
}

// TestGPUDeviceSetup: on a GPU (skipped without one) Backend CUDA sets ex56 up on the
// device by default, in the iterations of HostSetup and to its solution within
// 1e-10, first and after Update and Refresh.
func TestGPUDeviceSetup(t *testing.T) {
	checkDeviceVsHost(t, cudatest.Device(t), 8, 1e-10)
}

// TestGPUDeviceSetupFallback: on a GPU (skipped without one) AggNSmooths 2, which the
// device set-up does not cover, sets up on the host and solves as the CPU does.
func TestGPUDeviceSetupFallback(t *testing.T) {
	be := cudatest.Device(t)
	A, b, ns := ex56Parts(t, 6)
	opt := blockamg.DefaultOptions()
	opt.AMG.AggNSmooths = 2
	c := newSolver(t, A.Clone(), ns, opt)
	opt.Backend, opt.Device = blockamg.CUDA, be
	s := newSolver(t, A.Clone(), ns, opt)
	if !errors.Is(s.SetupFallback(), blockamg.ErrUnsupported) || s.DeviceSetup() != nil || s.Hierarchy() == nil {
		t.Fatalf("AggNSmooths 2 on the GPU: fallback %v, device set-up %v; want a host set-up", s.SetupFallback(), s.DeviceSetup() != nil)
	}
	got, x := solveWith(t, s, b)
	want, y := solveWith(t, c, b)
	if got.Iterations != want.Iterations || !(relDiff(x, y) < 1e-7) {
		t.Errorf("fallback on the GPU: %d iterations, CPU %d; solutions differ by %.3g", got.Iterations, want.Iterations, relDiff(x, y))
	}
	// The device set-up's errors carry the host's sentinels.
	opt = blockamg.DefaultOptions()
	opt.Backend, opt.Device = blockamg.CUDA, be
	zero := A.Clone()
	zero.Scale(0)
	if _, err := blockamg.NewSolver(zero, ns, opt); !errors.Is(err, blockamg.ErrInput) {
		t.Errorf("device set-up of a zero matrix: %v, want ErrInput", err)
	}
	if _, err := blockamg.NewSolver(singularDiag(A), ns, opt); !errors.Is(err, blockamg.ErrSingular) {
		t.Errorf("device set-up with a singular diagonal block: %v, want ErrSingular", err)
	}
}

// singularDiag returns a copy of A whose first diagonal block has two equal rows.
func singularDiag(A *bsr.Matrix) *bsr.Matrix {
	s := A.Clone()
	for k := s.RowPtr[0]; k < s.RowPtr[1]; k++ {
		if s.ColIdx[k] == 0 {
			blk := s.Val[k*9 : k*9+9]
			copy(blk[3:6], blk[0:3])
		}
	}
	return s
}
