package bsrkern

// Scratch33, Scratch66 and Scratch36 are the scratch values the 3×3, 6×6 and 3×6
// products need per block row: the kernels leave each row's vector lanes there and
// the Go wrapper sums them. ScratchMax covers every shape.
const (
	Scratch33  = 9
	Scratch66  = 12
	Scratch36  = 6
	ScratchMax = Scratch66
)

// Has reports whether the vector kernels run r×c blocks here (MulRows, or MulRowsF32
// when f32 is set): 3×3 and 6×6 blocks of float64 or float32 values and 3×6 blocks
// (a prolongator's) of float64, when Enabled.
func Has(r, c int, f32 bool) bool {
	return Enabled && (r == 3 && c == 3 || r == 6 && c == 6 || r == 3 && c == 6 && !f32)
}

// MulRows writes y[r(i−lo) : r(i−lo)+r] = (A·x)_i for block rows lo ≤ i < hi of a BSR
// matrix with r×c blocks (row pointer, block columns, row-major float64 block
// values; a shape Has reports) and scratch of at least ScratchMax·(hi−lo) values.
// Every index is checked: a block column beyond x, a row pointer beyond the blocks or
// decreasing, or a short y or scratch panics, as Go's bounds checks would; so does a
// shape Has does not report.
//
// It is not inlined: the generic function under it would then be called from the
// caller's package, where escape analysis takes its arguments to escape, and moves
// the caller's stack scratch to the heap.
//
//go:noinline
func MulRows(r, c int, rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	mulRows(r, c, rowPtr, colIdx, val, lo, hi, x, nil, y, scratch)
}

// MulRowsF32 is MulRows for float32 block values (a smoother's rounded copy of the
// matrix): each value is widened to float64 exactly, so the result has the bits
// MulRows gives for the widened values.
//
//go:noinline
func MulRowsF32(r, c int, rowPtr []int64, colIdx []int32, val []float32, lo, hi int, x, y, scratch []float64) {
	mulRows(r, c, rowPtr, colIdx, val, lo, hi, x, nil, y, scratch)
}

// ResidualRows writes y[r(i−lo) : r(i−lo)+r] = b_i − (A·x)_i for block rows lo ≤ i < hi
// (b_i = b[ri : ri+r]): MulRows's product subtracted from b as its lanes are summed,
// so the bits are those of MulRows followed by b − y, without the second pass. The
// same checks as MulRows, and b must hold the rows.
//
//go:noinline
func ResidualRows(r, c int, rowPtr []int64, colIdx []int32, val []float64, lo, hi int, b, x, y, scratch []float64) {
	if hi <= lo {
		return
	}
	mulRows(r, c, rowPtr, colIdx, val, lo, hi, x, b[r*lo:r*hi], y, scratch)
}

// ResidualRowsF32 is ResidualRows for float32 block values (MulRowsF32's).
//
//go:noinline
func ResidualRowsF32(r, c int, rowPtr []int64, colIdx []int32, val []float32, lo, hi int, b, x, y, scratch []float64) {
	if hi <= lo {
		return
	}
	mulRows(r, c, rowPtr, colIdx, val, lo, hi, x, b[r*lo:r*hi], y, scratch)
}
