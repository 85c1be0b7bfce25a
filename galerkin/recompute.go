package galerkin

import (
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Fused variant with recomputation. Coarse rows are cut into one contiguous chunk per
// worker; a worker walks, in increasing order, every fine row i whose P row touches
// one of its coarse rows, computes W(i,:) in a local buffer and adds P(i,I)ᵀ·W(i,:) to
// its own Ac rows I only (a batch of W rows at a time, as fused-row: fusedBatch). W rows needed by two chunks are computed by both; no Ac row
// is written by two workers and nothing is deferred.

// recomputeSched is the worker-count dependent schedule of the recompute variant.
type recomputeSched struct {
	workers int
	bounds  []int   // coarse row chunk c is bounds[c] … bounds[c+1]-1
	rowPtr  []int64 // fine rows of chunk c: rows[rowPtr[c]:rowPtr[c+1]], increasing
	rows    []int32
}

func (s *recomputeSched) bytes() int64 {
	if s == nil {
		return 0
	}
	return int64(len(s.bounds))*8 + int64(len(s.rowPtr))*8 + int64(len(s.rows))*4
}

func (p *Plan) recomputeSchedule(workers int) *recomputeSched {
	for _, s := range p.extra.recompute {
		if s.workers == workers {
			return s
		}
	}
	s := &recomputeSched{workers: workers, bounds: chunkBounds(p.coarseWork, workers, minChunkWork)}
	chunks := len(s.bounds) - 1
	s.rowPtr = make([]int64, chunks+1)
	mark := make([]bool, p.n)
	for c := 0; c < chunks; c++ {
		lo, hi := s.bounds[c], s.bounds[c+1]
		clear(mark)
		// The fine rows of the chunk are the union of its Pᵀ rows; mark them, then
		// collect in increasing order from the smallest to the largest marked row.
		minI, maxI := p.n, -1
		for t := p.pt.rowPtr[lo]; t < p.pt.rowPtr[hi]; t++ {
			i := int(p.pt.colIdx[t])
			mark[i] = true
			minI, maxI = min(minI, i), max(maxI, i)
		}
		for i := minI; i <= maxI; i++ {
			if mark[i] {
				s.rows = append(s.rows, int32(i))
			}
		}
		s.rowPtr[c+1] = int64(len(s.rows))
	}
	p.extra.recompute = keep(p.extra.recompute, s)
	return s
}

func (p *Plan) numericRecompute(A, P *bsr.Matrix, workers int) {
	s := p.recomputeSchedule(workers)
	bk := int64(p.b * p.k)
	chunks := len(s.bounds) - 1
	capBlocks := max(int64(p.stats.MaxRowW), fusedBatchBytes/(8*bk))
	par.For(chunks, chunks, 1, func(clo, chi int) {
		sc := p.getScratch()
		defer p.putScratch(sc)
		if sc.batch == nil {
			sc.batch = p.newBatchScratch(capBlocks)
		}
		bs := sc.batch
		for c := clo; c < chi; c++ {
			bs.lo, bs.hi = int32(s.bounds[c]), int32(s.bounds[c+1])
			rows := s.rows[s.rowPtr[c]:s.rowPtr[c+1]]
			for r0 := 0; r0 < len(rows); {
				r1, used := r0, int64(0)
				for r1 < len(rows) {
					i := rows[r1]
					nw := p.w.rowPtr[i+1] - p.w.rowPtr[i]
					if r1 > r0 && used+nw > capBlocks {
						break
					}
					used += nw
					r1++
				}
				p.fusedBatch(A, P, nil, r0, r1, rows, sc, bs)
				r0 = r1
			}
		}
	})
}
