package cuda

import (
	"math"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// tcBlock is GalerkinTCBlock: the inspector's absolute lists with the block products
// on the FP64 tensor cores, a warp per output block. Its Pᵀ·W kernel (launchAcTCB)
// is also smem-tiles' and tc-pairs', and runs the symmetric half when the plan does.
type tcBlock struct{}

func (tcBlock) reads(sym bool) bufSet {
	s := bufs(bufWPtr, bufWAbs) | acTCBReads(sym)
	if sym {
		s |= bufs(bufWSel)
	}
	return s
}

// acTCBReads is what launchAcTCB reads: every Ac block's absolute list, or with the
// symmetric half the upper blocks' lists and mirrors.
func acTCBReads(sym bool) bufSet {
	if sym {
		return bufs(bufAcSel, bufAcAbsU, bufAcPtrU)
	}
	return bufs(bufAcPtr, bufAcAbs)
}

func (tcBlock) launch(r *galerkinRun) {
	b := r.b
	if r.doAP {
		// With the symmetric half, only the W blocks it reads (wsel), each at its slot.
		n, sel := r.nW, cudadrv.DevPtr(0)
		if r.pl.Symmetric {
			n, sel = int64(r.pl.sched32[bufWSel].Len()), r.ptr(bufWSel)
		}
		wptr, wabs := r.ptr(bufWPtr), r.ptr(bufWAbs)
		nb := blocksFor(n * 32)
		aper, lper, pper, plead := r.st.l2Shares(nb, r.st.ProdAP*8)
		b.run("gal_w_tcb_"+r.tag, nb, func() {
			b.args.I32(r.rr).I32(r.cc).I64(n).Ptr(sel).Ptr(wptr).Ptr(wabs).Ptr(r.aval).Ptr(r.pval).Ptr(r.wval).
				F64(aper).F64(lper).F64(pper).I32(prefetchAhead).I32(plead)
		})
	}
	if r.doPW {
		launchAcTCB(r)
	}
}

// launchAcTCB queues Ac = Pᵀ·W with a warp per Ac block (tc-block's, also smem-tiles'
// and tc-pairs' second stage), or per block on and above the diagonal for the
// symmetric half.
func launchAcTCB(r *galerkinRun) {
	b := r.b
	if r.pl.Symmetric {
		nu := r.st.NnzAcUpper
		sel, ptrU, absU := r.ptr(bufAcSel), r.ptr(bufAcPtrU), r.ptr(bufAcAbsU)
		b.run("gal_ac_tcb_"+r.tag, blocksFor(nu*32), func() {
			b.args.I32(r.rr).I32(r.cc).I64(nu).Ptr(sel).Ptr(ptrU).Ptr(absU).Ptr(r.wval).Ptr(r.pval).Ptr(r.acval)
		})
		return
	}
	acptr, acabs := r.ptr(bufAcPtr), r.ptr(bufAcAbs)
	b.run("gal_ac_tcb_"+r.tag, blocksFor(r.nAc*32), func() {
		b.args.I32(r.rr).I32(r.cc).I64(r.nAc).Ptr(0).Ptr(acptr).Ptr(acabs).Ptr(r.wval).Ptr(r.pval).Ptr(r.acval)
	})
}

// predict is the inspector's bytes with the W re-reads of a warp per Ac block (64
// resident warps per SM); with the symmetric half (Symmetric) Pᵀ·W's lists are the
// upper blocks' (8 B a product, 16 B a block) and both stages move only the share of
// |W| in the blocks the half reads (wHalf; its A·P picks them by a list, 4 B a
// block). Nsight Compute, ne = 64: +7.8% (before W's read share was counted, +12.9%).
// Its time adds tcbCyclesAP and tcbCyclesPW (tcbCyclesPWSym) SM cycles per mma step.
// Its L1 lines: per product the list entry (one line), then per K chunk of four one
// load instruction per operand, each touching the lines of its block:
// 1 + k·(ℓ(8R²) + ℓ(8RC)) and 1 + 2k·ℓ(8RC), k = ⌈R/4⌉.
func (tcBlock) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	sw, sa := s.ScheduleWAbs, s.ScheduleAcAbs+s.NnzAc*4
	rows := s.rowsWarpPerBlock(mc)
	if s.Symmetric {
		// The symmetric half: the upper blocks' lists, (block, mirror) pairs and
		// pointers; a warp per upper block, so more coarse rows in flight.
		sa = 8*s.ProdPWUpper + 16*s.NnzAcUpper
		rows *= float64(s.NnzAc) / math.Max(1, float64(s.NnzAcUpper))
	}
	wWritten, wRead := W, W
	if s.Symmetric {
		// The half reads only some W blocks; the A·P computes only those, picked by a
		// list (4 bytes a block).
		wRead = s.wHalf(W)
		wWritten = wRead + 4*(s.NnzW-s.WUnread)
	}
	k := int64((s.R + 3) / 4)
	kf := float64((s.R + 3) / 4)
	lA, lP := lines(8*s.R*s.R), lines(8*s.R*s.C)
	t := galerkinTerms{tc: true, flopsAP: s.flopsAP(), flopsPW: s.flopsPW(),
		bytesAP: A + P + wWritten + sw + s.pGapMisses(mc), bytesPW: wRead + P + Ac + sa + s.wRereads(mc, rows),
		prodAP: float64(s.ProdAP), lineAP: 1 + kf*(lA+lP), prodPW: float64(s.ProdPW), linePW: 1 + 2*kf*lP,
		mAP: s.ProdAP * k, mPW: s.ProdPW * k}
	cyclesPW := tcbCyclesPW
	if s.Symmetric {
		t.prodPW = float64(s.ProdPWUpper)
		t.mPW = s.ProdPWUpper * k
		t.mAP = (s.ProdAP - s.ProdAPUnread) * k
		cyclesPW = tcbCyclesPWSym
	}
	return s.roofline(mc, stage, t, s.mmaStepBound(mc, stage, tcbCyclesAP*float64(t.mAP), cyclesPW*float64(t.mPW))...)
}

// mmaStepBound is the time of a tensor-core warp kernel's product walk at fitted SM
// cycles per mma step (cyclesAP, cyclesPW: cycles × steps of each stage): L1Rate is
// SMs × clock, SM cycles a second. Without the clock (L1Rate 0) there is none.
func (s GalerkinStats) mmaStepBound(mc GalerkinMachine, stage Stage, cyclesAP, cyclesPW float64) []float64 {
	if !(mc.L1Rate > 0) {
		return nil
	}
	return []float64{pickStage(stage, cyclesAP, cyclesPW) / mc.L1Rate}
}

// prefetchAhead is how many thread blocks ahead of itself a tc-pairs or tc-block A·P
// block asks L2 for the lines of A, the list and P that block will read first
// (gal_prefetch_share in kernels/galerkin.cu, l2Shares). H200, ex56 fine level: 8, 32
// and 512 gave the same times; at 2048 the gain was gone.
const prefetchAhead = 8

// l2Shares returns the arguments of gal_prefetch_share (kernels/galerkin.cu) for an
// A·P kernel of nb thread blocks that reads A's values, a product list of listBytes
// and P's values in about fine-row order: the bytes of each a block, and P's lead in
// blocks (A's bandwidth in rows, scaled to blocks: the P rows a fine row reads lie up
// to that far past it).
func (st GalerkinStats) l2Shares(nb uint32, listBytes int64) (aper, lper, pper float64, plead int32) {
	per := func(bytes int64) float64 { return float64(bytes) / float64(max(nb, 1)) }
	plead = int32(float64(st.ABand) * float64(nb) / float64(max(st.N, 1)))
	return per(st.NnzA * int64(st.R*st.R*8)), per(listBytes), per(st.NnzP * int64(st.R*st.C*8)), plead
}

// SM cycles a tensor-core warp kernel spends per mma.m8n8k4 step of its product walk
// when the device is full, fitted on the H200 (ex56 ne = 64 fine level, 2026-11-30,
// eighth pass: tc-block's A·P 1.91 ms for 3.25·10⁷ steps, its Pᵀ·W 0.554 ms for
// 1.26·10⁷, tc-pairs' A·P 1.428 ms for 2.17·10⁷ merged steps, over 132 SMs at 1.98
// GHz). Nsight Compute shows these kernels issuing on under half the cycles and
// waiting on each step's operand loads: neither their bytes nor their L1 lines bound
// them, and without this term the two roofline terms, within 10% of each other, put
// tc-block or tc-pairs first depending on the measured bandwidth (a solve picked
// tc-block, 25% slower at ne = 100, once). Out of sample, ne = 100 fine level: tc-pairs
// A·P 5.47 ms predicted, 5.61 measured; Pᵀ·W 2.12 and 2.14; ne = 64 6×6 level 1 (two
// steps a product): A·P 0.223 and 0.182, Pᵀ·W 0.151 and 0.147. Both A·P kernels
// refitted after their L2 prefetch (eleventh pass, with the symmetric half's skip):
// tc-pairs 0.981 ms for 1.92·10⁷ merged steps, with two pair entries a warp (17.2
// before the prefetch, 14.4 with it and one entry a warp), tc-block 1.594 ms for
// 2.86·10⁷ products (15.3 before). Out of sample, ne = 64 6×6 level 1: tc-block A·P
// 0.16 ms measured. tc-pairs refitted again after balancing each block's warps
// (twelfth pass): 0.904 ms for the same steps (13.4 before). Refitted after the rounds
// of four (tc-pairs) and eight (the one-chunk walk) products (thirteenth pass, run108):
// tc-pairs 0.837 ms for 1.917·10⁷ merged steps (12.3 before), tc-block's A·P with the
// half 1.529 ms for 2.86·10⁷ products (14.6 before). Out of sample, ne = 64 6×6 level
// 1, whose kernels did not change: tc-block A·P 0.155 ms measured, 0.178 predicted.
// tcbCyclesPW (the full Pᵀ·W) was not measured again since the eighth pass.
const (
	tcbCyclesAP   = 14.0
	tcbCyclesPW   = 11.4
	tcPairsCycles = 11.4
	// tcbCyclesPWSym: the symmetric half (gal_ac_tcb with sel), per product, fitted
	// on the same level (ninth pass: 0.356 ms for 6.94·10⁶ products, Nsight
	// Compute, 13.4; thirteenth pass, rounds of eight: 0.317 ms). More than the full
	// kernel's: each warp also stores the mirror, and a warp per upper block leaves
	// fewer warps a coarse row.
	tcbCyclesPWSym = 11.9
)
