package galerkin

import (
	"blockamg/bsr"
	"blockamg/internal/par"
)

// Fused row-wise variant. Fine rows are cut into one contiguous chunk per worker; a
// worker computes one W row at a time in a local buffer and scatters P(i,I)ᵀ·W(i,:)
// into the Ac rows I of P row i. W is never stored, except for the rows that would
// write to an Ac row some earlier chunk also writes to: those are deferred, their W
// rows kept in a buffer and added in a second parallel pass over the Ac rows
// concerned. Since an Ac row's contributions from its first chunk come first, and the
// deferred ones follow in increasing fine row, every Ac block is summed in increasing
// fine row as in the other variants, whatever the worker count.

// fusedSched is the worker-count dependent schedule of the fused row-wise variant.
type fusedSched struct {
	workers int
	bounds  []int   // fine row chunk c is bounds[c] … bounds[c+1]-1
	first   []int32 // chunk holding the first fine row of each Ac row (-1: empty row)
	// Deferred W rows: deferred row d is fine row defRow[d]; its W values sit at
	// defBuf[defOff[d]*b*k:…].
	defRow []int32
	defOff []int64
	defBuf []float64
	// rowDef[i] is the deferred index of fine row i or -1.
	rowDef []int32
	// Deferred contributions by Ac row: Ac rows defI[x] for x in range; their
	// contributions are defPtr[x] … defPtr[x+1]-1, each a (deferred row, P block).
	defI   []int32
	defPtr []int64
	defD   []int32
	defP   []int64
}

func (s *fusedSched) bytes() int64 {
	if s == nil {
		return 0
	}
	return int64(len(s.bounds))*8 + int64(len(s.first))*4 + int64(len(s.defRow))*4 +
		int64(len(s.defOff))*8 + int64(len(s.defBuf))*8 + int64(len(s.rowDef))*4 +
		int64(len(s.defI))*4 + int64(len(s.defPtr))*8 + int64(len(s.defD))*4 + int64(len(s.defP))*8
}

// chunkBounds cuts [0, n) into at most workers contiguous chunks of about equal weight
// (prefix is a prefix sum of per-row weights), with at least minWeight per chunk.
func chunkBounds(prefix []int64, workers int, minWeight int64) []int {
	n := len(prefix) - 1
	total := prefix[n] + int64(n)
	chunks := int(max(1, min(int64(workers), total/max(minWeight, 1))))
	bounds := make([]int, chunks+1)
	bounds[chunks] = n
	row := 0
	for c := 1; c < chunks; c++ {
		target := total * int64(c) / int64(chunks)
		for row < n && prefix[row]+int64(row) < target {
			row++
		}
		bounds[c] = row
	}
	return bounds
}

func (p *Plan) fusedSchedule(P *bsr.Matrix, workers int) *fusedSched {
	for _, s := range p.extra.fused {
		if s.workers == workers {
			return s
		}
	}
	s := &fusedSched{workers: workers, bounds: chunkBounds(p.work, workers, minChunkWork)}
	chunkOf := make([]int32, p.n)
	for c := 0; c+1 < len(s.bounds); c++ {
		for i := s.bounds[c]; i < s.bounds[c+1]; i++ {
			chunkOf[i] = int32(c)
		}
	}
	s.first = make([]int32, p.m)
	for I := 0; I < p.m; I++ {
		s.first[I] = -1
		if t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1] {
			s.first[I] = chunkOf[p.pt.colIdx[t]]
		}
	}
	s.rowDef = make([]int32, p.n)
	var off int64
	for i := 0; i < p.n; i++ {
		s.rowDef[i] = -1
		for q := P.RowPtr[i]; q < P.RowPtr[i+1]; q++ {
			if s.first[P.ColIdx[q]] != chunkOf[i] {
				s.rowDef[i] = int32(len(s.defRow))
				s.defRow = append(s.defRow, int32(i))
				s.defOff = append(s.defOff, off)
				off += p.w.rowPtr[i+1] - p.w.rowPtr[i]
				break
			}
		}
	}
	s.defBuf = make([]float64, off*int64(p.b*p.k))
	// Deferred contributions grouped by Ac row, in increasing fine row.
	for I := 0; I < p.m; I++ {
		start := len(s.defD)
		for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
			i := p.pt.colIdx[t]
			if chunkOf[i] != s.first[I] {
				s.defD = append(s.defD, s.rowDef[i])
				s.defP = append(s.defP, p.ptPerm[t])
			}
		}
		if len(s.defD) > start {
			if len(s.defI) == 0 {
				s.defPtr = append(s.defPtr, int64(start))
			}
			s.defI = append(s.defI, int32(I))
			s.defPtr = append(s.defPtr, int64(len(s.defD)))
		}
	}
	p.extra.fused = keep(p.extra.fused, s)
	return s
}

func (p *Plan) numericFusedRow(A, P *bsr.Matrix, workers int) {
	s := p.fusedSchedule(P, workers)
	bk := int64(p.b * p.k)
	chunks := len(s.bounds) - 1
	// Zero Ac first, in large contiguous pieces (streaming stores), before any
	// contribution: an Ac row is updated by several chunks.
	par.For(len(p.Ac.Val), workers, 1<<16, func(lo, hi int) { clear(p.Ac.Val[lo:hi]) })
	par.For(chunks, chunks, 1, func(clo, chi int) {
		sc := p.newScratch(true)
		for c := clo; c < chi; c++ {
			lo, hi := s.bounds[c], s.bounds[c+1]
			for i := lo; i < hi; i++ {
				nw := p.w.rowPtr[i+1] - p.w.rowPtr[i]
				wv := sc.wrow[:nw*bk]
				if d := s.rowDef[i]; d >= 0 {
					wv = s.defBuf[s.defOff[d]*bk : (s.defOff[d]+nw)*bk]
				}
				p.wRow(A, P, i, sc, wv)
				for q := P.RowPtr[i]; q < P.RowPtr[i+1]; q++ {
					I := int(P.ColIdx[q])
					if s.first[I] != int32(c) {
						continue
					}
					p.setAcPos(I, sc)
					p.acAdd(i, p.pBlock(P, q), wv, sc, p.acRowVals(I))
				}
			}
		}
	})
	if len(s.defI) == 0 {
		return
	}
	par.ForWeighted(s.defPtr, workers, minChunkWork/64, func(lo, hi int) {
		sc := p.newScratch(false)
		for x := lo; x < hi; x++ {
			I := int(s.defI[x])
			p.setAcPos(I, sc)
			out := p.acRowVals(I)
			for y := s.defPtr[x]; y < s.defPtr[x+1]; y++ {
				d := s.defD[y]
				i := int(s.defRow[d])
				nw := p.w.rowPtr[i+1] - p.w.rowPtr[i]
				p.acAdd(i, p.pBlock(P, s.defP[y]), s.defBuf[s.defOff[d]*bk:(s.defOff[d]+nw)*bk], sc, out)
			}
		}
	})
}
