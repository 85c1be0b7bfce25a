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
//
// Block offsets are int64 and every value offset is computed in int64, so that a block
// count times a block size never overflows 32 bits (a 3.1M-unknown 3×6 operator already
// has more than 2³¹ scalar entries in some products). Column indices are int32 to halve
// the index traffic: a block column count never approaches 2³¹.
//
// # Determinism
//
// Parallel kernels split work by block rows with boundaries fixed by the pattern and the
// worker count, and every output value is produced by one goroutine in a fixed order, so
// results are bitwise identical for any number of workers.
//
// # Errors and panics
//
// Shape mismatches between arguments are programmer errors and panic with a constant
// message. What data can cause (a singular diagonal block, an invalid pattern read from
// a file) is returned as an error.
package bsr
