package cuda

import (
	"fmt"
	"math"
	"slices"

	"github.com/blockamg/blockamg/backend"
	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/filter"
)

// This file holds the device side of a hierarchy's re-setup (amg/cycle's
// Resident): the numeric steps of smoothed aggregation for new operator values on
// fixed patterns. Together with GalerkinPlan they let the recurring set-up run with
// no operator crossing the bus.

// ErrSingularBlock is wrapped by InvertBlockDiag's error for a missing or singular
// diagonal block. It wraps bsr.ErrSingular, the host's error for the same block, so
// that a set-up that finds the block on the device is refused as one on the host is
// (blockamg.ErrSingular).
var ErrSingularBlock = fmt.Errorf("singular diagonal block (%w)", bsr.ErrSingular)

// resetupMax is the largest block dimension of the re-setup kernels (RS_MAX in
// kernels/resetup.cuh).
const resetupMax = 6

// NewBlockDiag allocates a zero block-diagonal operator of blocks n×n blocks, for
// InvertBlockDiag to fill.
func (b *Backend) NewBlockDiag(blocks, n int) (backend.BlockDiag, error) {
	buf, err := Alloc[float64](b, blocks*n*n)
	if err != nil {
		return nil, err
	}
	return &BlockDiag{b: b, blocks: blocks, n: n, val: buf}, nil
}

// InvertBlockDiag sets d to the inverses of a's diagonal blocks (Gauss-Jordan with
// partial pivoting, one thread per block row). It waits for the device: a missing or
// singular block is an error wrapping ErrSingularBlock that names the lowest such
// block row (4 bytes come back, counted).
func (b *Backend) InvertBlockDiag(a backend.Matrix, d backend.BlockDiag) error {
	m := b.mat(a)
	bd, ok := d.(*BlockDiag)
	if !ok || bd.b != b || bd.freed {
		panic("cuda: InvertBlockDiag: block diagonal from another backend or freed")
	}
	if m.blockRows != m.blockCols || m.r != m.c || bd.blocks != m.blockRows || bd.n != m.r {
		panic("cuda: InvertBlockDiag: shapes do not match")
	}
	if m.r > resetupMax {
		return fmt.Errorf("cuda: InvertBlockDiag: %d×%d blocks, at most %d×%d", m.r, m.r, resetupMax, resetupMax)
	}
	if m.blockRows == 0 {
		return nil
	}
	if b.flag == nil {
		var err error
		if b.flag, err = NewFlag(b, math.MaxInt32); err != nil {
			return err
		}
	}
	nb := int32(m.blockRows)
	rp, col, val, dp, fp := m.rowPtr.Ptr(), m.col.Ptr(), m.val.Ptr(), bd.val.Ptr(), b.flag.Ptr()
	bs := int32(m.r)
	name := "resetup_invert_diag"
	if m.r == 3 || m.r == 6 {
		name = fmt.Sprintf("resetup_invert_diag_%d", m.r)
	}
	b.run(name, blocksFor(int64(nb)), func() {
		b.args.I32(nb).I32(bs).Ptr(rp).Ptr(col).Ptr(val).Ptr(dp).Ptr(fp)
	})
	row, bad, err := b.flag.Read() // the call's one wait
	if err != nil {
		return err
	}
	if bad {
		return fmt.Errorf("cuda: block row %d: %w", row, ErrSingularBlock)
	}
	return nil
}

// SmoothProlongator queues y = x − ω·D⁻¹·a·x on y's pattern, which must contain the
// patterns of a·x and of x (as amg's smoothing plan builds it). a has n×n blocks of
// b×b, x and y n×m blocks of b×k, d the n inverted diagonal blocks of a. Each block of
// y (a lane per row of it for 3×6 and 6×6, else one thread) sums over its matching
// blocks of row i of a in storage order, from a product list that y keeps for these
// operands (smooth.go), built on the device on the first call; when a or x has
// 2³¹ − 1 or more blocks the kernel searches row i instead.
func (b *Backend) SmoothProlongator(a backend.Matrix, d backend.BlockDiag, omega float64, x, y backend.Matrix) {
	am, xm, ym := b.mat(a), b.mat(x), b.mat(y)
	bd, ok := d.(*BlockDiag)
	if !ok || bd.b != b || bd.freed {
		panic("cuda: SmoothProlongator: block diagonal from another backend or freed")
	}
	n := am.blockRows
	if am.blockCols != n || am.r != am.c || xm.blockRows != n || ym.blockRows != n ||
		xm.blockCols != ym.blockCols || xm.r != am.r || ym.r != am.r || xm.c != ym.c ||
		bd.blocks != n || bd.n != am.r {
		panic("cuda: SmoothProlongator: shapes do not match")
	}
	if am.r > resetupMax || xm.c > resetupMax {
		b.fail(fmt.Errorf("cuda: SmoothProlongator: blocks %d×%d, at most %d×%d", am.r, xm.c, resetupMax, resetupMax))
		return
	}
	if ym.col.Len() == 0 {
		return
	}
	if int64(am.col.Len()) >= math.MaxInt32 || int64(xm.col.Len()) >= math.MaxInt32 {
		b.smoothSearch(am, bd, omega, xm, ym)
		return
	}
	pl, err := b.smoothPlanFor(am, xm, ym)
	if err != nil {
		b.fail(err)
		return
	}
	b.smoothPlanned(pl, am, bd, omega, xm, ym)
}

// smoothSearch is SmoothProlongator without a plan: kernels/smoothsearch.cu's
// rs_smooth, each thread searching row i of a.
func (b *Backend) smoothSearch(am *Matrix, bd *BlockDiag, omega float64, xm, ym *Matrix) {
	nY := int64(ym.col.Len())
	nn, bs, k := int32(am.blockRows), int32(am.r), int32(xm.c)
	arp, acol, aval := am.rowPtr.Ptr(), am.col.Ptr(), am.val.Ptr()
	xrp, xcol, xval := xm.rowPtr.Ptr(), xm.col.Ptr(), xm.val.Ptr()
	yrp, ycol, yval := ym.rowPtr.Ptr(), ym.col.Ptr(), ym.val.Ptr()
	dp := bd.val.Ptr()
	b.run("resetup_smooth_"+smoothTag(am.r, xm.c), blocksFor(nY), func() {
		b.args.I32(nn).I32(bs).I32(k).I64(nY).Ptr(arp).Ptr(acol).Ptr(aval).Ptr(xrp).Ptr(xcol).Ptr(xval).
			Ptr(dp).F64(omega).Ptr(yrp).Ptr(ycol).Ptr(yval)
	})
}

// smoothTag names the specialised smoothing kernels' shape.
func smoothTag(b, k int) string {
	switch {
	case b == 3 && k == 6:
		return "3x6"
	case b == 6 && k == 6:
		return "6x6"
	}
	return "generic"
}

// RefreshTranspose recomputes the stored transpose of m (from UploadPattern
// withTranspose) from m's current values: a gather through the permutation built at
// upload.
func (b *Backend) RefreshTranspose(a backend.Matrix) {
	m := b.mat(a)
	if m.t == nil || m.tperm == nil {
		panic("cuda: RefreshTranspose on a matrix without its transpose")
	}
	nv := int64(m.t.val.Len())
	if nv == 0 {
		return
	}
	r, c := int32(m.r), int32(m.c)
	pp, sp, dp := m.tperm.Ptr(), m.val.Ptr(), m.t.val.Ptr()
	b.run("resetup_transpose_values", blocksFor(nv), func() {
		b.args.I64(nv).I32(r).I32(c).Ptr(pp).Ptr(sp).Ptr(dp)
	})
}

// UploadPattern copies m's pattern to the device with zero values (its values are not
// read, and m.Val may be nil), and the transpose's pattern and permutation when
// withTranspose: what a re-setup needs for a matrix whose values the device computes.
func (b *Backend) UploadPattern(m *bsr.Matrix, withTranspose bool) (backend.Matrix, error) {
	pat := *m
	pat.Val = nil
	d, err := b.upload(&pat)
	if err != nil || !withTranspose {
		return d, err
	}
	t, perm := transposePattern(m)
	if d.t, err = b.upload(t); err == nil {
		if d.tperm, err = Alloc[int64](b, len(perm)); err == nil {
			err = d.tperm.Upload(perm)
		}
	}
	if err != nil {
		d.Free()
		return nil, err
	}
	return d, nil
}

// UploadValues copies src (the values of a matrix with a's pattern, row-major blocks in
// storage order) to a, counted under the current phase.
func (b *Backend) UploadValues(a backend.Matrix, src []float64) error {
	return b.mat(a).val.Upload(src)
}

// DownloadValues waits for queued work and copies a's values into dst, counted under
// the current phase.
func (b *Backend) DownloadValues(dst []float64, a backend.Matrix) error {
	if err := b.Err(); err != nil {
		return err
	}
	return b.mat(a).val.Download(dst)
}

// ScaleValues queues a's values = f·a's values (a stored transpose is not changed).
func (b *Backend) ScaleValues(a backend.Matrix, f float64) {
	m := b.mat(a)
	n := int64(m.val.Len())
	if n == 0 {
		return
	}
	p := m.val.Ptr()
	b.enqueue(func() error { return b.launchScale(n, f, p) })
}

// Values returns the device buffer of a's values (row-major blocks in storage order),
// for kernels that write a matrix in place, such as device assembly.
func (m *Matrix) Values() *Buffer[float64] { return m.val }

// AcMatrix returns the coarse operator as a device matrix whose values are the plan's
// (Numeric writes them; no copy). Its SpMV kernel is chosen for Ac's pattern. The
// matrix shares the plan's values: free it before the plan, and do not use it after.
func (pl *GalerkinPlan) AcMatrix() (*Matrix, error) {
	ac := pl.Ac
	d := &Matrix{b: pl.b, blockRows: ac.BlockRows, blockCols: ac.BlockCols, r: ac.R, c: ac.C, shared: true}
	d.variant = chooseVariant(ac.R, ac.C, ac.NNZBlocks(), ac.BlockRows)
	d.val = pl.acval
	var err error
	if d.rowPtr, err = Alloc[int64](pl.b, len(ac.RowPtr)); err != nil {
		return nil, err
	}
	if d.col, err = Alloc[int32](pl.b, len(ac.ColIdx)); err != nil {
		d.rowPtr.Free()
		return nil, err
	}
	if err = d.rowPtr.Upload(ac.RowPtr); err == nil {
		err = d.col.Upload(ac.ColIdx)
	}
	if err != nil {
		d.rowPtr.Free()
		d.col.Free()
		return nil, err
	}
	return d, nil
}

// residentGalerkin is a GalerkinPlan with its variant and Ac as a device matrix: the
// backend.Galerkin of a device re-setup.
type residentGalerkin struct {
	pl *GalerkinPlan
	v  GalerkinVariant
	ac *Matrix
	// tune: on the first Numeric, time every deterministic variant the plan offers
	// and keep the fastest (Options.GalerkinTune).
	tune bool
}

// NewGalerkin implements backend.Resetter: the symbolic phase on the host
// (GalerkinSymbolicFor) and the variant the GPU model picks for this product
// (ChooseGalerkin, with the device's parameters measured once per backend), or
// Options.Galerkin when set and the product offers it (smem-tiles and tc-pairs are
// not offered on every level). Only that variant's schedules go to the device, or every
// variant's with Options.GalerkinTune (which times them all on the first Numeric).
func (b *Backend) NewGalerkin(A, P *bsr.Matrix) (backend.Galerkin, error) {
	tune := b.opt.GalerkinTune && b.opt.Galerkin == ""
	if v := b.opt.Galerkin; v != "" && (!slices.Contains(GalerkinVariants, v) || !v.Deterministic()) {
		return nil, fmt.Errorf("cuda: Options.Galerkin %q: want one of the deterministic GalerkinVariants", v)
	}
	var v GalerkinVariant
	pl, err := b.GalerkinSymbolicFor(A, P, func(st GalerkinStats) ([]GalerkinVariant, error) {
		v = b.opt.Galerkin
		if v == "" || !st.offers(v) {
			if b.gmach == nil {
				// A quick measurement: the model needs rates, not a benchmark.
				mc, _, err := b.galerkinMachine(1<<26, 3)
				if err != nil {
					return nil, err
				}
				b.gmach = &mc
			}
			v = ChooseGalerkin(st, *b.gmach)
		}
		if tune {
			return GalerkinVariants, nil
		}
		return []GalerkinVariant{v}, nil
	})
	if err != nil {
		return nil, err
	}
	ac, err := pl.AcMatrix()
	if err != nil {
		pl.Free()
		return nil, err
	}
	return &residentGalerkin{pl: pl, v: v, ac: ac, tune: tune}, nil
}

func (g *residentGalerkin) Numeric(a, p backend.Matrix) error {
	b := g.pl.b
	A, P := b.mat(a), b.mat(p)
	if g.tune {
		g.tune = false
		best, bt := g.v, math.Inf(1)
		for _, v := range GalerkinVariants {
			if !v.Deterministic() || !g.pl.Available(v) {
				continue
			}
			ms, err := b.TimeMedian(1, 3, func() {
				if err := g.pl.Numeric(v, A, P); err != nil {
					b.fail(err)
				}
			})
			if err != nil {
				return err
			}
			if ms < bt {
				best, bt = v, ms
			}
		}
		g.v = best
	}
	return g.pl.Numeric(g.v, A, P)
}
func (g *residentGalerkin) Ac() backend.Matrix { return g.ac }
func (g *residentGalerkin) Name() string       { return string(g.v) }
func (g *residentGalerkin) Free() {
	g.ac.Free()
	g.pl.Free()
}

// NewFilter implements backend.Resetter with NewFilterPlan.
func (b *Backend) NewFilter(p *filter.Plan, Bc []float64) (backend.Filter, error) {
	fp, err := b.NewFilterPlan(p, Bc)
	if err != nil {
		return nil, err
	}
	return residentFilter{fp}, nil
}

// residentFilter is a FilterPlan as a backend.Filter.
type residentFilter struct{ fp *FilterPlan }

func (f residentFilter) Numeric(psmooth, pf backend.Matrix) error {
	b := f.fp.b
	return f.fp.Numeric(b.mat(psmooth), b.mat(pf))
}
func (f residentFilter) Free() { f.fp.Free() }

var _ backend.Resetter = (*Backend)(nil)
