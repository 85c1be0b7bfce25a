// Package krylov holds what every Krylov solve of blockamg shares, whatever backend it
// runs on: the options of a CG solve and the record of its result (Options, Result),
// its error types, and the arithmetic of the CG–Lanczos eigenvalue estimate (the
// start vector, and the Ritz values from the CG coefficients). The iterations
// themselves are written once against backend primitives: backend.PCG and
// backend.CGLanczos.
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
// Both come with the iterate reached so far left in x. Invalid options wrap
// ErrTolerance.
package krylov
