package amg

import "errors"

// Errors wrapped by what Setup and Update return, for errors.Is.
var (
	// ErrOptions: an Options field is out of range.
	ErrOptions = errors.New("amg: invalid options")
	// ErrInput: the matrix or near-null space does not fit (shape, non-finite values,
	// a missing diagonal block).
	ErrInput = errors.New("amg: invalid input")
	// ErrNotSPD: a level operator turned out not to be symmetric positive definite
	// (a diagonal entry that is not positive, negative Rayleigh quotient in the
	// eigenvalue estimate, failed coarse Cholesky).
	ErrNotSPD = errors.New("amg: operator not symmetric positive definite")
	// ErrPattern: Update got a matrix whose pattern differs from the set-up one.
	ErrPattern = errors.New("amg: pattern differs from the one set up")
	// ErrStalled: aggregation stopped reducing the grid (no strong connections left,
	// or too few aggregates for the near-null space) while the level was still too
	// large for the dense coarse solve (MaxCoarseUnknowns).
	ErrStalled = errors.New("amg: coarsening stalled")
	// ErrBroken: the last Update failed after it began to change values, so the levels
	// mix two matrices' values; nothing may run on the hierarchy until an Update
	// succeeds.
	ErrBroken = errors.New("amg: hierarchy unusable after a failed update")
)
