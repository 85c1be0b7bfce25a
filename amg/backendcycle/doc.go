// Package backendcycle runs the solve phase of an amg.Hierarchy on a backend.Backend:
// the V-cycle with Chebyshev/block-Jacobi smoothing, restriction by Pᵀ, prolongation
// by P and a coarse solve, inside preconditioned CG. Written once against the
// backend's primitives (SpMV, SpMVTrans, BlockDiagApply, Axpby, Dot), the same code
// runs on the CPU backend and, with every vector and operator resident on the GPU, on
// the CUDA backend: AMGCL's separation of solver and backend.
//
// # What crosses the host–device boundary
//
// Upload copies each level's operator, prolongator (with its transpose, built once so
// that restriction is a gather without atomics) and inverted diagonal blocks to the
// backend, once. During a solve only the coarsest level's right-hand side and solution
// (at most CoarseEqLimit entries) and the scalars of the inner products travel: the
// coarse system is solved on the host by the dense Cholesky factor of the coarsest
// operator. The backend's Counters record this per phase.
//
// # Agreement with the CPU hierarchy
//
// The cycle applies the same polynomial smoother as amg.Hierarchy.Apply, with the
// same intervals, in a different operation order (a residual, then a block-diagonal
// product, then an axpby, where the CPU fuses them row by row), so results agree with
// the CPU cycle to round-off, not bit for bit; repeated runs on one backend are
// bitwise identical because every backend primitive is.
package backendcycle
