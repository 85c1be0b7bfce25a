package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// tcSchedule is a device-planned Galerkin product run by the host plans' tensor-core
// kernels (galerkin_tc.cu): tc-pairs' A·P where two A blocks stack in one mma operand
// (R ≤ 4, the 3×6 fine level), else tc-block's, then tc-block's Pᵀ·W, with the
// symmetric half when the plan has it. Its lists are built by kernels
// (kernels/devschedule.cu) from the device patterns, in the host schedules' product
// order, so Ac has the host plan's bits; only the entries' order among a pair's
// neighbours (the host's grouping and balancing, a few per cent of A·P's time) is not
// the host's.
//
// The lists cost device memory the search plan does not hold (12 bytes a merged
// product, 8 an Ac product: at ex56 ne = 100 about 1 GB), so newTCSchedule builds them
// only where they fit with tcReserve of the device left free.
type tcSchedule struct {
	b      *Backend
	suf    string
	r, c   int
	pairs  bool
	n      int   // fine block rows
	band   int32 // A's upper bandwidth, for the L2 prefetch's lead
	nnzA   int64
	nnzP   int64
	nwVals int64 // W blocks stored (those the half reads)
	wval   *Buffer[float64]
	// tc-pairs: per entry its two W slots (int2), first product; per product (A, A, P).
	pw     *Buffer[int32]
	pwptr  *Buffer[int64]
	plist  *Buffer[int32]
	ents   int64
	pprods int64
	// tc-block's A·P: per W block its first product, (A, P) per product, and with the
	// half the W blocks computed (wsel, by slot).
	wptr   *Buffer[int64]
	wabs   *Buffer[int32]
	wsel   *Buffer[int32]
	prodAP int64
	// Pᵀ·W: per Ac block (per upper block with the half, and acsel its (block,
	// mirror)) its first product and (P block, W slot) per product.
	acsel  *Buffer[int32]
	acptr  *Buffer[int64]
	acabs  *Buffer[int32]
	nac    int64
	prodPW int64
}

// tcReserve is the share of the device's memory a tc schedule must leave free (for
// the coarser levels' set-up and the solve's vectors): 1/tcReserve of the total (a
// variable so that a test can ask for the whole device, which no schedule leaves).
var tcReserve uint64 = 8

// deviceTCOff makes NewGalerkinOn plan every product with the search kernels, for
// tests of that path.
var deviceTCOff = false

// newTCSchedule builds g's tensor-core schedule from the patterns NewGalerkinOn made
// (W's, with its row indices; Ac's, with its; P's transpose) and, with sel (the upper
// Ac blocks, from upperBlocks), the symmetric half's. It returns nil and no error
// when the lists would not fit.
func (g *deviceGalerkin) newTCSchedule(A, P *Matrix, sel *Buffer[int64]) (*tcSchedule, error) {
	b := g.b
	n := A.blockRows
	t := &tcSchedule{b: b, suf: g.suf, r: P.r, c: P.c, pairs: pairsOffered(P.r), n: n,
		nnzA: int64(A.col.Len()), nnzP: int64(P.col.Len())}
	nw := int64(g.w.col.Len())
	var tmp []interface{ Free() }
	defer func() {
		for _, u := range tmp {
			u.Free()
		}
	}()
	var err error
	fail := func(e error) (*tcSchedule, error) {
		t.Free()
		return nil, e
	}
	wrp, wcol, wrow := g.w.rowPtr.Ptr(), g.w.col.Ptr(), g.wrow.Ptr()
	arp, acol, prp, pcol := A.rowPtr.Ptr(), A.col.Ptr(), P.rowPtr.Ptr(), P.col.Ptr()
	ni := int32(n)

	band := alloc[int32](b, 1, &err)
	if err != nil {
		return fail(err)
	}
	tmp = append(tmp, band)
	bp := band.Ptr()
	b.run("dsc_band", blocksFor(int64(n)), func() { b.args.I32(ni).Ptr(arp).Ptr(acol).Ptr(bp) })

	// The W blocks computed: with the half those it reads, each at its rank (slot).
	var readP, slotP cudadrv.DevPtr
	t.nwVals = nw
	var read *Buffer[int32]
	var slot *Buffer[int64]
	if sel != nil {
		read = alloc[int32](b, int(nw), &err)
		if err != nil {
			return fail(err)
		}
		tmp = append(tmp, read)
		readP = read.Ptr()
		b.run("dsc_wread", blocksFor(int64(n)), func() { b.args.I32(ni).Ptr(prp).Ptr(pcol).Ptr(wrp).Ptr(wcol).Ptr(readP) })
		if slot, t.nwVals, err = b.offsets(read); err != nil {
			return fail(err)
		}
		tmp = append(tmp, slot)
		slotP = slot.Ptr()
	}

	// A·P: count.
	var ecol, epair, pcnt, wcnt *Buffer[int32]
	if t.pairs {
		np := (n + 1) / 2
		npi := int32(np)
		ecnt := alloc[int32](b, np, &err)
		if err != nil {
			return fail(err)
		}
		tmp = append(tmp, ecnt)
		ec := ecnt.Ptr()
		b.run("dsc_pair_count", blocksFor(int64(np)), func() { b.args.I32(npi).I32(ni).Ptr(wrp).Ptr(wcol).Ptr(readP).Ptr(ec) })
		var eoff *Buffer[int64]
		var ne int64
		if eoff, ne, err = b.offsets(ecnt); err != nil {
			return fail(err)
		}
		tmp = append(tmp, eoff)
		t.ents = ne
		t.pw = alloc[int32](b, int(2*ne), &err)
		ecol = alloc[int32](b, int(ne), &err)
		epair = alloc[int32](b, int(ne), &err)
		pcnt = alloc[int32](b, int(ne), &err)
		tmp = append(tmp, ecol, epair, pcnt)
		if err != nil {
			return fail(err)
		}
		eo, pwp, ecp, epp, pcp := eoff.Ptr(), t.pw.Ptr(), ecol.Ptr(), epair.Ptr(), pcnt.Ptr()
		b.run("dsc_pair_fill", blocksFor(int64(np)), func() {
			b.args.I32(npi).I32(ni).Ptr(wrp).Ptr(wcol).Ptr(readP).Ptr(slotP).Ptr(eo).Ptr(pwp).Ptr(ecp).Ptr(epp)
		})
		b.run("dsc_pairprod_count", blocksFor(ne), func() {
			b.args.I64(ne).I32(ni).Ptr(pwp).Ptr(ecp).Ptr(epp).Ptr(arp).Ptr(acol).Ptr(prp).Ptr(pcol).Ptr(pcp)
		})
		if t.pwptr, t.pprods, err = b.offsets(pcnt); err != nil {
			return fail(err)
		}
	} else {
		wcnt = alloc[int32](b, int(nw), &err)
		if err != nil {
			return fail(err)
		}
		tmp = append(tmp, wcnt)
		wc := wcnt.Ptr()
		b.run("dsc_wprod", blocksFor(nw), func() {
			b.args.I64(nw).Ptr(wrow).Ptr(wcol).Ptr(readP).Ptr(arp).Ptr(acol).Ptr(prp).Ptr(pcol).Ptr(wc).Ptr(0).Ptr(0)
		})
		if t.wptr, t.prodAP, err = b.offsets(wcnt); err != nil {
			return fail(err)
		}
		if sel != nil {
			if t.wsel, err = Alloc[int32](b, int(t.nwVals)); err != nil {
				return fail(err)
			}
			ws := t.wsel.Ptr()
			b.run("dsc_select", blocksFor(nw), func() { b.args.I64(nw).Ptr(readP).Ptr(slotP).Ptr(ws) })
		}
	}

	// Pᵀ·W: count (and the half's (block, mirror) pairs).
	t.nac = int64(g.ac.col.Len())
	var selP cudadrv.DevPtr
	if sel != nil {
		t.nac, selP = int64(sel.Len()), sel.Ptr()
		if t.acsel, err = Alloc[int32](b, int(2*t.nac)); err != nil {
			return fail(err)
		}
	}
	acnt := alloc[int32](b, int(t.nac), &err)
	if err != nil {
		return fail(err)
	}
	tmp = append(tmp, acnt)
	nac := t.nac
	crow, ccol, crp := g.crow.Ptr(), g.ac.col.Ptr(), g.ac.rowPtr.Ptr()
	tp, tcol, tperm := P.t.rowPtr.Ptr(), P.t.col.Ptr(), P.tperm.Ptr()
	acp, asp := acnt.Ptr(), cudadrv.DevPtr(0)
	if t.acsel != nil {
		asp = t.acsel.Ptr()
	}
	acprod := func(fill, abs cudadrv.DevPtr) {
		b.run("dsc_acprod", blocksFor(nac*32), func() {
			b.args.I64(nac).Ptr(selP).Ptr(crow).Ptr(ccol).Ptr(crp).Ptr(tp).Ptr(tcol).Ptr(tperm).Ptr(wrp).Ptr(wcol).
				Ptr(readP).Ptr(slotP).Ptr(acp).Ptr(asp).Ptr(fill).Ptr(abs)
		})
	}
	acprod(0, 0)
	if t.acptr, t.prodPW, err = b.offsets(acnt); err != nil {
		return fail(err)
	}

	// Do the lists fit?
	free, total, err := b.MemInfo()
	if err != nil {
		return fail(err)
	}
	need := 12*t.pprods + 8*t.prodAP + 8*t.prodPW + 8*t.nwVals*int64(t.r*t.c)
	if int64(free)-need < int64(total/tcReserve) {
		t.Free()
		return nil, nil
	}

	// Fill.
	if t.pairs {
		if t.plist, err = Alloc[int32](b, int(3*t.pprods)); err != nil {
			return fail(err)
		}
		ne, pwp, ecp, epp, ptr, pl := t.ents, t.pw.Ptr(), ecol.Ptr(), epair.Ptr(), t.pwptr.Ptr(), t.plist.Ptr()
		b.run("dsc_pairprod_fill", blocksFor(ne), func() {
			b.args.I64(ne).I32(ni).Ptr(pwp).Ptr(ecp).Ptr(epp).Ptr(arp).Ptr(acol).Ptr(prp).Ptr(pcol).Ptr(ptr).Ptr(pl)
		})
	} else {
		if t.wabs, err = Alloc[int32](b, int(2*t.prodAP)); err != nil {
			return fail(err)
		}
		wp, wa := t.wptr.Ptr(), t.wabs.Ptr()
		b.run("dsc_wprod", blocksFor(nw), func() {
			b.args.I64(nw).Ptr(wrow).Ptr(wcol).Ptr(readP).Ptr(arp).Ptr(acol).Ptr(prp).Ptr(pcol).Ptr(0).Ptr(wp).Ptr(wa)
		})
	}
	if t.acabs, err = Alloc[int32](b, int(2*t.prodPW)); err != nil {
		return fail(err)
	}
	acprod(t.acptr.Ptr(), t.acabs.Ptr())
	if t.wval, err = Alloc[float64](b, int(t.nwVals)*t.r*t.c); err != nil {
		return fail(err)
	}
	bw, err := readInt32(band, 0)
	if err != nil {
		return fail(err)
	}
	t.band = bw
	return t, b.Err()
}

// numeric queues W = A·P and Ac = Pᵀ·W into acval with the schedule's kernels.
func (t *tcSchedule) numeric(A, P *Matrix, acval cudadrv.DevPtr) {
	b := t.b
	R, C := int32(t.r), int32(t.c)
	aval, pval, wval := A.val.Ptr(), P.val.Ptr(), t.wval.Ptr()
	aBytes, pBytes := t.nnzA*int64(t.r*t.r*8), t.nnzP*int64(t.r*t.c*8)
	if t.pairs {
		ne, pw, pwptr, plist := t.ents, t.pw.Ptr(), t.pwptr.Ptr(), t.plist.Ptr()
		nb := blocksFor((ne + pairEntriesPerWarp - 1) / pairEntriesPerWarp * 32)
		aper, lper, pper, plead := l2SharesFor(nb, aBytes, 12*t.pprods, pBytes, int(t.band), t.n)
		b.run("gal_w_tcp_"+t.suf, nb, func() {
			b.args.I32(R).I32(C).I64(ne).Ptr(pw).Ptr(pwptr).Ptr(plist).Ptr(aval).Ptr(pval).Ptr(wval).
				F64(aper).F64(lper).F64(pper).I32(prefetchAhead).I32(plead)
		})
	} else {
		n, sel := t.nwVals, cudadrv.DevPtr(0)
		if t.wsel != nil {
			sel = t.wsel.Ptr()
		}
		wptr, wabs := t.wptr.Ptr(), t.wabs.Ptr()
		nb := blocksFor(n * 32)
		aper, lper, pper, plead := l2SharesFor(nb, aBytes, 8*t.prodAP, pBytes, int(t.band), t.n)
		b.run("gal_w_tcb_"+t.suf, nb, func() {
			b.args.I32(R).I32(C).I64(n).Ptr(sel).Ptr(wptr).Ptr(wabs).Ptr(aval).Ptr(pval).Ptr(wval).
				F64(aper).F64(lper).F64(pper).I32(prefetchAhead).I32(plead)
		})
	}
	nac, sel, acptr, acabs := t.nac, cudadrv.DevPtr(0), t.acptr.Ptr(), t.acabs.Ptr()
	if t.acsel != nil {
		sel = t.acsel.Ptr()
	}
	b.run("gal_ac_tcb_"+t.suf, blocksFor(nac*32), func() {
		b.args.I32(R).I32(C).I64(nac).Ptr(sel).Ptr(acptr).Ptr(acabs).Ptr(wval).Ptr(pval).Ptr(acval)
	})
}

// name is the schedule's part of the plan's name.
func (t *tcSchedule) name() string {
	if t.pairs {
		return "device-tc-pairs"
	}
	return "device-tc-block"
}

// buffers lists the schedule's device buffers (nil where not made).
func (t *tcSchedule) buffers() []interface {
	Free()
	Bytes() int64
} {
	var out []interface {
		Free()
		Bytes() int64
	}
	for _, u := range []*Buffer[int32]{t.pw, t.plist, t.wabs, t.wsel, t.acsel, t.acabs} {
		if u != nil {
			out = append(out, u)
		}
	}
	for _, u := range []*Buffer[int64]{t.pwptr, t.wptr, t.acptr} {
		if u != nil {
			out = append(out, u)
		}
	}
	if t.wval != nil {
		out = append(out, t.wval)
	}
	return out
}

// Free releases the schedule's device memory.
func (t *tcSchedule) Free() {
	for _, u := range t.buffers() {
		u.Free()
	}
}

// Bytes returns the schedule's device memory: its lists and W's values.
func (t *tcSchedule) Bytes() int64 {
	n := int64(0)
	for _, u := range t.buffers() {
		n += u.Bytes()
	}
	return n
}

// String describes the schedule's sizes, for logs.
func (t *tcSchedule) String() string {
	return fmt.Sprintf("%s: %d W blocks stored, %d pair entries / %d merged products, %d A·P products, %d Ac blocks / %d products",
		t.name(), t.nwVals, t.ents, t.pprods, t.prodAP, t.nac, t.prodPW)
}
