package galerkin

import (
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Inspector–executor variant. Symbolic records, in the order the numeric phase
// consumes them, the output slot of every block product: for W, the slot in W row i of
// each block of P row j, for every A block (i, j) in storage order; for Ac, the slot in
// Ac row I of each block of W row i, for every Pᵀ entry (I, i) in storage order. The
// numeric phase is then the two-pass product streaming through these lists, with no
// column map and no search. W is stored as in two-pass.

type inspectorData struct {
	wSlotStart  []int64 // by fine row: first W slot entry of the row's A blocks
	wSlots      []int32
	acSlotStart []int64 // by coarse row: first Ac slot entry of the row's Pᵀ entries
	acSlots     []int32
}

func (d *inspectorData) bytes() int64 {
	if d == nil {
		return 0
	}
	return int64(len(d.wSlotStart)+len(d.acSlotStart))*8 + int64(len(d.wSlots)+len(d.acSlots))*4
}

func (p *Plan) buildInspector(A, P *bsr.Matrix) {
	d := &inspectorData{wSlotStart: make([]int64, p.n+1), acSlotStart: make([]int64, p.m+1)}
	for i := 0; i < p.n; i++ {
		var c int64
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := A.ColIdx[q]
			c += P.RowPtr[j+1] - P.RowPtr[j]
		}
		d.wSlotStart[i+1] = d.wSlotStart[i] + c
	}
	for I := 0; I < p.m; I++ {
		var c int64
		for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
			i := p.pt.colIdx[t]
			c += p.w.rowPtr[i+1] - p.w.rowPtr[i]
		}
		d.acSlotStart[I+1] = d.acSlotStart[I] + c
	}
	d.wSlots = make([]int32, d.wSlotStart[p.n])
	d.acSlots = make([]int32, d.acSlotStart[p.m])
	par.ForWeighted(p.work, 0, minChunkWork, func(lo, hi int) {
		pos := make([]int32, p.m)
		for i := lo; i < hi; i++ {
			for s, c := range p.w.colIdx[p.w.rowPtr[i]:p.w.rowPtr[i+1]] {
				pos[c] = int32(s)
			}
			x := d.wSlotStart[i]
			for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
				j := A.ColIdx[q]
				for _, c := range P.ColIdx[P.RowPtr[j]:P.RowPtr[j+1]] {
					d.wSlots[x] = pos[c]
					x++
				}
			}
		}
	})
	par.ForWeighted(d.acSlotStart, 0, minChunkWork, func(lo, hi int) {
		pos := make([]int32, p.m)
		for I := lo; I < hi; I++ {
			for s, c := range p.Ac.ColIdx[p.Ac.RowPtr[I]:p.Ac.RowPtr[I+1]] {
				pos[c] = int32(s)
			}
			x := d.acSlotStart[I]
			for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
				i := p.pt.colIdx[t]
				for _, c := range p.w.colIdx[p.w.rowPtr[i]:p.w.rowPtr[i+1]] {
					d.acSlots[x] = pos[c]
					x++
				}
			}
		}
	})
	p.extra.insp = d
	p.wVal = make([]float64, p.w.nnz()*int64(p.b*p.k))
}

func (p *Plan) numericInspector(A, P *bsr.Matrix, workers int) {
	d := p.extra.insp
	bb, bk := int64(p.b*p.b), int64(p.b*p.k)
	par.ForWeighted(p.work, workers, minChunkWork, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out := p.wVal[p.w.rowPtr[i]*bk : p.w.rowPtr[i+1]*bk]
			clear(out)
			x := d.wSlotStart[i]
			lo := p.unreadBefore(i)
			for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
				j := A.ColIdx[q]
				s, r1 := pRowFrom(P, j, lo)
				skip := s - P.RowPtr[j] // the row's slots start at x with its first block
				p.kern.wAcc(A.Val[q*bb:(q+1)*bb], P.Val[s*bk:r1*bk], d.wSlots[x+skip:x+skip+r1-s], nil, out)
				x += skip + r1 - s
			}
		}
	})
	par.ForWeighted(d.acSlotStart, workers, minChunkWork, func(lo, hi int) {
		for I := lo; I < hi; I++ {
			out := p.acRowVals(I)
			clear(out)
			x := d.acSlotStart[I]
			for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
				i := p.pt.colIdx[t]
				w0, w1 := p.w.rowPtr[i], p.w.rowPtr[i+1]
				f := p.upperFrom(p.ptPerm[t]) // the symmetric half: W's blocks from column I on
				p.kern.acAcc(p.pBlock(P, p.ptPerm[t]), p.wVal[(w0+f)*bk:w1*bk], d.acSlots[x+f:x+w1-w0], nil, out)
				x += w1 - w0
			}
		}
	})
}
