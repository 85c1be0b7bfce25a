package filter

// The dense kernels of Numeric: Y = E·M⁻¹ through the packed Cholesky factor, and
// out += Y·B_cJᵀ. The k = 6 versions (rigid-body modes in 3D, the case that matters)
// are unrolled with array pointers so that they run without bounds checks; they add in
// the same order as the generic loops, so the two give the same bits on amd64 (tested).

// solveRows computes y = M⁻¹·e for each of the r rows of e (r×k) into y, from the
// packed factor of cholesky: L·w = e forward, then Lᵀ·y = w backward (w kept in y).
func solveRows(r, k int, L, e, y []float64) {
	for q := 0; q < r; q++ {
		eq, yq := e[q*k:(q+1)*k], y[q*k:(q+1)*k]
		for i := 0; i < k; i++ {
			ri := i * (i + 1) / 2
			s := eq[i]
			for l := 0; l < i; l++ {
				s -= L[ri+l] * yq[l]
			}
			yq[i] = s * L[ri+i]
		}
		for i := k - 1; i >= 0; i-- {
			s := yq[i]
			for l := i + 1; l < k; l++ {
				s -= L[l*(l+1)/2+i] * yq[l]
			}
			yq[i] = s * L[i*(i+1)/2+i]
		}
	}
}

// gemmNTAcc computes out += y·bᵀ where y is r×k, b is k×k and out is r×k.
func gemmNTAcc(r, k int, y, b, out []float64) {
	for i := 0; i < r; i++ {
		yi := y[i*k : (i+1)*k]
		oi := out[i*k : (i+1)*k]
		for c := 0; c < k; c++ {
			bc := b[c*k : (c+1)*k]
			s := 0.0
			for l, v := range yi {
				s += v * bc[l]
			}
			oi[c] += s
		}
	}
}

// solve6 is solveRows for k = 6.
func solve6(r int, L, e, y []float64) {
	F := (*[21]float64)(L)
	for q := 0; q < r; q++ {
		E := (*[6]float64)(e[q*6:])
		Y := (*[6]float64)(y[q*6:])
		w0 := E[0] * F[0]
		w1 := (E[1] - F[1]*w0) * F[2]
		w2 := (E[2] - F[3]*w0 - F[4]*w1) * F[5]
		w3 := (E[3] - F[6]*w0 - F[7]*w1 - F[8]*w2) * F[9]
		w4 := (E[4] - F[10]*w0 - F[11]*w1 - F[12]*w2 - F[13]*w3) * F[14]
		w5 := (E[5] - F[15]*w0 - F[16]*w1 - F[17]*w2 - F[18]*w3 - F[19]*w4) * F[20]
		y5 := w5 * F[20]
		y4 := (w4 - F[19]*y5) * F[14]
		y3 := (w3 - F[13]*y4 - F[18]*y5) * F[9]
		y2 := (w2 - F[8]*y3 - F[12]*y4 - F[17]*y5) * F[5]
		y1 := (w1 - F[4]*y2 - F[7]*y3 - F[11]*y4 - F[16]*y5) * F[2]
		y0 := (w0 - F[1]*y1 - F[3]*y2 - F[6]*y3 - F[10]*y4 - F[15]*y5) * F[0]
		Y[0], Y[1], Y[2], Y[3], Y[4], Y[5] = y0, y1, y2, y3, y4, y5
	}
}

// gemmNT6Acc is gemmNTAcc for k = 6.
func gemmNT6Acc(r int, y, b, out []float64) {
	B := (*[36]float64)(b)
	for i := 0; i < r; i++ {
		Y := (*[6]float64)(y[i*6:])
		O := (*[6]float64)(out[i*6:])
		y0, y1, y2, y3, y4, y5 := Y[0], Y[1], Y[2], Y[3], Y[4], Y[5]
		O[0] += 0 + y0*B[0] + y1*B[1] + y2*B[2] + y3*B[3] + y4*B[4] + y5*B[5]
		O[1] += 0 + y0*B[6] + y1*B[7] + y2*B[8] + y3*B[9] + y4*B[10] + y5*B[11]
		O[2] += 0 + y0*B[12] + y1*B[13] + y2*B[14] + y3*B[15] + y4*B[16] + y5*B[17]
		O[3] += 0 + y0*B[18] + y1*B[19] + y2*B[20] + y3*B[21] + y4*B[22] + y5*B[23]
		O[4] += 0 + y0*B[24] + y1*B[25] + y2*B[26] + y3*B[27] + y4*B[28] + y5*B[29]
		O[5] += 0 + y0*B[30] + y1*B[31] + y2*B[32] + y3*B[33] + y4*B[34] + y5*B[35]
	}
}
