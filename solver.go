package blockamg

import (
	"errors"
	"fmt"
	"time"

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
	// the hierarchy is set up on the device, patterns and values (a device set-up,
	// amg/cycle's SetupResident), unless HostSetup is set or the set-up needs what
	// the device's does not cover (AggNSmooths above 1, FilterTheta, or a level whose
	// aggregates fall under ⌈k/b⌉ nodes, which the host merges): then the patterns
	// are computed on the host (amg.Setup) and uploaded (SetupFallback says why).
	// Either way every value of each Update is computed on the device.
	// SmootherFloat32 is refused on a device (ErrUnsupported).
	Backend string
	// CUDA configures the GPU NewSolver opens for Backend CUDA: device ordinal
	// (default 0), kernel cache folder, and the device Galerkin product's variant
	// (default: the GPU traffic model's pick per level). Its Symmetric field is set by
	// NewSolver. It is not used with Device.
	CUDA cuda.Options
	// Device, when not nil, is an opened backend to run on instead of one NewSolver
	// opens, for a caller that needs it before the set-up (to check its memory, to
	// fail at once without a GPU) or beside the solver (page-locked host memory, a
	// device assembly into FineOperator, its transfer counters). Every value of the
	// set-up and of each Update is computed on it, whatever the backend; the
	// patterns too where it is a backend.Coarsener (as cuda.Backend is), under
	// Backend CUDA's conditions. On the CPU backend, which is not a Coarsener, that
	// runs the GPU's numeric code path on the host, which is how that path is tested
	// without a GPU. Backend must be "" or CUDA with it. NewSolver declares A's
	// symmetry to it where it has a SetSymmetric method (as cuda.Backend does;
	// Options.CUDA.Symmetric otherwise). The caller keeps Device: Close frees the
	// solver's storage on it but does not close it.
	Device backend.Resetter
	// HostSetup sets the hierarchy up on the host (amg.Setup) and uploads its patterns
	// and plans, as before the device set-up existed, where the device could set it up
	// itself: for comparisons of the two, and as a way around a problem of the device
	// set-up. Only Backend CUDA and Device read it.
	HostSetup bool
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
	opt Options
	h   *amg.Hierarchy // nil after a device set-up, which builds none on the host
	// pattern is A's pattern (Val nil), for Update's check and the vectors' size: a
	// device set-up keeps no host values.
	pattern *bsr.Matrix
	dev     *cycle.DeviceSetup // the device set-up's report, nil after a host set-up
	// fallback is why a device set-up was refused for the host's (nil when none was).
	fallback error
	be       backend.Backend
	// resident: Backend CUDA or Device, whose values are computed on the backend
	// (amg/cycle's SetupResident or UploadResident); rs is be as a Resetter then.
	resident bool
	rs       backend.Resetter
	own      bool // NewSolver opened be, and Close closes it
	cyc      *cycle.Cycle
	work     backend.PCGWork
	// b and x are Solve's copies of its vectors on a device set-up, allocated by its
	// first call (a caller of SolveVectors has its own).
	b, x backend.Vector
	// broken holds the error of a failed Update or Refresh until one succeeds.
	broken error
	upload time.Duration     // NewSolver's uploads to the backend (UploadTime)
	first  cycle.UpdateTimes // the first numeric set-up on the device
	last   cycle.UpdateTimes // the last device re-setup
}

// NewSolver sets up the hierarchy of the square-blocked SPD matrix A (b×b blocks) and
// near-null space ns (A.Rows()×k; nil means ConstantModes) on the backend opt names
// (Backend, or Device). The Solver keeps A (it is the finest operator, not copied):
// change its values only through Update, or on the backend and then Refresh. After a
// device set-up on a GPU (DeviceSetup not nil) the solver holds A's pattern but not
// its values — its fine operator is the device's copy — so the caller may drop them.
func NewSolver(A *bsr.Matrix, ns *NullSpace, opt Options) (*Solver, error) {
	if A == nil {
		return nil, fmt.Errorf("blockamg: %w: no matrix", ErrInput)
	}
	switch {
	case opt.Device != nil && opt.Backend != "" && opt.Backend != CUDA:
		return nil, fmt.Errorf("blockamg: %w: Backend %q with a Device, want \"\" or %q (a Device runs the device set-up)", ErrOptions, opt.Backend, CUDA)
	case opt.Device == nil && opt.Backend == "":
		opt.Backend = CPU
	case opt.Device == nil && opt.Backend != CPU && opt.Backend != CUDA:
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
	s := &Solver{opt: opt, resident: opt.Device != nil || opt.Backend == CUDA}
	switch {
	case opt.Device != nil:
		if d, ok := opt.Device.(interface{ SetSymmetric(bool) }); ok {
			d.SetSymmetric(opt.AMG.Symmetric)
		}
		s.be, s.rs = opt.Device, opt.Device
	case opt.Backend == CUDA:
		// Open the device before the set-up, so that a missing GPU fails at once.
		co := opt.CUDA
		co.Symmetric = opt.AMG.Symmetric
		be, err := cuda.New(co)
		if err != nil {
			return nil, fmt.Errorf("blockamg: %w", err)
		}
		s.be, s.rs, s.own = be, be, true
	default:
		s.be, s.own = cpu.New(opt.Workers), true
	}
	if err := s.setup(A, ns); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// NewSolverOn is NewSolver for a fine matrix that is on the device already — made
// there by a device assembly (fem/cudafem's Symbolic and Numeric), so that no
// matrix-sized array is ever on the host: the whole set-up runs on opt.Device, which
// must be a backend.Coarsener (cuda.Backend is), from A and ns (ns uploaded; nil
// means ConstantModes). A's values are not checked on the host (there are none):
// the set-up's own checks (a missing or zero diagonal block, a non-positive
// spectrum) apply. Its symmetry cannot be checked either, so opt.AssumeSymmetric or
// opt.FullGalerkin must say which Galerkin product to use. Options the device set-up
// does not cover (ErrUnsupported: see Backend) are refused, since no host set-up can
// stand in for it; so is HostSetup. The solver takes A over: Close frees it, and
// a failed NewSolverOn does too. New values come as for any device set-up: written
// into FineOperator (A itself) on the device, then Refresh; Update, which takes a
// host matrix, refuses (ErrUnsupported). Backend and CUDA are not read: the device
// is Device, the one A is on.
func NewSolverOn(A backend.Matrix, ns *NullSpace, opt Options) (*Solver, error) {
	if A == nil {
		return nil, fmt.Errorf("blockamg: %w: no matrix", ErrInput)
	}
	fail := func(err error) (*Solver, error) {
		A.Free()
		return nil, err
	}
	co, ok := opt.Device.(backend.Coarsener)
	switch {
	case !ok:
		return fail(fmt.Errorf("blockamg: %w: NewSolverOn needs an Options.Device that sets up on the device (a backend.Coarsener, such as cuda.Backend)", ErrOptions))
	case opt.HostSetup:
		return fail(fmt.Errorf("blockamg: %w: HostSetup with a matrix on the device: a host set-up needs the host matrix (NewSolver)", ErrOptions))
	case !opt.AssumeSymmetric && !opt.FullGalerkin:
		return fail(fmt.Errorf("blockamg: %w: a matrix on the device is not checked for symmetry: set AssumeSymmetric (it is symmetric) or FullGalerkin", ErrOptions))
	}
	if !cycle.KnownSmoother(opt.AMG.Smoother) {
		return fail(fmt.Errorf("blockamg: %w: smoother %q, want one of %s", ErrOptions, opt.AMG.Smoother, cycle.SmootherNames()))
	}
	if err := opt.Solve.Validate(); err != nil {
		return fail(fmt.Errorf("blockamg: %w: %w", ErrOptions, err))
	}
	br, bc, r, c := A.Dims()
	if br != bc || r != c {
		return fail(fmt.Errorf("blockamg: %w: matrix of %d×%d blocks of %d×%d, want square blocks and as many block rows as columns", ErrInput, br, bc, r, c))
	}
	opt.AMG.Workers, opt.Solve.Workers = opt.Workers, opt.Workers
	opt.AMG.Symmetric = !opt.FullGalerkin
	if d, ok := opt.Device.(interface{ SetSymmetric(bool) }); ok {
		d.SetSymmetric(opt.AMG.Symmetric)
	}
	s := &Solver{opt: opt, resident: true, be: opt.Device, rs: opt.Device,
		pattern: &bsr.Matrix{BlockRows: br, BlockCols: bc, R: r, C: c}}
	if err := cycle.CheckSetupResident(co, opt.AMG); err != nil {
		return fail(fmt.Errorf("blockamg: device set-up: %w", err))
	}
	start := time.Now()
	ns, err := amg.CheckNullSpace(br, r, ns)
	if err != nil {
		return fail(fmt.Errorf("blockamg: set-up: %w", err))
	}
	if err := s.setupOn(co, A, ns, start); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Solver) setup(A *bsr.Matrix, ns *NullSpace) error {
	pat := *A
	pat.Val = nil
	s.pattern = &pat
	if co, ok := s.rs.(backend.Coarsener); ok && !s.opt.HostSetup {
		err := s.setupDevice(co, A, ns)
		if !errors.Is(err, backend.ErrUnsupported) {
			return err
		}
		// What the device set-up does not cover, the host's does.
		s.fallback = err
	}
	var err error
	if s.h, err = amg.Setup(A, ns, s.opt.AMG); err != nil {
		return fmt.Errorf("blockamg: set-up: %w", err)
	}
	start := time.Now()
	if !s.resident {
		if s.cyc, err = cycle.Upload(s.be, s.h); err != nil {
			return fmt.Errorf("blockamg: %w", err)
		}
		s.upload = time.Since(start)
		return nil
	}
	if s.cyc, s.first, err = cycle.UploadResident(s.rs, s.h); err != nil {
		return fmt.Errorf("blockamg: device set-up: %w", err)
	}
	// The upload's time ends with the device's work.
	if err := s.be.Err(); err != nil {
		return fmt.Errorf("blockamg: device set-up: %w", err)
	}
	s.upload = time.Since(start)
	return nil
}

// setupDevice builds the hierarchy on co (cycle.SetupResident) from A and ns: ns
// checked on the host, A by its upload. An error wrapping backend.ErrUnsupported means
// that the host set-up can do what the device set-up cannot; the options alone are
// checked before anything is uploaded.
func (s *Solver) setupDevice(co backend.Coarsener, A *bsr.Matrix, ns *NullSpace) error {
	if err := cycle.CheckSetupResident(co, s.opt.AMG); err != nil {
		return fmt.Errorf("blockamg: device set-up: %w", err)
	}
	start := time.Now()
	if A.BlockRows != A.BlockCols || A.R != A.C {
		return fmt.Errorf("blockamg: set-up: %w: matrix must have square blocks and as many block rows as block columns", ErrInput)
	}
	ns, err := amg.CheckNullSpace(A.BlockRows, A.R, ns)
	if err != nil {
		return fmt.Errorf("blockamg: set-up: %w", err)
	}
	// The upload checks A (bsr.Matrix.Validate, backend.Backend's contract): one
	// pass over the values, not a second one before it.
	dA, err := co.UploadMatrix(A, false)
	if errors.Is(err, bsr.ErrInvalid) {
		return fmt.Errorf("blockamg: set-up: %w: %w", ErrInput, err)
	}
	if err != nil {
		return fmt.Errorf("blockamg: device set-up: fine operator: %w", err)
	}
	return s.setupOn(co, dA, ns, start)
}

// setupOn uploads ns and builds the hierarchy of dA on co (cycle.SetupResident),
// which takes dA over (freed on a failure too); start is when the upload began.
func (s *Solver) setupOn(co backend.Coarsener, dA backend.Matrix, ns *NullSpace, start time.Time) error {
	dB, err := co.NewVector(len(ns.Data))
	if err != nil {
		dA.Free()
		return fmt.Errorf("blockamg: device set-up: near-null space: %w", err)
	}
	co.Upload(dB, ns.Data)
	if err := co.Err(); err != nil {
		dA.Free()
		dB.Free()
		return fmt.Errorf("blockamg: device set-up: %w", err)
	}
	s.upload = time.Since(start)
	cyc, info, err := cycle.SetupResident(co, dA, dB, ns.Cols, s.opt.AMG)
	dB.Free()
	if err != nil {
		dA.Free() // the cycle's when the set-up had begun: freed with it, and freeing twice is a no-op
		if errors.Is(err, bsr.ErrInvalid) && !errors.Is(err, ErrInput) {
			// A device names a missing or zero diagonal block (its strength graph's
			// complaint) an invalid matrix; the host's set-up calls it bad input.
			err = fmt.Errorf("%w: %w", ErrInput, err)
		}
		return fmt.Errorf("blockamg: device set-up: %w", err)
	}
	s.cyc, s.dev = cyc, info
	// The first numeric set-up, as DeviceSetupTimes reports it after UploadResident.
	s.first = cycle.UpdateTimes{Coarse: info.Coarse, Total: info.Coarse}
	for _, l := range info.Levels[:len(info.Levels)-1] {
		s.first.Levels = append(s.first.Levels, l.Numeric)
		n := l.Numeric
		s.first.Total += n.Diag + n.Eig + n.Smooth + n.Filter + n.Transpose + n.Galerkin
	}
	return nil
}

// Solve solves A·x = b by CG from x = 0 (x's contents are overwritten), preconditioned
// by one V-cycle per iteration, to Options.Solve's tolerances. On ErrNotConverged and
// ErrBreakdown x holds the last iterate and Result what was reached. On a device
// set-up b goes up and x comes back through device vectors of the solver's,
// allocated by the first call.
func (s *Solver) Solve(b, x []float64) (Result, error) {
	n := s.pattern.Rows()
	if len(b) != n || len(x) != n {
		panic(fmt.Sprintf("blockamg: Solve: len(b) = %d, len(x) = %d, want %d", len(b), len(x), n))
	}
	if err := s.ready(); err != nil {
		return Result{}, err
	}
	if !s.resident {
		return s.solve(cpu.WrapVector(b), cpu.WrapVector(x))
	}
	if s.b == nil {
		if err := s.vectors(n); err != nil {
			return Result{}, fmt.Errorf("blockamg: solve: %w", err)
		}
	}
	s.be.Upload(s.b, b)
	res, err := s.solve(s.b, s.x)
	s.be.Download(x, s.x)
	if err == nil {
		err = wrapSolve(s.be.Err())
	}
	return res, err
}

// SolveVectors is Solve on vectors of the solver's backend (Backend().NewVector, of
// A.Rows() entries each), for a caller that moves b and x itself: one that keeps
// them on a device between solves, or overlaps b's upload with a Refresh
// (cuda.Backend's StartUpload, whose wait it calls before SolveVectors). Neither
// vector is copied; PCG's work vectors are kept between solves, as Solve's are. On
// ErrNotConverged and ErrBreakdown x holds the last iterate.
func (s *Solver) SolveVectors(b, x backend.Vector) (Result, error) {
	n := s.pattern.Rows()
	if b.Len() != n || x.Len() != n {
		panic(fmt.Sprintf("blockamg: SolveVectors: b.Len() = %d, x.Len() = %d, want %d", b.Len(), x.Len(), n))
	}
	if err := s.ready(); err != nil {
		return Result{}, err
	}
	return s.solve(b, x)
}

// ready refuses a solve after a failed Update or Refresh.
func (s *Solver) ready() error {
	if s.broken != nil {
		return fmt.Errorf("blockamg: %w (last update: %w)", ErrBroken, s.broken)
	}
	return nil
}

func (s *Solver) solve(b, x backend.Vector) (Result, error) {
	res, err := s.work.Solve(s.be, s.cyc.Operator(), s.cyc, b, x, s.opt.Solve)
	return res, wrapSolve(err)
}

// vectors allocates Solve's device copies of b and x.
func (s *Solver) vectors(n int) error {
	b, err := s.be.NewVector(n)
	if err != nil {
		return err
	}
	x, err := s.be.NewVector(n)
	if err != nil {
		b.Free()
		return err
	}
	s.b, s.x = b, x
	return nil
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
// Solve (ErrBroken) until an Update or a Refresh succeeds, since its levels then mix
// two matrices' values — including values changed in place that failed validation,
// which the solver cannot restore.
func (s *Solver) Update(A *bsr.Matrix) error {
	if A == nil {
		return fmt.Errorf("blockamg: update: %w", ErrPattern)
	}
	if s.pattern.RowPtr == nil {
		return fmt.Errorf("blockamg: update: %w: the solver's matrix was given on the device (NewSolverOn): write new values into FineOperator there, then Refresh", ErrUnsupported)
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
	if !s.resident {
		if err := s.h.Update(A); err != nil {
			return err
		}
		return s.cyc.Refresh(s.h)
	}
	// amg.Hierarchy.Update checks the CPU's pattern; the device's is checked here.
	if !A.SamePattern(s.pattern) {
		return fmt.Errorf("new matrix does not have the set-up pattern: %w", ErrPattern)
	}
	if err := A.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	if err := s.rs.UploadValues(s.cyc.FineOperator(), A.Val); err != nil {
		return err
	}
	return s.refresh()
}

// Refresh redoes the numeric set-up, as Update does, from the values the fine
// operator holds now (FineOperator), for a caller that wrote them on the backend
// itself — a device assembly (fem/cudafem), or the Resetter's ScaleValues or
// UploadValues on Backend() — and has no host matrix to give Update. Refresh does
// not validate those values (Update validates a host matrix before it uploads it).
// With Backend CPU the fine operator is the host matrix last given to NewSolver or
// Update, so Refresh is Update of that matrix after its values changed in place. A
// failure leaves the solver refusing to Solve (ErrBroken) until a Refresh or an
// Update succeeds.
func (s *Solver) Refresh() error {
	if err := s.refresh(); err != nil {
		s.broken = err
		return fmt.Errorf("blockamg: refresh: %w", err)
	}
	s.broken = nil
	return nil
}

func (s *Solver) refresh() error {
	if !s.resident {
		if err := s.h.Update(s.h.Levels[0].A); err != nil {
			return err
		}
		return s.cyc.Refresh(s.h)
	}
	var err error
	s.last, err = s.cyc.Update()
	return err
}

// SolveOptions returns the options of the solver's CG (Options.Solve, with Workers
// set).
func (s *Solver) SolveOptions() krylov.Options { return s.opt.Solve }

// Hierarchy returns the hierarchy set up on the host, for inspection (levels, sizes,
// complexity, timings): with Backend CPU, or on a device after a host set-up
// (HostSetup, or the options' fallback), when its values are those of the first
// set-up on the host and stay so, the device's being recomputed there. It is nil
// after a device set-up, which builds no hierarchy on the host: DeviceSetup describes
// that one.
func (s *Solver) Hierarchy() *amg.Hierarchy { return s.h }

// DeviceSetup returns the report of a set-up made on the device (levels, sizes,
// aggregates, each phase's time; cycle.SetupResident's), or nil after a host set-up.
func (s *Solver) DeviceSetup() *cycle.DeviceSetup { return s.dev }

// SetupFallback returns why the device could not set the hierarchy up and the host
// did instead (an error wrapping ErrUnsupported), or nil: when the set-up was made
// where it was asked for (on the device, or on the host with Backend CPU or
// HostSetup).
func (s *Solver) SetupFallback() error { return s.fallback }

// Backend returns the backend the solver runs on, for callers that move their own
// data there (a device assembly writing into the fine operator, the vectors of
// SolveVectors) or read its transfer counters.
func (s *Solver) Backend() backend.Backend { return s.be }

// FineOperator returns the fine matrix on the backend, the one CG multiplies by and
// a set-up starts from: on a device set-up the device's copy, whose values a device
// assembly or the Resetter's ScaleValues and UploadValues may change before a
// Refresh; with Backend CPU the host matrix itself.
func (s *Solver) FineOperator() backend.Matrix { return s.cyc.FineOperator() }

// Cycle returns the V-cycle on the backend.
func (s *Solver) Cycle() *cycle.Cycle { return s.cyc }

// DeviceSetupTimes returns the phases of the first numeric set-up and of the last
// re-setup (Update, Refresh) on the device (zero with Backend CPU, whose set-up
// times are the hierarchy's: Hierarchy().Times()). After a device set-up, first is
// the numeric part of it (DeviceSetup's Numeric per level and Coarse, Total their
// sum).
func (s *Solver) DeviceSetupTimes() (first, last cycle.UpdateTimes) { return s.first, s.last }

// UploadTime returns the wall time of NewSolver's uploads: after a device set-up,
// the host's checks of A and the near-null space and their upload, up to the
// device's completion (the set-up itself is DeviceSetup().Total); after a host
// set-up on a device, the part after the hierarchy's set-up: the upload of the fine
// operator, the tentative prolongators, every pattern and plan, and the first
// numeric set-up there (DeviceSetupTimes' first), up to the device's completion;
// with Backend CPU the cycle's set-up over the host matrices.
func (s *Solver) UploadTime() time.Duration { return s.upload }

// Close releases the solver's storage on the backend and closes a backend NewSolver
// opened (not Options.Device). The solver must not be used afterwards.
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
	if s.be != nil && s.own {
		err = s.be.Close()
	}
	*s = Solver{}
	return err
}
