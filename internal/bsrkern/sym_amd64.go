//go:build !noasm

package bsrkern

import "fmt"

//go:noescape
func sym33(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int, acc *float64, row0, base, khi int) (bad int)

//go:noescape
func sym66(rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int, acc *float64, row0, base, khi int) (bad int)

// symRows is SymRows: it checks what Go can check (the row range against rowPtr and
// x, the lengths of y, scratch and acc, a non-negative first row pointer) and hands
// the kernel the bounds it checks itself.
func symRows(b int, rowPtr []int64, colIdx []int32, val []float64, lo, hi int, x, y, scratch, acc []float64, base, khi int) {
	n := hi - lo
	if n <= 0 {
		return
	}
	if !HasSym(b) {
		panic(fmt.Sprintf("bsrkern: SymRows: no vector kernel for %d×%d blocks here", b, b))
	}
	lanes := Scratch66
	if b == 3 {
		lanes = Scratch33
	}
	_ = rowPtr[hi]
	_ = y[b*n-1]
	_ = x[b*hi-1] // the rows' own entries x_i
	s := scratch[:lanes*n]
	if lo < 0 || rowPtr[lo] < 0 {
		panic("bsrkern: SymRows: row pointer out of range")
	}
	if base < 0 || khi < base || len(acc) < AccStride(b)*(khi-base) {
		panic("bsrkern: SymRows: accumulators out of range")
	}
	var a0 [6]float64
	ap := &a0[0]
	if len(acc) > 0 {
		ap = &acc[0]
	}
	nblk := min(len(colIdx), len(val)/(b*b))
	if nblk == 0 {
		var cs [1]int32
		var v [36]float64
		checkSym(symKernel(b, &rowPtr[lo], &cs[0], &v[0], &x[0], n, &s[0], 0, 0, ap, lo, base, base))
	} else {
		checkSym(symKernel(b, &rowPtr[lo], &colIdx[0], &val[0], &x[0], n, &s[0], len(x)/b, nblk, ap, lo, base, khi))
	}
	if b == 3 {
		fold33(s, y, n)
	} else {
		foldPairs(s, y, b*n)
	}
}

// checkSym is check with the symmetric kernels' own status: 3 when a row's first
// block is not its diagonal.
func checkSym(bad int) {
	if bad == 3 {
		panic("bsrkern: SymRows: a row's first block is not its diagonal")
	}
	check(bad)
}

func symKernel(b int, rowPtr *int64, colIdx *int32, val, x *float64, rows int, out *float64, ncols, nblk int, acc *float64, row0, base, khi int) int {
	if b == 3 {
		return sym33(rowPtr, colIdx, val, x, rows, out, ncols, nblk, acc, row0, base, khi)
	}
	return sym66(rowPtr, colIdx, val, x, rows, out, ncols, nblk, acc, row0, base, khi)
}
