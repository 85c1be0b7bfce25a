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

// kern336Go is the pure Go kern336: a is 3×3 (row-major, held in registers), src_q is
// the 3×6 slab src[q*srcStride+srcOff:][:18] and its product goes to
// out[s*outStride+outOff:][:18], s = pos[cols[q]] (cols[q] when pos is nil). Each
// output entry is updated as o += (a0*b0 + a1*b1) + a2*b2, the generic kernels' order.
func kern336Go(a *[9]float64, src []float64, srcStride, srcOff int, cols, pos []int32, out []float64, outStride, outOff int) {
	a0, a1, a2 := a[0], a[1], a[2]
	a3, a4, a5 := a[3], a[4], a[5]
	a6, a7, a8 := a[6], a[7], a[8]
	for q, s := range cols {
		if pos != nil {
			s = pos[s]
		}
		b := (*[18]float64)(src[q*srcStride+srcOff:])
		o := (*[18]float64)(out[int(s)*outStride+outOff:])
		{
			b0, b1, b2 := b[0], b[6], b[12]
			o[0] += a0*b0 + a1*b1 + a2*b2
			o[6] += a3*b0 + a4*b1 + a5*b2
			o[12] += a6*b0 + a7*b1 + a8*b2
		}
		{
			b0, b1, b2 := b[1], b[7], b[13]
			o[1] += a0*b0 + a1*b1 + a2*b2
			o[7] += a3*b0 + a4*b1 + a5*b2
			o[13] += a6*b0 + a7*b1 + a8*b2
		}
		{
			b0, b1, b2 := b[2], b[8], b[14]
			o[2] += a0*b0 + a1*b1 + a2*b2
			o[8] += a3*b0 + a4*b1 + a5*b2
			o[14] += a6*b0 + a7*b1 + a8*b2
		}
		{
			b0, b1, b2 := b[3], b[9], b[15]
			o[3] += a0*b0 + a1*b1 + a2*b2
			o[9] += a3*b0 + a4*b1 + a5*b2
			o[15] += a6*b0 + a7*b1 + a8*b2
		}
		{
			b0, b1, b2 := b[4], b[10], b[16]
			o[4] += a0*b0 + a1*b1 + a2*b2
			o[10] += a3*b0 + a4*b1 + a5*b2
			o[16] += a6*b0 + a7*b1 + a8*b2
		}
		{
			b0, b1, b2 := b[5], b[11], b[17]
			o[5] += a0*b0 + a1*b1 + a2*b2
			o[11] += a3*b0 + a4*b1 + a5*b2
			o[17] += a6*b0 + a7*b1 + a8*b2
		}
	}
}

// blockKernels are the two block operations of the numeric phase for one (b, k) shape.
// Every variant calls these and only these, so all variants round identically. Output
// block q goes to slot pos[cols[q]] of out, or cols[q] when pos is nil (precomputed
// slots).
type blockKernels struct {
	// wAcc adds a·src_q (b×b · b×k) into the b×k output blocks, for each q.
	wAcc func(a, src []float64, cols, pos []int32, out []float64)
	// acAcc adds pᵀ·src_q ((b×k)ᵀ · b×k) into the k×k output blocks, for each q.
	acAcc func(p, src []float64, cols, pos []int32, out []float64)
	name  string
}

// kernelsFor returns the specialised kernels for (3, 6) and (6, 6) and generic ones
// otherwise.
func kernelsFor(b, k int) blockKernels {
	switch {
	case b == 3 && k == 6:
		return blockKernels{wAcc: wAcc36, acAcc: acAcc36, name: "3×3·3×6"}
	case b == 6 && k == 6:
		return blockKernels{wAcc: wAcc66, acAcc: acAcc66, name: "6×6·6×6"}
	}
	bb, bk, kk := b*b, b*k, k*k
	return blockKernels{
		wAcc: func(a, src []float64, cols, pos []int32, out []float64) {
			a = a[:bb]
			for q, s := range cols {
				if pos != nil {
					s = pos[s]
				}
				gemmAcc(b, b, k, a, src[q*bk:(q+1)*bk], out[int(s)*bk:(int(s)+1)*bk])
			}
		},
		acAcc: func(p, src []float64, cols, pos []int32, out []float64) {
			p = p[:bk]
			for q, s := range cols {
				if pos != nil {
					s = pos[s]
				}
				gemmTNAcc(k, b, k, p, src[q*bk:(q+1)*bk], out[int(s)*kk:(int(s)+1)*kk])
			}
		},
		name: "generic",
	}
}

// slotPiece is how many output slots the multi-sweep kernels translate at a time.
const slotPiece = 64

// slotsOf returns the output slots of the first blocks of cols, at most slotPiece of
// them: pos[cols[q]] translated into buf, or cols itself when pos is nil (slots
// precomputed). Kernels that sweep the same blocks several times (a 6×6 product is
// four 3×3 sweeps, the 3×6 Ac product two) look each slot up once instead of once per
// sweep. A piece's blocks go to distinct slots, so cutting the sweeps into pieces
// changes no output entry's order of additions.
func slotsOf(buf *[slotPiece]int32, cols, pos []int32) []int32 {
	c := cols[:min(len(cols), slotPiece)]
	if pos == nil {
		return c
	}
	slots := buf[:len(c)]
	for q, j := range c {
		slots[q] = pos[j]
	}
	return slots
}

func wAcc36(a, src []float64, cols, pos []int32, out []float64) {
	kern336((*[9]float64)(a), src, 18, 0, cols, pos, out, 18, 0)
}

// acAcc36: Pᵀ is 6×3; its rows 3h…3h+2 form the 3×3 register block (transposed
// columns of p) that multiplies each 3×6 W block into rows 3h…3h+2 of the 6×6 output.
func acAcc36(p, src []float64, cols, pos []int32, out []float64) {
	P := (*[18]float64)(p)
	var as [2][9]float64
	for h := 0; h < 2; h++ {
		c := 3 * h
		a := [9]float64{
			P[c], P[6+c], P[12+c],
			P[c+1], P[6+c+1], P[12+c+1],
			P[c+2], P[6+c+2], P[12+c+2],
		}
		as[h] = a
	}
	var buf [slotPiece]int32
	for len(cols) > 0 {
		slots := slotsOf(&buf, cols, pos)
		kern336(&as[0], src, 18, 0, slots, nil, out, 36, 0)
		kern336(&as[1], src, 18, 0, slots, nil, out, 36, 18)
		cols = cols[len(slots):]
		src = src[len(slots)*18:]
	}
}

// wAcc66 splits the 6×6 A block into four 3×3 blocks: output rows 3rh… receive
// A[rh][lh]·src rows 3lh… for lh = 0 then 1.
func wAcc66(a, src []float64, cols, pos []int32, out []float64) {
	A := (*[36]float64)(a)
	var s [4][9]float64 // s[2rh+lh]
	for rh := 0; rh < 2; rh++ {
		for lh := 0; lh < 2; lh++ {
			r, l := 3*rh, 3*lh
			s[2*rh+lh] = [9]float64{
				A[r*6+l], A[r*6+l+1], A[r*6+l+2],
				A[(r+1)*6+l], A[(r+1)*6+l+1], A[(r+1)*6+l+2],
				A[(r+2)*6+l], A[(r+2)*6+l+1], A[(r+2)*6+l+2],
			}
		}
	}
	sweepRow66(&s, src, cols, pos, out)
}

// sweepRow66 runs sweep66 over a whole source row (columns cols, 6×6 blocks in src),
// its output slots looked up in pos a piece at a time.
func sweepRow66(s *[4][9]float64, src []float64, cols, pos []int32, out []float64) {
	var buf [slotPiece]int32
	for len(cols) > 0 {
		slots := slotsOf(&buf, cols, pos)
		sweep66(s, src, slots, out)
		cols = cols[len(slots):]
		src = src[len(slots)*36:]
	}
}

// sweep66 runs the four 3×3 sweeps of a 6×6 product, s[2rh+lh] times source rows
// 3lh… into output rows 3rh…, lh = 0 before lh = 1 for each rh.
func sweep66(s *[4][9]float64, src []float64, slots []int32, out []float64) {
	kern336(&s[0], src, 36, 0, slots, nil, out, 36, 0)
	kern336(&s[1], src, 36, 18, slots, nil, out, 36, 0)
	kern336(&s[2], src, 36, 0, slots, nil, out, 36, 18)
	kern336(&s[3], src, 36, 18, slots, nil, out, 36, 18)
}

// acAcc66: output rows 3rh… receive (P[3lh…][3rh…])ᵀ·src rows 3lh… for lh = 0 then 1.
func acAcc66(p, src []float64, cols, pos []int32, out []float64) {
	P := (*[36]float64)(p)
	var s [4][9]float64
	for rh := 0; rh < 2; rh++ {
		for lh := 0; lh < 2; lh++ {
			r, l := 3*rh, 3*lh
			s[2*rh+lh] = [9]float64{
				P[l*6+r], P[(l+1)*6+r], P[(l+2)*6+r],
				P[l*6+r+1], P[(l+1)*6+r+1], P[(l+2)*6+r+1],
				P[l*6+r+2], P[(l+1)*6+r+2], P[(l+2)*6+r+2],
			}
		}
	}
	sweepRow66(&s, src, cols, pos, out)
}
