//go:build !noasm

package bsrkern

import "fmt"

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
func check(bad int) {
	switch bad {
	case 1:
		panic("bsrkern: MulRows: block column out of range")
	case 2:
		panic("bsrkern: MulRows: row pointer out of range")
	}
}

// sum runs the assembly kernel for r×c blocks of values of type T (a shape Has
// reports). The kernel is chosen by a switch, not passed as a function value: a call
// through a function value would make every slice argument escape, and the callers'
// stack buffers with them.
func sum[T float32 | float64](r, c int, rowPtr *int64, colIdx *int32, val *T, x *float64, rows int, out *float64, ncols, nblk int) int {
	switch v := any(val).(type) {
	case *float64:
		switch {
		case r == 3 && c == 3:
			return sum33(rowPtr, colIdx, v, x, rows, out, ncols, nblk)
		case r == 6 && c == 6:
			return sum66(rowPtr, colIdx, v, x, rows, out, ncols, nblk)
		case r == 3 && c == 6:
			return sum36(rowPtr, colIdx, v, x, rows, out, ncols, nblk)
		}
	case *float32:
		switch {
		case r == 3 && c == 3:
			return sum33f32(rowPtr, colIdx, v, x, rows, out, ncols, nblk)
		case r == 6 && c == 6:
			return sum66f32(rowPtr, colIdx, v, x, rows, out, ncols, nblk)
		}
	}
	panic(fmt.Sprintf("bsrkern: no kernel for %d×%d blocks of %T", r, c, *val))
}

// mulRows is MulRows and MulRowsF32: it checks what Go can check (the row range, y
// and scratch lengths, a non-negative first row pointer), hands the kernel the
// bounds it checks itself (x's block columns, the blocks colIdx and val hold), and
// sums the lanes it leaves.
func mulRows[T float32 | float64](r, c int, rowPtr []int64, colIdx []int32, val []T, lo, hi int, x, b, y, scratch []float64) {
	n := hi - lo
	if n <= 0 {
		return
	}
	var v T
	if _, f32 := any(v).(float32); !Has(r, c, f32) {
		panic(fmt.Sprintf("bsrkern: MulRows: no vector kernel for %d×%d blocks of %T here", r, c, v))
	}
	lanes := Scratch66
	switch {
	case r == 3 && c == 3:
		lanes = Scratch33
	case r == 3:
		lanes = Scratch36
	}
	_ = rowPtr[hi]
	_ = y[r*n-1]
	s := scratch[:lanes*n]
	if rowPtr[lo] < 0 {
		panic("bsrkern: MulRows: row pointer out of range")
	}
	nblk := min(len(colIdx), len(val)/(r*c))
	if nblk == 0 || len(x) < c {
		// Nothing to dereference: only empty rows are valid, and the kernel, told
		// there are no blocks, checks that against dummy operands.
		var cs [1]int32
		var v [36]T
		var xs [6]float64
		check(sum(r, c, &rowPtr[lo], &cs[0], &v[0], &xs[0], n, &s[0], 0, 0))
	} else {
		check(sum(r, c, &rowPtr[lo], &colIdx[0], &val[0], &x[0], n, &s[0], len(x)/c, nblk))
	}
	switch {
	case b != nil && lanes == Scratch33:
		fold33Sub(s, b, y, n)
	case b != nil:
		foldPairsSub(s, b, y, r*n)
	case lanes == Scratch33:
		fold33(s, y, n)
	default:
		foldPairs(s, y, r*n)
	}
}

// fold33Sub is fold33 subtracted from b: y_q = b_q − (the row's lane sum).
func fold33Sub(s, b, y []float64, n int) {
	_, _ = b[3*n-1], y[3*n-1]
	for r := 0; r < n; r++ {
		p := s[Scratch33*r:][:Scratch33]
		y[3*r] = b[3*r] - (p[0] + p[1] + p[2])
		y[3*r+1] = b[3*r+1] - (p[3] + p[4] + p[5])
		y[3*r+2] = b[3*r+2] - (p[6] + p[7] + p[8])
	}
}

// foldPairsSub is foldPairs subtracted from b: y[q] = b[q] − (s[2q] + s[2q+1]).
func foldPairsSub(s, b, y []float64, m int) {
	_, _ = b[m-1], y[m-1]
	for q := 0; q < m; q++ {
		y[q] = b[q] - (s[2*q] + s[2*q+1])
	}
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
