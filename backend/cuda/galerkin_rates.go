package cuda

import (
	"fmt"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// FMARate measures the FP64 rate of the CUDA cores with kernels/galerkin.cu's
// gal_fma_rate: 8 independent FMA chains per thread, 64 thread blocks per SM, the
// median of reps timed launches after one warm-up; flop/s counting 2 per FMA.
func (b *Backend) FMARate(reps int) (float64, error) {
	f, err := b.fnGlobal("gal_fma_rate")
	if err != nil {
		return 0, err
	}
	const iters = 4096
	blocks := uint32(max(b.info.SMs, 1) * 64)
	y, z := 0.999999, 1e-7
	ms, err := b.TimeMedian(1, reps, func() {
		b.enqueue(func() error {
			b.args.I32(iters).F64(y).F64(z).I32(0).Ptr(0)
			return b.launch("gal_fma_rate", f, blocks)
		})
	})
	if err != nil {
		return 0, fmt.Errorf("cuda: timing gal_fma_rate: %w", err)
	}
	flops := float64(blocks) * threads * iters * 8 * 2
	return flops / (ms * 1e-3), nil
}

// DMMARate measures the FP64 tensor-core rate with kernels/galerkin.cu's
// gal_dmma_rate: 8 independent chains of mma.m8n8k4 per warp,
// 8 thread blocks of 8 warps per SM, the median of reps timed launches after one
// warm-up; flop/s counting 512 per mma (8·8·4 multiply-adds).
func (b *Backend) DMMARate(reps int) (float64, error) {
	return b.mmaRate(reps, "gal_dmma_rate", 512)
}

// DMMA16Rate measures the sm_90 shape mma.m16n8kK (k = 4, 8 or 16) as DMMARate does
// m8n8k4 (kernels/galerkin.cu's gal_dmma16_rate_k*): flop/s counting 2·16·8·k per mma.
// It fails on devices before sm_90, which lack these shapes.
func (b *Backend) DMMA16Rate(reps, k int) (float64, error) {
	if k != 4 && k != 8 && k != 16 {
		return 0, fmt.Errorf("cuda: DMMA16Rate: k = %d, want 4, 8 or 16", k)
	}
	return b.mmaRate(reps, fmt.Sprintf("gal_dmma16_rate_k%d", k), 2*16*8*k)
}

// mmaRate times a rate probe kernel (8 chains of 64 mma per warp, 8 thread blocks of
// 8 warps per SM) and returns flop/s at flops per mma.
func (b *Backend) mmaRate(reps int, name string, flops int) (float64, error) {
	f, err := b.fnGlobal(name)
	if err != nil {
		return 0, err
	}
	const iters = 64
	blocks := uint32(max(b.info.SMs, 1) * 8)
	ms, err := b.TimeMedian(1, reps, func() {
		b.enqueue(func() error {
			b.args.I32(iters).F64(0.5).I32(0).Ptr(0)
			return b.launch(name, f, blocks)
		})
	})
	if err != nil {
		return 0, fmt.Errorf("cuda: timing %s: %w", name, err)
	}
	return float64(blocks) * (threads / 32) * iters * 8 * float64(flops) / (ms * 1e-3), nil
}

// smClockHz returns the device's maximum SM clock (CU_DEVICE_ATTRIBUTE_CLOCK_RATE).
func (b *Backend) smClockHz() (float64, error) {
	var khz int
	err := b.call(func() error {
		var err error
		khz, err = cudadrv.DeviceAttr(b.dev, cudadrv.DeviceAttribute(13))
		return err
	})
	return float64(khz) * 1e3, err
}

// GalerkinMachineOf measures the copy bandwidth (cuMemcpyDtoD over 1 GiB buffers, 10
// runs), the FMA and tensor-core rates, reads the SM clock, and returns the model's
// parameters for this device. A device that does not report its clock leaves L1Rate
// zero (the term out of the model) rather than failing.
func (b *Backend) GalerkinMachineOf() (GalerkinMachine, Bandwidth, error) {
	return b.galerkinMachine(1<<30, 10)
}

// galerkinMachine is GalerkinMachineOf with copy buffers of bytes and reps timed runs
// of each measurement.
func (b *Backend) galerkinMachine(bytes int64, reps int) (GalerkinMachine, Bandwidth, error) {
	bw, err := b.CopyBandwidth(bytes, reps)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	fr, err := b.FMARate(reps)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	tr, err := b.DMMARate(reps)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	clk, err := b.smClockHz()
	if err != nil {
		clk = 0
	}
	return GalerkinMachine{L2Bytes: int64(b.info.L2Bytes), Bandwidth: max(bw.MemcpyGBs, bw.KernelGBs) * 1e9, FMARate: fr, SMs: b.info.SMs,
		TCRate: tr, L1Rate: float64(b.info.SMs) * clk}, bw, nil
}
