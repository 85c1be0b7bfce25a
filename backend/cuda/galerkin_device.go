package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

// patternProduct computes, on the device, the pattern of C = A·B from the patterns
// of A (n block rows: arp, acol) and B (brp, bcol): C's row pointers and sorted
// columns. A warp builds each row's set of columns in a shared-memory hash set
// (pat_union_warp); when some row has more distinct columns than the set holds, the
// product is made by patternProductRooms instead.
func (b *Backend) patternProduct(n int, arp *Buffer[int64], acol *Buffer[int32], brp *Buffer[int64], bcol *Buffer[int32]) (*Buffer[int64], *Buffer[int32], error) {
	ni := int32(n)
	wblocks := uint32((int64(n) + warpsPerBlock - 1) / warpsPerBlock)
	var err error
	cnt := alloc[int32](b, n, &err)
	flag := alloc[int32](b, 1, &err)
	defer cnt.Free()
	defer flag.Free()
	if err != nil {
		return nil, nil, err
	}
	ap, ac, bp, bc, np, fp := arp.Ptr(), acol.Ptr(), brp.Ptr(), bcol.Ptr(), cnt.Ptr(), flag.Ptr()
	b.run("pat_union_warp", wblocks, func() {
		b.args.I32(ni).Ptr(ap).Ptr(ac).Ptr(bp).Ptr(bc).I32(0).Ptr(np).Ptr(0).Ptr(0).Ptr(fp)
	})
	over, err := readInt32(flag, 0)
	if err != nil {
		return nil, nil, err
	}
	if over != 0 {
		return b.patternProductRooms(n, arp, acol, brp, bcol)
	}
	crp, ccol, err := b.pattern(cnt)
	if err != nil {
		return nil, nil, err
	}
	rp, cc := crp.Ptr(), ccol.Ptr()
	b.run("pat_union_warp", wblocks, func() {
		b.args.I32(ni).Ptr(ap).Ptr(ac).Ptr(bp).Ptr(bc).I32(1).Ptr(np).Ptr(rp).Ptr(cc).Ptr(fp)
	})
	return crp, ccol, b.Err()
}

// warpsPerBlock mirrors WARPS in kernels/devproduct.cu: the rows a block of the
// warp-per-row kernels takes.
const warpsPerBlock = threads / 32

// patternProductRooms is patternProduct with one thread per row, each row's union
// built by insertion in a room as long as its candidates (Σ over A's blocks of B's
// row lengths, held for a moment): for rows too wide for a warp's hash set.
func (b *Backend) patternProductRooms(n int, arp *Buffer[int64], acol *Buffer[int32], brp *Buffer[int64], bcol *Buffer[int32]) (*Buffer[int64], *Buffer[int32], error) {
	ni, blocks := int32(n), blocksFor(int64(n))
	var err error
	cand := alloc[int64](b, n, &err)
	if err != nil {
		return nil, nil, err
	}
	ap, ac, bp, bc, cp := arp.Ptr(), acol.Ptr(), brp.Ptr(), bcol.Ptr(), cand.Ptr()
	b.run("pat_cand_count", blocks, func() { b.args.I32(ni).Ptr(ap).Ptr(ac).Ptr(bp).Ptr(cp) })
	off, err := b.scanInt64(cand)
	cand.Free()
	if err != nil {
		return nil, nil, err
	}
	defer off.Free()
	room, err := lastOffset(off)
	if err != nil {
		return nil, nil, err
	}
	scratch := alloc[int32](b, int(room), &err)
	cnt := alloc[int32](b, n, &err)
	defer scratch.Free()
	defer cnt.Free()
	if err != nil {
		return nil, nil, err
	}
	op, sp, np := off.Ptr(), scratch.Ptr(), cnt.Ptr()
	b.run("pat_union", blocks, func() { b.args.I32(ni).Ptr(ap).Ptr(ac).Ptr(bp).Ptr(bc).Ptr(op).Ptr(sp).Ptr(np) })
	crp, ccol, err := b.pattern(cnt)
	if err != nil {
		return nil, nil, err
	}
	rp, cc := crp.Ptr(), ccol.Ptr()
	b.run("pat_copy", blocks, func() { b.args.I32(ni).Ptr(op).Ptr(sp).Ptr(rp).Ptr(cc) })
	return crp, ccol, b.Err()
}

// transposeOnDevice gives m its transpose's pattern (zero values) and the block
// permutation that RefreshTranspose gathers through, computed on the device: what
// UploadPattern's withTranspose builds on the host.
func (b *Backend) transposeOnDevice(m *Matrix) error {
	n, nc := m.blockRows, m.blockCols
	var err error
	cnt := alloc[int32](b, nc, &err)
	if err != nil {
		return err
	}
	defer cnt.Free()
	ni := int32(n)
	rp, cp, np := m.rowPtr.Ptr(), m.col.Ptr(), cnt.Ptr()
	b.run("tr_count", blocksFor(int64(n)), func() { b.args.I32(ni).Ptr(rp).Ptr(cp).Ptr(np) })
	tp, err := b.scanCounts(cnt)
	if err != nil {
		return err
	}
	nnz := m.col.Len()
	t := &Matrix{b: b, blockRows: nc, blockCols: n, r: m.c, c: m.r, rowPtr: tp}
	t.col = alloc[int32](b, nnz, &err)
	t.val = alloc[float64](b, nnz*m.r*m.c, &err)
	perm := alloc[int64](b, nnz, &err)
	if err != nil {
		t.Free()
		perm.Free()
		return err
	}
	t.variant = chooseVariant(t.r, t.c, int64(nnz), nc)
	ucol := alloc[int32](b, nnz, &err)
	uperm := alloc[int64](b, nnz, &err)
	defer ucol.Free()
	defer uperm.Free()
	if err != nil {
		t.Free()
		perm.Free()
		return err
	}
	b.enqueue(func() error { return cudadrv.MemsetD8(np, 0, uint64(4*nc)) })
	tpp, ucp, upp := tp.Ptr(), ucol.Ptr(), uperm.Ptr()
	b.run("tr_fill", blocksFor(int64(n)), func() { b.args.I32(ni).Ptr(rp).Ptr(cp).Ptr(tpp).Ptr(np).Ptr(ucp).Ptr(upp) })
	nci, tcp, pp := int32(nc), t.col.Ptr(), perm.Ptr()
	b.run("tr_sort", uint32((int64(nc)+warpsPerBlock-1)/warpsPerBlock), func() {
		b.args.I32(nci).Ptr(tpp).Ptr(ucp).Ptr(upp).Ptr(tcp).Ptr(pp)
	})
	m.t, m.tperm = t, perm
	return b.Err()
}

// deviceGalerkin is Ac = PᵀAP planned on the device from the device patterns of A and
// P: W = A·P's pattern, P's transpose, Ac = Pᵀ·W's pattern, all computed by kernels
// (no pattern crosses the bus). Its numeric phase runs the host plans' tensor-core
// kernels on product lists built on the device (tc, galerkin_devtc.go) where they
// fit in the device's memory, else kernels that search each operand in its row
// (spg_w, spg_ac), one thread per output block, on the patterns alone.
type deviceGalerkin struct {
	b   *Backend
	suf string
	ac  *Matrix
	tc  *tcSchedule
	// The search kernels' plan (tc nil): W with its row indices, Ac's row indices.
	w    *Matrix
	wrow *Buffer[int32]
	crow *Buffer[int32]
	// With a symmetric operator (Options.Symmetric) only Ac's blocks on and above the
	// diagonal are summed (sel lists them) and the others mirrored from them (up,
	// mirror): about half of Pᵀ·W's work.
	sel    *Buffer[int64]
	up     *Buffer[int32]
	mirror *Buffer[int64]
	sym    bool
}

// NewGalerkinOn implements backend.Coarsener: Ac = PᵀAP planned from a's and p's
// patterns on the device. p must have its transpose (SmoothPattern and Tentative give
// it one).
func (b *Backend) NewGalerkinOn(a, p backend.Matrix) (backend.Galerkin, error) {
	A, P := b.mat(a), b.mat(p)
	if P.t == nil || P.tperm == nil {
		return nil, fmt.Errorf("cuda: NewGalerkinOn: the prolongator has no transpose on the device")
	}
	R, C := P.r, P.c
	if A.r != R || A.c != R || A.blockCols != P.blockRows {
		panic("cuda: NewGalerkinOn: shape mismatch")
	}
	suf := "generic"
	switch {
	case R == 3 && C == 6:
		suf = "3x6"
	case R == 6 && C == 6:
		suf = "6x6"
	case R*C > 64 || C*C > 64:
		return nil, fmt.Errorf("cuda: NewGalerkinOn: %w: blocks of %d×%d (at most 64 entries on the device)", backend.ErrUnsupported, R, C)
	}
	g := &deviceGalerkin{b: b, suf: suf}
	fail := func(err error) (backend.Galerkin, error) {
		g.Free()
		return nil, fmt.Errorf("cuda: NewGalerkinOn: %w", err)
	}
	n, m := A.blockRows, P.blockCols
	wrp, wcol, err := b.patternProduct(n, A.rowPtr, A.col, P.rowPtr, P.col)
	if err != nil {
		return fail(err)
	}
	g.w = &Matrix{b: b, blockRows: n, blockCols: m, r: R, c: C, rowPtr: wrp, col: wcol, val: &Buffer[float64]{b: b}}
	g.wrow = alloc[int32](b, wcol.Len(), &err)
	if err != nil {
		return fail(err)
	}
	crp, ccol, err := b.patternProduct(m, P.t.rowPtr, P.t.col, wrp, wcol)
	if err != nil {
		return fail(err)
	}
	g.ac = &Matrix{b: b, blockRows: m, blockCols: m, r: C, c: C, rowPtr: crp, col: ccol, val: &Buffer[float64]{b: b}}
	g.ac.val = alloc[float64](b, ccol.Len()*C*C, &err)
	g.crow = alloc[int32](b, ccol.Len(), &err)
	if err != nil {
		return fail(err)
	}
	g.ac.variant = chooseVariant(C, C, int64(ccol.Len()), m)
	ni, mi := int32(n), int32(m)
	wp, wr, cp, cr := wrp.Ptr(), g.wrow.Ptr(), crp.Ptr(), g.crow.Ptr()
	b.run("expand_rows", blocksFor(int64(n)), func() { b.args.I32(ni).Ptr(wp).Ptr(wr) })
	b.run("expand_rows", blocksFor(int64(m)), func() { b.args.I32(mi).Ptr(cp).Ptr(cr) })
	if b.opt.Symmetric {
		if err := g.splitSymmetric(); err != nil {
			return fail(err)
		}
	}
	g.sym = g.sel != nil
	if !deviceTCOff {
		if g.tc, err = g.newTCSchedule(A, P, g.sel); err != nil {
			return fail(err)
		}
		if g.tc != nil {
			// The search plan's buffers are not read by the tensor-core kernels.
			g.freeSearch()
		}
	}
	if g.tc == nil {
		// W's values only the search kernels store, in W's pattern.
		if g.w.val, err = Alloc[float64](b, wcol.Len()*R*C); err != nil {
			return fail(err)
		}
	}
	if err := b.Err(); err != nil {
		return fail(err)
	}
	return g, nil
}

// freeSearch releases the search kernels' plan (all but Ac and the tc schedule).
func (g *deviceGalerkin) freeSearch() {
	if g.w != nil {
		g.w.Free()
		g.w = nil
	}
	for _, u := range []**Buffer[int32]{&g.wrow, &g.crow, &g.up} {
		if *u != nil {
			(*u).Free()
			*u = nil
		}
	}
	for _, u := range []**Buffer[int64]{&g.sel, &g.mirror} {
		if *u != nil {
			(*u).Free()
			*u = nil
		}
	}
}

// splitSymmetric prepares the symmetric half: the blocks to sum and the mirror of each
// other block. A pattern that is not structurally symmetric keeps the full product.
func (g *deviceGalerkin) splitSymmetric() error {
	b := g.b
	nc := int64(g.ac.col.Len())
	var err error
	up := alloc[int32](b, int(nc), &err)
	mirror := alloc[int64](b, int(nc), &err)
	flag := alloc[int32](b, 1, &err)
	defer flag.Free()
	if err != nil {
		up.Free()
		mirror.Free()
		return err
	}
	cr, cc, crp, upp, mp, fp := g.crow.Ptr(), g.ac.col.Ptr(), g.ac.rowPtr.Ptr(), up.Ptr(), mirror.Ptr(), flag.Ptr()
	b.run("sym_split", blocksFor(nc), func() { b.args.I64(nc).Ptr(cr).Ptr(cc).Ptr(crp).Ptr(upp).Ptr(mp).Ptr(fp) })
	missing, err := readInt32(flag, 0)
	if err != nil || missing != 0 {
		up.Free()
		mirror.Free()
		return err
	}
	off, ns, err := b.offsets(up)
	var sel *Buffer[int64]
	if err == nil {
		defer off.Free()
		sel, err = Alloc[int64](b, int(ns))
	}
	if err != nil {
		up.Free()
		mirror.Free()
		return err
	}
	op, sp := off.Ptr(), sel.Ptr()
	b.run("sym_select", blocksFor(nc), func() { b.args.I64(nc).Ptr(upp).Ptr(op).Ptr(sp) })
	g.sel, g.up, g.mirror = sel, up, mirror
	return nil
}

// Numeric implements backend.Galerkin: W = A·P, then Ac = Pᵀ·W (P's transpose
// pattern, its values read through the permutation from P's own).
func (g *deviceGalerkin) Numeric(a, p backend.Matrix) error {
	b := g.b
	A, P := b.mat(a), b.mat(p)
	if g.tc != nil {
		g.tc.numeric(A, P, g.ac.val.Ptr())
		return b.sticky()
	}
	R, C := int32(P.r), int32(P.c)
	nw, nc := int64(g.w.col.Len()), int64(g.ac.col.Len())
	wr, wc, arp, acol, aval := g.wrow.Ptr(), g.w.col.Ptr(), A.rowPtr.Ptr(), A.col.Ptr(), A.val.Ptr()
	prp, pcol, pval, wval, wrp := P.rowPtr.Ptr(), P.col.Ptr(), P.val.Ptr(), g.w.val.Ptr(), g.w.rowPtr.Ptr()
	cr, cc, tp, tc, tperm := g.crow.Ptr(), g.ac.col.Ptr(), P.t.rowPtr.Ptr(), P.t.col.Ptr(), P.tperm.Ptr()
	cval := g.ac.val.Ptr()
	b.run("spg_w_"+g.suf, blocksFor(nw), func() {
		b.args.I64(nw).I32(R).I32(C).Ptr(wr).Ptr(wc).Ptr(arp).Ptr(acol).Ptr(aval).Ptr(prp).Ptr(pcol).Ptr(pval).Ptr(wval)
	})
	ns, sel := nc, cudadrv.DevPtr(0)
	if g.sel != nil {
		ns, sel = int64(g.sel.Len()), g.sel.Ptr()
	}
	b.run("spg_ac_"+g.suf, blocksFor(ns), func() {
		b.args.I64(ns).Ptr(sel).I32(R).I32(C).Ptr(cr).Ptr(cc).Ptr(tp).Ptr(tc).Ptr(tperm).Ptr(pval).Ptr(wrp).Ptr(wc).Ptr(wval).Ptr(cval)
	})
	if g.sel != nil {
		upp, mp := g.up.Ptr(), g.mirror.Ptr()
		b.run("sym_mirror", blocksFor(nc), func() { b.args.I64(nc).I32(C).Ptr(upp).Ptr(mp).Ptr(cval) })
	}
	return b.sticky()
}

// Ac implements backend.Galerkin.
func (g *deviceGalerkin) Ac() backend.Matrix { return g.ac }

// Name implements backend.Galerkin.
func (g *deviceGalerkin) Name() string {
	name := "device-search"
	if g.tc != nil {
		name = g.tc.name()
	}
	if g.sym {
		name += "-sym"
	}
	return name
}

// Free implements backend.Galerkin.
func (g *deviceGalerkin) Free() {
	g.freeSearch()
	if g.ac != nil {
		g.ac.Free()
	}
	if g.tc != nil {
		g.tc.Free()
	}
}

// DeviceBytes returns the plan's device memory: the tc schedule (its lists and W), or
// the search plan's W (pattern and values), row indices and symmetric half's lists
// (Ac, the next level's operator, is not counted).
func (g *deviceGalerkin) DeviceBytes() int64 {
	if g.tc != nil {
		return g.tc.Bytes()
	}
	n := g.w.Bytes() + g.wrow.Bytes() + g.crow.Bytes()
	if g.sel != nil {
		n += g.sel.Bytes() + g.up.Bytes() + g.mirror.Bytes()
	}
	return n
}

// DownloadPattern implements backend.Coarsener: a's pattern on the host (Val nil).
func (b *Backend) DownloadPattern(a backend.Matrix) (*bsr.Matrix, error) {
	m := b.mat(a)
	out := &bsr.Matrix{BlockRows: m.blockRows, BlockCols: m.blockCols, R: m.r, C: m.c,
		RowPtr: make([]int64, m.rowPtr.Len()), ColIdx: make([]int32, m.col.Len())}
	if err := m.rowPtr.Download(out.RowPtr); err != nil {
		return nil, err
	}
	if err := m.col.Download(out.ColIdx); err != nil {
		return nil, err
	}
	return out, nil
}
