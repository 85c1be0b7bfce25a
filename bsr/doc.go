// Package bsr holds block sparse row matrices whose blocks are R×C with R and C
// independent, and the kernels that work on them.
//
// # Layout
//
// A Matrix has BlockRows block rows and BlockCols block columns; every stored block is a
// dense R×C array stored row-major. Block row i owns the blocks RowPtr[i] … RowPtr[i+1]-1;
// block k sits in block column ColIdx[k] and its values are Val[k*R*C : (k+1)*R*C].
// The scalar matrix therefore has BlockRows*R rows and BlockCols*C columns.
//
// # Invariants
//
//   - len(RowPtr) == BlockRows+1, RowPtr[0] == 0, RowPtr is non-decreasing.
//   - Column indices inside a block row are strictly increasing (sorted, no duplicates).
//   - len(Val) == RowPtr[BlockRows]*R*C.
//   - BlockCols ≤ 2³¹ (column indices are int32), and R·C, BlockRows·R and BlockCols·C
//     fit an int.
//
// Block offsets are int64 and every value offset is computed in int64, so that a block
// count times a block size never overflows 32 bits (a 3.1M-unknown 3×6 operator already
// has more than 2³¹ scalar entries in some products). Column indices are int32 to halve
// the index traffic: a block column count never approaches 2³¹.
//
// # Building
//
// FromBlockTriplets and FromScalarTriplets assemble from coordinates, summing
// duplicates in input order (two stable counting sorts, no comparison sort), and
// FromCSR / ToCSR convert to and from the scalar CSR type, which requires a
// block-conformant scalar pattern. Bad data (indices out of range, NaN, a pattern that
// is not block-conformant) is an error wrapping ErrInvalid that says where it is.
//
// # Operations
//
// MulVec and MulTransVec compute y = αAx + βy and y = αAᵀx + βy (the latter without
// forming Aᵀ); Transpose forms Aᵀ; DiagBlocks and InvertDiag give the (inverted)
// diagonal blocks of a square-blocked matrix; Scale, AddSamePattern, BlockNorms,
// FrobeniusNorm, ApproxEqual and ToDense complete the set. Every parallel operation has
// a …Workers variant taking an explicit goroutine count. SumSquares and Norm measure a
// slice without underflow or overflow while keeping the plain sum's bits wherever it
// is in range: the set-up's norms (strength, QR, filtering) use them so that a
// badly scaled system is measured like a well-scaled one.
//
// # Kernels
//
// GemmAcc, GemmTNAcc, GemvAcc and GemvTAcc are the dense block kernels the sparse
// products are made of, exported for galerkin and amg. The shapes of elasticity AMG
// (3×3 operator, 3×6 prolongator, 6×6 coarse blocks) have unrolled versions generated
// by gen_kernels.go into kernels_unrolled.go; they keep the generic loops' summation
// order, so switching between the two never changes results on amd64.
//
// # Determinism
//
// Parallel kernels split work by block rows with boundaries fixed by the pattern and the
// worker count, and every output value is produced by one goroutine in a fixed order, so
// results are bitwise identical for any number of workers. Products with Aᵀ
// (MulTransVec, Transpose) split the block columns instead: each goroutine walks all
// block rows in order and keeps only its columns, so each output still receives its
// terms in block-row order whatever the split.
//
// # Errors and panics
//
// Shape mismatches between arguments are programmer errors and panic with a constant
// message. What data can cause (a singular diagonal block, an invalid pattern read from
// a file) is returned as an error.
package bsr
