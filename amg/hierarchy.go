package amg

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/filter"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/krylov"
)

// Hierarchy is a smoothed-aggregation multigrid hierarchy. Apply runs one V-cycle, so a
// *Hierarchy is a krylov.Preconditioner. It is not safe for concurrent use: the cycle
// works in vectors the hierarchy owns.
type Hierarchy struct {
	Levels []*Level // finest first
	Opt    Options  // the options it was set up with (Workers may be changed between calls)

	// Wall time of the last Setup or Update, all levels together.
	Wall time.Duration

	coarse *cholesky
	// stall says why aggregation stopped before the size and level limits ("" when it
	// did not), for the error when the last level is too large to factor.
	stall string
	// broken is set while an Update is under way and stays set when it fails: the
	// levels then mix old and new values, and Apply refuses to run on them.
	broken bool
}

var _ krylov.Preconditioner = (*Hierarchy)(nil)

// Setup builds the hierarchy for the square-blocked SPD matrix A (b×b blocks) and
// near-null space ns (A.Rows()×k; nil means ConstantModes, k = b).
//
// Each level: strength graph → aggregates → tentative prolongator by per-aggregate QR
// of the near-null space (giving the coarse near-null space) → block-Jacobi inverse
// and CG–Lanczos estimate of λ(D⁻¹A) → AggNSmooths Jacobi steps on P → Galerkin
// Ac = PᵀAP. Coarsening stops at MaxLevels levels, once a level has at most
// CoarseEqLimit unknowns, or when aggregation no longer reduces the grid; the last
// level is factored by dense Cholesky.
//
// The hierarchy keeps A (it is level 0's operator, not copied); change its values only
// through Update. Errors wrap ErrOptions, ErrInput, ErrNotSPD or ErrStalled and name
// the level; a singular diagonal block wraps bsr.ErrSingular.
func Setup(A *bsr.Matrix, ns *NullSpace, opt Options) (*Hierarchy, error) {
	start := time.Now()
	if opt.GalerkinVariant == "" {
		opt.GalerkinVariant = galerkin.Auto
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if A == nil || A.BlockRows != A.BlockCols || A.R != A.C {
		return nil, fmt.Errorf("%w: matrix must have square blocks and as many block rows as block columns", ErrInput)
	}
	if err := A.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if ns == nil {
		ns = ConstantModes(A.BlockRows, A.R)
	}
	if err := ns.check(); err != nil {
		return nil, err
	}
	if ns.Rows != A.Rows() {
		return nil, fmt.Errorf("%w: near-null space has %d rows, matrix %d", ErrInput, ns.Rows, A.Rows())
	}
	h := &Hierarchy{Opt: opt}
	cur := &Level{A: A, B: ns.Data, K: ns.Cols}
	for {
		h.Levels = append(h.Levels, cur)
		l := len(h.Levels) - 1
		if len(h.Levels) == opt.MaxLevels || (l > 0 && cur.A.Rows() <= opt.CoarseEqLimit) {
			break
		}
		next, err := h.coarsen(l)
		if err != nil {
			return nil, err
		}
		if next == nil {
			break
		}
		cur = next
	}
	if err := h.factorCoarsest(); err != nil {
		return nil, err
	}
	h.allocate()
	h.Wall = time.Since(start)
	return h, nil
}

// coarsen builds level l's transfer operators and returns level l+1, or nil when
// aggregation leaves nothing to coarsen (no aggregate, or no reduction).
func (h *Hierarchy) coarsen(l int) (*Level, error) {
	L := h.Levels[l]
	A, opt, w := L.A, &h.Opt, h.Opt.Workers
	b, k := A.R, L.K
	sw := newStopwatch()
	g, err := Strength(A, opt.Threshold, w)
	if err != nil {
		return nil, fmt.Errorf("level %d: %w", l, err)
	}
	sw.lap(&L.Times.Strength)
	agg := Aggregate(g, l < opt.AggressiveLevels, (k+b-1)/b)
	sw.lap(&L.Times.Aggregation)
	switch {
	case agg.Count == 0:
		h.stall = fmt.Sprintf("no node of level %d has a strong neighbour (%d strength-graph edges at Threshold %g): its operator is block diagonal or its couplings are all weak",
			l, len(g.Adj), opt.Threshold)
		return nil, nil
	case agg.Count*k >= A.Rows():
		h.stall = fmt.Sprintf("level %d's %d aggregates times %d near-null vectors give no fewer than its %d unknowns",
			l, agg.Count, k, A.Rows())
		return nil, nil
	}
	L.Agg, L.Edges = agg, int64(len(g.Adj))
	var Bc []float64
	L.Ptent, Bc = Tentative(agg, L.B, b, k, w)
	sw.lap(&L.Times.Tentative)
	if err := h.setupSmoother(l); err != nil {
		return nil, err
	}
	sw = newStopwatch()
	var X *bsr.Matrix
	L.smooth, X = newSmoothChain(A, L.Ptent, L.Dinv, L.Omega, opt.AggNSmooths, w)
	L.P, L.Psmooth = X, X
	sw.lap(&L.Times.Smoothing)
	if th := filter.LevelTheta(opt.FilterTheta, opt.FilterScale, l); th > 0 {
		// The drop decision is made once, here, from the first values; Update only
		// re-projects (see package filter).
		L.Filter, err = filter.Symbolic(X, Bc, th, filter.Options{Workers: w})
		if err != nil {
			return nil, fmt.Errorf("level %d: %w", l, err)
		}
		if !L.Filter.Identity() {
			L.P = L.Filter.NewPf()
			if err := L.Filter.Numeric(X, Bc, L.P, w); err != nil {
				return nil, fmt.Errorf("level %d: %w", l, err)
			}
		}
		sw.lap(&L.Times.Filter)
	}
	L.rap, err = galerkin.Symbolic(A, L.P, opt.GalerkinVariant)
	if err == nil && opt.Symmetric {
		err = L.rap.SetSymmetric(A, true)
	}
	if err == nil {
		err = L.rap.Numeric(A, L.P, w)
	}
	if err != nil {
		return nil, fmt.Errorf("level %d: %w", l, err)
	}
	sw.lap(&L.Times.Galerkin)
	return &Level{A: L.rap.Ac, B: Bc, K: k}, nil
}

// setupSmoother computes level l's block-diagonal inverse, the spectrum estimate of
// D⁻¹A, the prolongator weight and the Chebyshev interval.
func (h *Hierarchy) setupSmoother(l int) error {
	L := h.Levels[l]
	opt := &h.Opt
	sw := newStopwatch()
	if L.Dinv == nil {
		L.Dinv = make([]float64, L.A.BlockRows*L.A.R*L.A.R)
		L.eig = krylov.NewEigenEstimator(L.A.Rows())
	}
	if err := invertDiag(L.A, L.Dinv, opt.Workers); err != nil {
		return fmt.Errorf("level %d: %w", l, err)
	}
	L.op = cycleOp{A: L.A}
	if opt.SmootherFloat32 {
		if len(L.v32) != len(L.A.Val) {
			L.v32 = make([]float32, len(L.A.Val))
		}
		if !toFloat32(L.A.Val, L.v32, opt.Workers) {
			return fmt.Errorf("level %d: %w: an operator entry exceeds the float32 range (SmootherFloat32 needs |a| ≤ %g)",
				l, ErrInput, math.MaxFloat32)
		}
		L.op.v32 = L.v32
	}
	sw.lap(&L.Times.SmootherSetup)
	eig, err := L.eig.Estimate(matOp{L.A, opt.Workers}, jacobiOp{L.A.R, L.Dinv, opt.Workers},
		opt.EstEigKSPMaxIt, opt.Workers)
	var be *krylov.BreakdownError
	if errors.As(err, &be) {
		return fmt.Errorf("level %d: %w: eigenvalue estimate: %w", l, ErrNotSPD, err)
	}
	if err != nil {
		return fmt.Errorf("level %d: %w", l, err)
	}
	L.Eig = eig
	L.Omega = opt.ProlongDamping / eig.Max
	c := opt.ChebyshevEstEig
	L.ChebMin = c[0]*eig.Min + c[1]*eig.Max
	L.ChebMax = c[2]*eig.Min + c[3]*eig.Max
	if !(L.ChebMax > L.ChebMin && L.ChebMin > 0) {
		return fmt.Errorf("level %d: %w: Chebyshev interval [%g, %g] from λ ∈ [%g, %g] and ChebyshevEstEig %v is not a positive interval",
			l, ErrOptions, L.ChebMin, L.ChebMax, eig.Min, eig.Max, c)
	}
	L.cheb = chebyshev{emin: L.ChebMin, emax: L.ChebMax, degree: opt.SmootherIts}
	sw.lap(&L.Times.EigEstimate)
	return nil
}

// MaxCoarseUnknowns bounds the coarsest level, which is factored as a dense matrix
// (8 bytes × n², n³/3 flops): 8000 unknowns take 512 MB.
const MaxCoarseUnknowns = 8000

// factorCoarsest factors the last level.
func (h *Hierarchy) factorCoarsest() error {
	l := len(h.Levels) - 1
	L := h.Levels[l]
	if n := L.A.Rows(); n > MaxCoarseUnknowns {
		if h.stall != "" {
			return fmt.Errorf("%w: %s; the %d unknowns left are more than the %d a dense coarse Cholesky factor is allowed",
				ErrStalled, h.stall, n, MaxCoarseUnknowns)
		}
		return fmt.Errorf("%w: coarsest level %d has %d unknowns, more than the %d a dense Cholesky factor is allowed (raise MaxLevels or lower CoarseEqLimit)",
			ErrOptions, l, n, MaxCoarseUnknowns)
	}
	sw := newStopwatch()
	if h.coarse == nil {
		h.coarse = &cholesky{}
	}
	if err := h.coarse.factor(L.A); err != nil {
		return fmt.Errorf("level %d (coarsest, %d unknowns): %w", l, L.A.Rows(), err)
	}
	sw.lap(&L.Times.CoarseFactor)
	return nil
}

// allocate creates the cycle's work vectors.
func (h *Hierarchy) allocate() {
	for l, L := range h.Levels {
		n := L.A.Rows()
		if l > 0 {
			L.x, L.b = make([]float64, n), make([]float64, n)
		}
		if l < len(h.Levels)-1 {
			L.r, L.d = make([]float64, n), make([]float64, n)
		}
	}
}

// Update recomputes every value of the hierarchy for new values of the fine matrix A,
// whose pattern must be the one given to Setup (else an error wrapping ErrPattern),
// keeping every pattern and plan: the strength graph, aggregates, tentative
// prolongator and coarse near-null spaces, the patterns of the smoothed prolongators
// and of the coarse operators. Redone: block-diagonal inverses, eigenvalue estimates,
// ω and Chebyshev intervals, the smoothed P's values, the Galerkin products and the
// coarse factorisation. This is PETSc's -pc_gamg_reuse_interpolation
// with the prolongator re-smoothed for the new operator. The result is bitwise
// identical to what Setup would build with the same aggregates.
//
// A may be the very matrix given to Setup, modified in place. A pattern or validation
// error leaves the hierarchy as it was; any later error leaves it unusable (Apply
// panics) until a successful Update.
func (h *Hierarchy) Update(A *bsr.Matrix) error {
	start := time.Now()
	L0 := h.Levels[0]
	if A == nil || !A.SamePattern(L0.A) {
		return fmt.Errorf("%w: new matrix does not have the set-up pattern", ErrPattern)
	}
	if err := A.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	L0.A = A
	h.broken = true
	w := h.Opt.Workers
	for l := 0; l < len(h.Levels)-1; l++ {
		L := h.Levels[l]
		L.Times = PhaseTimes{}
		if err := h.setupSmoother(l); err != nil {
			return err
		}
		sw := newStopwatch()
		runSmoothChain(L.smooth, L.A, L.Ptent, L.Dinv, L.Omega, w)
		sw.lap(&L.Times.Smoothing)
		if L.Filter != nil && !L.Filter.Identity() {
			if err := L.Filter.Numeric(L.Psmooth, h.Levels[l+1].B, L.P, w); err != nil {
				return fmt.Errorf("level %d: %w", l, err)
			}
			sw.lap(&L.Times.Filter)
		}
		if err := L.rap.Numeric(L.A, L.P, w); err != nil {
			return fmt.Errorf("level %d: %w", l, err)
		}
		sw.lap(&L.Times.Galerkin)
	}
	h.Levels[len(h.Levels)-1].Times = PhaseTimes{}
	if err := h.factorCoarsest(); err != nil {
		return err
	}
	h.broken = false
	h.Wall = time.Since(start)
	return nil
}

// Apply runs one V-cycle from a zero initial guess: z ≈ A⁻¹·r. It does not modify r.
// It panics after a failed Update (until a successful one): the levels would then mix
// the values of two matrices and the cycle would quietly be a different operator.
func (h *Hierarchy) Apply(r, z []float64) {
	if len(r) != h.Levels[0].A.Rows() || len(z) != len(r) {
		panic("amg: Apply: vector length mismatch")
	}
	if h.broken {
		panic("amg: Apply: the last Update failed; the hierarchy is unusable until an Update succeeds")
	}
	h.cycle(0, r, z)
}

// cycle solves approximately A_l·x = b from x = 0.
func (h *Hierarchy) cycle(l int, b, x []float64) {
	L := h.Levels[l]
	w := h.Opt.Workers
	if l == len(h.Levels)-1 {
		h.coarse.solve(b, x)
		return
	}
	L.cheb.apply(L.op, L.Dinv, b, x, L.d, true, w)
	L.op.residual(b, x, L.r, w)
	C := h.Levels[l+1]
	L.P.MulTransVecWorkers(w, 1, L.r, 0, C.b)
	h.cycle(l+1, C.b, C.x)
	L.P.MulVecWorkers(w, 1, C.x, 1, x)
	L.cheb.apply(L.op, L.Dinv, b, x, L.d, false, w)
}

// Operator returns the fine matrix as a krylov.Operator (y = A·x on Opt.Workers).
func (h *Hierarchy) Operator() krylov.Operator { return matOp{h.Levels[0].A, h.Opt.Workers} }

// matOp is a BSR matrix as a krylov.Operator.
type matOp struct {
	A       *bsr.Matrix
	workers int
}

func (o matOp) Apply(x, y []float64) { o.A.MulVecWorkers(o.workers, 1, x, 0, y) }

// jacobiOp applies block-diagonal inverses as a krylov.Preconditioner.
type jacobiOp struct {
	b       int
	dinv    []float64
	workers int
}

func (j jacobiOp) Apply(r, z []float64) { jacobiScale(j.b, j.dinv, r, z, 1, j.workers) }
