package dist

import "errors"

// ErrLayout is wrapped by the errors of NewLayout and NewMatrix when a layout, or a
// rank's rows against it, is inconsistent.
var ErrLayout = errors.New("dist: inconsistent layout")

// ErrNotConverged is wrapped by the error CG returns when it stops at its iteration
// limit above the tolerance.
var ErrNotConverged = errors.New("dist: CG did not converge")

// ErrBreakdown is wrapped by the error CG returns when pᵀAp or rᵀz is not positive
// (the operator or the preconditioner is not positive definite).
var ErrBreakdown = errors.New("dist: CG breakdown")

// ErrNoPlan is wrapped by the error Hierarchy.Update returns for a hierarchy that
// NewHierarchy made, which keeps no set-up plans (Refresh takes its new values).
var ErrNoPlan = errors.New("dist: the hierarchy keeps no set-up plans")
