package bsrkern

// TransRows36 adds alpha·Aᵀx to y for block rows lo ≤ i < hi of a BSR matrix of 3×6
// blocks (a prolongator's restriction, row-major float64 block values): every stored
// block A_ic with lo ≤ i < hi and clo ≤ c < chi adds A_icᵀ·(alpha·x_i) into
// y[6c : 6c+6], rows in increasing order; blocks of other columns are skipped, so
// that callers owning disjoint column ranges may share y. x holds the rows' 3 values
// each from row 0 (x_i = x[3i : 3i+3]). Each entry is updated as
// ((y_j + a_0j·a0) + a_1j·a1) + a_2j·a2 with a = alpha·x_i, every product and sum
// rounded on its own, so the bits are those of the plain Go loop in that order (no
// fused multiply-adds). A row's block columns must rise (not checked: a disorder
// skips blocks, never writes outside y).
//
// Every index it uses is checked, as MulRows does: a block column beyond y among the
// blocks it visits (a row whose columns all lie outside [clo, chi) is skipped
// unread, as bsr's loop skips it), a row pointer beyond the blocks or decreasing, or
// rows beyond x or rowPtr panic. It needs the vector kernels (Enabled).
//
//go:noinline
func TransRows36(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, alpha float64, x, y []float64, clo, chi int) {
	transRows36(rowPtr, colIdx, val, lo, hi, alpha, x, y, clo, chi)
}
