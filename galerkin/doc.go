// Package galerkin computes the coarse operator Ac = PᵀAP of algebraic multigrid for
// block sparse operators: A is n×n blocks of b×b, P is n×m blocks of b×k, Ac is m×m
// blocks of k×k (3×3, 3×6 and 6×6 for 3D elasticity with six rigid-body modes).
//
// Symbolic computes the pattern of Ac once; Numeric recomputes its values whenever A
// (and P) change with the same patterns, which is what AMG re-setup spends its time on.
package galerkin
