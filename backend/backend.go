package backend

import "github.com/blockamg/blockamg/bsr"

// Vector is a dense float64 vector owned by a Backend. Its storage is opaque (host
// memory for the CPU, device memory for a GPU).
type Vector interface {
	// Len returns the number of entries.
	Len() int
	// Free releases the storage. The vector must not be used afterwards; freeing twice
	// is a no-op.
	Free()
}

// Matrix is a BSR operator uploaded to a Backend.
type Matrix interface {
	// Dims returns the block dimensions and the block shape, as in bsr.Matrix.
	Dims() (blockRows, blockCols, r, c int)
	// Free releases the storage; freeing twice is a no-op.
	Free()
}

// BlockDiag is a block-diagonal operator of square blocks uploaded to a Backend, such
// as the inverted diagonal blocks of a block-Jacobi preconditioner.
type BlockDiag interface {
	// Dims returns the number of blocks and their size.
	Dims() (blocks, b int)
	// Free releases the storage; freeing twice is a no-op.
	Free()
}

// Backend is a set of vector and BSR primitives on one device. A Backend is not safe
// for concurrent use by several goroutines.
type Backend interface {
	// Name identifies the implementation and device, e.g. "cpu" or "cuda:0 NVIDIA H200".
	Name() string

	// NewVector allocates a zero-filled vector of n entries.
	NewVector(n int) (Vector, error)
	// UploadMatrix copies m to the backend. withTranspose also prepares Aᵀ for
	// SpMVTrans (a GPU stores it explicitly, built once, so that the transposed product
	// is a deterministic gather). m is checked first (bsr.Matrix.Validate: the pattern,
	// finite values): an invalid m is an error wrapping bsr.ErrInvalid, so a caller
	// need not check it again.
	UploadMatrix(m *bsr.Matrix, withTranspose bool) (Matrix, error)
	// UploadBlockDiag copies blocks row-major b×b blocks, stored consecutively in vals.
	UploadBlockDiag(blocks, b int, vals []float64) (BlockDiag, error)

	// Upload copies src into dst (len(src) == dst.Len()).
	Upload(dst Vector, src []float64)
	// Download copies src into dst (len(dst) == src.Len()).
	Download(dst []float64, src Vector)
	// Copy sets dst = src.
	Copy(dst, src Vector)
	// Zero sets every entry of v to 0.
	Zero(v Vector)

	// SpMV computes y = alpha·A·x + beta·y.
	SpMV(alpha float64, a Matrix, x Vector, beta float64, y Vector)
	// SpMVTrans computes y = alpha·Aᵀ·x + beta·y; A must have been uploaded
	// withTranspose.
	SpMVTrans(alpha float64, a Matrix, x Vector, beta float64, y Vector)
	// BlockDiagApply computes y = D·x (x and y distinct).
	BlockDiagApply(d BlockDiag, x, y Vector)

	// Axpby computes y = a·x + b·y.
	Axpby(a float64, x Vector, b float64, y Vector)
	// Scale computes x = a·x.
	Scale(a float64, x Vector)
	// Vmul computes z = a·x∘y + b·z, ∘ the entrywise product (z may alias neither).
	Vmul(a float64, x, y Vector, b float64, z Vector)
	// Dot returns xᵀy, summed in a fixed order.
	Dot(x, y Vector) float64
	// Norm returns the Euclidean norm of x, √(xᵀx).
	Norm(x Vector) float64

	// SetPhase names the phase that later host↔device copies are counted under, and
	// returns the previous name.
	SetPhase(name string) (previous string)
	// Counters returns the backend's transfer counters.
	Counters() *Counters
	// Err waits for queued work and returns the first device failure, if any.
	Err() error
	// Close releases the backend's own resources (not the vectors and matrices, which
	// must be freed first). A closed backend must not be used.
	Close() error
}

// ChebStepper is implemented by backends that fuse one step of the Chebyshev smoother
// into the product with A (a cycle falls back to SpMV, BlockDiagApply and Axpby
// without it).
type ChebStepper interface {
	// ChebStep computes d = c1·d + c2·D⁻¹(b − A·x), with D⁻¹ in dinv (A square with
	// square blocks, dinv its block size), and the updated iterate xOut = x + d (with
	// the new d). d is not read when c1 is 0. d and xOut alias none of the others:
	// the product still reads x while rows of xOut are written, so the iterate
	// alternates between two vectors instead of a separate pass adding d to x.
	ChebStep(a Matrix, dinv BlockDiag, b, x Vector, c1, c2 float64, d, xOut Vector)
	// Residual computes r = b − A·x (r aliases neither b nor x).
	Residual(a Matrix, b, x, r Vector)
	// DiagApply2 computes y = z = s·D·x, D block diagonal (the first Chebyshev step
	// from a zero guess); y and z alias neither x nor each other.
	DiagApply2(d BlockDiag, s float64, x, y, z Vector)
}

// Lanczoser is implemented by backends that run the CG–Lanczos recurrence of an
// eigenvalue estimate (krylov.EstimateEigenvalues' iteration for D⁻¹A) with its
// scalars kept in their own memory, so that the estimate needs one transfer at the
// end instead of a round trip per inner product.
type Lanczoser interface {
	// CGLanczos runs up to steps CG steps on a with the block-Jacobi preconditioner
	// dinv from the start vector (not modified), in the work vectors r, z, p, q, with
	// krylov's stopping rules, and returns the CG coefficients.
	CGLanczos(a Matrix, dinv BlockDiag, start Vector, steps int, r, z, p, q Vector) (LanczosResult, error)
}

// LanczosResult holds the CG coefficients of a CG–Lanczos run: len(Alphas) steps and
// the betas between them. A breakdown (a non-positive or non-finite rᵀz or pᵀAp) is
// reported by BreakQuantity ("" when none), at BreakIteration with BreakValue.
type LanczosResult struct {
	Alphas, Betas  []float64
	BreakQuantity  string
	BreakIteration int
	BreakValue     float64
}

// Float32Smoother is implemented by backends that can smooth with float32 copies of a
// level operator's values (amg.Options.SmootherFloat32): half the bytes of the
// smoother's passes, with products and sums still formed in float64. A backend
// without it refuses that option.
type Float32Smoother interface {
	// UploadMatrixFloat32 uploads m for ChebStep and Residual, which then read its
	// values rounded to float32 (SpMV reads the float64 ones). An entry beyond the
	// float32 range is an error wrapping ErrFloat32Range.
	UploadMatrixFloat32(m *bsr.Matrix) (Matrix, error)
}

// SymmetricSmoother is implemented by backends that can multiply a symmetric level
// operator from its blocks on and above the diagonal alone: about half the bytes of
// every product with it, the smoother's, the residual's and CG's.
type SymmetricSmoother interface {
	// UploadMatrixSymmetric uploads m, which must be symmetric (its blocks below the
	// diagonal are not read), for ChebStep, Residual and SpMV; where the backend has
	// no such product for m's blocks it returns what UploadMatrix does.
	UploadMatrixSymmetric(m *bsr.Matrix) (Matrix, error)
	// RefreshSymmetric brings into a (from UploadMatrixSymmetric) the current values
	// of the matrix it was uploaded from.
	RefreshSymmetric(a Matrix)
}

// Host is implemented by backends whose vectors live in host memory, where a transfer
// is a copy: the cycle then solves the coarsest level with the host's Cholesky factor
// instead of a product with its dense inverse.
type Host interface {
	// HostMemory does nothing; it marks the backend.
	HostMemory()
}
