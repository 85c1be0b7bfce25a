package bsrkern

// AccStride is the spacing of SymRows' accumulators for b×b blocks: b, but 4 for
// 3×3 blocks (a padding entry a row, so that a block's transposed product is one
// 4-lane update per row of the block).
func AccStride(b int) int {
	if b == 3 {
		return 4
	}
	return b
}

// HasSym reports whether SymRows runs b×b blocks here: 3×3 and 6×6 blocks of float64
// values (elasticity's fine and coarse levels), when Enabled.
func HasSym(b int) bool { return Enabled && (b == 3 || b == 6) }

// SymRows is the product with a symmetric matrix stored by its blocks on and above
// the diagonal (row pointer, block columns, row-major float64 values of b×b blocks,
// each row's diagonal block first; a shape HasSym reports), for block rows lo ≤ i < hi. It writes y[b(i−lo) : +b] = the
// sum of row i's stored blocks times x, and for each stored block A_ik with k > i and
// base ≤ k < khi adds A_ikᵀ·x_i into acc[s(k−base) : +b] (s = AccStride(b)): the part of row k's product
// that lies below the diagonal, which the caller adds to row k's sum once rows 0 … k−1
// have been through (every one of them in increasing order: the accumulators' terms
// then come in the order of their rows, whatever the split into calls). scratch holds
// at least ScratchMax·(hi−lo) values.
//
// Every index is checked, as MulRows does: a block column beyond x, a row pointer
// beyond the blocks or decreasing, rows beyond x, a row whose first block is not its
// diagonal, or a short y, scratch or acc panics. The other columns of a row must rise
// (not checked: a disorder puts terms in the wrong accumulators, never outside acc).
//
//go:noinline
func SymRows(b int, rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch, acc []float64, base, khi int) {
	symRows(b, rowPtr, colIdx, val, lo, hi, x, y, scratch, acc, base, khi)
}
