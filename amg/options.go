package amg

import (
	"fmt"
	"math"

	"github.com/blockamg/blockamg/galerkin"
)

// Options controls the set-up and the cycle. Field names follow PETSc GAMG's options;
// DefaultOptions gives GAMG's defaults. The zero value is not valid.
type Options struct {
	// Threshold drops weak edges from the strength graph: nodes i and j are connected
	// when ‖A_ij‖_F / √(‖A_ii‖_F‖A_jj‖_F) > Threshold. 0 keeps every non-zero block; a
	// negative value keeps every stored block, explicit zeros included.
	// -pc_gamg_threshold, default 0.
	Threshold float64
	// AggNSmooths is the number of Jacobi smoothing steps applied to the tentative
	// prolongator: 0 gives plain aggregation, 1 classical smoothed aggregation.
	// Every step widens P's stencil by A's, so P, the Galerkin products and the coarse
	// operators grow fast with it: 0 … LimitAggNSmooths (20). -pc_gamg_agg_nsmooths,
	// default 1.
	AggNSmooths int
	// AggressiveLevels is the number of finest levels aggregated on the squared
	// strength graph (distance-2 MIS, large aggregates); coarser levels use a
	// distance-1 MIS. 0 … LimitMaxLevels (64). -pc_gamg_aggressive_coarsening,
	// default 1.
	AggressiveLevels int
	// CoarseEqLimit stops coarsening once a level has at most this many scalar
	// unknowns; that level is solved by dense Cholesky, so 1 … MaxCoarseUnknowns
	// (8000, the largest dense factor allowed). -pc_gamg_coarse_eq_limit, default 50.
	CoarseEqLimit int
	// MaxLevels bounds the number of levels, the finest included: 1 … LimitMaxLevels
	// (64). -pc_mg_levels, default 10 (PETSC_MG_MAXLEVELS).
	MaxLevels int
	// EstEigKSPMaxIt is the number of CG–Lanczos steps that estimate the spectrum of
	// D⁻¹A on each level (for ω and the Chebyshev bounds), one product with A each:
	// 1 … LimitEstEigKSPMaxIt (1000). -pc_gamg_esteig_ksp_max_it, default 10.
	EstEigKSPMaxIt int
	// ProlongDamping sets the prolongator smoothing weight ω = ProlongDamping/λmax,
	// λmax the CG–Lanczos estimate of λmax(D⁻¹A). Ritz values approach λmax from below,
	// so the effective ω·λmax stays under ProlongDamping/0.9 or so, well inside the
	// stable range (0, 2). Default 4/3, the classical choice (PyAMG); PETSc GAMG
	// hard-codes 1.4.
	ProlongDamping float64
	// SmootherIts is the Chebyshev degree, applied before and after the coarse
	// correction: 2·SmootherIts products with each level's operator per V-cycle,
	// 1 … LimitSmootherIts (100). -mg_levels_ksp_max_it, default 2.
	SmootherIts int
	// Smoother names the level relaxation of the cycle, one of those registered in
	// package amg/cycle: "chebyshev" (the default, "" means it) or "jacobi" (damped
	// block Jacobi, ω = 4/(3·λmax)). Both use the block-diagonal inverse and the λ
	// estimate of the set-up.
	Smoother string
	// ChebyshevEstEig maps the estimates λmin, λmax of D⁻¹A onto the Chebyshev interval
	// [a·λmin + b·λmax, c·λmin + d·λmax] for {a, b, c, d}.
	// -mg_levels_ksp_chebyshev_esteig, default {0, 0.1, 0, 1.1}.
	ChebyshevEstEig [4]float64
	// SmootherFloat32 keeps a float32 copy of every level operator but the coarsest
	// and runs the cycle's smoother and residuals on it, halving the memory traffic of
	// the passes that dominate a V-cycle, for 50% more operator memory. The cycle stays
	// symmetric (it is the V-cycle of fl32(A), with the Galerkin coarse operators of
	// A) and CG on A still converges to A's solution at A's accuracy; only for an A so
	// ill-conditioned that rounding to float32 makes it indefinite can the
	// preconditioner lose definiteness, which CG reports as a breakdown. Default false.
	SmootherFloat32 bool
	// UpperProducts keeps, with Symmetric and on a backend.SymmetricSmoother (the
	// CPU's), a copy of every level operator but the coarsest by its blocks on and
	// above the diagonal, which the smoother, the residuals and CG multiply by: each
	// block is read once for its row and, transposed, for its column, so a product
	// streams about half the bytes (a solve iteration about 10–14% faster on one core
	// here) for about half the operator memory more and a copy at each set-up (on a
	// 163k-unknown mesh 0.3–0.45 s more set-up against 0.06 s less solve in 30
	// iterations: it pays in long solves). Ignored with SmootherFloat32. Default false.
	UpperProducts bool
	// FilterTheta drops blocks of the smoothed prolongator whose Frobenius norm is
	// below FilterTheta times the largest of their block row, then corrects the kept
	// blocks so that P still reproduces the near-null space exactly (package filter).
	// Level l uses FilterTheta·FilterScale^l. 0 (the default) keeps P as smoothed.
	FilterTheta float64
	// FilterScale is the per-level factor of FilterTheta. Default 1.
	FilterScale float64
	// GalerkinVariant selects the PᵀAP algorithm; galerkin.Auto lets its planner choose.
	// Default galerkin.Auto.
	GalerkinVariant galerkin.Variant
	// Symmetric declares the fine operator symmetric, as CG's is: each level's PᵀAP
	// then computes the blocks of Ac on and above the diagonal and mirrors them
	// (galerkin.Plan.SetSymmetric; the Pᵀ·W stage's work about halves). Setup checks
	// the fine operator and fails when it is not symmetric (the coarse ones are its
	// symmetric products: their patterns are checked); Update trusts new values to
	// stay symmetric. Default false.
	Symmetric bool
	// Workers bounds the goroutines of every parallel phase (<= 0: GOMAXPROCS), each
	// with its own scratch arrays: at most LimitWorkers (4096). Results are bitwise
	// identical for any value.
	Workers int
}

// Limits of the options that scale the set-up's or the cycle's work or memory. They
// lie far beyond any sensible run (PETSc GAMG's defaults are 1, 10, 10 and 2; a degree
// or a step count in the tens is already unusual) and keep a mistyped value (an
// AggNSmooths of 200 filled 6.2 GB on a 6.6k-unknown problem, a SmootherIts of 10⁹
// never finishes a V-cycle) from running out of time or memory: Validate refuses
// anything beyond them with an error that names the option, its value and its range.
const (
	LimitAggNSmooths    = 20   // AggNSmooths ≤ 20
	LimitMaxLevels      = 64   // MaxLevels and AggressiveLevels ≤ 64
	LimitEstEigKSPMaxIt = 1000 // EstEigKSPMaxIt ≤ 1000
	LimitSmootherIts    = 100  // SmootherIts ≤ 100
	LimitWorkers        = 4096 // Workers ≤ 4096
)

// DefaultOptions returns PETSc GAMG's defaults for smoothed aggregation.
func DefaultOptions() Options {
	return Options{
		Threshold:        0,
		AggNSmooths:      1,
		AggressiveLevels: 1,
		CoarseEqLimit:    50,
		MaxLevels:        10,
		EstEigKSPMaxIt:   10,
		ProlongDamping:   4.0 / 3.0,
		SmootherIts:      2,
		ChebyshevEstEig:  [4]float64{0, 0.1, 0, 1.1},
		GalerkinVariant:  galerkin.Auto,
		FilterScale:      1,
	}
}

// IntRange is the allowed range of an integer option.
type IntRange struct {
	Name     string // the Options field
	Min, Max int
}

// IntRanges lists the integer options and their allowed ranges, in Validate's order
// (a front end can check its flags against them and name its own flag).
var IntRanges = []IntRange{
	{"AggNSmooths", 0, LimitAggNSmooths},
	{"AggressiveLevels", 0, LimitMaxLevels},
	{"CoarseEqLimit", 1, MaxCoarseUnknowns},
	{"MaxLevels", 1, LimitMaxLevels},
	{"EstEigKSPMaxIt", 1, LimitEstEigKSPMaxIt},
	{"SmootherIts", 1, LimitSmootherIts},
	{"Workers", math.MinInt, LimitWorkers},
}

// intField returns the value of the integer option name.
func (o *Options) intField(name string) int {
	switch name {
	case "AggNSmooths":
		return o.AggNSmooths
	case "AggressiveLevels":
		return o.AggressiveLevels
	case "CoarseEqLimit":
		return o.CoarseEqLimit
	case "MaxLevels":
		return o.MaxLevels
	case "EstEigKSPMaxIt":
		return o.EstEigKSPMaxIt
	case "SmootherIts":
		return o.SmootherIts
	case "Workers":
		return o.Workers
	}
	panic("amg: no integer option " + name)
}

// Check reports v outside r as an error wrapping ErrOptions that names the option,
// the value and the allowed range.
func (r IntRange) Check(v int) error {
	if v >= r.Min && v <= r.Max {
		return nil
	}
	if r.Min == math.MinInt {
		return fmt.Errorf("%w: %s %d is outside the allowed range (at most %d)", ErrOptions, r.Name, v, r.Max)
	}
	return fmt.Errorf("%w: %s %d is outside the allowed range [%d, %d]", ErrOptions, r.Name, v, r.Min, r.Max)
}

// Validate reports the first option outside its range; the integer ones are checked
// against IntRanges.
func (o *Options) Validate() error {
	if math.IsNaN(o.Threshold) || math.IsInf(o.Threshold, 0) {
		return fmt.Errorf("%w: Threshold %g is not finite", ErrOptions, o.Threshold)
	}
	for _, r := range IntRanges {
		if err := r.Check(o.intField(r.Name)); err != nil {
			return err
		}
	}
	switch {
	case !(o.ProlongDamping > 0 && o.ProlongDamping < 2):
		return fmt.Errorf("%w: ProlongDamping %g outside (0, 2)", ErrOptions, o.ProlongDamping)
	case !(o.FilterTheta >= 0 && o.FilterTheta <= 1):
		return fmt.Errorf("%w: FilterTheta %g outside [0, 1]", ErrOptions, o.FilterTheta)
	case !(o.FilterScale > 0) || math.IsInf(o.FilterScale, 0):
		return fmt.Errorf("%w: FilterScale %g must be positive and finite", ErrOptions, o.FilterScale)
	}
	for _, v := range o.ChebyshevEstEig {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: ChebyshevEstEig %v is not finite", ErrOptions, o.ChebyshevEstEig)
		}
	}
	if !o.GalerkinVariant.Valid() {
		return fmt.Errorf("%w: unknown GalerkinVariant %q, want one of %s", ErrOptions, o.GalerkinVariant, galerkin.VariantNames())
	}
	return nil
}
