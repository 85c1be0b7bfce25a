//go:build !amd64 || noasm

package bsrkern

// Enabled is false: other architectures, or amd64 built with -tags noasm, run the
// callers' pure Go paths.
var Enabled = false

// HasAVX2FMA reports false: the vector kernels are not built here.
func HasAVX2FMA() bool { return false }

// Mul33 is not built here: it panics (callers check Enabled).
func Mul33(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	panic("bsrkern: Mul33 without the vector kernels")
}

// Mul66 is not built here: it panics (callers check Enabled).
func Mul66(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	panic("bsrkern: Mul66 without the vector kernels")
}

// Mul33F32 is not built here: it panics (callers check Enabled).
func Mul33F32(rowPtr []int64, colIdx []int32, val []float32, lo, hi int, x, y, scratch []float64) {
	panic("bsrkern: Mul33F32 without the vector kernels")
}

// Mul66F32 is not built here: it panics (callers check Enabled).
func Mul66F32(rowPtr []int64, colIdx []int32, val []float32, lo, hi int, x, y, scratch []float64) {
	panic("bsrkern: Mul66F32 without the vector kernels")
}

// Mul36 is not built here: it panics (callers check Enabled).
func Mul36(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	panic("bsrkern: Mul36 without the vector kernels")
}
