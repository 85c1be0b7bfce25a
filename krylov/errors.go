package krylov

import (
	"errors"
	"fmt"
)

// NotConvergedError is returned when CG reaches its iteration limit before the
// residual meets the tolerance. x then holds the last iterate.
type NotConvergedError struct {
	Iterations int     // iterations performed
	Residual   float64 // ‖b − A·x‖₂ of the last iterate (recursive residual; the true one when Stagnated)
	Target     float64 // the residual that convergence required
	// Stagnated: the residual reached the level of rounding (far below the initial
	// one) and CG could go no further, so the tolerance is unattainable in floating
	// point; Cause is the loss of positive definiteness that rounding then caused.
	Stagnated bool
	Cause     *BreakdownError
}

// Error reports the iterations, the last residual and the target, and says when the
// tolerance was out of floating-point reach.
func (e *NotConvergedError) Error() string {
	if e.Stagnated {
		s := fmt.Sprintf("krylov: CG stagnated at rounding level after %d iterations: true residual %.3e; the target %.3e is unattainable in floating point",
			e.Iterations, e.Residual, e.Target)
		if e.Cause != nil {
			s += fmt.Sprintf(" (%s = %g at iteration %d, from rounding)", e.Cause.Quantity, e.Cause.Value, e.Cause.Iteration)
		}
		return s
	}
	return fmt.Sprintf("krylov: CG did not converge in %d iterations: residual %.3e, target %.3e", e.Iterations, e.Residual, e.Target)
}

// BreakdownError is returned when CG loses the positive definiteness it relies on.
type BreakdownError struct {
	Iteration int     // iteration at which it happened (0: before the first update)
	Quantity  string  // "pᵀAp" or "rᵀz" (or "‖r‖" for a non-finite residual)
	Value     float64 // the offending value
}

// Operator reports whether the operator (pᵀAp) rather than the preconditioner caused the
// breakdown.
func (e *BreakdownError) Operator() bool { return e.Quantity == "pᵀAp" }

// Error names the iteration, the quantity and its value, and which operator is to blame.
func (e *BreakdownError) Error() string {
	switch e.Quantity {
	case "pᵀAp":
		return fmt.Sprintf("krylov: CG breakdown at iteration %d: pᵀAp = %g: the operator is not symmetric positive definite", e.Iteration, e.Value)
	case "rᵀz":
		if e.Iteration > 0 {
			// The V-cycle is SPD by construction for an SPD operator: losing that
			// after progress is rounding in an ill-conditioned operator.
			return fmt.Sprintf("krylov: CG breakdown at iteration %d: rᵀz = %g: the preconditioner is not symmetric positive definite in floating point (for a multigrid cycle built from an SPD operator: the operator is too ill-conditioned for float64, e.g. coefficients spanning ~1e16 or more)", e.Iteration, e.Value)
		}
		return fmt.Sprintf("krylov: CG breakdown at iteration %d: rᵀz = %g: the preconditioner is not symmetric positive definite", e.Iteration, e.Value)
	default:
		return fmt.Sprintf("krylov: CG breakdown at iteration %d: %s = %g is not finite", e.Iteration, e.Quantity, e.Value)
	}
}

// Sentinels for errors.Is, matched by the error types above, so that callers can test
// for a class without errors.As.
var (
	// ErrNotConverged is matched by *NotConvergedError.
	ErrNotConverged = errors.New("krylov: not converged")
	// ErrBreakdown is matched by *BreakdownError.
	ErrBreakdown = errors.New("krylov: breakdown")
)

// Is reports whether target is ErrNotConverged.
func (e *NotConvergedError) Is(target error) bool { return target == ErrNotConverged }

// Is reports whether target is ErrBreakdown.
func (e *BreakdownError) Is(target error) bool { return target == ErrBreakdown }
