package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// smoothPlan is the product list of Y = X − ω·D⁻¹·A·X for one (A, X, Y): per block s
// of Y, the (A block, X block) pairs of A·X that land in it, in A's storage order
// (pairs[ptr[s]:ptr[s+1]], int32 indices), its block row and the position of its
// column in X's row (−1 when X has none). Built on the device from the patterns
// (kernels/smooth.cu's rs_plan_count and rs_plan_fill, kernels/scan.cu), kept by Y
// and freed with it.
type smoothPlan struct {
	a, x  *Matrix
	ptr   *Buffer[int64]
	pairs *Buffer[int32] // two per product
	row   *Buffer[int32]
	xpos  *Buffer[int64]
}

func (p *smoothPlan) free() {
	for _, u := range []*Buffer[int64]{p.ptr, p.xpos} {
		if u != nil {
			u.Free()
		}
	}
	for _, u := range []*Buffer[int32]{p.pairs, p.row} {
		if u != nil {
			u.Free()
		}
	}
}

// smoothPlanFor returns y's plan for a and x, building it (and freeing one for other
// operands) when needed. Building waits for the device once, to size the list.
func (b *Backend) smoothPlanFor(am, xm, ym *Matrix) (*smoothPlan, error) {
	if p := ym.smooth; p != nil && p.a == am && p.x == xm {
		return p, nil
	}
	if ym.smooth != nil {
		ym.smooth.free()
		ym.smooth = nil
	}
	nY := int64(ym.col.Len())
	p := &smoothPlan{a: am, x: xm}
	var cnt *Buffer[int32]
	fail := func(err error) (*smoothPlan, error) {
		p.free()
		if cnt != nil {
			cnt.Free()
		}
		return nil, fmt.Errorf("cuda: smoothing plan: %w", err)
	}
	var err error
	if p.row, err = Alloc[int32](b, int(nY)); err != nil {
		return fail(err)
	}
	if p.xpos, err = Alloc[int64](b, int(nY)); err != nil {
		return fail(err)
	}
	if cnt, err = Alloc[int32](b, int(nY)); err != nil {
		return fail(err)
	}
	nn := int32(am.blockRows)
	arp, acol, xrp, xcol, yrp, ycol := am.rowPtr.Ptr(), am.col.Ptr(), xm.rowPtr.Ptr(), xm.col.Ptr(), ym.rowPtr.Ptr(), ym.col.Ptr()
	rowp, xposp, cntp := p.row.Ptr(), p.xpos.Ptr(), cnt.Ptr()
	b.run("rs_plan_count", blocksFor(nY), func() {
		b.args.I32(nn).I64(nY).Ptr(arp).Ptr(acol).Ptr(xrp).Ptr(xcol).Ptr(yrp).Ptr(ycol).Ptr(rowp).Ptr(xposp).Ptr(cntp)
	})
	var total int64
	if p.ptr, total, err = b.offsets(cnt); err != nil {
		return fail(err)
	}
	cnt.Free()
	cnt = nil
	if err := b.sticky(); err != nil {
		return fail(err)
	}
	if p.pairs, err = Alloc[int32](b, int(2*max(total, 1))); err != nil {
		return fail(err)
	}
	ptrp, pairsp := p.ptr.Ptr(), p.pairs.Ptr()
	b.run("rs_plan_fill", blocksFor(nY), func() {
		b.args.I64(nY).Ptr(arp).Ptr(acol).Ptr(xrp).Ptr(xcol).Ptr(ycol).Ptr(rowp).Ptr(ptrp).Ptr(pairsp)
	})
	ym.smooth = p
	return p, nil
}

// smoothPlanned launches resetup_smooth_plan for y from its plan (kernels/smooth.cu:
// a lane per row of a Y block for 3×6 and 6×6, a thread per Y block otherwise).
func (b *Backend) smoothPlanned(p *smoothPlan, am *Matrix, bd *BlockDiag, omega float64, xm, ym *Matrix) {
	nY := int64(ym.col.Len())
	bs, k := int32(am.r), int32(xm.c)
	ptrp, pairsp, rowp, xposp := p.ptr.Ptr(), p.pairs.Ptr(), p.row.Ptr(), p.xpos.Ptr()
	aval, xval, yval, dp := am.val.Ptr(), xm.val.Ptr(), ym.val.Ptr(), bd.val.Ptr()
	tag := smoothTag(am.r, xm.c)
	lanes := int64(1) // lanes per Y block: the fixed-shape kernels give each row a lane
	switch tag {
	case "3x6":
		lanes = 4
	case "6x6":
		lanes = 8
	}
	b.run("resetup_smooth_plan_"+tag, blocksFor(nY*lanes), func() {
		b.args.I32(bs).I32(k).I64(nY).Ptr(ptrp).Ptr(pairsp).Ptr(rowp).Ptr(xposp).Ptr(aval).Ptr(xval).Ptr(dp).F64(omega).Ptr(yval)
	})
}

// scanItems mirrors SCAN_ITEMS·THREADS of kernels/scan.cu: elements per block.
const scanItems = 4 * threads

// scanCounts queues the exclusive prefix sums of cnt into a new buffer of Len()+1
// offsets (kernels/scan.cu; its scratch is freed after the launches).
func (b *Backend) scanCounts(cnt *Buffer[int32]) (*Buffer[int64], error) {
	return b.scan("scan_blocks", int64(cnt.Len()), cnt.Ptr())
}

// scanInt64 is scanCounts for int64 counts (scan_blocks64), whose total may pass 2³¹:
// the candidates of a product's rows.
func (b *Backend) scanInt64(cnt *Buffer[int64]) (*Buffer[int64], error) {
	return b.scan("scan_blocks64", int64(cnt.Len()), cnt.Ptr())
}

// scan queues the three launches of a prefix sum of the n counts at in, the first
// being the kernel named first.
func (b *Backend) scan(first string, n int64, in cudadrv.DevPtr) (*Buffer[int64], error) {
	out, err := Alloc[int64](b, int(n+1))
	if err != nil {
		return nil, err
	}
	nb := max((n+scanItems-1)/scanItems, 1)
	sums, err := Alloc[int64](b, int(nb))
	if err != nil {
		out.Free()
		return nil, err
	}
	defer sums.Free()
	op, sp, m := out.Ptr(), sums.Ptr(), int32(nb)
	b.run(first, uint32(nb), func() { b.args.I64(n).Ptr(in).Ptr(op).Ptr(sp) })
	b.run("scan_sums", 1, func() { b.args.I32(m).Ptr(sp) })
	b.run("scan_add", stridedBlocks(n), func() { b.args.I64(n).Ptr(sp).Ptr(op) })
	return out, nil
}

// offsets is scanCounts with the total, for which it waits.
func (b *Backend) offsets(cnt *Buffer[int32]) (*Buffer[int64], int64, error) {
	off, err := b.scanCounts(cnt)
	if err != nil {
		return nil, 0, err
	}
	total, err := lastOffset(off)
	if err != nil {
		off.Free()
		return nil, 0, err
	}
	return off, total, nil
}

// pattern turns block counts per row into row pointers and an allocated column array
// of their total, for a fill kernel to write.
func (b *Backend) pattern(cnt *Buffer[int32]) (*Buffer[int64], *Buffer[int32], error) {
	rp, nnz, err := b.offsets(cnt)
	if err != nil {
		return nil, nil, err
	}
	col, err := Alloc[int32](b, int(nnz))
	if err != nil {
		rp.Free()
		return nil, nil, err
	}
	return rp, col, nil
}
