package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/backend"
)

var _ backend.Lanczoser = (*Backend)(nil)

// Offsets of kernels/lanczos.cu's scalar array.
const (
	lzHead = 10 // state, breakdown (iteration, quantity, value), rz0, rz, dot scratch, α and β counts, spare
)

// lzMaxBlock is LZ_MAXB of kernels/lanczos.cu: the largest diagonal block the fused
// step kernels take; larger blocks run the ten-launch step.
const lzMaxBlock = 8

// CGLanczos implements backend.Lanczoser with kernels/lanczos.cu: the inner products
// land in a device scalar array, tiny kernels compute α and β there, and the vector
// updates read them from it, so the run queues without waiting; the array (3·steps+10
// doubles) comes back once at the end. A step is six launches (the residual update,
// the block-diagonal solve and rᵀz fused into one kernel, each dot's final sum fused
// with its scalar): on small levels the estimate is bound by launches, not bytes.
func (b *Backend) CGLanczos(a backend.Matrix, dinv backend.BlockDiag, start backend.Vector, steps int,
	r, z, p, q backend.Vector) (backend.LanczosResult, error) {
	var res backend.LanczosResult
	n := b.vec(start).Len()
	if steps < 1 || n < 1 {
		panic("cuda: CGLanczos: no steps or empty vectors")
	}
	steps = min(steps, n)
	a0, b0, pq0 := lzHead, lzHead+steps, lzHead+2*steps
	// The scalar array is kept between calls (an allocation waits for the device).
	if b.lz == nil || b.lz.Len() < lzHead+3*steps {
		if b.lz != nil {
			b.lz.Free()
		}
		var err error
		if b.lz, err = Alloc[float64](b, lzHead+3*steps); err != nil {
			b.lz = nil
			return res, err
		}
	}
	S := b.lz
	sp := S.Ptr()
	scratch := sp + 6*8
	dot := func(x, y backend.Vector) {
		xp, yp := b.vec(x).buf.Ptr(), b.vec(y).buf.Ptr()
		nn := int64(b.vec(x).Len())
		b.enqueue(func() error {
			if err := b.launchDotPartial(nn, xp, yp, b.partial); err != nil {
				return err
			}
			return b.launchDotFinal(dotBlocks, b.partial, scratch)
		})
	}
	scalar := func(name string, args func()) { b.run(name, 1, args) }
	vecop := func(name string, k int, x, y backend.Vector) {
		xp, yp := b.vec(x).buf.Ptr(), b.vec(y).buf.Ptr()
		nn, kk := int64(n), int32(k)
		b.run(name, stridedBlocks(nn), func() { b.args.I64(nn).Ptr(sp).I32(kk).Ptr(xp).Ptr(yp) })
	}
	b.Copy(r, start)
	b.BlockDiagApply(dinv, r, z)
	dot(r, z)
	scalar("lz_init", func() { b.args.Ptr(sp) })
	b.Copy(p, z)
	bd := dinv.(*BlockDiag)
	fused := bd.n <= lzMaxBlock
	resName := "lz_residual"
	if bd.n == 3 || bd.n == 6 {
		resName = fmt.Sprintf("lz_residual_%d", bd.n)
	}
	partial := b.partial
	for it := 1; it <= steps; it++ {
		i32 := int32(it)
		b.SpMV(1, a, p, 0, q)
		if fused {
			// Six launches a step: SpMV, pᵀq partials, their sum with α, the fused
			// r/z update with rᵀz partials, their sum with β, and p.
			pp, qp := b.vec(p).buf.Ptr(), b.vec(q).buf.Ptr()
			nn := int64(n)
			b.enqueue(func() error { return b.launchDotPartial(nn, pp, qp, partial) })
			b.run("lz_alpha_sum", 1, func() { b.args.I32(dotBlocks).Ptr(partial).Ptr(sp).I32(i32).I32(int32(a0)).I32(int32(pq0)) })
			if it == steps {
				break
			}
			rp, zp, dp := b.vec(r).buf.Ptr(), b.vec(z).buf.Ptr(), bd.val.Ptr()
			nb, bs, k := int32(bd.blocks), int32(bd.n), int32(a0+it-1)
			b.run(resName, dotBlocks, func() { b.args.I32(nb).I32(bs).Ptr(sp).I32(k).Ptr(qp).Ptr(rp).Ptr(dp).Ptr(zp).Ptr(partial) })
			b.run("lz_beta_sum", 1, func() { b.args.I32(dotBlocks).Ptr(partial).Ptr(sp).I32(i32).I32(int32(b0)) })
			vecop("lz_xpby", b0+it-1, z, p)
			continue
		}
		dot(p, q)
		scalar("lz_alpha", func() { b.args.Ptr(sp).I32(i32).I32(int32(a0)).I32(int32(pq0)) })
		if it == steps {
			break
		}
		vecop("lz_axpy", a0+it-1, q, r)
		b.BlockDiagApply(dinv, r, z)
		dot(r, z)
		scalar("lz_beta", func() { b.args.Ptr(sp).I32(i32).I32(int32(b0)) })
		vecop("lz_xpby", b0+it-1, z, p)
	}
	host := make([]float64, lzHead+3*steps)
	if err := b.Err(); err != nil {
		return res, err
	}
	if err := S.DownloadPrefix(host); err != nil {
		return res, err
	}
	nA, nB := int(host[7]), int(host[8])
	res.Alphas = append(res.Alphas, host[a0:a0+nA]...)
	res.Betas = append(res.Betas, host[b0:b0+nB]...)
	if host[0] == 2 {
		res.BreakIteration = int(host[1])
		res.BreakQuantity = "rᵀz"
		if host[2] == 1 {
			res.BreakQuantity = "pᵀAp"
		}
		res.BreakValue = host[3]
	}
	return res, nil
}
