package blockamg_test

import (
	"errors"
	"math"
	"testing"

	"github.com/blockamg/blockamg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/backend/cuda/cudatest"
	"github.com/blockamg/blockamg/fem"
	"github.com/blockamg/blockamg/fem/cudafem"
	"github.com/blockamg/blockamg/internal/hostcoarsen"
)

// TestNewSolverOn: a solver made from a matrix already on the device (uploaded here
// by hand) builds the hierarchy NewSolver's device set-up builds from the host
// matrix — same levels and sizes, same iterations, the same solution bit for bit —
// and Refresh after new values written on the device works; Update, which needs the
// host pattern, is refused without breaking the solver.
func TestNewSolverOn(t *testing.T) {
	A, b, ns := ex56Parts(t, 6)
	dev := hostcoarsen.New(1)
	opt := blockamg.DefaultOptions()
	opt.Backend, opt.Device, opt.Workers, opt.AssumeSymmetric = "", dev, 1, true
	ref := newSolver(t, A.Clone(), ns, opt)
	dA, err := dev.UploadMatrix(A, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := blockamg.NewSolverOn(dA, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	di, ri := s.DeviceSetup(), ref.DeviceSetup()
	if di == nil || ri == nil || len(di.Levels) != len(ri.Levels) {
		t.Fatalf("device set-ups: %v and %v", di, ri)
	}
	for l := range di.Levels {
		if di.Levels[l].BlockRows != ri.Levels[l].BlockRows || di.Levels[l].Blocks != ri.Levels[l].Blocks {
			t.Errorf("level %d: %d block rows, %d blocks; NewSolver's %d, %d", l,
				di.Levels[l].BlockRows, di.Levels[l].Blocks, ri.Levels[l].BlockRows, ri.Levels[l].Blocks)
		}
	}
	same := func(when string) {
		t.Helper()
		r1, x1 := solveWith(t, s, b)
		r2, x2 := solveWith(t, ref, b)
		if r1.Iterations != r2.Iterations {
			t.Errorf("%s: %d iterations, NewSolver's %d", when, r1.Iterations, r2.Iterations)
		}
		for i := range x1 {
			if math.Float64bits(x1[i]) != math.Float64bits(x2[i]) {
				t.Fatalf("%s: x[%d] = %v, NewSolver's %v", when, i, x1[i], x2[i])
			}
		}
	}
	same("first solve")
	for _, sv := range []*blockamg.Solver{s, ref} {
		sv.Backend().(backend.Resetter).ScaleValues(sv.FineOperator(), 3)
		if err := sv.Refresh(); err != nil {
			t.Fatal(err)
		}
	}
	same("after a Refresh of 3·A")
	if err := s.Update(A); !errors.Is(err, blockamg.ErrUnsupported) {
		t.Errorf("Update of a NewSolverOn solver: %v, want ErrUnsupported", err)
	}
	same("after the refused Update")
}

// TestNewSolverOnRefuses: options NewSolverOn cannot honour are ErrOptions, a bad
// near-null space ErrInput, and each frees the matrix it was given.
func TestNewSolverOnRefuses(t *testing.T) {
	A, _, ns := ex56Parts(t, 3)
	dev := hostcoarsen.New(1)
	good := blockamg.DefaultOptions()
	good.Device, good.AssumeSymmetric = dev, true
	short := &blockamg.NullSpace{Rows: ns.Rows - 3, Cols: ns.Cols, Data: ns.Data[:(ns.Rows-3)*ns.Cols]}
	for _, tc := range []struct {
		name string
		edit func(*blockamg.Options)
		ns   *blockamg.NullSpace
		want error
	}{
		{"no Device", func(o *blockamg.Options) { o.Device = nil }, ns, blockamg.ErrOptions},
		{"a Device that is not a Coarsener", func(o *blockamg.Options) { o.Device = cpu.New(1) }, ns, blockamg.ErrOptions},
		{"HostSetup", func(o *blockamg.Options) { o.HostSetup = true }, ns, blockamg.ErrOptions},
		{"symmetry not declared", func(o *blockamg.Options) { o.AssumeSymmetric = false }, ns, blockamg.ErrOptions},
		{"unknown smoother", func(o *blockamg.Options) { o.AMG.Smoother = "sor" }, ns, blockamg.ErrOptions},
		{"filtering", func(o *blockamg.Options) { o.AMG.FilterTheta = 0.1 }, ns, blockamg.ErrUnsupported},
		{"near-null space too short", func(*blockamg.Options) {}, short, blockamg.ErrInput},
	} {
		opt := good
		tc.edit(&opt)
		dA, err := dev.UploadMatrix(A, false)
		if err != nil {
			t.Fatal(err)
		}
		fr := &freeWatch{Matrix: dA}
		s, err := blockamg.NewSolverOn(fr, tc.ns, opt)
		if err == nil {
			s.Close()
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if !fr.freed {
			t.Errorf("%s: the matrix was not freed", tc.name)
		}
	}
}

// freeWatch records that its matrix was freed.
type freeWatch struct {
	backend.Matrix
	freed bool
}

func (f *freeWatch) Free() { f.freed = true; f.Matrix.Free() }

// TestGPUNewSolverOnDeviceAssembly: on a GPU (skipped without one) ex56 assembled on
// the device, pattern and values (cudafem.Symbolic, NumericHost), and set up by
// NewSolverOn solves as NewSolver does from the host's assembly: same iterations,
// the same solution bit for bit (the device matrix is bitwise the host's).
func TestGPUNewSolverOnDeviceAssembly(t *testing.T) {
	be := cudatest.Device(t)
	const ne = 8
	A, b, ns := ex56Parts(t, ne)
	box, err := fem.NewBox(fem.Ex56(ne))
	if err != nil {
		t.Fatal(err)
	}
	da, dA, err := cudafem.Symbolic(be, box)
	if err != nil {
		t.Fatal(err)
	}
	defer da.Free()
	if err := da.NumericHost(dA, nil); err != nil {
		t.Fatal(err)
	}
	opt := blockamg.DefaultOptions()
	opt.Backend, opt.Device, opt.Workers, opt.AssumeSymmetric = "", be, 1, true
	s, err := blockamg.NewSolverOn(dA, ns, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref := newSolver(t, A, ns, opt)
	r1, x1 := solveWith(t, s, b)
	r2, x2 := solveWith(t, ref, b)
	if r1.Iterations != r2.Iterations {
		t.Errorf("%d iterations, NewSolver's %d", r1.Iterations, r2.Iterations)
	}
	for i := range x1 {
		if math.Float64bits(x1[i]) != math.Float64bits(x2[i]) {
			t.Fatalf("x[%d] = %v, NewSolver's %v", i, x1[i], x2[i])
		}
	}
}
