package cuda

import "math"

// smemRows is GalerkinSmemRows: a warp per window of an output row, the window's
// blocks accumulated in shared memory, the positions from tc-rows' slot bytes.
type smemRows struct{}

func (smemRows) reads(bool) bufSet {
	return tcRows{}.reads(false) | bufs(bufWWin, bufAcWin)
}

func (smemRows) launch(r *galerkinRun) {
	b := r.b
	st := r.st
	wrp := r.ptr(bufWRp)
	nww, nwa := st.SmemWinW, st.SmemWinAc
	if r.doAP {
		wwin, wsw0, wslw := r.ptr(bufWWin), r.ptr(bufWSw0), r.ptr(bufWSlw)
		b.run("gal_w_smr_"+r.tag, blocksFor(nww*32), func() {
			b.args.I32(r.rr).I32(r.cc).I64(nww).Ptr(wwin).Ptr(r.arp).Ptr(r.acol).Ptr(r.aval).Ptr(r.prp).Ptr(r.pval).Ptr(wrp).Ptr(wsw0).Ptr(wslw).Ptr(r.wval)
		})
	}
	if r.doPW {
		acwin, ptrp, ptidx, ptrow := r.ptr(bufAcWin), r.ptr(bufPTRp), r.ptr(bufPTIdx), r.ptr(bufPTRow)
		acrp, asw0, aslw := r.ptr(bufAcRp), r.ptr(bufASw0), r.ptr(bufASlw)
		b.run("gal_ac_smr_"+r.tag, blocksFor(nwa*32), func() {
			b.args.I32(r.rr).I32(r.cc).I64(nwa).Ptr(acwin).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(r.wval).Ptr(r.pval).Ptr(acrp).Ptr(asw0).Ptr(aslw).Ptr(r.acval)
		})
	}
}

// predict is tc-rows' bytes plus 8 bytes per window (the window list), with the
// coarse rows of 24 resident warps per SM over the windows per coarse row in flight.
// L1 lines: per product a lane's R loads of one column of the B operand, each
// touching ℓ(8C) lines, R·ℓ(8C); per A block (Pᵀ entry) its R² (RC) broadcast loads
// and a slot word, one line each, shared by its products, once per window
// (SmemRewalk). The time is at least smemRowsPath.
func (smemRows) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	// Coarse rows in flight: 24 resident warps per SM (three 256-thread blocks, the
	// kernel's launch bounds) over the windows of a row.
	rows := float64(max(mc.SMs, 1)*24) / math.Max(1, float64(s.SmemWinAc)/math.Max(1, float64(s.M)))
	R, C := s.R, s.C
	perA := float64(s.ProdAP) / math.Max(1, float64(s.NnzA))
	perE := float64(s.ProdPW) / math.Max(1, float64(s.NnzP))
	fa := 1 + float64(s.SmemRewalkW)/math.Max(1, float64(s.NnzA))
	fe := 1 + float64(s.SmemRewalkAc)/math.Max(1, float64(s.NnzP))
	col := float64(R) * lines(8*C)
	t := s.scalarTerms()
	t.bytesAP = A + P + W + 8*s.SlotWordsW + 8*int64(s.N+1) + 8*s.SmemWinW + s.pGapMisses(mc)
	t.bytesPW = W + P + Ac + 8*s.SlotWordsAc + 12*s.NnzP + 16*int64(s.M+1) + 8*s.SmemWinAc + s.wRereads(mc, rows)
	t.lineAP, t.linePW = col+fa*float64(R*R+1)/math.Max(1, perA), col+fe*float64(R*C+1)/math.Max(1, perE)
	return s.roofline(mc, stage, t, s.smemRowsPath(mc, stage))
}

// smem-rows step times: the time one warp spends on one step (an A block of W's row,
// a Pᵀ entry of Ac's row) when the device is full, fitted on the H200 (ex56 ne = 64,
// fine level: A·P 2.12 ms for 7.19·10⁶ steps over 132 SMs × 32 warps;
// Pᵀ·W 1.48 ms for 2.45·10⁶ steps, each about 2.3 rounds of a W row, over 132 × 24).
// ncu measured the A·P kernel issuing on 43% of cycles with 30 warps resident: it is
// bound by the latency of each step's dependent loads, which the byte and flop terms
// do not see.
const (
	smemStepW  = 1.25e-6
	smemStepAc = 1.9e-6
)

// smemRowsPath is the smem-rows time as steps over warp slots: a stage takes
// ⌈windows/(SMs·w)⌉ waves (w the resident warps per SM its launch bounds allow: 32
// for A·P, 24 for Pᵀ·W) of (steps per window) × the step time; with many waves that
// is the total steps (the first walk plus the re-walks) over SMs·w warp slots.
func (s GalerkinStats) smemRowsPath(mc GalerkinMachine, stage Stage) float64 {
	return pickStage(stage, wavePath(mc, s.SmemWinW, s.NnzA+s.SmemRewalkW, 32, smemStepW),
		wavePath(mc, s.SmemWinAc, s.NnzP+s.SmemRewalkAc, 24, smemStepAc))
}

// smemDoubles mirrors GAL_SMR_DOUBLES in kernels/galerkin.cu: the doubles of shared
// memory one smem-rows warp accumulates in.
const smemDoubles = 576

// smemSlots is the output blocks of b values one smem-rows window holds.
func smemSlots(b int) int { return smemDoubles / b }

// smemWindows splits every output row (row pointers orp) into windows of ns blocks
// and returns them as (row, first slot) pairs, with the operand entries (row pointers
// wrp of the walked row: A's for W, Pᵀ's for Ac) that the windows beyond a row's first
// walk again. An empty row has no window (its output is empty).
func smemWindows(orp []int64, ns int, wrp []int64) ([]int32, int64) {
	var win []int32
	rewalk := int64(0)
	for i := 0; i+1 < len(orp); i++ {
		n := int(orp[i+1] - orp[i])
		for s0 := 0; s0 < n; s0 += ns {
			win = append(win, int32(i), int32(s0))
			if s0 > 0 {
				rewalk += wrp[i+1] - wrp[i]
			}
		}
	}
	return win, rewalk
}
