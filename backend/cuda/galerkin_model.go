package cuda

import (
	"fmt"
	"math"

	"blockamg/internal/cudadrv"
)

// GalerkinMachine holds the device rates the Galerkin traffic model uses.
type GalerkinMachine struct {
	L2Bytes   int64   // L2 cache size
	Bandwidth float64 // DRAM bandwidth, bytes/s (the measured copy bandwidth)
	FMARate   float64 // FP64 flop/s on the CUDA cores (2 flops per FMA), measured by FMARate
	SMs       int     // multiprocessors
}

// GalerkinPrediction is the model's estimate for one variant (or one stage).
type GalerkinPrediction struct {
	Bytes   int64   // DRAM bytes read and written
	Flops   int64   // floating-point operations (2 per multiply-add)
	Seconds float64 // max(Bytes/Bandwidth, Flops/FMARate): a roofline, the two overlapped
}

// Byte counts of the operands (values, column indices, row pointers).
func (s GalerkinStats) bytesA() int64 {
	return s.NnzA*int64(s.R*s.R*8+4) + int64(s.N+1)*8
}
func (s GalerkinStats) bytesP() int64 {
	return s.NnzP*int64(s.R*s.C*8+4) + int64(s.N+1)*8
}
func (s GalerkinStats) bytesWVal() int64  { return s.NnzW * int64(s.R*s.C*8) }
func (s GalerkinStats) bytesAcVal() int64 { return s.NnzAc * int64(s.C*s.C*8) }

// flopsAP and flopsPW count 2 flops per multiply-add of the block products.
func (s GalerkinStats) flopsAP() int64 { return s.ProdAP * int64(2*s.R*s.R*s.C) }
func (s GalerkinStats) flopsPW() int64 { return s.ProdPW * int64(2*s.R*s.C*s.C) }

// FloorBytes is the streaming floor's traffic: A and P read once (values, indices,
// row pointers) and Ac's values written once.
func (s GalerkinStats) FloorBytes() int64 { return s.bytesA() + s.bytesP() + s.bytesAcVal() }

// FloorFlops is the flops of the block products, each done once.
func (s GalerkinStats) FloorFlops() int64 { return s.flopsAP() + s.flopsPW() }

// Floor returns the roofline floor of the whole product in seconds:
// max(FloorBytes/Bandwidth, FloorFlops/FMARate).
func (s GalerkinStats) Floor(mc GalerkinMachine) float64 {
	return math.Max(float64(s.FloorBytes())/mc.Bandwidth, float64(s.FloorFlops())/mc.FMARate)
}

// FloorAP is the floor of the A·P stage alone: A and P read once, W's values
// written once, or the A·P flops.
func (s GalerkinStats) FloorAP(mc GalerkinMachine) float64 {
	return math.Max(float64(s.bytesA()+s.bytesP()+s.bytesWVal())/mc.Bandwidth, float64(s.flopsAP())/mc.FMARate)
}

// wRereads is the W traffic of the Pᵀ·W pass beyond one read: each W block is read by
// u = ProdPW/NnzW Ac blocks, and a re-read misses L2 with probability
// μ_W = max(0, 1 − L/D_W), D_W the W rows the coarse rows in flight cover (all
// resident threads on Ac blocks, NnzP/M fine rows per coarse row, |W|/N bytes each).
func (s GalerkinStats) wRereads(mc GalerkinMachine) int64 {
	if s.NnzW == 0 || s.NnzAc == 0 || s.M == 0 || s.N == 0 {
		return 0
	}
	u := float64(s.ProdPW) / float64(s.NnzW)
	rows := math.Min(float64(s.M), float64(max(mc.SMs, 1)*2048)/(float64(s.NnzAc)/float64(s.M)))
	dw := rows * float64(s.NnzP) / float64(s.M) * float64(s.bytesWVal()) / float64(s.N)
	mu := math.Max(0, 1-float64(mc.L2Bytes)/math.Max(dw, 1))
	return int64(float64(s.bytesWVal()) * math.Max(0, u-1) * mu)
}

// PredictGalerkin returns the model's DRAM traffic, flops and time for variant v and
// stage. With |X| the bytes of X (values + column indices + row pointers for A and P,
// values only for W and Ac), L the L2 size:
//
//	two-pass (atomic, nondeterministic)
//	  A·P:  |A| + |P| + |W| (written) + 8·nnzW (W's row and column indices)
//	  Pᵀ·W: |W| + 8·nnzW + |P| + |Ac| (zeroing) + |Ac| (final write-back)
//	        + |Ac| · (ProdPW/nnzAc) · max(0, 1 − L/|Ac|) (atomic updates that miss L2)
//	        + |Ac pattern| (the binary searches; read once when it fits L2)
//	inspector-block, inspector-rows (packed lists), inspector (absolute lists)
//	  A·P:  |A| + |P| + |W| + S_W   (S_W: W list, 4 B per product (8 for inspector),
//	        + 16 B per W block (8 for inspector))
//	  Pᵀ·W: |W| + |P| + |Ac| + S_Ac + |W|·(u − 1)·μ_W (S_Ac: Ac list, 4 B per product
//	        (8), + 12 B per Ac block, + Pᵀ's index arrays; the last term the W re-reads
//	        that miss L2, see wRereads; added after the first Nsight Compute
//	        measurement showed the Pᵀ·W pass reading W about three times)
//	fused-recompute
//	  (|A| + |P| + S_W)·(1 + (ρ − 1)·μ) + S_Ac + |P| + |Ac|,
//	  ρ = ProdAPFused/ProdAP the recompute factor (each W block is recomputed once per
//	  P block of its fine row), μ = max(0, 1 − L/D) the fraction of the re-reads that
//	  miss L2, D the data the threads in flight touch between two uses of a fine row:
//	  (|A| + |P| + S_W)/N bytes per fine row × the fine rows the resident coarse rows
//	  cover, SMs·2048 threads / (nnzAc/M) blocks per coarse row × (NnzP/M) fine rows
//	  per coarse row.
//
// Flops: 2R²C per A·P product (ρ times for fused-recompute) and 2RC² per Pᵀ·W product.
// The time is the roofline max(Bytes/Bandwidth, Flops/FMARate): it assumes the kernel
// overlaps memory and arithmetic and ignores latency, so it is a lower bound whose
// ranking of variants is what the chooser uses.
func PredictGalerkin(s GalerkinStats, mc GalerkinMachine, v GalerkinVariant, stage Stage) GalerkinPrediction {
	A, P, W, Ac := s.bytesA(), s.bytesP(), s.bytesWVal(), s.bytesAcVal()
	acPattern := s.NnzAc*4 + int64(s.M+1)*8
	var bytesAP, bytesPW, flopsAP, flopsPW int64
	flopsAP, flopsPW = s.flopsAP(), s.flopsPW()
	L := float64(mc.L2Bytes)
	switch v {
	case GalerkinTwoPassND:
		bytesAP = A + P + W + 8*s.NnzW
		miss := 0.0
		if Ac > 0 {
			miss = math.Max(0, 1-L/float64(Ac))
		}
		upd := 0.0
		if s.NnzAc > 0 {
			upd = float64(s.ProdPW) / float64(s.NnzAc)
		}
		bytesPW = W + 8*s.NnzW + P + 2*Ac + int64(float64(Ac)*upd*miss) + acPattern
	case GalerkinInspector, GalerkinInspectorBlock, GalerkinInspectorRows:
		sw, sa := s.ScheduleW, s.ScheduleAc
		if v == GalerkinInspector {
			sw, sa = s.ScheduleWAbs, s.ScheduleAcAbs+s.NnzAc*4
		}
		bytesAP = A + P + W + sw
		bytesPW = W + P + Ac + sa + s.wRereads(mc)
	case GalerkinFused:
		rho := 1.0
		if s.ProdAP > 0 {
			rho = float64(s.ProdAPFused) / float64(s.ProdAP)
		}
		perRow := float64(A+P+s.ScheduleW) / math.Max(1, float64(s.N))
		acPerRow := float64(s.NnzAc) / math.Max(1, float64(s.M))
		ptPerRow := float64(s.NnzP) / math.Max(1, float64(s.M))
		inflight := float64(max(mc.SMs, 1)*2048) / math.Max(1, acPerRow) * ptPerRow * perRow
		mu := 0.0
		if inflight > 0 {
			mu = math.Max(0, 1-L/inflight)
		}
		bytesAP = int64(float64(A+P+s.ScheduleW) * (1 + (rho-1)*mu))
		bytesPW = s.ScheduleAc + P + Ac
		flopsAP = int64(float64(flopsAP) * rho)
	}
	var pr GalerkinPrediction
	switch stage {
	case StageAP:
		pr.Bytes, pr.Flops = bytesAP, flopsAP
	case StagePW:
		pr.Bytes, pr.Flops = bytesPW, flopsPW
	default:
		pr.Bytes, pr.Flops = bytesAP+bytesPW, flopsAP+flopsPW
	}
	pr.Seconds = math.Max(float64(pr.Bytes)/mc.Bandwidth, float64(pr.Flops)/mc.FMARate)
	return pr
}

// ChooseGalerkin returns the deterministic variant with the smallest predicted time
// (the nondeterministic baseline is never picked); ties go to the earlier of
// GalerkinVariants.
func ChooseGalerkin(s GalerkinStats, mc GalerkinMachine) GalerkinVariant {
	best, bt := GalerkinInspector, math.Inf(1)
	for _, v := range GalerkinVariants {
		if !v.Deterministic() {
			continue
		}
		if t := PredictGalerkin(s, mc, v, StageAll).Seconds; t < bt {
			best, bt = v, t
		}
	}
	return best
}

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

// fnGlobal resolves a kernel by name on the worker.
func (b *Backend) fnGlobal(name string) (cudadrv.Function, error) {
	var f cudadrv.Function
	err := b.call(func() error {
		var err error
		f, err = cudadrv.ModuleGetFunction(b.mod, name)
		return err
	})
	return f, err
}

// GalerkinMachineOf measures the copy bandwidth (cuMemcpyDtoD over 1 GiB buffers, 10
// runs) and the FMA rate and returns the model's parameters for this device.
func (b *Backend) GalerkinMachineOf() (GalerkinMachine, Bandwidth, error) {
	bw, err := b.CopyBandwidth(1<<30, 10)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	fr, err := b.FMARate(10)
	if err != nil {
		return GalerkinMachine{}, bw, err
	}
	return GalerkinMachine{L2Bytes: int64(b.info.L2Bytes), Bandwidth: max(bw.MemcpyGBs, bw.KernelGBs) * 1e9, FMARate: fr, SMs: b.info.SMs}, bw, nil
}
