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

// Scratch33 and Scratch66 are the scratch values Mul33 and Mul66 (and their F32
// variants) need per block row:
// the kernels leave each row's vector lanes there and the Go wrapper sums them.
const (
	Scratch33 = 9
	Scratch66 = 12
)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

//go:noescape
func sum33(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

//go:noescape
func sum66(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int) (bad int)

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

// Mul33 writes y[3(i−lo) : 3(i−lo)+3] = (A·x)_i for block rows lo ≤ i < hi of a BSR
// matrix with 3×3 blocks (row pointer, block columns, row-major block values) and
// scratch of at least Scratch33·(hi−lo) values. Every index is checked: a block
// column beyond x, a row pointer beyond the blocks or decreasing, or a short y or
// scratch panics, as Go's bounds checks would. It panics when Enabled is false.
func Mul33(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	n := hi - lo
	if n <= 0 {
		return
	}
	if !Enabled {
		panic("bsrkern: Mul33 without AVX2 and FMA")
	}
	_ = rowPtr[hi]
	_ = y[3*n-1]
	s := scratch[:Scratch33*n]
	if rowPtr[lo] < 0 {
		panic("bsrkern: Mul33: row pointer out of range")
	}
	nblk := min(len(colIdx), len(val)/9)
	if nblk == 0 || len(x) < 3 {
		// Nothing to dereference: only empty rows are valid, and the kernel, told
		// there are no blocks, checks that against dummy operands.
		var c [1]int32
		var v [9]float64
		var xs [3]float64
		check(sum33(&rowPtr[lo], &c[0], &v[0], &xs[0], n, &s[0], 0, 0), "Mul33")
	} else {
		check(sum33(&rowPtr[lo], &colIdx[0], &val[0], &x[0], n, &s[0], len(x)/3, nblk), "Mul33")
	}
	fold33(s, y, n)
}

// Mul66 is Mul33 for 6×6 blocks, with scratch of at least Scratch66·(hi−lo) values.
func Mul66(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch []float64) {
	n := hi - lo
	if n <= 0 {
		return
	}
	if !Enabled {
		panic("bsrkern: Mul66 without AVX2 and FMA")
	}
	_ = rowPtr[hi]
	_ = y[6*n-1]
	s := scratch[:Scratch66*n]
	if rowPtr[lo] < 0 {
		panic("bsrkern: Mul66: row pointer out of range")
	}
	nblk := min(len(colIdx), len(val)/36)
	if nblk == 0 || len(x) < 6 {
		// Nothing to dereference: only empty rows are valid, and the kernel, told
		// there are no blocks, checks that against dummy operands.
		var c [1]int32
		var v [36]float64
		var xs [6]float64
		check(sum66(&rowPtr[lo], &c[0], &v[0], &xs[0], n, &s[0], 0, 0), "Mul66")
	} else {
		check(sum66(&rowPtr[lo], &colIdx[0], &val[0], &x[0], n, &s[0], len(x)/6, nblk), "Mul66")
	}
	fold66(s, y, n)
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

// fold66 sums the lanes sum66 and sum66f32 leave for n block rows into y.
func fold66(s, y []float64, n int) {
	for r := 0; r < n; r++ {
		p := s[Scratch66*r:][:Scratch66]
		for q := 0; q < 6; q++ {
			y[6*r+q] = p[2*q] + p[2*q+1]
		}
	}
}

// Mul33F32 is Mul33 for float32 block values (a smoother's rounded copy of the
// matrix): each value is widened to float64 exactly and every product and sum is
// formed in float64, so the result has the bits Mul33 gives for the widened values.
// It takes the same scratch, checks every index the same way and panics in the same
// cases.
func Mul33F32(rowPtr []int64, colIdx []int32, val []float32, lo, hi int, x, y, scratch []float64) {
	n := hi - lo
	if n <= 0 {
		return
	}
	if !Enabled {
		panic("bsrkern: Mul33F32 without AVX2 and FMA")
	}
	_ = rowPtr[hi]
	_ = y[3*n-1]
	s := scratch[:Scratch33*n]
	if rowPtr[lo] < 0 {
		panic("bsrkern: Mul33F32: row pointer out of range")
	}
	nblk := min(len(colIdx), len(val)/9)
	if nblk == 0 || len(x) < 3 {
		// Nothing to dereference: only empty rows are valid, and the kernel, told
		// there are no blocks, checks that against dummy operands.
		var c [1]int32
		var v [9]float32
		var xs [3]float64
		check(sum33f32(&rowPtr[lo], &c[0], &v[0], &xs[0], n, &s[0], 0, 0), "Mul33F32")
	} else {
		check(sum33f32(&rowPtr[lo], &colIdx[0], &val[0], &x[0], n, &s[0], len(x)/3, nblk), "Mul33F32")
	}
	fold33(s, y, n)
}

// Mul66F32 is Mul66 for float32 block values, as Mul33F32 is Mul33's, with scratch of
// at least Scratch66·(hi−lo) values.
func Mul66F32(rowPtr []int64, colIdx []int32, val []float32, lo, hi int, x, y, scratch []float64) {
	n := hi - lo
	if n <= 0 {
		return
	}
	if !Enabled {
		panic("bsrkern: Mul66F32 without AVX2 and FMA")
	}
	_ = rowPtr[hi]
	_ = y[6*n-1]
	s := scratch[:Scratch66*n]
	if rowPtr[lo] < 0 {
		panic("bsrkern: Mul66F32: row pointer out of range")
	}
	nblk := min(len(colIdx), len(val)/36)
	if nblk == 0 || len(x) < 6 {
		// Nothing to dereference: only empty rows are valid, and the kernel, told
		// there are no blocks, checks that against dummy operands.
		var c [1]int32
		var v [36]float32
		var xs [6]float64
		check(sum66f32(&rowPtr[lo], &c[0], &v[0], &xs[0], n, &s[0], 0, 0), "Mul66F32")
	} else {
		check(sum66f32(&rowPtr[lo], &colIdx[0], &val[0], &x[0], n, &s[0], len(x)/6, nblk), "Mul66F32")
	}
	fold66(s, y, n)
}
