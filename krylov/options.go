package krylov

import (
	"errors"
	"fmt"
	"math"
)

// Options controls a CG solve (backend.PCG). The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	// RelTol is the relative tolerance on ‖b − A·x‖₂ / ‖b − A·x₀‖₂ (PETSc -ksp_rtol).
	// Default 1e-8.
	RelTol float64
	// AbsTol is the absolute tolerance on ‖b − A·x‖₂ (PETSc -ksp_atol). Default 1e-50.
	AbsTol float64
	// MaxIter is the iteration limit (PETSc -ksp_max_it). Default 10000.
	MaxIter int
	// History records the residual norm of every iteration in Result.History.
	History bool
	// Workers bounds the goroutines of the vector operations (<= 0: GOMAXPROCS).
	// The operator and preconditioner choose their own.
	Workers int
}

// DefaultOptions returns PETSc's KSP defaults: rtol 1e-8, atol 1e-50, 10000 iterations.
func DefaultOptions() Options {
	return Options{RelTol: 1e-8, AbsTol: 1e-50, MaxIter: 10000}
}

// Result describes a CG run.
type Result struct {
	Iterations      int       // iterations performed
	InitialResidual float64   // ‖b − A·x₀‖₂
	Residual        float64   // final ‖b − A·x‖₂ (the true residual when converged)
	Target          float64   // max(RelTol·InitialResidual, AbsTol)
	History         []float64 // residual norms, History[0] the initial one (when asked)
}

// Begin starts the record of a solve from its initial residual norm: InitialResidual,
// Residual, Target and History[0] (when opt.History); a *BreakdownError when the norm
// is not finite. With Step it is CG's bookkeeping, which solvers outside this package
// (a backend's PCG) share.
func (r *Result) Begin(rnorm float64, opt Options) error {
	r.InitialResidual = rnorm
	r.Target = max(opt.RelTol*rnorm, opt.AbsTol)
	return r.Step(0, rnorm, opt)
}

// Step records iteration it's (recursive) residual norm: Iterations, Residual and
// History (when opt.History); a *BreakdownError when the norm is not finite.
func (r *Result) Step(it int, rnorm float64, opt Options) error {
	r.Iterations, r.Residual = it, rnorm
	if opt.History {
		r.History = append(r.History, rnorm)
	}
	if !finite(rnorm) {
		return &BreakdownError{Iteration: it, Quantity: "‖r‖", Value: rnorm}
	}
	return nil
}

// ErrTolerance is wrapped by the error CG returns for invalid options.
var ErrTolerance = errors.New("krylov: invalid options")

// Validate names the first option out of range (an error wrapping ErrTolerance). An
// infinite tolerance would declare any iterate converged, so tolerances must be finite
// as well as non-negative. Solvers outside this package (a backend's PCG) use it to
// accept exactly what CG accepts.
func (o Options) Validate() error { return o.validate() }

func (o *Options) validate() error {
	switch {
	case !(o.RelTol >= 0) || math.IsInf(o.RelTol, 0):
		return fmt.Errorf("%w: RelTol %g, want finite and ≥ 0", ErrTolerance, o.RelTol)
	case !(o.AbsTol >= 0) || math.IsInf(o.AbsTol, 0):
		return fmt.Errorf("%w: AbsTol %g, want finite and ≥ 0", ErrTolerance, o.AbsTol)
	case o.MaxIter < 0:
		return fmt.Errorf("%w: MaxIter %d, want ≥ 0", ErrTolerance, o.MaxIter)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
