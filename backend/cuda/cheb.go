package cuda

import (
	"fmt"
	"strings"

	"github.com/blockamg/blockamg/backend"
)

var _ backend.ChebStepper = (*Backend)(nil)

// ChebStep implements backend.ChebStepper: kernels/cheb.cu's cheb_step kernels, the
// matrix's own rowlane SpMV with the residual, D⁻¹ and the updates of d and of the
// iterate in its epilogue, one kernel instead of six. Shapes or variants without a
// fused kernel (non-square blocks other than 3×3 and 6×6, the group and generic SpMVs)
// run the unfused sequence, which needs scratch vectors: they are allocated on first
// use per size.
func (b *Backend) ChebStep(a backend.Matrix, dinv backend.BlockDiag, bv, xv backend.Vector, c1, c2 float64, dv, xov backend.Vector) {
	m := b.mat(a)
	bd, ok := dinv.(*BlockDiag)
	if !ok || bd.b != b || bd.freed {
		panic("cuda: ChebStep: block diagonal from another backend or freed")
	}
	bb, x, d, xo := b.vec(bv), b.vec(xv), b.vec(dv), b.vec(xov)
	n := m.blockRows * m.r
	if m.r != m.c || m.blockCols != m.blockRows || bd.blocks != m.blockRows || bd.n != m.r ||
		bb.Len() != n || x.Len() != n || d.Len() != n || xo.Len() != n {
		panic("cuda: ChebStep: shapes do not match")
	}
	if d == x || d == bb || xo == x || xo == bb || xo == d {
		panic("cuda: ChebStep: d or xOut aliases another vector")
	}
	if n == 0 {
		return
	}
	v := m.variant
	if hasChebKernels(m) {
		name := fmt.Sprintf("cheb_step_%dx%d_%s", m.r, m.r, v.tag)
		nbr := int32(m.blockRows)
		rp, col, val, xp, bp, dp, dd, op := m.rowPtr.Ptr(), m.col.Ptr(), m.val.Ptr(), x.buf.Ptr(), bb.buf.Ptr(), bd.val.Ptr(), d.buf.Ptr(), xo.buf.Ptr()
		lanes := v.lanes
		b.run(name, blocksFor(int64(nbr)*int64(lanes)), func() {
			b.args.I32(nbr).Ptr(rp).Ptr(col).Ptr(val).Ptr(xp).Ptr(bp).Ptr(dp).Ptr(dd).Ptr(op).F64(c1).F64(c2)
		})
		return
	}
	// Unfused: r = b − A·x; t = D⁻¹r; d = c1·d + c2·t; xOut = x + d.
	r, err := b.scratch(n, 0)
	if err != nil {
		b.fail(err)
		return
	}
	t, err := b.scratch(n, 1)
	if err != nil {
		b.fail(err)
		return
	}
	b.Copy(r, bv)
	b.SpMV(-1, a, xv, 1, r)
	b.BlockDiagApply(dinv, r, t)
	if c1 == 0 {
		b.Zero(dv)
	}
	b.Axpby(c2, t, c1, dv)
	b.Copy(xov, xv)
	b.Axpby(1, dv, 1, xov)
}

// hasChebKernels reports whether kernels/cheb.cu has the fused cheb_step and res_step
// kernels for m's shape and SpMV variant (square 3×3 or 6×6 blocks, a rowlane or cta
// variant).
func hasChebKernels(m *Matrix) bool {
	return (m.r == 3 || m.r == 6) && (strings.HasPrefix(m.variant.tag, "r") || m.variant == ctaVariant)
}

// scratch returns the backend's scratch vector number k of n entries.
func (b *Backend) scratch(n, k int) (backend.Vector, error) {
	if b.scr == nil {
		b.scr = map[[2]int]backend.Vector{}
	}
	if v, ok := b.scr[[2]int{n, k}]; ok {
		return v, nil
	}
	v, err := b.NewVector(n)
	if err != nil {
		return nil, err
	}
	b.scr[[2]int{n, k}] = v
	return v, nil
}

// Residual implements backend.ChebStepper: kernels/cheb.cu's res_step kernels (the
// matrix's rowlane SpMV writing b − A·x), or Copy and SpMV for other shapes.
func (b *Backend) Residual(a backend.Matrix, bv, xv, rv backend.Vector) {
	m := b.mat(a)
	bb, x, r := b.vec(bv), b.vec(xv), b.vec(rv)
	if bb.Len() != m.blockRows*m.r || x.Len() != m.blockCols*m.c || r.Len() != bb.Len() {
		panic("cuda: Residual: shapes do not match")
	}
	if r == x || r == bb {
		panic("cuda: Residual: r aliases b or x")
	}
	if r.Len() == 0 {
		return
	}
	v := m.variant
	if m.r == m.c && hasChebKernels(m) {
		name := fmt.Sprintf("res_step_%dx%d_%s", m.r, m.r, v.tag)
		nbr := int32(m.blockRows)
		rp, col, val, xp, bp, out := m.rowPtr.Ptr(), m.col.Ptr(), m.val.Ptr(), x.buf.Ptr(), bb.buf.Ptr(), r.buf.Ptr()
		lanes := v.lanes
		b.run(name, blocksFor(int64(nbr)*int64(lanes)), func() {
			b.args.I32(nbr).Ptr(rp).Ptr(col).Ptr(val).Ptr(xp).Ptr(bp).Ptr(out)
		})
		return
	}
	b.Copy(rv, bv)
	b.SpMV(-1, a, xv, 1, rv)
}

// DiagApply2 implements backend.ChebStepper with kernels/cheb.cu's blockdiag_apply2.
func (b *Backend) DiagApply2(d backend.BlockDiag, s float64, xv, yv, zv backend.Vector) {
	bd, ok := d.(*BlockDiag)
	if !ok || bd.b != b || bd.freed {
		panic("cuda: DiagApply2: block diagonal from another backend or freed")
	}
	x, y, z := b.vec(xv), b.vec(yv), b.vec(zv)
	n := bd.blocks * bd.n
	if x.Len() != n || y.Len() != n || z.Len() != n {
		panic("cuda: DiagApply2: vector length mismatch")
	}
	if x == y || x == z || y == z {
		panic("cuda: DiagApply2: vectors alias")
	}
	if n == 0 {
		return
	}
	nb, bs, dp, xp, yp, zp := int32(bd.blocks), int32(bd.n), bd.val.Ptr(), x.buf.Ptr(), y.buf.Ptr(), z.buf.Ptr()
	b.run("blockdiag_apply2", blocksFor(int64(n)), func() {
		b.args.I32(nb).I32(bs).F64(s).Ptr(dp).Ptr(xp).Ptr(yp).Ptr(zp)
	})
}
