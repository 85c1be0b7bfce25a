//go:build !amd64 || noasm

package bsrkern

// Enabled is false: other architectures, or amd64 built with -tags noasm, run the
// callers' pure Go paths.
var Enabled = false

// HasAVX2FMA reports false: the vector kernels are not built here.
func HasAVX2FMA() bool { return false }

// mulRows is not built here: it panics (callers check Has).
func mulRows[T float32 | float64](r, c int, rowPtr []int64, colIdx []int32, val []T, lo, hi int, x, b, y, scratch []float64) {
	if hi > lo {
		panic("bsrkern: MulRows without the vector kernels")
	}
}

// symRows is not built here: it panics (callers check HasSym).
func symRows(b int, rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch, acc []float64, base, khi int) {
	if hi > lo {
		panic("bsrkern: SymRows without the vector kernels")
	}
}

// transRows36 is not built here: it panics (callers check Enabled).
func transRows36(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, alpha float64, x, y []float64, clo, chi int) {
	if hi > lo && chi > clo {
		panic("bsrkern: TransRows36 without the vector kernels")
	}
}
