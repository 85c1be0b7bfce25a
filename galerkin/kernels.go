package galerkin

// Block micro-kernels. Every kernel accumulates one output entry as
//
//	s := a[0]*b[0]; s += a[1]*b[1]; …; out += s
//
// (left to right over the inner dimension, then one addition into out), and the
// specialised kernels spell out exactly that order. All variants therefore round
// identically, which is what makes them agree bitwise with each other and not only
// across worker counts.

// gemmAcc computes out += a·b for a r×t, b t×c, out r×c, all row-major.
func gemmAcc(r, t, c int, a, b, out []float64) {
	a = a[:r*t]
	b = b[:t*c]
	out = out[:r*c]
	for i := 0; i < r; i++ {
		ai := a[i*t : i*t+t]
		for j := 0; j < c; j++ {
			s := ai[0] * b[j]
			for l := 1; l < t; l++ {
				s += ai[l] * b[l*c+j]
			}
			out[i*c+j] += s
		}
	}
}

// gemmTNAcc computes out += aᵀ·b for a t×r, b t×c, out r×c, all row-major.
func gemmTNAcc(r, t, c int, a, b, out []float64) {
	a = a[:t*r]
	b = b[:t*c]
	out = out[:r*c]
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s := a[i] * b[j]
			for l := 1; l < t; l++ {
				s += a[l*r+i] * b[l*c+j]
			}
			out[i*c+j] += s
		}
	}
}
