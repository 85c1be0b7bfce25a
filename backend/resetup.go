package backend

import (
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/filter"
)

// Resetter is a Backend that can redo the numeric set-up of a smoothed-aggregation
// hierarchy in its own memory when the fine operator gets new values on its old
// pattern (amg/cycle's Resident): block-diagonal inverses, prolongator
// smoothing, filtering and the Galerkin products run there, and only scalars and the
// coarsest operator come back. Patterns are computed on the host once and uploaded.
type Resetter interface {
	Backend
	// UploadPattern copies m's pattern with zero values (m.Val is not read), and the
	// transpose's pattern when withTranspose, for a matrix whose values the backend
	// computes.
	UploadPattern(m *bsr.Matrix, withTranspose bool) (Matrix, error)
	// UploadValues copies new values (row-major blocks in storage order) into a.
	UploadValues(a Matrix, src []float64) error
	// DownloadValues copies a's values into dst after all queued work.
	DownloadValues(dst []float64, a Matrix) error
	// ScaleValues multiplies a's values by f (not those of a stored transpose).
	ScaleValues(a Matrix, f float64)
	// NewBlockDiag allocates a zero block-diagonal operator.
	NewBlockDiag(blocks, n int) (BlockDiag, error)
	// InvertBlockDiag sets d to the inverses of a's diagonal blocks; a missing or
	// singular block is an error naming the lowest such block row.
	InvertBlockDiag(a Matrix, d BlockDiag) error
	// SmoothProlongator sets y = x − ω·D⁻¹·a·x on y's pattern, which must contain those
	// of a·x and x (d holds D⁻¹).
	SmoothProlongator(a Matrix, d BlockDiag, omega float64, x, y Matrix)
	// RefreshTranspose recomputes the stored transpose of a (uploaded withTranspose)
	// from a's values.
	RefreshTranspose(a Matrix)
	// NewGalerkin plans Ac = PᵀAP for the patterns of A and P (values not read).
	NewGalerkin(A, P *bsr.Matrix) (Galerkin, error)
	// NewFilter uploads a filtering plan of a prolongator and the coarse near-null
	// space Bc it preserves.
	NewFilter(p *filter.Plan, Bc []float64) (Filter, error)
}

// Galerkin is a planned coarse-operator product on a Resetter.
type Galerkin interface {
	// Numeric recomputes Ac's values from a and p (with the planned patterns).
	Numeric(a, p Matrix) error
	// Ac returns the coarse operator; Numeric writes its values.
	Ac() Matrix
	// Name says which algorithm the plan runs.
	Name() string
	// Free releases the plan and Ac.
	Free()
}

// Filter is a prolongator filtering plan on a Resetter (see package filter).
type Filter interface {
	// Numeric writes the filtered, re-projected prolongator pf from the smoothed one.
	Numeric(psmooth, pf Matrix) error
	// Free releases the plan.
	Free()
}
