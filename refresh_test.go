package blockamg_test

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/backend/cuda/cudatest"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/fem"
)

func TestMain(m *testing.M) { cudatest.Main(m) }

// ex56Parts returns the ex56 system of size ne: matrix, right-hand side and
// rigid-body modes.
func ex56Parts(t *testing.T, ne int) (*bsr.Matrix, []float64, *blockamg.NullSpace) {
	t.Helper()
	A, b, B, err := fem.Ex56System(ne, 1)
	if err != nil {
		t.Fatal(err)
	}
	return A, b, &blockamg.NullSpace{Rows: A.Rows(), Cols: 6, Data: B}
}

// newSolver is NewSolver that fails the test on an error and closes the solver at
// its end.
func newSolver(t *testing.T, A *bsr.Matrix, ns *blockamg.NullSpace, opt blockamg.Options) *blockamg.Solver {
	t.Helper()
	s, err := blockamg.NewSolver(A, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// onCPUDevice returns options whose Device is be: for the CPU backend, which is not a
// backend.Coarsener, the set-up of a device whose patterns come from the host (every
// value computed on the backend) run on the host; for a Coarsener (hostcoarsen), the
// device set-up.
func onCPUDevice(be backend.Resetter) blockamg.Options {
	opt := blockamg.DefaultOptions()
	opt.Backend, opt.Device, opt.Workers = "", be, 1
	return opt
}

// solveWith solves b by s.Solve and returns x.
func solveWith(t *testing.T, s *blockamg.Solver, b []float64) (blockamg.Result, []float64) {
	t.Helper()
	x := make([]float64, len(b))
	res, err := s.Solve(b, x)
	if err != nil {
		t.Fatal(err)
	}
	return res, x
}

// solveVectors solves b by s.SolveVectors on vectors of s's backend and returns x.
func solveVectors(t *testing.T, s *blockamg.Solver, b []float64) (blockamg.Result, []float64) {
	t.Helper()
	be := s.Backend()
	bv, err := be.NewVector(len(b))
	if err != nil {
		t.Fatal(err)
	}
	defer bv.Free()
	xv, err := be.NewVector(len(b))
	if err != nil {
		t.Fatal(err)
	}
	defer xv.Free()
	be.Upload(bv, b)
	res, err := s.SolveVectors(bv, xv)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(b))
	be.Download(x, xv)
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
	return res, x
}

func sameBits(t *testing.T, label string, x, y []float64) {
	t.Helper()
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			t.Fatalf("%s: x[%d] = %v, want %v bit for bit", label, i, x[i], y[i])
		}
	}
}

// TestSolveVectorsMatchesSolve: a solve on backend vectors is Solve bit for bit,
// repeated (PCG's kept work vectors), on the host set-up and on the device set-up
// run on the CPU backend.
func TestSolveVectorsMatchesSolve(t *testing.T) {
	for name, opt := range map[string]blockamg.Options{
		"host set-up":   blockamg.DefaultOptions(),
		"device set-up": onCPUDevice(cpu.New(1)),
	} {
		A, b, ns := ex56Parts(t, 4)
		s := newSolver(t, A, ns, opt)
		want, x := solveWith(t, s, b)
		for range 2 {
			got, y := solveVectors(t, s, b)
			if got.Iterations != want.Iterations || got.Residual != want.Residual {
				t.Errorf("%s: SolveVectors %d iterations, residual %g; Solve %d, %g", name, got.Iterations, got.Residual, want.Iterations, want.Residual)
			}
			sameBits(t, name+": SolveVectors", y, x)
		}
	}
}

// TestRefreshMatchesUpdate: new values written on the backend (ScaleValues on the
// fine operator) and Refresh solve as Update with the same values given from the
// host does, bit for bit, on the host set-up and on the device set-up on the CPU
// backend; and the device set-up agrees with the host's to rounding.
func TestRefreshMatchesUpdate(t *testing.T) {
	const f = 3.5
	solutions := map[string][]float64{}
	for name, opt := range map[string]func() blockamg.Options{
		"host set-up":   blockamg.DefaultOptions,
		"device set-up": func() blockamg.Options { return onCPUDevice(cpu.New(1)) },
	} {
		A, b, ns := ex56Parts(t, 4)
		s := newSolver(t, A.Clone(), ns, opt())
		be := s.Backend().(backend.Resetter)
		be.ScaleValues(s.FineOperator(), f)
		if err := s.Refresh(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, x := solveWith(t, s, b)

		u := newSolver(t, A.Clone(), ns, opt())
		B := A.Clone()
		B.Scale(f)
		if err := u.Update(B); err != nil {
			t.Fatal(err)
		}
		want, y := solveWith(t, u, b)
		if got.Iterations != want.Iterations {
			t.Errorf("%s: %d iterations after Refresh, %d after Update", name, got.Iterations, want.Iterations)
		}
		sameBits(t, name+": Refresh", x, y)
		first, last := s.DeviceSetupTimes()
		if device := name == "device set-up"; device != (first.Total > 0 && last.Total > 0) {
			t.Errorf("%s: device set-up times first %v, last %v", name, first.Total, last.Total)
		}
		if s.UploadTime() <= 0 {
			t.Errorf("%s: UploadTime %v, want > 0", name, s.UploadTime())
		}
		solutions[name] = x
	}
	x, y := solutions["device set-up"], solutions["host set-up"]
	d, n := 0.0, 0.0
	for i := range x {
		d += (x[i] - y[i]) * (x[i] - y[i])
		n += y[i] * y[i]
	}
	if rel := math.Sqrt(d / n); !(rel < 1e-8) {
		t.Errorf("device set-up's solution differs from the host set-up's by %.2e, want < 1e-8", rel)
	}
}

// TestRefreshBroken: a Refresh that fails (a zero fine operator: not positive
// definite on the host, singular diagonal blocks on the device) leaves the solver refusing Solve and SolveVectors with ErrBroken until a
// Refresh with good values succeeds.
func TestRefreshBroken(t *testing.T) {
	for name, opt := range map[string]blockamg.Options{
		"host set-up":   blockamg.DefaultOptions(),
		"device set-up": onCPUDevice(cpu.New(1)),
	} {
		A, b, ns := ex56Parts(t, 3)
		good := append([]float64(nil), A.Val...)
		s := newSolver(t, A, ns, opt)
		be := s.Backend().(backend.Resetter)
		be.ScaleValues(s.FineOperator(), 0)
		if err := s.Refresh(); !errors.Is(err, blockamg.ErrSingular) && !errors.Is(err, blockamg.ErrNotSPD) {
			t.Fatalf("%s: Refresh of a zero operator: %v, want ErrSingular or ErrNotSPD", name, err)
		}
		x := make([]float64, len(b))
		if _, err := s.Solve(b, x); !errors.Is(err, blockamg.ErrBroken) {
			t.Errorf("%s: Solve after a failed Refresh: %v, want ErrBroken", name, err)
		}
		bv, _ := be.NewVector(len(b))
		xv, _ := be.NewVector(len(b))
		if _, err := s.SolveVectors(bv, xv); !errors.Is(err, blockamg.ErrBroken) {
			t.Errorf("%s: SolveVectors after a failed Refresh: %v, want ErrBroken", name, err)
		}
		bv.Free()
		xv.Free()
		if err := be.UploadValues(s.FineOperator(), good); err != nil {
			t.Fatal(err)
		}
		if err := s.Refresh(); err != nil {
			t.Fatalf("%s: Refresh with good values: %v", name, err)
		}
		if _, err := s.Solve(b, x); err != nil {
			t.Errorf("%s: Solve after a good Refresh: %v", name, err)
		}
	}
}

// ownedCPU is a CPU backend that records what a Solver does to it as a Device.
type ownedCPU struct {
	*cpu.Backend
	closed    int
	symmetric bool
}

func (b *ownedCPU) Close() error          { b.closed++; return b.Backend.Close() }
func (b *ownedCPU) SetSymmetric(sym bool) { b.symmetric = sym }

// TestDeviceOption: a Device is told A's symmetry, is not closed by Close, and
// excludes Backend CPU.
func TestDeviceOption(t *testing.T) {
	A, b, ns := ex56Parts(t, 3)
	dev := &ownedCPU{Backend: cpu.New(1)}
	opt := onCPUDevice(dev)
	opt.Backend = blockamg.CUDA // allowed with a Device: a device set-up
	s, err := blockamg.NewSolver(A, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !dev.symmetric {
		t.Errorf("Device not told that the symmetric A is symmetric")
	}
	solveWith(t, s, b)
	if err := s.Close(); err != nil || dev.closed != 0 {
		t.Errorf("Close: %v, Device closed %d times; want nil, 0", err, dev.closed)
	}
	opt.Backend = blockamg.CPU
	if _, err := blockamg.NewSolver(A, ns, opt); !errors.Is(err, blockamg.ErrOptions) {
		t.Errorf("Device with Backend cpu: %v, want ErrOptions", err)
	}
}

// TestGPURefresh runs the caller-driven device path on a GPU (skipped without one):
// the solver on an opened cuda.Backend, new values scaled on the device and Refresh,
// the right-hand side's upload overlapping the re-setup (StartUpload from page-locked
// memory) and SolveVectors; the iterations must be the CPU's after Update.
func TestGPURefresh(t *testing.T) {
	be := cudatest.Device(t)
	const f = 2.5
	A, b, ns := ex56Parts(t, 6)
	opt := blockamg.DefaultOptions()
	opt.Backend, opt.Device = blockamg.CUDA, be
	s := newSolver(t, A.Clone(), ns, opt)

	c := newSolver(t, A.Clone(), ns, blockamg.DefaultOptions())
	B := A.Clone()
	B.Scale(f)
	if err := c.Update(B); err != nil {
		t.Fatal(err)
	}
	want, y := solveWith(t, c, b)

	pb, err := be.HostAlloc(len(b))
	if err != nil {
		t.Fatal(err)
	}
	defer be.HostFree(pb)
	copy(pb, b)
	bv, err := be.NewVector(len(b))
	if err != nil {
		t.Fatal(err)
	}
	defer bv.Free()
	xv, err := be.NewVector(len(b))
	if err != nil {
		t.Fatal(err)
	}
	defer xv.Free()
	be.ScaleValues(s.FineOperator(), f)
	wait := be.StartUpload(bv, pb)
	if err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	wait()
	got, err := s.SolveVectors(bv, xv)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(b))
	be.Download(x, xv)
	if err := be.Err(); err != nil {
		t.Fatal(err)
	}
	if got.Iterations != want.Iterations {
		t.Errorf("GPU: %d iterations after Refresh, CPU %d after Update", got.Iterations, want.Iterations)
	}
	d, n := 0.0, 0.0
	for i := range x {
		d += (x[i] - y[i]) * (x[i] - y[i])
		n += y[i] * y[i]
	}
	if rel := math.Sqrt(d / n); !(rel < 1e-7) {
		t.Errorf("GPU solution differs from the CPU's by %.2e, want < 1e-7", rel)
	}
	// The set-up was the device's (cuda.Backend is a Coarsener): its numeric part is
	// the first numeric set-up.
	if first, last := s.DeviceSetupTimes(); first.Total <= 0 || last.Total <= 0 || s.DeviceSetup() == nil ||
		s.DeviceSetup().Total < first.Total || s.UploadTime() <= 0 {
		t.Errorf("device times: first %v, last %v, device set-up %v, upload %v", first.Total, last.Total, s.DeviceSetup() != nil, s.UploadTime())
	}
	// The solver leaves the caller's backend open.
	if s.Close(); be.Closed() {
		t.Errorf("Close closed the caller's cuda.Backend")
	}
}
