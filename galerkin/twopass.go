package galerkin

import (
	"blockamg/bsr"
	"blockamg/internal/par"
)

// numericTwoPass computes W = A·P into p.wVal (fine rows in parallel), then
// Ac = Pᵀ·W by coarse rows through the explicit Pᵀ pattern (coarse rows in parallel).
// Every block of W and of Ac is written by one goroutine, in a fixed order.
func (p *Plan) numericTwoPass(A, P *bsr.Matrix, workers int) {
	par.ForWeighted(A.RowPtr, workers, 1024, func(lo, hi int) {
		pos := newPos(p.m)
		for i := lo; i < hi; i++ {
			p.wRow(A, P, i, pos, p.wVal[p.w.rowPtr[i]*int64(p.b*p.k):p.w.rowPtr[i+1]*int64(p.b*p.k)])
		}
	})
	par.ForWeighted(p.pt.rowPtr, workers, 256, func(lo, hi int) {
		pos := newPos(p.m)
		for I := lo; I < hi; I++ {
			p.acRowFromW(P, I, pos, p.wVal)
		}
	})
}

// newPos returns a column → slot map for one worker, all entries -1.
func newPos(m int) []int32 {
	pos := make([]int32, m)
	for i := range pos {
		pos[i] = -1
	}
	return pos
}

// wRow computes W row i = Σ_j A(i,j)·P(j,:) into out (the values of W row i, in the
// order of p.w's pattern), in increasing j. pos is a scratch column → slot map, all -1
// on entry and on return.
func (p *Plan) wRow(A, P *bsr.Matrix, i int, pos []int32, out []float64) {
	b, k := p.b, p.k
	bk := b * k
	w0, w1 := p.w.rowPtr[i], p.w.rowPtr[i+1]
	wcol := p.w.colIdx[w0:w1]
	for s, c := range wcol {
		pos[c] = int32(s)
	}
	clear(out)
	for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
		j := A.ColIdx[q]
		a := A.Val[q*int64(b*b) : (q+1)*int64(b*b)]
		for r := P.RowPtr[j]; r < P.RowPtr[j+1]; r++ {
			s := int(pos[P.ColIdx[r]])
			gemmAcc(b, b, k, a, P.Val[r*int64(bk):(r+1)*int64(bk)], out[s*bk:(s+1)*bk])
		}
	}
	for _, c := range wcol {
		pos[c] = -1
	}
}

// acRowFromW computes Ac row I = Σ_{i ∈ Pᵀ row I} P(i,I)ᵀ·W(i,:) in increasing i,
// reading W from wVal (stored in p.w's pattern).
func (p *Plan) acRowFromW(P *bsr.Matrix, I int, pos []int32, wVal []float64) {
	b, k := p.b, p.k
	bk, kk := b*k, k*k
	a0, a1 := p.Ac.RowPtr[I], p.Ac.RowPtr[I+1]
	acol := p.Ac.ColIdx[a0:a1]
	out := p.Ac.Val[a0*int64(kk) : a1*int64(kk)]
	for s, c := range acol {
		pos[c] = int32(s)
	}
	clear(out)
	for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
		i := p.pt.colIdx[t]
		pb := p.ptPerm[t]
		pv := P.Val[pb*int64(bk) : (pb+1)*int64(bk)]
		for q := p.w.rowPtr[i]; q < p.w.rowPtr[i+1]; q++ {
			s := int(pos[p.w.colIdx[q]])
			gemmTNAcc(k, b, k, pv, wVal[q*int64(bk):(q+1)*int64(bk)], out[s*kk:(s+1)*kk])
		}
	}
	for _, c := range acol {
		pos[c] = -1
	}
}
