package cuda

import (
	"fmt"
	"math"
	"strconv"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/par"
)

// tcRows is GalerkinTCRows16 and GalerkinTCRows32 (window 16 or 32 output blocks in
// registers): a warp per output row, search-free, each product's output position a
// slot byte (slotCounts).
type tcRows struct{ window int }

func (tcRows) reads(bool) bufSet {
	return bufs(bufWRp, bufWSw0, bufWSlw, bufPTRp, bufPTIdx, bufPTRow, bufAcRp, bufASw0, bufASlw)
}

func (k tcRows) launch(r *galerkinRun) {
	b := r.b
	nw := strconv.Itoa(k.window)
	n, m := int32(r.st.N), int32(r.st.M)
	wrp := r.ptr(bufWRp)
	if r.doAP {
		wsw0, wslw := r.ptr(bufWSw0), r.ptr(bufWSlw)
		b.run("gal_w_tcr"+nw+"_"+r.tag, blocksFor(int64(n)*32), func() {
			b.args.I32(r.rr).I32(r.cc).I32(n).Ptr(r.arp).Ptr(r.acol).Ptr(r.aval).Ptr(r.prp).Ptr(r.pval).Ptr(wrp).Ptr(wsw0).Ptr(wslw).Ptr(r.wval)
		})
	}
	if r.doPW {
		ptrp, ptidx, ptrow := r.ptr(bufPTRp), r.ptr(bufPTIdx), r.ptr(bufPTRow)
		acrp, asw0, aslw := r.ptr(bufAcRp), r.ptr(bufASw0), r.ptr(bufASlw)
		b.run("gal_ac_tcr"+nw+"_"+r.tag, blocksFor(int64(m)*32), func() {
			b.args.I32(r.rr).I32(r.cc).I32(m).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(r.wval).Ptr(r.pval).Ptr(acrp).Ptr(asw0).Ptr(aslw).Ptr(r.acval)
		})
	}
}

// predict (notation of PredictGalerkin; no product lists, slot words instead):
//
//	A·P:  |A| + |P| + |W| + 8·(slot words of W) + 8·(N+1)
//	Pᵀ·W: |W| + |P| + |Ac| + 8·(slot words of Ac) + 12·NnzP (Pᵀ's P index and fine
//	      row) + 16·(M+1) + |W|·(u − 1)·μ_W with the coarse rows of 16 (8) resident
//	      warps per SM in flight.
//
// L1 lines: the B operand of each product, k·ℓ(8RC), plus, per A block (Pᵀ entry),
// its own fragment and a slot word, shared by its ProdAP/NnzA (ProdPW/NnzP)
// products; rows16 loads the fragment and word again per window of 16 output blocks
// beyond the first (Rewalk; a product outside the window loads nothing). The time is
// at least tcRowsPath.
func (k tcRows) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	rows := float64(max(mc.SMs, 1) * k.residentWarps())
	kk := int64((s.R + 3) / 4)
	kf := float64((s.R + 3) / 4)
	lA, lP := lines(8*s.R*s.R), lines(8*s.R*s.C)
	perA := float64(s.ProdAP) / math.Max(1, float64(s.NnzA))
	perE := float64(s.ProdPW) / math.Max(1, float64(s.NnzP))
	fa, fe := 1.0, 1.0
	if k.window == 16 {
		fa += float64(s.RewalkW16) / math.Max(1, float64(s.ProdAP))
		fe += float64(s.RewalkAc16) / math.Max(1, float64(s.ProdPW))
	}
	t := galerkinTerms{tc: true, flopsAP: s.flopsAP(), flopsPW: s.flopsPW(),
		bytesAP: A + P + W + 8*s.SlotWordsW + 8*int64(s.N+1) + s.pGapMisses(mc),
		bytesPW: W + P + Ac + 8*s.SlotWordsAc + 12*s.NnzP + 16*int64(s.M+1) + s.wRereads(mc, rows),
		prodAP:  float64(s.ProdAP), lineAP: kf*lP + fa*(kf*lA+1)/math.Max(1, perA),
		prodPW: float64(s.ProdPW), linePW: kf*lP + fe*(kf*lP+1)/math.Max(1, perE),
		mAP: s.ProdAP * kk, mPW: s.ProdPW * kk}
	return s.roofline(mc, stage, t, s.tcRowsPath(mc, stage))
}

// residentWarps is the warps per SM the tc-rows kernels keep resident (16 for 16
// accumulators at 128 registers, 8 for 32 at about 200: 256-thread blocks), whose
// coarse rows are in flight at once.
func (k tcRows) residentWarps() int {
	if k.window == 32 {
		return 8
	}
	return 16
}

// rowSlotsOffered is the rule of the variants that read slot bytes (tc-rows,
// smem-rows): no W or Ac row of more than 256 blocks.
func rowSlotsOffered(s GalerkinStats) bool { return s.RowSlots }

func rowSlotsWhyNot(s GalerkinStats) string {
	return fmt.Sprintf("a W or Ac row longer than 256 blocks: W rows up to %d, Ac rows up to %d", s.MaxRowW, s.MaxRowAc)
}

// tcRowsStep is the time one warp of a tc-rows kernel spends per block product of its
// output row, fitted on the H200 (ex56 ne = 64, levels 2 and 3, where few long rows
// leave the device idle: 0.70 µs per A·P product, 0.64 µs per Pᵀ·W product).
const tcRowsStep = 0.68e-6

// tcRowsPath is the critical path of a tc-rows kernel: one warp walks the products of
// an output row in sequence, SMs × 64 warps are resident at once, so a stage takes
// ⌈rows / (SMs·64)⌉ waves of (products per row) × tcRowsStep. On levels with few
// output rows this, not traffic, is the time: the bandwidth terms alone predicted
// 0.057 ms where 3.77 ms was measured (ne = 64, level 2).
func (s GalerkinStats) tcRowsPath(mc GalerkinMachine, stage Stage) float64 {
	return pickStage(stage, wavePath(mc, int64(s.N), s.ProdAP, 64, tcRowsStep), wavePath(mc, int64(s.M), s.ProdPW, 64, tcRowsStep))
}

// slotCounts is the first half of the tc-rows slot words: each row's first slot word
// (wsw0, asw0), the re-walks and the smem-rows windows, all the statistics need;
// slotWords fills the words. It returns false (and leaves them nil) when a W or Ac row
// has more than 256 blocks, which a byte cannot address.
func (s *hostSchedule) slotCounts(A, P *bsr.Matrix) bool {
	if maxRow(s.wrp) > 256 || maxRow(s.acrp) > 256 {
		return false
	}
	n, m := A.BlockRows, P.BlockCols
	words := func(k int64) int64 { return (k + 7) / 8 }
	s.wsw0 = make([]int64, n+1)
	rewW := make([]int64, n)
	par.For(n, 0, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			c, prods := int64(0), int64(0)
			for a := A.RowPtr[i]; a < A.RowPtr[i+1]; a++ {
				j := A.ColIdx[a]
				c += words(P.RowPtr[j+1] - P.RowPtr[j])
				prods += P.RowPtr[j+1] - P.RowPtr[j]
			}
			s.wsw0[i+1] = c
			rewW[i] = prods * ((s.wrp[i+1]-s.wrp[i]+15)/16 - 1)
		}
	})
	for i := 0; i < n; i++ {
		s.wsw0[i+1] += s.wsw0[i]
		s.rewalkW16 += max(rewW[i], 0)
	}
	s.asw0 = make([]int64, m+1)
	rewAc := make([]int64, m)
	par.For(m, 0, 64, func(lo, hi int) {
		for I := lo; I < hi; I++ {
			c := int64(0)
			for e := s.ptrp[I]; e < s.ptrp[I+1]; e++ {
				i := s.ptrow[e]
				c += words(s.wrp[i+1] - s.wrp[i])
			}
			s.asw0[I+1] = c
			rewAc[I] = (s.acptr[s.acrp[I+1]] - s.acptr[s.acrp[I]]) * ((s.acrp[I+1]-s.acrp[I]+15)/16 - 1)
		}
	})
	for I := 0; I < m; I++ {
		s.asw0[I+1] += s.asw0[I]
		s.rewalkAc16 += max(rewAc[I], 0)
	}
	s.wwin, s.smemRewalkW = smemWindows(s.wrp, smemSlots(P.R*P.C), A.RowPtr)
	s.acwin, s.smemRewalkAc = smemWindows(s.acrp, smemSlots(P.C*P.C), s.ptrp)
	return true
}

// slotWords fills the slot words of the rows slotCounts laid out: W row i's entries
// are A row i's blocks, each meeting the P row of its column; Ac row I's are Pᵀ row
// I's entries, each meeting the W row of its fine row.
func (s *hostSchedule) slotWords(A, P *bsr.Matrix) {
	n, m := A.BlockRows, P.BlockCols
	s.wslw = fillSlotWords(n, m, 1024, s.wrp, s.wcol, s.wsw0, func(i int, meet func([]int32)) {
		for _, j := range A.ColIdx[A.RowPtr[i]:A.RowPtr[i+1]] {
			meet(P.ColIdx[P.RowPtr[j]:P.RowPtr[j+1]])
		}
	})
	s.aslw = fillSlotWords(m, m, 64, s.acrp, s.accol, s.asw0, func(I int, meet func([]int32)) {
		for _, i := range s.ptrow[s.ptrp[I]:s.ptrp[I+1]] {
			meet(s.wcol[s.wrp[i]:s.wrp[i+1]])
		}
	})
}

// fillSlotWords returns the slot words of rows output rows (pattern outRp, outCol, m
// columns; row r's words from sw0[r] on, in chunks of grain rows in parallel): entries
// calls meet, in order, with the columns of the row each of row r's entries meets, and
// byte k of that entry's words (eight a word) is the position in row r of its k-th
// column.
func fillSlotWords(rows, m, grain int, outRp []int64, outCol []int32, sw0 []int64, entries func(r int, meet func(cols []int32))) []int64 {
	dst := make([]int64, sw0[rows])
	par.For(rows, 0, grain, func(lo, hi int) {
		pos := make([]int32, m)
		var w int64
		meet := func(cols []int32) {
			for k, c := range cols {
				dst[w+int64(k/8)] |= int64(uint64(pos[c]) << (8 * (k % 8)))
			}
			w += (int64(len(cols)) + 7) / 8
		}
		for r := lo; r < hi; r++ {
			for q, c := range outCol[outRp[r]:outRp[r+1]] {
				pos[c] = int32(q)
			}
			w = sw0[r]
			entries(r, meet)
		}
	})
	return dst
}
