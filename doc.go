// Package blockamg is smoothed-aggregation algebraic multigrid for systems of PDEs
// whose operators stay in block form: a BSR matrix with b×b blocks (3×3 for 3D
// elasticity), a near-null space of k vectors (the six rigid-body modes), rectangular
// b×k prolongator blocks and k×k coarse blocks, set up once and re-set up cheaply for
// new values on the same pattern (Newton steps, time steps, design loops), on the CPU
// or on an NVIDIA GPU.
//
// This package is the front door: NewSolver builds the hierarchy and its solver from
// a matrix and a near-null space, Solve runs CG preconditioned by one V-cycle per
// iteration, Update takes new values on the same pattern, Close releases the backend.
// A caller that keeps its data on the backend (a device assembly into FineOperator,
// vectors on a GPU) redoes the set-up with Refresh and solves with SolveVectors.
// The parts behind it are packages of their own, named for what they hold: matio
// (reading files), fem (the ex56 problem, rigid-body modes), amg (the set-up), galerkin
// (PᵀAP), filter, amg/cycle (the V-cycle and smoothers), backend (the primitives, with
// backend/cpu and backend/cuda), krylov (options and results of a solve).
//
// # Errors
//
// Every error a Solver returns for bad data, a failed set-up or a failed solve wraps
// one of the sentinels below (errors.Is): ErrInput, ErrOptions, ErrNotSPD, ErrSingular,
// ErrPattern, ErrStalled, ErrBroken, ErrUnsupported, ErrNotConverged, ErrBreakdown,
// ErrNoDriver, ErrNoDevice. After a failed Update or Refresh the Solver refuses to Solve
// (ErrBroken) until one succeeds.
package blockamg
