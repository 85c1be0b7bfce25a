package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/galerkin"
	"github.com/blockamg/blockamg/internal/par"
)

// hostSchedule is the host side of the symbolic phase.
type hostSchedule struct {
	wrp       []int64 // W row pointers
	wcol      []int32
	wrow      []int32 // fine row of each W block
	wptr      []int64 // per W block, start of its products in wlist
	wlist     []uint32
	ptrp      []int64 // Pᵀ row pointers
	ptidx     []int64 // P block index of each Pᵀ entry
	ptrow     []int32 // fine row of each Pᵀ entry
	acrp      []int64
	accol     []int32
	acrow     []int32
	acptr     []int64
	aclist    []uint32
	prodFused int64
	wabs      []int32 // (A block, P block) per W product, global indices
	acabs     []int32 // (P block, W block) per Ac product, global indices
	// tc-rows slot words (nil when a row is longer than 256 blocks): byte u of word
	// wsw0[i] + (words of the earlier A blocks of row i) + q is the position in W row
	// i of the product with P block 8q+u of the A block's P row; likewise aslw/asw0
	// with Pᵀ row I's entries, W row blocks and Ac row I positions.
	wsw0, wslw, asw0, aslw []int64
	rewalkW16, rewalkAc16  int64
	// smem-rows windows, (row, first slot) pairs, and the A blocks (Pᵀ entries) their
	// windows beyond the first walk again.
	wwin, acwin               []int32
	smemRewalkW, smemRewalkAc int64
	// smem-tiles: per tile its first fine row (and one past the last) and first run,
	// the runs (first P block, count) it stages, and per A·P product (in wlist's
	// order) its tile-local A block << 16 | tile-local P block; nil when not offered.
	trow, trun, truns []int32
	tlist             []uint32
	tileBlocks        int64
	tks               []int32 // between tileCut and tileLists: the P rows each tile stages
	tkp               []int
	// tc-pairs (galerkin_pairs.go): per pair entry its W blocks and first product, per
	// product its two A blocks and P block; −1 for an absent block.
	pw, plist []int32
	pwptr     []int64
	// Between pairCounts and pairLists: each fine-row pair's first entry and product.
	pairEnt, pairProd []int64
	// wSkip (symmetric plans, galerkin_sym.go): per W block, whether the symmetric
	// half of Pᵀ·W never reads it, so tc-pairs and tc-block need not compute it; nil:
	// all are read. wsel: the others in slot order, tc-block's list of W blocks (fill).
	wSkip []bool
	wsel  []int32
	// wslot (fill, when a plan runs the half): per W block its place in W's values
	// for the variants that run the half (halfSlots); nil: every block at its index.
	wslot []int32
	// The symmetric half (galerkin_sym.go): per upper Ac block its index and mirror,
	// its first product and the (P block, W block) pairs of its products.
	acsel, acabsU []int32
	acptrU        []int64
}

// galerkinSchedule computes, on the host, the patterns of W = A·P and Ac = PᵀW, Pᵀ,
// and the two packed product lists (see kernels/galerkin.cu). Rows are processed in
// parallel; every output is independent of the worker count.
func galerkinSchedule(A, P *bsr.Matrix) (*hostSchedule, error) {
	n, m := A.BlockRows, P.BlockCols
	s := &hostSchedule{}
	rowLen := func(rp []int64, i int) int64 { return rp[i+1] - rp[i] }
	for i := 0; i < n; i++ {
		if rowLen(A.RowPtr, i) > 1<<16 || rowLen(P.RowPtr, i) > 1<<16 {
			return nil, fmt.Errorf("%w: block row %d of A or P", ErrGalerkinSchedule, i)
		}
	}
	const grain = 256
	// W pattern: row i is the union of P rows j over A row i, sorted (galerkin's
	// symbolic product, the same patterns as the CPU plans).
	s.wrp, s.wcol = galerkin.ProductPattern(n, A.RowPtr, A.ColIdx, P.RowPtr, P.ColIdx, m, 0)
	nnzW := s.wrp[n]
	if mr := maxRow(s.wrp); mr > 1<<16 {
		return nil, fmt.Errorf("%w: a W row has %d blocks", ErrGalerkinSchedule, mr)
	}
	s.wrow = make([]int32, nnzW)
	s.wptr = make([]int64, nnzW+1)
	par.For(n, 0, grain, func(lo, hi int) {
		pos := make([]int32, m)
		for i := lo; i < hi; i++ {
			w0 := s.wrp[i]
			row := s.wcol[w0:s.wrp[i+1]]
			for q, c := range row {
				pos[c] = int32(q)
				s.wrow[w0+int64(q)] = int32(i)
			}
			for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
				j := A.ColIdx[a]
				for p := P.RowPtr[j]; p < P.RowPtr[j+1]; p++ {
					s.wptr[w0+int64(pos[P.ColIdx[p]])+1]++
				}
			}
		}
	})
	for w := int64(0); w < nnzW; w++ {
		s.wptr[w+1] += s.wptr[w]
	}
	s.wlist = make([]uint32, s.wptr[nnzW])
	par.For(n, 0, grain, func(lo, hi int) {
		pos := make([]int32, m)
		fill := []int64{}
		for i := lo; i < hi; i++ {
			w0, w1 := s.wrp[i], s.wrp[i+1]
			for q, c := range s.wcol[w0:w1] {
				pos[c] = int32(q)
			}
			fill = append(fill[:0], s.wptr[w0:w1]...)
			for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
				ka := uint32(a - A.RowPtr[i])
				j := A.ColIdx[a]
				for p := P.RowPtr[j]; p < P.RowPtr[j+1]; p++ {
					q := pos[P.ColIdx[p]]
					s.wlist[fill[q]] = ka<<16 | uint32(p-P.RowPtr[j])
					fill[q]++
				}
			}
		}
	})

	// Pᵀ: entries of a coarse row in fine-row order.
	s.ptrp, s.ptrow, s.ptidx = galerkin.TransposePattern(n, m, P.RowPtr, P.ColIdx)
	for I := 0; I < m; I++ {
		if rowLen(s.ptrp, I) > 1<<16 {
			return nil, fmt.Errorf("%w: column %d of P has %d blocks", ErrGalerkinSchedule, I, rowLen(s.ptrp, I))
		}
	}

	// Ac pattern: row I is the union of W rows i over Pᵀ row I; its list per block
	// (I,J) holds (entry of Pᵀ row I, offset of J in W row i) in fine-row order.
	s.acrp, s.accol = galerkin.ProductPattern(m, s.ptrp, s.ptrow, s.wrp, s.wcol, m, 0)
	nnzAc := s.acrp[m]
	s.acrow = make([]int32, nnzAc)
	s.acptr = make([]int64, nnzAc+1)
	par.For(m, 0, 16, func(lo, hi int) {
		pos := make([]int32, m)
		for I := lo; I < hi; I++ {
			b0 := s.acrp[I]
			for q, c := range s.accol[b0:s.acrp[I+1]] {
				pos[c] = int32(q)
				s.acrow[b0+int64(q)] = int32(I)
			}
			for e := s.ptrp[I]; e < s.ptrp[I+1]; e++ {
				i := s.ptrow[e]
				for _, c := range s.wcol[s.wrp[i]:s.wrp[i+1]] {
					s.acptr[b0+int64(pos[c])+1]++
				}
			}
		}
	})
	for b := int64(0); b < nnzAc; b++ {
		s.acptr[b+1] += s.acptr[b]
	}
	s.aclist = make([]uint32, s.acptr[nnzAc])
	fused := make([]int64, m)
	par.For(m, 0, 16, func(lo, hi int) {
		pos := make([]int32, m)
		fill := []int64{}
		for I := lo; I < hi; I++ {
			b0, b1 := s.acrp[I], s.acrp[I+1]
			for q, c := range s.accol[b0:b1] {
				pos[c] = int32(q)
			}
			fill = append(fill[:0], s.acptr[b0:b1]...)
			for e := s.ptrp[I]; e < s.ptrp[I+1]; e++ {
				i := s.ptrow[e]
				ke := uint32(e - s.ptrp[I])
				for kw, c := range s.wcol[s.wrp[i]:s.wrp[i+1]] {
					q := pos[c]
					s.aclist[fill[q]] = ke<<16 | uint32(kw)
					fill[q]++
					w := s.wrp[i] + int64(kw)
					fused[I] += s.wptr[w+1] - s.wptr[w]
				}
			}
		}
	})
	for _, f := range fused {
		s.prodFused += f
	}
	return s, nil
}

// absoluteW expands W's packed list into (A block, P block) pairs.
func (s *hostSchedule) absoluteW(A, P *bsr.Matrix) {
	s.wabs = make([]int32, 2*len(s.wlist))
	par.For(len(s.wcol), 0, 4096, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			i := s.wrow[w]
			for t := s.wptr[w]; t < s.wptr[w+1]; t++ {
				u := s.wlist[t]
				a := A.RowPtr[i] + int64(u>>16)
				s.wabs[2*t] = int32(a)
				s.wabs[2*t+1] = int32(P.RowPtr[A.ColIdx[a]] + int64(u&0xffff))
			}
		}
	})
}

// absoluteAc expands Ac's packed list into (P block, W block) pairs.
func (s *hostSchedule) absoluteAc() {
	s.acabs = make([]int32, 2*len(s.aclist))
	par.For(len(s.accol), 0, 1024, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			I := s.acrow[b]
			for t := s.acptr[b]; t < s.acptr[b+1]; t++ {
				u := s.aclist[t]
				e := s.ptrp[I] + int64(u>>16)
				s.acabs[2*t] = int32(s.ptidx[e])
				s.acabs[2*t+1] = int32(s.wrp[s.ptrow[e]] + int64(u&0xffff))
			}
		}
	})
}

// fill builds the lists that stats only counted, for the buffers need names: the
// absolute lists, the symmetric half's, the slot words, the smem-tiles and tc-pairs
// products (each several bytes per product; at ne = 100 the absolute W list alone is
// 1 GB of host memory). The half's slots come first: the lists that name W blocks
// by where they lie (slotOf) follow them.
func (s *hostSchedule) fill(A, P *bsr.Matrix, need bufSet, st GalerkinStats, mir []int64) {
	if need.has(bufWAbs) {
		s.absoluteW(A, P)
	}
	if need.has(bufAcAbs) {
		s.absoluteAc()
	}
	if need.has(bufAcSel) {
		s.wslot = s.halfSlots()
		s.upperLists(mir, st.NnzAcUpper, st.ProdPWUpper)
	}
	if need.has(bufWSel) {
		s.wsel = s.readW(st.WUnread)
	}
	if s.wsw0 != nil && need.has(bufWSlw) {
		s.slotWords(A, P)
	}
	if s.tks != nil && need.has(bufTList) {
		s.tileLists(A, P)
	}
	if pairsOffered(P.R) && need.has(bufPList) {
		s.pairLists(A, P)
	}
}

// list32 and list64 return the host list that schedule buffer id holds.
func (s *hostSchedule) list32(id bufID) []int32 {
	switch id {
	case bufWRow:
		return s.wrow
	case bufWCol:
		return s.wcol
	case bufAcRow:
		return s.acrow
	case bufAcCol:
		return s.accol
	case bufPTRow:
		return s.ptrow
	case bufWList:
		return asInt32(s.wlist)
	case bufAcList:
		return asInt32(s.aclist)
	case bufWAbs:
		return s.wabs
	case bufAcAbs:
		return s.acabs
	case bufWWin:
		return s.wwin
	case bufAcWin:
		return s.acwin
	case bufTRow:
		return s.trow
	case bufTRun:
		return s.trun
	case bufTRuns:
		return s.truns
	case bufTList:
		return asInt32(s.tlist)
	case bufPW:
		return s.pw
	case bufPList:
		return s.plist
	case bufAcSel:
		return s.acsel
	case bufAcAbsU:
		return s.acabsU
	case bufWSel:
		return s.wsel
	case bufWSlot:
		return s.wslot
	}
	panic(fmt.Sprintf("cuda: Galerkin: schedule buffer %d is not an int32 list", id))
}

func (s *hostSchedule) list64(id bufID) []int64 {
	switch id {
	case bufWRp:
		return s.wrp
	case bufWPtr:
		return s.wptr
	case bufAcRp:
		return s.acrp
	case bufAcPtr:
		return s.acptr
	case bufPTRp:
		return s.ptrp
	case bufPTIdx:
		return s.ptidx
	case bufWSw0:
		return s.wsw0
	case bufWSlw:
		return s.wslw
	case bufASw0:
		return s.asw0
	case bufASlw:
		return s.aslw
	case bufPWPtr:
		return s.pwptr
	case bufAcPtrU:
		return s.acptrU
	}
	panic(fmt.Sprintf("cuda: Galerkin: schedule buffer %d is not an int64 list", id))
}
