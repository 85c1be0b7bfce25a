// Package krylov holds the Krylov solvers the multigrid hierarchy is wrapped in:
// preconditioned conjugate gradients (CG) and the CG–Lanczos extreme-eigenvalue
// estimate that smoothers and prolongator smoothing rely on.
//
// # Interfaces
//
// An Operator computes y = A·x and a Preconditioner computes z = M⁻¹·r; both write
// their whole output and must not keep the slices. Neither is asked to be safe for
// concurrent use: a solver calls them one at a time.
//
// # Convergence
//
// CG measures convergence on the unpreconditioned residual ‖b − A·x‖₂ (PETSc's
// -ksp_norm_type unpreconditioned): it stops once the residual is at most
// max(RelTol·‖r₀‖, AbsTol), where r₀ = b − A·x₀. The recursively updated residual
// drives the test; when it claims convergence the true residual b − A·x is computed
// and must pass the same test, so a converged result is never a rounding artefact.
//
// # Errors
//
// Running out of iterations returns *NotConvergedError (iteration count, residual,
// target). A loss of positive definiteness returns *BreakdownError, which says
// whether the operator (pᵀAp ≤ 0) or the preconditioner (rᵀz ≤ 0) is to blame.
// Both come with the iterate reached so far left in x.
//
// # Determinism
//
// Inner products are summed over fixed-length chunks whose partial sums are added in
// index order, so with operators that are themselves deterministic a solve gives
// bitwise identical iterates for any worker count.
package krylov
