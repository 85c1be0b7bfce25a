package galerkin

import (
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// numericTwoPass computes W = A·P into p.wVal (fine rows in parallel), then
// Ac = Pᵀ·W by coarse rows through the explicit Pᵀ pattern (coarse rows in parallel).
// Every block of W and of Ac is written by one goroutine, in a fixed order.
func (p *Plan) numericTwoPass(A, P *bsr.Matrix, workers int) {
	bk := int64(p.b * p.k)
	par.ForWeighted(p.work, workers, minChunkWork, func(lo, hi int) {
		sc := p.getScratch()
		defer p.putScratch(sc)
		for i := lo; i < hi; i++ {
			p.wRow(A, P, i, sc, p.wVal[p.w.rowPtr[i]*bk:p.w.rowPtr[i+1]*bk])
		}
	})
	par.ForWeighted(p.acWork, workers, minChunkWork/int64(p.b*p.k*p.k), func(lo, hi int) {
		sc := p.getScratch()
		defer p.putScratch(sc)
		for I := lo; I < hi; I++ {
			out := p.acRowVals(I)
			clear(out)
			p.setAcPos(I, sc)
			for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
				i := int(p.pt.colIdx[t])
				q := p.ptPerm[t]
				p.acAdd(q, i, p.pBlock(P, q), p.wVal[p.w.rowPtr[i]*bk:p.w.rowPtr[i+1]*bk], sc, out)
			}
		}
	})
}
