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
// block); Nsight Compute, ne = 64: +7.8% (+12.9% without W's read share).
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
// (gal_prefetch_share in kernels/galerkin_tc.cuh, l2Shares). H200, ex56 fine level: 8, 32
// and 512 gave the same times; at 2048 the gain was gone.
const prefetchAhead = 8

// l2Shares returns the arguments of gal_prefetch_share (kernels/galerkin_tc.cuh) for an
// A·P kernel of nb thread blocks that reads A's values, a product list of listBytes
// and P's values in about fine-row order: the bytes of each a block, and P's lead in
// blocks (A's bandwidth in rows, scaled to blocks: the P rows a fine row reads lie up
// to that far past it).
func (st GalerkinStats) l2Shares(nb uint32, listBytes int64) (aper, lper, pper float64, plead int32) {
	return l2SharesFor(nb, st.NnzA*int64(st.R*st.R*8), listBytes, st.NnzP*int64(st.R*st.C*8), st.ABand, st.N)
}

// l2SharesFor is l2Shares from the sizes themselves: A's and P's value bytes, the
// list's, A's upper bandwidth and its block rows n.
func l2SharesFor(nb uint32, aBytes, listBytes, pBytes int64, band, n int) (aper, lper, pper float64, plead int32) {
	per := func(bytes int64) float64 { return float64(bytes) / float64(max(nb, 1)) }
	plead = int32(float64(band) * float64(nb) / float64(max(n, 1)))
	return per(aBytes), per(listBytes), per(pBytes), plead
}

// SM cycles a tensor-core warp kernel spends per mma.m8n8k4 step of its product walk
// when the device is full, fitted on the H200 (ex56 ne = 64 fine level, 132 SMs at
// 1.98 GHz): tc-block's A·P with the symmetric half's skip 1.529 ms for 2.86·10⁷
// products, its full Pᵀ·W 0.554 ms for 1.26·10⁷ steps, tc-pairs' A·P 0.837 ms for
// 1.917·10⁷ merged steps. Nsight Compute shows these kernels issuing on under half
// the cycles and waiting on each step's operand loads: neither their bytes nor their
// L1 lines bound them, and without this term the two roofline terms, within 10% of
// each other, put tc-block or tc-pairs first depending on the measured bandwidth (so a
// solve could pick tc-block, 25% slower at ne = 100). Out of sample, ne = 64 6×6
// level 1: tc-block A·P 0.155 ms measured, 0.178 predicted. Each constant is its
// kernel's as it stands (the L2 prefetch, two pair entries a warp, balanced warps,
// rounds of four and of eight products): a change to a kernel's walk needs a new fit.
// tcbCyclesPW was fitted on the full Pᵀ·W kernel before its rounds of eight products,
// so it may overstate the kernel.
const (
	tcbCyclesAP   = 14.0
	tcbCyclesPW   = 11.4
	tcPairsCycles = 11.4
	// tcbCyclesPWSym: the symmetric half (gal_ac_tcb with sel), per product, fitted
	// on the same level: 0.317 ms for 6.94·10⁶ products. More than the full
	// kernel's: each warp also stores the mirror, and a warp per upper block leaves
	// fewer warps a coarse row.
	tcbCyclesPWSym = 11.9
)
