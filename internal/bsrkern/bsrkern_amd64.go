//go:build !noasm

package bsrkern

// Enabled reports whether the vector kernels run here: the processor and the
// operating system support AVX2 and FMA. Tests switch it off to check the Go paths;
// nothing else writes it.
var Enabled = HasAVX2FMA()

// HasAVX2FMA reports whether the processor has AVX2 and FMA and the operating
// system saves the YMM registers.
func HasAVX2FMA() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state enabled by the OS
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0 // AVX2
}

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

//go:noescape
func sum33(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

//go:noescape
func sum66(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

//go:noescape
func sum36(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

//go:noescape
func sum33f32(rowPtr *int64, colIdx *int32, val *float32, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

//go:noescape
func sum66f32(rowPtr *int64, colIdx *int32, val *float32, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

// check turns a kernel's bad status into the panic Go's own bounds checks would give.
func check(bad int, name string) {
	switch bad {
	case 1:
		panic("bsrkern: " + name + ": block column out of range")
	case 2:
		panic("bsrkern: " + name + ": row pointer out of range")
	}
}

// kernel is the signature of the assembly kernels for values of type T.
type kernel[T float32 | float64] func(rowPtr *int64, colIdx *int32, val *T, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

// mul is every Mul wrapper: it checks what Go can check (the row range, y and
// scratch lengths, a non-negative first row pointer), hands the kernel the bounds
// it checks itself (x's block columns, the blocks colIdx and val hold), and sums
// the lanes it leaves. r×c is the block shape, lanes the scratch per row.
func mul[T float32 | float64](name string, r, c, lanes int, kern kernel[T], rowPtr []int64, colIdx []int32, val []T, lo, hi int, x, y, scratch []float64) {
	n := hi - lo
	if n <= 0 {
		return
	}
	if !Enabled {
		panic("bsrkern: " + name + " without AVX2 and FMA")
	}
	_ = rowPtr[hi]
	_ = y[r*n-1]
	s := scratch[:lanes*n]
	if rowPtr[lo] < 0 {
		panic("bsrkern: " + name + ": row pointer out of range")
	}
	nblk := min(len(colIdx), len(val)/(r*c))
	if nblk == 0 || len(x) < c {
		// Nothing to dereference: only empty rows are valid, and the kernel, told
		// there are no blocks, checks that against dummy operands.
		var cs [1]int32
		var v [36]T
		var xs [6]float64
		check(kern(&rowPtr[lo], &cs[0], &v[0], &xs[0], n, &s[0], 0, 0), name)
	} else {
		check(kern(&rowPtr[lo], &colIdx[0], &val[0], &x[0], n, &s[0], len(x)/c, nblk), name)
	}
	switch lanes {
	case Scratch33:
		fold33(s, y, n)
	case Scratch36:
		foldPairs(s, y, 3*n)
	default:
		foldPairs(s, y, 6*n)
	}
}

// Mul33 writes y[3(i−lo) : 3(i−lo)+3] = (A·x)_i for block rows lo ≤ i < hi of a BSR
// matrix with 3×3 blocks (row pointer, block columns, row-major block values) and
// scratch of at least Scratch33·(hi−lo) values. Every index is checked: a block
// column beyond x, a row pointer beyond the blocks or decreasing, or a short y or
// scratch panics, as Go's bounds checks would. It panics when Enabled is false.
func Mul33(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	mul("Mul33", 3, 3, Scratch33, sum33, rowPtr, colIdx, val, lo, hi, x, y, scratch)
}

// Mul66 is Mul33 for 6×6 blocks, with scratch of at least Scratch66·(hi−lo) values.
func Mul66(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	mul("Mul66", 6, 6, Scratch66, sum66, rowPtr, colIdx, val, lo, hi, x, y, scratch)
}

// Mul36 is Mul33 for 3×6 blocks (a prolongator's: y holds 3 values a block row, x
// 6 a block column), with scratch of at least Scratch36·(hi−lo) values.
func Mul36(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	mul("Mul36", 3, 6, Scratch36, sum36, rowPtr, colIdx, val, lo, hi, x, y, scratch)
}

// Mul33F32 is Mul33 for float32 block values (a smoother's rounded copy of the
// matrix): each value is widened to float64 exactly and every product and sum is
// formed in float64, so the result has the bits Mul33 gives for the widened values.
// It takes the same scratch, checks every index the same way and panics in the same
// cases.
func Mul33F32(rowPtr []int64, colIdx []int32, val []float32, lo, hi int, x, y, scratch []float64) {
	mul("Mul33F32", 3, 3, Scratch33, sum33f32, rowPtr, colIdx, val, lo, hi, x, y, scratch)
}

// Mul66F32 is Mul66 for float32 block values, as Mul33F32 is Mul33's, with scratch of
// at least Scratch66·(hi−lo) values.
func Mul66F32(rowPtr []int64, colIdx []int32, val []float32, lo, hi int, x, y, scratch []float64) {
	mul("Mul66F32", 6, 6, Scratch66, sum66f32, rowPtr, colIdx, val, lo, hi, x, y, scratch)
}

// fold33 sums the lanes sum33 and sum33f32 leave for n block rows into y.
func fold33(s, y []float64, n int) {
	for r := 0; r < n; r++ {
		p := s[Scratch33*r:][:Scratch33]
		y[3*r] = p[0] + p[1] + p[2]
		y[3*r+1] = p[3] + p[4] + p[5]
		y[3*r+2] = p[6] + p[7] + p[8]
	}
}

// foldPairs sums the lane pairs sum66, sum66f32 and sum36 leave into y's m values:
// y[q] = s[2q] + s[2q+1].
func foldPairs(s, y []float64, m int) {
	for q := 0; q < m; q++ {
		y[q] = s[2*q] + s[2*q+1]
	}
}
