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
	// -pc_gamg_agg_nsmooths, default 1.
	AggNSmooths int
	// AggressiveLevels is the number of finest levels aggregated on the squared
	// strength graph (distance-2 MIS, large aggregates); coarser levels use a
	// distance-1 MIS. -pc_gamg_aggressive_coarsening, default 1.
	AggressiveLevels int
	// CoarseEqLimit stops coarsening once a level has at most this many scalar
	// unknowns; that level is solved by dense Cholesky. -pc_gamg_coarse_eq_limit,
	// default 50.
	CoarseEqLimit int
	// MaxLevels bounds the number of levels, the finest included. -pc_mg_levels,
	// default 10 (PETSC_MG_MAXLEVELS).
	MaxLevels int
	// EstEigKSPMaxIt is the number of CG–Lanczos steps that estimate the spectrum of
	// D⁻¹A on each level (for ω and the Chebyshev bounds).
	// -pc_gamg_esteig_ksp_max_it, default 10.
	EstEigKSPMaxIt int
	// ProlongDamping sets the prolongator smoothing weight ω = ProlongDamping/λmax,
	// λmax the CG–Lanczos estimate of λmax(D⁻¹A). Ritz values approach λmax from below,
	// so the effective ω·λmax stays under ProlongDamping/0.9 or so, well inside the
	// stable range (0, 2). Default 4/3, the classical choice (PyAMG); PETSc GAMG
	// hard-codes 1.4.
	ProlongDamping float64
	// SmootherIts is the Chebyshev degree, applied before and after the coarse
	// correction. -mg_levels_ksp_max_it, default 2.
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
	// every level's operator and fails when one is not symmetric; Update trusts new
	// values to stay symmetric. Default false.
	Symmetric bool
	// Workers bounds the goroutines of every parallel phase (<= 0: GOMAXPROCS). Results
	// are bitwise identical for any value.
	Workers int
}

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

// Validate reports the first option outside its range.
func (o *Options) Validate() error {
	switch {
	case math.IsNaN(o.Threshold) || math.IsInf(o.Threshold, 0):
		return fmt.Errorf("%w: Threshold %g is not finite", ErrOptions, o.Threshold)
	case o.AggNSmooths < 0:
		return fmt.Errorf("%w: AggNSmooths %d < 0", ErrOptions, o.AggNSmooths)
	case o.AggressiveLevels < 0:
		return fmt.Errorf("%w: AggressiveLevels %d < 0", ErrOptions, o.AggressiveLevels)
	case o.CoarseEqLimit < 1:
		return fmt.Errorf("%w: CoarseEqLimit %d < 1", ErrOptions, o.CoarseEqLimit)
	case o.MaxLevels < 1:
		return fmt.Errorf("%w: MaxLevels %d < 1", ErrOptions, o.MaxLevels)
	case o.EstEigKSPMaxIt < 1:
		return fmt.Errorf("%w: EstEigKSPMaxIt %d < 1", ErrOptions, o.EstEigKSPMaxIt)
	case !(o.ProlongDamping > 0 && o.ProlongDamping < 2):
		return fmt.Errorf("%w: ProlongDamping %g outside (0, 2)", ErrOptions, o.ProlongDamping)
	case o.SmootherIts < 1:
		return fmt.Errorf("%w: SmootherIts %d < 1", ErrOptions, o.SmootherIts)
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
