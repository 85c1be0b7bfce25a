package cuda

import (
	"github.com/blockamg/blockamg/backend"
)

var _ backend.CGStepper = (*Backend)(nil)

// cgScalars is the length of kernels/cg.cu's scalar array S; CGRead reads its first
// cgRead (the state, a breakdown and rᵀr).
const (
	cgScalars = 8
	cgRead    = 5
)

// cgState returns the CGStepper's scalar array, allocated on first use (nil after a
// failed allocation, which is then the backend's sticky error).
func (b *Backend) cgState() *Buffer[float64] {
	if b.cgs == nil {
		s, err := Alloc[float64](b, cgScalars)
		if err != nil {
			b.fail(err)
			return nil
		}
		b.cgs = s
		b.cgHost = make([]float64, cgRead)
	}
	return b.cgs
}

// cgSum queues dot_partial of x and y into the partial sums and then the one-block
// kernel name, which sums them into S.
func (b *Backend) cgSum(name string, x, y backend.Vector, it int) {
	S := b.cgState()
	if S == nil {
		return
	}
	xv, yv := b.vec(x), b.vec(y)
	if xv.Len() != yv.Len() {
		panic("cuda: CGStepper: vector length mismatch")
	}
	n, xp, yp, sp, partial, i32 := int64(xv.Len()), xv.buf.Ptr(), yv.buf.Ptr(), S.Ptr(), b.partial, int32(it)
	b.enqueue(func() error { return b.launchDotPartial(n, xp, yp, partial) })
	b.run(name, 1, func() { b.args.I32(dotBlocks).Ptr(partial).Ptr(sp).I32(i32) })
}

// CGStart implements backend.CGStepper (kernels/cg.cu: dot_partial, cg_start).
func (b *Backend) CGStart(it int, r, z backend.Vector) { b.cgSum("cg_start", r, z, it) }

// CGUpdate implements backend.CGStepper: dot_partial and cg_alpha for α, then
// cg_update (both vector updates and the partial sums of rᵀr in one pass) and cg_rr.
func (b *Backend) CGUpdate(it int, p, q, x, r backend.Vector) {
	b.cgSum("cg_alpha", p, q, it)
	S := b.cgs
	if S == nil {
		return
	}
	pv, qv, xv, rv := b.vec(p), b.vec(q), b.vec(x), b.vec(r)
	n := int64(pv.Len())
	if int64(qv.Len()) != n || int64(xv.Len()) != n || int64(rv.Len()) != n {
		panic("cuda: CGUpdate: vector length mismatch")
	}
	sp, pp, qp, xp, rp, partial := S.Ptr(), pv.buf.Ptr(), qv.buf.Ptr(), xv.buf.Ptr(), rv.buf.Ptr(), b.partial
	b.run("cg_update", dotBlocks, func() { b.args.I64(n).Ptr(sp).F64(1).Ptr(pp).Ptr(qp).Ptr(xp).Ptr(rp).Ptr(partial) })
	b.run("cg_rr", 1, func() { b.args.I32(dotBlocks).Ptr(partial).Ptr(sp) })
}

// CGDirection implements backend.CGStepper: dot_partial and cg_beta, then cg_xpby.
func (b *Backend) CGDirection(it int, r, z, p backend.Vector) {
	b.cgSum("cg_beta", r, z, it)
	S := b.cgs
	if S == nil {
		return
	}
	zv, pv := b.vec(z), b.vec(p)
	n := int64(zv.Len())
	if int64(pv.Len()) != n {
		panic("cuda: CGDirection: vector length mismatch")
	}
	sp, zp, pp := S.Ptr(), zv.buf.Ptr(), pv.buf.Ptr()
	b.run("cg_xpby", stridedBlocks(n), func() { b.args.I64(n).Ptr(sp).F64(1).Ptr(zp).Ptr(pp) })
}

// CGRead implements backend.CGStepper: it waits for the queued work and downloads the
// state, the breakdown and rᵀr (40 bytes).
func (b *Backend) CGRead() (backend.CGScalars, error) {
	var s backend.CGScalars
	S := b.cgState()
	if S == nil {
		return s, b.Err()
	}
	if err := b.sticky(); err != nil {
		return s, err
	}
	h := b.cgHost
	if err := S.DownloadPrefix(h); err != nil {
		return s, err
	}
	if err := b.sticky(); err != nil {
		return s, err
	}
	s.RR = h[4]
	if h[0] == 2 {
		s.Break, s.BreakIteration, s.BreakValue = true, int(h[1]), h[3]
		s.BreakQuantity = "rᵀz"
		if h[2] == 1 {
			s.BreakQuantity = "pᵀAp"
		}
	}
	return s, nil
}
