package bsr

//go:generate go run gen_kernels.go

// Small dense block kernels shared by the sparse products here and in galerkin and amg.
// All arrays are row-major and every kernel accumulates into its output. Each output
// entry is summed in the same order (output value first, then the terms in increasing
// inner index) by the generic loops and by the unrolled shape-specific versions, so
// the two agree bitwise wherever the compiler does not fuse multiply-adds (amd64), and
// to rounding elsewhere.

// GemmAcc computes out += a·b where a is r×k, b is k×c and out is r×c.
func GemmAcc(r, k, c int, a, b, out []float64) {
	if len(a) < r*k || len(b) < k*c || len(out) < r*c {
		panic("bsr: GemmAcc: slice too short")
	}
	switch {
	case r == 3 && k == 3 && c == 6:
		gemm336(a, b, out)
		return
	case r == 6 && k == 3 && c == 6:
		gemm636(a, b, out)
		return
	case r == 3 && k == 6 && c == 6:
		gemm366(a, b, out)
		return
	case r == 6 && k == 6 && c == 6:
		gemm666(a, b, out)
		return
	}
	gemmGeneric(r, k, c, a, b, out)
}

// GemmFunc returns GemmAcc for the fixed shape r, k, c: the unrolled kernel where
// there is one, so that a loop over many blocks of one shape decides the shape once.
// The function panics when a slice is too short.
func GemmFunc(r, k, c int) func(a, b, out []float64) {
	switch {
	case r == 3 && k == 3 && c == 6:
		return gemm336
	case r == 6 && k == 3 && c == 6:
		return gemm636
	case r == 3 && k == 6 && c == 6:
		return gemm366
	case r == 6 && k == 6 && c == 6:
		return gemm666
	}
	return func(a, b, out []float64) { GemmAcc(r, k, c, a, b, out) }
}

// GemmTNFunc is GemmFunc for GemmTNAcc.
func GemmTNFunc(r, k, c int) func(a, b, out []float64) {
	switch {
	case r == 6 && k == 3 && c == 6:
		return gemmTN636
	case r == 6 && k == 6 && c == 6:
		return gemmTN666
	}
	return func(a, b, out []float64) { GemmTNAcc(r, k, c, a, b, out) }
}

func gemmGeneric(r, k, c int, a, b, out []float64) {
	for i := 0; i < r; i++ {
		ai := a[i*k : i*k+k]
		oi := out[i*c : i*c+c]
		for j := range oi {
			s := oi[j]
			for p, v := range ai {
				s += v * b[p*c+j]
			}
			oi[j] = s
		}
	}
}

// GemmTNAcc computes out += aᵀ·b where a is k×r (so aᵀ is r×k), b is k×c and out is
// r×c. It is the Pᵀ·W step of a Galerkin product without transposing P's blocks.
func GemmTNAcc(r, k, c int, a, b, out []float64) {
	if len(a) < k*r || len(b) < k*c || len(out) < r*c {
		panic("bsr: GemmTNAcc: slice too short")
	}
	switch {
	case r == 6 && k == 3 && c == 6:
		gemmTN636(a, b, out)
		return
	case r == 6 && k == 6 && c == 6:
		gemmTN666(a, b, out)
		return
	}
	gemmTNGeneric(r, k, c, a, b, out)
}

func gemmTNGeneric(r, k, c int, a, b, out []float64) {
	for i := 0; i < r; i++ {
		oi := out[i*c : i*c+c]
		for j := range oi {
			s := oi[j]
			for p := 0; p < k; p++ {
				s += a[p*r+i] * b[p*c+j]
			}
			oi[j] = s
		}
	}
}

// GemvAcc computes y += a·x where a is r×c, x has c entries and y has r.
func GemvAcc(r, c int, a, x, y []float64) {
	if len(a) < r*c || len(x) < c || len(y) < r {
		panic("bsr: GemvAcc: slice too short")
	}
	switch {
	case r == 3 && c == 3:
		gemv33(a, x, y)
		return
	case r == 6 && c == 6:
		gemv66(a, x, y)
		return
	case r == 3 && c == 6:
		gemv36(a, x, y)
		return
	case r == 6 && c == 3:
		gemv63(a, x, y)
		return
	}
	gemvGeneric(r, c, a, x, y)
}

func gemvGeneric(r, c int, a, x, y []float64) {
	x = x[:c]
	for i := 0; i < r; i++ {
		s := y[i]
		for j, v := range a[i*c : i*c+c] {
			s += v * x[j]
		}
		y[i] = s
	}
}

// GemvTAcc computes y += aᵀ·x where a is r×c, x has r entries and y has c.
func GemvTAcc(r, c int, a, x, y []float64) {
	if len(a) < r*c || len(x) < r || len(y) < c {
		panic("bsr: GemvTAcc: slice too short")
	}
	switch {
	case r == 3 && c == 3:
		gemvT33(a, x, y)
		return
	case r == 3 && c == 6:
		gemvT36(a, x, y)
		return
	case r == 6 && c == 6:
		gemvT66(a, x, y)
		return
	case r == 6 && c == 3:
		gemvT63(a, x, y)
		return
	}
	gemvTGeneric(r, c, a, x, y)
}

func gemvTGeneric(r, c int, a, x, y []float64) {
	y = y[:c]
	for j := range y {
		s := y[j]
		for i := 0; i < r; i++ {
			s += a[i*c+j] * x[i]
		}
		y[j] = s
	}
}
