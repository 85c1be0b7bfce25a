package cuda

// inspector is GalerkinInspector: the inspector–executor product on the absolute
// lists, (A block, P block) per W product and (P block, W block) per Ac product, a
// thread per output block.
type inspector struct{}

func (inspector) reads(bool) bufSet { return bufs(bufWPtr, bufWAbs, bufAcPtr, bufAcAbs) }

func (inspector) launch(r *galerkinRun) {
	b := r.b
	if r.doAP {
		wptr, wabs := r.ptr(bufWPtr), r.ptr(bufWAbs)
		b.run("gal_w_abs_"+r.tag, blocksFor(r.nW), func() {
			b.args.I32(r.rr).I32(r.cc).I64(r.nW).Ptr(wptr).Ptr(wabs).Ptr(r.aval).Ptr(r.pval).Ptr(r.wval)
		})
	}
	if r.doPW {
		acptr, acabs := r.ptr(bufAcPtr), r.ptr(bufAcAbs)
		b.run("gal_ac_abs_"+r.tag, blocksFor(r.nAc), func() {
			b.args.I32(r.rr).I32(r.cc).I64(r.nAc).Ptr(acptr).Ptr(acabs).Ptr(r.wval).Ptr(r.pval).Ptr(r.acval)
		})
	}
}

// predict is inspectorListed's with the absolute lists: S_W 8 B a product + 8 B a W
// block, S_Ac 8 B a product + 12 B an Ac block.
func (inspector) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	t := s.scalarTerms()
	t.bytesAP = A + P + W + s.ScheduleWAbs + s.pGapMisses(mc)
	t.bytesPW = W + P + Ac + (s.ScheduleAcAbs + s.NnzAc*4) + s.wRereads(mc, s.rowsThreadPerBlock(mc))
	return s.roofline(mc, stage, t)
}

// inspectorListed is GalerkinInspectorBlock (rows false: a thread per output block)
// and GalerkinInspectorRows (a thread per output block row): the inspector–executor
// product on the packed lists, offsets within the rows.
type inspectorListed struct{ rows bool }

func (inspectorListed) reads(bool) bufSet {
	return bufs(bufWRow, bufWPtr, bufWList, bufAcRow, bufAcPtr, bufAcList, bufPTRp, bufPTIdx, bufPTRow, bufWRp)
}

func (k inspectorListed) launch(r *galerkinRun) {
	b := r.b
	kind, perW, perAc := "list", int64(1), int64(1)
	if k.rows {
		kind, perW, perAc = "rows", int64(r.rr), int64(r.cc)
	}
	if r.doAP {
		wrow, wptr, wlist := r.ptr(bufWRow), r.ptr(bufWPtr), r.ptr(bufWList)
		b.run("gal_w_"+kind+"_"+r.tag, blocksFor(r.nW*perW), func() {
			b.args.I32(r.rr).I32(r.cc).I64(r.nW).Ptr(wrow).Ptr(wptr).Ptr(wlist).Ptr(r.arp).Ptr(r.acol).Ptr(r.aval).Ptr(r.prp).Ptr(r.pval).Ptr(r.wval)
		})
	}
	if r.doPW {
		acrow, acptr, aclist := r.ptr(bufAcRow), r.ptr(bufAcPtr), r.ptr(bufAcList)
		ptrp, ptidx, ptrow, wrp := r.ptr(bufPTRp), r.ptr(bufPTIdx), r.ptr(bufPTRow), r.ptr(bufWRp)
		b.run("gal_ac_"+kind+"_"+r.tag, blocksFor(r.nAc*perAc), func() {
			b.args.I32(r.rr).I32(r.cc).I64(r.nAc).Ptr(acrow).Ptr(acptr).Ptr(aclist).Ptr(ptrp).Ptr(ptidx).Ptr(ptrow).Ptr(wrp).Ptr(r.wval).Ptr(r.pval).Ptr(r.acval)
		})
	}
}

// predict (notation of PredictGalerkin):
//
//	A·P:  |A| + |P| + |W| + S_W   (S_W: W list, 4 B per product, + 16 B per W block)
//	Pᵀ·W: |W| + |P| + |Ac| + S_Ac + |W|·(u − 1)·μ_W (S_Ac: Ac list, 4 B per product,
//	      + 12 B per Ac block, + Pᵀ's index arrays; the last term the W re-reads that
//	      miss L2, see wRereads, added after Nsight Compute showed the Pᵀ·W pass
//	      reading W about three times)
func (inspectorListed) predict(s GalerkinStats, mc GalerkinMachine, stage Stage) GalerkinPrediction {
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	t := s.scalarTerms()
	t.bytesAP = A + P + W + s.ScheduleW + s.pGapMisses(mc)
	t.bytesPW = W + P + Ac + s.ScheduleAc + s.wRereads(mc, s.rowsThreadPerBlock(mc))
	return s.roofline(mc, stage, t)
}
