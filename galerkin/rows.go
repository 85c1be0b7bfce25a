package galerkin

import "github.com/blockamg/blockamg/bsr"

// Row operations shared by the variants. The variants differ only in how they order,
// store and distribute these calls; the arithmetic of every block of W and Ac is the
// same sequence of kernel calls in all of them:
//
//	W(i,:)  = Σ_{j ∈ A row i, increasing} A(i,j)·P(j,:)
//	Ac(I,:) = Σ_{i ∈ Pᵀ row I, increasing} P(i,I)ᵀ·W(i,:)

// scratch is one worker's scratch space.
type scratch struct {
	pos   []int32       // column → slot map of the current W or Ac row (stale entries are never read)
	batch *batchScratch // fused variants: batched scatter, made on first use
}

// getScratch returns a scratch space from the plan's free list, or a new one. Numeric
// keeps them between calls (putScratch): on a coarse level a call lasts well under a
// millisecond, and fresh scratch memory, page faults included, would be a good part
// of it.
func (p *Plan) getScratch() *scratch {
	p.scratchMu.Lock()
	defer p.scratchMu.Unlock()
	if n := len(p.scratchFree); n > 0 {
		sc := p.scratchFree[n-1]
		p.scratchFree = p.scratchFree[:n-1]
		return sc
	}
	p.scratchAll = append(p.scratchAll, &scratch{pos: make([]int32, p.m)})
	return p.scratchAll[len(p.scratchAll)-1]
}

// putScratch returns sc to the plan's free list.
func (p *Plan) putScratch(sc *scratch) {
	p.scratchMu.Lock()
	p.scratchFree = append(p.scratchFree, sc)
	p.scratchMu.Unlock()
}

// scratchBytes returns the memory of the scratch spaces the plan keeps.
func (p *Plan) scratchBytes() int64 {
	p.scratchMu.Lock()
	defer p.scratchMu.Unlock()
	var b int64
	for _, sc := range p.scratchAll {
		b += int64(len(sc.pos)) * 4
		if bs := sc.batch; bs != nil {
			b += int64(len(bs.wbuf))*8 + int64(len(bs.head)+len(bs.tail))*4
		}
	}
	return b
}

// wRow computes W row i into out (its values in p.w's pattern order). With the
// symmetric half it leaves the blocks the half never reads zero (unreadBefore).
func (p *Plan) wRow(A, P *bsr.Matrix, i int, sc *scratch, out []float64) {
	bb, bk := int64(p.b*p.b), int64(p.b*p.k)
	pos := sc.pos
	for s, c := range p.w.colIdx[p.w.rowPtr[i]:p.w.rowPtr[i+1]] {
		pos[c] = int32(s)
	}
	clear(out)
	lo := p.unreadBefore(i)
	for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
		r0, r1 := pRowFrom(P, A.ColIdx[q], lo)
		if r0 == r1 {
			continue
		}
		p.kern.wAcc(A.Val[q*bb:(q+1)*bb], P.Val[r0*bk:r1*bk], P.ColIdx[r0:r1], pos, out)
	}
}

// unreadBefore returns, with the symmetric half, the first column of W row i that the
// half reads: it sums Ac(I,J) for J ≥ I only, so it reads W(i,J) only for J at least
// the first column of P row i (P's rows are sorted). The earlier blocks (ex56's fine
// level: 12% of A·P's products) are left zero; they never reach Ac. Without the half
// (or for an empty P row, whose W row nothing reads either) it returns 0.
func (p *Plan) unreadBefore(i int) int32 {
	if !p.sym || p.pPtr[i] == p.pPtr[i+1] {
		return 0
	}
	return p.pCol[p.pPtr[i]]
}

// pRowFrom returns the blocks of P row j whose column is at least lo (P's rows are
// sorted): the part of the row that W row i's product with A block (i, j) needs when
// lo is unreadBefore(i).
func pRowFrom(P *bsr.Matrix, j, lo int32) (r0, r1 int64) {
	r0, r1 = P.RowPtr[j], P.RowPtr[j+1]
	for r0 < r1 && P.ColIdx[r0] < lo {
		r0++
	}
	return r0, r1
}

// setAcPos makes sc.pos map the columns of Ac row I to their slots.
func (p *Plan) setAcPos(I int, sc *scratch) {
	for s, c := range p.Ac.ColIdx[p.Ac.RowPtr[I]:p.Ac.RowPtr[I+1]] {
		sc.pos[c] = int32(s)
	}
}

// acAdd adds P(i,I)ᵀ·W(i,:) to the values out of Ac row I, where q is P block (i, I),
// pv its values, wv W row i and sc.pos maps the columns of Ac row I (setAcPos); with
// the symmetric half, only W's blocks from column I on.
func (p *Plan) acAdd(q int64, i int, pv, wv []float64, sc *scratch, out []float64) {
	f := p.upperFrom(q)
	p.kern.acAcc(pv, wv[f*int64(p.b*p.k):], p.w.colIdx[p.w.rowPtr[i]+f:p.w.rowPtr[i+1]], sc.pos, out)
}

// firstFine returns the first fine row that contributes to Ac row I (Pᵀ row I is not
// empty when Ac row I has blocks). The fused variants zero an Ac row when that row's
// contribution arrives, which is always the row's first.
func (p *Plan) firstFine(I int) int { return int(p.pt.colIdx[p.pt.rowPtr[I]]) }

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
