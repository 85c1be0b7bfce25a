package cuda

import (
	"fmt"
	"strings"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// threads is the block size of every launch; kernels/common.cuh's THREADS must match.
const threads = 256

// dotBlocks is the fixed grid of the first reduction stage: a constant, so that the
// summation order (and the bits) are the same on every device.
const dotBlocks = 1024

// maxGrid caps grid-stride launches; each element is still handled by one thread.
const maxGrid = 1 << 16

// spmvShape is a block shape with specialised SpMV kernels.
type spmvShape struct{ r, c int }

// spmvVariant is one SpMV kernel of kernels/bsr.cu: its tag in the name
// bsr_spmv_RxC_TAG and the lanes that share a block row. The zero value stands for
// the generic kernel (one thread per scalar row, any shape).
type spmvVariant struct {
	tag   string
	lanes int
}

func (v spmvVariant) String() string {
	if v.tag == "" {
		return "generic"
	}
	return v.tag
}

func g(lanes, u int, hint string) spmvVariant {
	return spmvVariant{fmt.Sprintf("g%d_u%d%s", lanes, u, hint), lanes}
}

func rl(lanes, u int, suffix string) spmvVariant {
	return spmvVariant{fmt.Sprintf("r%d_u%d%s", lanes, u, suffix), lanes}
}

// ctaVariant is the thread-block-per-row product (SPMV_CTA, CHEB_CTA in
// kernels/bsr.cu), for operators of few and long block rows.
var ctaVariant = spmvVariant{"cta", threads}

// shapeVariants mirrors SPMV_SHAPE and SPMV_CTA in kernels/bsr.cu.
var shapeVariants = []spmvVariant{
	g(16, 8, ""),
	rl(16, 1, ""), rl(16, 2, ""), rl(32, 1, ""), rl(32, 2, ""), rl(32, 4, ""),
	rl(16, 2, "_b4"), rl(32, 2, "_b4"), rl(32, 4, "_b4"), ctaVariant,
}

// spmvVariants maps each specialised shape to its kernels.
var spmvVariants = map[spmvShape][]spmvVariant{
	{3, 3}: shapeVariants,
	{3, 6}: shapeVariants,
	{6, 3}: shapeVariants,
	{6, 6}: shapeVariants,
}

func spmvKernelName(s spmvShape, v spmvVariant) string {
	if v.tag == "" {
		return "bsr_spmv_generic"
	}
	return fmt.Sprintf("bsr_spmv_%dx%d_%s", s.r, s.c, v.tag)
}

// kernels holds the functions the launchers keep resolved.
type kernels struct {
	spmv        map[spmvShape]map[spmvVariant]cudadrv.Function
	spmvGeneric cudadrv.Function
	blockDiag   cudadrv.Function
	axpby       cudadrv.Function
	scale       cudadrv.Function
	vmul        cudadrv.Function
	dotPartial  cudadrv.Function
	dotFinal    cudadrv.Function
	copy        cudadrv.Function
}

// resolve looks up the kernels the launchers keep (function: their units are in
// the start set, loaded by New).
func (k *kernels) resolve(function func(string) (cudadrv.Function, error)) error {
	get := func(dst *cudadrv.Function, name string) error {
		f, err := function(name)
		*dst = f
		return err
	}
	k.spmv = map[spmvShape]map[spmvVariant]cudadrv.Function{}
	for s, vs := range spmvVariants {
		k.spmv[s] = map[spmvVariant]cudadrv.Function{}
		for _, v := range vs {
			var f cudadrv.Function
			if err := get(&f, spmvKernelName(s, v)); err != nil {
				return err
			}
			k.spmv[s][v] = f
		}
	}
	for _, p := range []struct {
		dst  *cudadrv.Function
		name string
	}{
		{&k.spmvGeneric, "bsr_spmv_generic"},
		{&k.blockDiag, "blockdiag_apply"},
		{&k.axpby, "vec_axpby"},
		{&k.scale, "vec_scale"},
		{&k.vmul, "vec_vmul"},
		{&k.dotPartial, "dot_partial"},
		{&k.dotFinal, "dot_final"},
		{&k.copy, "copy_kernel"},
	} {
		if err := get(p.dst, p.name); err != nil {
			return err
		}
	}
	return nil
}

// blocksFor returns the number of thread blocks that give one thread per item.
func blocksFor(items int64) uint32 { return uint32((items + threads - 1) / threads) }

// stridedBlocks returns the grid of a grid-stride launch over n elements.
func stridedBlocks(n int64) uint32 { return uint32(min((n+threads-1)/threads, maxGrid)) }

// launch runs f with the argument list built in b.args on b.stream; name labels errors.
// It runs on the worker.
func (b *Backend) launch(name string, f cudadrv.Function, blocks uint32) error {
	return b.launchShared(name, f, blocks, 0)
}

// launchShared is launch with shared bytes of dynamic shared memory a block.
func (b *Backend) launchShared(name string, f cudadrv.Function, blocks, shared uint32) error {
	if blocks == 0 {
		b.args.Reset()
		return nil
	}
	err := cudadrv.LaunchKernel(f, cudadrv.Dim3{X: blocks, Y: 1, Z: 1}, cudadrv.Dim3{X: threads, Y: 1, Z: 1}, shared, b.stream, b.args)
	b.args.Reset()
	if err != nil {
		return fmt.Errorf("cuda: kernel %s: %w", name, err)
	}
	return nil
}

// run queues a launch of the module's kernel name over blocks thread blocks; args
// pushes its arguments. The kernel is resolved on the device thread (function, cached),
// so launching needs no round trip to it.
func (b *Backend) run(name string, blocks uint32, args func()) { b.runShared(name, blocks, 0, args) }

// runShared is run with shared bytes of dynamic shared memory a thread block. Above
// the default 48 KiB the kernel is first allowed that much, once per size it grows
// to; at or below it the launch costs no map lookup.
func (b *Backend) runShared(name string, blocks, shared uint32, args func()) {
	b.enqueue(func() error {
		f, err := b.function(name)
		if err != nil {
			return err
		}
		if shared > 48<<10 && shared > b.sharedSet[name] {
			if err := cudadrv.FuncSetAttribute(f, cudadrv.FuncAttrMaxDynamicShared, int32(shared)); err != nil {
				return fmt.Errorf("cuda: kernel %s: %d bytes of shared memory: %w", name, shared, err)
			}
			if b.sharedSet == nil {
				b.sharedSet = map[string]uint32{}
			}
			b.sharedSet[name] = shared
		}
		args()
		return b.launchShared(name, f, blocks, shared)
	})
}

// launchSpMVGroup: a specialised bsr_spmv_RxC_TAG over nbrows block rows, lanes per
// row.
func (b *Backend) launchSpMVGroup(f cudadrv.Function, name string, lanes int, nbrows int32, rowPtr, col, val, x, y cudadrv.DevPtr, alpha, beta float64) error {
	b.args.I32(nbrows).Ptr(rowPtr).Ptr(col).Ptr(val).Ptr(x).Ptr(y).F64(alpha).F64(beta)
	return b.launch(name, f, blocksFor(int64(nbrows)*int64(lanes)))
}

// launchSpMVGeneric: bsr_spmv_generic, one thread per scalar row.
func (b *Backend) launchSpMVGeneric(nbrows, r, c int32, rowPtr, col, val, x, y cudadrv.DevPtr, alpha, beta float64) error {
	b.args.I32(nbrows).I32(r).I32(c).Ptr(rowPtr).Ptr(col).Ptr(val).Ptr(x).Ptr(y).F64(alpha).F64(beta)
	return b.launch("bsr_spmv_generic", b.k.spmvGeneric, blocksFor(int64(nbrows)*int64(r)))
}

// launchBlockDiag: blockdiag_apply, y = D·x.
func (b *Backend) launchBlockDiag(nb, bs int32, d, x, y cudadrv.DevPtr) error {
	b.args.I32(nb).I32(bs).Ptr(d).Ptr(x).Ptr(y)
	return b.launch("blockdiag_apply", b.k.blockDiag, blocksFor(int64(nb)*int64(bs)))
}

// launchAxpby: vec_axpby, y = a·x + b·y.
func (b *Backend) launchAxpby(n int64, a float64, x cudadrv.DevPtr, bb float64, y cudadrv.DevPtr) error {
	b.args.I64(n).F64(a).Ptr(x).F64(bb).Ptr(y)
	return b.launch("vec_axpby", b.k.axpby, stridedBlocks(n))
}

// launchScale: vec_scale, x = a·x.
func (b *Backend) launchScale(n int64, a float64, x cudadrv.DevPtr) error {
	b.args.I64(n).F64(a).Ptr(x)
	return b.launch("vec_scale", b.k.scale, stridedBlocks(n))
}

// launchVmul: vec_vmul, z = a·x∘y + b·z.
func (b *Backend) launchVmul(n int64, a float64, x, y cudadrv.DevPtr, bb float64, z cudadrv.DevPtr) error {
	b.args.I64(n).F64(a).Ptr(x).Ptr(y).F64(bb).Ptr(z)
	return b.launch("vec_vmul", b.k.vmul, stridedBlocks(n))
}

// launchDotPartial: dot_partial over the fixed grid of dotBlocks blocks.
func (b *Backend) launchDotPartial(n int64, x, y, partial cudadrv.DevPtr) error {
	b.args.I64(n).Ptr(x).Ptr(y).Ptr(partial)
	return b.launch("dot_partial", b.k.dotPartial, dotBlocks)
}

// launchDotFinal: dot_final, one block.
func (b *Backend) launchDotFinal(m int32, partial, out cudadrv.DevPtr) error {
	b.args.I32(m).Ptr(partial).Ptr(out)
	return b.launch("dot_final", b.k.dotFinal, 1)
}

// launchCopy: copy_kernel, y = x.
func (b *Backend) launchCopy(n int64, x, y cudadrv.DevPtr) error {
	b.args.I64(n).Ptr(x).Ptr(y)
	return b.launch("copy_kernel", b.k.copy, stridedBlocks(n))
}

// fnGlobal resolves a kernel by name on the worker.
func (b *Backend) fnGlobal(name string) (cudadrv.Function, error) {
	var f cudadrv.Function
	err := b.call(func() error {
		var err error
		f, err = b.function(name)
		return err
	})
	return f, err
}

// function resolves a kernel once and keeps it (a lookup is a driver call; the
// cycle's and the Galerkin plans' launchers ask on every launch), loading its unit
// on first use (findKernel). It runs on the device thread, which alone touches the
// cache.
func (b *Backend) function(name string) (cudadrv.Function, error) {
	if f, ok := b.fns[name]; ok {
		return f, nil
	}
	f, err := b.findKernel(name)
	if err != nil {
		return 0, fmt.Errorf("cuda: kernel %s: %w", name, err)
	}
	if strings.Contains(name, "_smr_") {
		// The smem-rows kernels keep 36 KiB of shared memory a block: ask for the
		// largest carveout so that their launch bounds' four (A·P) or three (Pᵀ·W)
		// blocks fit on a multiprocessor.
		if err := cudadrv.FuncSetAttribute(f, cudadrv.FuncAttrPreferredSharedCarveout, 100); err != nil {
			return 0, fmt.Errorf("cuda: kernel %s: %w", name, err)
		}
	}
	if b.fns == nil {
		b.fns = map[string]cudadrv.Function{}
	}
	b.fns[name] = f
	return f, nil
}
