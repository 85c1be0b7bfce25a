package cuda

import "math"

// twoPass is GalerkinTwoPassND: W = A·P with each W block searching P's rows for its
// column, then Ac += Pᵀ·W by atomicAdd after a binary search for each Ac column.
type twoPass struct{}

func (twoPass) reads(bool) bufSet { return bufs(bufWRow, bufWCol, bufAcRp, bufAcCol) }

func (twoPass) launch(r *galerkinRun) {
	b := r.b
	wrow, wcol := r.ptr(bufWRow), r.ptr(bufWCol)
	if r.doAP {
		b.run("gal_w_search_"+r.tag, blocksFor(r.nW), func() {
			b.args.I32(r.rr).I32(r.cc).I64(r.nW).Ptr(wrow).Ptr(wcol).Ptr(r.arp).Ptr(r.acol).Ptr(r.aval).Ptr(r.prp).Ptr(r.pcol).Ptr(r.pval).Ptr(r.wval)
		})
	}
	if r.doPW {
		acrp, accol := r.ptr(bufAcRp), r.ptr(bufAcCol)
		b.run("gal_zero", stridedBlocks(r.nAcVal), func() { b.args.I64(r.nAcVal).Ptr(r.acval) })
		b.run("gal_ptw_atomic_nd_"+r.tag, blocksFor(r.nW), func() {
			b.args.I32(r.rr).I32(r.cc).I64(r.nW).Ptr(wrow).Ptr(wcol).Ptr(r.wval).Ptr(r.prp).Ptr(r.pcol).Ptr(r.pval).Ptr(acrp).Ptr(accol).Ptr(r.acval)
		})
	}
}

// predict (notation of PredictGalerkin):
//
//	A·P:  |A| + |P| + |W| (written) + 8·nnzW (W's row and column indices)
//	Pᵀ·W: |W| + 8·nnzW + |P| + |Ac| (zeroing) + |Ac| (final write-back)
//	      + |Ac| · (ProdPW/nnzAc) · max(0, 1 − L/D_Ac) (atomic updates that miss L2;
//	      D_Ac = |Ac| · min(1, F/N), F = SMs·2048/(nnzW/N) the fine rows in flight:
//	      taking D_Ac = |Ac| predicted 0.6 GB (ne = 64) and 11.6 GB (ne = 100) of
//	      misses where Nsight Compute measured the update kernel at 0.8 and 3.2 GB in
//	      all, with 97% of its L2 sectors hits)
//	      + |Ac pattern| (the binary searches; read once when it fits L2)
func (twoPass) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	acPattern := s.NnzAc*4 + int64(s.M+1)*8
	L := float64(mc.L2Bytes)
	t := s.scalarTerms()
	miss := 0.0
	if Ac > 0 && s.N > 0 && s.NnzW > 0 {
		// The Ac blocks under update at once: those of the fine rows in flight (one
		// thread per W block), a share rows/N of Ac, since the fine rows that add into
		// an Ac block are neighbours in the fine ordering.
		rows := float64(max(mc.SMs, 1)*2048) / (float64(s.NnzW) / float64(s.N))
		live := math.Min(1, rows/float64(s.N)) * float64(Ac)
		miss = math.Max(0, 1-L/live)
	}
	upd := 0.0
	if s.NnzAc > 0 {
		upd = float64(s.ProdPW) / float64(s.NnzAc)
	}
	t.bytesAP = A + P + W + 8*s.NnzW + s.pGapMisses(mc)
	t.bytesPW = W + 8*s.NnzW + P + 2*Ac + int64(float64(Ac)*upd*miss) + acPattern
	return s.roofline(mc, stage, t)
}
