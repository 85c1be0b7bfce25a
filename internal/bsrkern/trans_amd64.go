//go:build !noasm

package bsrkern

//go:noescape
func trans36(rowPtr *int64, colIdx *int32, val, x *float64, rows int, y *float64, ncols, nblk, clo, chi int, alpha float64) (bad int)

// transRows36 is TransRows36: it checks what Go can check (the row range against
// rowPtr and x, a non-negative first row pointer) and hands the kernel the bounds it
// checks itself (y's block columns, the blocks colIdx and val hold).
func transRows36(rowPtr []int64, colIdx []int32, val []float64, lo, hi int, alpha float64, x, y []float64, clo, chi int) {
	n := hi - lo
	if n <= 0 || clo >= chi {
		return
	}
	if !Enabled {
		panic("bsrkern: TransRows36 without the vector kernels")
	}
	_ = rowPtr[hi]
	_ = x[3*hi-1]
	if lo < 0 || rowPtr[lo] < 0 {
		panic("bsrkern: TransRows36: row pointer out of range")
	}
	nblk := min(len(colIdx), len(val)/18)
	var y0 [6]float64
	yp := &y0[0]
	if len(y) >= 6 {
		yp = &y[0]
	}
	if nblk == 0 {
		var cs [1]int32
		var v [18]float64
		checkTrans(trans36(&rowPtr[lo], &cs[0], &v[0], &x[3*lo], n, yp, len(y)/6, 0, clo, chi, alpha))
		return
	}
	checkTrans(trans36(&rowPtr[lo], &colIdx[0], &val[0], &x[3*lo], n, yp, len(y)/6, nblk, clo, chi, alpha))
}

// checkTrans turns trans36's bad status into the panic Go's own bounds checks would
// give.
func checkTrans(bad int) {
	switch bad {
	case 1:
		panic("bsrkern: TransRows36: block column out of range")
	case 2:
		panic("bsrkern: TransRows36: row pointer out of range")
	}
}
