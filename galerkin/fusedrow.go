package galerkin

import (
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// Fused row-wise variant. Fine rows are cut into one contiguous chunk per worker; a
// worker computes W rows in a local buffer and scatters P(i,I)ᵀ·W(i,:) into the Ac
// rows I of P row i, a batch of rows at a time (fusedBatch). W is never stored, except for the rows that would
// write to an Ac row some earlier chunk also writes to: those are deferred, their W
// rows kept in a buffer and added in a second parallel pass over the Ac rows
// concerned. Since an Ac row's contributions from its first chunk come first, and the
// deferred ones follow in increasing fine row, every Ac block is summed in increasing
// fine row as in the other variants, whatever the worker count. An Ac row is zeroed
// when its first fine row's contribution arrives (always a direct one), while it comes
// into the cache anyway, rather than by a sweep of its own over Ac (on the fine level,
// Ac is far larger than the cache, so such a sweep would move it through memory
// twice). The chunks are cut by the work each leaves to the first pass (fusedSplit),
// the second pass by its block products.

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
	// defWork is the prefix sum over defI of the block products of the deferred
	// contributions: the second pass's load-balancing weights.
	defWork []int64
}

func (s *fusedSched) bytes() int64 {
	if s == nil {
		return 0
	}
	return int64(len(s.bounds))*8 + int64(len(s.first))*4 + int64(len(s.defRow))*4 +
		int64(len(s.defOff))*8 + int64(len(s.defBuf))*8 + int64(len(s.rowDef))*4 +
		int64(len(s.defI))*4 + int64(len(s.defPtr))*8 + int64(len(s.defD))*4 + int64(len(s.defP))*8 +
		int64(len(s.defWork))*8
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

// fusedSplit cuts the fine rows into at most workers chunks for fused-row and
// returns the bounds, the chunk of every fine row and, for every Ac row, the chunk
// that writes it directly (that of its first fine row; -1 for an empty Pᵀ row).
// Contributions P(i,I)ᵀ·W(i,:) with I written directly by another chunk than i's are
// deferred to the second pass, so a chunk's first-pass work is its W rows plus only
// its direct contributions. The cut is made twice: by the full work of every row,
// then by the first-pass work that cut leaves each row, which moves the bounds
// towards the later chunks (whose rows defer most). It also returns the
// multiply-adds of the first pass's longest chunk and of the second pass.
func fusedSplit(work, pPtr []int64, pCol []int32, pt, w *pattern, b, k, workers int, minWeight int64) (bounds []int, chunkOf, first []int32, pass1Max, pass2 int64) {
	n, m := len(work)-1, pt.rows
	bkk := int64(b * k * k)
	chunkOf = make([]int32, n)
	first = make([]int32, m)
	split := func(bounds []int) {
		for c := 0; c+1 < len(bounds); c++ {
			for i := bounds[c]; i < bounds[c+1]; i++ {
				chunkOf[i] = int32(c)
			}
		}
		for I := 0; I < m; I++ {
			first[I] = -1
			if t := pt.rowPtr[I]; t < pt.rowPtr[I+1] {
				first[I] = chunkOf[pt.colIdx[t]]
			}
		}
	}
	// direct returns the prefix sum of the first-pass work of every row, and the
	// second pass's work.
	direct := func() ([]int64, int64) {
		pre := make([]int64, n+1)
		var def int64
		for i := 0; i < n; i++ {
			cost := work[i+1] - work[i]
			pw := (w.rowPtr[i+1] - w.rowPtr[i]) * bkk
			for q := pPtr[i]; q < pPtr[i+1]; q++ {
				if first[pCol[q]] != chunkOf[i] {
					cost -= pw
					def += pw
				}
			}
			pre[i+1] = pre[i] + cost
		}
		return pre, def
	}
	bounds = chunkBounds(work, workers, minWeight)
	split(bounds)
	if len(bounds) > 2 {
		pre, _ := direct()
		bounds = chunkBounds(pre, len(bounds)-1, 1)
		split(bounds)
	}
	pre, def := direct()
	for c := 0; c+1 < len(bounds); c++ {
		pass1Max = max(pass1Max, pre[bounds[c+1]]-pre[bounds[c]])
	}
	return bounds, chunkOf, first, pass1Max, def
}

func (p *Plan) fusedSchedule(P *bsr.Matrix, workers int) *fusedSched {
	for _, s := range p.extra.fused {
		if s.workers == workers {
			return s
		}
	}
	s := &fusedSched{workers: workers}
	var chunkOf []int32
	s.bounds, chunkOf, s.first, _, _ = fusedSplit(p.work, P.RowPtr, P.ColIdx, p.pt, p.w, p.b, p.k, workers, minChunkWork)
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
		var prods int64
		for t := p.pt.rowPtr[I]; t < p.pt.rowPtr[I+1]; t++ {
			i := p.pt.colIdx[t]
			if chunkOf[i] != s.first[I] {
				s.defD = append(s.defD, s.rowDef[i])
				s.defP = append(s.defP, p.ptPerm[t])
				prods += p.w.rowPtr[i+1] - p.w.rowPtr[i]
			}
		}
		if len(s.defD) > start {
			if len(s.defI) == 0 {
				s.defPtr = append(s.defPtr, int64(start))
				s.defWork = append(s.defWork, 0)
			}
			s.defI = append(s.defI, int32(I))
			s.defPtr = append(s.defPtr, int64(len(s.defD)))
			s.defWork = append(s.defWork, s.defWork[len(s.defWork)-1]+prods)
		}
	}
	p.extra.fused = keep(p.extra.fused, s)
	return s
}

// fusedBatchBytes bounds the W values of the fine rows fused-row computes before it
// scatters them: a batch's W rows and the Ac rows they update stay in the private
// cache, and each Ac row is brought in once per batch instead of once per fine row.
const fusedBatchBytes = 96 << 10

// batchScratch is one worker's state for the batched scatter of the fused variants.
type batchScratch struct {
	// Which contributions a worker adds directly: fused-row, those to the Ac rows
	// whose first chunk is c (first != nil; the rest are deferred); fused-recompute,
	// those to its Ac rows lo … hi-1.
	first  []int32
	c      int32
	lo, hi int32

	wbuf    []float64 // W values of the batch's rows that are not deferred
	wv      [][]float64
	head    []int32 // by Ac row: first pair of the batch, -1 when none
	tail    []int32
	touched []int32 // Ac rows with pairs, in order of first touch
	pairRow []int32 // pair: fine row, P block, next pair of the same Ac row
	pairQ   []int64
	next    []int32
}

func (p *Plan) numericFusedRow(A, P *bsr.Matrix, workers int) {
	s := p.fusedSchedule(P, workers)
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
		bs.first = s.first
		for c := clo; c < chi; c++ {
			bs.c = int32(c)
			lo, hi := s.bounds[c], s.bounds[c+1]
			for i0 := lo; i0 < hi; {
				// The batch: rows i0 … i1-1 whose W rows fit capBlocks (at least one).
				i1, used := i0, int64(0)
				for i1 < hi {
					nw := p.w.rowPtr[i1+1] - p.w.rowPtr[i1]
					if i1 > i0 && used+nw > capBlocks {
						break
					}
					if s.rowDef[i1] < 0 {
						used += nw
					}
					i1++
				}
				p.fusedBatch(A, P, s, i0, i1, nil, sc, bs)
				i0 = i1
			}
		}
	})
	if len(s.defI) == 0 {
		return
	}
	par.ForWeighted(s.defWork, workers, minChunkWork/int64(p.k*p.k*p.b), func(lo, hi int) {
		sc := p.getScratch()
		defer p.putScratch(sc)
		for x := lo; x < hi; x++ {
			I := int(s.defI[x])
			p.setAcPos(I, sc)
			out := p.acRowVals(I)
			for y := s.defPtr[x]; y < s.defPtr[x+1]; y++ {
				d := s.defD[y]
				i := int(s.defRow[d])
				nw := p.w.rowPtr[i+1] - p.w.rowPtr[i]
				p.acAdd(s.defP[y], i, p.pBlock(P, s.defP[y]), s.defBuf[s.defOff[d]*bk:(s.defOff[d]+nw)*bk], sc, out)
			}
		}
	})
}

func (p *Plan) newBatchScratch(capBlocks int64) *batchScratch {
	bs := &batchScratch{
		wbuf: make([]float64, capBlocks*int64(p.b*p.k)),
		head: make([]int32, p.m),
		tail: make([]int32, p.m),
	}
	for I := range bs.head {
		bs.head[I] = -1
	}
	return bs
}

// fusedBatch computes the W rows of a batch of fine rows, i0 … i1-1 or rows[i0:i1]
// when rows is not nil (fused-row's deferred rows into their place in s.defBuf),
// then adds their direct contributions Ac row by Ac row, each row's in increasing
// fine row: the order, and so the rounding, of a row-at-a-time scatter.
func (p *Plan) fusedBatch(A, P *bsr.Matrix, s *fusedSched, i0, i1 int, rows []int32, sc *scratch, bs *batchScratch) {
	bk := int64(p.b * p.k)
	bs.wv = bs.wv[:0]
	bs.touched = bs.touched[:0]
	bs.pairRow, bs.pairQ, bs.next = bs.pairRow[:0], bs.pairQ[:0], bs.next[:0]
	var off int64
	for r := i0; r < i1; r++ {
		i := r
		if rows != nil {
			i = int(rows[r])
		}
		nw := p.w.rowPtr[i+1] - p.w.rowPtr[i]
		var wv []float64
		if s != nil && s.rowDef[i] >= 0 {
			d := s.rowDef[i]
			wv = s.defBuf[s.defOff[d]*bk : (s.defOff[d]+nw)*bk]
		} else {
			wv = bs.wbuf[off*bk : (off+nw)*bk]
			off += nw
		}
		p.wRow(A, P, i, sc, wv)
		bs.wv = append(bs.wv, wv)
		for q := P.RowPtr[i]; q < P.RowPtr[i+1]; q++ {
			I := P.ColIdx[q]
			if bs.first != nil {
				if bs.first[I] != bs.c {
					continue
				}
			} else if I < bs.lo || I >= bs.hi {
				continue
			}
			x := int32(len(bs.pairRow))
			bs.pairRow = append(bs.pairRow, int32(r-i0))
			bs.pairQ = append(bs.pairQ, q)
			bs.next = append(bs.next, -1)
			if bs.head[I] < 0 {
				bs.head[I] = x
				bs.touched = append(bs.touched, I)
			} else {
				bs.next[bs.tail[I]] = x
			}
			bs.tail[I] = x
		}
	}
	for _, I32 := range bs.touched {
		I := int(I32)
		p.setAcPos(I, sc)
		out := p.acRowVals(I)
		x := bs.head[I]
		for first := true; x >= 0; x, first = bs.next[x], false {
			r := int(bs.pairRow[x]) + i0
			i := r
			if rows != nil {
				i = int(rows[r])
			}
			if first && i == p.firstFine(I) {
				// The Ac row's first contribution: zero it now, while it comes into
				// the cache anyway, rather than in a sweep of its own.
				clear(out)
			}
			p.acAdd(bs.pairQ[x], i, p.pBlock(P, bs.pairQ[x]), bs.wv[r-i0], sc, out)
		}
		bs.head[I] = -1
	}
}
