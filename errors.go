package blockamg

import (
	"github.com/blockamg/blockamg/amg"
	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/krylov"
)

// The sentinels every error of a Solver wraps, for errors.Is. They are the packages'
// own, so a test against amg.ErrNotSPD and one against blockamg.ErrNotSPD agree.
var (
	// ErrInput: the matrix or near-null space does not fit (shape, non-finite values,
	// a missing diagonal block).
	ErrInput = amg.ErrInput
	// ErrOptions: an option is out of range.
	ErrOptions = amg.ErrOptions
	// ErrNotSPD: an operator turned out not to be symmetric positive definite.
	ErrNotSPD = amg.ErrNotSPD
	// ErrSingular: a diagonal block is singular.
	ErrSingular = bsr.ErrSingular
	// ErrPattern: Update got a matrix whose pattern differs from the set-up one.
	ErrPattern = amg.ErrPattern
	// ErrStalled: coarsening stopped while the coarsest level was too large to factor.
	ErrStalled = amg.ErrStalled
	// ErrBroken: the last Update failed part-way; Solve refuses until one succeeds.
	ErrBroken = amg.ErrBroken
	// ErrUnsupported: the backend cannot run an option (say, SmootherFloat32 on the GPU).
	ErrUnsupported = backend.ErrUnsupported
	// ErrNotConverged: CG reached its iteration limit (a *krylov.NotConvergedError).
	ErrNotConverged = krylov.ErrNotConverged
	// ErrBreakdown: CG lost positive definiteness (a *krylov.BreakdownError).
	ErrBreakdown = krylov.ErrBreakdown
	// ErrNoDriver: Backend "cuda" without the NVIDIA driver (libcuda.so.1).
	ErrNoDriver = cuda.ErrNoDriver
	// ErrNoDevice: Backend "cuda" without a CUDA device.
	ErrNoDevice = cuda.ErrNoDevice
)
