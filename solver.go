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
	// CUDA configures the GPU for Backend CUDA: device ordinal (default 0), kernel
	// cache folder, and the device Galerkin product's variant (default: the GPU
	// traffic model's pick per level). Its Symmetric field is set by NewSolver.
	CUDA cuda.Options
	// Workers bounds the goroutines of the CPU set-up and solve (0: GOMAXPROCS).
	// Results are bitwise the same for any count.
	Workers int
	// FullGalerkin computes every block of each coarse operator. By default, when A
	// is symmetric (checked by NewSolver), the Galerkin products compute the blocks on
	// and above the diagonal and mirror them, about half the work.
	FullGalerkin bool
	// AssumeSymmetric declares A symmetric without NewSolver checking it (PETSc's
	// MAT_SYMMETRIC), for a caller that checked already: the check reads every block
	// once. A wrong declaration gives a wrong coarse operator.
	AssumeSymmetric bool
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
	first  cycle.UpdateTimes // the first numeric set-up on the device (CUDA)
	last   cycle.UpdateTimes // the last device re-setup (CUDA)
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
	opt.AMG.Symmetric = !opt.FullGalerkin && (opt.AssumeSymmetric ||
		A.R == A.C && A.BlockRows == A.BlockCols && A.CheckSymmetric() == nil)
	s := &Solver{opt: opt}
	var err error
	if opt.Backend == CUDA {
		// Open the device before the set-up, so that a missing GPU fails at once.
		co := opt.CUDA
		co.Symmetric = opt.AMG.Symmetric
		if s.be, err = cuda.New(co); err != nil {
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
	if s.cyc, s.first, err = cycle.UploadResident(rs, s.h); err != nil {
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
	if A == nil {
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
	// amg.Hierarchy.Update checks the CPU's pattern; the device's is checked here.
	if !A.SamePattern(s.h.Levels[0].A) {
		return fmt.Errorf("new matrix does not have the set-up pattern: %w", ErrPattern)
	}
	if err := A.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	rs := s.be.(backend.Resetter)
	if err := rs.UploadValues(s.cyc.FineOperator(), A.Val); err != nil {
		return err
	}
	var err error
	s.last, err = s.cyc.Update()
	return err
}

// SolveOptions returns the options of the solver's CG (Options.Solve, with Workers
// set).
func (s *Solver) SolveOptions() krylov.Options { return s.opt.Solve }

// Hierarchy returns the set-up hierarchy, for inspection (levels, sizes, complexity,
// timings). With Backend CUDA its values are those of the first set-up on the host:
// the device's are recomputed there.
func (s *Solver) Hierarchy() *amg.Hierarchy { return s.h }

// Backend returns the backend the solver runs on, for callers that move their own
// data there (a device assembly writing into the fine operator) or read its transfer
// counters.
func (s *Solver) Backend() backend.Backend { return s.be }

// Cycle returns the V-cycle on the backend (its FineOperator is the device's fine
// matrix with Backend CUDA).
func (s *Solver) Cycle() *cycle.Cycle { return s.cyc }

// DeviceSetupTimes returns the phases of the first numeric set-up and of the last
// re-setup on the device (zero with Backend CPU, whose set-up times are the
// hierarchy's: Hierarchy().Times()).
func (s *Solver) DeviceSetupTimes() (first, last cycle.UpdateTimes) { return s.first, s.last }

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
