package blockamg

import (
	"errors"
	"fmt"

	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/amg/cycle"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cpu"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// Backends NewSolver accepts in Options.Backend.
const (
	CPU  = "cpu"  // pure Go, the default
	CUDA = "cuda" // an NVIDIA GPU, its driver and NVRTC loaded at run time
)

// Options is everything a Solver can be told, with DefaultOptions' values documented
// on each field.
type Options struct {
	// AMG is the hierarchy's set-up: strength threshold, smoothing of the
	// prolongator, coarsening limits, smoother (amg.DefaultOptions: PETSc GAMG's
	// defaults). Its Symmetric and Workers fields are set by NewSolver.
	AMG amg.Options
	// Solve is the CG solve: RelTol 1e-8, AbsTol 1e-50, MaxIter 10000, History off
	// (krylov.DefaultOptions). Its Workers field is set by NewSolver.
	Solve krylov.Options
	// Backend is where the solve runs: CPU (the default, also "") or CUDA. On CUDA
	// the patterns are computed on the host once and every value, of the first set-up
	// and of each Update, on the device.
	Backend string
	// Device is the CUDA device ordinal (Backend CUDA), default 0.
	Device int
	// Workers bounds the goroutines of the CPU set-up and solve (0: GOMAXPROCS).
	// Results are bitwise the same for any count.
	Workers int
	// FullGalerkin computes every block of each coarse operator. By default, when A
	// is symmetric (checked by NewSolver), the Galerkin products compute the blocks on
	// and above the diagonal and mirror them, about half the work.
	FullGalerkin bool
}

// DefaultOptions returns the options of a plain NewSolver call.
func DefaultOptions() Options {
	return Options{AMG: amg.DefaultOptions(), Solve: krylov.DefaultOptions(), Backend: CPU}
}

// Result describes a solve: iterations, initial and final residual, target, and the
// residual history when Options.Solve.History is set.
type Result = krylov.Result

// Solver is a smoothed-aggregation hierarchy and the CG solve it preconditions, on
// one backend. It is not safe for concurrent use.
type Solver struct {
	opt  Options
	h    *amg.Hierarchy
	be   backend.Backend
	cyc  *cycle.Cycle
	work backend.PCGWork
	b, x backend.Vector // the device's right-hand side and solution (CUDA)
	// broken holds the error of a failed Update until one succeeds.
	broken error
}

// NewSolver sets up the hierarchy of the square-blocked SPD matrix A (b×b blocks) and
// near-null space ns (A.Rows()×k; nil means ConstantModes) on the backend opt names.
// The Solver keeps A (it is the finest operator, not copied): change its values only
// through Update.
func NewSolver(A *bsr.Matrix, ns *NullSpace, opt Options) (*Solver, error) {
	if A == nil {
		return nil, fmt.Errorf("blockamg: %w: no matrix", ErrInput)
	}
	if opt.Backend == "" {
		opt.Backend = CPU
	}
	if opt.Backend != CPU && opt.Backend != CUDA {
		return nil, fmt.Errorf("blockamg: %w: Backend %q, want %q or %q", ErrOptions, opt.Backend, CPU, CUDA)
	}
	if !cycle.KnownSmoother(opt.AMG.Smoother) {
		return nil, fmt.Errorf("blockamg: %w: smoother %q, want one of %s", ErrOptions, opt.AMG.Smoother, cycle.SmootherNames())
	}
	if err := opt.Solve.Validate(); err != nil {
		return nil, fmt.Errorf("blockamg: %w: %w", ErrOptions, err)
	}
	opt.AMG.Workers, opt.Solve.Workers = opt.Workers, opt.Workers
	opt.AMG.Symmetric = !opt.FullGalerkin && A.R == A.C && A.BlockRows == A.BlockCols && A.CheckSymmetric() == nil
	s := &Solver{opt: opt}
	var err error
	if opt.Backend == CUDA {
		// Open the device before the set-up, so that a missing GPU fails at once.
		if s.be, err = cuda.New(cuda.Options{Device: opt.Device, Symmetric: opt.AMG.Symmetric}); err != nil {
			return nil, fmt.Errorf("blockamg: %w", err)
		}
	} else {
		s.be = cpu.New(opt.Workers)
	}
	if err := s.setup(A, ns); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Solver) setup(A *bsr.Matrix, ns *NullSpace) error {
	var err error
	if s.h, err = amg.Setup(A, ns, s.opt.AMG); err != nil {
		return fmt.Errorf("blockamg: set-up: %w", err)
	}
	if s.opt.Backend == CPU {
		if s.cyc, err = cycle.Upload(s.be, s.h); err != nil {
			return fmt.Errorf("blockamg: %w", err)
		}
		return nil
	}
	rs := s.be.(backend.Resetter)
	if s.cyc, _, err = cycle.UploadResident(rs, s.h); err != nil {
		return fmt.Errorf("blockamg: device set-up: %w", err)
	}
	n := A.Rows()
	if s.b, err = s.be.NewVector(n); err != nil {
		return fmt.Errorf("blockamg: %w", err)
	}
	if s.x, err = s.be.NewVector(n); err != nil {
		return fmt.Errorf("blockamg: %w", err)
	}
	return nil
}

// Solve solves A·x = b by CG from x = 0 (x's contents are overwritten), preconditioned
// by one V-cycle per iteration, to Options.Solve's tolerances. On ErrNotConverged and
// ErrBreakdown x holds the last iterate and Result what was reached.
func (s *Solver) Solve(b, x []float64) (Result, error) {
	n := s.h.Levels[0].A.Rows()
	if len(b) != n || len(x) != n {
		panic(fmt.Sprintf("blockamg: Solve: len(b) = %d, len(x) = %d, want %d", len(b), len(x), n))
	}
	if s.broken != nil {
		return Result{}, fmt.Errorf("blockamg: %w (last update: %w)", ErrBroken, s.broken)
	}
	if s.opt.Backend == CPU {
		res, err := s.work.Solve(s.be, s.cyc.Operator(), s.cyc, cpu.WrapVector(b), cpu.WrapVector(x), s.opt.Solve)
		return res, wrapSolve(err)
	}
	s.be.Upload(s.b, b)
	res, err := s.work.Solve(s.be, s.cyc.Operator(), s.cyc, s.b, s.x, s.opt.Solve)
	s.be.Download(x, s.x)
	if err == nil {
		err = s.be.Err()
	}
	return res, wrapSolve(err)
}

func wrapSolve(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("blockamg: solve: %w", err)
}

// Update gives the solver new values of the fine matrix on the set-up pattern (A may
// be the matrix given to NewSolver, changed in place) and redoes the numeric set-up:
// block-diagonal inverses, spectrum estimates, prolongator smoothing, Galerkin
// products and the coarse factor, keeping every pattern and plan. A pattern error
// (ErrPattern) leaves the solver as it was; any other failure leaves it refusing to
// Solve (ErrBroken) until an Update succeeds, since its levels then mix two matrices'
// values — including values changed in place that failed validation, which the
// solver cannot restore.
func (s *Solver) Update(A *bsr.Matrix) error {
	L0 := s.h.Levels[0].A
	if A == nil || !A.SamePattern(L0) {
		return fmt.Errorf("blockamg: update: %w", ErrPattern)
	}
	err := s.update(A)
	if err != nil {
		if !errors.Is(err, ErrPattern) {
			s.broken = err
		}
		return fmt.Errorf("blockamg: update: %w", err)
	}
	s.broken = nil
	return nil
}

func (s *Solver) update(A *bsr.Matrix) error {
	if s.opt.Backend == CPU {
		if err := s.h.Update(A); err != nil {
			return err
		}
		return s.cyc.Refresh(s.h)
	}
	if err := A.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	rs := s.be.(backend.Resetter)
	if err := rs.UploadValues(s.cyc.FineOperator(), A.Val); err != nil {
		return err
	}
	_, err := s.cyc.Update()
	return err
}

// Hierarchy returns the set-up hierarchy, for inspection (levels, sizes, complexity,
// timings). With Backend CUDA its values are those of the first set-up on the host:
// the device's are recomputed there.
func (s *Solver) Hierarchy() *amg.Hierarchy { return s.h }

// Close releases the backend's storage. The solver must not be used afterwards.
func (s *Solver) Close() error {
	s.work.Free()
	for _, v := range []backend.Vector{s.b, s.x} {
		if v != nil {
			v.Free()
		}
	}
	if s.cyc != nil {
		s.cyc.Free()
	}
	var err error
	if s.be != nil {
		err = s.be.Close()
	}
	*s = Solver{}
	return err
}
