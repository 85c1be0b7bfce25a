package cuda

import "math"

// fusedRecompute is GalerkinFused: one kernel over the Ac blocks, each recomputing
// the W blocks it needs from W's packed list; W is never stored, so it has no
// separate stages.
type fusedRecompute struct{}

func (fusedRecompute) reads(bool) bufSet {
	return bufs(bufAcRow, bufAcPtr, bufAcList, bufPTRp, bufPTIdx, bufPTRow, bufWRp, bufWPtr, bufWList)
}

func (fusedRecompute) launch(r *galerkinRun) {
	b := r.b
	acrow, acptr, aclist := r.ptr(bufAcRow), r.ptr(bufAcPtr), r.ptr(bufAcList)
	ptrp, ptidx, ptrow := r.ptr(bufPTRp), r.ptr(bufPTIdx), r.ptr(bufPTRow)
	wrp, wptr, wlist := r.ptr(bufWRp), r.ptr(bufWPtr), r.ptr(bufWList)
	b.run("gal_fused_"+r.tag, blocksFor(r.nAc), func() {
		b.args.I32(r.rr).I32(r.cc).I64(r.nAc).Ptr(acrow).Ptr(acptr).Ptr(aclist).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(wptr).Ptr(wlist).
			Ptr(r.arp).Ptr(r.acol).Ptr(r.aval).Ptr(r.prp).Ptr(r.pval).Ptr(r.acval)
	})
}

// predict is FusedSimBytes, the replay of its loads through half the L2
// (SimulateFused), when the statistics carry it; without it the estimate
//
//	(|A| + |P| + S_W)·(1 + (ρ − 1)·μ) + S_Ac + |P| + |Ac|,
//
// ρ = ProdAPFused/ProdAP the recompute factor (each W block is recomputed once per P
// block of its fine row), μ = max(0, 1 − L/D) the fraction of the re-reads that miss
// L2, D the data the threads in flight touch between two uses of a fine row:
// (|A| + |P| + S_W)/N bytes per fine row × the fine rows the resident coarse rows
// cover, SMs·2048 threads / (nnzAc/M) blocks per coarse row × (NnzP/M) fine rows per
// coarse row. It underestimates: Nsight Compute measured 2.9× and 4.0× more on the
// ex56 fine level at ne = 64 and 100 (the replay: within 6% and 14%). The chooser
// makes do with it, because fused-recompute loses even so. Its A·P flops are ρ times
// the others'.
func (fusedRecompute) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, Ac := s.bytesA(), s.bytesP(), s.bytesAcVal()
	L := float64(mc.L2Bytes)
	t := s.scalarTerms()
	rho := 1.0
	if s.ProdAP > 0 {
		rho = float64(s.ProdAPFused) / float64(s.ProdAP)
	}
	perRow := float64(A+P+s.ScheduleW) / math.Max(1, float64(s.N))
	acPerRow := float64(s.NnzAc) / math.Max(1, float64(s.M))
	ptPerRow := float64(s.NnzP) / math.Max(1, float64(s.M))
	inflight := float64(max(mc.SMs, 1)*2048) / math.Max(1, acPerRow) * ptPerRow * perRow
	mu := 0.0
	if inflight > 0 {
		mu = math.Max(0, 1-L/inflight)
	}
	t.bytesAP = int64(float64(A+P+s.ScheduleW) * (1 + (rho-1)*mu))
	t.bytesPW = s.ScheduleAc + P + Ac
	if s.FusedSimBytes > 0 { // one kernel: its reads, then Ac written
		t.bytesAP, t.bytesPW = max(s.FusedSimBytes-Ac, 0), min(Ac, s.FusedSimBytes)
	}
	t.flopsAP = int64(float64(t.flopsAP) * rho)
	t.prodAP = float64(s.ProdAPFused) // its A·P pass walks every recomputed product
	return s.roofline(mc, stage, t)
}
