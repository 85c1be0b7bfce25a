package galerkin

import "blockamg/bsr"

// Row operations shared by the variants. The variants differ only in how they order,
// store and distribute these calls; the arithmetic of every block of W and Ac is the
// same sequence of kernel calls in all of them:
//
//	W(i,:)  = Σ_{j ∈ A row i, increasing} A(i,j)·P(j,:)
//	Ac(I,:) = Σ_{i ∈ Pᵀ row I, increasing} P(i,I)ᵀ·W(i,:)

// scratch is one worker's scratch space.
type scratch struct {
	pos  []int32   // column → slot map of the current W or Ac row (stale entries are never read)
	wrow []float64 // values of one W row (fused variants)
}

func (p *Plan) newScratch(withRow bool) *scratch {
	s := &scratch{pos: make([]int32, p.m)}
	if withRow {
		s.wrow = make([]float64, int64(p.stats.MaxRowW)*int64(p.b*p.k))
	}
	return s
}

// wRow computes W row i into out (its values in p.w's pattern order).
func (p *Plan) wRow(A, P *bsr.Matrix, i int, sc *scratch, out []float64) {
	bb, bk := int64(p.b*p.b), int64(p.b*p.k)
	pos := sc.pos
	for s, c := range p.w.colIdx[p.w.rowPtr[i]:p.w.rowPtr[i+1]] {
		pos[c] = int32(s)
	}
	clear(out)
	for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
		j := A.ColIdx[q]
		r0, r1 := P.RowPtr[j], P.RowPtr[j+1]
		if r0 == r1 {
			continue
		}
		p.kern.wAcc(A.Val[q*bb:(q+1)*bb], P.Val[r0*bk:r1*bk], P.ColIdx[r0:r1], pos, out)
	}
}

// setAcPos makes sc.pos map the columns of Ac row I to their slots.
func (p *Plan) setAcPos(I int, sc *scratch) {
	for s, c := range p.Ac.ColIdx[p.Ac.RowPtr[I]:p.Ac.RowPtr[I+1]] {
		sc.pos[c] = int32(s)
	}
}

// acAdd adds pv ᵀ·W(i,:) to the values out of Ac row I, where wv holds W row i and
// sc.pos maps the columns of Ac row I (setAcPos).
func (p *Plan) acAdd(i int, pv, wv []float64, sc *scratch, out []float64) {
	p.kern.acAcc(pv, wv, p.w.colIdx[p.w.rowPtr[i]:p.w.rowPtr[i+1]], sc.pos, out)
}

// acRowVals returns the values of Ac row I.
func (p *Plan) acRowVals(I int) []float64 {
	kk := int64(p.k * p.k)
	return p.Ac.Val[p.Ac.RowPtr[I]*kk : p.Ac.RowPtr[I+1]*kk]
}

// pBlock returns the values of P block q.
func (p *Plan) pBlock(P *bsr.Matrix, q int64) []float64 {
	bk := int64(p.b * p.k)
	return P.Val[q*bk : (q+1)*bk]
}
