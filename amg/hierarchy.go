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

// Hierarchy is a smoothed-aggregation multigrid hierarchy: every level's operators,
// prolongators, block-diagonal inverses and spectrum estimates, and the coarsest
// level's factor. It holds no cycle: package amg/cycle runs the V-cycle on a
// backend (the CPU's or a GPU's). It is not safe for concurrent use.
type Hierarchy struct {
	Levels []*Level // finest first
	Opt    Options  // the options it was set up with (Workers may be changed between calls)

	// Wall time of the last Setup or Update, all levels together.
	Wall time.Duration

	coarse CoarseFactor
	// stall says why aggregation stopped before the size and level limits ("" when it
	// did not), for the error when the last level is too large to factor.
	stall string
	// broken is set while an Update is under way and stays set when it fails: the
	// levels then mix old and new values (Broken reports it).
	broken bool
}

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
	ns, err := CheckInput(A, ns)
	if err != nil {
		return nil, err
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
			return nil, fmt.Errorf("level %d: %w", l, classify(err))
		}
		if !L.Filter.Identity() {
			L.P = L.Filter.NewPf()
			if err := L.Filter.Numeric(X, Bc, L.P, w); err != nil {
				return nil, fmt.Errorf("level %d: %w", l, classify(err))
			}
		}
		sw.lap(&L.Times.Filter)
	}
	L.rap, err = galerkin.Symbolic(A, L.P, opt.GalerkinVariant)
	if err == nil && opt.Symmetric {
		// The fine operator's values are checked; a coarse one is this hierarchy's own
		// symmetric product (its off-diagonal blocks mirrored exactly, its diagonal
		// blocks symmetric up to rounding, which with λ/μ near 10⁹ exceeds
		// CheckSymmetric's 1e-12 of the largest entry), so only its pattern is.
		chk := A
		if l > 0 {
			chk = &bsr.Matrix{BlockRows: A.BlockRows, BlockCols: A.BlockCols, R: A.R, C: A.C, RowPtr: A.RowPtr, ColIdx: A.ColIdx}
		}
		if err = L.rap.SetSymmetric(chk, true); err != nil {
			err = fmt.Errorf("%w: Options.Symmetric with an operator that is not symmetric: %w", ErrInput, err)
		}
	}
	if err == nil {
		err = L.rap.Numeric(A, L.P, w)
	}
	if err != nil {
		return nil, fmt.Errorf("level %d: %w", l, classify(err))
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
	n := L.A.Rows()
	if L.Dinv == nil {
		L.Dinv = make([]float64, L.A.BlockRows*L.A.R*L.A.R)
		L.eig = newEigWork(n)
	}
	if err := invertDiag(L.A, L.Dinv, opt.Workers); err != nil {
		return fmt.Errorf("level %d: %w", l, err)
	}
	if opt.SmootherFloat32 && !fitsFloat32(L.A.Val) {
		return fmt.Errorf("level %d: %w: an operator entry exceeds the float32 range (SmootherFloat32 needs |a| ≤ %g)",
			l, ErrInput, math.MaxFloat32)
	}
	sw.lap(&L.Times.SmootherSetup)
	eig, err := L.eig.estimate(L.A, L.Dinv, opt.EstEigKSPMaxIt, opt.Workers)
	var be *krylov.BreakdownError
	if errors.As(err, &be) {
		return fmt.Errorf("level %d: %w: eigenvalue estimate: %w", l, ErrNotSPD, err)
	}
	if err != nil {
		return fmt.Errorf("level %d: eigenvalue estimate: %w", l, classify(err))
	}
	L.Eig = eig
	L.Omega = opt.ProlongDamping / eig.Max
	if L.ChebMin, L.ChebMax, err = ChebyshevInterval(eig, opt.ChebyshevEstEig); err != nil {
		return fmt.Errorf("level %d: %w", l, err)
	}
	sw.lap(&L.Times.EigEstimate)
	return nil
}

// CheckInput makes Setup's checks of its matrix and near-null space — square blocks,
// as many block rows as block columns, a valid pattern with finite values
// (bsr.Matrix.Validate), a near-null space of A.Rows() rows with finite entries and
// no zero vector — and returns the near-null space Setup uses (ConstantModes for a
// nil ns). A set-up made elsewhere (on a device) calls it so that bad input gets the
// host's errors, which wrap ErrInput.
func CheckInput(A *bsr.Matrix, ns *NullSpace) (*NullSpace, error) {
	if A == nil || A.BlockRows != A.BlockCols || A.R != A.C {
		return nil, fmt.Errorf("%w: matrix must have square blocks and as many block rows as block columns", ErrInput)
	}
	if err := A.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return CheckNullSpace(A.BlockRows, A.R, ns)
}

// CheckNullSpace is CheckInput's check of the near-null space alone, for a matrix of
// blockRows block rows of b×b blocks that is not on the host (a device's): ns nil
// means ConstantModes.
func CheckNullSpace(blockRows, b int, ns *NullSpace) (*NullSpace, error) {
	if ns == nil {
		ns = ConstantModes(blockRows, b)
	}
	if err := ns.check(); err != nil {
		return nil, err
	}
	if ns.Rows != blockRows*b {
		return nil, fmt.Errorf("%w: near-null space has %d rows, matrix %d", ErrInput, ns.Rows, blockRows*b)
	}
	return ns, nil
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
	if err := h.coarse.Factor(L.A); err != nil {
		return fmt.Errorf("level %d (coarsest, %d unknowns): %w", l, L.A.Rows(), err)
	}
	sw.lap(&L.Times.CoarseFactor)
	return nil
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
// A may be the very matrix given to Setup, modified in place. A pattern error, and a
// validation error of another matrix, leave the hierarchy as it was; invalid values
// written in place leave it unusable, since the old ones are gone; any later error leaves it unusable (Broken
// reports true, and a cycle refuses to run on it) until a successful Update.
func (h *Hierarchy) Update(A *bsr.Matrix) error {
	start := time.Now()
	L0 := h.Levels[0]
	if A == nil || !A.SamePattern(L0.A) {
		return fmt.Errorf("%w: new matrix does not have the set-up pattern", ErrPattern)
	}
	if err := A.Validate(); err != nil {
		if A == L0.A {
			// The caller changed level 0's values in place: the hierarchy's finest
			// operator is now invalid, and the last good values are gone.
			h.broken = true
			return fmt.Errorf("%w: %w (values changed in place; the old ones cannot be restored, and the hierarchy is unusable until an Update succeeds)", ErrInput, err)
		}
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
				return fmt.Errorf("level %d: %w", l, classify(err))
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

// Broken reports whether the last Update failed after it began to change values: the
// levels then mix the values of two matrices, and no cycle may run on them until an
// Update succeeds.
func (h *Hierarchy) Broken() bool { return h.broken }

// Coarse returns the factor of the coarsest operator, refactored by every Update.
func (h *Hierarchy) Coarse() *CoarseFactor { return &h.coarse }

// fitsFloat32 reports whether every value rounds to a finite float32: the cycle's
// float32 copy of an operator (SmootherFloat32) would otherwise hold ±Inf and fill the
// solution with NaN.
func fitsFloat32(v []float64) bool {
	for _, x := range v {
		if math.IsInf(float64(float32(x)), 0) {
			return false
		}
	}
	return true
}

// ChebyshevInterval maps the estimates λmin, λmax of D⁻¹A onto the smoother's interval
// [c₀·λmin + c₁·λmax, c₂·λmin + c₃·λmax] (Options.ChebyshevEstEig): the one rule of the
// host set-up and of a re-setup on a backend. An interval that is not positive is an
// error wrapping ErrOptions.
func ChebyshevInterval(eig krylov.EigenEstimate, c [4]float64) (lo, hi float64, err error) {
	lo = c[0]*eig.Min + c[1]*eig.Max
	hi = c[2]*eig.Min + c[3]*eig.Max
	if !(hi > lo && lo > 0) {
		return lo, hi, fmt.Errorf("%w: Chebyshev interval [%g, %g] from λ ∈ [%g, %g] and ChebyshevEstEig %v is not a positive interval",
			ErrOptions, lo, hi, eig.Min, eig.Max, c)
	}
	return lo, hi, nil
}

// classify gives an error from a stage package (galerkin, filter, krylov) that wraps
// none of this package's sentinels the one that fits: ErrInput (the data the stage
// was given did not fit it), so that every error of Setup and Update wraps a
// documented sentinel.
func classify(err error) error {
	for _, s := range []error{ErrOptions, ErrInput, ErrNotSPD, ErrPattern, ErrStalled, ErrBroken, bsr.ErrSingular} {
		if errors.Is(err, s) {
			return err
		}
	}
	return fmt.Errorf("%w: %w", ErrInput, err)
}
