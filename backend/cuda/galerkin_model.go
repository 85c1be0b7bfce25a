package cuda

import "math"

// GalerkinMachine holds the device rates the Galerkin traffic model uses.
type GalerkinMachine struct {
	L2Bytes   int64   // L2 cache size
	Bandwidth float64 // DRAM bandwidth, bytes/s (the measured copy bandwidth)
	FMARate   float64 // FP64 flop/s on the CUDA cores (2 flops per FMA), measured by FMARate
	SMs       int     // multiprocessors
	// TCRate is the FP64 tensor-core rate in flop/s of mma.m8n8k4 (512 flops each),
	// measured by DMMARate; 0 leaves the term out.
	TCRate float64
	// L1Rate is the rate at which the multiprocessors' L1 caches serve 128-byte lines
	// to load instructions: one line per clock per SM (SMs × SM clock); 0 leaves the
	// term out.
	L1Rate float64
}

// GalerkinPrediction is the model's estimate for one variant (or one stage).
type GalerkinPrediction struct {
	Bytes int64 // DRAM bytes read and written
	Flops int64 // floating-point operations (2 per multiply-add), padding excluded
	MMAs  int64 // mma.m8n8k4 instructions (tensor-core variants)
	Lines int64 // 128-byte L1 lines the load instructions touch
	// Seconds is the largest of Bytes/Bandwidth, Flops/FMARate (scalar variants) or
	// 512·MMAs/TCRate (tensor-core variants), and Lines/L1Rate: a roofline with the
	// three overlapped.
	Seconds float64
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
// μ_W = max(0, 1 − L/D_W), D_W = rows·|W|/M the share of W under the coarse rows in
// flight (rows = those the resident threads or warps work on). Counting NnzP/M fine
// rows per coarse row without their overlap (each fine row lies under NnzP/N coarse
// rows) instead differs by under 10% for the thread-per-block variants, with every
// coarse row in flight, but overstates D_W 4.5-fold on ex56 for a warp per coarse
// row.
//
// Of the re-reads that term keeps in L2, those of a W row whose next coarse row
// comes far later in the walk miss too (wGapMisses, gapMisses): a fine row's P row spans
// coarse rows in neighbouring coarse z-planes of a 3D mesh, a plane of coarse rows
// apart, and the Pᵀ·W pass streams about ProdPW/M·(2·8RC + 8) bytes a coarse row in
// between. Without it the model gives tc-block's Pᵀ·W 840 MB (ne = 64) and 3208 MB
// (ne = 100; μ_W = 0 with a warp per Ac block) where Nsight Compute measured 1024
// and 4278: the gap term predicts +269 and +1032 MB, without a fitted constant.
func (s GalerkinStats) wRereads(mc GalerkinMachine, rows float64) int64 {
	if s.NnzW == 0 || s.NnzAc == 0 || s.M == 0 || s.N == 0 {
		return 0
	}
	u := float64(s.ProdPW) / float64(s.NnzW)
	rows = math.Min(float64(s.M), rows)
	dw := rows * float64(s.bytesWVal()) / float64(s.M)
	mu := math.Max(0, 1-float64(mc.L2Bytes)/math.Max(dw, 1))
	return int64(float64(s.bytesWVal())*math.Max(0, u-1)*mu + float64(s.wGapMisses(mc))*(1-mu))
}

// wGapMisses is the W bytes re-read after a gap of coarse rows whose streamed bytes
// (ProdPW/M·(2·8RC + 8) a coarse row) pass the L2 a shared line can use, from the
// histogram WRereadGaps.
func (s GalerkinStats) wGapMisses(mc GalerkinMachine) int64 {
	if s.M == 0 {
		return 0
	}
	return gapMisses(s.WRereadGaps, float64(s.ProdPW)*float64(2*8*s.R*s.C+8)/float64(s.M), mc)
}

// pGapMisses is the same for the A·P pass and P's rows: a P row is read again by the
// next fine row whose A row has it as a column, often a fine z-plane later, and the
// pass brings about (|A| + |W| + |P| + 4·ProdAP)/N new bytes into L2 a fine row
// (PRereadGaps). Without it Nsight Compute measured the A·P kernels of smem-tiles and
// tc-pairs at ne = 100 1.2–1.3 GB above the model (within 2% at ne = 64): it predicts
// +1370 MB at ne = 100, where a plane is ~10⁴ fine rows, and nothing at ne = 64.
func (s GalerkinStats) pGapMisses(mc GalerkinMachine) int64 {
	if s.N == 0 {
		return 0
	}
	perRow := float64(s.bytesA()+s.bytesWVal()+s.bytesP()+4*s.ProdAP) / float64(s.N)
	return gapMisses(s.PRereadGaps, perRow, mc)
}

// gapMisses sums the bytes of a gap histogram (bucket b: gaps in [2^b, 2^(b+1)),
// counted at 2^b) whose gap times perRow bytes streamed in between passes half the
// L2: the H100-class L2 is two partitions, each caching the lines its own SMs read,
// so a line every SM reads occupies both. The measurements agree: the ne = 100 P
// re-reads, about 49 MB of streamed data apart, miss; those of ne = 64, 20 MB apart,
// hit; the whole 60 MB would keep both.
func gapMisses(h [32]int64, perRow float64, mc GalerkinMachine) int64 {
	miss := int64(0)
	for b, bytes := range h {
		if float64(int64(1)<<b)*perRow > float64(mc.L2Bytes)/2 {
			miss += bytes
		}
	}
	return miss
}

// Coarse rows in flight: resident threads (or warps) over the Ac blocks (or rows)
// each takes.
func (s GalerkinStats) rowsThreadPerBlock(mc GalerkinMachine) float64 {
	return float64(max(mc.SMs, 1)*2048) / math.Max(1, float64(s.NnzAc)/float64(max(s.M, 1)))
}
func (s GalerkinStats) rowsWarpPerBlock(mc GalerkinMachine) float64 {
	return float64(max(mc.SMs, 1)*64) / math.Max(1, float64(s.NnzAc)/float64(max(s.M, 1)))
}

// lines is the expected number of 128-byte lines a run of b bytes starting at a
// random 8-byte boundary touches.
func lines(b int) float64 { return float64(b+120) / 128 }

// scalarLineFactor is the lines a thread-per-output-block kernel's warp-wide load
// touches per lane: each lane reads a different block, so a load instruction touches
// about 20 distinct lines of 32 lanes. Fitted on the H200 (ex56 ne = 64 fine
// level: inspector A·P 2.06 ms for 3.0·10⁷ products of 27 loads each, at one line per
// SM clock), and the same for every scalar kernel.
const scalarLineFactor = 0.63

// galerkinTerms is a variant's model before the roofline (roofline): per stage its
// DRAM bytes and flops, the block products its loads walk with the L1 lines each
// product takes, and its mma.m8n8k4 steps (tensor-core variants, tc).
type galerkinTerms struct {
	bytesAP, bytesPW int64
	flopsAP, flopsPW int64
	prodAP, lineAP   float64 // A·P: products walked, L1 lines per product
	prodPW, linePW   float64 // Pᵀ·W: likewise
	mAP, mPW         int64   // mma.m8n8k4 instructions
	tc               bool    // the products run on the tensor cores
}

// scalarTerms are the flops and L1 lines of a thread-per-output-block kernel on the
// CUDA cores: 0.63 × the loads per product, R² + RC (A·P) and 2RC (Pᵀ·W), for every
// product; a variant's predict adds its bytes.
func (s GalerkinStats) scalarTerms() galerkinTerms {
	R, C := s.R, s.C
	return galerkinTerms{flopsAP: s.flopsAP(), flopsPW: s.flopsPW(),
		prodAP: float64(s.ProdAP), lineAP: scalarLineFactor * float64(R*R+R*C),
		prodPW: float64(s.ProdPW), linePW: scalarLineFactor * float64(2*R*C)}
}

// roofline turns a variant's terms into the prediction for stage: the L1 lines of its
// products plus the stores (one ℓ(8RC) per W block, ℓ(8C²) per Ac block), and the
// time max(Bytes/Bandwidth, Flops/FMARate or 512·MMAs/TCRate, Lines/L1Rate, bounds),
// bounds being the variant's own lower bounds for the stage (latency paths, fitted
// cycles per step).
func (s GalerkinStats) roofline(mc GalerkinMachine, stage Stage, t galerkinTerms, bounds ...float64) GalerkinPrediction {
	linesAP := int64(t.prodAP*t.lineAP + float64(s.NnzW)*lines(8*s.R*s.C))
	linesPW := int64(t.prodPW*t.linePW + float64(s.NnzAc)*lines(8*s.C*s.C))
	var pr GalerkinPrediction
	switch stage {
	case StageAP:
		pr.Bytes, pr.Flops, pr.MMAs, pr.Lines = t.bytesAP, t.flopsAP, t.mAP, linesAP
	case StagePW:
		pr.Bytes, pr.Flops, pr.MMAs, pr.Lines = t.bytesPW, t.flopsPW, t.mPW, linesPW
	default:
		pr.Bytes, pr.Flops, pr.MMAs, pr.Lines = t.bytesAP+t.bytesPW, t.flopsAP+t.flopsPW, t.mAP+t.mPW, linesAP+linesPW
	}
	pr.Seconds = float64(pr.Bytes) / mc.Bandwidth
	switch {
	case !t.tc:
		pr.Seconds = math.Max(pr.Seconds, float64(pr.Flops)/mc.FMARate)
	case mc.TCRate > 0:
		pr.Seconds = math.Max(pr.Seconds, 512*float64(pr.MMAs)/mc.TCRate)
	}
	if mc.L1Rate > 0 {
		pr.Seconds = math.Max(pr.Seconds, float64(pr.Lines)/mc.L1Rate)
	}
	for _, x := range bounds {
		pr.Seconds = math.Max(pr.Seconds, x)
	}
	return pr
}

// PredictGalerkin returns the model's DRAM traffic, flops and time for variant v and
// stage; each variant's predict (in its file) gives its formulas. With |X| the bytes
// of X (values + column indices + row pointers for A and P, values only for W and
// Ac) and L the L2 size: every A·P pass but fused-recompute's adds the P rows read
// again across fine planes (pGapMisses), and the W re-read term wRereads includes
// those across coarse planes (wGapMisses).
//
// Flops: 2R²C per A·P product (ρ times for fused-recompute) and 2RC² per Pᵀ·W product;
// the tensor-core variants issue ⌈R/4⌉ mma.m8n8k4 (512 flops with the padding) per
// product instead. The time is the roofline max(Bytes/Bandwidth, Flops/FMARate or
// 512·MMAs/TCRate, Lines/L1Rate) (roofline): it assumes the kernel overlaps memory,
// arithmetic and load issue and ignores latency, so it is a lower bound whose ranking
// of variants is what the chooser uses. The row kernels (tc-rows, smem-rows) add a
// fitted latency path (tcRowsPath, smemRowsPath), the larger of the two being the
// time; tc-block and tc-pairs a fitted cost in SM cycles per mma step (tcbCyclesAP,
// tcbCyclesPW, tcPairsCycles). An unknown variant gets the zero prediction.
func PredictGalerkin(s GalerkinStats, mc GalerkinMachine, v GalerkinVariant, stage Stage) GalerkinPrediction {
	e := galerkinEntryOf(v)
	if e == nil {
		return GalerkinPrediction{}
	}
	return e.kernel.predict(s, mc, stage)
}

// wHalf returns the share of W's bytes w (of its NnzW blocks) in the blocks the
// symmetric half reads: what it reads, and what tc-block, tc-pairs and smem-tiles
// write with it.
func (s GalerkinStats) wHalf(w int64) int64 {
	if s.NnzW == 0 {
		return w
	}
	return int64(float64(w) * float64(s.NnzW-s.WUnread) / float64(s.NnzW))
}

// wavePath is the time of units (rows, windows) that one warp each walks in steps
// steps in all, warps resident per SM: ⌈units/(SMs·warps)⌉ waves of (steps per unit)
// × step.
func wavePath(mc GalerkinMachine, units, steps int64, warps int, step float64) float64 {
	if units <= 0 || steps <= 0 {
		return 0
	}
	slots := float64(max(mc.SMs, 1) * warps)
	return math.Ceil(float64(units)/slots) * float64(steps) / float64(units) * step
}

// pickStage returns the A·P time, the Pᵀ·W time or their sum, as stage asks.
func pickStage(stage Stage, ap, pw float64) float64 {
	switch stage {
	case StageAP:
		return ap
	case StagePW:
		return pw
	}
	return ap + pw
}

// ChooseGalerkin returns the deterministic variant with the smallest predicted time
// among those the pattern offers (see GalerkinPlan.Available; the nondeterministic
// baseline is never picked); ties go to the earlier of GalerkinVariants.
func ChooseGalerkin(s GalerkinStats, mc GalerkinMachine) GalerkinVariant {
	best, bt := GalerkinInspector, math.Inf(1)
	for _, e := range galerkinTable {
		if e.atomics || !s.offers(e.name) {
			continue
		}
		if t := e.kernel.predict(s, mc, StageAll).Seconds; t < bt {
			best, bt = e.name, t
		}
	}
	return best
}
